/* SPDX-License-Identifier: MIT */
/*
 * The bounds of a fit at a time (clock-fit-internal.h): those of one
 * piece, those in the gap between two pieces (where the break between
 * them can be), the running clamps that keep them monotone, and the
 * map of a time along the tree. ht_fit_set_map() is the per-event path:
 * everything it calls is in this file.
 */
#include <stdlib.h>

#include "clock-fit-internal.h"
#include "common/error.h"

/* The raw bounds of one piece at x: floor of the lowest, ceiling of the
 * highest feasible value; INT64_MIN / INT64_MAX when open. */
void ht__piece_bounds(const struct ht__piece *sg, int64_t x, int64_t *lo,
		      int64_t *hi)
{
	if (sg->two_sided) {
		struct ht__xy u1 = sg->uh[sg->min_u], q1 = sg->lh[sg->min_q];
		struct ht__xy q2 = sg->lh[sg->max_q], u2 = sg->uh[sg->max_u];

		if (x <= u1.x) {
			*hi = ht__sat64(ht__line_at(u1, q1, x, 1));
		} else if (x >= u2.x) {
			*hi = ht__sat64(ht__line_at(q2, u2, x, 1));
		} else {
			*hi = ht__sat64(
			    ht__hull_at(sg->uh, sg->min_u, sg->max_u, x, 1));
		}
		if (x >= q1.x) {
			*lo = ht__sat64(ht__line_at(u1, q1, x, -1));
		} else if (x <= q2.x) {
			*lo = ht__sat64(ht__line_at(q2, u2, x, -1));
		} else {
			*lo = ht__sat64(
			    ht__hull_at(sg->lh, sg->max_q, sg->min_q, x, -1));
		}
		return;
	}
	/* One-sided bounds, using only that clocks run forward (a >= 0):
	 * a line below every U point is below U's lower hull, and below
	 * any U point further right. */
	*hi = INT64_MAX;
	if (sg->nu) {
		struct ht__xy low = sg->uh[sg->u_low];

		if (x <= low.x) {
			*hi = low.y;
		} else if (x <= sg->uh[sg->nu - 1].x) {
			*hi = ht__sat64(
			    ht__hull_at(sg->uh, sg->u_low, sg->nu - 1, x, 1));
		}
	}
	*lo = INT64_MIN;
	if (sg->nl) {
		struct ht__xy high = sg->lh[sg->l_high];

		if (x >= high.x) {
			*lo = high.y;
		} else if (x >= sg->lh[0].x) {
			*lo = ht__sat64(
			    ht__hull_at(sg->lh, 0, sg->l_high, x, -1));
		}
	}
}

/* lo/hi in a gap between pieces a and b, before any clamp: the truth
 * follows piece a before the break and piece b after it; where the
 * break can be, either */
static void gap_raw(const struct ht__piece *a, const struct ht__piece *b,
		    int64_t x, int64_t *lo, int64_t *hi)
{
	int64_t lo1, hi1, lo2, hi2;

	if (x < a->brk_lo) {
		ht__piece_bounds(a, x, lo, hi);
		return;
	}
	if (x > a->brk_hi) {
		ht__piece_bounds(b, x, lo, hi);
		return;
	}
	ht__piece_bounds(a, x, &lo1, &hi1);
	ht__piece_bounds(b, x, &lo2, &hi2);
	*lo = min64(lo1, lo2);
	*hi = max64(hi1, hi2);
}

/*
 * lo/hi of a gap between pieces j and j + 1 (before the running clamps
 * of ht__fit_clamps()). Each of the three parts is monotone, but lo may
 * drop where the union begins and hi where it ends: as the map is
 * non-decreasing, a bound reached before (lo) or after (hi) holds here
 * too, and those at the parts' ends are kept by ht__break_range().
 */
static void gap_bounds(const struct ht__piece *a, const struct ht__piece *b,
		       int64_t x, int64_t *lo, int64_t *hi)
{
	gap_raw(a, b, x, lo, hi);
	if (x < a->brk_lo) {
		*hi = min64(*hi, a->brk_hi_before);
	} else if (x <= a->brk_hi) {
		*lo = max64(*lo, a->brk_lo_in);
		*hi = min64(*hi, a->brk_hi_in);
	} else {
		*lo = max64(*lo, a->brk_lo_after);
	}
}

/*
 * The x range within (g0, g1) where the linear function through
 * (g0, v0) and (g1, v1) is at most @slack, widened by the x that a
 * rounding error of @slack in the values makes; [g0, g1] when the
 * values do not decide.
 */
