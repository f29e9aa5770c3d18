/* SPDX-License-Identifier: MIT */
/*
 * Clock-sync benchmark (bench/sync.sh): pairs per second of the
 * convex-hull fit, maps per second, and the error against exact truth
 * as the number of rounds grows. Clocks and delays from
 * tests/sync/synth.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/sync/clock-fit.h"
#include "synth.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const struct s_round handshake = {
    .min_ns = 400,
    .mean_ns = 1500,
    .isr_ns = 2000,
};

/* pairs per second of ht_fit_set_add_message + ht_fit_set_solve */
static void throughput(const char *what, size_t rounds, int shuffle,
		       int bad_every)
{
	struct sclock c = s_clock(1000000000, 123000, 0, 1ll << 40);
	struct ht_fit_set *set = ht_fit_set_create(2);
	size_t n = 2 * rounds, i;
	struct s_msg *log = malloc(n * sizeof(*log));
	double t0, t1, t2;
	int64_t T = 1000000000, sum = 0;

	s_log = log;
	s_log_cap = n;
	s_nlog = 0;
	for (i = 0; i < rounds; i++) {
		T += 1000000;
		if (bad_every < 0) {
			/* delays on a parabola: every pair is a hull vertex */
			int64_t k = (int64_t)i - (int64_t)rounds / 2;
			int64_t d = 400 + k * k / 1000;

			s_add(set, 0, 1, T, s_read(&c, T + d));
			s_add(set, 1, 0, s_read(&c, T + 500), T + 500 + d);
			continue;
		}
		s_round(set, 0, NULL, 1, &c, T, &handshake);
	}
	s_log = NULL;
	ht_fit_set_destroy(set);
	if (bad_every > 0) {
		for (i = 0; i < n; i += 2 * (size_t)bad_every) {
			log[i].r -= 50000; /* a receive before its send */
		}
	}
	if (shuffle) {
		for (i = n - 1; i > 0; i--) {
			size_t j = s_below(i + 1);
			struct s_msg t = log[i];

			log[i] = log[j];
			log[j] = t;
		}
	}
	set = ht_fit_set_create(2);
	t0 = now();
	for (i = 0; i < n; i++) {
		ht_fit_set_add_message(set, log[i].from, log[i].to, log[i].s,
				       log[i].r);
	}
	if (ht_fit_set_solve(set, 0, NULL)) {
		fprintf(stderr, "solve failed\n");
		exit(1);
	}
	t1 = now();
	for (i = 0; i < n; i++) {
		int64_t est;

		ht_fit_set_map(set, 1, log[i].from ? log[i].s : log[i].r, &est,
			       NULL, NULL);
		sum += est;
	}
	t2 = now();
	printf("%-44s %10.2f %10.2f %8.2f %8s\n", what, n / (t1 - t0) / 1e6,
	       1.0, n / (t1 - t0) / 1e6, ">=1");
	printf("%-44s %10.2f %10s %8s %8s\n",
	       "  maps (est, lo, hi) per second, millions", n / (t2 - t1) / 1e6,
	       "", "", "");
	if (sum == 42) {
		printf("\n");
	}
	printf("  (%zu pairs, quality %s, %zu rejected)\n", n,
	       ht_fit_quality_name(ht_fit_set_get_node(set, 1)->quality),
	       ht_fit_set_get_node(set, 1)->pairs_rejected);
	ht_fit_set_destroy(set);
	free(log);
}

/* bound width and estimate error against truth after `rounds` rounds */
static void error_row(size_t rounds)
{
	struct sclock c = s_clock(1000000000, -87000, 0, 1ll << 44);
	struct ht_fit_set *set = ht_fit_set_create(2);
	int64_t T0 = 1000000000, period = 10000000, T = T0, wmax = 0;
	double wsum = 0, esum = 0, emax = 0;
	size_t i, nr = 2000;

	for (i = 0; i < rounds; i++) {
		T = T0 + (int64_t)i * period;
		s_round(set, 0, NULL, 1, &c, T, &handshake);
	}
	ht_fit_set_solve(set, 0, NULL);
	for (i = 0; i <= nr; i++) {
		int64_t Ts = T0 + (int64_t)((s_i128)(T - T0) * i / nr);
		int64_t t = s_read(&c, Ts), est, lo, hi;
		double err;

		ht_fit_set_map(set, 1, t, &est, &lo, &hi);
		err = (double)llabs(est - s_truth(&c, t));
		wsum += (double)(hi - lo);
		esum += err;
		if (err > emax) {
			emax = err;
		}
		if (hi - lo > wmax) {
			wmax = hi - lo;
		}
	}
	printf("%8zu %14.1f %14.1f %14.1f %14.1f\n", rounds,
	       wsum / (nr + 1) / 2, (double)wmax / 2, esum / (nr + 1), emax);
	ht_fit_set_destroy(set);
}

int main(int argc, char **argv)
{
	size_t rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	size_t r;

	printf("%-44s %10s %10s %8s %8s\n", "clock sync", "hetrace", "target",
	       "ratio", "want");
	throughput("fit, pairs/s (millions), in time order", rounds, 0, 0);
	throughput("fit, pairs/s (millions), shuffled", rounds, 1, 0);
	throughput("fit, pairs/s (millions), 1 in 1000 too fast", rounds, 0,
		   1000);
	throughput("fit, pairs/s (millions), every pair on a hull", rounds, 0,
		   -1);
	printf("\nerror against truth, GHz node, 10 ms rounds, delays 400 ns "
	       "+ ~1.5 us (ns);\nthe half-width tends to the smallest delay "
	       "(400 ns), |est - truth| to 0:\n");
	printf("%8s %14s %14s %14s %14s\n", "rounds", "half-width avg",
	       "half-width max", "|est-true| avg", "|est-true| max");
	for (r = 10; r <= 10000; r *= 10) {
		error_row(r);
	}
	return 0;
}
