/* SPDX-License-Identifier: MIT */
/*
 * Convex-hull clock synchronization (docs/sync.md).
 *
 * For a tree edge (parent P, child C) a point (x, y) has x in C's time
 * and y in P's. A C->P message sent at s, received at r gives the
 * "upper" point (s, r + 1): every valid line t_P = a t_C + b passes on
 * or below it. A P->C message gives the "lower" point (r + 1, s): the
 * line passes on or above it. (+1: a reading floors its continuous
 * clock.) The feasible lines are those between the lower hull of the
 * upper points (U) and the upper hull of the lower points (L).
 *
 * Eliminating b (Fourier-Motzkin) from the constraints of a point u of
 * U and q of L gives a >= slope(u, q) when u.x < q.x, a <= slope(q, u)
 * when q.x < u.x, and u.y >= q.y when they share x: the feasible slopes
 * are [a_min, a_max], attained by the min- and max-slope lines, and
 * only hull vertices matter. At a time x the feasible values form an
 * interval: its top follows the min-slope line left of where that line
 * touches U, the lower hull of U between the two touch points, and the
 * max-slope line right of its touch point; its bottom is symmetric
 * with L (docs/sync.md derives it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock-sync.h"
#include "convex-hull.h"
#include "common/error.h"

#define MAX_NODES 4096
#define DEFAULT_WINDOW 8
#define DEFAULT_MAX_SEGMENTS 16
#define MIN_PIECE_PAIRS 3

struct msg {
	uint32_t from, to;
	int64_t s, r;
};

struct pt {
	int64_t x, y;
	size_t msg;
	bool up;
};

/* one linear piece, with what the bounds need */
struct seg {
	struct ht__xy *uh, *lh; /* lower hull of U, upper hull of L */
	size_t nu, nl;
	bool has_min, has_max; /* the min/max-slope lines exist */
	bool two_sided;	       /* both exist and a_min > 0 */
	size_t min_u, min_q;   /* min-slope line: uh[min_u] -> lh[min_q] */
	size_t max_q, max_u;   /* max-slope line: lh[max_q] -> uh[max_u] */
	size_t u_low, l_high;  /* lowest U vertex, highest L vertex */
	bool has_est;	       /* one-sided estimate: est_a -> est_b */
	struct ht__xy est_a, est_b;
	int64_t first_x, last_x;
	/* running bounds from the regions before / after (monotonicity) */
	int64_t lo_before, hi_after;
	/* the same for the gap after this piece */
	int64_t gap_lo_before, gap_hi_after;
	/* in that gap, where the break can be (see break_range()), and
	 * the clamps that keep the bounds monotone across its ends */
	int64_t brk_lo, brk_hi;
	int64_t brk_lo_in, brk_lo_after, brk_hi_before, brk_hi_in;
};

struct node_fit {
	struct ht_sync_fit pub;
	struct seg *segs;
	struct ht_sync_segment *psegs;
	size_t *rejected;
};

struct ht_sync_set {
	unsigned nr_nodes;
	struct msg *msgs;
	size_t nr_msgs, cap_msgs;
	uint64_t *rate;
	bool solved;
	unsigned reference;
	struct node_fit *fits;
	char err[256];
};

/* the outcome of the hull test on some points */
struct hsol {
	struct ht__xy *uh, *lh;
	size_t nu, nl;
	bool feasible, has_min, has_max;
	size_t min_u, min_q, max_q, max_u;
};

static const char *const quality_names[] = {
    [HT_SYNC_REFERENCE] = "reference",	   [HT_SYNC_ACCURATE] = "accurate",
    [HT_SYNC_APPROXIMATE] = "approximate", [HT_SYNC_INCOMPLETE] = "incomplete",
    [HT_SYNC_ABSENT] = "absent",	   [HT_SYNC_FAIL] = "fail",
};

const char *ht_sync_quality_name(enum ht_sync_quality q)
{
	if ((unsigned)q >= sizeof(quality_names) / sizeof(quality_names[0])) {
		return "?";
	}
	return quality_names[q];
}

double ht_sync_line_slope(const struct ht_sync_line *l)
{
	if (!l->valid) {
		return 0.0;
	}
	return (double)((long double)((ht__i128)l->y1 - l->y0) /
			(long double)((ht__i128)l->x1 - l->x0));
}

double ht_sync_line_offset(const struct ht_sync_line *l)
{
	long double a;

	if (!l->valid) {
		return 0.0;
	}
	a = (long double)((ht__i128)l->y1 - l->y0) /
	    (long double)((ht__i128)l->x1 - l->x0);
	return (double)((long double)l->y0 - a * (long double)l->x0);
}

static void set_error(struct ht_sync_set *set, const char *msg)
{
	snprintf(set->err, sizeof(set->err), "%s", msg);
}

struct ht_sync_set *ht_sync_create(unsigned nr_nodes)
{
	struct ht_sync_set *set;

