/* SPDX-License-Identifier: MIT */
/*
 * host/sync/clock-fit.c against synthetic clocks with exact truth
 * (synth.h): truth inside [lo, hi] at every sample, |est - truth| <=
 * half the width, monotone maps, widths, qualities, the frequency step
 * located within one sync period, too-fast pairs found, input order
 * and large delays changing nothing, 64-bit hours-long times, the tree.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/sync/clock-fit.h"
#include "common/error.h"
#include "synth.h"
#include "tests/check.h"

#define NS_PER_S 1000000000LL

/*
 * Maps nr samples of node's time over [t0, t1] (plus 10% each side):
 * truth in [lo, hi], est within half the width, all three monotone;
 * returns the largest width seen inside [t0, t1].
 */
static int64_t check_node(const struct ht_fit_set *set, unsigned node,
			  const struct sclock *c, int64_t t0, int64_t t1,
			  const char *what)
{
	int64_t span = t1 - t0, from = t0 - span / 10, to = t1 + span / 10;
	int64_t plo = INT64_MIN, pest = INT64_MIN, phi = INT64_MIN, wmax = 0;
	int bad = 0;
	int i, nr = 3000;

	for (i = 0; i <= nr && bad < 5; i++) {
		int64_t t = from + (int64_t)((s_i128)(to - from) * i / nr);
		int64_t est, lo, hi;
		int ret = ht_fit_set_map(set, node, t, &est, &lo, &hi);

		if (ret) {
			CHECK_MSG(ret == 0, "%s: map(%u, %" PRId64 ") = %s",
				  what, node, t, ht_err_name(ret));
			bad++;
			continue;
		}
		if (s_cmp_truth(c, t, lo) > 0 || s_cmp_truth(c, t, hi) < 0) {
			CHECK_MSG(0,
				  "%s: node %u t=%" PRId64 ": truth %" PRId64
				  " not in [%" PRId64 ", %" PRId64 "]",
				  what, node, t, s_truth(c, t), lo, hi);
			bad++;
		}
		if (lo != INT64_MIN && hi != INT64_MAX &&
		    !s_within_half(c, t, est, hi - lo + 1)) {
			CHECK_MSG(0,
				  "%s: node %u t=%" PRId64 ": est %" PRId64
				  " truth %" PRId64 " width %" PRId64,
				  what, node, t, est, s_truth(c, t), hi - lo);
			bad++;
		}
		if (lo < plo || est < pest || hi < phi) {
			CHECK_MSG(0, "%s: node %u t=%" PRId64 ": not monotone",
				  what, node, t);
			bad++;
		}
		plo = lo;
		pest = est;
		phi = hi;
		if (t >= t0 && t <= t1 && lo != INT64_MIN && hi != INT64_MAX &&
		    hi - lo > wmax) {
			wmax = hi - lo;
		}
	}
	return wmax;
}

/*
 * Samples the gaps between the pieces of node's fit densely (400 times
 * each, and every 100 x within 20000 of the break; only gap @only, the
 * one before piece @only, when not 0): truth in [lo, hi], est within
 * half the width, monotone; returns the largest width seen in a gap.
 */
static int64_t check_gaps(const struct ht_fit_set *set, unsigned node,
			  const struct sclock *c, size_t only, const char *what)
{
	const struct ht_fit_node *f = ht_fit_set_get_node(set, node);
	int64_t wmax = 0;
	size_t k;
	int i, nr = 400;

	for (k = 1; k < f->nr_segments; k++) {
		int64_t g0 = f->segments[k - 1].last_x;
		int64_t g1 = f->segments[k].first_x;
		int64_t brk = f->segments[k].begin_x;
		int64_t plo = INT64_MIN, pest = INT64_MIN, phi = INT64_MIN;
		int bad = 0;

		if (only && k != only) {
			continue;
		}
		/* the gap, then every x within 20000 of the break: where
		 * the bounds change from one piece to the other */
		for (i = 0; i <= 2 * nr && bad < 5; i++) {
			int64_t t =
			    i <= nr ? g0 + (int64_t)((s_i128)(g1 - g0) * i / nr)
				    : brk - 20000 + 100 * (i - nr - 1);
			int64_t est, lo, hi;

			if (i == nr + 1) {
				plo = pest = phi = INT64_MIN;
			}
			if (t <= g0 || t >= g1) {
				continue;
			}

			if (ht_fit_set_map(set, node, t, &est, &lo, &hi)) {
				CHECK_MSG(0, "%s: map in gap %zu", what, k);
				bad++;
				continue;
			}
			if (s_cmp_truth(c, t, lo) > 0 ||
			    s_cmp_truth(c, t, hi) < 0 ||
			    !s_within_half(c, t, est, hi - lo + 1) ||
			    lo < plo || est < pest || hi < phi) {
				CHECK_MSG(
				    0,
				    "%s: gap %zu t=%" PRId64 ": truth %" PRId64
				    " est %" PRId64 " [%" PRId64 ", %" PRId64
				    "] (monotone: %d)",
				    what, k, t, s_truth(c, t), est, lo, hi,
				    lo >= plo && est >= pest && hi >= phi);
				bad++;
			}
			plo = lo;
			pest = est;
			phi = hi;
			if (hi - lo > wmax) {
				wmax = hi - lo;
			}
		}
	}
	return wmax;
}

