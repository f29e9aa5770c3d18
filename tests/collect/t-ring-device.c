/* SPDX-License-Identifier: MIT */
/*
 * A ring read as device memory (ht_ring_reader_attach_device(): the
 * copies made of aligned 32-bit loads, for /dev/mem and UIO maps) gives
 * the same bytes as one read through memcpy(): the header, a metadata
 * area of odd length, slots, and reads that start and end off a word
 * boundary, of every length from 0 to 11.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hetrace/packet-ring.h"
#include "host/collect/packet-ring-reader.h"
#include "tests/check.h"

#define SLOT 512u
#define SIZE (16u * 1024u)

int main(void)
{
	static const char meta[] = "/* CTF 1.8 */ trace { major = 1; };";
	uint8_t *mem = aligned_alloc(64, SIZE);
	uint8_t a[SLOT * 4], b[SLOT * 4];
	struct ht_ring_reader *plain, *dev;
	const struct ht_ring_info *pi, *di;
	char err[256];
	struct ht_ring *r;
	uint32_t i, n, ka, kb;
	size_t off, len;

	REQUIRE(mem != NULL);
	r = ht_ring_init(mem, SIZE, SLOT, HT_RING_DISCARD, 7, "dsp7", meta,
			 (uint32_t)strlen(meta));
	REQUIRE(r != NULL);
	for (i = 0; i < 5; i++) {
		uint8_t *s = ht_ring_slot(r);

		for (n = 0; n < SLOT; n++) {
			s[n] = (uint8_t)(i * 31u + n * 7u);
		}
		ht_ring_commit(r);
	}
	REQUIRE(ht_ring_reader_attach(&plain, mem, SIZE, "plain", err,
				      sizeof(err)) == 0);
	REQUIRE(ht_ring_reader_attach_device(&dev, mem, SIZE, "dev", err,
					     sizeof(err)) == 0);
	pi = ht_ring_reader_info(plain);
	di = ht_ring_reader_info(dev);
	CHECK(pi->core_id == 7 && di->core_id == 7);
	CHECK(strcmp(pi->core_name, di->core_name) == 0);
	CHECK(pi->nr_slots == di->nr_slots && pi->slot_size == di->slot_size);
	CHECK(di->metadata_size == strlen(meta));

	/* The metadata area, at every start and length near its ends. */
	for (off = 0; off < 4; off++) {
		for (len = 0; len < 12 && off + len <= strlen(meta); len++) {
			memset(a, 0xaa, sizeof(a));
			memset(b, 0x55, sizeof(b));
			REQUIRE(ht_ring_reader_read(
				    plain, a, di->metadata + off, len) == 0);
			REQUIRE(ht_ring_reader_read(dev, b, di->metadata + off,
						    len) == 0);
			CHECK(memcmp(a, b, len) == 0);
			CHECK(memcmp(b, meta + off, len) == 0);
			CHECK(b[len] == 0x55); /* nothing past the end */
		}
	}

	/* The slots, one by one and several at once. */
	CHECK(ht_ring_reader_avail(plain) == 5 &&
	      ht_ring_reader_avail(dev) == 5);
	for (i = 0; i < 5; i++) {
		REQUIRE(ht_ring_reader_copy_slot(plain, i, a, &ka));
		REQUIRE(ht_ring_reader_copy_slot(dev, i, b, &kb));
		CHECK(ka == kb && memcmp(a, b, SLOT) == 0);
		CHECK(b[SLOT - 1] == (uint8_t)(i * 31u + (SLOT - 1u) * 7u));
	}
	n = ht_ring_reader_copy_slots(dev, 1, 4, b, &kb);
	CHECK(n == 4 && kb == 1);
	CHECK(b[0] == 31 && b[SLOT * 3 + 5] == (uint8_t)(4u * 31u + 35u));

	ht_ring_reader_close(plain);
	ht_ring_reader_close(dev);
	free(mem);
	return check_summary("t-ring-device");
}
