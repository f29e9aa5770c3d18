/* SPDX-License-Identifier: MIT */
/*
 * `hetrace sync` as a library call (sync-run.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/json-writer.h"
#include "capture-reader-internal.h"
#include "convex-hull.h"
#include "sync-kernel.h"
#include "sync-run.h"

#define NS_PER_S 1000000000ll
/* pairs examined per core for its bound width */
#define WIDTH_SAMPLES 4096
/* points of the bounds over time in the report */
#define BOUND_SAMPLES 256

/* A receive to place no earlier than its send (reference units). */
struct fix {
	uint64_t cycles; /* the receive's time on its core */
	int64_t need;	 /* the send's mapped time */
	/* which receive: several can share one tick of a coarse clock;
	 * the record itself (struct ht_capture_pair) names it */
	uint64_t offset_bits;
	uint32_t stream;
};

struct core_map {
	const struct ht_sync_run *run;
	size_t node;
	bool own_clock;			  /* unsynced: the core's own clock */
	const struct ht_ctf_clock *clock; /* own or reference clock */
	const struct fix *fixes;	  /* sorted by cycles */
	size_t nr_fixes, next;
	int64_t shift_ns; /* unsynced on a kept clock: added to own ns */
	/* events with a damaged timestamp (capture-reader.h), sorted */
	const struct ht_capture_bad_time *bad;
	size_t nr_bad;
	/* times beyond the int64 ns range, saturated (counted) */
	uint64_t saturated;
	/* .clock counts ns from ns_origin (clock_ns_wide() of 0, within
	 * int64): clock_ns_counted() adds them in 64 bits */
	bool ns_clock;
	int64_t ns_origin;
	/* where the fit follows two lines around the last time mapped */
	struct ht_fit_span span;
	/* the same before the first or after the last message, with the
	 * estimate line of est_at() there (outer_span()) */
	struct ht_fit_span outer;
	const struct ht_fit_segment *outer_seg; /* NULL: no estimate line */
	double outer_min_slope, outer_max_slope;
	/* the estimate line's two lines in fixed point over the span */
	struct ht_fit_span_fixed outer_min_fixed, outer_max_fixed;
};

/* The narrowest half width an outer span is narrowed to for its lines
 * in fixed point (below, it keeps its width and the exact path). */
#define OUTER_MIN_HALF (INT64_C(1) << 16)

/* floor(a / b), b > 0 */
static __int128 floor_div(__int128 a, __int128 b)
{
	return ht__floor_div(a, b);
}

static int64_t sat(__int128 v)
{
	if (v > INT64_MAX) {
		return INT64_MAX;
	}
	if (v < INT64_MIN) {
		return INT64_MIN;
	}
	return (int64_t)v;
}

/* A value of clock @k (cycles, may be negative) in ns from its origin,
 * exactly (128 bits: any offset_s, offset and frequency). */
static __int128 clock_ns_wide(const struct ht_ctf_clock *k, int64_t cycles)
{
	__int128 c = (__int128)cycles + k->offset_cycles;
	uint64_t f = k->freq_hz ? k->freq_hz : 1;

	if (f == NS_PER_S) {
		return (__int128)k->offset_s * NS_PER_S + c;
	}
	return (__int128)k->offset_s * NS_PER_S +
	       floor_div(c * NS_PER_S, (__int128)f);
}

/* clock_ns_wide() saturated to int64 (for reports and bounds). */
static int64_t clock_ns(const struct ht_ctf_clock *k, int64_t cycles)
{
	return sat(clock_ns_wide(k, cycles));
}

/* clock_ns() plus @shift for an event of the merge: a saturated time is
 * counted on @m, so that the result says it. */
static __attribute__((noinline)) int64_t
clock_ns_counted_wide(struct core_map *m, const struct ht_ctf_clock *k,
		      int64_t cycles, int64_t shift)
{
	__int128 ns = clock_ns_wide(k, cycles) + shift;

	if (ns > INT64_MAX || ns < INT64_MIN) {
		m->saturated++;
	}
	return sat(ns);
}

/* clock_ns_counted_wide(), without a call in the common case */
static inline int64_t clock_ns_counted(struct core_map *m,
				       const struct ht_ctf_clock *k,
				       int64_t cycles, int64_t shift)
{
	int64_t v;

	/* a clock in ns: its origin in ns plus the cycles, in 64 bits
	 * when nothing overflows */
	if (k == m->clock && m->ns_clock && !shift &&
	    !__builtin_add_overflow(m->ns_origin, cycles, &v)) {
		return v;
	}
	return clock_ns_counted_wide(m, k, cycles, shift);
}

static const struct ht_ctf_clock *ref_clock(const struct ht_sync_run *run)
{
	return ht_capture_reader_core(run->cap, run->reference)->clock;
}

static int64_t to_time(uint64_t cycles)
{
	return cycles >= (uint64_t)HT_FIT_TIME_LIMIT ? HT_FIT_TIME_LIMIT - 1
						     : (int64_t)cycles;
}

/* The line through l's points at x, in exact arithmetic (floored). */
static __int128 line_at(const struct ht_fit_line *l, int64_t x)
{
	__int128 dx = (__int128)l->x1 - l->x0;

	return l->y0 +
	       floor_div(((__int128)x - l->x0) * ((__int128)l->y1 - l->y0), dx);
}

/* The estimate line of @node's fit at its time @t, in its parent's unit,
 * composed up to the reference. false when there is none. */
static bool line_est(const struct ht_fit_set *sync, unsigned node, int64_t t,
		     unsigned depth, int64_t *out)
{
	const struct ht_fit_node *fit = ht_fit_set_get_node(sync, node);
	const struct ht_fit_segment *g;
	size_t k;

	if (!fit || depth > 64) {
		return false;
	}
	if (fit->quality == HT_FIT_REFERENCE) {
		*out = t;
		return true;
	}
	if (fit->parent < 0 || !fit->nr_segments) {
		return false;
	}
	g = &fit->segments[0];
	for (k = 1; k < fit->nr_segments; k++) {
		if (t >= fit->segments[k].begin_x) {
			g = &fit->segments[k];
		}
	}
	if (!g->min_line.valid || !g->max_line.valid) {
		return false;
	}
	/* the mean of the min- and max-slope lines */
	t = sat(
	    floor_div(line_at(&g->min_line, t) + line_at(&g->max_line, t), 2));
	if (t <= -HT_FIT_TIME_LIMIT || t >= HT_FIT_TIME_LIMIT) {
		return false;
	}
	return line_est(sync, (unsigned)fit->parent, t, depth + 1, out);
}

/* Whether @t lies between the first and the last message of one piece
 * of @node's fit (where the bounds are tight). */
static bool within_piece(const struct ht_fit_set *sync, unsigned node,
			 int64_t t)
{
	const struct ht_fit_node *fit = ht_fit_set_get_node(sync, node);
	size_t k;

	if (!fit || fit->quality == HT_FIT_REFERENCE) {
		return true;
	}
	for (k = 0; k < fit->nr_segments; k++) {
		if (t >= fit->segments[k].first_x &&
		    t <= fit->segments[k].last_x) {
			return true;
		}
	}
	return false;
}