static const struct s_round handshake = {
    .min_ns = 400,
    .mean_ns = 1500,
    .isr_ns = 2000,
};

/* the simulated board's kind of clocks, 1000 rounds of 10 ms */
static void test_board(void)
{
	static const uint64_t freq[] = {32768,	   1000000,   24000000,
					100000000, 600000000, 1000000000};
	const unsigned n = 1 + sizeof(freq) / sizeof(freq[0]);
	struct sclock c[8];
	struct ht_fit_set *set = ht_fit_set_create(n);
	int64_t T0 = 5 * NS_PER_S, period = 10000000, T;
	unsigned v;

	s_slaves(c, freq, n);
	CHECK_MSG(
	    s_rounds(set, c, n, T0, period, 100000, 1000, &handshake, &T) == 0,
	    "add");
	CHECK_MSG(ht_fit_set_solve(set, 0, NULL) == 0, "solve");
	for (v = 1; v < n; v++) {
		const struct ht_fit_node *f = ht_fit_set_get_node(set, v);
		int64_t t0 = s_read(&c[v], T0), t1 = s_read(&c[v], T);
		int64_t w = check_node(set, v, &c[v], t0, t1, "board");
		int64_t tick = NS_PER_S / (int64_t)freq[v - 1];

		CHECK_MSG(f->quality == HT_FIT_ACCURATE, "node %u: %s", v,
			  ht_fit_quality_name(f->quality));
		CHECK_MSG(f->parent == 0 && f->nr_segments == 1 &&
			      f->pairs_used == 2000 && f->pairs_rejected == 0,
			  "node %u: parent %d, %zu pieces, %zu used", v,
			  f->parent, f->nr_segments, f->pairs_used);
		/* half-width <= 2 us, or <= 1 tick for a slower clock */
		CHECK_MSG(w <= 2 * (tick > 2000 ? tick : 2000),
			  "node %u (%" PRIu64 " Hz): width %" PRId64, v,
			  freq[v - 1], w);
		printf("board node %u %10" PRIu64 " Hz: width %" PRId64
		       " ns, width_max %" PRId64 "\n",
		       v, freq[v - 1], w, f->width_max);
	}
	ht_fit_set_destroy(set);
}

/* Solves @set; returns node 1's fit, checked to be of quality @want. */
static const struct ht_fit_node *solved_node1(struct ht_fit_set *set,
					      enum ht_fit_quality want)
{
	const struct ht_fit_node *f;

	CHECK_MSG(ht_fit_set_solve(set, 0, NULL) == 0, "solve");
	f = ht_fit_set_get_node(set, 1);
	CHECK_MSG(f->quality == want, "%s", ht_fit_quality_name(f->quality));
	return f;
}

/* the reference's rate steps: located within one sync period */
static void test_frequency_step(void)
{
	struct sclock c = s_clock(200000000, 150000, 0, 12345);
	struct ht_fit_set *set = ht_fit_set_create(2);
	int64_t T0 = NS_PER_S, period = 1000000, Tstep, T = 0, step_x;
	const struct ht_fit_node *f;
	int k;

	Tstep = T0 + 700 * period + 123457;
	s_clock_step(&c, Tstep, 100000000, -80000);
	for (k = 0; k < 1500; k++) {
		T = T0 + k * period;
		s_round(set, 0, NULL, 1, &c, T, &handshake);
	}
	f = solved_node1(set, HT_FIT_ACCURATE);
	CHECK_MSG(f->nr_segments == 2, "%zu pieces", f->nr_segments);
	if (f->nr_segments == 2) {
		/* the true step in node time; one period in node ticks */
		step_x = s_read(&c, Tstep);
		CHECK_MSG(llabs(f->segments[1].begin_x - step_x) <= 200000,
			  "break at %" PRId64 ", true %" PRId64,
			  f->segments[1].begin_x, step_x);
		printf("frequency step: break at %" PRId64 ", true %" PRId64
		       " (period 200000 ticks)\n",
		       f->segments[1].begin_x, step_x);
	}
	check_node(set, 1, &c, s_read(&c, T0), s_read(&c, T), "step");
	check_gaps(set, 1, &c, 0, "step");
	ht_fit_set_destroy(set);
}

