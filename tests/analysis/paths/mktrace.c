/* SPDX-License-Identifier: MIT */
/*
 * Writes test traces with the tracing code `hetrace gen` made from
 * tests/analysis/paths/trace.yaml: one stream file per core (core<id>), each
 * event at exactly the time it is given.
 *
 *   mktrace OUTDIR < SCRIPT
 *	one event per line, "TIME_NS CORE EVENT ARGS...", time-ordered per
 *	core; '#' starts a comment:
 *	  switch PREV_TID PREV_NAME NEXT_TID NEXT_NAME PRIO   task_switch
 *	  isr_in IRQ / isr_out IRQ                            isr_enter/exit
 *	  trigger PATH N                                      path_begin
 *	  begin PATH ACTIVITY N / end PATH ACTIVITY N         activity_*
 *	  send ID DST SIZE / recv ID SRC SIZE                 msg_send/recv
 *
 *   mktrace OUTDIR --synthetic EVENTS CORES [SEED]
 *	a busy system of CORES cores (at most 128) and about EVENTS events:
 *	per core tasks switching, interrupts, messages to and from core 0,
 *	and a "frame" path (path_begin on core 0 every 10 ms, activities
 *	alloc on core 0, work_<k> on the other cores, gather on core 0).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "barectf.h"

#define CORE_MAX 128
#define CORE_PACKET_SIZE 16384
#include "tests/core-streams.h"

static const char *outdir;

static struct core *core_get(unsigned id)
{
	if (id >= CORE_MAX) {
		fprintf(stderr, "mktrace: core %u: at most %d cores\n", id,
			CORE_MAX);
		exit(1);
	}
	return core_stream(id, outdir, "core");
}

static int script(void)
{
	char line[1024];
	unsigned lineno = 0;

	while (fgets(line, sizeof(line), stdin)) {
		char ev[32], a[256], b[256];
		unsigned long long t, x, y, z;
		unsigned core;
		struct core *c;
		char *hash = strchr(line, '#');

		lineno++;
		if (hash) {
			*hash = '\0';
		}
		if (sscanf(line, "%llu %u %31s", &t, &core, ev) != 3) {
			if (strspn(line, " \t\r\n") != strlen(line)) {
				fprintf(stderr, "mktrace: line %u: bad line\n",
					lineno);
				return 1;
			}
			continue;
		}
		core_clock_ns = t; /* a first packet opens at its first event */
		c = core_get(core);
		if (!strcmp(ev, "switch") &&
		    sscanf(line, "%*u %*u %*s %llu %255s %llu %255s %llu", &x,
			   a, &y, b, &z) == 5) {
			barectf_trace_task_switch(&c->ctx, (uint32_t)x, a,
						  (uint32_t)y, b, (uint8_t)z);
		} else if (!strcmp(ev, "isr_in") &&
			   sscanf(line, "%*u %*u %*s %llu", &x) == 1) {
			barectf_trace_isr_enter(&c->ctx, (uint32_t)x);
		} else if (!strcmp(ev, "isr_out") &&
			   sscanf(line, "%*u %*u %*s %llu", &x) == 1) {
			barectf_trace_isr_exit(&c->ctx, (uint32_t)x);
		} else if (!strcmp(ev, "trigger") &&
			   sscanf(line, "%*u %*u %*s %255s %llu", a, &x) == 2) {
			barectf_trace_path_begin(&c->ctx, a, (uint32_t)x);
		} else if (!strcmp(ev, "begin") &&
			   sscanf(line, "%*u %*u %*s %255s %255s %llu", a, b,
				  &x) == 3) {
			barectf_trace_activity_begin(&c->ctx, a, b,
						     (uint32_t)x);
		} else if (!strcmp(ev, "end") &&
			   sscanf(line, "%*u %*u %*s %255s %255s %llu", a, b,
				  &x) == 3) {
			barectf_trace_activity_end(&c->ctx, a, b, (uint32_t)x);
		} else if (!strcmp(ev, "send") &&
			   sscanf(line, "%*u %*u %*s %llu %llu %llu", &x, &y,
				  &z) == 3) {
			barectf_trace_msg_send(&c->ctx, x, (uint32_t)y,
					       (uint32_t)z);
		} else if (!strcmp(ev, "recv") &&
			   sscanf(line, "%*u %*u %*s %llu %llu %llu", &x, &y,
				  &z) == 3) {
			barectf_trace_msg_recv(&c->ctx, x, (uint32_t)y,
					       (uint32_t)z);
		} else {
			fprintf(stderr, "mktrace: line %u: bad event line\n",
				lineno);
			return 1;
		}
	}
	return 0;
}

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((rng_state >> 33) % n);
}

