/* SPDX-License-Identifier: MIT */
/* Little-endian stores for the hand-written test traces (bigtrace.c,
 * t-seek.c): the traces are little-endian whatever the host. */
#ifndef HT_TESTS_LE_STORE_H
#define HT_TESTS_LE_STORE_H

#include <stdint.h>

static inline void put32(uint8_t *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++) {
		p[i] = v >> (8 * i);
	}
}

static inline void put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++) {
		p[i] = v >> (8 * i);
	}
}

#endif