/*
 * Rate steps (the simulated board's DVFS core: 600 MHz to 1 GHz, and
 * others, up and down) with no round for up to 20 ms on either side: in
 * the gap the two pieces' lines part by up to 0.67 ns per ns, but the
 * break can only be where their bands meet, so the bounds there follow
 * one piece or the other and stay tight.
 */
static void test_step_gap(void)
{
	static const uint64_t steps[][2] = {
	    {600000000, 1000000000},
	    {1000000000, 600000000},
	    {24000000, 12000000},
	    {100000000, 101000000},
	};
	int64_t T0 = NS_PER_S, period = 10000000;
	int64_t wmax = 0;
	unsigned v;
	int k;

	for (v = 0; v < 12; v++) {
		const uint64_t *st = steps[v % 4];
		struct sclock c = s_clock(st[0], 12000, 0, 777 + v);
		struct ht_fit_set *set = ht_fit_set_create(2);
		int64_t Tstep, T = 0, before, after, w;
		const struct ht_fit_node *f;

		Tstep = T0 + 150 * period + (int64_t)s_below(period);
		before = (int64_t)s_below(20000000);
		after = (int64_t)s_below(20000000);
		s_clock_step(&c, Tstep, st[1], -7000);
		for (k = 0; k < 300; k++) {
			T = T0 + k * period;
			if (T > Tstep - before && T < Tstep + after) {
				continue;
			}
			s_round(set, 0, NULL, 1, &c, T, &handshake);
		}
		CHECK_MSG(ht_fit_set_solve(set, 0, NULL) == 0, "solve");
		f = ht_fit_set_get_node(set, 1);
		CHECK_MSG(f->quality == HT_FIT_ACCURATE && f->nr_segments == 2,
			  "step gap %u: %s, %zu pieces", v,
			  ht_fit_quality_name(f->quality), f->nr_segments);
		check_node(set, 1, &c, s_read(&c, T0), s_read(&c, T),
			   "step gap");
		w = check_gaps(set, 1, &c, 0, "step gap");
		/* the union of both pieces over a 40 ms gap would be up
		 * to 13 ms wide */
		CHECK_MSG(w <= 10000,
			  "step gap %u: width in the gap %" PRId64 " ns", v, w);
		wmax = w > wmax ? w : wmax;
		ht_fit_set_destroy(set);
	}
	printf("steps with gaps up to 40 ms: largest width in one %" PRId64
	       " ns\n",
	       wmax);
}

/* a few corrupted receives: found, excluded, reported */
static void test_too_fast(void)
{
	struct sclock c = s_clock(1000000000, -120000, 0, 1ll << 40);
	struct ht_fit_set *set = ht_fit_set_create(2);
	int64_t T0 = NS_PER_S, period = 1000000, T = 0;
	size_t bad[3], nb = 0;
	const struct ht_fit_node *f;
	int k;

	for (k = 0; k < 600; k++) {
		T = T0 + k * period;
		if (k == 100 || k == 333 || k == 590) {
			/* a receive 30 us before its send */
			bad[nb++] = ht_fit_set_nr_messages(set);
			ht_fit_set_add_message(set, 0, 1, T,
					       s_read(&c, T - 30000));
			ht_fit_set_add_message(set, 1, 0, s_read(&c, T + 5000),
					       T + 6000);
			continue;
		}
		s_round(set, 0, NULL, 1, &c, T, &handshake);
	}
	f = solved_node1(set, HT_FIT_APPROXIMATE);
	CHECK_MSG(f->pairs_rejected == 3 && f->nr_segments == 1,
		  "%zu rejected, %zu pieces", f->pairs_rejected,
		  f->nr_segments);
	if (f->pairs_rejected == 3) {
		CHECK_MSG(!memcmp(f->rejected, bad, sizeof(bad)),
			  "rejected %zu %zu %zu", f->rejected[0],
			  f->rejected[1], f->rejected[2]);
	}
	check_node(set, 1, &c, s_read(&c, T0), s_read(&c, T), "too fast");
	ht_fit_set_destroy(set);

	/* with exclusion off, the same set fails */
	set = ht_fit_set_create(2);
	ht_fit_set_add_message(set, 0, 1, T0, s_read(&c, T0 - 30000));
	for (k = 1; k < 50; k++) {
		s_round(set, 0, NULL, 1, &c, T0 + k * period, &handshake);
	}
	ht_fit_set_solve(
	    set, 0,
	    &(struct ht_fit_opts){.no_outliers = true, .no_piecewise = true});
	f = ht_fit_set_get_node(set, 1);
	CHECK_MSG(f->quality == HT_FIT_FAIL, "%s",
		  ht_fit_quality_name(f->quality));
	CHECK_MSG(ht_fit_set_map(set, 1, s_read(&c, T0), NULL, NULL, NULL) ==
		      HT_ENOTFOUND,
		  "map of a failed node");
	ht_fit_set_destroy(set);
}