/*
 * The time of @node's clock value @t on the reference (its unit).
 * Within a piece of the fit (between its first and last message): the
 * middle of the guaranteed bounds [lo, hi], so |est - truth| is at most
 * half their width. Outside (before the first message, after the last,
 * between two pieces where the clock rate stepped), the bounds only say
 * "between the neighbouring messages" and their middle jumps away from
 * the clock: there the fit's estimate line (piecewise, continuous at
 * the breaks), kept inside [lo, hi]. docs/merge.md.
 */
static int est_at(const struct ht_fit_set *sync, unsigned node, int64_t t,
		  int64_t *est, int64_t *lo, int64_t *hi)
{
	int64_t l, h, mid, e;
	int ret = ht_fit_set_map(sync, node, t, &mid, &l, &h);

	if (ret) {
		return ret;
	}
	if (!within_piece(sync, node, t) && line_est(sync, node, t, 0, &e)) {
		mid = e < l ? l : e > h ? h : e;
	}
	*est = mid;
	if (lo) {
		*lo = l;
	}
	if (hi) {
		*hi = h;
	}
	return 0;
}

/*
 * The line @l at @t floored, as line_at(): the quotient estimated in
 * doubles (@slope is the line's), made exact by the remainder;
 * line_at() itself when a double is not within one of it.
 */
static __int128 line_floor(const struct ht_fit_line *l, double slope, int64_t t)
{
	const int64_t dx = l->x1 - l->x0;
	const __int128 d = (__int128)t - l->x0;
	const __int128 num = d * ((__int128)l->y1 - l->y0);
	const double qd = (double)d * slope;
	__int128 q, r;
	int64_t q64, r64;

	if (dx <= 0 || !(qd > -4e15 && qd < 4e15)) {
		return line_at(l, t);
	}
	/* (the differences in 64 bits: without a branch, ht__floor_div_quick())
	 */
	if (dx < (INT64_C(1) << 60) && d == (int64_t)d &&
	    (__int128)l->y1 - l->y0 == (int64_t)(l->y1 - l->y0) &&
	    ht__floor_div_quick((int64_t)d, l->y1 - l->y0, dx, qd, &q64,
				&r64)) {
		return (__int128)l->y0 + q64;
	}
	q = ht__floor_div_near(num, dx, (int64_t)qd, &r);
	return l->y0 + q;
}

/* The span of @m's times around @t outside the pieces' messages, with
 * the segment whose estimate line est_at() takes there (line_est()). */
static void outer_span(struct core_map *m, int64_t t)
{
	const struct ht_fit_node *fit =
	    ht_fit_set_get_node(m->run->sync, (unsigned)m->node);
	const struct ht_fit_segment *g;
	size_t k, j = 0;
	int64_t half, h;

	m->outer_seg = NULL;
	ht_fit_set_outer_span(m->run->sync, (unsigned)m->node, t, &m->outer);
	if (!m->outer.valid || !fit || !fit->nr_segments) {
		return;
	}
	/* line_est()'s segment: the last one beginning at or before t,
	 * the same over the span's part where it is */
	for (k = 1; k < fit->nr_segments; k++) {
		if (t >= fit->segments[k].begin_x) {
			j = k;
		}
	}
	if (j > 0 && fit->segments[j].begin_x > m->outer.x0) {
		m->outer.x0 = fit->segments[j].begin_x;
	}
	if (j + 1 < fit->nr_segments &&
	    fit->segments[j + 1].begin_x - 1 < m->outer.x1) {
		m->outer.x1 = fit->segments[j + 1].begin_x - 1;
	}
	m->outer_min_fixed.ok = m->outer_max_fixed.ok = false;
	g = &fit->segments[j];
	half = ht_fit_fixed_half(m->outer.lo.y0, m->outer.lo.y1);
	h = ht_fit_fixed_half(m->outer.hi.y0, m->outer.hi.y1);
	half = h < half ? h : half;
	if (g->min_line.valid && g->max_line.valid) {
		h = ht_fit_fixed_half(g->min_line.y0, g->min_line.y1);
		half = h < half ? h : half;
		h = ht_fit_fixed_half(g->max_line.y0, g->max_line.y1);
		half = h < half ? h : half;
	}
	/* around t, narrow enough for the lines in fixed point */
	if (half >= OUTER_MIN_HALF) {
		ht_fit_span_narrow(&m->outer, t - half, t + half);
	}
	if (g->min_line.valid && g->max_line.valid) {
		m->outer_seg = g;
		m->outer_min_slope = ht_fit_line_slope(&g->min_line);
		m->outer_max_slope = ht_fit_line_slope(&g->max_line);
	}
	if (m->outer_seg && half >= OUTER_MIN_HALF) {
		ht_fit_span_fixed_init(
		    &m->outer_min_fixed, g->min_line.x0, g->min_line.y0,
		    g->min_line.x1, g->min_line.y1, m->outer.x0, m->outer.x1);
		ht_fit_span_fixed_init(
		    &m->outer_max_fixed, g->max_line.x0, g->max_line.y0,
		    g->max_line.x1, g->max_line.y1, m->outer.x0, m->outer.x1);
	}
}

/* est_at() in @m's outer span: the estimate line kept in the bounds. */
static int64_t outer_est(const struct core_map *m, int64_t t)
{
	const struct ht_fit_segment *g = m->outer_seg;
	const struct ht_fit_span *sp = &m->outer;
	int64_t lo, hi, e;

	if (sp->lo_fixed.ok && sp->hi_fixed.ok &&
	    (!g || (m->outer_min_fixed.ok && m->outer_max_fixed.ok))) {
		/* the same values in fixed point (within 2^62: no
		 * overflow, nothing saturates) */
		const uint64_t x = (uint64_t)t - (uint64_t)sp->x0;
		uint64_t r;

		lo = ht_fit_span_fixed_at(&sp->lo_fixed, x, &r);
		lo = lo > sp->lo_min ? lo : sp->lo_min;
		hi = ht_fit_span_fixed_at(&sp->hi_fixed, x, &r) + (r != 0);
		hi = hi < sp->hi_max ? hi : sp->hi_max;
		if (g) {
			e = (ht_fit_span_fixed_at(&m->outer_min_fixed, x, &r) +
			     ht_fit_span_fixed_at(&m->outer_max_fixed, x,
						  &r)) >>
			    1;
			if (e > -HT_FIT_TIME_LIMIT && e < HT_FIT_TIME_LIMIT) {
				return e < lo ? lo : e > hi ? hi : e;
			}
		}
		return (int64_t)(lo + ((__int128)hi - lo) / 2);
	}
	ht_fit_span_bounds(&m->outer, t, &lo, &hi);
	if (g) {
		/* (>> 1: the floor of half, as floor_div(.., 2)) */
		e = sat((line_floor(&g->min_line, m->outer_min_slope, t) +
			 line_floor(&g->max_line, m->outer_max_slope, t)) >>
			1);
		if (e > -HT_FIT_TIME_LIMIT && e < HT_FIT_TIME_LIMIT) {
			return e < lo ? lo : e > hi ? hi : e;
		}
	}
	return (int64_t)(lo + ((__int128)hi - lo) / 2);
}

