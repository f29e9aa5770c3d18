/* SPDX-License-Identifier: MIT */
/*
 * ht__fmt_g() against printf("%g"): the values babeltrace2 prints for
 * floats must come out byte for byte the same, fast path or not.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "host/ctf/pretty-number.h"

static unsigned long fails, checks;

static void check(double d)
{
	char want[64], got[64];
	size_t n;

	snprintf(want, sizeof(want), "%g", d);
	n = ht__fmt_g(got, d);
	got[n] = '\0';
	checks++;
	if (strcmp(want, got)) {
		if (fails++ < 20) {
			printf("FAIL: %.17g: printf \"%s\", ht__fmt_g \"%s\"\n",
			       d, want, got);
		}
	}
}

int main(void)
{
	static const double fixed[] = {
	    0.0,
	    -0.0,
	    1,
	    -1,
	    0.5,
	    2.5,
	    1.5,
	    0.1,
	    0.0001,
	    0.00001,
	    1e-5,
	    123456,
	    1234567,
	    999999.5,
	    999998.5,
	    9999995,
	    100000,
	    1e6,
	    1e15,
	    1e16,
	    123456.5,
	    1234565,
	    1234575,
	    0.000123456,
	    3.25,
	    -85.5,
	    12345.678,
	    99999.95,
	    1e-320,
	    5e-324,
	    1.7976931348623157e308,
	};
	uint64_t seed = 88172645463325252ull;
	size_t i;
	int k;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		check(fixed[i]);
	}
	check(NAN);
	check(-NAN);
	check(INFINITY);
	check(-INFINITY);
	for (i = 0; i < 2000000; i++) {
		double d;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		switch (i % 6) {
		case 0: /* short decimals: the fast path */
			k = (int)(seed >> 60) % 7;
			d = (double)(int64_t)(seed % 20000000000ull -
					      10000000000ull) /
			    pow(10, k);
			break;
		case 1: /* halves and ties at the 6th digit */
			d = (double)(seed % 100000000) / 2;
			break;
		case 2: /* floats widened, as 32-bit fields are */
			d = (float)((double)(int32_t)seed / 1024.0);
			break;
		case 3: { /* any bit pattern */
			memcpy(&d, &seed, sizeof(d));
			break;
		}
		case 4:
			d = (double)(seed % 1000) / 3.0;
			break;
		default: /* any mantissa in every decade of the fast path,
			  * on both sides of its powers of ten */
			d = (1.0 +
			     (double)(seed >> 11) / 9007199254740992.0 * 9.0) *
			    pow(10, (int)(seed % 27) - 13);
			break;
		}
		check(d);
	}
	/* the neighbours of the values where the 6th digit's rounding
	 * carries into a new decade (999999.5, 99999.95, ...), in every
	 * decade the fast path takes */
	for (k = -13; k <= 13; k++) {
		static const double edges[] = {9.999995, 9.99995, 1.0, 9.5};
		size_t e;

		for (e = 0; e < sizeof(edges) / sizeof(edges[0]); e++) {
			double d = edges[e] * pow(10, k);
			int step;

			for (step = 0; step < 4; step++) {
				d = nextafter(d, 0);
			}
			for (step = 0; step < 8; step++) {
				check(d);
				check(-d);
				d = nextafter(d, INFINITY);
			}
		}
	}
	/* ties at the 6th digit (k + 0.5 and k * 10 + 5, k of 6 digits)
	 * and their neighbours a few ulps away, on both sides */
	for (i = 0; i < 200000; i++) {
		uint64_t kk;
		double d;
		int step;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		kk = 100000 + seed % 900000;
		d = i % 2 ? (double)kk + 0.5 : (double)kk * 10 + 5;
		for (step = 0; step < 3; step++) {
			d = nextafter(d, 0);
		}
		for (step = 0; step < 7; step++) {
			check(d);
			d = nextafter(d, INFINITY);
		}
	}
	printf("%lu checks, %lu failed\n", checks, fails);
	return fails != 0;
}