	if (nr_nodes == 0 || nr_nodes > MAX_NODES) {
		return NULL;
	}
	set = calloc(1, sizeof(*set));
	if (!set) {
		return NULL;
	}
	set->rate = calloc(nr_nodes, sizeof(*set->rate));
	if (!set->rate) {
		free(set);
		return NULL;
	}
	set->nr_nodes = nr_nodes;
	return set;
}

static void free_fits(struct ht_sync_set *set)
{
	unsigned i;
	size_t k;

	if (!set->fits) {
		return;
	}
	for (i = 0; i < set->nr_nodes; i++) {
		struct node_fit *nf = &set->fits[i];

		for (k = 0; k < nf->pub.nr_segments; k++) {
			free(nf->segs[k].uh);
			free(nf->segs[k].lh);
		}
		free(nf->segs);
		free(nf->psegs);
		free(nf->rejected);
	}
	free(set->fits);
	set->fits = NULL;
	set->solved = false;
}

void ht_sync_destroy(struct ht_sync_set *set)
{
	if (!set) {
		return;
	}
	free_fits(set);
	free(set->msgs);
	free(set->rate);
	free(set);
}

static bool time_ok(int64_t t)
{
	return t > -HT_SYNC_TIME_LIMIT && t < HT_SYNC_TIME_LIMIT;
}

int ht_sync_add_message(struct ht_sync_set *set, unsigned sender,
			unsigned receiver, int64_t send_time, int64_t recv_time)
{
	struct msg *m;

	set->err[0] = '\0';
	if (sender >= set->nr_nodes || receiver >= set->nr_nodes) {
		snprintf(set->err, sizeof(set->err),
			 "node %u out of range (%u nodes)",
			 sender >= set->nr_nodes ? sender : receiver,
			 set->nr_nodes);
		return HT_EINVAL;
	}
	if (sender == receiver) {
		snprintf(set->err, sizeof(set->err),
			 "node %u sends a message to itself", sender);
		return HT_EINVAL;
	}
	if (!time_ok(send_time) || !time_ok(recv_time)) {
		snprintf(
		    set->err, sizeof(set->err),
		    "time %lld out of range (-2^62, 2^62)",
		    (long long)(time_ok(send_time) ? recv_time : send_time));
		return HT_ERANGE;
	}
	if (set->nr_msgs == set->cap_msgs) {
		size_t n = set->cap_msgs ? set->cap_msgs * 2 : 256;
		struct msg *nm = realloc(set->msgs, n * sizeof(*nm));

		if (!nm) {
			set_error(set, "out of memory");
			return HT_ENOMEM;
		}
		set->msgs = nm;
		set->cap_msgs = n;
	}
	m = &set->msgs[set->nr_msgs++];
	m->from = sender;
	m->to = receiver;
	m->s = send_time;
	m->r = recv_time;
	set->solved = false;
	return 0;
}

unsigned ht_sync_nr_nodes(const struct ht_sync_set *set)
{
	return set->nr_nodes;
}

size_t ht_sync_nr_messages(const struct ht_sync_set *set)
{
	return set->nr_msgs;
}

int ht_sync_set_rate(struct ht_sync_set *set, unsigned node,
		     uint64_t units_per_second)
{
	if (node >= set->nr_nodes) {
		set_error(set, "node out of range");
		return HT_EINVAL;
	}
	set->rate[node] = units_per_second;
	return 0;
}

const char *ht_sync_last_error(const struct ht_sync_set *set)
{
	return set->err;
}

/* ---- hulls and feasibility ---- */

/* the Fourier-Motzkin constraint of one (U vertex, L vertex) pair */
static void fm_pair(struct hsol *h, size_t i, size_t j, bool *eq_ok)
{
	struct ht__xy u = h->uh[i], q = h->lh[j];

	if (u.x < q.x) {
		/* a >= slope(u, q): keep the largest */
		if (!h->has_min ||
		    ht__slope_cmp(u, q, h->uh[h->min_u], h->lh[h->min_q]) > 0) {
			h->has_min = true;
			h->min_u = i;
			h->min_q = j;
		}
	} else if (q.x < u.x) {
		/* a <= slope(q, u): keep the smallest */
		if (!h->has_max ||
		    ht__slope_cmp(q, u, h->lh[h->max_q], h->uh[h->max_u]) < 0) {
			h->has_max = true;
			h->max_q = j;
			h->max_u = i;
		}
	} else if (u.y < q.y) {
		*eq_ok = false;
	}
}

/* true when the line through a and b (a.x < b.x) is on or below every
 * U vertex and on or above every L vertex */
static bool line_separates(const struct hsol *h, struct ht__xy a,
			   struct ht__xy b)
{
	ht__i128 dx = (ht__i128)b.x - a.x, dy = (ht__i128)b.y - a.y;
	size_t i;