static int64_t map_cycles(void *arg, uint64_t cycles)
{
	struct core_map *m = arg;
	int64_t est = 0, t;

	if (m->own_clock) {
		return clock_ns_counted(m, m->clock, to_time(cycles),
					m->shift_ns);
	}
	t = to_time(cycles);
	if (m->outer.valid && t >= m->outer.x0 && t <= m->outer.x1) {
		/* (outside every piece's messages: no span there) */
		return clock_ns_counted(m, m->clock, outer_est(m, t), 0);
	}
	if (!m->span.valid || t < m->span.x0 || t > m->span.x1) {
		/* (the span's est is est_at()'s: the middle of the
		 * bounds, inside a piece's messages) */
		ht_fit_set_map_span(m->run->sync, (unsigned)m->node, t,
				    &m->span);
	}
	if (m->span.valid) {
		est = ht_fit_span_est(&m->span, t);
	} else {
		if (!m->outer.valid || t < m->outer.x0 || t > m->outer.x1) {
			outer_span(m, t);
		}
		if (m->outer.valid && t >= m->outer.x0 && t <= m->outer.x1) {
			est = outer_est(m, t);
		} else if (est_at(m->run->sync, (unsigned)m->node, t, &est,
				  NULL, NULL)) {
			return INT64_MIN;
		}
	}
	return clock_ns_counted(m, m->clock, est, 0);
}

/* map_cycles() of @cycles[i] into @ns[i]: the times in a span of the
 * fit together. */
static void map_many(void *arg, const uint64_t *cycles, int64_t *ns, size_t n)
{
	struct core_map *m = arg;
	int64_t t[256];
	size_t i, k, c, done, j;

	for (i = 0; i < n; i += c) {
		c = n - i < 256 ? n - i : 256;
		if (m->own_clock) {
			for (k = 0; k < c; k++) {
				ns[i + k] = map_cycles(m, cycles[i + k]);
			}
			continue;
		}
		for (k = 0; k < c; k++) {
			t[k] = to_time(cycles[i + k]);
		}
		for (k = 0; k < c; k += done) {
			if (m->outer.valid && t[k] >= m->outer.x0 &&
			    t[k] <= m->outer.x1) {
				/* map_cycles() in the outer span */
				for (done = 0; k + done < c &&
					       t[k + done] >= m->outer.x0 &&
					       t[k + done] <= m->outer.x1;
				     done++) {
					ns[i + k + done] = clock_ns_counted(
					    m, m->clock,
					    outer_est(m, t[k + done]), 0);
				}
				continue;
			}
			if (!m->span.valid || t[k] < m->span.x0 ||
			    t[k] > m->span.x1) {
				/* (a new span, or ht_fit_set_map()) */
				ns[i + k] = map_cycles(m, cycles[i + k]);
				done = 1;
				continue;
			}
			done = ht_fit_span_est_many(&m->span, t + k, ns + i + k,
						    c - k);
			for (j = i + k; j < i + k + done; j++) {
				ns[j] = clock_ns_counted(m, m->clock, ns[j], 0);
			}
		}
	}
}

/* Whether @msg is one of the events with a damaged timestamp. */
static bool is_bad_time(const struct core_map *m,
			const struct ht_merge_event *ev)
{
	const struct ht_capture_bad_time *b = m->bad;
	size_t lo = 0, hi = m->nr_bad;
	uint64_t st = ev->stream, off = ev->offset_bits;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b[mid].stream < st ||
		    (b[mid].stream == st && b[mid].offset_bits < off)) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < m->nr_bad && b[lo].stream == st && b[lo].offset_bits == off;
}

/*
 * A receive stamped with tick r happened in [r, r + 1) of its clock,
 * after its send: when the mapping of r puts it before the send, the
 * event is placed at the send's time, still inside its tick (the fix
 * list only holds receives for which that is possible). Only that very
 * receive moves (other receives of the tick keep their own need); the
 * merge keeps the core's later events at or after it.
 */
static int64_t event_time(void *arg, const struct ht_merge_event *ev,
			  int64_t ns)
{
	struct core_map *m = arg;
	size_t k;

	/* a damaged timestamp: at its predecessor's time (the merge keeps
	 * a stream's events in order), so that it moves no other event */
	if (m->nr_bad && is_bad_time(m, ev)) {
		return INT64_MIN;
	}
	while (m->next < m->nr_fixes && m->fixes[m->next].cycles < ev->cycles) {
		m->next++;
	}
	for (k = m->next; k < m->nr_fixes && m->fixes[k].cycles == ev->cycles;
	     k++) {
		const struct fix *f = &m->fixes[k];

		if (f->stream == ev->stream &&
		    f->offset_bits == ev->offset_bits) {
			int64_t need = clock_ns(m->clock, f->need);

			if (need > ns) {
				ns = need;
			}
			break;
		}
	}
	return ns;
}

/* event_time() of @n events: the common case (no damaged time, no fix
 * at the event's time) without a call. */
static void event_time_many(void *arg, const struct ht_merge_event *ev,
			    int64_t *ns, size_t n)
{
	struct core_map *m = arg;
	size_t i;

	for (i = 0; i < n; i++) {
		if (m->nr_bad || (m->next < m->nr_fixes &&
				  m->fixes[m->next].cycles <= ev[i].cycles)) {
			ns[i] = event_time(m, &ev[i], ns[i]);
		}
	}
}

/* The (hi - lo) / 2 of @node at time @t in ns; -1 when unbounded. */
static double half_width(const struct ht_sync_run *run, size_t node, int64_t t)
{
	int64_t lo, hi;

	if (ht_fit_set_map(run->sync, (unsigned)node, t, NULL, &lo, &hi) ||
	    lo == INT64_MIN || hi == INT64_MAX) {
		return -1;
	}
	/* (in doubles: hi - lo may not fit in int64) */
	return ((double)hi - (double)lo) / 2 * 1e9 /
	       (double)ref_clock(run)->freq_hz;
}

static void widen(double *w, double x)
{
	if (*w < 0) {
		return;
	}
	if (x < 0) {
		*w = -1;
	} else if (x > *w) {
		*w = x;
	}
}

/* The pieces of @i's fit when it has two or more: where each begins on
 * the reference clock, its drift and its offset there (half-widths are
 * widened with the core's). */
