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
#include <ucontext.h>
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

/*
 * Coroutine tasks (mode "tasks"): main and three tasks switch with
 * swapcontext() inside sched_switch(), the switch function. Each task
 * runs N rounds of co_round(), which yields in the middle of a call, so
 * every switch leaves calls open on the outgoing task's stack.
 */
#define NR_CO 3
struct co {
	ucontext_t uc;
	uint32_t tid;
	int done;
	char stack[64 * 1024];
};
static struct co co_main = {.tid = 10};
static struct co cos[NR_CO];
static struct co *co_cur = &co_main;
static unsigned co_rounds;

/* The port's current task (not instrumented: called from the hooks). */
__attribute__((no_instrument_function)) static uint32_t co_current(void *ctx)
{
	(void)ctx;
	return co_cur->tid;
}

NOINLINE void sched_switch(struct co *from, struct co *to)
{
	co_cur = to;
	swapcontext(&from->uc, &to->uc);
}

/* The next task not done after the running one, else main. */
NOINLINE void yield_next(void)
{
	unsigned k,
	    i = co_cur == &co_main ? NR_CO - 1 : (unsigned)(co_cur - cos);

	for (k = 1; k <= NR_CO; k++) {
		struct co *c = &cos[(i + k) % NR_CO];

		if (!c->done) {
			if (c != co_cur) {
				sched_switch(co_cur, c);
			}
			return;
		}
	}
	sched_switch(co_cur, &co_main);
}

NOINLINE void co_round(void)
{
	leaf();
	yield_next();
	leaf();
}

NOINLINE void task_body(void)
{
	unsigned r;

	for (r = 0; r < co_rounds; r++) {
		co_round();
	}
	co_cur->done = 1;
	yield_next();
}

/* Out of main(): getcontext() returns twice. */
__attribute__((noinline, no_instrument_function)) static void
co_init_one(struct co *c, uint32_t tid)
{
	c->tid = tid;
	getcontext(&c->uc);
	c->uc.uc_stack.ss_sp = c->stack;
	c->uc.uc_stack.ss_size = sizeof(c->stack);
	c->uc.uc_link = NULL;
	makecontext(&c->uc, task_body, 0);
}

__attribute__((no_instrument_function)) static void co_init(void)
{
	unsigned i;

	for (i = 0; i < NR_CO; i++) {
		co_init_one(&cos[i], 11u + i);
	}
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
	printf("addr sched_switch %p\naddr co_round %p\naddr task_body %p\n"
	       "addr yield_next %p\n",
	       (void *)sched_switch, (void *)co_round, (void *)task_body,
	       (void *)yield_next);
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
	} else if (!strcmp(mode, "tasks") || !strcmp(mode, "tasks-shared")) {
		/* tasks: each task its own shadow stack; tasks-shared:
		 * names only, the core's stack restarts at each switch. */
		static const char *const names[NR_CO + 1] = {"main", "alpha",
							     "beta", "gamma"};
		static struct ht_instr_task tasks[NR_CO + 1];
		static struct ht_instr_frame stacks[NR_CO + 1][64];
		uintptr_t sw = (uintptr_t)sched_switch;
		int own = !strcmp(mode, "tasks");

		for (i = 0; i <= NR_CO; i++) {
			tasks[i].tid = 10u + i;
			tasks[i].prio = (int32_t)(NR_CO - i);
			tasks[i].name = names[i];
			tasks[i].stack = own ? stacks[i] : NULL;
			tasks[i].stack_depth = own ? 64u : 0u;
		}
		co_init();
		co_rounds = n;
		o.switch_fns = &sw;
		o.nr_switch_fns = 1;
		o.current_task = co_current;
		o.tasks = tasks;
		o.nr_tasks = NR_CO + 1;
		o.tid = co_main.tid;
		g = glue_start(&o);
		sched_switch(&co_main, &cos[0]);
		printf("switches %u\n", 3 * n + 4);
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
