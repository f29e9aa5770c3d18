/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_PRETTY_NUMBER_H
#define HT_HOST_PRETTY_NUMBER_H

/*
 * Numbers as babeltrace2's text prints them, written by hand: decimal
 * integers with a two-digit table, 8 digits at a time in a 64-bit word;
 * integers in their display base; %g floats. Every writer takes a
 * cursor and returns its new end, the caller having made room (each
 * says how much); they know nothing of the output buffer or of events.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ctf-reader.h"

/* "00" "01" ... "99" */
extern const char ht__digit_pairs[201];

/*
 * printf("%g", @d) into @out (room for 64 bytes); returns the length.
 * Exact: the common values without printf, the others through it.
 */
size_t ht__fmt_g(char *out, double d);

/*
 * The hot writers take a cursor and return its new end instead of
 * updating p->len: a store through a char pointer may alias p->len, so
 * with p->len the compiler reloads and stores it around every write,
 * and each write waits for the previous one's store to reach the load.
 * A cursor stays in a register. Callers reserve first.
 */
static inline char *out_mem(char *o, const void *s, size_t n)
{
	memcpy(o, s, n);
	return o + n;
}

#define OUT_LIT(o, lit) out_mem((o), (lit), sizeof(lit) - 1)

/* 10^0 ... 10^19 */
extern const uint64_t ht__pow10_u64[20];

/* The number of decimal digits of @v (1 for 0): from its bit length
 * (log10(2) is about 1233 / 4096), one less when below that power of
 * ten (v | 1 gives the same answer but for 0, which has 1 digit). */
static inline unsigned digits10(uint64_t v)
{
	unsigned t = ((64 - (unsigned)__builtin_clzll(v | 1)) * 1233) >> 12;

	return t + 1 - ((v | 1) < ht__pow10_u64[t]);
}

/*
 * Digits are built in a 64-bit word, the first one in the lowest byte,
 * and stored 8 bytes at once: no variable-length copy, no loop. The
 * caller has room for the 8 bytes.
 */
static inline void store_word(char *out, uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	memcpy(out, &w, 8);
}

/*
 * The 8 digits of @v < 10^8 with leading zeros, without a table: the
 * word is split in lanes, halved each step (4-digit halves in 32-bit
 * lanes, then pairs in 16-bit lanes, then digits in bytes), each
 * division by a constant a multiply and a shift that are exact in that
 * range (checked for every v < 10^8); the masks drop what the shifts
 * bring in from the lane above. The digits' values, 0 to 9, a byte
 * each; digits8_word() makes them characters.
 */
static inline uint64_t digits8_values(uint32_t v)
{
	uint64_t x = v, hi, h2, h3;

	hi = (x * 109951163) >> 40; /* v / 10000 */
	x = hi | (x - hi * 10000) << 32;
	h2 = ((x * 10486) >> 20) & 0x0000007F0000007Full; /* / 100 */
	/* h2 | (x - h2 * 100) << 16: the parts do not overlap, so it is
	 * a sum, modulo 2^64 one multiply by a constant */
	x = (x << 16) + h2 * (1 - (100 << 16));
	h3 = ((x * 103) >> 10) & 0x000F000F000F000Full; /* / 10 */
	return (x << 8) + h3 * (1 - (10 << 8));		/* as above */
}

/* The 8 digits of @v < 10^8 as characters. */
static inline uint64_t digits8_word(uint32_t v)
{
	return digits8_values(v) | 0x3030303030303030ull; /* '0' + each */
}

/*
 * The 8 uppercase hex digits of @v in a word, the first in the lowest
 * byte: the nibbles spread to bytes (the lowest nibble in the lowest
 * byte), the bytes reversed, then each one '0' + nibble, plus 7 more
 * where it is above 9 ('A' - '9' - 1).
 */