static int core_pieces(struct ht_sync_run *run, size_t i,
		       const struct ht_fit_node *fit)
{
	struct ht_sync_run_core *r = &run->cores[i];
	const struct ht_capture_core *c = r->core;
	uint64_t pf = run->cores[fit->parent].core->clock->freq_hz;
	uint64_t cf = c->clock->freq_hz;
	double nominal = pf && cf ? (double)pf / (double)cf : 1.0;
	struct core_map m = {.run = run, .node = i, .clock = ref_clock(run)};
	size_t k;

	r->pieces = calloc(fit->nr_segments, sizeof(*r->pieces));
	if (!r->pieces) {
		return HT_ENOMEM;
	}
	r->nr_pieces = fit->nr_segments;
	for (k = 0; k < fit->nr_segments; k++) {
		const struct ht_fit_segment *g = &fit->segments[k];
		struct ht_sync_run_piece *pc = &r->pieces[k];
		int64_t t = k ? g->begin_x : g->first_x;
		int64_t ns;

		if (!k && c->has_time) {
			t = to_time(c->first_cycles);
		}
		pc->drift_ppm = (g->slope / nominal - 1) * 1e6;
		pc->pairs = g->pairs;
		pc->half_width_ns = r->half_width_ns < 0 ? -1 : 0;
		pc->start_ns = pc->offset_ns = NAN;
		if (t < 0) {
			continue;
		}
		ns = map_cycles(&m, (uint64_t)t);
		if (ns != INT64_MIN) {
			pc->start_ns = (double)ns;
			pc->offset_ns =
			    (double)ns - (double)clock_ns(c->clock, t);
		}
	}
	return 0;
}

/* The piece of @r's fit that holds its time @t. */
static struct ht_sync_run_piece *piece_at(const struct ht_sync_run_core *r,
					  const struct ht_fit_node *fit,
					  int64_t t)
{
	size_t k = 0;

	while (k + 1 < r->nr_pieces && t >= fit->segments[k + 1].begin_x) {
		k++;
	}
	return &r->pieces[k];
}

static int core_figures(struct ht_sync_run *run, size_t i)
{
	struct ht_sync_run_core *r = &run->cores[i];
	const struct ht_capture_core *c = r->core;
	const struct ht_fit_node *fit =
	    ht_fit_set_get_node(run->sync, (unsigned)i);
	size_t k, j;

	r->quality = fit ? fit->quality : HT_FIT_ABSENT;
	r->parent = fit ? fit->parent : -1;
	if (fit) {
		r->drift_ppm = fit->drift_ppm;
		r->pairs_up = fit->pairs_up;
		r->pairs_down = fit->pairs_down;
		r->pairs_used = fit->pairs_used;
		r->pairs_rejected = fit->pairs_rejected;
		r->nr_segments = fit->nr_segments;
	}
	if (r->quality == HT_FIT_ABSENT || r->quality == HT_FIT_FAIL) {
		r->unsynced = true;
		r->half_width_ns = -1;
		r->offset_ns = NAN;
		run->nr_unsynced++;
		return 0;
	}
	if (c->has_time) {
		struct core_map m = {
		    .run = run, .node = i, .clock = ref_clock(run)};
		int64_t t = to_time(c->first_cycles);

		r->offset_ns = (double)map_cycles(&m, c->first_cycles) -
			       (double)clock_ns(c->clock, t);
	}
	/* the bound width at the times of the core's messages */
	r->half_width_ns = 0;
	if (fit && fit->parent >= 0 && fit->nr_segments > 1) {
		int ret = core_pieces(run, i, fit);

		if (ret) {
			return ret;
		}
	}
	for (k = 0; k < ht_capture_reader_nr_links(run->cap); k++) {
		const struct ht_capture_link *l =
		    ht_capture_reader_link_at(run->cap, k);
		size_t step;

		if (l->from != i && l->to != i) {
			continue;
		}
		step = l->nr_pairs / WIDTH_SAMPLES + 1;
		for (j = 0; j < l->nr_pairs; j += step) {
			const struct ht_capture_pair *p = &l->pairs[j];
			int64_t t = to_time(l->from == i ? p->send : p->recv);
			double w = half_width(run, i, t);

			widen(&r->half_width_ns, w);
			if (r->nr_pieces) {
				widen(&piece_at(r, fit, t)->half_width_ns, w);
			}
		}
	}
	return 0;
}

static int cmp_fix(const void *a, const void *b)
{
	const struct fix *x = a, *y = b;

	if (x->cycles != y->cycles) {
		return x->cycles < y->cycles ? -1 : 1;
	}
	if (x->stream != y->stream) {
		return x->stream < y->stream ? -1 : 1;
	}
	return (x->offset_bits > y->offset_bits) -
	       (x->offset_bits < y->offset_bits);
}

static int add_fix(struct ht_sync_run *run, size_t core,
		   const struct ht_capture_pair *p, int64_t need)
{
	struct ht_sync_run_core *r = &run->cores[core];
	struct fix *f;

	if (ht_array_reserve(&r->fixes, &r->cap_fixes, r->nr_fixes + 1,
			     sizeof(struct fix))) {
		return HT_ENOMEM;
	}
	f = &((struct fix *)r->fixes)[r->nr_fixes];
	f->cycles = p->recv;
	f->need = need;
	f->offset_bits = p->recv_offset_bits;
	f->stream = p->recv_stream;
	r->nr_fixes++;
	return 0;
}

/*
 * Messages that the mapping puts before their send: moved within the
 * receive's tick when possible (a coarse clock), else counted.
 */
/* Pair @p of link @l, mapped: counted as a violation when it is still
 * received before it was sent, or fixed when its receive's tick allows
 * (a kept reference clock is never moved: @keep). */
static int check_pair(struct ht_sync_run *run, const struct ht_capture_link *l,
		      const struct ht_capture_pair *p, bool keep)
{
	int64_t s, r, r_next;
	int ret;

	if (est_at(run->sync, (unsigned)l->from, to_time(p->send), &s, NULL,
		   NULL) ||
	    est_at(run->sync, (unsigned)l->to, to_time(p->recv), &r, NULL,
		   NULL)) {
		return 0;
	}
	if (r >= s) {
		return 0;
	}
	if (!(keep && l->to == run->reference) &&
	    !est_at(run->sync, (unsigned)l->to, to_time(p->recv + 1), &r_next,
		    NULL, NULL) &&
	    s < r_next) {
		ret = add_fix(run, l->to, p, s);
		if (ret) {
			return ret;
		}
		run->cores[l->to].order_fixed++;
		return 0;
	}
	run->cores[l->from].order_violations++;
	run->cores[l->to].order_violations++;
	return 0;
}

/* The fixes of core @r by cycles, then by receive: one entry per
 * receive, the latest need. */
static void sort_fixes(struct ht_sync_run_core *r)
{
	struct fix *f = r->fixes;
	size_t j, n = 0;

	if (!r->nr_fixes) {
		return;
	}
	qsort(f, r->nr_fixes, sizeof(*f), cmp_fix);
	for (j = 0; j < r->nr_fixes; j++) {
		if (!n || cmp_fix(&f[n - 1], &f[j])) {
			f[n++] = f[j];
		} else if (f[j].need > f[n - 1].need) {
			f[n - 1].need = f[j].need;
		}
	}
	r->nr_fixes = n;
}

