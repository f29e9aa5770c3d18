/*
 * A three-core board traced with code generated from board.yaml
 * (the export and states tests, bench/export.sh): one stream
 * file per core in OUTDIR, each with its core_id.
 *
 *   board OUTDIR < SCRIPT     one event per line: CORE TIME_NS EVENT ARGS
 *   board OUTDIR bench N      about N events of a fixed pattern
 *
 * Script events (arguments in the order of hetrace-events.yaml):
 *   task_switch PREV_TID PREV_NAME NEXT_TID NEXT_NAME PRIO
 *   isr_enter IRQ | isr_exit IRQ
 *   task_block OBJECT(hex) KIND | task_wake TID OBJECT(hex)
 *   msg_send ID DST SIZE | msg_recv ID SRC SIZE
 *   func_entry FN CALL_SITE | func_exit FN CALL_SITE
 *   sample VALUE DELTA LABEL
 *   sync_req SEQ SLAVE | sync_ack SEQ | sync_notify SEQ | sync_recv SEQ SLAVE
 *   path_begin PATH INSTANCE | activity_begin PATH ACT INSTANCE |
 *   activity_end PATH ACT INSTANCE
 * The clock reads the line's time, so the trace holds exactly those.
 * Prints "events N" (events written) at the end.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "barectf.h"

#define CORE_MAX 3
#define CORE_PACKET_SIZE 4096
#include "tests/core-streams.h"

static const char *outdir;
static uint64_t nr_events;

/* Counts the event it is called for. */
static struct barectf_core_ctx *core(unsigned id)
{
	if (id >= CORE_MAX) {
		fprintf(stderr, "board: no core %u\n", id);
		exit(2);
	}
	nr_events++;
	return &core_stream(id, outdir, "stream_")->ctx;
}

static void finish(void)
{
	core_streams_close();
	printf("events %" PRIu64 "\n", nr_events);
}

static void bad(unsigned line, const char *text)
{
	fprintf(stderr, "board: line %u: cannot parse: %s", line, text);
	exit(2);
}

