/* SPDX-License-Identifier: MIT */
/*
 * The %g floats of babeltrace2's text (pretty-number.h): 6 significant
 * digits, decided in floating point for nearly every value and exactly
 * for the others, printf only where neither applies.
 */
#include <math.h>
#include <stdio.h>

#include "pretty-number.h"

const char ht__digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324"
    "25262728293031323334353637383940414243444546474849"
    "50515253545556575859606162636465666768697071727374"
    "75767778798081828384858687888990919293949596979899";

const uint64_t ht__pow10_u64[20] = {
    1ull,
    10ull,
    100ull,
    1000ull,
    10000ull,
    100000ull,
    1000000ull,
    10000000ull,
    100000000ull,
    1000000000ull,
    10000000000ull,
    100000000000ull,
    1000000000000ull,
    10000000000000ull,
    100000000000000ull,
    1000000000000000ull,
    10000000000000000ull,
    100000000000000000ull,
    1000000000000000000ull,
    10000000000000000000ull,
};

char *ht__out_u64_long(char *o, uint64_t v)
{
	uint64_t hi;
	unsigned n;

	if (v >= 10000000000000000ull) {
		n = digits10(v);
		store_digits(o, v, n);
		return o + n;
	}
	/* the digits above the last 8 without their leading zeros, then
	 * the last 8: two words, independent of each other, after one
	 * division by a constant */
	hi = v / 100000000;
	o = out_digits8_lead(o, (uint32_t)hi);
	store_word(o, digits8_word((uint32_t)(v - hi * 100000000)));
	return o + 8;
}

/* 10^k as doubles, all exact (k <= 22) */
static const double pow10_d[20] = {
    1e0,  1e1,	1e2,  1e3,  1e4,  1e5,	1e6,  1e7,  1e8,  1e9,
    1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
};

/* @d * 10^@s for -19 <= s <= 19, correctly rounded: one operation with
 * an exact power */
static inline double scale10(double d, int s)
{
	return s >= 0 ? d * pow10_d[s] : d / pow10_d[-s];
}

/*
 * The 6 significant digits of @d > 0 rounded to nearest, and its
 * decimal exponent. The scaled value v = d * 10^s is one correctly
 * rounded operation away from the exact one (every 10^k with k <= 22
 * is exact) and below 10^6 < 2^20, so it is off by at most 2^-33
 * (1.2e-10) and its fraction is exact. Within 1e-9 of a rounding tie:
 * false, unless @ties and v is exactly d * 10^s (s >= 0, the product
 * not rounded): then its fraction is exact and an exact tie goes to
 * the even digit, as printf's does. The other values near a tie go to
 * exact_6().
 *
 * x0 = floor(e2 * log10(2)) from the binary exponent e2 is the decimal
 * exponent or one less: the second scaling only in the second case.
 */
static inline __attribute__((always_inline)) bool
approx_6(double d, uint64_t *digits, int *exp10, bool ties)
{
	double v, frac;
	uint64_t bits, q;
	int64_t iq;
	int x0, s;
	bool up;

	if (!(d >= 1e-12 && d < 1e12)) {
		return false;
	}
	memcpy(&bits, &d, sizeof(bits));
	x0 = (((int)(bits >> 52) - 1023) * 78913) >> 18;
	s = 5 - x0;
	v = scale10(d, s);
	up = v > 999999.5 - 1e-9;
	if (up) {
		/* rarely taken: v within 1e-9 of 999999.5, where which of
		 * x0 and x0 + 1 is the exponent is decided up to a tie
		 * (checked with v's), else a mantissa past the power of ten
		 * x0 assumed: the second scaling, a division for
		 * 10^5 <= d < 10^6, stays off the common path */
		if (v < 999999.5 + 1e-9) {
			return false;
		}
		v = scale10(d, s - 1);
		if (!(v >= 99999.5 && v < 999999.5)) {
			return false; /* x0 was not what it should be */
		}
	} else if (!(v >= 99999.5)) {
		return false; /* as above */
	}
	/* v < 10^6: the signed conversions, one instruction each */
	iq = (int64_t)v;
	frac = v - (double)iq;
	q = (uint64_t)iq;
	/* rounded to nearest, unless within 1e-9 of a tie */
	if (frac > 0.5 - 1e-9) {
		if (frac < 0.5 + 1e-9) {
			const int su = up ? s - 1 : s;

			if (!ties || su < 0 || fma(d, pow10_d[su], -v) != 0) {
				return false;
			}
			q += frac == 0.5 ? q & 1 : frac > 0.5;
		} else {
			q++;
		}
	}
	*digits = q;
	*exp10 = x0 + up;
	return true;
}