static int order_check(struct ht_sync_run *run)
{
	bool keep = run->cores[run->reference].core->is_lttng;
	size_t k, j;
	int ret;

	for (k = 0; k < ht_capture_reader_nr_links(run->cap); k++) {
		const struct ht_capture_link *l =
		    ht_capture_reader_link_at(run->cap, k);

		if (run->cores[l->from].unsynced ||
		    run->cores[l->to].unsynced) {
			continue;
		}
		for (j = 0; j < l->nr_pairs; j++) {
			ret = check_pair(run, l, &l->pairs[j], keep);
			if (ret) {
				return ret;
			}
		}
	}
	for (k = 0; k < run->nr_cores; k++) {
		sort_fixes(&run->cores[k]);
	}
	return 0;
}

/*
 * The cores the capture knows of and that cannot be read: an error
 * naming them unless @allow (then they are left out, named in the
 * notes, the env and the report).
 */
static int check_missing(const struct ht_capture_reader *cap, bool allow,
			 char *err, size_t err_len)
{
	size_t n = ht_capture_reader_nr_missing(cap), i;
	const struct ht_capture_missing *m = ht_capture_reader_missing(cap, 0);
	uint64_t more = ht_capture_reader_nr_missing_dropped(cap);
	int len;

	if (!n || allow) {
		return 0;
	}
	len = snprintf(err, err_len, "core %s cannot be read: %s: %s", m->name,
		       m->file, m->why);
	for (i = 1; i < n && i < 4 && len >= 0 && (size_t)len < err_len; i++) {
		m = ht_capture_reader_missing(cap, i);
		len += snprintf(err + len, err_len - (size_t)len,
				"; core %s: %s: %s", m->name, m->file, m->why);
	}
	if (len >= 0 && (size_t)len < err_len && (n > 4 || more)) {
		len += snprintf(err + len, err_len - (size_t)len,
				"; and %" PRIu64 " more core(s)",
				(uint64_t)(n > 4 ? n - 4 : 0) + more);
	}
	if (len >= 0 && (size_t)len < err_len) {
		snprintf(err + len, err_len - (size_t)len,
			 " (--allow-unsynced leaves %s out)",
			 n + more > 1 ? "them" : "it");
	}
	return HT_EFORMAT;
}

static long pick_reference(const struct ht_capture_reader *cap,
			   const char *name, char *err, size_t err_len)
{
	size_t i, n = ht_capture_reader_nr_cores(cap);
	long r;

	if (name) {
		r = ht_capture_reader_find_core(cap, name);
		if (r < 0) {
			snprintf(err, err_len,
				 "--reference %s: no core of that name in "
				 "the capture",
				 name);
		}
		return r;
	}
	/* the root master: a master with no master of its own */
	for (i = 0; i < n; i++) {
		const struct ht_capture_core *c =
		    ht_capture_reader_core(cap, i);

		if (c->is_master && !c->master_name) {
			return (long)i;
		}
	}
	for (i = 0; i < n; i++) {
		if (!ht_capture_reader_core(cap, i)->master_name) {
			return (long)i;
		}
	}
	return 0;
}

/* What the merge needs of core @i: its trace and identity (@mc), its
 * map (@map) and its quality for the env (*@quality, to free). */
static int merge_core(struct ht_sync_run *run, size_t i,
		      struct ht_merge_core *mc, struct core_map *map,
		      char **quality)
{
	const struct ht_capture_core *c = run->cores[i].core;
	const char *q = ht_fit_quality_name(run->cores[i].quality);

	map->run = run;
	map->node = i;
	map->own_clock = run->cores[i].unsynced;
	map->clock = map->own_clock ? c->clock : ref_clock(run);
	if (map->clock && map->clock->freq_hz == NS_PER_S) {
		const __int128 o = clock_ns_wide(map->clock, 0);

		map->ns_clock = o >= INT64_MIN && o <= INT64_MAX;
		map->ns_origin = map->ns_clock ? (int64_t)o : 0;
	}
	map->fixes = run->cores[i].fixes;
	map->nr_fixes = run->cores[i].nr_fixes;
	map->bad = c->bad_times;
	map->nr_bad = c->nr_bad_times;
	mc->path = c->trace->path;
	mc->name = c->name;
	mc->id = c->id;
	mc->role = c->is_master ? "master" : c->master_name ? "slave" : NULL;
	mc->master = c->master_name;
	mc->map = map_cycles;
	mc->map_many = map_many;
	mc->event_time = event_time;
	mc->event_time_many = event_time_many;
	mc->map_arg = map;
	mc->clock_hz = c->clock ? c->clock->freq_hz : 0;
	*quality = malloc(strlen(q) + 32);
	if (!*quality) {
		return HT_ENOMEM;
	}
	sprintf(*quality, "%s%s", q,
		run->cores[i].unsynced ? " (unsynchronized: own clock)" : "");
	mc->sync = *quality;
	return 0;
}

/*
 * The LTTng clock is kept: an unsynchronized core (on request) starts
 * with the reference's first event, not at the clock's origin (the
 * Unix epoch for LTTng).
 */
static void shift_unsynced(struct ht_sync_run *run, struct core_map *maps)
{
	const struct ht_capture_core *rc = run->cores[run->reference].core;
	/* (a reference without events: its clock's origin) */
	int64_t start =
	    rc->has_time ? map_cycles(&maps[run->reference], rc->first_cycles)
			 : clock_ns(ref_clock(run), 0);
	size_t i;

	for (i = 0; i < run->nr_cores; i++) {
		const struct ht_capture_core *c = run->cores[i].core;

		if (maps[i].own_clock && c->has_time) {
			maps[i].shift_ns =
			    sat((__int128)start -
				map_cycles(&maps[i], c->first_cycles));
		}
	}
}

/* The env entries the sync adds (@env has room for the reference
 * trace's entries + 4); returns their number. */
static size_t merge_env(const struct ht_sync_run *run, bool keep,
			const char *unsynced, const char *missing,
			struct ht_merge_env *env)
{
	const struct ht_ctf_trace *ref_trace =
	    run->cores[run->reference].core->trace;
	size_t i, nr_env = 0;

	env[nr_env].name = "sync_method";
	env[nr_env].str = "convex hull (hetrace sync): estimate = mean of the "
			  "min- and max-slope lines";
	nr_env++;
	if (unsynced) {
		env[nr_env].name = "sync_unsynced_cores";
		env[nr_env].str = unsynced;
		nr_env++;
	}
	if (missing) {
		env[nr_env].name = "sync_missing_cores";
		env[nr_env].str = missing;
		nr_env++;
	}
	if (keep) {
		env[nr_env].name = "sync_reference_lttng";
		env[nr_env].str = ref_trace->path;
		nr_env++;
		/* the LTTng trace's own env (hostname, tracer, ...) as is */
		for (i = 0; i < ref_trace->nr_env; i++) {
			const struct ht_ctf_env_entry *e = &ref_trace->env[i];

			env[nr_env].name = e->name;
			env[nr_env].str = e->is_string ? e->str : NULL;
			env[nr_env].i = e->i;
			nr_env++;
		}
	}
	return nr_env;
}

