/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CLOCK_FIT_H
#define HT_HOST_CLOCK_FIT_H

/*
 * Offline clock synchronization by the convex-hull method (Duda et al.
 * 1987; Poirier, Jabbarifar, Dagenais 2010). docs/sync.md has the math.
 *
 * Use:
 *	struct ht_fit_set *set = ht_fit_set_create(nr_nodes);
 *	ht_fit_set_add_message(set, sender, receiver, send_time, recv_time);
 *	...
 *	ht_fit_set_solve(set, 0, NULL);          // node 0 is the reference
 *	fit = ht_fit_set_get_node(set, node);     // report: quality, lines...
 *	ht_fit_set_map(set, node, t, &est, &lo, &hi);  // per event
 *	ht_fit_set_destroy(set);
 *
 * Times. Every time is a node's own unwrapped integer counter value
 * (ns for a Linux master, raw ticks for a slave: the caller unwraps
 * narrow counters and never converts units; the library does not care
 * about units). Times must lie in (-2^62, 2^62). A reading t is taken
 * as the floor of the node's continuous clock: the event happened when
 * the continuous clock was in [t, t + 1). The library accounts for
 * that (a receive stamped r is bounded by r + 1), so a slow 32 kHz
 * counter read right after a message still gives valid constraints.
 *
 * Model. For each tree edge (parent P, child C) the continuous clocks
 * are related by t_P = a * t_C + b (a > 0), or piecewise so when no
 * single line fits (a frequency step), continuous at the breaks. Each
 * message gives one half-plane on (a, b); C->P messages form the
 * "upper" point set, P->C messages the "lower" one, and every valid
 * line passes between them.
 *
 * Exactness. Every decision (hulls, feasibility, too-fast pairs,
 * segmentation, bounds) is made with 64/128-bit integers; no doubles.
 * The double fields below (slope, offset, drift) are for reports only.
 * Results do not depend on the order messages were added in.
 *
 * Errors: actions return 0 or a negative HT_E... code (error.h);
 * ht_fit_set_last_error() gives a message for the last failure.
 * Thread safety: a set is used by one thread at a time; after
 * ht_fit_set_solve(), ht_fit_set_map() and ht_fit_set_get_node() only read and
 * may be called from several threads at once.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Times are accepted in (-HT_FIT_TIME_LIMIT, HT_FIT_TIME_LIMIT). */
#define HT_FIT_TIME_LIMIT ((int64_t)1 << 62)

enum ht_fit_quality {
	/* the reference node itself: the identity */
	HT_FIT_REFERENCE,
	/* both directions, every pair consistent with one line (or with
	 * continuous segments when the clock rate steps) */
	HT_FIT_ACCURATE,
	/* both directions, consistent once the "too fast" pairs were
	 * excluded (fit->pairs_rejected > 0), or too few pairs in one
	 * direction (< 2) to trust */
	HT_FIT_APPROXIMATE,
	/* one direction only: bounded on one side only (lo or hi is
	 * INT64_MIN / INT64_MAX); the estimate assumes minimal delay */
	HT_FIT_INCOMPLETE,
	/* no pairs linking this node to the reference: no mapping */
	HT_FIT_ABSENT,
	/* the hulls cross and no line fits, even piecewise: no mapping */
	HT_FIT_FAIL,
};

/* "reference", "accurate", "approximate", "incomplete", "absent", "fail" */
const char *ht_fit_quality_name(enum ht_fit_quality q);

/*
 * A line t_parent = a * t_child + b, exactly: the line through the two
 * points (x0, y0), (x1, y1) with x0 < x1 (x in child time, y in parent
 * time). valid is false when the line does not exist (one-sided fits).
 */
struct ht_fit_line {
	bool valid;
	int64_t x0, y0, x1, y1;
};

/* The slope a and offset b (value at child time 0) of a line, for
 * reports only (doubles). */
double ht_fit_line_slope(const struct ht_fit_line *l);
double ht_fit_line_offset(const struct ht_fit_line *l);

/*
 * One linear piece of a fit. For the first segment begin_x is
 * INT64_MIN and for the last end_x is INT64_MAX: the piece is
 * extrapolated. Breaks (begin_x of the segments after the first) are
 * where the estimate lines of the neighbouring segments meet (so the
 * estimate is continuous), clamped between the pairs that surely belong
 * to either side.
 */
struct ht_fit_segment {
	int64_t begin_x, end_x;	     /* child time range of the piece */
	int64_t first_x, last_x;     /* child times of its first/last pair */
	struct ht_fit_line min_line; /* min-slope separating line */
	struct ht_fit_line max_line; /* max-slope separating line */
	/* the estimate line: the mean of min_line and max_line (for
	 * incomplete fits: the supporting line of the one hull at the
	 * middle of the pairs, i.e. minimal delay) */
	double slope, offset;
	/* largest hi - lo over [first_x, last_x], parent units */
	int64_t width_max;
	size_t pairs; /* pairs that define this piece */
};