static void at_most(int64_t g0, int64_t v0, int64_t g1, int64_t v1,
		    int64_t slack, int64_t *x0, int64_t *x1)
{
	long double dx = (long double)g1 - g0, dv = (long double)v1 - v0;
	long double root, margin;

	*x0 = g0;
	*x1 = g1;
	if (v0 == INT64_MIN || v0 == INT64_MAX || v1 == INT64_MIN ||
	    v1 == INT64_MAX || (v0 <= slack && v1 <= slack) ||
	    (v0 > slack && v1 > slack) || dv == 0) {
		return;
	}
	root = g0 + dx * (0 - (long double)v0) / dv;
	margin = dx * 2 * slack / (dv < 0 ? -dv : dv) + 2;
	if (v0 <= slack) {
		/* true at g0, false at g1 */
		if (root + margin < (long double)g1) {
			*x1 = (int64_t)(root + margin);
		}
	} else if (root - margin > (long double)g0) {
		*x0 = (int64_t)(root - margin);
	}
}

/*
 * Where the break between pieces a and b can be, within their gap
 * (g0, g1): the truth is continuous, so at the break it lies in both
 * pieces' bands, and in the gap each band is linear (extrapolated from
 * its extreme lines). The bands meet where lo_a <= hi_b and
 * lo_b <= hi_a; before that range the truth follows a, after it b, so
 * the bounds there are one piece's, not the union of both.
 */
static void find_break(struct ht__piece *a, const struct ht__piece *b,
		       int64_t g0, int64_t g1)
{
	int64_t lo_a0, hi_a0, lo_b0, hi_b0, lo_a1, hi_a1, lo_b1, hi_b1;
	int64_t p0, p1, q0, q1;

	ht__piece_bounds(a, g0, &lo_a0, &hi_a0);
	ht__piece_bounds(a, g1, &lo_a1, &hi_a1);
	ht__piece_bounds(b, g0, &lo_b0, &hi_b0);
	ht__piece_bounds(b, g1, &lo_b1, &hi_b1);
	/* rounding makes each bound off by one at most: slack 2 */
	at_most(g0, ht__sat64((ht__i128)lo_a0 - hi_b0), g1,
		ht__sat64((ht__i128)lo_a1 - hi_b1), 2, &p0, &p1);
	at_most(g0, ht__sat64((ht__i128)lo_b0 - hi_a0), g1,
		ht__sat64((ht__i128)lo_b1 - hi_a1), 2, &q0, &q1);
	p0 = max64(p0, q0);
	p1 = min64(p1, q1);
	if (p0 <= p1) {
		a->brk_lo = p0;
		a->brk_hi = p1;
	}
}

/*
 * The break range of the gap after piece a (the whole gap without two
 * two-sided pieces) and the clamps gap_bounds() applies at its ends.
 */
void ht__break_range(struct ht__piece *a, const struct ht__piece *b)
{
	int64_t g0 = a->last_x, g1 = b->first_x, lo, hi;

	a->brk_lo = g0;
	a->brk_hi = g1;
	if (a->two_sided && b->two_sided && g1 > g0 + 1) {
		find_break(a, b, g0, g1);
	}
	gap_raw(a, b, a->brk_lo - 1, &lo, &hi);
	a->brk_lo_in = lo;
	gap_raw(a, b, a->brk_hi, &lo, &hi);
	a->brk_lo_after = max64(a->brk_lo_in, lo);
	gap_raw(a, b, a->brk_hi + 1, &lo, &hi);
	a->brk_hi_in = hi;
	gap_raw(a, b, a->brk_lo, &lo, &hi);
	a->brk_hi_before = min64(a->brk_hi_in, hi);
}

/* Running clamps so the bounds never decrease in x, even across the
 * pieces of a piecewise fit: the true map is non-decreasing, so a lower
 * bound somewhere is a lower bound everywhere after it. */
void ht__fit_clamps(struct ht__node_fit *nf)
{
	size_t k = nf->pub.nr_segments, j;
	int64_t run, lo, hi;

	run = INT64_MIN;
	for (j = 0; j < k; j++) {
		struct ht__piece *sg = &nf->segs[j];

		sg->lo_before = run;
		if (j + 1 < k) {
			ht__piece_bounds(sg, sg->last_x, &lo, &hi);
			run = max64(run, lo);
			sg->gap_lo_before = run;
			gap_bounds(sg, sg + 1, nf->segs[j + 1].first_x, &lo,
				   &hi);
			run = max64(run, lo);
		}
	}
	run = INT64_MAX;
	for (j = k; j-- > 0;) {
		struct ht__piece *sg = &nf->segs[j];

		sg->hi_after = run;
		if (j > 0) {
			struct ht__piece *pv = sg - 1;

			ht__piece_bounds(sg, sg->first_x, &lo, &hi);
			run = min64(run, hi);
			pv->gap_hi_after = run;
			gap_bounds(pv, sg, pv->last_x, &lo, &hi);
			run = min64(run, hi);
		}
	}
}