/* A problem the merge meets (the kernel trace's: the scan did not
 * read it), kept with the capture's notes. */
static void kernel_note(void *arg, const char *msg)
{
	struct ht_sync_run *run = arg;

	ht__capture_reader_note(run->cap, "%s", msg);
}

static int merge(struct ht_sync_run *run, const struct ht_sync_run_opts *o,
		 char *err, size_t err_len)
{
	size_t n = run->nr_cores, i;
	struct ht_merge_core *mc = calloc(n + 1, sizeof(*mc));
	struct core_map *maps = calloc(n, sizeof(*maps));
	char **quality = calloc(n, sizeof(*quality));
	struct ht_merge_opts mo = {0};
	struct ht_merge_env *env = NULL;
	bool keep = run->cores[run->reference].core->is_lttng;
	struct ht_buf unsynced = {0}, missing = {0};
	int64_t first = INT64_MAX;
	int ret = HT_ENOMEM;

	env = calloc(run->cores[run->reference].core->trace->nr_env + 4,
		     sizeof(*env));
	if (!mc || !maps || !quality || !env) {
		goto free_all;
	}
	for (i = 0; i < n; i++) {
		const struct ht_capture_core *c = run->cores[i].core;

		ret = merge_core(run, i, &mc[i], &maps[i], &quality[i]);
		if (ret) {
			goto free_all;
		}
		if (run->cores[i].unsynced) {
			ht_buf_printf(&unsynced, "%s%s",
				      unsynced.len ? "," : "", c->name);
		}
		if (c->has_time) {
			int64_t t = map_cycles(&maps[i], c->first_cycles);

			if (t < first) {
				first = t;
			}
		}
	}
	for (i = 0; i < ht_capture_reader_nr_missing(run->cap); i++) {
		ht_buf_printf(&missing, "%s%s", missing.len ? "," : "",
			      ht_capture_reader_missing(run->cap, i)->name);
	}
	if (unsynced.nomem || missing.nomem) {
		ret = HT_ENOMEM;
		goto free_all;
	}
	/* (first is not used with a kept clock) */
	if (keep) {
		shift_unsynced(run, maps);
	}
	mo.out_dir = o->out_dir;
	mo.overwrite = o->overwrite;
	mo.packet_bytes = o->packet_bytes;
	mo.reference = run->cores[run->reference].core->name;
	mo.ref_clock = ref_clock(run);
	mo.keep_ref_clock = keep;
	mo.origin_s =
	    first == INT64_MAX ? 0 : (int64_t)floor_div(first, NS_PER_S);
	mo.env = env;
	mo.nr_env = merge_env(run, keep, unsynced.data, missing.data, env);
	/* the scan read the same files and noted the same damage */
	mo.note = NULL;
	if (run->kernel) {
		/* the master's CPUs, through the master's mapping */
		mc[n] = mc[run->kernel_master];
		mc[n].path = run->kernel->path;
		mc[n].id = HT_SYNC_KERNEL_CORE_ID;
		mc[n].role = "kernel";
		mc[n].master = mc[run->kernel_master].name;
		mc[n].sync = NULL;
		mc[n].clock_hz = 0;
		mc[n].event_time = NULL;
		mc[n].event_time_many = NULL;
		mc[n].per_cpu = true;
		/* its losses and damage are told as the merge meets them */
		mo.note = kernel_note;
		mo.note_arg = run;
	}
	ret = ht_merge_run(mc, n + (run->kernel != NULL), &mo, &run->merge, err,
			   err_len);
	if (!ret) {
		run->merged = true;
		if (run->merge.damaged > run->damaged) {
			run->damaged = run->merge.damaged;
		}
		for (i = 0; i < n; i++) {
			run->cores[i].saturated = maps[i].saturated;
			run->saturated += maps[i].saturated;
		}
	}
free_all:
	if (quality) {
		for (i = 0; i < n; i++) {
			free(quality[i]);
		}
	}
	free(quality);
	ht_buf_fini(&unsynced);
	ht_buf_fini(&missing);
	free(env);
	free(maps);
	free(mc);
	return ret;
}

/* The cores' clocks and every pair of the capture into the sync set. */
static int add_messages(struct ht_sync_run *run,
			const struct ht_sync_run_opts *o, char *err,
			size_t err_len)
{
	size_t i, j, k;
	int ret;

	for (i = 0; i < run->nr_cores; i++) {
		const struct ht_capture_core *c =
		    ht_capture_reader_core(run->cap, i);

		run->cores[i].core = c;
		run->damaged += c->problems[HT_CAPTURE_DAMAGED];
		run->bad_times += c->problems[HT_CAPTURE_BAD_TIME];
		ht_fit_set_node_rate(run->sync, (unsigned)i, c->clock->freq_hz);
	}
	for (k = 0; k < ht_capture_reader_nr_links(run->cap); k++) {
		const struct ht_capture_link *l =
		    ht_capture_reader_link_at(run->cap, k);

		for (j = 0; j < l->nr_pairs; j++) {
			ret = ht_fit_set_add_message(
			    run->sync, (unsigned)l->from, (unsigned)l->to,
			    to_time(l->pairs[j].send),
			    to_time(l->pairs[j].recv));
			if (ret) {
				snprintf(err, err_len, "%s: %s", o->capture,
					 ht_fit_set_last_error(run->sync));
				return ret;
			}
		}
	}
	return 0;
}

int ht_sync_run(const struct ht_sync_run_opts *o, struct ht_sync_run **out,
		char *err, size_t err_len)
{
	struct ht_capture_reader_opts co = {0};
	struct ht_sync_run *run;
	size_t i;
	long ref;
	int ret;

	*out = NULL;
	run = calloc(1, sizeof(*run));
	if (!run) {
		return HT_ENOMEM;
	}
	co.dir = o->capture;
	co.lttng_dir = o->lttng_dir;
	co.lttng_core = o->lttng_core;
	ret = ht_capture_reader_open_opts(&run->cap, &co, err, err_len);
	if (!ret) {
		ret = check_missing(run->cap, o->allow_unsynced, err, err_len);
	}
	if (ret) {
		goto free_run;
	}
	ref = pick_reference(run->cap, o->reference, err, err_len);
	if (ref < 0) {
		ret = HT_ENOTFOUND;
		goto free_run;
	}
	run->reference = (size_t)ref;
	ret = ht_capture_reader_scan(run->cap);
	if (ret) {
		snprintf(err, err_len, "%s: %s", o->capture, ht_strerror(ret));
		goto free_run;
	}
	/* (the scan finds the core ids that events name) */
	ret = check_missing(run->cap, o->allow_unsynced, err, err_len);
	if (ret) {
		goto free_run;
	}
	run->nr_cores = ht_capture_reader_nr_cores(run->cap);
	run->cores = calloc(run->nr_cores, sizeof(*run->cores));
	run->sync = ht_fit_set_create((unsigned)run->nr_cores);
	if (!run->cores || !run->sync) {
		ret = HT_ENOMEM;
		goto free_run;
	}
	ret = add_messages(run, o, err, err_len);
	if (ret) {
		goto free_run;
	}
	ret = ht_fit_set_solve(run->sync, (unsigned)run->reference, NULL);
	if (ret) {
		snprintf(err, err_len, "%s: %s", o->capture,
			 ht_fit_set_last_error(run->sync));
		goto free_run;
	}
	for (i = 0; i < run->nr_cores; i++) {
		ret = core_figures(run, i);
		if (ret) {
			snprintf(err, err_len, "%s", ht_strerror(ret));
			goto free_run;
		}
	}
	ret = order_check(run);
	if (ret) {
		goto free_run;
	}
	run->kernel = ht_capture_reader_kernel(run->cap);
	if (run->kernel) {
		ret = ht_sync_kernel_master(run, run->kernel, o->lttng_core,
					    &run->kernel_master, err, err_len);
		if (ret) {
			goto free_run;
		}
	}
	if (o->out_dir && (!run->nr_unsynced || o->allow_unsynced)) {
		ret = merge(run, o, err, err_len);
		if (ret) {
			goto free_run;
		}
	}
	*out = run;
	return 0;
free_run:
	ht_sync_run_free(run);
	return ret;
}

