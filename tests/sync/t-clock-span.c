/* SPDX-License-Identifier: MIT */
/*
 * host/sync/clock-span.c against ht_fit_set_map(): on synthetic clocks
 * (synth.h) of every kind of rate, with a rate step (two pieces), in a
 * tree (a node two edges away has no span) and one-sided (no span),
 * every time of a span maps to ht_fit_set_map()'s est exactly: at its
 * ends, next to them and at random times in it, and the times of one
 * span step by step (the merge's use: a span per core, events close
 * together). Outside the messages (before the first piece, after the
 * last), ht_fit_set_outer_span()'s bounds are ht_fit_set_map()'s lo and
 * hi, near the messages and far away.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "host/sync/clock-fit.h"
#include "synth.h"
#include "tests/check.h"

#define NS_PER_S 1000000000LL

static const struct s_round handshake = {
    .min_ns = 400,
    .mean_ns = 1500,
    .isr_ns = 2000,
};

static uint64_t nr_spans, nr_checked;

/* times of one span and their ests, for check_many() */
#define MANY 4096
static int64_t many_t[MANY], many_est[MANY];
static size_t nr_many;

/* ht_fit_span_est() of @sp at @t against ht_fit_set_map() */
static void check_at(const struct ht_fit_set *set, unsigned node,
		     const struct ht_fit_span *sp, int64_t t, const char *what)
{
	int64_t est = 0;

	if (t < sp->x0 || t > sp->x1) {
		return;
	}
	CHECK_MSG(ht_fit_set_map(set, node, t, &est, NULL, NULL) == 0,
		  "%s: map %" PRId64, what, t);
	CHECK_MSG(ht_fit_span_est(sp, t) == est,
		  "%s: node %u at %" PRId64 ": span %" PRId64 ", map %" PRId64,
		  what, node, t, ht_fit_span_est(sp, t), est);
	nr_checked++;
	/* the merge's batches: the same times among others */
	if (nr_many < MANY) {
		many_t[nr_many] = t;
		many_est[nr_many++] = est;
	}
}

/* ht_fit_span_est_many() of the times check_at() saw for @sp (in the
 * order seen, then reversed) against their ht_fit_set_map() ests. */
static void check_many(const struct ht_fit_span *sp, const char *what)
{
	static int64_t t[MANY], est[MANY];
	size_t i, n = nr_many;

	for (i = 0; i < n; i++) {
		t[n - 1 - i] = many_t[i];
	}
	CHECK_MSG(ht_fit_span_est_many(sp, many_t, est, n) == n,
		  "%s: est_many stopped early", what);
	for (i = 0; i < n; i++) {
		CHECK_MSG(est[i] == many_est[i],
			  "%s: est_many at %" PRId64 ": %" PRId64
			  ", map %" PRId64,
			  what, many_t[i], est[i], many_est[i]);
	}
	CHECK_MSG(ht_fit_span_est_many(sp, t, est, n) == n,
		  "%s: est_many stopped early", what);
	for (i = 0; i < n; i++) {
		CHECK_MSG(est[i] == many_est[n - 1 - i],
			  "%s: est_many at %" PRId64 ": %" PRId64
			  ", map %" PRId64,
			  what, t[i], est[i], many_est[n - 1 - i]);
	}
	/* a time past the span ends the batch */
	if (n && sp->x1 < INT64_MAX) {
		t[n / 2] = sp->x1 + 1;
		CHECK(ht_fit_span_est_many(sp, t, est, n) == n / 2);
	}
	nr_checked += 2 * n;
	nr_many = 0;
}

/*
 * Bounds [@slo, @shi] of span @sp at @t (@how: how they were computed)
 * against ht_fit_set_map()'s.
 */
static void check_same_as_map(const struct ht_fit_set *set, unsigned node,
			      int64_t t, int64_t slo, int64_t shi,
			      const char *how, const char *what)
{
	int64_t lo = 0, hi = 0;

	CHECK_MSG(ht_fit_set_map(set, node, t, NULL, &lo, &hi) == 0,
		  "%s: map %" PRId64, what, t);
	CHECK_MSG(slo == lo && shi == hi,
		  "%s: node %u at %" PRId64 ": %s [%" PRId64 ", %" PRId64
		  "], map [%" PRId64 ", %" PRId64 "]",
		  what, node, t, how, slo, shi, lo, hi);
	nr_checked++;
}