static void run_script(void)
{
	char line[1024], ev[64], s1[256], s2[256];
	unsigned lineno = 0, c;
	unsigned long long t, a, b, d;
	long long sd;
	int n;

	while (fgets(line, sizeof(line), stdin)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n') {
			continue;
		}
		if (sscanf(line, "%u %llu %63s %n", &c, &t, ev, &n) < 3) {
			bad(lineno, line);
		}
		core_clock_ns = t;
		const char *r = line + n;

		if (!strcmp(ev, "task_switch")) {
			if (sscanf(r, "%llu %255s %llu %255s %llu", &a, s1, &b,
				   s2, &d) != 5) {
				bad(lineno, line);
			}
			barectf_core_trace_task_switch(core(c), a, s1, b, s2,
						       d);
		} else if (!strcmp(ev, "isr_enter") ||
			   !strcmp(ev, "isr_exit")) {
			if (sscanf(r, "%llu", &a) != 1) {
				bad(lineno, line);
			}
			if (ev[4] == 'e' && ev[5] == 'n') {
				barectf_core_trace_isr_enter(core(c), a);
			} else {
				barectf_core_trace_isr_exit(core(c), a);
			}
		} else if (!strcmp(ev, "msg_send") || !strcmp(ev, "msg_recv")) {
			if (sscanf(r, "%llu %llu %llu", &a, &b, &d) != 3) {
				bad(lineno, line);
			}
			if (ev[4] == 's') {
				barectf_core_trace_msg_send(core(c), a, b, d);
			} else {
				barectf_core_trace_msg_recv(core(c), a, b, d);
			}
		} else if (!strcmp(ev, "func_entry") ||
			   !strcmp(ev, "func_exit")) {
			if (sscanf(r, "%llx %llx", &a, &b) != 2) {
				bad(lineno, line);
			}
			if (ev[5] == 'e' && ev[6] == 'n') {
				barectf_core_trace_func_entry(core(c), a, b);
			} else {
				barectf_core_trace_func_exit(core(c), a, b);
			}
		} else if (!strcmp(ev, "task_block")) {
			if (sscanf(r, "%llx %llu", &a, &b) != 2) {
				bad(lineno, line);
			}
			barectf_core_trace_task_block(core(c), a, b);
		} else if (!strcmp(ev, "task_wake")) {
			if (sscanf(r, "%llu %llx", &a, &b) != 2) {
				bad(lineno, line);
			}
			barectf_core_trace_task_wake(core(c), a, b);
		} else if (!strcmp(ev, "sample")) {
			if (sscanf(r, "%llu %lld %255s", &a, &sd, s1) != 3) {
				bad(lineno, line);
			}
			barectf_core_trace_sample(core(c), a, (int32_t)sd, s1);
		} else if (!strcmp(ev, "sync_req") ||
			   !strcmp(ev, "sync_recv")) {
			if (sscanf(r, "%llu %llu", &a, &b) != 2) {
				bad(lineno, line);
			}
			if (ev[5] == 'r' && ev[6] == 'e' && ev[7] == 'q') {
				barectf_core_trace_sync_req(core(c), a, b);
			} else {
				barectf_core_trace_sync_recv(core(c), a, b);
			}
		} else if (!strcmp(ev, "sync_ack") ||
			   !strcmp(ev, "sync_notify")) {
			if (sscanf(r, "%llu", &a) != 1) {
				bad(lineno, line);
			}
			if (ev[5] == 'a') {
				barectf_core_trace_sync_ack(core(c), a);
			} else {
				barectf_core_trace_sync_notify(core(c), a);
			}
		} else if (!strcmp(ev, "path_begin")) {
			if (sscanf(r, "%255s %llu", s1, &a) != 2) {
				bad(lineno, line);
			}
			barectf_core_trace_path_begin(core(c), s1, a);
		} else if (!strcmp(ev, "activity_begin") ||
			   !strcmp(ev, "activity_end")) {
			if (sscanf(r, "%255s %255s %llu", s1, s2, &a) != 3) {
				bad(lineno, line);
			}
			if (ev[9] == 'b') {
				barectf_core_trace_activity_begin(core(c), s1,
								  s2, a);
			} else {
				barectf_core_trace_activity_end(core(c), s1, s2,
								a);
			}
		} else {
			bad(lineno, line);
		}
	}
}

/*
 * The benchmark pattern, per round of 3 cores: a task switch, an
 * interrupt (enter/exit), a function call (entry/exit), a sample, and
 * a message from this core to the next one (send here, receive there):
 * 8 events per core and round, every message matched.
 */
static void run_bench(uint64_t n)
{
	static const char *const names[4] = {"idle", "control", "filter",
					     "comm"};
	uint64_t round, rounds = n / (8 * CORE_MAX) + 1, id = 1;
	unsigned c;

	core_clock_ns = 1000;
	for (round = 0; round < rounds; round++) {
		for (c = 0; c < CORE_MAX; c++) {
			unsigned prev = round % 4, next = (round + 1) % 4;
			unsigned dst = (c + 1) % CORE_MAX;

			core_clock_ns += 100;
			barectf_core_trace_task_switch(
			    core(c), prev, names[prev], next, names[next], 5);
			core_clock_ns += 50;
			barectf_core_trace_isr_enter(core(c), 11);
			core_clock_ns += 20;
			barectf_core_trace_isr_exit(core(c), 11);
			core_clock_ns += 10;
			barectf_core_trace_func_entry(core(c), 0x4000 + c * 16,
						      0x1000);
			core_clock_ns += 30;
			barectf_core_trace_sample(core(c), (uint32_t)round, -1,
						  "s");
			core_clock_ns += 10;
			barectf_core_trace_func_exit(core(c), 0x4000 + c * 16,
						     0x1000);
			core_clock_ns += 10;
			barectf_core_trace_msg_send(core(c), id, dst, 64);
			core_clock_ns += 40;
			barectf_core_trace_msg_recv(core(dst), id, c, 64);
			id++;
		}
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: board OUTDIR [bench N] < SCRIPT\n");
		return 2;
	}
	outdir = argv[1];
	if (argc == 4 && !strcmp(argv[2], "bench")) {
		run_bench(strtoull(argv[3], NULL, 10));
	} else {
		run_script();
	}
	finish();
	return 0;
}