/*
 * The 6 significant digits of @d > 0 rounded half-to-even, and its
 * decimal exponent, when @d is exactly M / 10^k with an integer M below
 * 2^53 and k at most 6: its decimal expansion is exact, so rounding M
 * is exactly what glibc does. False for the other values.
 */
static bool exact_6(double d, uint64_t *digits, int *exp10)
{
	uint64_t m = 0, q;
	unsigned nd, k;
	int x;

	for (k = 0; k <= 6; k++) {
		double t = d * pow10_d[k];

		/* the product is exact and an integer */
		if (t < 9007199254740992.0 && fma(d, pow10_d[k], -t) == 0 &&
		    t == (double)(uint64_t)t) {
			m = (uint64_t)t;
			break;
		}
	}
	if (k > 6) {
		return false;
	}
	nd = digits10(m);
	x = (int)nd - 1 - (int)k; /* decimal exponent */
	if (nd > 6) {
		uint64_t div = ht__pow10_u64[nd - 6], r;

		q = m / div;
		r = m % div;
		if (r > div / 2 || (r == div / 2 && (q & 1))) {
			q++;
		}
		if (q == 1000000) {
			q = 100000;
			x++;
		}
	} else {
		q = m * ht__pow10_u64[6 - nd];
	}
	*digits = q;
	*exp10 = x;
	return true;
}

/*
 * The 6 digits @q (trailing zeros dropped) with decimal exponent @x as
 * %g writes them: fixed notation for -4 <= x < 6, else d.ddddde+XX.
 * Inlined in its two callers: no call on the common path.
 */
static inline __attribute__((always_inline)) size_t
format_6(char *out, uint64_t q, int x, bool neg)
{
	unsigned i, len;
	uint64_t w;
	int n = 0;

	/*
	 * q has 6 digits: in a word, the first in the low byte. The
	 * significant ones end at the highest byte of w ^ "000000" that is
	 * not zero (the first digit is not '0').
	 */
	w = digits8_word((uint32_t)q) >> 16;
	len = (71 - (unsigned)__builtin_clzll(w ^ 0x303030303030ull)) / 8;
	if (neg) {
		out[n++] = '-';
	}
	if (x >= 0 && x < 6) {
		/* x + 1 integer digits, then the rest if any */
		store_word(out + n, w);
		n += x + 1;
		if ((int)len > x + 1) {
			out[n++] = '.';
			store_word(out + n, w >> 8 * (x + 1));
			n += (int)len - x - 1;
		}
	} else if (x < 0 && x >= -4) {
		/* "0." and -x - 1 zeros */
		memcpy(out + n, "0.000000", 8);
		n += 1 - x;
		store_word(out + n, w);
		n += (int)len;
	} else {
		out[n++] = (char)(w & 0xff);
		if (len > 1) {
			out[n++] = '.';
			store_word(out + n, w >> 8);
			n += (int)len - 1;
		}
		out[n++] = 'e';
		out[n++] = x < 0 ? '-' : '+';
		if (x < 0) {
			x = -x;
		}
		if (x < 10) {
			out[n++] = '0';
		}
		i = digits10((uint64_t)x);
		store_digits(out + n, (uint64_t)x, i);
		n += (int)i;
	}
	return (size_t)n;
}

/* ht__fmt_g() of the values approx_6() does not decide: the exact
 * ties it can tell, then exact_6(), else snprintf. Out of line: the
 * common path saves no registers. */
static __attribute__((noinline)) size_t fmt_g_slow(char *out, double d)
{
	uint64_t q;
	int x;

	if (approx_6(fabs(d), &q, &x, true)) {
		return format_6(out, q, x, d < 0);
	}
	if (!(d > -9e15 && d < 9e15) || d == 0 || !exact_6(fabs(d), &q, &x)) {
		return (size_t)snprintf(out, 64, "%g", d);
	}
	return format_6(out, q, x, d < 0);
}

/*
 * printf("%g", d) (6 significant digits, trailing zeros removed), which
 * is what babeltrace2 prints, without printf for the common values:
 * nearly all are decided by approx_6() (which refuses 0, infinities and
 * NaNs), exact ties by exact_6(), the others go to snprintf.
 */
size_t ht__fmt_g(char *out, double d)
{
	uint64_t q;
	int x;

	if (!approx_6(fabs(d), &q, &x, false)) {
		return fmt_g_slow(out, d);
	}
	return format_6(out, q, x, d < 0);
}