void ht_sync_run_free(struct ht_sync_run *run)
{
	if (!run) {
		return;
	}
	ht_fit_set_destroy(run->sync);
	ht_capture_reader_close(run->cap);
	if (run->cores) {
		size_t i;

		for (i = 0; i < run->nr_cores; i++) {
			free(run->cores[i].fixes);
			free(run->cores[i].pieces);
		}
	}
	free(run->cores);
	free(run);
}

/* ------------------------------------------------------------------ */
/* JSON report                                                         */

static void json_line(struct ht_json *j, const struct ht_fit_line *l)
{
	if (!l->valid) {
		ht_json_raw(j, "null");
		return;
	}
	ht_json_printf(j,
		       "{\"x0\": %" PRId64 ", \"y0\": %" PRId64
		       ", \"x1\": %" PRId64 ", \"y1\": %" PRId64
		       ", \"slope\": ",
		       l->x0, l->y0, l->x1, l->y1);
	ht_json_double(j, ht_fit_line_slope(l));
	ht_json_raw(j, ", \"offset\": ");
	ht_json_double(j, ht_fit_line_offset(l));
	ht_json_raw(j, "}");
}

static void json_x(struct ht_json *j, int64_t x)
{
	if (x == INT64_MIN || x == INT64_MAX) {
		ht_json_raw(j, "null");
	} else {
		ht_json_i64(j, x);
	}
}

/*
 * Writes a fit's "min_line", "max_line", "slope" and "offset" values,
 * from the min_line value on (the caller writes its key); the keys after
 * it start a line indented by @indent, and "slope" too if @slope_on_new_line.
 */
static void json_estimate(struct ht_json *j, const struct ht_fit_line *min,
			  const struct ht_fit_line *max, double slope,
			  double offset, const char *indent,
			  bool slope_on_new_line)
{
	json_line(j, min);
	ht_json_printf(j, ",\n%s\"max_line\": ", indent);
	json_line(j, max);
	if (slope_on_new_line) {
		ht_json_printf(j, ",\n%s\"slope\": ", indent);
	} else {
		ht_json_raw(j, ", \"slope\": ");
	}
	ht_json_double(j, slope);
	ht_json_raw(j, ", \"offset\": ");
	ht_json_double(j, offset);
}

