/* SPDX-License-Identifier: MIT */
/*
 * Linux glue of the function tracer (trace-glue.h): the generated
 * tracing functions of config.yaml (hetrace gen), a packet ring in
 * process memory bound to the stream (include/hetrace/ring-stream.h),
 * the struct ht_instr ops that write func_* records. Not instrumented.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef GLUE_RDTSC
#include <x86intrin.h>
/* The time stamp counter: the cheapest clock on x86 (bench/). */
static inline uint64_t glue_clock(void *data)
{
	(void)data;
	return __rdtsc();
}
#else
static inline uint64_t glue_clock(void *data)
{
	struct timespec ts;

	(void)data;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif
#define HT_CLOCK_CLK_FN glue_clock

#include "hetrace/ring-stream.h"
#include "hti-trace.h"
#include "trace-glue.h"

/*
 * Fixed mode keeps slots for the end: the last packet, which carries
 * events_discarded, and the on-target profile's dump. Bounds from the
 * generated hti-trace.h of config.yaml: the packet header and context
 * take 64 bytes; the largest dump record, func_profile, is 16 bytes of
 * extended header and at most 56 of fields (tid, addr, calls, incl,
 * excl, max, worst-case alignment included).
 */
#define GLUE_PACKET_HEAD 64u
#define GLUE_DUMP_RECORD_MAX 72u

struct glue {
	struct hti_core_ctx ctx; /* first: the ops get &ctx */
	struct glue_opts o;
	uint32_t reserve; /* slots kept for the end (fixed mode) */
	int finishing;	  /* glue_finish(): the kept slots are free */
	struct ht_ring *ring;
	void *mem;
	struct ht_ring_stream rs;
	struct ht_instr in;
	struct ht_instr_frame *stack;
	struct ht_instr_func *funcs;
	uint8_t placeholder[64];
};

static void emit_entry(void *ctx, uintptr_t fn, uintptr_t site, uint32_t task)
{
	hti_trace_func_entry(ctx, task, fn, site);
}

static void emit_exit(void *ctx, uintptr_t fn, uint32_t task)
{
	hti_trace_func_exit(ctx, task, fn);
}

static void emit_base(void *ctx, uintptr_t base)
{
	hti_trace_func_base(ctx, 0, base);
}

static void emit_profile(void *ctx, const struct ht_instr_func *f)
{
	hti_trace_func_profile(ctx, 0, f->addr, f->calls, f->incl, f->excl,
			       f->max);
}

static void emit_stats(void *ctx, const struct ht_instr_stats *st)
{
	hti_trace_func_profile_stats(ctx, 0, st->lost_calls, st->deep_calls,
				     st->unbalanced, st->nested);
}

static void emit_task_switch(void *ctx, uint32_t prev, uint32_t next,
			     int32_t next_prio)
{
	hti_trace_func_task_switch(ctx, next, prev, next, next_prio);
}

static void emit_task_name(void *ctx, uint32_t tid, int32_t prio,
			   const char *name)
{
	hti_trace_func_task_name(ctx, tid, tid, prio, name);
}

static const struct ht_instr_ops ops = {
    .entry = emit_entry,
    .exit = emit_exit,
    .base = emit_base,
    .profile = emit_profile,
    .stats = emit_stats,
    .task_switch = emit_task_switch,
    .task_name = emit_task_name,
};

static void open_cb(void *ctx)
{
	hti_core_open_packet(ctx);
}

static void close_cb(void *ctx)
{
	hti_core_close_packet(ctx);
}

/*
 * Fixed mode: the first full ring stops the records for good (the
 * hooks count the ones not written). Until glue_finish(), the last
 * `reserve` slots count as taken.
 */
static int is_full_cb(void *data)
{
	struct ht_ring_stream *rs = data;
	struct glue *g = (struct glue *)rs->ctx;
	uint32_t used = rs->ring->head - rs->ring->tail;

	if (ht_ring_stream_is_full(data)) {
		ht_instr_buffer_full(&g->in);
		return 1;
	}
	if (g->reserve && !g->finishing &&
	    used >= rs->ring->nr_slots - g->reserve) {
		ht_ring_note_full(rs->ring);
		ht_instr_buffer_full(&g->in);
		return 1;
	}
	return 0;
}

/*
 * The slots glue_finish() needs in fixed mode: one for the last packet
 * (events_discarded), or those of the dump (one record per function of
 * the table and the stats; its last packet carries the count). 0 when
 * a slot is too small for a dump record.
 */
static uint32_t reserve_slots(const struct glue_opts *o)
{
	uint32_t per_slot, records;

	if (o->slot_size <= GLUE_PACKET_HEAD + GLUE_DUMP_RECORD_MAX) {
		return 0;
	}
	if (!(o->flags & HT_INSTR_PROFILE)) {
		return 1;
	}
	per_slot = (o->slot_size - GLUE_PACKET_HEAD) / GLUE_DUMP_RECORD_MAX;
	records = o->nr_funcs + 1u;
	return (records + per_slot - 1u) / per_slot;
}

static uint64_t profile_clock(void *ctx)
{
	return glue_clock(ctx);
}

/* The image's first byte at run time (GNU ld defines the symbol). */
extern char __executable_start;

struct glue *glue_start(const struct glue_opts *opts)
{
	struct hti_platform_callbacks cbs = {0};
	struct ht_instr_config cfg;
	struct glue *g = calloc(1, sizeof(*g));
	uint32_t total, k;

	if (!g) {
		return NULL;
	}
	g->o = *opts;
	if (!g->o.slot_size) {
		g->o.slot_size = 4096;
	}
	if (!g->o.nr_slots) {
		g->o.nr_slots = 64;
	}
	if (!g->o.stack_depth) {
		g->o.stack_depth = 256;
	}
	if (!g->o.nr_funcs) {
		g->o.nr_funcs = 1024;
	}
	if (g->o.mode == HT_RING_DISCARD) {
		g->reserve = reserve_slots(&g->o);
		if (!g->reserve) {
			fprintf(stderr,
				"glue: slots of %u bytes are too small\n",
				g->o.slot_size);
			goto fail;
		}
	}
	total = 4096 + g->o.slot_size * (g->o.nr_slots + g->reserve);
	g->mem = aligned_alloc(64, total);
	g->stack = calloc(g->o.stack_depth, sizeof(*g->stack));
	g->funcs = calloc(g->o.nr_funcs, sizeof(*g->funcs));
	if (!g->mem || !g->stack || !g->funcs) {
		goto fail;
	}
	g->ring = ht_ring_init(g->mem, total, g->o.slot_size, g->o.mode,
			       g->o.core_id, "main", NULL, 0);
	if (!g->ring) {
		fprintf(stderr, "glue: cannot lay out the ring\n");
		goto fail;
	}
	g->rs.ring = g->ring;
	g->rs.ctx = &g->ctx;
	g->rs.set_buf = hti_packet_set_buf;
	g->rs.is_open = hti_packet_is_open;
	g->rs.is_empty = hti_packet_is_empty;
	g->rs.open = open_cb;
	g->rs.close = close_cb;
	cbs.clk_clock_get_value = glue_clock;
	cbs.is_backend_full = is_full_cb;
	cbs.open_packet = ht_ring_stream_open;
	cbs.close_packet = ht_ring_stream_close;
	hti_init(&g->ctx, g->placeholder, sizeof(g->placeholder), cbs, &g->rs);
	hti_set_core_id(&g->ctx, g->o.core_id);
	ht_ring_stream_start(&g->rs);

	memset(&cfg, 0, sizeof(cfg));
	cfg.flags = g->o.flags;
	cfg.ops = &ops;
	cfg.ctx = &g->ctx;
	cfg.clock = profile_clock;
	cfg.stack = g->stack;
	cfg.stack_depth = g->o.stack_depth;
	cfg.funcs = g->funcs;
	cfg.nr_funcs = g->o.nr_funcs;
	cfg.trigger = g->o.trigger;
	cfg.trigger_nth = g->o.trigger_nth;
	cfg.trigger_caller = g->o.trigger_caller;
	cfg.stopper = g->o.stopper;
	cfg.image_base = (uintptr_t)&__executable_start;
	cfg.current_task = g->o.current_task;
	if (ht_instr_init(&g->in, &cfg) ||
	    ht_instr_set_switch_fns(&g->in, g->o.switch_fns,
				    g->o.nr_switch_fns)) {
		fprintf(stderr, "glue: invalid instrumentation config\n");
		goto fail;
	}
	for (k = 0; k < g->o.nr_tasks; k++) {
		ht_instr_task_add(&g->in, &g->o.tasks[k]);
	}
	ht_instr_set_task(&g->in,
			  g->o.tid ? g->o.tid : (uint32_t)syscall(SYS_gettid));
	ht_instr_start(&g->in);
	return g;

fail:
	free(g->mem);
	free(g->stack);
	free(g->funcs);
	free(g);
	return NULL;
}

struct ht_instr *glue_instr(struct glue *g)
{
	return &g->in;
}

int glue_finish(struct glue *g)
{
	uint32_t k, first;
	int ret = 0;
	FILE *out;

	if (g->o.mode == HT_RING_OVERWRITE) {
		/* The newest packets name the tasks. */
		ht_instr_task_names(&g->in);
	}
	ht_instr_stop(&g->in);
	/* The records the hooks did not write reach events_discarded of
	 * the last packet; the dump and that packet take the kept slots. */
	g->finishing = 1;
	ht_stream_add_discarded(&g->ctx.parent.s, ht_instr_discarded(&g->in));
	if (g->o.flags & HT_INSTR_PROFILE) {
		ht_instr_profile_dump(&g->in);
	}
	ht_ring_stream_stop(&g->rs);
	if (g->o.path) {
		out = fopen(g->o.path, "wb");
		if (!out) {
			perror(g->o.path);
			ret = -1;
		} else {
			/* Overwrite mode keeps the last nr_slots packets. */
			first = g->ring->head > g->ring->nr_slots
				    ? g->ring->head - g->ring->nr_slots
				    : 0;
			for (k = first; k != g->ring->head; k++) {
				if (fwrite(ht_ring_slot_of(g->ring, k), 1,
					   g->ring->slot_size,
					   out) != g->ring->slot_size) {
					ret = -1;
				}
			}
			if (fclose(out)) {
				ret = -1;
			}
		}
	}
	free(g->mem);
	free(g->stack);
	free(g->funcs);
	free(g);
	return ret;
}
