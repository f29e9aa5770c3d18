/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CONVEX_HULL_H
#define HT_HOST_CONVEX_HULL_H

/*
 * Exact integer geometry for the clock sync (internal to host/).
 * Coordinates lie in (-2^62, 2^62) so that every difference fits in 64
 * bits (plus one) and every product of two differences in a signed
 * 128-bit integer: orientation and slope tests compare two products and
 * never subtract them, so nothing can overflow.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef __int128 ht__i128;

struct ht__xy {
	int64_t x, y;
};

/* Builds the lower hull (lower = true) or the upper hull of the points
 * p[0..n), sorted by x then y, into out (room for n points). Of points
 * sharing an x only the lowest (lower hull) or highest is kept, so hull
 * x values strictly increase. Collinear middle points are dropped.
 * Returns the number of hull vertices. */
size_t ht__hull_build(const struct ht__xy *p, size_t n, bool lower,
		      struct ht__xy *out);

/* Appends one point (x not below the last one's) to a hull under
 * construction: the incremental step of ht__hull_build(). */
size_t ht__hull_push(struct ht__xy *h, size_t n, struct ht__xy p, bool lower);

/* sign of slope(a->b) - slope(c->d), with a.x < b.x and c.x < d.x */
int ht__slope_cmp(struct ht__xy a, struct ht__xy b, struct ht__xy c,
		  struct ht__xy d);

/* floor(num / den) for den > 0 (the hardware's 128-by-64 division
 * when the quotient fits in 64 bits). */
ht__i128 ht__floor_div(ht__i128 num, ht__i128 den);

/* floor(@num / @dx) for @dx > 0, from an estimate @q a few steps off
 * (a double's quotient) by stepping, without a 128-bit division; the
 * remainder, in [0, dx), in *@rem. */
static inline ht__i128 ht__floor_div_near(ht__i128 num, int64_t dx, ht__i128 q,
					  ht__i128 *rem)
{
	ht__i128 r = num - q * dx;

	while (r < 0) {
		q--;
		r += dx;
	}
	while (r >= dx) {
		q++;
		r -= dx;
	}
	*rem = r;
	return q;
}

/*
 * floor(@d * @dy / @dx) (0 < dx < 2^60) into *@q and the remainder, in
 * [0, dx), into *@rem, from @qd, the quotient estimated in doubles
 * (|qd| < 2^50 and within 0.7 of it: d * slope with the slope dy / dx
 * rounded once or twice), without a branch: the remainder of the
 * truncated estimate lies in (-2 dx, 2 dx), which 64 bits hold, so the
 * wrapped products give it. Returns false when qd is out of range or
 * the correction did not land in [0, dx) (the caller then takes the
 * exact path).
 */
static inline bool ht__floor_div_quick(int64_t d, int64_t dy, int64_t dx,
				       double qd, int64_t *q, int64_t *rem)
{
	int64_t q0, r, adj;

	if (!(qd > -0x1p50 && qd < 0x1p50)) {
		return false;
	}
	q0 = (int64_t)qd;
	r = (int64_t)((uint64_t)d * (uint64_t)dy - (uint64_t)q0 * (uint64_t)dx);
	adj = (int64_t)(r >= dx) - (int64_t)(r < 0) - (int64_t)(r < -dx);
	r -= adj * dx;
	*q = q0 + adj;
	*rem = r;
	return r >= 0 && r < dx;
}

/* The line through a and b (a.x < b.x) at x, floored (dir < 0) or
 * ceiled (dir > 0), as a 128-bit value (never overflows for x in
 * (-2^63, 2^63)). */
ht__i128 ht__line_at(struct ht__xy a, struct ht__xy b, int64_t x, int dir);

/* The edge of the hull h[lo..hi] (x strictly increasing, lo < hi) that
 * holds x: the largest i in [lo, hi) with h[i].x <= x, or lo when x is
 * left of h[lo]. Binary search. */
size_t ht__hull_edge_at(const struct ht__xy *h, size_t lo, size_t hi,
			int64_t x);

/* The hull h[lo..hi] (x strictly increasing) at x, h[lo].x <= x <=
 * h[hi].x, floored or ceiled. */
ht__i128 ht__hull_at(const struct ht__xy *h, size_t lo, size_t hi, int64_t x,
		     int dir);

/* Saturates a 128-bit value to int64 (INT64_MIN / INT64_MAX stand for
 * minus / plus infinity in the bounds). */
int64_t ht__sat64(ht__i128 v);

#endif
