/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CLOCK_FIT_INTERNAL_H
#define HT_HOST_CLOCK_FIT_INTERNAL_H

/*
 * What the files of the convex-hull fit share (internal to host/sync):
 * the set, the per-node fit with its pieces, and the functions each
 * file gives the others. clock-fit.c has the math in its opening
 * comment; clock-piece.c tests points and fits one piece;
 * clock-bounds.c gives the bounds of a fit at a time (one piece, the
 * gaps between pieces, the map along the tree); clock-edge.c fits one
 * tree edge, splitting it into pieces when no line fits.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock-fit.h"
#include "convex-hull.h"

struct ht__fit_msg {
	uint32_t from, to;
	int64_t s, r;
};

struct ht__fit_pt {
	int64_t x, y;
	size_t msg;
	bool up;
};

/* one linear piece, with what the bounds need */
struct ht__piece {
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
	/* in that gap, where the break can be (see ht__break_range()), and
	 * the clamps that keep the bounds monotone across its ends */
	int64_t brk_lo, brk_hi;
	int64_t brk_lo_in, brk_lo_after, brk_hi_before, brk_hi_in;
};

struct ht__node_fit {
	struct ht_fit_node pub;
	struct ht__piece *segs;
	struct ht_fit_segment *psegs;
	size_t *rejected;
};

struct ht_fit_set {
	unsigned nr_nodes;
	struct ht__fit_msg *msgs;
	size_t nr_msgs, cap_msgs;
	uint64_t *rate;
	bool solved;
	unsigned reference;
	struct ht__node_fit *fits;
	char err[256];
};

/* the outcome of the hull test on some points */
struct ht__hull_sol {
	struct ht__xy *uh, *lh;
	size_t nu, nl;
	bool feasible, has_min, has_max;
	size_t min_u, min_q, max_q, max_u;
};

static inline bool time_ok(int64_t t)
{
	return t > -HT_FIT_TIME_LIMIT && t < HT_FIT_TIME_LIMIT;
}

static inline int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static inline int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* clock-piece.c */

/* Builds both half hulls of p[0..n) but p[except] into h->uh/h->lh
 * (room for n each) and runs the Fourier-Motzkin test on them; returns
 * whether the points are consistent with one line. */
bool ht__hull_sol_run(struct ht__hull_sol *h, const struct ht__fit_pt *p,
		      size_t n, size_t except);

/* Fits the piece @sg to p[0..n) (sorted), with @h as scratch. Returns 0
 * or HT_ENOMEM. */
int ht__piece_fit(struct ht__piece *sg, struct ht__hull_sol *h,
		  const struct ht__fit_pt *p, size_t n);

/* The public view of a piece fitted to @pairs pairs. */
void ht__piece_publish(const struct ht__piece *sg, struct ht_fit_segment *ps,
		       size_t pairs);

/* clock-bounds.c */

/* The raw bounds of one piece at x: floor of the lowest, ceiling of the
 * highest feasible value; INT64_MIN / INT64_MAX when open. */
void ht__piece_bounds(const struct ht__piece *sg, int64_t x, int64_t *lo,
		      int64_t *hi);

/* The break range of the gap after piece a, and the clamps at its
 * ends. */
void ht__break_range(struct ht__piece *a, const struct ht__piece *b);

/* Where the estimate lines of two neighbouring pieces meet, clamped to
 * the gap between their pairs. */
int64_t ht__break_at(const struct ht_fit_segment *a,
		     const struct ht_fit_segment *b);

/* The running clamps that keep a fit's bounds non-decreasing. */
void ht__fit_clamps(struct ht__node_fit *nf);

/* clock-edge.c */

/* Fits the tree edge of @nf to its points p[0..n) (reordered). Returns
 * 0 (the quality says how it went) or HT_ENOMEM. */
int ht__edge_solve(struct ht__node_fit *nf, struct ht__fit_pt *p, size_t n,
		   const struct ht_fit_opts *opt);

#endif
