/* SPDX-License-Identifier: MIT */
#ifndef TRACE_GLUE_H
#define TRACE_GLUE_H

/*
 * Function tracing on Linux (docs/instrument.md): one packet ring, one
 * stream and one struct ht_instr per thread, the ring written to a CTF
 * stream file at the end. This file and trace-glue.c are compiled
 * WITHOUT -finstrument-functions; the program's own files with it.
 */
#include <stdint.h>

#include "hetrace/instrument.h"
#include "hetrace/packet-ring.h"

struct glue_opts {
	const char *path;	/* stream file written at the end; NULL: none */
	enum ht_ring_mode mode; /* HT_RING_OVERWRITE: keep the newest;
				 * HT_RING_DISCARD: fixed, keep the first
				 * (plus slots kept for the dump and the
				 * last packet) */
	uint32_t slot_size;	/* packet size, bytes (default 4096) */
	uint32_t nr_slots;	/* default 64 */
	unsigned flags;		/* HT_INSTR_TRACE | HT_INSTR_PROFILE */
	uint32_t stack_depth;	/* shadow stack (default 256) */
	uint32_t nr_funcs;	/* profile table (default 1024) */
	uintptr_t trigger, trigger_caller, stopper;
	uint32_t trigger_nth;
	uint32_t core_id;
	uint32_t tid; /* the task id at start; 0: the thread's (gettid) */
	/* Task switches (include/hetrace/instrument.h): the switch
	 * functions, who runs (NULL: ht_instr_set_task()), the tasks
	 * registered at start (their names, priorities, shadow stacks). */
	const uintptr_t *switch_fns;
	uint32_t nr_switch_fns;
	uint32_t (*current_task)(void *ctx);
	struct ht_instr_task *tasks;
	uint32_t nr_tasks;
};

struct glue;

/* Sets up and starts this thread's tracing; NULL on failure (stderr). */
struct glue *glue_start(const struct glue_opts *o);

/* The thread's instrumentation (for enable/disable, trigger...). */
struct ht_instr *glue_instr(struct glue *g);

/*
 * Stops, dumps the on-target profile (with HT_INSTR_PROFILE) into the
 * trace, closes the last packet with the count of every record not
 * written (events_discarded), writes the ring's packets to o->path,
 * frees. Returns 0 or -1.
 */
int glue_finish(struct glue *g);

#endif
