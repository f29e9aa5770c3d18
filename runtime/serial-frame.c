/* SPDX-License-Identifier: MIT */
/*
 * The serial link's frame codec (include/hetrace/serial-proto.h): CRC-32,
 * the incremental COBS encoder, the byte-at-a-time decoder. The target
 * and the host share this file, so both sides agree on every byte.
 *
 * Hand-written rather than zlib's crc32() and a COBS library: the
 * target is freestanding, and one implementation on both ends cannot
 * disagree. A nibble table keeps the CRC at 64 bytes of constants;
 * the host reads at most a few MB/s from a line, far below its speed.
 *
 * COBS: the body is cut into blocks of at most 254 non-zero bytes; each
 * block is sent as a code byte (its length + 1) and its bytes. A code
 * below 0xff stands for a 0x00 after the block, except after the
 * frame's last block. The encoder always ends a frame with a block (an
 * empty one is the code 0x01), the decoder accepts both usual endings.
 */
#include <string.h>

#include "hetrace/serial-proto.h"

static const uint32_t crc_nibble[16] = {
    0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu,
    0x76dc4190u, 0x6b6b51f4u, 0x4db26158u, 0x5005713cu,
    0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
    0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu,
};

uint32_t ht_crc32(uint32_t crc, const void *p, uint32_t n)
{
	const uint8_t *b = p;
	uint32_t i;

	crc = ~crc;
	for (i = 0; i < n; i++) {
		crc ^= b[i];
		crc = (crc >> 4) ^ crc_nibble[crc & 15u];
		crc = (crc >> 4) ^ crc_nibble[crc & 15u];
	}
	return ~crc;
}

/* ---- Encoder ---- */

/* The open block is out[1..blk]; closing it makes it the output. */
static void enc_close_block(struct ht_frame_enc *e)
{
	e->out[0] = (uint8_t)(e->blk + 1u);
	e->out_len = e->blk + 1u;
	e->out_pos = 0;
	e->blk = 0;
}

/* One body byte; the caller checked that no output is pending. */
static void enc_byte(struct ht_frame_enc *e, uint8_t b)
{
	if (b == 0u) {
		enc_close_block(e);
		return;
	}
	e->out[1u + e->blk++] = b;
	if (e->blk == 254u) {
		enc_close_block(e);
	}
}

/* Feeds pre[] (header or CRC) while the output is free; 1 when all fed. */
static int enc_pre(struct ht_frame_enc *e)
{
	while (e->out_len == 0u && e->pre_pos < e->pre_len) {
		enc_byte(e, e->pre[e->pre_pos++]);
	}
	return e->out_len == 0u && e->pre_pos == e->pre_len;
}

void ht_frame_enc_start(struct ht_frame_enc *e, uint8_t type, uint16_t seq)
{
	e->out_len = 0;
	e->out_pos = 0;
	e->blk = 0;
	e->finishing = 0;
	e->done = 0;
	e->pre[0] = type;
	e->pre[1] = 0;
	ht_sp_put16(e->pre + 2, seq);
	e->pre_len = HT_SP_HDR;
	e->pre_pos = 0;
	e->crc = ht_crc32(0, e->pre, HT_SP_HDR);
	(void)enc_pre(e);
}

uint32_t ht_frame_enc_feed(struct ht_frame_enc *e, const void *p, uint32_t n)
{
	const uint8_t *b = p;
	uint32_t i = 0;

	if (!enc_pre(e)) {
		return 0;
	}
	while (i < n && e->out_len == 0u) {
		enc_byte(e, b[i++]);
	}
	e->crc = ht_crc32(e->crc, b, i);
	return i;
}

void ht_frame_enc_finish(struct ht_frame_enc *e)
{
	e->finishing = 1;
	ht_frame_enc_step(e);
}