	/* line(p.x) <= p.y  <=>  dy * (p.x - a.x) <= (p.y - a.y) * dx */
	for (i = 0; i < h->nu; i++) {
		if (dy * ((ht__i128)h->uh[i].x - a.x) >
		    ((ht__i128)h->uh[i].y - a.y) * dx) {
			return false;
		}
	}
	for (i = 0; i < h->nl; i++) {
		if (dy * ((ht__i128)h->lh[i].x - a.x) <
		    ((ht__i128)h->lh[i].y - a.y) * dx) {
			return false;
		}
	}
	return true;
}

/* Builds both half hulls of p[0..n) but p[except] into h->uh/h->lh
 * (room for n each) and runs the Fourier-Motzkin test on them. */
static bool hsol_run(struct hsol *h, const struct pt *p, size_t n,
		     size_t except)
{
	size_t i, j;
	bool eq_ok = true;

	h->nu = h->nl = 0;
	for (i = 0; i < n; i++) {
		struct ht__xy q = {p[i].x, p[i].y};

		if (i == except) {
			continue;
		}
		if (p[i].up) {
			h->nu = ht__hull_push(h->uh, h->nu, q, true);
		} else {
			h->nl = ht__hull_push(h->lh, h->nl, q, false);
		}
	}
	h->has_min = h->has_max = false;
	/*
	 * The extreme lines touch U and L at vertices whose ranges of
	 * supporting slopes overlap; sweeping both ranges in slope order
	 * visits O(nu + nl) such pairs. If the set is feasible the optimal
	 * pairs are among them; a candidate line that passes the check
	 * against every vertex proves it is.
	 */
	i = 0;
	j = h->nl ? h->nl - 1 : 0;
	while (h->nu && h->nl) {
		fm_pair(h, i, j, &eq_ok);
		if (i + 1 < h->nu && j > 0) {
			int c = ht__slope_cmp(h->uh[i], h->uh[i + 1],
					      h->lh[j - 1], h->lh[j]);

			if (c == 0) {
				fm_pair(h, i + 1, j, &eq_ok);
				fm_pair(h, i, j - 1, &eq_ok);
			}
			if (c <= 0) {
				i++;
			}
			if (c >= 0) {
				j--;
			}
		} else if (i + 1 < h->nu) {
			i++;
		} else if (j > 0) {
			j--;
		} else {
			break;
		}
	}
	if (!h->has_min && !h->has_max && h->nu > 1 && h->nl > 1) {
		/* no candidate at all: settle it on every pair */
		for (i = 0; i < h->nu; i++) {
			for (j = 0; j < h->nl; j++) {
				fm_pair(h, i, j, &eq_ok);
			}
		}
	}
	h->feasible = eq_ok;
	if (h->has_min && h->has_max &&
	    ht__slope_cmp(h->uh[h->min_u], h->lh[h->min_q], h->lh[h->max_q],
			  h->uh[h->max_u]) > 0) {
		h->feasible = false;
	}
	if (h->feasible && h->has_min) {
		h->feasible =
		    line_separates(h, h->uh[h->min_u], h->lh[h->min_q]);
	} else if (h->feasible && h->has_max) {
		h->feasible =
		    line_separates(h, h->lh[h->max_q], h->uh[h->max_u]);
	}
	/* clocks run forward: some feasible slope must be positive */
	if (h->has_max && h->uh[h->max_u].y <= h->lh[h->max_q].y) {
		h->feasible = false;
	}
	return h->feasible;
}

/* ---- one piece: hulls kept for the bounds ---- */

static struct ht__xy *dup_xy(const struct ht__xy *p, size_t n)
{
	struct ht__xy *d = malloc((n ? n : 1) * sizeof(*d));

	if (d && n) {
		memcpy(d, p, n * sizeof(*d));
	}
	return d;
}

static int seg_fit(struct seg *sg, struct hsol *h, const struct pt *p, size_t n)
{
	size_t i;

	memset(sg, 0, sizeof(*sg));
	hsol_run(h, p, n, SIZE_MAX);
	sg->uh = dup_xy(h->uh, h->nu);
	sg->lh = dup_xy(h->lh, h->nl);
	if (!sg->uh || !sg->lh) {
		return HT_ENOMEM;
	}
	sg->nu = h->nu;
	sg->nl = h->nl;
	sg->has_min = h->has_min;
	sg->has_max = h->has_max;
	sg->min_u = h->min_u;
	sg->min_q = h->min_q;
	sg->max_q = h->max_q;
	sg->max_u = h->max_u;
	sg->first_x = p[0].x;
	sg->last_x = p[n - 1].x;
	sg->two_sided = h->feasible && h->has_min && h->has_max &&
			h->lh[h->min_q].y > h->uh[h->min_u].y;
	for (i = 1; i < sg->nu; i++) {
		if (sg->uh[i].y < sg->uh[sg->u_low].y) {
			sg->u_low = i;
		}
	}
	for (i = 1; i < sg->nl; i++) {
		if (sg->lh[i].y >= sg->lh[sg->l_high].y) {
			sg->l_high = i;
		}
	}
	/* one side only: the hull's supporting line at the middle of the
	 * pairs (the least total delay over them) */
	if (!sg->two_sided) {
		const struct ht__xy *hh = sg->nl ? sg->lh : sg->uh;
		size_t nh = sg->nl ? sg->nl : sg->nu;

		if (nh >= 2) {
			int64_t mid = sg->first_x / 2 + sg->last_x / 2;
			size_t e = ht__hull_edge_at(hh, 0, nh - 1, mid);

			if (e + 1 >= nh) {
				e = nh - 2;
			}
			/* a clock runs forward: a falling line is no estimate
			 */
			sg->has_est = hh[e + 1].y > hh[e].y;
			sg->est_a = hh[e];
			sg->est_b = hh[e + 1];
		}
	}
	return 0;
}