/* Sets the clock to @t, never before the core's last event. */
static void at(uint64_t *last, uint64_t t)
{
	if (t < *last) {
		t = *last;
	}
	core_clock_ns = *last = t;
}

/*
 * Every core covers the same 2 s: time advances in random steps sized
 * by the core's share of the events. Frame f starts at f * 10 ms: on
 * core 0 path_begin, alloc (0.5 ms), one message to each other core,
 * gather (0.5 ms) from 3 ms on; on core k the message's receive and
 * work_<k> (0.5 to 1 ms).
 */
static int synthetic(unsigned long long nr_events, unsigned nr_cores)
{
	static const char *const tasks[] = {"idle", "worker", "hp_task",
					    "logger", "net"};
	const uint64_t span_ns = 2000000000ull;
	const uint64_t frame_ns = 10000000ull;
	const unsigned nr_frames = (unsigned)(span_ns / frame_ns) - 1;
	unsigned long long per_core = nr_events / nr_cores;
	unsigned k;

	for (k = 0; k < nr_cores; k++) {
		struct core *c;
		uint64_t step = per_core ? span_ns / per_core : span_ns;
		unsigned long long n = 0;
		unsigned cur = 0, f = 0, j;
		uint64_t t = 1000, last = 0;

		core_clock_ns = 1000; /* the first packet's beginning */
		c = core_get(k);

		if (!step) {
			step = 1;
		}
		while (n < per_core) {
			uint64_t ft = (uint64_t)f * frame_ns + 1000;

			if (f < nr_frames && t >= ft) {
				char name[32];

				at(&last, ft);
				if (k == 0) {
					barectf_trace_path_begin(&c->ctx,
								 "frame", f);
					barectf_trace_activity_begin(
					    &c->ctx, "frame", "alloc", f);
					at(&last, ft + frame_ns / 20);
					barectf_trace_activity_end(
					    &c->ctx, "frame", "alloc", f);
					for (j = 1; j < nr_cores; j++) {
						barectf_trace_msg_send(
						    &c->ctx,
						    (uint64_t)f * 64 + j, j,
						    4096);
					}
					at(&last,
					   ft + 3 * frame_ns / 10 +
					       rnd((uint32_t)(frame_ns / 10)));
					barectf_trace_activity_begin(
					    &c->ctx, "frame", "gather", f);
					at(&last, last + frame_ns / 20);
					barectf_trace_activity_end(
					    &c->ctx, "frame", "gather", f);
					n += 5 + nr_cores - 1;
				} else {
					snprintf(name, sizeof(name), "work_%u",
						 k);
					at(&last,
					   ft + frame_ns / 20 + 1000 +
					       rnd((uint32_t)(frame_ns / 50)));
					barectf_trace_msg_recv(
					    &c->ctx, (uint64_t)f * 64 + k, 0,
					    4096);
					barectf_trace_activity_begin(
					    &c->ctx, "frame", name, f);
					at(&last,
					   last + frame_ns / 20 +
					       rnd((uint32_t)(frame_ns / 20)));
					barectf_trace_activity_end(
					    &c->ctx, "frame", name, f);
					n += 3;
				}
				f++;
				if (last > t) {
					t = last;
				}
				continue;
			}
			at(&last, t);
			if (rnd(8) == 0) {
				barectf_trace_isr_enter(&c->ctx, 5 + k % 3);
				at(&last, t + step / 4);
				barectf_trace_isr_exit(&c->ctx, 5 + k % 3);
				n += 2;
			} else {
				unsigned next = rnd(5);

				if (next == cur) {
					next = (next + 1) % 5;
				}
				barectf_trace_task_switch(
				    &c->ctx, cur, tasks[cur], next, tasks[next],
				    (uint8_t)(10 + next));
				cur = next;
				n++;
			}
			t = last + 1 + rnd((uint32_t)(2 * step));
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: mktrace OUTDIR [--synthetic EVENTS "
				"CORES [SEED]] < SCRIPT\n");
		return 2;
	}
	outdir = argv[1];
	if (argc >= 5 && !strcmp(argv[2], "--synthetic")) {
		rng_state = argc > 5 ? strtoull(argv[5], NULL, 10) : 1;
		unsigned nr = (unsigned)strtoul(argv[4], NULL, 10);

		if (!nr || nr > CORE_MAX) {
			fprintf(stderr, "mktrace: 1 to %d cores\n", CORE_MAX);
			return 2;
		}
		ret = synthetic(strtoull(argv[3], NULL, 10), nr);
	} else {
		ret = script();
	}
	core_streams_close();
	return ret;
}
