/* SPDX-License-Identifier: MIT */
/*
 * Spans of ht_fit_set_map() (clock-fit.h): around a time, the times
 * over which the bounds of a one-edge, two-sided fit follow two fixed
 * lines (one edge of each hull, or a separating line), so that the
 * merge maps a run of events with two line evaluations each instead of
 * a walk of the tree, the pieces and the hulls. Every value is the one
 * ht_fit_set_map() gives: the same lines, rounded the same way, clamped
 * by the same constants (clock-bounds.c's ht__piece_bounds() and
 * ht__edge_bounds(), whose cases this file follows).
 */
#include "clock-fit-internal.h"
#include "common/error.h"

static int64_t max64s(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t min64s(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* ht__sat64(), inline for the per-event path */
static inline int64_t sat64(ht__i128 v)
{
	return v > INT64_MAX   ? INT64_MAX
	       : v < INT64_MIN ? INT64_MIN
			       : (int64_t)v;
}

/* Narrows [*x0, *x1] to [a, b]. */
static void narrow(int64_t *x0, int64_t *x1, int64_t a, int64_t b)
{
	*x0 = max64s(*x0, a);
	*x1 = min64s(*x1, b);
}

static void set_line(struct ht_fit_span_line *line, struct ht__xy a,
		     struct ht__xy b)
{
	line->x0 = a.x;
	line->y0 = a.y;
	line->x1 = b.x;
	line->y1 = b.y;
}

/*
 * The hull h[lo..hi] around x (h[lo].x < x < h[hi].x): the edge
 * holding x as the line of *@line, its x range narrowing [*x0, *x1].
 */
static void hull_edge(const struct ht__xy *h, size_t lo, size_t hi, int64_t x,
		      struct ht_fit_span_line *line, int64_t *x0, int64_t *x1)
{
	size_t i = ht__hull_edge_at(h, lo, hi, x);

	set_line(line, h[i], h[i + 1]);
	/* (at h[i + 1].x the next edge holds x) */
	narrow(x0, x1, h[i].x, h[i + 1].x - 1);
}

/* ht__piece_bounds() of a two-sided piece at x, as lines. */
static bool piece_span(const struct ht__piece *sg, int64_t x,
		       struct ht_fit_span *sp)
{
	struct ht__xy u1 = sg->uh[sg->min_u], q1 = sg->lh[sg->min_q];
	struct ht__xy q2 = sg->lh[sg->max_q], u2 = sg->uh[sg->max_u];

	if (x <= u1.x) {
		set_line(&sp->hi, u1, q1);
		narrow(&sp->x0, &sp->x1, INT64_MIN, u1.x);
	} else if (x >= u2.x) {
		set_line(&sp->hi, q2, u2);
		narrow(&sp->x0, &sp->x1, u2.x, INT64_MAX);
	} else if (sg->min_u == sg->max_u) {
		return false;
	} else {
		hull_edge(sg->uh, sg->min_u, sg->max_u, x, &sp->hi, &sp->x0,
			  &sp->x1);
		narrow(&sp->x0, &sp->x1, u1.x + 1, u2.x - 1);
	}
	if (x >= q1.x) {
		set_line(&sp->lo, u1, q1);
		narrow(&sp->x0, &sp->x1, q1.x, INT64_MAX);
	} else if (x <= q2.x) {
		set_line(&sp->lo, q2, u2);
		narrow(&sp->x0, &sp->x1, INT64_MIN, q2.x);
	} else if (sg->max_q == sg->min_q) {
		return false;
	} else {
		hull_edge(sg->lh, sg->max_q, sg->min_q, x, &sp->lo, &sp->x0,
			  &sp->x1);
		narrow(&sp->x0, &sp->x1, q2.x + 1, q1.x - 1);
	}
	/* a line needs two x values */
	return sp->lo.x0 < sp->lo.x1 && sp->hi.x0 < sp->hi.x1;
}

/*
 * @f for line @l over [x0, x1]: the line's floor at x0 is y0 +
 * floor(c dy / dx), c = x0 - l->x0, which is base + floor(b / dx) with
 * b the remainder of c dy; at x0 + e it is base + floor((e dy + b) /
 * dx). Taken when that numerator stays below 2^64 over the span (dy
 * >= 0: clocks go forward) and the values within 2^62.
 */
static void set_fixed(struct ht_fit_span_fixed *f,
		      const struct ht_fit_span_line *l, int64_t x0, int64_t x1)
{
	ht_fit_span_fixed_init(f, l->x0, l->y0, l->x1, l->y1, x0, x1);
}

void ht_fit_span_fixed_init(struct ht_fit_span_fixed *f, int64_t lx0,
			    int64_t ly0, int64_t lx1, int64_t ly1, int64_t x0,
			    int64_t x1)
{
	const ht__i128 lim = (ht__i128)1 << 62, dx = (ht__i128)lx1 - lx0,
		       dy = (ht__i128)ly1 - ly0, w = (ht__i128)x1 - x0;
	ht__i128 num, a;

	f->ok = false;
	/* (every value within 2^62: the products fit in 128 bits) */
	if (dy < 0 || dy >= lim || dx <= 0 || dx >= lim || w < 0 || w >= lim ||
	    x0 <= -lim || x0 >= lim || lx0 <= -lim || lx0 >= lim ||
	    ly0 <= -lim || ly0 >= lim || w * dy + dx >= ((ht__i128)1 << 64)) {
		return;
	}
	num = ((ht__i128)x0 - lx0) * dy;
	a = ht__floor_div(num, dx);
	if (a + ly0 >= lim || a + ly0 <= -lim || (w * dy + dx) / dx >= lim) {
		return;
	}
	f->base = (int64_t)(a + ly0);
	f->b = (uint64_t)(num - a * dx);
	f->dy = (uint64_t)dy;
	f->dx = (uint64_t)dx;
	/* floor((2^64 - 1) / dx): N * rcp / 2^64 is within 1 below
	 * N / dx for N < 2^64 */
	f->rcp = UINT64_MAX / (uint64_t)dx;
	f->ok = true;
}

/*
 * The span around @t: inside a piece's messages (@outer false), or
 * before the first piece's first message or after the last one's last
 * (@outer true), where ht__edge_bounds() takes that piece's bounds.
 */
static int span_at(const struct ht_fit_set *set, unsigned node, int64_t t,
		   bool outer, struct ht_fit_span *sp)
{
	const int64_t top = HT_FIT_TIME_LIMIT - 1;
	const struct ht__node_fit *nf;
	const struct ht__piece *s;
	size_t k, a = 0, b;

	sp->valid = false;
	if (!set->solved || node >= set->nr_nodes || t <= -top || t >= top) {
		return 0;
	}
	nf = &set->fits[node];
	if (nf->pub.parent < 0 || (unsigned)nf->pub.parent != set->reference ||
	    (nf->pub.quality != HT_FIT_ACCURATE &&
	     nf->pub.quality != HT_FIT_APPROXIMATE) ||
	    !nf->segs[0].two_sided) {
		return 0;
	}
	s = nf->segs;
	k = nf->pub.nr_segments;
	b = k;
	/* ht__edge_bounds(): the last piece starting at or before t */
	while (b - a > 1) {
		size_t mid = a + (b - a) / 2;

		if (s[mid].first_x <= t) {
			a = mid;
		} else {
			b = mid;
		}
	}
	if (!s[a].two_sided) {
		return 0;
	}
	if (!outer) {
		/* inside the piece's messages only (est_at()'s case of
		 * the middle of the bounds), out of the gap after it */
		if (t < s[a].first_x || t > s[a].last_x) {
			return 0;
		}
		sp->x0 = s[a].first_x;
		sp->x1 = s[a].last_x;
		if (a + 1 < k) {
			narrow(&sp->x0, &sp->x1, INT64_MIN,
			       s[a + 1].first_x - 1);
		}
	} else if (a == 0 && t < s[0].first_x) {
		sp->x0 = INT64_MIN;
		sp->x1 = s[0].first_x - 1;
	} else if (a + 1 == k && t > s[a].last_x) {
		sp->x0 = s[a].last_x + 1;
		sp->x1 = INT64_MAX;
	} else {
		return 0;
	}
	narrow(&sp->x0, &sp->x1, -top + 1, top - 1);
	if (!piece_span(&s[a], t, sp)) {
		return 0;
	}
	/* (the differences are exact in 64 bits: one rounding each) */
	sp->lo_slope =
	    (double)(sp->lo.y1 - sp->lo.y0) / (double)(sp->lo.x1 - sp->lo.x0);
	sp->hi_slope =
	    (double)(sp->hi.y1 - sp->hi.y0) / (double)(sp->hi.x1 - sp->hi.x0);
	sp->lo_min = s[a].lo_before;
	sp->hi_max = s[a].hi_after;
	sp->valid = sp->x0 <= t && t <= sp->x1;
	if (sp->valid) {
		set_fixed(&sp->lo_fixed, &sp->lo, sp->x0, sp->x1);
		set_fixed(&sp->hi_fixed, &sp->hi, sp->x0, sp->x1);
	}
	return 0;
}

/*
 * The line @l at @t, floored (@dir < 0) or ceiled, as ht__line_at()
 * gives it: the quotient estimated in doubles (@slope is the line's),
 * then made exact with the 128-bit remainder; ht__line_at() itself
 * when the quotient is too large for a double to be within one.
 */
static inline ht__i128 line_at(const struct ht_fit_span_line *l, double slope,
			       int64_t t, int dir)
{
	/* (points and times within +-2^62: the differences fit in 64
	 * bits, each product is one 64 x 64 multiplication) */
	const int64_t dx = l->x1 - l->x0, d = t - l->x0, dy = l->y1 - l->y0;
	const ht__i128 num = (ht__i128)d * dy;
	const double qd = (double)d * slope;
	ht__i128 q, r;

	if (!(qd > -4e15 && qd < 4e15)) {
		struct ht__xy a = {l->x0, l->y0}, b = {l->x1, l->y1};

		return ht__line_at(a, b, t, dir);
	}
	q = ht__floor_div_near(num, dx, (int64_t)qd, &r);
	/* floor(num / dx) = q; the ceiling is one more unless exact */
	return (ht__i128)l->y0 + q + (dir > 0 && r != 0);
}

/* floor((t - l->x0) * dy / dx) (dy, dx the line's differences) and its
 * remainder, without a branch (ht__floor_div_quick(); dx < 2^60 is the
 * caller's): false when the exact path must take it. */
static inline bool line_quick(const struct ht_fit_span_line *l, double slope,
			      int64_t t, int64_t *q, int64_t *r)
{
	const int64_t d = t - l->x0;

	return ht__floor_div_quick(d, l->y1 - l->y0, l->x1 - l->x0,
				   (double)d * slope, q, r);
}

/* Whether line_quick() may take @l (dx < 2^60, so that 2 dx fits). */
static bool line_quick_ok(const struct ht_fit_span_line *l)
{
	return l->x1 - l->x0 < (INT64_C(1) << 60);
}

/* lo + (hi - lo) / 2, the quotient truncated: in 64 bits when the
 * difference fits (128-bit arithmetic costs a spill here) */
static inline int64_t mid(int64_t lo, int64_t hi)
{
	int64_t d;

	if (__builtin_expect(__builtin_sub_overflow(hi, lo, &d), 0)) {
		return (int64_t)(lo + ((ht__i128)hi - lo) / 2);
	}
	return lo + d / 2;
}

static inline int64_t span_est(const struct ht_fit_span *sp, int64_t t)
{
	int64_t lo = sat64(line_at(&sp->lo, sp->lo_slope, t, -1));
	int64_t hi = sat64(line_at(&sp->hi, sp->hi_slope, t, 1));

	lo = max64s(lo, sp->lo_min);
	hi = min64s(hi, sp->hi_max);
	return mid(lo, hi);
}

void ht_fit_span_narrow(struct ht_fit_span *sp, int64_t x0, int64_t x1)
{
	narrow(&sp->x0, &sp->x1, x0, x1);
	sp->lo_fixed.ok = sp->hi_fixed.ok = false;
	if (sp->valid && sp->x0 <= sp->x1) {
		set_fixed(&sp->lo_fixed, &sp->lo, sp->x0, sp->x1);
		set_fixed(&sp->hi_fixed, &sp->hi, sp->x0, sp->x1);
	}
}

int ht_fit_set_map_span(const struct ht_fit_set *set, unsigned node, int64_t t,
			struct ht_fit_span *sp)
{
	return span_at(set, node, t, false, sp);
}

int ht_fit_set_outer_span(const struct ht_fit_set *set, unsigned node,
			  int64_t t, struct ht_fit_span *sp)
{
	return span_at(set, node, t, true, sp);
}

int64_t ht_fit_span_est(const struct ht_fit_span *sp, int64_t t)
{
	return span_est(sp, t);
}

void ht_fit_span_bounds(const struct ht_fit_span *sp, int64_t t, int64_t *lo,
			int64_t *hi)
{
	int64_t ql, rl, qh, rh;

	/* (as in ht_fit_span_est_many(): y0 + q cannot overflow) */
	if (line_quick_ok(&sp->lo) && line_quick_ok(&sp->hi) &&
	    line_quick(&sp->lo, sp->lo_slope, t, &ql, &rl) &&
	    line_quick(&sp->hi, sp->hi_slope, t, &qh, &rh)) {
		*lo = max64s(sp->lo.y0 + ql, sp->lo_min);
		*hi = min64s(sp->hi.y0 + qh + (rh != 0), sp->hi_max);
		return;
	}
	*lo = max64s(sat64(line_at(&sp->lo, sp->lo_slope, t, -1)), sp->lo_min);
	*hi = min64s(sat64(line_at(&sp->hi, sp->hi_slope, t, 1)), sp->hi_max);
}

size_t ht_fit_span_est_many(const struct ht_fit_span *sp, const int64_t *t,
			    int64_t *est, size_t n)
{
	const bool quick = line_quick_ok(&sp->lo) && line_quick_ok(&sp->hi);
	size_t i;

	if (sp->lo_fixed.ok && sp->hi_fixed.ok) {
		/* (copies: the stores to @est could alias the span) */
		const struct ht_fit_span_fixed lf = sp->lo_fixed,
					       hf = sp->hi_fixed;
		const int64_t x0 = sp->x0, x1 = sp->x1, lo_min = sp->lo_min,
			      hi_max = sp->hi_max;

		for (i = 0; i < n && t[i] >= x0 && t[i] <= x1; i++) {
			const uint64_t e = (uint64_t)t[i] - (uint64_t)x0;
			uint64_t rl, rh;
			int64_t lo = ht_fit_span_fixed_at(&lf, e, &rl);
			int64_t hi =
			    ht_fit_span_fixed_at(&hf, e, &rh) + (rh != 0);

			lo = max64s(lo, lo_min);
			hi = min64s(hi, hi_max);
			est[i] = mid(lo, hi);
		}
		return i;
	}

	/* (one time after the other, with no dependence between them:
	 * the processor overlaps their multiplications; the branches
	 * left are predicted) */
	for (i = 0; i < n && t[i] >= sp->x0 && t[i] <= sp->x1; i++) {
		int64_t ql, rl, qh, rh, lo, hi;

		if (!quick ||
		    !line_quick(&sp->lo, sp->lo_slope, t[i], &ql, &rl) ||
		    !line_quick(&sp->hi, sp->hi_slope, t[i], &qh, &rh)) {
			est[i] = span_est(sp, t[i]);
			continue;
		}
		/* (|y0| <= 2^62 and |q| < 2^50 + 2: no overflow, nothing
		 * to saturate) */
		lo = sp->lo.y0 + ql;
		hi = sp->hi.y0 + qh + (rh != 0);
		lo = max64s(lo, sp->lo_min);
		hi = min64s(hi, sp->hi_max);
		est[i] = mid(lo, hi);
	}
	return i;
}