/* Pairs as [child time, parent time] points, at most @max. */
static void json_pairs(struct ht_json *j, const struct ht_capture_link *l,
		       bool up, size_t max)
{
	size_t k, step, n = 0;

	ht_json_raw(j, "[");
	if (l && l->nr_pairs) {
		step = max && l->nr_pairs > max ? (l->nr_pairs + max - 1) / max
						: 1;
		for (k = 0; k < l->nr_pairs; k += step) {
			const struct ht_capture_pair *p = &l->pairs[k];

			/* up: child sends, parent receives; down: reverse */
			ht_json_printf(j, "%s[%" PRIu64 ", %" PRIu64 "]",
				       n++ ? ", " : "", up ? p->send : p->recv,
				       up ? p->recv : p->send);
		}
	}
	ht_json_raw(j, "]");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Adds the child-side times of a link's pairs (every step-th) to @t. */
static size_t pair_times(const struct ht_capture_link *l, bool child_sends,
			 size_t max, uint64_t *t)
{
	size_t j, n = 0, step;

	if (!l || !l->nr_pairs) {
		return 0;
	}
	step = max && l->nr_pairs > max ? (l->nr_pairs + max - 1) / max : 1;
	for (j = 0; j < l->nr_pairs; j += step) {
		t[n++] = child_sends ? l->pairs[j].send : l->pairs[j].recv;
	}
	return n;
}

/*
 * The bounds over the core's trace, in reference ns: evenly spaced
 * times from its first to its last event, and the times of its
 * messages with its parent (where lo and hi have their corners).
 */
static void json_bounds(const struct ht_sync_run *run, struct ht_json *j,
			size_t i, size_t max_pairs)
{
	const struct ht_sync_run_core *r = &run->cores[i];
	const struct ht_capture_core *c = r->core;
	const struct ht_ctf_clock *rk = ref_clock(run);
	const struct ht_capture_link *down = NULL, *up = NULL;
	uint64_t a = c->first_cycles, b = c->last_cycles, *t;
	size_t n = 0, cap = BOUND_SAMPLES + 2, s, k = 0;

	if (r->parent >= 0) {
		down = ht_capture_reader_link(run->cap, (size_t)r->parent, i);
		up = ht_capture_reader_link(run->cap, i, (size_t)r->parent);
		cap += (down ? down->nr_pairs : 0) + (up ? up->nr_pairs : 0);
	}
	t = malloc(cap * sizeof(*t));
	if (!t) {
		ht_json_raw(j, ",\n     \"bounds\": null");
		return;
	}
	for (s = 0; s < BOUND_SAMPLES; s++) {
		t[n++] =
		    a + (uint64_t)((double)(b - a) * s / (BOUND_SAMPLES - 1));
	}
	t[n++] = b;
	n += pair_times(down, false, max_pairs, t + n);
	n += pair_times(up, true, max_pairs, t + n);
	qsort(t, n, sizeof(*t), cmp_u64);
	ht_json_raw(j, ",\n     \"bounds\": [");
	for (s = 0; s < n; s++) {
		int64_t est, lo, hi;

		if ((s && t[s] == t[s - 1]) ||
		    est_at(run->sync, (unsigned)i, to_time(t[s]), &est, &lo,
			   &hi)) {
			continue;
		}
		ht_json_printf(j, "%s[%" PRIu64 ", ", k++ ? ", " : "", t[s]);
		json_x(j, lo == INT64_MIN ? lo : clock_ns(rk, lo));
		ht_json_printf(j, ", %" PRId64 ", ", clock_ns(rk, est));
		json_x(j, hi == INT64_MAX ? hi : clock_ns(rk, hi));
		ht_json_raw(j, "]");
	}
	ht_json_raw(j, "]");
	free(t);
}

static void json_core(const struct ht_sync_run *run, struct ht_json *j,
		      size_t i, size_t max_pairs)
{
	const struct ht_sync_run_core *r = &run->cores[i];
	const struct ht_capture_core *c = r->core;
	const struct ht_fit_node *fit =
	    ht_fit_set_get_node(run->sync, (unsigned)i);
	size_t p, s;

	ht_json_raw(j, "    {\"name\": ");
	ht_json_str(j, c->name);
	ht_json_printf(j, ", \"id\": %" PRIu32 ", \"role\": ", c->id);
	ht_json_str(j, c->is_master ? "master" : c->master_name ? "slave" : "");
	ht_json_raw(j, ",\n     \"clock\": {\"name\": ");
	ht_json_str(j, c->clock->name);
	ht_json_printf(j, ", \"freq_hz\": %" PRIu64 "}", c->clock->freq_hz);
	ht_json_raw(j, ",\n     \"quality\": ");
	ht_json_str(j, ht_fit_quality_name(r->quality));
	ht_json_printf(j, ", \"unsynced\": %s, \"parent\": ",
		       r->unsynced ? "true" : "false");
	if (r->parent >= 0) {
		ht_json_str(j, run->cores[r->parent].core->name);
	} else {
		ht_json_raw(j, "null");
	}
	ht_json_raw(j, ", \"drift_ppm\": ");
	ht_json_double(j, r->drift_ppm);
	ht_json_raw(j, ", \"offset_ns\": ");
	ht_json_double(j, r->offset_ns);
	ht_json_raw(j, ", \"half_width_ns\": ");
	ht_json_double(j, r->half_width_ns < 0 ? NAN : r->half_width_ns);
	ht_json_printf(j,
		       ",\n     \"pairs_up\": %zu, \"pairs_down\": %zu, "
		       "\"pairs_used\": %zu, \"pairs_rejected\": %zu, "
		       "\"order_violations\": %" PRIu64
		       ", \"order_fixed\": %" PRIu64,
		       r->pairs_up, r->pairs_down, r->pairs_used,
		       r->pairs_rejected, r->order_violations, r->order_fixed);
	ht_json_printf(j,
		       ",\n     \"events\": %" PRIu64
		       ", \"sync_events\": %" PRIu64
		       ", \"discarded_events\": %" PRIu64
		       ", \"lost_packets\": %" PRIu64 ", \"problems\": {",
		       c->nr_events, c->nr_sync_events, c->discarded_events,
		       c->lost_packets);
	for (p = 0; p < HT_CAPTURE_NR_PROBLEMS; p++) {
		ht_json_raw(j, p ? ", " : "");
		ht_json_str(j, ht_capture_problem_name(p));
		ht_json_printf(j, ": %" PRIu64, c->problems[p]);
	}
	ht_json_raw(j, "}");
	if (fit && r->parent >= 0 && !r->unsynced) {
		size_t pa = (size_t)r->parent;

		ht_json_printf(
		    j,
		    ",\n     \"fit\": {\"x\": \"%s clock (cycles)\", "
		    "\"y\": \"%s clock (cycles)\", "
		    "\"estimate\": \"mean of the min- and max-slope "
		    "lines\",\n      \"min_line\": ",
		    c->name, run->cores[pa].core->name);
		json_estimate(j, &fit->min_line, &fit->max_line, fit->slope,
			      fit->offset, "      ", true);
		ht_json_printf(
		    j, ", \"width_max\": %" PRId64 ",\n      \"segments\": [",
		    fit->width_max);
		for (s = 0; s < fit->nr_segments; s++) {
			const struct ht_fit_segment *g = &fit->segments[s];

			ht_json_printf(
			    j, "%s\n       {\"begin_x\": ", s ? "," : "");
			json_x(j, g->begin_x);
			ht_json_raw(j, ", \"end_x\": ");
			json_x(j, g->end_x);
			ht_json_printf(
			    j,
			    ", \"first_x\": %" PRId64 ", \"last_x\": %" PRId64
			    ", \"pairs\": %zu, \"width_max\": %" PRId64
			    ",\n        \"min_line\": ",
			    g->first_x, g->last_x, g->pairs, g->width_max);
			json_estimate(j, &g->min_line, &g->max_line, g->slope,
				      g->offset, "        ", false);
			ht_json_raw(j, "}");
		}
		ht_json_raw(j, "],\n      \"lower\": ");
		json_pairs(j, ht_capture_reader_link(run->cap, pa, i), false,
			   max_pairs);
		ht_json_raw(j, ",\n      \"upper\": ");
		json_pairs(j, ht_capture_reader_link(run->cap, i, pa), true,
			   max_pairs);
		ht_json_raw(j, "}");
	}
	if (!r->unsynced && c->has_time) {
		json_bounds(run, j, i, max_pairs);
	}
	ht_json_raw(j, "}");
}

int ht_sync_run_write_json(const struct ht_sync_run *run, FILE *f,
			   size_t max_pairs)
{
	struct ht_json j = {.f = f};
	size_t i;

	fputs("{\n  \"version\": 1,\n  \"reference\": ", f);
	ht_json_str(&j, run->cores[run->reference].core->name);
	fputs(",\n  \"bounds\": \"[core cycles, lo ns, estimate ns, hi ns] "
	      "on the reference clock\",\n",
	      f);
	fprintf(
	    f,
	    "  \"merged\": %s, \"events\": %" PRIu64
	    ", \"events_copied\": %" PRIu64 ", \"damaged_packets\": %" PRIu64
	    ", \"damaged_timestamps\": %" PRIu64
	    ", \"saturated_times\": %" PRIu64 ",\n  \"missing_cores\": [",
	    run->merged ? "true" : "false", run->merge.events,
	    run->merge.copied, run->damaged, run->bad_times, run->saturated);
	for (i = 0; i < ht_capture_reader_nr_missing(run->cap); i++) {
		const struct ht_capture_missing *m =
		    ht_capture_reader_missing(run->cap, i);

		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
		ht_json_str(&j, m->name);
		fputs(", \"file\": ", f);
		ht_json_str(&j, m->file);
		fputs(", \"why\": ", f);
		ht_json_str(&j, m->why);
		fputs("}", f);
	}
	fputs(i ? "\n  ],\n  \"cores\": [\n" : "],\n  \"cores\": [\n", f);
	for (i = 0; i < run->nr_cores; i++) {
		json_core(run, &j, i, max_pairs);
		fputs(i + 1 < run->nr_cores ? ",\n" : "\n", f);
	}
	fputs("  ]\n}\n", f);
	return ferror(f) ? HT_EIO : 0;
}