/* one direction only: bounded on one side */
static void test_one_direction(void)
{
	struct sclock c = s_clock(24000000, 90000, 0, 777);
	struct s_round r = handshake;
	int dir;

	for (dir = 0; dir < 2; dir++) {
		struct ht_fit_set *set = ht_fit_set_create(2);
		const struct ht_fit_node *f;
		int64_t T0 = NS_PER_S, T = 0, lo, hi, est;
		int k;

		r.no_ab = dir == 0;
		r.no_ba = dir == 1;
		for (k = 0; k < 300; k++) {
			T = T0 + k * 1000000;
			s_round(set, 0, NULL, 1, &c, T, &r);
		}
		ht_fit_set_solve(set, 0, NULL);
		f = ht_fit_set_get_node(set, 1);
		CHECK_MSG(f->quality == HT_FIT_INCOMPLETE, "%s",
			  ht_fit_quality_name(f->quality));
		check_node(set, 1, &c, s_read(&c, T0), s_read(&c, T),
			   "one direction");
		ht_fit_set_map(set, 1, s_read(&c, T0 + 150 * 1000000), &est,
			       &lo, &hi);
		/* dir 0: only node->reference messages: upper bound */
		CHECK_MSG(dir == 0 ? lo == INT64_MIN && hi != INT64_MAX
				   : hi == INT64_MAX && lo != INT64_MIN,
			  "dir %d: [%" PRId64 ", %" PRId64 "]", dir, lo, hi);
		/* the minimal-delay estimate is close to the truth */
		CHECK_MSG(llabs(est - (T0 + 150 * 1000000)) < 5000,
			  "dir %d: est %" PRId64, dir, est);
		ht_fit_set_destroy(set);
	}
}

/* clocks that jitter far more than the delays: no fit, even piecewise */
static void test_crossing(void)
{
	struct sclock c = s_clock(1000000000, 0, 0, 5000);
	struct ht_fit_set *set = ht_fit_set_create(2);
	const struct ht_fit_node *f;
	int k;

	c.noise = 200000;
	for (k = 0; k < 500; k++) {
		s_round(set, 0, NULL, 1, &c, NS_PER_S + k * 1000000,
			&handshake);
	}
	ht_fit_set_solve(set, 0, NULL);
	f = ht_fit_set_get_node(set, 1);
	CHECK_MSG(f->quality == HT_FIT_FAIL, "%s",
		  ht_fit_quality_name(f->quality));
	ht_fit_set_destroy(set);
}

/* hours of 64-bit ns times and a GHz counter near 2^61 */
static void test_hours(void)
{
	int64_t T0 = 1700000000000000000ll, period = NS_PER_S, T = 0;
	struct sclock c =
	    s_clock(1000000000, 199000, 0, (1ll << 61) + 123456789);
	struct ht_fit_set *set = ht_fit_set_create(2);
	const struct ht_fit_node *f;
	int64_t w;
	int k;

	c.T[0] = T0;
	for (k = 0; k < 4 * 3600; k++) {
		T = T0 + k * period;
		s_round(set, 0, NULL, 1, &c, T, &handshake);
	}
	f = solved_node1(set, HT_FIT_ACCURATE);
	CHECK_MSG(f->drift_ppm < -198.0 && f->drift_ppm > -200.0,
		  "drift %f ppm (clock +199 ppm: the map's slope is -199)",
		  f->drift_ppm);
	w = check_node(set, 1, &c, s_read(&c, T0), s_read(&c, T), "hours");
	CHECK_MSG(w <= 4000, "width %" PRId64, w);
	printf("hours: drift %.3f ppm, width %" PRId64 " ns\n", f->drift_ppm,
	       w);
	ht_fit_set_destroy(set);
}