/*
 * The fit of one node to its parent in the tree rooted at the
 * reference. Valid after ht_fit_set_solve() until the next solve/destroy.
 */
struct ht_fit_node {
	unsigned node;
	int parent;	/* -1 for the reference and unlinked nodes */
	unsigned depth; /* edges to the reference */
	enum ht_fit_quality quality;
	size_t pairs_up;   /* messages child -> parent */
	size_t pairs_down; /* messages parent -> child */
	size_t pairs_used;
	size_t pairs_rejected; /* "too fast" pairs, excluded */
	/* the first segment's lines (the only ones when nr_segments == 1) */
	struct ht_fit_line min_line, max_line;
	double slope, offset; /* estimate of the first segment */
	/* (slope / nominal slope - 1) * 1e6, nominal from
	 * ht_fit_set_node_rate() (1.0 when rates are not set) */
	double drift_ppm;
	int64_t width_max; /* largest bound width over the pairs */
	size_t nr_segments;
	const struct ht_fit_segment *segments;
	/* message indices (in add order, 0-based) of the rejected pairs,
	 * sorted */
	const size_t *rejected;
};

struct ht_fit_opts {
	/* pairs on each side of a pair when judging it "too fast"
	 * (0: default 8) */
	unsigned outlier_window;
	/* most pieces in a piecewise fit before it is a failure
	 * (0: default 16); each piece also needs 3 pairs each way */
	unsigned max_segments;
	/* never exclude pairs / never split: a crossing is then a fail */
	bool no_outliers;
	bool no_piecewise;
};

struct ht_fit_set;

/* A set of nr_nodes nodes (0 .. nr_nodes - 1) with no messages. NULL
 * when out of memory or nr_nodes is 0. */
struct ht_fit_set *ht_fit_set_create(unsigned nr_nodes);
void ht_fit_set_destroy(struct ht_fit_set *set);

/*
 * A message sent by `sender` at its time send_time and received by
 * `receiver` at its time recv_time (each in its own node's unit).
 * Returns 0, HT_EINVAL (node out of range, sender == receiver),
 * HT_ERANGE (a time outside (-2^62, 2^62)) or HT_ENOMEM.
 */
int ht_fit_set_add_message(struct ht_fit_set *set, unsigned sender,
			   unsigned receiver, int64_t send_time,
			   int64_t recv_time);

/* Number of nodes of the set. */
unsigned ht_fit_set_nr_nodes(const struct ht_fit_set *set);

/* Number of messages added so far. */
size_t ht_fit_set_nr_messages(const struct ht_fit_set *set);

/*
 * Optional: the nominal rate of a node's clock in units per second
 * (1e9 for ns, 32768 for a 32 kHz counter). Used only for drift_ppm.
 */
int ht_fit_set_node_rate(struct ht_fit_set *set, unsigned node,
			 uint64_t units_per_second);

/*
 * Builds the tree rooted at `reference` (edges with both directions
 * preferred, then fewer hops) and fits every edge. options may be NULL.
 * Returns 0 even when some nodes are absent or fail (see each fit's
 * quality); HT_EINVAL for a bad reference, HT_ENOMEM.
 */
int ht_fit_set_solve(struct ht_fit_set *set, unsigned reference,
		     const struct ht_fit_opts *options);

/* The fit of a node (after ht_fit_set_solve), NULL when node is out of
 * range or the set was not solved. */
const struct ht_fit_node *ht_fit_set_get_node(const struct ht_fit_set *set,
					      unsigned node);

/*
 * Maps time t of `node` (its continuous clock value t) to the
 * reference's unit, composing along the tree. *lo <= true value <= *hi
 * whenever the model holds (lo is floored, hi ceiled). When every fit
 * on the way is bounded on both sides (accurate, and approximate with
 * both lines), *est is the middle of [lo, hi], so |est - truth| <=
 * (hi - lo + 1) / 2; otherwise (incomplete fits) it is the estimate
 * line clamped into [lo, hi], and lo or hi may be INT64_MIN / INT64_MAX
 * on the open side. lo, est, hi are non-decreasing in t. Values
 * saturate at the int64 limits. Any of est, lo, hi may be NULL.
 * Returns 0, HT_ERANGE (t outside (-2^62, 2^62)), HT_EINVAL (node out
 * of range, set not solved), HT_ENOTFOUND (node absent or failed).
 * O(depth * log(hull size)).
 */
int ht_fit_set_map(const struct ht_fit_set *set, unsigned node, int64_t t,
		   int64_t *est, int64_t *lo, int64_t *hi);

