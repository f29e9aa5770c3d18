/* SPDX-License-Identifier: MIT */
/*
 * The integer writers of the text formatter (pretty-number.h) against
 * printf: decimal integers at every power of ten and around it,
 * zero-padded ones (timestamps) and hexadecimal ones, byte for byte;
 * the 8-digit word of every value below 10^8.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "host/ctf/pretty-number.h"

static unsigned long fails, checks;

static void same(const char *what, uint64_t v, const char *want,
		 const char *got, size_t n)
{
	checks++;
	if (strlen(want) != n || memcmp(want, got, n)) {
		if (fails++ < 20) {
			printf("FAIL: %s %" PRIu64
			       ": want \"%s\", got \"%.*s\"\n",
			       what, v, want, (int)n, got);
		}
	}
}

/* Hexadecimal integers of every size, as babeltrace2 masks them. */
static void check_hex(uint64_t v)
{
	static const unsigned sizes[] = {1,  4,	 5,  8,	 13, 16,
					 31, 32, 33, 63, 64};
	struct ht_ctf_type t;
	char want[64], got[64];
	size_t i;

	memset(&t, 0, sizeof(t));
	t.kind = HT_CTF_INT;
	t.base = 16;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned bits = (sizes[i] + 3) / 4 * 4;
		uint64_t m = bits < 64 ? v & (((uint64_t)1 << bits) - 1) : v;
		char *end;

		t.size_bits = sizes[i];
		snprintf(want, sizeof(want), "0x%" PRIX64, m);
		end = out_int(got, &t, v);
		same("out_int hex", v, want, got, (size_t)(end - got));
	}
}

static void check(uint64_t v)
{
	char want[64], got[64];
	char *end;

	snprintf(want, sizeof(want), "%" PRIu64, v);
	end = out_u64(got, v);
	same("out_u64", v, want, got, (size_t)(end - got));
	if (digits10(v) != strlen(want)) {
		checks++;
		if (fails++ < 20) {
			printf("FAIL: digits10 %" PRIu64 ": %u\n", v,
			       digits10(v));
		}
	}
	snprintf(want, sizeof(want), "%" PRId64, (int64_t)v);
	end = out_s64(got, (int64_t)v);
	same("out_s64", v, want, got, (size_t)(end - got));
	snprintf(want, sizeof(want), "%09" PRIu64, v % 1000000000);
	end = out_pad(got, v % 1000000000, 9);
	same("out_pad 9", v, want, got, (size_t)(end - got));
	end = out_pad9(got, v % 1000000000);
	same("out_pad9", v, want, got, (size_t)(end - got));
	snprintf(want, sizeof(want), "%012" PRIu64,
		 v % UINT64_C(1000000000000));
	end = out_pad(got, v % UINT64_C(1000000000000), 12);
	same("out_pad 12", v, want, got, (size_t)(end - got));
	snprintf(want, sizeof(want), "%020" PRIu64, v);
	end = out_pad(got, v, 20);
	same("out_pad 20", v, want, got, (size_t)(end - got));
	check_hex(v);
}

/* digits8_word() for every v < 10^8 against the digits one by one (its
 * multiplies by constants are exact only in that range). */
static void check_digits8_all(void)
{
	uint32_t v, d;
	int i;

	for (v = 0; v < 100000000; v++) {
		uint64_t want = 0;

		for (d = v, i = 0; i < 8; i++, d /= 10) {
			want = want << 8 | (uint64_t)('0' + d % 10);
		}
		checks++;
		if (digits8_word(v) != want && fails++ < 20) {
			printf("FAIL: digits8_word %u: %016" PRIx64 "\n", v,
			       digits8_word(v));
		}
	}
}

int main(void)
{
	uint64_t seed = 88172645463325252ull, p = 1;
	int k, i;

	check(0);
	check(UINT64_MAX);
	check(INT64_MAX);
	check((uint64_t)INT64_MIN);
	for (k = 0; k < 20; k++) {
		for (i = -3; i <= 3; i++) {
			check(p + (uint64_t)i);
			check(0 - (p + (uint64_t)i));
		}
		if (k < 19) {
			p *= 10;
		}
	}
	for (k = 0; k < 64; k++) {
		check((uint64_t)1 << k);
		check(((uint64_t)1 << k) - 1);
	}
	for (i = 0; i < 1000000; i++) {
		/* xorshift; values of every length */
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		check(seed >> (seed % 64));
	}
	check_digits8_all();
	printf("%lu checks, %lu failures\n", checks, fails);
	return fails != 0;
}