static bool same_line(const struct ht_fit_line *a, const struct ht_fit_line *b)
{
	return a->valid == b->valid &&
	       (!a->valid || (a->x0 == b->x0 && a->y0 == b->y0 &&
			      a->x1 == b->x1 && a->y1 == b->y1));
}

/* fits and maps of a and b equal (b's messages may be a permutation
 * of a's plus extra slow ones: rejections compared by message) */
static void compare_sets(const struct ht_fit_set *a, const struct ht_fit_set *b,
			 const struct s_msg *la, const struct s_msg *lb,
			 const struct sclock *c, unsigned n, const char *what)
{
	unsigned v;
	size_t i;

	for (v = 1; v < n; v++) {
		const struct ht_fit_node *fa = ht_fit_set_get_node(a, v);
		const struct ht_fit_node *fb = ht_fit_set_get_node(b, v);
		int64_t t0 = s_read(&c[v], NS_PER_S);
		int k;

		CHECK_MSG(fa->quality == fb->quality &&
			      fa->nr_segments == fb->nr_segments &&
			      fa->pairs_rejected == fb->pairs_rejected,
			  "%s: node %u: %s/%s", what, v,
			  ht_fit_quality_name(fa->quality),
			  ht_fit_quality_name(fb->quality));
		CHECK_MSG(same_line(&fa->min_line, &fb->min_line) &&
			      same_line(&fa->max_line, &fb->max_line),
			  "%s: node %u: lines differ", what, v);
		for (i = 0; i < fa->pairs_rejected && i < fb->pairs_rejected;
		     i++) {
			const struct s_msg *x = &la[fa->rejected[i]];
			const struct s_msg *y = &lb[fb->rejected[i]];

			CHECK_MSG(x->s == y->s && x->r == y->r,
				  "%s: rejected pairs differ", what);
		}
		for (k = 0; k < 500; k++) {
			int64_t t =
			    t0 + k * (s_read(&c[v], 3 * NS_PER_S) - t0) / 500;
			int64_t e1, l1, h1, e2, l2, h2;

			ht_fit_set_map(a, v, t, &e1, &l1, &h1);
			ht_fit_set_map(b, v, t, &e2, &l2, &h2);
			CHECK_MSG(e1 == e2 && l1 == l2 && h1 == h2,
				  "%s: node %u: map(%" PRId64 ") differs", what,
				  v, t);
		}
	}
}

/* the same messages in another order, plus slow messages: same fits */
static void test_order_and_delays(void)
{
	struct sclock c[3] = {{0}};
	struct ht_fit_set *a = ht_fit_set_create(3), *b = ht_fit_set_create(3);
	struct s_msg *la, *lb;
	size_t n, i;
	unsigned v;
	int k;

	c[1] = s_clock(32768, 50000, 0, 99);
	c[2] = s_clock(600000000, -170000, 0, 1ll << 50);
	s_log_cap = 10000;
	s_log = la = calloc(s_log_cap, sizeof(*la));
	s_nlog = 0;
	for (k = 0; k < 400; k++) {
		for (v = 1; v < 3; v++) {
			s_round(a, 0, NULL, v, &c[v],
				NS_PER_S + k * 5000000 + v * 1000, &handshake);
		}
	}
	/* one too-fast pair, to compare the rejections too */
	s_add(a, 0, 2, 2 * NS_PER_S, s_read(&c[2], 2 * NS_PER_S - 40000));
	n = s_nlog;
	s_log = NULL;
	lb = malloc(n * sizeof(*lb));
	memcpy(lb, la, n * sizeof(*lb));
	for (i = n - 1; i > 0; i--) {
		size_t j = s_below(i + 1);
		struct s_msg t = lb[i];

		lb[i] = lb[j];
		lb[j] = t;
	}
	for (i = 0; i < n; i++) {
		ht_fit_set_add_message(b, lb[i].from, lb[i].to, lb[i].s,
				       lb[i].r);
	}
	ht_fit_set_solve(a, 0, NULL);
	ht_fit_set_solve(b, 0, NULL);
	CHECK_MSG(ht_fit_set_get_node(a, 2)->pairs_rejected == 1,
		  "%zu rejected", ht_fit_set_get_node(a, 2)->pairs_rejected);
	compare_sets(a, b, la, lb, c, 3, "shuffled");

	/* slow messages (up to 5 ms late) are inside the hulls */
	for (k = 0; k < 400; k++) {
		for (v = 1; v < 3; v++) {
			int64_t T = NS_PER_S + k * 5000000 + 2500000;
			int64_t d = 100000 + (int64_t)s_below(5000000);

			ht_fit_set_add_message(b, 0, v, T,
					       s_read(&c[v], T + d));
			ht_fit_set_add_message(b, v, 0, s_read(&c[v], T),
					       T + d);
		}
	}
	lb = realloc(lb, ht_fit_set_nr_messages(b) * sizeof(*lb));
	ht_fit_set_solve(b, 0, NULL);
	compare_sets(a, b, la, lb, c, 3, "slow messages");
	check_node(a, 1, &c[1], s_read(&c[1], NS_PER_S),
		   s_read(&c[1], 3 * NS_PER_S), "32 kHz");
	free(la);
	free(lb);
	ht_fit_set_destroy(a);
	ht_fit_set_destroy(b);
}

