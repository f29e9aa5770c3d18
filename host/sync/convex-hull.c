/* SPDX-License-Identifier: MIT */
/*
 * Half hulls (Andrew's monotone chain) and exact line evaluation on
 * integer points, for the clock sync. See convex-hull.h for the ranges
 * that keep every product inside 128 bits.
 */
#include "convex-hull.h"

/* true when o -> a -> b turns left (counter-clockwise), strictly */
static bool turns_left(struct ht__xy o, struct ht__xy a, struct ht__xy b)
{
	ht__i128 l = (ht__i128)(a.x - o.x) * ((ht__i128)b.y - o.y);
	ht__i128 r = ((ht__i128)a.y - o.y) * (ht__i128)(b.x - o.x);

	return l > r;
}

static bool turns_right(struct ht__xy o, struct ht__xy a, struct ht__xy b)
{
	ht__i128 l = (ht__i128)(a.x - o.x) * ((ht__i128)b.y - o.y);
	ht__i128 r = ((ht__i128)a.y - o.y) * (ht__i128)(b.x - o.x);

	return l < r;
}

size_t ht__hull_push(struct ht__xy *h, size_t n, struct ht__xy p, bool lower)
{
	if (n > 0 && h[n - 1].x == p.x) {
		/* same x: keep the lower (lower hull) or higher point */
		if (lower ? p.y >= h[n - 1].y : p.y <= h[n - 1].y) {
			return n;
		}
		n--;
	}
	if (lower) {
		while (n >= 2 && !turns_left(h[n - 2], h[n - 1], p)) {
			n--;
		}
	} else {
		while (n >= 2 && !turns_right(h[n - 2], h[n - 1], p)) {
			n--;
		}
	}
	h[n++] = p;
	return n;
}

size_t ht__hull_build(const struct ht__xy *p, size_t n, bool lower,
		      struct ht__xy *out)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		k = ht__hull_push(out, k, p[i], lower);
	}
	return k;
}

int ht__slope_cmp(struct ht__xy a, struct ht__xy b, struct ht__xy c,
		  struct ht__xy d)
{
	/* (b.y - a.y) / (b.x - a.x) vs (d.y - c.y) / (d.x - c.x), both
	 * denominators positive: cross-multiply */
	ht__i128 l = ((ht__i128)b.y - a.y) * ((ht__i128)d.x - c.x);
	ht__i128 r = ((ht__i128)d.y - c.y) * ((ht__i128)b.x - a.x);

	return (l > r) - (l < r);
}

/*
 * num / den rounded as div_round() says, when den fits in 64 bits and
 * the quotient's magnitude too: one 128-by-64 division of the hardware
 * (the generic 128-bit division of the compiler's runtime costs several
 * times more, and this is the per-event path of the merge). false when
 * it does not apply.
 */
static bool div_round_fast(ht__i128 num, ht__i128 den, int dir, ht__i128 *out)
{
#if defined(__x86_64__)
	unsigned __int128 a =
	    num < 0 ? -(unsigned __int128)num : (unsigned __int128)num;
	uint64_t d = (uint64_t)den, hi = (uint64_t)(a >> 64), lo = (uint64_t)a;
	uint64_t q, r;

	if (den <= 0 || den > INT64_MAX || hi >= d) {
		return false;
	}
	__asm__("divq %4" : "=a"(q), "=d"(r) : "a"(lo), "d"(hi), "rm"(d));
	/* |num| = q * d + r */
	if (num >= 0) {
		*out = (ht__i128)q + (dir > 0 && r != 0);
	} else {
		*out = -(ht__i128)q - (dir < 0 && r != 0);
	}
	return true;
#else
	(void)num;
	(void)den;
	(void)dir;
	(void)out;
	return false;
#endif
}

static ht__i128 div_round(ht__i128 num, ht__i128 den, int dir)
{
	ht__i128 q, r;

	if (div_round_fast(num, den, dir, &q)) {
		return q;
	}
	q = num / den;
	r = num % den;

	/* C truncates toward zero; den > 0 */
	if (r != 0) {
		if (dir < 0 && num < 0) {
			q--;
		} else if (dir > 0 && num > 0) {
			q++;
		}
	}
	return q;
}

ht__i128 ht__floor_div(ht__i128 num, ht__i128 den)
{
	return div_round(num, den, -1);
}

ht__i128 ht__line_at(struct ht__xy a, struct ht__xy b, int64_t x, int dir)
{
	ht__i128 num = ((ht__i128)b.y - a.y) * ((ht__i128)x - a.x);

	return (ht__i128)a.y + div_round(num, (ht__i128)b.x - a.x, dir);
}

size_t ht__hull_edge_at(const struct ht__xy *h, size_t lo, size_t hi, int64_t x)
{
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (h[mid].x <= x) {
			lo = mid;
		} else {
			hi = mid;
		}
	}
	return lo;
}

ht__i128 ht__hull_at(const struct ht__xy *h, size_t lo, size_t hi, int64_t x,
		     int dir)
{
	/* the edge h[lo] .. h[lo + 1] holding x */
	if (hi > lo) {
		lo = ht__hull_edge_at(h, lo, hi, x);
		hi = lo + 1;
	}
	if (lo == hi || h[lo].x == x) {
		return h[lo].y;
	}
	return ht__line_at(h[lo], h[hi], x, dir);
}

int64_t ht__sat64(ht__i128 v)
{
	if (v <= INT64_MIN) {
		return INT64_MIN;
	}
	if (v >= INT64_MAX) {
		return INT64_MAX;
	}
	return (int64_t)v;
}