/* bounds of one edge at x (child time -> parent time); est is set for
 * the open side of one-sided fits */
void ht__edge_bounds(const struct ht__node_fit *nf, int64_t x, int64_t *lo,
		     int64_t *hi, int64_t *est)
{
	const struct ht__piece *s = nf->segs;
	size_t k = nf->pub.nr_segments, a = 0, b = k;

	/* the last piece starting at or before x */
	while (b - a > 1) {
		size_t mid = a + (b - a) / 2;

		if (s[mid].first_x <= x) {
			a = mid;
		} else {
			b = mid;
		}
	}
	if (a + 1 == k || x <= s[a].last_x) {
		ht__piece_bounds(&s[a], x, lo, hi);
		*lo = max64(*lo, s[a].lo_before);
		*hi = min64(*hi, s[a].hi_after);
	} else {
		gap_bounds(&s[a], &s[a + 1], x, lo, hi);
		*lo = max64(*lo, s[a].gap_lo_before);
		*hi = min64(*hi, s[a].gap_hi_after);
	}
	if (s[a].two_sided) {
		/* pieces are two-sided too: lo and hi are finite */
		*est = (int64_t)(*lo + ((ht__i128)*hi - *lo) / 2);
		return;
	}
	/* bounded on one side somewhere: the estimate line clamped into
	 * [lo, hi] (or a step from -inf to +inf at the middle of the
	 * pairs), which stays non-decreasing where a bound opens */
	if (s[a].has_est) {
		*est = ht__sat64(ht__line_at(s[a].est_a, s[a].est_b, x, -1));
	} else {
		*est = x < s[a].first_x / 2 + s[a].last_x / 2 ? INT64_MIN
							      : INT64_MAX;
	}
	*est = min64(max64(*est, *lo), *hi);
}

/* where the estimate lines of two neighbouring pieces meet, clamped to
 * the gap between their pairs (a report: doubles are fine here) */
int64_t ht__break_at(const struct ht_fit_segment *a,
		     const struct ht_fit_segment *b)
{
	long double ds = (long double)a->slope - b->slope, x;
	int64_t g0 = a->last_x, g1 = b->first_x;

	if (ds == 0) {
		return g0 + (g1 - g0) / 2;
	}
	x = ((long double)b->offset - a->offset) / ds;
	if (!(x > (long double)g0)) {
		return g0 + 1 <= g1 ? g0 + 1 : g1;
	}
	if (x >= (long double)g1) {
		return g1;
	}
	return (int64_t)x;
}

static bool mappable(const struct ht_fit_node *f)
{
	return f->quality == HT_FIT_ACCURATE ||
	       f->quality == HT_FIT_APPROXIMATE ||
	       f->quality == HT_FIT_INCOMPLETE;
}

int ht_fit_set_map(const struct ht_fit_set *set, unsigned node, int64_t t,
		   int64_t *est, int64_t *lo, int64_t *hi)
{
	const int64_t top = HT_FIT_TIME_LIMIT - 1;
	int64_t l = t, h = t, e = t, tmp, dummy;
	bool two_sided = true;
	unsigned v;

	if (!set->solved || node >= set->nr_nodes) {
		return HT_EINVAL;
	}
	if (!time_ok(t)) {
		return HT_ERANGE;
	}
	for (v = node; v != set->reference;
	     v = (unsigned)set->fits[v].pub.parent) {
		const struct ht__node_fit *nf = &set->fits[v];

		if (!mappable(&nf->pub)) {
			return HT_ENOTFOUND;
		}
		/* bounds map through the (monotone) parent map; outside
		 * the accepted range they are clamped or open */
		if (l == h && h == e && l > -top && l < top) {
			/* one time (the first edge): its three values in
			 * one call, as the three calls below give them */
			ht__edge_bounds(nf, l, &l, &h, &e);
		} else {
			if (l <= -top) {
				l = INT64_MIN;
			} else {
				ht__edge_bounds(nf, min64(l, top), &l, &dummy,
						&tmp);
			}
			if (h >= top) {
				h = INT64_MAX;
			} else {
				ht__edge_bounds(nf, max64(h, -top), &dummy, &h,
						&tmp);
			}
			ht__edge_bounds(nf, min64(max64(e, -top), top), &tmp,
					&dummy, &e);
		}
		two_sided = two_sided && nf->segs[0].two_sided;
		if (two_sided) {
			e = (int64_t)(l + ((ht__i128)h - l) / 2);
		} else {
			e = min64(max64(e, l), h);
		}
	}
	if (est) {
		*est = e;
	}
	if (lo) {
		*lo = l;
	}
	if (hi) {
		*hi = h;
	}
	return 0;
}