/* node 2 talks only with node 1; node 3 with nobody */
static void test_tree(void)
{
	struct sclock c[4] = {{0}};
	struct ht_fit_set *set = ht_fit_set_create(4);
	const struct ht_fit_node *f;
	int64_t T = 0;
	int k;

	c[1] = s_clock(1000000000, 40000, 0, 1000);
	c[2] = s_clock(32768, -190000, 0, 77777);
	for (k = 0; k < 500; k++) {
		T = NS_PER_S + k * 2000000;
		s_round(set, 0, NULL, 1, &c[1], T, &handshake);
		s_round(set, 1, &c[1], 2, &c[2], T + 500000, &handshake);
	}
	CHECK_MSG(ht_fit_set_solve(set, 0, NULL) == 0, "solve");
	f = ht_fit_set_get_node(set, 2);
	CHECK_MSG(f->parent == 1 && f->depth == 2 &&
		      f->quality == HT_FIT_ACCURATE,
		  "node 2: parent %d depth %u %s", f->parent, f->depth,
		  ht_fit_quality_name(f->quality));
	check_node(set, 2, &c[2], s_read(&c[2], NS_PER_S), s_read(&c[2], T),
		   "tree");
	f = ht_fit_set_get_node(set, 3);
	CHECK_MSG(f->quality == HT_FIT_ABSENT && f->parent == -1, "node 3: %s",
		  ht_fit_quality_name(f->quality));
	CHECK_MSG(ht_fit_set_map(set, 3, 0, NULL, NULL, NULL) == HT_ENOTFOUND,
		  "map absent");
	CHECK_MSG(ht_fit_set_get_node(set, 0)->quality == HT_FIT_REFERENCE,
		  "ref");
	ht_fit_set_destroy(set);
}

/*
 * Exactness: on small random sets, [lo, hi] equals the range of the
 * feasible lines at x, found by brute force over every line through
 * two points (the vertices of the feasible set are such lines).
 */
static s_i128 bf_at(const int64_t *a, const int64_t *b, int64_t x, int dir)
{
	s_i128 num = (s_i128)(b[1] - a[1]) * (x - a[0]), den = b[0] - a[0];
	s_i128 q = s_floordiv(num, den);

	if (dir > 0 && q * den != num) {
		q++;
	}
	return a[1] + q;
}