static inline uint64_t hex8_word(uint32_t v)
{
	uint64_t x = v, above9;

	x = (x | x << 16) & 0x0000FFFF0000FFFFull;
	x = (x | x << 8) & 0x00FF00FF00FF00FFull;
	x = (x | x << 4) & 0x0F0F0F0F0F0F0F0Full;
	x = __builtin_bswap64(x);
	above9 = ((x + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;
	return x + 0x3030303030303030ull + above9 * 7;
}

/* The @n (1 to 8) last digits of @v < 10^8 at @out; stores 8 bytes. */
static inline void store_digits8(char *out, uint32_t v, unsigned n)
{
	store_word(out, digits8_word(v) >> 8 * (8 - n));
}

/*
 * The @n (at most 20) digits of @v < 10^@n at @out, leading zeros
 * included; may store up to 7 bytes past them. 32-bit arithmetic on
 * 8-digit chunks, much cheaper than 64-bit divisions.
 */
static inline void store_digits(char *out, uint64_t v, unsigned n)
{
	if (n > 16) {
		store_digits8(out,
			      (uint32_t)(v / 10000000000000000ull % 100000000),
			      n - 16);
		out += n - 16;
		v %= 10000000000000000ull;
		n = 16;
	}
	if (n == 9) {
		/* timestamps' nanoseconds: one digit, then 8 */
		*out++ = (char)('0' + v / 100000000);
		v %= 100000000;
		n = 8;
	} else if (n > 8) {
		store_digits8(out, (uint32_t)(v / 100000000), n - 8);
		out += n - 8;
		v %= 100000000;
		n = 8;
	}
	store_digits8(out, (uint32_t)v, n);
}

/* The digits of @v >= 10^8 at @o; returns their end and may store up to
 * 7 bytes past it. Out of line: out_u64() stays small enough to inline
 * everywhere. */
char *ht__out_u64_long(char *o, uint64_t v);

/*
 * The digits of 0 < @v < 10^8 without leading zeros; stores 8 bytes.
 * The leading zeros are the low bytes of value 0 in the word: 8 times
 * their number is its trailing zero bits rounded down to a multiple of
 * 8 (the word is not 0), no digit count.
 */
static inline char *out_digits8_lead(char *o, uint32_t v)
{
	uint64_t x = digits8_values(v);
	unsigned zero_bits = (unsigned)__builtin_ctzll(x) & 56;

	store_word(o, (x | 0x3030303030303030ull) >> zero_bits);
	return o + 8 - zero_bits / 8;
}

/* Most integers in traces are small: one or two digits without the
 * 8-digit word. */
static inline char *out_u64(char *o, uint64_t v)
{
	if (v < 10) {
		*o = (char)('0' + v);
		return o + 1;
	}
	if (v < 100) {
		memcpy(o, ht__digit_pairs + 2 * v, 2);
		return o + 2;
	}
	if (v < 100000000) {
		return out_digits8_lead(o, (uint32_t)v);
	}
	return ht__out_u64_long(o, v);
}

static inline char *out_s64(char *o, int64_t v)
{
	if (v < 0) {
		*o++ = '-';
		return out_u64(o, -(uint64_t)v);
	}
	return out_u64(o, (uint64_t)v);
}

/* @v < 10^9 in 9 digits (nanoseconds), inline: one digit, then 8. */
static inline char *out_pad9(char *o, uint64_t v)
{
	/* below 2^32: 32-bit arithmetic */
	uint32_t v32 = (uint32_t)v, hi = v32 / 100000000;

	*o = (char)('0' + hi);
	store_word(o + 1, digits8_word(v32 - hi * 100000000));
	return o + 9;
}

/* @v zero-padded to @width digits (@v must fit). */
static inline char *out_pad(char *o, uint64_t v, unsigned width)
{
	store_digits(o, v, width);
	return o + width;
}

/*
 * An integer in its display base. babeltrace2 masks a negative value
 * to whole digits: hex to 4 * ceil(size / 4) bits, octal to
 * 3 * ceil(size / 3) bits; binary shows exactly size bits.
 */
static inline char *out_int(char *o, const struct ht_ctf_type *t, uint64_t raw)
{
	static const char hex_upper[] = "0123456789ABCDEF";
	unsigned size = t->size_bits;
	unsigned bits, nd, i;
	uint64_t v = raw;

	switch (t->base) {
	case 16:
		bits = (size + 3) / 4 * 4;
		if (bits < 64) {
			v &= ((uint64_t)1 << bits) - 1;
		}
		nd = v ? (67 - (unsigned)__builtin_clzll(v)) / 4 : 1;
		o = OUT_LIT(o, "0x");
		if (nd <= 8) {
			store_word(o, hex8_word((uint32_t)v) >> 8 * (8 - nd));
			return o + nd;
		}
		for (i = nd; i--; v >>= 4) {
			o[i] = hex_upper[v & 0xf];
		}
		return o + nd;
	case 8:
		bits = (size + 2) / 3 * 3;
		if (bits < 64) {
			v &= ((uint64_t)1 << bits) - 1;
		}
		nd = v ? (66 - (unsigned)__builtin_clzll(v)) / 3 : 1;
		*o++ = '0';
		for (i = nd; i--; v >>= 3) {
			o[i] = (char)('0' + (v & 7));
		}
		return o + nd;
	case 2:
		o = OUT_LIT(o, "0b");
		for (i = size; i--;) {
			*o++ = (char)('0' + ((v >> i) & 1));
		}
		return o;
	default:
		return t->is_signed ? out_s64(o, (int64_t)raw)
				    : out_u64(o, raw);
	}
}

#endif
