/* SPDX-License-Identifier: MIT */
/*
 * The instrumented program of tests/runtime/instrument/test-instrument.sh,
 * built with -finstrument-functions and linked with the glue of
 * examples/instrument/. One mode per run:
 *   drv MODE STREAM_FILE [N]
 * Prints "key value" lines (addresses of its functions, what it did)
 * for the test to compare with what babeltrace2 and hetrace read.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-glue.h"

#define NOINLINE __attribute__((noinline))

static volatile unsigned sink;

NOINLINE unsigned long fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

NOINLINE unsigned deep(unsigned n)
{
	sink++;
	return n ? deep(n - 1) + 1 : 0;
}

NOINLINE void leaf(void)
{
	sink++;
}

NOINLINE void work(unsigned k)
{
	unsigned i;

	for (i = 0; i < k; i++) {
		leaf();
	}
}

NOINLINE void caller_a(void)
{
	work(1);
}

NOINLINE void caller_b(void)
{
	work(2);
}

NOINLINE void phase_a(void)
{
	sink++;
}

NOINLINE void phase_b(void)
{
	sink++;
}

static struct glue *g_mid;
static const char *g_path;

/* Tracing starts two calls deep: their exits have no entry. */
NOINLINE void start_inside(void)
{
	struct glue_opts o = {.path = g_path,
			      .flags = HT_INSTR_TRACE | HT_INSTR_PROFILE};

	g_mid = glue_start(&o);
	leaf();
}

NOINLINE void outer(void)
{
	start_inside();
	leaf();
}

/* Disabled inside a call that then returns: its exit is not seen. */
NOINLINE void disable_inside(void)
{
	leaf();
	ht_instr_disable(glue_instr(g_mid));
}

static void *thread_main(void *arg)
{
	struct glue_opts o = {
	    .path = arg, .flags = HT_INSTR_TRACE, .core_id = 1};
	struct glue *g = glue_start(&o);

	work(10);
	fib(10);
	glue_finish(g);
	return NULL;
}

static void addrs(void)
{
	printf("addr fib %p\naddr deep %p\naddr leaf %p\naddr work %p\n",
	       (void *)fib, (void *)deep, (void *)leaf, (void *)work);
	printf("addr caller_a %p\naddr caller_b %p\naddr phase_a %p\n"
	       "addr phase_b %p\n",
	       (void *)caller_a, (void *)caller_b, (void *)phase_a,
	       (void *)phase_b);
}

int main(int argc, char **argv)
{
	struct glue_opts o;
	struct glue *g;
	const char *mode;
	unsigned n, i;

	if (argc < 3) {
		fprintf(stderr, "usage: drv MODE STREAM_FILE [N]\n");
		return 2;
	}
	mode = argv[1];
	n = argc > 3 ? (unsigned)atoi(argv[3]) : 10;
	memset(&o, 0, sizeof(o));
	o.path = argv[2];
	o.flags = HT_INSTR_TRACE | HT_INSTR_PROFILE;
	o.nr_slots = 1024; /* 4 MiB: every mode fits but the buffer modes */
	addrs();
	if (!strcmp(mode, "fib")) {
		g = glue_start(&o);
		printf("fib %lu\n", fib(n));
	} else if (!strncmp(mode, "fixed-fib", 9) ||
		   !strcmp(mode, "overwrite-fib")) {
		/* fib(N) overflowing a small buffer: fixed-fib keeps the
		 * first records, fixed-fib-trace too without the profile,
		 * overwrite-fib the newest. */
		o.mode = strcmp(mode, "overwrite-fib") ? HT_RING_DISCARD
						       : HT_RING_OVERWRITE;
		if (!strcmp(mode, "fixed-fib-trace")) {
			o.flags = HT_INSTR_TRACE;
		}
		o.slot_size = 1024;
		o.nr_slots = 8;
		g = glue_start(&o);
		printf("fib %lu\n", fib(n));
	} else if (!strcmp(mode, "deep")) {
		/* The shadow stack holds the whole recursion, or not. */
		o.stack_depth = argc > 4 ? (uint32_t)atoi(argv[4]) : n + 16;
		o.slot_size = 65536;
		o.nr_slots = 16;
		g = glue_start(&o);
		printf("deep %u\n", deep(n));
	} else if (!strcmp(mode, "window")) {
		/* Only the 3rd call of work(), until its exit. */
		o.trigger = (uintptr_t)work;
		o.trigger_nth = 3;
		o.stopper = (uintptr_t)work;
		g = glue_start(&o);
		for (i = 1; i <= 5; i++) {
			work(i);
		}
	} else if (!strcmp(mode, "window-caller")) {
		/* work() only when called by caller_b, every time. */
		o.trigger = (uintptr_t)work;
		o.trigger_caller = (uintptr_t)caller_b;
		o.stopper = (uintptr_t)work;
		g = glue_start(&o);
		for (i = 0; i < 3; i++) {
			caller_a();
			caller_b();
		}
	} else if (!strcmp(mode, "overwrite") || !strcmp(mode, "fixed")) {
		o.mode =
		    strcmp(mode, "fixed") ? HT_RING_OVERWRITE : HT_RING_DISCARD;
		o.flags = HT_INSTR_TRACE;
		o.slot_size = 512;
		o.nr_slots = 4;
		g = glue_start(&o);
		for (i = 0; i < n; i++) {
			phase_a();
		}
		for (i = 0; i < n; i++) {
			phase_b();
		}
	} else if (!strcmp(mode, "unbalanced")) {
		g_path = argv[2];
		outer();
		g = g_mid;
		disable_inside();
		ht_instr_enable(glue_instr(g));
		work(2);
	} else if (!strcmp(mode, "threads")) {
		pthread_t t;
		char path[4096];

		snprintf(path, sizeof(path), "%s-thread", argv[2]);
		o.flags = HT_INSTR_TRACE;
		g = glue_start(&o);
		pthread_create(&t, NULL, thread_main, path);
		work(3);
		pthread_join(t, NULL);
	} else {
		fprintf(stderr, "drv: unknown mode %s\n", mode);
		return 2;
	}
	if (!g) {
		return 1;
	}
	{
		struct ht_instr *in = glue_instr(g);

		printf("nested %u\nunbalanced %u\nlost %u\ndeep_calls %u\n"
		       "discarded %u\n",
		       in->stats.nested, in->stats.unbalanced,
		       in->stats.lost_calls, in->stats.deep_calls,
		       ht_instr_discarded(in));
	}
	return glue_finish(g) ? 1 : 0;
}
