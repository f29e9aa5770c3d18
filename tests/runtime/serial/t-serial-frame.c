/* SPDX-License-Identifier: MIT */
/*
 * The serial frame codec (runtime/serial-frame.c):
 * - CRC-32 is zlib's (the check value of "123456789", and split blocks);
 * - every body length around the COBS block boundaries (0..600 bytes of
 *   payload, with and without zero bytes) comes back intact, encoded in
 *   one call or drained a byte at a time, and the wire has no 0x00 but
 *   the delimiter and stays within HT_SP_ENCODED_MAX;
 * - a lone 0x00 is IDLE; garbage, a dropped byte, a flipped byte, a
 *   runt and a frame larger than the buffer are dropped and counted,
 *   and the next frame decodes.
 */
#include <stdint.h>
#include <string.h>

#include "hetrace/serial-proto.h"
#include "tests/check.h"

static uint8_t payload[1024], wire[2048], dec_buf[1024];

/* Feeds @n wire bytes; returns the last non-MORE result, counts OKs. */
static int feed(struct ht_frame_dec *d, const uint8_t *w, uint32_t n,
		unsigned *oks)
{
	int last = HT_FRAME_MORE, r;
	uint32_t i;

	for (i = 0; i < n; i++) {
		r = ht_frame_dec_byte(d, w[i]);
		if (r != HT_FRAME_MORE) {
			last = r;
		}
		if (r == HT_FRAME_OK && oks) {
			(*oks)++;
		}
	}
	return last;
}

/*
 * Moves the encoder's pending output to wire[@len...], @chunk bytes at a
 * time: returns the new length.
 */
static uint32_t take_out(struct ht_frame_enc *e, uint32_t len, uint32_t chunk)
{
	uint32_t k;

	while (ht_frame_enc_pending(e)) {
		k = ht_frame_enc_pending(e) < chunk ? ht_frame_enc_pending(e)
						    : chunk;
		memcpy(wire + len, ht_frame_enc_out(e), k);
		len += k;
		ht_frame_enc_take(e, k);
	}
	return len;
}

/* Encodes with the incremental encoder, taking @chunk bytes at a time. */
static uint32_t encode_slowly(uint8_t type, uint16_t seq, const uint8_t *p,
			      uint32_t n, uint32_t chunk)
{
	struct ht_frame_enc e;
	uint32_t len = 0, k;

	ht_frame_enc_start(&e, type, seq);
	for (;;) {
		len = take_out(&e, len, chunk);
		if (!n) {
			break;
		}
		k = ht_frame_enc_feed(&e, p, n);
		p += k;
		n -= k;
	}
	ht_frame_enc_finish(&e);
	while (!ht_frame_enc_done(&e)) {
		len = take_out(&e, len, chunk);
		ht_frame_enc_step(&e);
	}
	return len;
}

static void round_trip(uint32_t n, int zeros)
{
	struct ht_frame_dec d;
	uint32_t i, len, len2;
	uint8_t copy[2048];
	int r;

	for (i = 0; i < n; i++) {
		payload[i] =
		    (uint8_t)(zeros && i % 97u == 3u ? 0u : i * 7u + 1u);
		if (!zeros && payload[i] == 0u) {
			payload[i] = 1;
		}
	}
	len = ht_frame_encode(wire, sizeof(wire), HT_SP_PACKET, (uint16_t)n,
			      payload, n);
	CHECK_MSG(len > 0 && len <= HT_SP_ENCODED_MAX(n + HT_SP_BODY_MIN),
		  "n=%u: %u wire bytes", n, len);
	for (i = 0; i + 1 < len; i++) {
		CHECK_MSG(wire[i] != 0u, "n=%u: 0x00 at %u of %u", n, i, len);
	}
	CHECK(wire[len - 1] == 0u);
	memcpy(copy, wire, len);
	len2 =
	    encode_slowly(HT_SP_PACKET, (uint16_t)n, payload, n, 1u + n % 5u);
	CHECK_MSG(len2 == len && !memcmp(copy, wire, len),
		  "n=%u: incremental encoding differs", n);

	ht_frame_dec_init(&d, dec_buf, sizeof(dec_buf));
	r = feed(&d, copy, len, NULL);
	CHECK_MSG(r == HT_FRAME_OK, "n=%u: result %d", n, r);
	if (r == HT_FRAME_OK) {
		CHECK(ht_frame_dec_type(&d) == HT_SP_PACKET);
		CHECK(ht_frame_dec_seq(&d) == (uint16_t)n);
		CHECK(ht_frame_dec_size(&d) == n);
		CHECK_MSG(!memcmp(ht_frame_dec_payload(&d), payload, n),
			  "n=%u: payload differs", n);
	}
}