static void test_exact(void)
{
	int round, compared = 0;

	for (round = 0; round < 300; round++) {
		struct sclock c = s_clock(1000000 + s_below(1000000000),
					  (int64_t)s_below(400001) - 200000, 0,
					  (int64_t)s_below(1000000));
		struct ht_fit_set *set = ht_fit_set_create(2);
		struct s_round r = {
		    .min_ns = 100, .mean_ns = 20000, .isr_ns = 1000};
		int64_t p[64][2], T = NS_PER_S;
		bool up[64];
		size_t n = 0, i, j, k, nr = 2 + s_below(8);
		struct s_msg log[64];
		const struct ht_fit_node *f;

		s_log = log;
		s_log_cap = 64;
		s_nlog = 0;
		for (i = 0; i < nr; i++) {
			T += 50000 + (int64_t)s_below(200000);
			s_round(set, 0, NULL, 1, &c, T, &r);
		}
		s_log = NULL;
		for (i = 0; i < s_nlog; i++, n++) {
			up[n] = log[i].from == 1;
			p[n][0] = up[n] ? log[i].s : log[i].r + 1;
			p[n][1] = up[n] ? log[i].r + 1 : log[i].s;
		}
		ht_fit_set_solve(set, 0, NULL);
		f = ht_fit_set_get_node(set, 1);
		/* exact when both lines exist and slopes are positive (else
		 * the bounds use a >= 0 and are not the plain LP's) */
		if (!f->min_line.valid || !f->max_line.valid ||
		    f->min_line.y1 <= f->min_line.y0) {
			ht_fit_set_destroy(set);
			continue;
		}
		for (k = 0; k < 40; k++) {
			int64_t x = p[0][0] - 300000 +
				    (int64_t)s_below(T - NS_PER_S + 600000);
			int64_t lo, hi, blo = INT64_MAX, bhi = INT64_MIN;

			x = s_read(&c, x);
			ht_fit_set_map(set, 1, x, NULL, &lo, &hi);
			for (i = 0; i < n; i++) {
				for (j = 0; j < n; j++) {
					size_t q;
					bool ok = p[i][0] < p[j][0];

					for (q = 0; ok && q < n; q++) {
						s_i128 y;

						if (q == i || q == j) {
							continue;
						}
						y = (s_i128)(p[j][1] -
							     p[i][1]) *
							(p[q][0] - p[i][0]) +
						    (s_i128)p[i][1] *
							(p[j][0] - p[i][0]);
						/* line(q.x) * dx vs q.y * dx */
						ok =
						    up[q]
							? y <= (s_i128)p[q][1] *
								   (p[j][0] -
								    p[i][0])
							: y >= (s_i128)p[q][1] *
								   (p[j][0] -
								    p[i][0]);
					}
					if (!(p[i][0] < p[j][0]) || !ok) {
						continue;
					}
					if (bf_at(p[i], p[j], x, -1) < blo) {
						blo = (int64_t)bf_at(p[i], p[j],
								     x, -1);
					}
					if (bf_at(p[i], p[j], x, 1) > bhi) {
						bhi = (int64_t)bf_at(p[i], p[j],
								     x, 1);
					}
				}
			}
			CHECK_MSG(lo == blo && hi == bhi,
				  "round %d x=%" PRId64 ": [%" PRId64
				  ", %" PRId64 "] brute force [%" PRId64
				  ", %" PRId64 "]",
				  round, x, lo, hi, blo, bhi);
		}
		compared++;
		ht_fit_set_destroy(set);
	}
	CHECK_MSG(compared > 100, "only %d sets compared", compared);
	printf("exact: %d sets compared with brute force\n", compared);
}

/* two rate steps: three pieces, bounds hold through both gaps */
static void test_two_steps(void)
{
	struct sclock c = s_clock(50000000, 30000, 0, 4242);
	struct ht_fit_set *set = ht_fit_set_create(2);
	int64_t T0 = NS_PER_S, period = 1000000, T = 0;
	const struct ht_fit_node *f;
	struct sclock c2;
	int k;

	/* the synthetic clock has two pieces: chain two clocks by hand */
	s_clock_step(&c, T0 + 400 * period + 5000, 100000000, -50000);
	c2 = c;
	for (k = 0; k < 1200; k++) {
		T = T0 + k * period;
		if (k == 800) {
			/* second step: restart the model from here */
			c2.cn[0] =
			    c.cn[1] + (s_i128)(T - 1 - c.T[1]) * c.num[1];
			c2.T[0] = T - 1;
			c2.num[0] = c.num[1];
			c2.np = 1;
			s_clock_step(&c2, T - 1, 25000000, 10000);
		}
		s_round(set, 0, NULL, 1, k < 800 ? &c : &c2, T, &handshake);
	}
	CHECK_MSG(ht_fit_set_solve(set, 0, NULL) == 0, "solve");
	f = ht_fit_set_get_node(set, 1);
	CHECK_MSG(f->quality == HT_FIT_ACCURATE && f->nr_segments == 3,
		  "%s, %zu pieces", ht_fit_quality_name(f->quality),
		  f->nr_segments);
	/* (check_node also samples 10% beyond each end) */
	check_node(set, 1, &c, s_read(&c, T0), s_read(&c, T0 + 700 * period),
		   "two steps, first part");
	check_node(set, 1, &c2, s_read(&c2, T0 + 850 * period), s_read(&c2, T),
		   "two steps, last part");
	/* each gap against the model of its step */
	check_gaps(set, 1, &c, 1, "two steps, first gap");
	check_gaps(set, 1, &c2, 2, "two steps, second gap");
	ht_fit_set_destroy(set);
}