/* ht_fit_span_bounds() of outer span @sp at @t against ht_fit_set_map() */
static void check_bounds_at(const struct ht_fit_set *set, unsigned node,
			    const struct ht_fit_span *sp, int64_t t,
			    const char *what)
{
	int64_t slo, shi;

	if (t < sp->x0 || t > sp->x1) {
		return;
	}
	ht_fit_span_bounds(sp, t, &slo, &shi);
	check_same_as_map(set, node, t, slo, shi, "span", what);
}

/* The bounds of span @sp at @t from its lines in fixed point: as
 * ht_fit_set_map()'s */
static void check_fixed_at(const struct ht_fit_set *set, unsigned node,
			   const struct ht_fit_span *sp, int64_t t,
			   const char *what)
{
	const uint64_t e = (uint64_t)t - (uint64_t)sp->x0;
	int64_t flo, fhi;
	uint64_t r;

	if (t < sp->x0 || t > sp->x1) {
		return;
	}
	flo = ht_fit_span_fixed_at(&sp->lo_fixed, e, &r);
	flo = flo > sp->lo_min ? flo : sp->lo_min;
	fhi = ht_fit_span_fixed_at(&sp->hi_fixed, e, &r) + (r != 0);
	fhi = fhi < sp->hi_max ? fhi : sp->hi_max;
	check_same_as_map(set, node, t, flo, fhi, "fixed", what);
}

/* Outer span @sp narrowed around @t (as the merge narrows it): its lines
 * in fixed point, checked at its ends, near @t and at random times. */
static void check_narrow(const struct ht_fit_set *set, unsigned node,
			 const struct ht_fit_span *sp, int64_t t,
			 const char *what)
{
	struct ht_fit_span n = *sp;
	int64_t k, half = ht_fit_fixed_half(sp->lo.y0, sp->lo.y1);

	if (ht_fit_fixed_half(sp->hi.y0, sp->hi.y1) < half) {
		half = ht_fit_fixed_half(sp->hi.y0, sp->hi.y1);
	}
	ht_fit_span_narrow(&n, t - half, t + half);
	/* (far away the lines' values leave the range it takes) */
	CHECK_MSG((n.lo_fixed.ok && n.hi_fixed.ok) || t > ((int64_t)1 << 50) ||
		      t < -((int64_t)1 << 50),
		  "%s: no fixed-point lines at %" PRId64, what, t);
	if (!n.lo_fixed.ok || !n.hi_fixed.ok) {
		return;
	}
	for (k = 0; k < 1000; k++) {
		check_fixed_at(set, node, &n, n.x0 + k, what);
		check_fixed_at(set, node, &n, n.x1 - k, what);
		check_fixed_at(set, node, &n, t - 500 + k, what);
		check_fixed_at(
		    set, node, &n,
		    n.x0 + (int64_t)s_below((uint64_t)(n.x1 - n.x0) + 1), what);
	}
}

/* ht_fit_span_fixed_at() against the exact floor, on random lines of
 * every slope and spans of every width (the ones it takes). */