/*
 * A span of one node's times (the per-event path of the merge keeps one
 * per core): where the node's fit is one edge to the reference, two
 * sided, and t lies between the first and the last message of one of
 * its pieces, the bounds of ht_fit_set_map() follow one line each
 * (floored for lo, ceiled for hi, then clamped) over the times
 * [x0, x1] around t, and ht_fit_span_est() gives its est there.
 */
struct ht_fit_span_line {
	int64_t x0, y0, x1, y1; /* through (x0, y0) and (x1, y1), x0 < x1 */
};

/*
 * A line of a span in fixed point (clock-span.c): for t in the span,
 * with N = (t - span.x0) * dy + b (no overflow in 64 bits), the line's
 * floor at t is base + floor(N / dx), the quotient taken with the
 * reciprocal rcp and one correction.
 */
struct ht_fit_span_fixed {
	bool ok; /* false: the span is too wide for 64 bits */
	int64_t base;
	uint64_t b, dy, dx, rcp;
};

struct ht_fit_span {
	bool valid; /* false: no span here, ht_fit_set_map() only */
	int64_t x0, x1;
	struct ht_fit_span_line lo, hi;
	double lo_slope, hi_slope; /* estimates only: values are exact */
	int64_t lo_min, hi_max;
	struct ht_fit_span_fixed lo_fixed, hi_fixed;
};

/*
 * The span around time @t of @node (span->valid false when there is
 * none: a node deeper than one edge, a one-sided fit, a time outside
 * the pieces' messages). Returns 0 (the set unsolved or @node out of
 * range give no span).
 */
int ht_fit_set_map_span(const struct ht_fit_set *set, unsigned node, int64_t t,
			struct ht_fit_span *span);

/*
 * The same where ht_fit_set_map()'s bounds follow two lines outside the
 * pieces' messages: before the first piece's first message, after the
 * last piece's last (ht_fit_span_est() is then the middle of the
 * bounds, not what a caller may choose there).
 */
int ht_fit_set_outer_span(const struct ht_fit_set *set, unsigned node,
			  int64_t t, struct ht_fit_span *span);

/*
 * @f for the line through (@lx0, @ly0) and (@lx1, @ly1) (lx0 < lx1)
 * over the times [@x0, @x1] (f->ok false when they do not fit).
 */
void ht_fit_span_fixed_init(struct ht_fit_span_fixed *f, int64_t lx0,
			    int64_t ly0, int64_t lx1, int64_t ly1, int64_t x0,
			    int64_t x1);

/* The line of @f (f->ok) at x0 + @e (e <= x1 - x0) floored, the
 * remainder of its quotient in *@r. */
static inline int64_t ht_fit_span_fixed_at(const struct ht_fit_span_fixed *f,
					   uint64_t e, uint64_t *r)
{
	const uint64_t num = e * f->dy + f->b;
	uint64_t q = (uint64_t)(((unsigned __int128)num * f->rcp) >> 64);
	uint64_t rem = num - q * f->dx;
	const uint64_t c = rem >= f->dx;

	q += c;
	rem -= c * f->dx;
	*r = rem;
	return f->base + (int64_t)q;
}

/*
 * The half width of a span around a time over which a line rising from
 * @y0 to @y1 holds in fixed point (its numerator below 2^63 over the
 * span), at most 2^40.
 */
static inline int64_t ht_fit_fixed_half(int64_t y0, int64_t y1)
{
	const uint64_t dy = y1 > y0 ? (uint64_t)y1 - (uint64_t)y0 : 0;
	const uint64_t h = dy ? (UINT64_C(1) << 62) / dy : UINT64_MAX;

	return h < (UINT64_C(1) << 40) ? (int64_t)h : INT64_C(1) << 40;
}

/* Narrows @span to [@x0, @x1] (inside its own range), its lines in
 * fixed point made for it. */
void ht_fit_span_narrow(struct ht_fit_span *span, int64_t x0, int64_t x1);

/* ht_fit_set_map()'s *lo and *hi at @t, for t in [span->x0, span->x1]. */
void ht_fit_span_bounds(const struct ht_fit_span *span, int64_t t, int64_t *lo,
			int64_t *hi);

/* ht_fit_set_map()'s *est at @t, for t in [span->x0, span->x1]. */
int64_t ht_fit_span_est(const struct ht_fit_span *span, int64_t t);

/* ht_fit_span_est() of @t[0], @t[1]... into @est while they lie in
 * [span->x0, span->x1] (at most @n): returns how many. */
size_t ht_fit_span_est_many(const struct ht_fit_span *span, const int64_t *t,
			    int64_t *est, size_t n);

/* A message about the last error of a call on this set ("" if none). */
const char *ht_fit_set_last_error(const struct ht_fit_set *set);

#endif