void ht_frame_enc_step(struct ht_frame_enc *e)
{
	if (!e->finishing || e->done || !enc_pre(e)) {
		return;
	}
	if (e->finishing == 1) {
		ht_sp_put32(e->pre, e->crc);
		e->pre_len = HT_SP_CRC;
		e->pre_pos = 0;
		e->finishing = 2;
		if (!enc_pre(e)) {
			return;
		}
	}
	if (e->finishing == 2) {
		/* The frame's last block, even an empty one. */
		enc_close_block(e);
		e->finishing = 3;
		return;
	}
	e->out[0] = 0;
	e->out_len = 1;
	e->out_pos = 0;
	e->done = 1;
}

/* Appends the pending output to dst: 0 when it does not fit. */
static int enc_drain(struct ht_frame_enc *e, uint8_t *dst, uint32_t cap,
		     uint32_t *len)
{
	uint32_t n = ht_frame_enc_pending(e);

	if (n > cap - *len) {
		return 0;
	}
	memcpy(dst + *len, ht_frame_enc_out(e), n);
	*len += n;
	ht_frame_enc_take(e, n);
	return 1;
}

uint32_t ht_frame_encode(uint8_t *dst, uint32_t cap, uint8_t type, uint16_t seq,
			 const void *payload, uint32_t n)
{
	struct ht_frame_enc e;
	const uint8_t *p = payload;
	uint32_t len = 0, k;

	ht_frame_enc_start(&e, type, seq);
	while (n) {
		k = ht_frame_enc_feed(&e, p, n);
		p += k;
		n -= k;
		if (!enc_drain(&e, dst, cap, &len)) {
			return 0;
		}
	}
	ht_frame_enc_finish(&e);
	while (!ht_frame_enc_done(&e)) {
		if (!enc_drain(&e, dst, cap, &len)) {
			return 0;
		}
		ht_frame_enc_step(&e);
	}
	return len;
}

/* ---- Decoder ---- */

void ht_frame_dec_init(struct ht_frame_dec *d, uint8_t *buf, uint32_t cap)
{
	memset(d, 0, sizeof(*d));
	d->buf = buf;
	d->cap = cap;
}

/* Ends the frame that a 0x00 closed: enum ht_frame_result. */
static int dec_end(struct ht_frame_dec *d)
{
	uint32_t raw = d->raw;
	int bad = 1;

	d->raw = 0;
	if (raw == 0u) {
		return HT_FRAME_IDLE;
	}
	if (d->skip) {
		d->too_long++;
	} else if (d->left) {
		d->cobs_errs++;
	} else if (d->len < HT_SP_BODY_MIN) {
		d->runts++;
	} else if (ht_crc32(0, d->buf, d->len - HT_SP_CRC) !=
		   ht_sp_get32(d->buf + d->len - HT_SP_CRC)) {
		d->crc_errs++;
	} else {
		bad = 0;
	}
	d->skip = 0;
	d->left = 0;
	d->zero = 0;
	if (bad) {
		d->len = 0;
		d->dropped_bytes += raw + 1u;
		return HT_FRAME_BAD;
	}
	d->frames++;
	return HT_FRAME_OK;
}

/* One decoded body byte; a body larger than the buffer is dropped. */
static void dec_put(struct ht_frame_dec *d, uint8_t b)
{
	if (d->len == d->cap) {
		d->skip = 1;
		return;
	}
	d->buf[d->len++] = b;
}

int ht_frame_dec_byte(struct ht_frame_dec *d, uint8_t b)
{
	if (b == 0u) {
		return dec_end(d);
	}
	if (d->raw++ == 0u) {
		d->len = 0;
	}
	if (d->skip) {
		return HT_FRAME_MORE;
	}
	if (d->left == 0u) {
		/* A code byte: the previous block's implied 0x00 first. */
		if (d->zero) {
			dec_put(d, 0);
		}
		d->left = (uint32_t)b - 1u;
		d->zero = b != 0xffu;
		return HT_FRAME_MORE;
	}
	dec_put(d, b);
	d->left--;
	return HT_FRAME_MORE;
}