static void test_fixed_lines(void)
{
	uint64_t taken = 0;
	int k, j;

	for (k = 0; k < 20000; k++) {
		const int sx = (int)s_below(40), sy = (int)s_below(40),
			  sw = (int)s_below(44);
		const int64_t lx0 = (int64_t)s_below(1ull << 61) - (1ll << 60);
		const int64_t ly0 = (int64_t)s_below(1ull << 61) - (1ll << 60);
		const int64_t dx = 1 + (int64_t)s_below(1ull << sx);
		const int64_t dy = (int64_t)s_below(1ull << sy);
		const int64_t x0 =
		    lx0 + (int64_t)s_below(1ull << 41) - (1ll << 40);
		const int64_t w = (int64_t)s_below(1ull << sw);
		struct ht_fit_span_fixed f;

		ht_fit_span_fixed_init(&f, lx0, ly0, lx0 + dx, ly0 + dy, x0,
				       x0 + w);
		if (!f.ok) {
			continue;
		}
		taken++;
		for (j = 0; j < 20; j++) {
			const int64_t e =
			    j == 0   ? 0
			    : j == 1 ? w
				     : (int64_t)s_below((uint64_t)w + 1);
			const __int128 num = ((__int128)x0 + e - lx0) * dy;
			__int128 q = num / dx, rem = num % dx;
			uint64_t r;
			int64_t v;

			if (rem < 0) {
				q--;
				rem += dx;
			}
			v = ht_fit_span_fixed_at(&f, (uint64_t)e, &r);
			CHECK_MSG(v == (int64_t)(ly0 + q) && r == (uint64_t)rem,
				  "fixed line %d at %" PRId64 ": %" PRId64
				  ", exact %" PRId64,
				  k, e, v, (int64_t)(ly0 + q));
			nr_checked++;
		}
	}
	CHECK_MSG(taken > 5000, "fixed point taken %" PRIu64 " times", taken);
}

/* The outer span of @node around @t: found, and its bounds checked at
 * its ends, near them, near @t and at random times. */
static void check_outer(const struct ht_fit_set *set, unsigned node, int64_t t,
			const char *what)
{
	struct ht_fit_span sp;
	int64_t k, w;

	CHECK_MSG(ht_fit_set_outer_span(set, node, t, &sp) == 0 && sp.valid,
		  "%s: no outer span at %" PRId64, what, t);
	if (!sp.valid) {
		return;
	}
	nr_spans++;
	for (k = 0; k < 2000; k++) {
		check_bounds_at(set, node, &sp, sp.x0 + k, what);
		check_bounds_at(set, node, &sp, sp.x1 - k, what);
		check_bounds_at(set, node, &sp, t - 1000 + k, what);
	}
	w = sp.x1 / 2 - sp.x0 / 2;
	for (k = 0; k < 2000; k++) {
		check_bounds_at(set, node, &sp,
				sp.x0 + (int64_t)s_below((uint64_t)w) * 2,
				what);
	}
	check_narrow(set, node, &sp, t, what);
	/* (a time inside the messages has none) */
	CHECK(ht_fit_set_outer_span(
		  set, node,
		  ht_fit_set_get_node(set, node)->segments[0].first_x + 1,
		  &sp) == 0 &&
	      !sp.valid);
}

/* Spans over [t0, t1] of @node: each found, checked at its ends, near
 * them, at random times and (a few) every time for a while. */
static void check_spans(const struct ht_fit_set *set, unsigned node, int64_t t0,
			int64_t t1, const char *what)
{
	int64_t t = t0, k;

	while (t <= t1) {
		struct ht_fit_span sp;

		CHECK_MSG(ht_fit_set_map_span(set, node, t, &sp) == 0,
			  "%s: span", what);
		if (!sp.valid) {
			t += 1 + (int64_t)s_below(1000);
			continue;
		}
		CHECK_MSG(sp.x0 <= t && t <= sp.x1, "%s: span misses %" PRId64,
			  what, t);
		nr_spans++;
		nr_many = 0;
		check_at(set, node, &sp, sp.x0, what);
		check_at(set, node, &sp, sp.x0 + 1, what);
		check_at(set, node, &sp, sp.x1 - 1, what);
		check_at(set, node, &sp, sp.x1, what);
		for (k = 0; k < 1000; k++) {
			check_at(set, node, &sp,
				 sp.x0 + (int64_t)s_below(
					     (uint64_t)(sp.x1 - sp.x0) + 1),
				 what);
		}
		if (nr_spans % 4 == 0) {
			for (k = sp.x0; k <= sp.x1 && k < sp.x0 + 2000; k++) {
				check_at(set, node, &sp, k, what);
			}
		}
		check_many(&sp, what);
		t = sp.x1 == INT64_MAX ? t1 + 1 : sp.x1 + 1;
	}
}

