/* SPDX-License-Identifier: MIT */
/*
 * One linear piece of a fit (clock-fit-internal.h): the hull test that
 * says whether points are consistent with one line and finds its
 * extreme lines, the piece kept for the bounds, and its public view.
 */
#include <stdlib.h>
#include <string.h>

#include "clock-fit-internal.h"
#include "common/error.h"

/* the Fourier-Motzkin constraint of one (U vertex, L vertex) pair */
static void fm_pair(struct ht__hull_sol *h, size_t i, size_t j, bool *eq_ok)
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
static bool line_separates(const struct ht__hull_sol *h, struct ht__xy a,
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
/* The half hulls of p[0..n) but p[except]: U's lower hull in h->uh,
 * L's upper hull in h->lh. */
static void build_hulls(struct ht__hull_sol *h, const struct ht__fit_pt *p,
			size_t n, size_t except)
{
	size_t i;

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
}

/*
 * The candidate extreme lines. They touch U and L at vertices whose
 * ranges of supporting slopes overlap; sweeping both ranges in slope
 * order visits O(nu + nl) such pairs. If the set is feasible the
 * optimal pairs are among them; a candidate line that passes the check
 * against every vertex proves it is (check_feasible()). *eq_ok is
 * cleared by a U vertex below an L vertex of the same x.
 */
static void sweep_pairs(struct ht__hull_sol *h, bool *eq_ok)
{
	size_t i = 0, j = h->nl ? h->nl - 1 : 0;

	h->has_min = h->has_max = false;
	while (h->nu && h->nl) {
		fm_pair(h, i, j, eq_ok);
		if (i + 1 < h->nu && j > 0) {
			int c = ht__slope_cmp(h->uh[i], h->uh[i + 1],
					      h->lh[j - 1], h->lh[j]);

			if (c == 0) {
				fm_pair(h, i + 1, j, eq_ok);
				fm_pair(h, i, j - 1, eq_ok);
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
				fm_pair(h, i, j, eq_ok);
			}
		}
	}
}

/* Whether the candidates of sweep_pairs() are a feasible solution. */
static bool check_feasible(const struct ht__hull_sol *h, bool eq_ok)
{
	if (!eq_ok) {
		return false;
	}
	if (h->has_min && h->has_max &&
	    ht__slope_cmp(h->uh[h->min_u], h->lh[h->min_q], h->lh[h->max_q],
			  h->uh[h->max_u]) > 0) {
		return false;
	}
	if (h->has_min &&
	    !line_separates(h, h->uh[h->min_u], h->lh[h->min_q])) {
		return false;
	}
	if (!h->has_min && h->has_max &&
	    !line_separates(h, h->lh[h->max_q], h->uh[h->max_u])) {
		return false;
	}
	/* clocks run forward: some feasible slope must be positive */
	return !(h->has_max && h->uh[h->max_u].y <= h->lh[h->max_q].y);
}

bool ht__hull_sol_run(struct ht__hull_sol *h, const struct ht__fit_pt *p,
		      size_t n, size_t except)
{
	bool eq_ok = true;

	build_hulls(h, p, n, except);
	sweep_pairs(h, &eq_ok);
	h->feasible = check_feasible(h, eq_ok);
	return h->feasible;
}

static struct ht__xy *dup_xy(const struct ht__xy *p, size_t n)
{
	struct ht__xy *d = malloc((n ? n : 1) * sizeof(*d));

	if (d && n) {
		memcpy(d, p, n * sizeof(*d));
	}
	return d;
}

int ht__piece_fit(struct ht__piece *sg, struct ht__hull_sol *h,
		  const struct ht__fit_pt *p, size_t n)
{
	size_t i;

	memset(sg, 0, sizeof(*sg));
	ht__hull_sol_run(h, p, n, SIZE_MAX);
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

static void line_of(struct ht_fit_line *l, struct ht__xy a, struct ht__xy b)
{
	l->valid = true;
	l->x0 = a.x;
	l->y0 = a.y;
	l->x1 = b.x;
	l->y1 = b.y;
}

/* the public view of a piece */
void ht__piece_publish(const struct ht__piece *sg, struct ht_fit_segment *ps,
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
		ps->slope = (ht_fit_line_slope(&ps->min_line) +
			     ht_fit_line_slope(&ps->max_line)) /
			    2;
		ps->offset = (ht_fit_line_offset(&ps->min_line) +
			      ht_fit_line_offset(&ps->max_line)) /
			     2;
	} else if (sg->has_est) {
		struct ht_fit_line l;

		line_of(&l, sg->est_a, sg->est_b);
		ps->slope = ht_fit_line_slope(&l);
		ps->offset = ht_fit_line_offset(&l);
	} else {
		const struct ht_fit_line *l =
		    ps->min_line.valid ? &ps->min_line : &ps->max_line;

		ps->slope = ht_fit_line_slope(l);
		ps->offset = ht_fit_line_offset(l);
	}
	/* hi - lo is convex: its largest value over the pairs' span is
	 * at one end */
	ht__piece_bounds(sg, sg->first_x, &lo, &hi);
	w1 = (lo == INT64_MIN || hi == INT64_MAX)
		 ? INT64_MAX
		 : ht__sat64((ht__i128)hi - lo);
	ht__piece_bounds(sg, sg->last_x, &lo, &hi);
	w2 = (lo == INT64_MIN || hi == INT64_MAX)
		 ? INT64_MAX
		 : ht__sat64((ht__i128)hi - lo);
	ps->width_max = max64(w1, w2);
}
