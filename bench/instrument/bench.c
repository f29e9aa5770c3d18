/* SPDX-License-Identifier: MIT */
/*
 * The instrumented program of bench/instrument.sh: N calls of a small
 * function, timed around the loop. Built three ways from this file:
 * without instrumentation (the base), with -finstrument-functions and
 * hetrace's runtime (-DWITH_HETRACE), with -finstrument-functions and
 * glibc's empty hooks (run under `uftrace record`), and without
 * instrumentation but two rdtsc per call (-DFLOOR: the clock reads a
 * traced call cannot avoid).
 *   bench N [profile|both]   prints: ns N
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef WITH_HETRACE
#include "trace-glue.h"
#endif
#ifdef FLOOR
#include <x86intrin.h>
#endif

static volatile unsigned sink;

__attribute__((noinline)) void work(unsigned i)
{
	sink += i;
}

static __attribute__((no_instrument_function)) long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1000000, i;
	long long t0, t1;
#ifdef WITH_HETRACE
	struct glue_opts o = {0};
	struct glue *g;

	o.mode = HT_RING_OVERWRITE; /* a flight recorder never stops */
	o.slot_size = 65536;
	o.nr_slots = 64;
	o.flags = HT_INSTR_TRACE;
	if (argc > 2 && !strcmp(argv[2], "profile")) {
		o.flags = HT_INSTR_PROFILE;
	} else if (argc > 2 && !strcmp(argv[2], "both")) {
		o.flags = HT_INSTR_TRACE | HT_INSTR_PROFILE;
	}
	g = glue_start(&o);
	if (!g) {
		return 1;
	}
#endif
	t0 = now_ns();
	for (i = 0; i < n; i++) {
#ifdef FLOOR
		/* The floor: the two clock reads a traced call needs. */
		sink += (unsigned)__rdtsc();
		work(i);
		sink += (unsigned)__rdtsc();
#else
		work(i);
#endif
	}
	t1 = now_ns();
#ifdef WITH_HETRACE
	glue_finish(g);
#endif
	printf("%lld %u\n", t1 - t0, n);
	return 0;
}