int main(void)
{
	struct ht_frame_dec d;
	uint8_t small[8];
	unsigned oks = 0;
	uint32_t n, len, i;

	CHECK(ht_crc32(0, "123456789", 9) == 0xcbf43926u);
	CHECK(ht_crc32(ht_crc32(0, "1234", 4), "56789", 5) == 0xcbf43926u);
	CHECK(ht_crc32(0, "", 0) == 0u);

	for (n = 0; n <= 600; n++) {
		round_trip(n, 0);
		round_trip(n, 1);
	}

	/* Lone delimiters are IDLE, and change nothing. */
	ht_frame_dec_init(&d, dec_buf, sizeof(dec_buf));
	CHECK(ht_frame_dec_byte(&d, 0) == HT_FRAME_IDLE);
	CHECK(ht_frame_dec_byte(&d, 0) == HT_FRAME_IDLE);

	/* Garbage, then a good frame: one BAD, then OK. */
	for (i = 0; i < 200; i++) {
		payload[i] = (uint8_t)(i + 1);
	}
	len = ht_frame_encode(wire, sizeof(wire), HT_SP_LOG, 7, payload, 200);
	{
		static const uint8_t junk[] = {0x41, 0x42, 0x43, 0x0d, 0x0a, 0};

		CHECK(feed(&d, junk, sizeof(junk), NULL) == HT_FRAME_BAD);
		CHECK(feed(&d, wire, len, &oks) == HT_FRAME_OK);
	}

	/* A dropped byte: the frame is dropped, the next one decodes. */
	memmove(wire + 10, wire + 11, len - 11);
	CHECK(feed(&d, wire, len - 1, NULL) == HT_FRAME_BAD);
	len = ht_frame_encode(wire, sizeof(wire), HT_SP_LOG, 8, payload, 200);
	CHECK(feed(&d, wire, len, &oks) == HT_FRAME_OK);

	/* A flipped bit: CRC error. */
	wire[50] ^= 0x10;
	if (wire[50] == 0) {
		wire[50] = 0x55;
	}
	CHECK(feed(&d, wire, len, NULL) == HT_FRAME_BAD);
	CHECK(d.crc_errs + d.cobs_errs >= 2);

	/* A runt: three bytes and a delimiter. */
	{
		static const uint8_t runt[] = {0x04, 0x01, 0x02, 0x03, 0};

		CHECK(feed(&d, runt, sizeof(runt), NULL) == HT_FRAME_BAD);
		CHECK(d.runts == 1);
	}

	/* Larger than the buffer: dropped, counted, the next one fits. */
	ht_frame_dec_init(&d, small, sizeof(small));
	len = ht_frame_encode(wire, sizeof(wire), HT_SP_LOG, 9, payload, 20);
	CHECK(feed(&d, wire, len, NULL) == HT_FRAME_BAD);
	CHECK(d.too_long == 1 && d.dropped_bytes == len);
	len = ht_frame_encode(wire, sizeof(wire), HT_SP_LOG, 10, NULL, 0);
	CHECK(feed(&d, wire, len, NULL) == HT_FRAME_OK);
	CHECK(ht_frame_dec_size(&d) == 0 && ht_frame_dec_seq(&d) == 10);

	/* A buffer too small for the encoder: 0, nothing written past. */
	CHECK(ht_frame_encode(wire, 10, HT_SP_LOG, 1, payload, 200) == 0);

	CHECK(oks == 2);
	return check_summary("t-serial-frame");
}