/* random messages with times near +-2^62: no overflow (UBSan), no
 * crash, monotone maps whatever the fit */
static void test_extremes(void)
{
	const int64_t big = HT_FIT_TIME_LIMIT - 1;
	int round;

	for (round = 0; round < 200; round++) {
		unsigned n = 2 + (unsigned)s_below(4), v;
		struct ht_fit_set *set = ht_fit_set_create(n);
		size_t i, nr = s_below(60);

		for (i = 0; i < nr; i++) {
			unsigned a = (unsigned)s_below(n),
				 b = (unsigned)s_below(n);
			int64_t t1 =
			    (int64_t)(s_rand() % (2 * (uint64_t)big + 1)) - big;
			int64_t t2 = s_below(2)
					 ? t1 + (int64_t)s_below(1000) - 500
					 : (int64_t)(s_rand() %
						     (2 * (uint64_t)big + 1)) -
					       big;

			if (t2 > big || t2 < -big) {
				t2 = t1;
			}
			ht_fit_set_add_message(set, a, b == a ? (a + 1) % n : b,
					       t1, t2);
		}
		CHECK_MSG(ht_fit_set_solve(set, (unsigned)s_below(n), NULL) ==
			      0,
			  "solve");
		for (v = 0; v < n; v++) {
			int64_t pe = INT64_MIN, pl = INT64_MIN, ph = INT64_MIN;
			int k;

			for (k = -50; k <= 50; k++) {
				int64_t t = (int64_t)((s_i128)big * k / 50), e,
					l, h;

				if (ht_fit_set_map(set, v, t, &e, &l, &h)) {
					continue;
				}
				CHECK_MSG(l <= e && e <= h,
					  "node %u: %" PRId64 " <= %" PRId64
					  " <= %" PRId64,
					  v, l, e, h);
				CHECK_MSG(e >= pe && l >= pl && h >= ph,
					  "node %u: not monotone at %" PRId64,
					  v, t);
				pe = e;
				pl = l;
				ph = h;
			}
		}
		ht_fit_set_destroy(set);
	}
}

static void test_errors(void)
{
	struct ht_fit_set *set = ht_fit_set_create(2);

	CHECK_MSG(ht_fit_set_create(0) == NULL, "0 nodes");
	CHECK_MSG(ht_fit_set_add_message(set, 0, 2, 1, 2) == HT_EINVAL, "node");
	CHECK_MSG(strstr(ht_fit_set_last_error(set), "node 2") != NULL, "%s",
		  ht_fit_set_last_error(set));
	CHECK_MSG(ht_fit_set_add_message(set, 1, 1, 1, 2) == HT_EINVAL, "self");
	CHECK_MSG(ht_fit_set_add_message(set, 0, 1, HT_FIT_TIME_LIMIT, 2) ==
		      HT_ERANGE,
		  "range");
	CHECK_MSG(ht_fit_set_map(set, 1, 0, NULL, NULL, NULL) == HT_EINVAL,
		  "not solved");
	CHECK_MSG(ht_fit_set_solve(set, 2, NULL) == HT_EINVAL, "reference");
	CHECK_MSG(ht_fit_set_solve(set, 0, NULL) == 0, "solve empty");
	CHECK_MSG(ht_fit_set_get_node(set, 1)->quality == HT_FIT_ABSENT,
		  "absent");
	CHECK_MSG(ht_fit_set_map(set, 0, 5, NULL, NULL, NULL) == 0,
		  "reference");
	CHECK_MSG(ht_fit_set_map(set, 0, -HT_FIT_TIME_LIMIT, NULL, NULL,
				 NULL) == HT_ERANGE,
		  "map range");
	ht_fit_set_destroy(set);
}

int main(void)
{
	test_board();
	test_frequency_step();
	test_step_gap();
	test_too_fast();
	test_one_direction();
	test_crossing();
	test_hours();
	test_order_and_delays();
	test_tree();
	test_exact();
	test_two_steps();
	test_extremes();
	test_errors();
	return check_summary("t-clock-fit");
}