/* slaves of every kind of rate, one with a rate step */
static void test_rates(void)
{
	static const uint64_t freq[] = {32768,	    1000000,   24000000,
					100000000,  600000000, 1000000000,
					2400000000u};
	const unsigned n = 1 + sizeof(freq) / sizeof(freq[0]);
	struct sclock c[8];
	struct ht_fit_set *set = ht_fit_set_create(n + 1);
	int64_t T0 = 5 * NS_PER_S, period = 1000000, T = T0;
	unsigned v;

	s_slaves(c, freq, n);
	s_clock_step(&c[5], T0 + 150 * period + 12345, 1000000000, 30000);
	CHECK_MSG(s_rounds(set, c, n, T0, period, 10000, 300, &handshake, &T) ==
		      0,
		  "add");
	CHECK_MSG(ht_fit_set_solve(set, 0, NULL) == 0, "solve");
	for (v = 1; v < n; v++) {
		const struct ht_fit_node *f = ht_fit_set_get_node(set, v);

		CHECK_MSG(f->quality == HT_FIT_ACCURATE, "node %u: %s", v,
			  ht_fit_quality_name(f->quality));
		check_spans(set, v, s_read(&c[v], T0) - 100000,
			    s_read(&c[v], T) + 100000, "rates");
		check_outer(set, v, f->segments[0].first_x - 1, "before");
		check_outer(set, v, s_read(&c[v], T0) - 100000, "before");
		check_outer(set, v, -((int64_t)1 << 61), "far before");
		check_outer(set, v, f->segments[f->nr_segments - 1].last_x + 1,
			    "after");
		check_outer(set, v, s_read(&c[v], T) + 100000, "after");
		check_outer(set, v, (int64_t)1 << 61, "far after");
	}
	CHECK_MSG(ht_fit_set_get_node(set, 5)->nr_segments == 2,
		  "no rate step");
	ht_fit_set_destroy(set);
}

/* no span: a node two edges away, a one-sided fit, an absent node */
static void test_no_span(void)
{
	struct sclock a = s_clock(200000000, 1000, 0, 777);
	struct sclock b = s_clock(100000000, -500, 0, 999);
	struct s_round one_way = handshake;
	struct ht_fit_set *set = ht_fit_set_create(5);
	struct ht_fit_span sp;
	int64_t T0 = NS_PER_S, period = 1000000;
	int k;

	one_way.no_ba = true;
	for (k = 0; k < 200; k++) {
		s_round(set, 0, NULL, 1, &a, T0 + k * period, &handshake);
		s_round(set, 1, &a, 2, &b, T0 + k * period + 5000, &handshake);
		s_round(set, 0, NULL, 3, &b, T0 + k * period + 9000, &one_way);
	}
	CHECK_MSG(ht_fit_set_solve(set, 0, NULL) == 0, "solve");
	CHECK(ht_fit_set_map_span(set, 1, s_read(&a, T0 + 100 * period), &sp) ==
		  0 &&
	      sp.valid);
	CHECK(ht_fit_set_map_span(set, 2, s_read(&b, T0 + 100 * period), &sp) ==
		  0 &&
	      !sp.valid);
	CHECK(ht_fit_set_map_span(set, 3, s_read(&b, T0 + 100 * period), &sp) ==
		  0 &&
	      !sp.valid);
	CHECK(ht_fit_set_map_span(set, 4, 0, &sp) == 0 && !sp.valid);
	CHECK(ht_fit_set_map_span(set, 9, 0, &sp) == 0 && !sp.valid);
	/* before the first message: the estimate line, no span */
	CHECK(ht_fit_set_map_span(set, 1, s_read(&a, T0 - period), &sp) == 0 &&
	      !sp.valid);
	check_spans(set, 1, s_read(&a, T0), s_read(&a, T0 + 200 * period),
		    "tree");
	ht_fit_set_destroy(set);
}

int main(void)
{
	test_rates();
	test_no_span();
	test_fixed_lines();
	printf("spans: %" PRIu64 ", times checked: %" PRIu64 "\n", nr_spans,
	       nr_checked);
	CHECK(nr_spans > 50 && nr_checked > 50000);
	return check_summary("t-clock-span");
}