/* The raw bounds of one piece at x: floor of the lowest, ceiling of the
 * highest feasible value; INT64_MIN / INT64_MAX when open. */
static void seg_bounds(const struct seg *sg, int64_t x, int64_t *lo,
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

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* lo/hi in a gap between pieces a and b, before any clamp: the truth
 * follows piece a before the break and piece b after it; where the
 * break can be, either */
static void gap_raw(const struct seg *a, const struct seg *b, int64_t x,
		    int64_t *lo, int64_t *hi)
{
	int64_t lo1, hi1, lo2, hi2;

	if (x < a->brk_lo) {
		seg_bounds(a, x, lo, hi);
		return;
	}
	if (x > a->brk_hi) {
		seg_bounds(b, x, lo, hi);
		return;
	}
	seg_bounds(a, x, &lo1, &hi1);
	seg_bounds(b, x, &lo2, &hi2);
	*lo = min64(lo1, lo2);
	*hi = max64(hi1, hi2);
}

/*
 * lo/hi of a gap between pieces j and j + 1 (before the running clamps
 * of fit_clamps()). Each of the three parts is monotone, but lo may
 * drop where the union begins and hi where it ends: as the map is
 * non-decreasing, a bound reached before (lo) or after (hi) holds here
 * too, and those at the parts' ends are kept by break_range().
 */
static void gap_bounds(const struct seg *a, const struct seg *b, int64_t x,
		       int64_t *lo, int64_t *hi)
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
static void find_break(struct seg *a, const struct seg *b, int64_t g0,
		       int64_t g1)
{
	int64_t lo_a0, hi_a0, lo_b0, hi_b0, lo_a1, hi_a1, lo_b1, hi_b1;
	int64_t p0, p1, q0, q1;

	seg_bounds(a, g0, &lo_a0, &hi_a0);
	seg_bounds(a, g1, &lo_a1, &hi_a1);
	seg_bounds(b, g0, &lo_b0, &hi_b0);
	seg_bounds(b, g1, &lo_b1, &hi_b1);
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
static void break_range(struct seg *a, const struct seg *b)
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
static void fit_clamps(struct node_fit *nf)
{
	size_t k = nf->pub.nr_segments, j;
	int64_t run, lo, hi;

	run = INT64_MIN;
	for (j = 0; j < k; j++) {
		struct seg *sg = &nf->segs[j];

		sg->lo_before = run;
		if (j + 1 < k) {
			seg_bounds(sg, sg->last_x, &lo, &hi);
			run = max64(run, lo);
			sg->gap_lo_before = run;
			gap_bounds(sg, sg + 1, nf->segs[j + 1].first_x, &lo,
				   &hi);
			run = max64(run, lo);
		}
	}
	run = INT64_MAX;
	for (j = k; j-- > 0;) {
		struct seg *sg = &nf->segs[j];

		sg->hi_after = run;
		if (j > 0) {
			struct seg *pv = sg - 1;

			seg_bounds(sg, sg->first_x, &lo, &hi);
			run = min64(run, hi);
			pv->gap_hi_after = run;
			gap_bounds(pv, sg, pv->last_x, &lo, &hi);
			run = min64(run, hi);
		}
	}
}

/* bounds of one edge at x (child time -> parent time); est is set for
 * the open side of one-sided fits */
static void edge_bounds(const struct node_fit *nf, int64_t x, int64_t *lo,
			int64_t *hi, int64_t *est)
{
	const struct seg *s = nf->segs;
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
		seg_bounds(&s[a], x, lo, hi);
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

/* ---- per-edge solve ---- */

static int cmp_pt(const void *pa, const void *pb)
{
	const struct pt *a = pa, *b = pb;

	if (a->x != b->x) {
		return a->x < b->x ? -1 : 1;
	}
	if (a->y != b->y) {
		return a->y < b->y ? -1 : 1;
	}
	if (a->up != b->up) {
		return a->up ? 1 : -1;
	}
	return (a->msg > b->msg) - (a->msg < b->msg);
}

/* sorts by (x, y, up, msg): LSD radix on x (skipping the digits all
 * keys share), then the runs of equal x by cmp_pt */
static int sort_pts(struct pt *p, size_t n)
{
	struct pt *tmp = malloc(n * sizeof(*tmp)), *src = p, *dst = tmp;
	uint64_t first, diff = 0;
	size_t i, j, shift;

	if (!tmp) {
		return HT_ENOMEM;
	}
	first = (uint64_t)p[0].x ^ (1ull << 63);
	for (i = 1; i < n; i++) {
		diff |= ((uint64_t)p[i].x ^ (1ull << 63)) ^ first;
	}
	for (shift = 0; shift < 64; shift += 11) {
		size_t count[2048] = {0}, sum = 0;

		if (!((diff >> shift) & 2047)) {
			continue;
		}
		for (i = 0; i < n; i++) {
			count[(((uint64_t)src[i].x ^ (1ull << 63)) >> shift) &
			      2047]++;
		}
		for (i = 0; i < 2048; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++) {
			dst[count[(((uint64_t)src[i].x ^ (1ull << 63)) >>
				   shift) &
				  2047]++] = src[i];
		}
		tmp = src;
		src = dst;
		dst = tmp;
	}
	if (src != p) {
		memcpy(p, src, n * sizeof(*p));
		tmp = src;
	} else {
		tmp = dst;
	}
	free(tmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && p[j].x == p[i].x; j++) {
		}
		if (j - i > 1) {
			qsort(p + i, j - i, sizeof(*p), cmp_pt);
		}
	}
	return 0;
}

static int cmp_size(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	return (a > b) - (a < b);
}

/* largest e with p[b..e) feasible (p[b..b+1) always is) */
static size_t max_prefix(struct hsol *h, const struct pt *p, size_t n, size_t b)
{
	size_t good = 1, bad, step = 2;

	while (b + step <= n && hsol_run(h, p + b, step, SIZE_MAX)) {
		good = step;
		step *= 2;
	}
	if (b + step > n) {
		if (hsol_run(h, p + b, n - b, SIZE_MAX)) {
			return n;
		}
		bad = n - b;
	} else {
		bad = step;
	}
	while (bad - good > 1) {
		size_t mid = good + (bad - good) / 2;

		if (hsol_run(h, p + b, mid, SIZE_MAX)) {
			good = mid;
		} else {
			bad = mid;
		}
	}
	return b + good;
}

/* smallest s with p[s..e) feasible */
static size_t min_suffix(struct hsol *h, const struct pt *p, size_t e)
{
	size_t good = 1, bad, step = 2;

	while (step <= e && hsol_run(h, p + e - step, step, SIZE_MAX)) {
		good = step;
		step *= 2;
	}
	if (step > e) {
		if (hsol_run(h, p, e, SIZE_MAX)) {
			return 0;
		}
		bad = e;
	} else {
		bad = step;
	}
	while (bad - good > 1) {
		size_t mid = good + (bad - good) / 2;

		if (hsol_run(h, p + e - mid, mid, SIZE_MAX)) {
			good = mid;
		} else {
			bad = mid;
		}
	}
	return e - good;
}

static void line_of(struct ht_sync_line *l, struct ht__xy a, struct ht__xy b)
{
	l->valid = true;
	l->x0 = a.x;
	l->y0 = a.y;
	l->x1 = b.x;
	l->y1 = b.y;
}

/* the public view of a piece */
static void seg_publish(const struct seg *sg, struct ht_sync_segment *ps,
			size_t pairs)
{
	int64_t lo, hi, w1, w2;

	memset(ps, 0, sizeof(*ps));
	ps->first_x = sg->first_x;
	ps->last_x = sg->last_x;
	ps->pairs = pairs;
	if (sg->has_min) {
		line_of(&ps->min_line, sg->uh[sg->min_u], sg->lh[sg->min_q]);
	}
	if (sg->has_max) {
		line_of(&ps->max_line, sg->lh[sg->max_q], sg->uh[sg->max_u]);
	}
	if (ps->min_line.valid && ps->max_line.valid) {
		ps->slope = (ht_sync_line_slope(&ps->min_line) +
			     ht_sync_line_slope(&ps->max_line)) /
			    2;
		ps->offset = (ht_sync_line_offset(&ps->min_line) +
			      ht_sync_line_offset(&ps->max_line)) /
			     2;
	} else if (sg->has_est) {
		struct ht_sync_line l;

		line_of(&l, sg->est_a, sg->est_b);
		ps->slope = ht_sync_line_slope(&l);
		ps->offset = ht_sync_line_offset(&l);
	} else {
		const struct ht_sync_line *l =
		    ps->min_line.valid ? &ps->min_line : &ps->max_line;

		ps->slope = ht_sync_line_slope(l);
		ps->offset = ht_sync_line_offset(l);
	}
	/* hi - lo is convex: its largest value over the pairs' span is
	 * at one end */
	seg_bounds(sg, sg->first_x, &lo, &hi);
	w1 = (lo == INT64_MIN || hi == INT64_MAX)
		 ? INT64_MAX
		 : ht__sat64((ht__i128)hi - lo);
	seg_bounds(sg, sg->last_x, &lo, &hi);
	w2 = (lo == INT64_MIN || hi == INT64_MAX)
		 ? INT64_MAX
		 : ht__sat64((ht__i128)hi - lo);
	ps->width_max = max64(w1, w2);
}

/* where the estimate lines of two neighbouring pieces meet, clamped to
 * the gap between their pairs (a report: doubles are fine here) */
static int64_t break_at(const struct ht_sync_segment *a,
			const struct ht_sync_segment *b)
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

/* a piece of a piecewise fit needs MIN_PIECE_PAIRS each way */
static bool enough_pairs(const struct pt *p, size_t n)
{
	size_t i, up = 0;

	for (i = 0; i < n; i++) {
		up += p[i].up;
	}
	return up >= MIN_PIECE_PAIRS && n - up >= MIN_PIECE_PAIRS;
}

static int solve_edge(struct ht_sync_set *set, struct node_fit *nf,
		      struct pt *p, size_t n, const struct ht_sync_options *opt)
{
	struct ht_sync_fit *f = &nf->pub;
	struct hsol h = {0};
	size_t i, k, nr_rej = 0, window, max_segs, nr_chunks, *begin = NULL;
	size_t *end = NULL, i0 = 0;
	bool *rej = NULL, whole_ok = false, prev_ok = false, cur_ok = false;
	int ret = 0;

	(void)set;
	window =
	    opt && opt->outlier_window ? opt->outlier_window : DEFAULT_WINDOW;
	max_segs =
	    opt && opt->max_segments ? opt->max_segments : DEFAULT_MAX_SEGMENTS;
	f->pairs_up = f->pairs_down = 0;
	for (i = 0; i < n; i++) {
		if (p[i].up) {
			f->pairs_up++;
		} else {
			f->pairs_down++;
		}
	}
	if (n == 0) {
		f->quality = HT_SYNC_ABSENT;
		return 0;
	}
	/* sorting makes everything below independent of the add order */
	for (i = 1; i < n && cmp_pt(&p[i - 1], &p[i]) <= 0; i++) {
	}
	if (i < n) {
		ret = sort_pts(p, n);
		if (ret) {
			return ret;
		}
	}
	h.uh = malloc(n * sizeof(*h.uh));
	h.lh = malloc(n * sizeof(*h.lh));
	if (!h.uh || !h.lh) {
		ret = HT_ENOMEM;
		goto free_scratch;
	}

	if (!hsol_run(&h, p, n, SIZE_MAX) && !(opt && opt->no_outliers)) {
		/* "too fast" pairs: inconsistent with their neighbours,
		 * which are consistent without them */
		rej = calloc(n, sizeof(*rej));
		if (!rej) {
			ret = HT_ENOMEM;
			goto free_scratch;
		}
		for (i = 0; i < n; i++) {
			size_t a = i > window ? i - window : 0;
			size_t b = i + window + 1 < n ? i + window + 1 : n;

			/* Blocks of 4 half-windows at a stride of 2: the
			 * window of a point in the first half of the stride
			 * lies in the previous block, in the second half in
			 * this one; a consistent block clears them. */
			if (i % (2 * window) == 0) {
				size_t bb =
				    i + 4 * window < n ? i + 4 * window : n;

				prev_ok = i > 0 && cur_ok;
				cur_ok = hsol_run(&h, p + i, bb - i, SIZE_MAX);
				i0 = i;
			}
			if (i - i0 < window && i0 > 0 ? prev_ok : cur_ok) {
				continue;
			}
			if (!hsol_run(&h, p + a, b - a, SIZE_MAX) &&
			    hsol_run(&h, p + a, b - a, i - a)) {
				rej[i] = true;
				nr_rej++;
			}
		}
		if (nr_rej) {
			nf->rejected = malloc(nr_rej * sizeof(size_t));
			if (!nf->rejected) {
				ret = HT_ENOMEM;
				goto free_scratch;
			}
			for (i = 0, k = 0; i < n; i++) {
				if (rej[i]) {
					nf->rejected[k++] = p[i].msg;
				} else {
					p[i - k] = p[i];
				}
			}
			n -= nr_rej;
			qsort(nf->rejected, nr_rej, sizeof(size_t), cmp_size);
		}
	}
	f->pairs_rejected = nr_rej;
	f->rejected = nf->rejected;
	f->pairs_used = n;

	if (f->pairs_up == 0 || f->pairs_down == 0) {
		f->quality = HT_SYNC_INCOMPLETE;
		whole_ok = true;
	} else if (n == 0) {
		f->quality = HT_SYNC_FAIL;
		goto free_scratch;
	} else if ((whole_ok = hsol_run(&h, p, n, SIZE_MAX))) {
		f->quality = nr_rej || !h.has_min || !h.has_max ||
				     f->pairs_up < 2 || f->pairs_down < 2
				 ? HT_SYNC_APPROXIMATE
				 : HT_SYNC_ACCURATE;
	} else if (opt && opt->no_piecewise) {
		f->quality = HT_SYNC_FAIL;
		goto free_scratch;
	} else {
		f->quality = nr_rej ? HT_SYNC_APPROXIMATE : HT_SYNC_ACCURATE;
	}

	/* pieces: maximal feasible chunks from the left; then, from the
	 * right, each piece keeps only the pairs that no later chunk can
	 * explain, so every piece holds pairs of one true segment */
	begin = malloc((max_segs + 1) * sizeof(*begin));
	end = malloc((max_segs + 1) * sizeof(*end));
	if (!begin || !end) {
		ret = HT_ENOMEM;
		goto free_scratch;
	}
	nr_chunks = 0;
	for (i = 0; i < n;) {
		if (nr_chunks == max_segs) {
			f->quality = HT_SYNC_FAIL;
			goto free_scratch;
		}
		begin[nr_chunks++] = i;
		i = whole_ok ? n : max_prefix(&h, p, n, i);
	}
	end[nr_chunks - 1] = n;
	for (k = nr_chunks - 1; k > 0; k--) {
		end[k - 1] = min_suffix(&h, p, end[k]);
	}
	nf->segs = calloc(nr_chunks, sizeof(*nf->segs));
	nf->psegs = calloc(nr_chunks, sizeof(*nf->psegs));
	if (!nf->segs || !nf->psegs) {
		ret = HT_ENOMEM;
		goto free_scratch;
	}
	for (k = 0; k < nr_chunks; k++) {
		struct seg *sg = &nf->segs[k];

		f->nr_segments = k + 1;
		ret = seg_fit(sg, &h, p + begin[k], end[k] - begin[k]);
		if (ret) {
			goto free_scratch;
		}
		if (nr_chunks > 1 &&
		    (!sg->two_sided ||
		     !enough_pairs(p + begin[k], end[k] - begin[k]))) {
			/* a piece bounded on one side cannot be joined, and
			 * tiny pieces would explain any noise */
			f->quality = HT_SYNC_FAIL;
		}
		seg_publish(sg, &nf->psegs[k], end[k] - begin[k]);
	}
	for (k = 0; k + 1 < nr_chunks; k++) {
		break_range(&nf->segs[k], &nf->segs[k + 1]);
	}
	for (k = 0; k < nr_chunks; k++) {
		nf->psegs[k].begin_x =
		    k == 0 ? INT64_MIN
			   : break_at(&nf->psegs[k - 1], &nf->psegs[k]);
		nf->psegs[k].end_x = INT64_MAX;
		if (k > 0) {
			nf->psegs[k - 1].end_x = nf->psegs[k].begin_x;
		}
		f->width_max = max64(f->width_max, nf->psegs[k].width_max);
	}
	fit_clamps(nf);
	f->segments = nf->psegs;
	f->min_line = nf->psegs[0].min_line;
	f->max_line = nf->psegs[0].max_line;
	f->slope = nf->psegs[0].slope;
	f->offset = nf->psegs[0].offset;

free_scratch:
	if (f->quality == HT_SYNC_FAIL) {
		f->pairs_used = 0;
	}
	free(begin);
	free(end);
	free(rej);
	free(h.uh);
	free(h.lh);
	return ret;
}

/* ---- the tree ---- */

static int build_tree(struct ht_sync_set *set, unsigned ref)
{
	unsigned n = set->nr_nodes, u, v, head = 0, tail = 0, phase;
	uint8_t *dir = calloc((size_t)n * n, 1);
	unsigned *queue = malloc(n * sizeof(*queue));
	size_t i;

	if (!dir || !queue) {
		free(dir);
		free(queue);
		return HT_ENOMEM;
	}
	for (i = 0; i < set->nr_msgs; i++) {
		dir[(size_t)set->msgs[i].from * n + set->msgs[i].to] = 1;
	}
	for (u = 0; u < n; u++) {
		set->fits[u].pub.parent = -1;
	}
	set->fits[ref].pub.depth = 0;
	queue[tail++] = ref;
	/* phase 0: edges with both directions; phase 1: any edge */
	for (phase = 0; phase < 2; phase++) {
		for (head = 0; head < tail; head++) {
			u = queue[head];
			for (v = 0; v < n; v++) {
				bool ab = dir[(size_t)u * n + v];
				bool ba = dir[(size_t)v * n + u];

				if (v == ref || set->fits[v].pub.parent >= 0) {
					continue;
				}
				if (phase == 0 ? !(ab && ba) : !(ab || ba)) {
					continue;
				}
				set->fits[v].pub.parent = (int)u;
				set->fits[v].pub.depth =
				    set->fits[u].pub.depth + 1;
				queue[tail++] = v;
			}
		}
	}
	free(dir);
	free(queue);
	return 0;
}

int ht_sync_solve(struct ht_sync_set *set, unsigned reference,
		  const struct ht_sync_options *options)
{
	unsigned n = set->nr_nodes, v;
	size_t i, *count = NULL, *off = NULL;
	struct pt *pts = NULL;
	int ret;

	set->err[0] = '\0';
	if (reference >= n) {
		set_error(set, "reference node out of range");
		return HT_EINVAL;
	}
	free_fits(set);
	set->fits = calloc(n, sizeof(*set->fits));
	count = calloc(n + 1, sizeof(*count));
	off = calloc(n + 1, sizeof(*off));
	pts = malloc((set->nr_msgs ? set->nr_msgs : 1) * sizeof(*pts));
	if (!set->fits || !count || !off || !pts) {
		ret = HT_ENOMEM;
		goto out;
	}
	set->reference = reference;
	for (v = 0; v < n; v++) {
		set->fits[v].pub.node = v;
	}
	ret = build_tree(set, reference);
	if (ret) {
		goto out;
	}
	/* bucket each message under the child of its tree edge */
	for (i = 0; i < set->nr_msgs; i++) {
		const struct msg *m = &set->msgs[i];

		if (set->fits[m->to].pub.parent == (int)m->from) {
			count[m->to]++;
		} else if (set->fits[m->from].pub.parent == (int)m->to) {
			count[m->from]++;
		}
	}
	for (v = 0; v < n; v++) {
		off[v + 1] = off[v] + count[v];
		count[v] = off[v];
	}
	for (i = 0; i < set->nr_msgs; i++) {
		const struct msg *m = &set->msgs[i];
		struct pt *q;

		if (set->fits[m->to].pub.parent == (int)m->from) {
			q = &pts[count[m->to]++];
			q->x = m->r + 1;
			q->y = m->s;
			q->up = false;
		} else if (set->fits[m->from].pub.parent == (int)m->to) {
			q = &pts[count[m->from]++];
			q->x = m->s;
			q->y = m->r + 1;
			q->up = true;
		} else {
			continue;
		}
		q->msg = i;
	}
	for (v = 0; v < n; v++) {
		struct node_fit *nf = &set->fits[v];

		if (v == reference) {
			nf->pub.quality = HT_SYNC_REFERENCE;
			continue;
		}
		if (nf->pub.parent < 0) {
			nf->pub.quality = HT_SYNC_ABSENT;
			continue;
		}
		ret = solve_edge(set, nf, pts + off[v], off[v + 1] - off[v],
				 options);
		if (ret) {
			set_error(set, "out of memory");
			goto out;
		}
		if (set->rate[v] && set->rate[nf->pub.parent]) {
			double nominal = (double)set->rate[nf->pub.parent] /
					 (double)set->rate[v];

			nf->pub.drift_ppm = (nf->pub.slope / nominal - 1) * 1e6;
		} else {
			nf->pub.drift_ppm = (nf->pub.slope - 1) * 1e6;
		}
	}
	set->solved = true;
out:
	if (ret) {
		free_fits(set);
	}
	free(count);
	free(off);
	free(pts);
	return ret;
}

const struct ht_sync_fit *ht_sync_get_fit(const struct ht_sync_set *set,
					  unsigned node)
{
	if (!set->solved || node >= set->nr_nodes) {
		return NULL;
	}
	return &set->fits[node].pub;
}

static bool mappable(const struct ht_sync_fit *f)
{
	return f->quality == HT_SYNC_ACCURATE ||
	       f->quality == HT_SYNC_APPROXIMATE ||
	       f->quality == HT_SYNC_INCOMPLETE;
}

int ht_sync_map(const struct ht_sync_set *set, unsigned node, int64_t t,
		int64_t *est, int64_t *lo, int64_t *hi)
{
	const int64_t top = HT_SYNC_TIME_LIMIT - 1;
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
		const struct node_fit *nf = &set->fits[v];

		if (!mappable(&nf->pub)) {
			return HT_ENOTFOUND;
		}
		/* bounds map through the (monotone) parent map; outside
		 * the accepted range they are clamped or open */
		if (l <= -top) {
			l = INT64_MIN;
		} else {
			edge_bounds(nf, min64(l, top), &l, &dummy, &tmp);
		}
		if (h >= top) {
			h = INT64_MAX;
		} else {
			edge_bounds(nf, max64(h, -top), &dummy, &h, &tmp);
		}
		edge_bounds(nf, min64(max64(e, -top), top), &tmp, &dummy, &e);
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
