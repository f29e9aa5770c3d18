/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_FUNC_SLICES_H
#define HT_HOST_FUNC_SLICES_H

/*
 * Function slices from a trace's func_entry / func_exit records
 * (gen/include/hetrace-functions.yaml, docs/instrument.md), named from
 * ELF files, per core: what `hetrace profile`, the Perfetto export and
 * the report show.
 *
 * Streaming: feed every message of a trace set (host/ctf/ctf-reader.h) to
 * ht_func_slices_feed(), then call ht_func_slices_finish(). Each call arrives
 * twice through the callbacks: `enter` when it begins (end_ns not known yet)
 * and `slice` when it ends, children before their parent. Memory is
 * the open calls' stacks and the cores' tables, not the trace.
 *
 * A core here is one data stream (docs/events.md says how it is named:
 * packet context core_id -> env core_<id>_name, else env core_name,
 * else the stream's file name; streams of one name get "/<file>").
 * Within a core, calls are kept on one stack per task id (the event's
 * common context field `tid` or `vtid`, 0 without it).
 *
 * Bad input is counted, never turned into a negative time:
 * - an exit whose function is below the top of the stack closes the
 *   calls above it at the exit's time (forced_end; `missing_exits`);
 * - an exit whose function is not on the stack at all (the trace began
 *   inside it: overwrite mode, a trigger, lost events) is skipped
 *   (`unmatched_exits`);
 * - calls still open at the end are closed at the core's last time
 *   (forced_end; `unclosed`);
 * - a time going backwards is clamped to the core's last time.
 * Losses of the stream (discarded events, lost packets) are summed per
 * core for the caller to say how much of the run the records cover.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/ctf/ctf-reader.h"
#include "func-symbols.h"

struct ht_func_slices; /* opaque */

/* The on-target profile of one function, as dumped (func_profile). */
struct ht_func_dumped {
	uint64_t addr;
	uint64_t calls;
	uint64_t incl_cycles, excl_cycles, max_cycles;
};

/* A core (a stream) and its totals; valid until ht_func_slices_destroy(). */
struct ht_func_core {
	unsigned index; /* 0.. in order of first appearance */
	const char *name;
	const struct ht_ctf_stream *stream;
	uint64_t clock_freq_hz; /* the stream's clock, 0 without */
	bool has_base;
	uint64_t base;	   /* func_base: the image's run-time first byte */
	uint64_t bias;	   /* run-time minus link-time addresses */
	bool bias_guessed; /* no func_base: guessed from the addresses */
	struct ht_func_symbols *syms; /* the ELF for this core, or NULL */
	uint64_t entries, exits;
	uint64_t missing_exits;	  /* calls closed by an outer exit */
	uint64_t unmatched_exits; /* exits with no open call */
	uint64_t unclosed;	  /* calls open at the end */
	uint64_t time_backwards;
	unsigned max_depth;
	bool has_time;
	int64_t first_ns, last_ns;
	/* the on-target profile, when the trace holds a dump */
	const struct ht_func_dumped *dumped;
	size_t nr_dumped;
	bool has_dump_stats;
	uint64_t dump_lost_calls, dump_deep_calls, dump_unbalanced, dump_nested;
	/* what the stream lost (after ht_func_slices_finish()): events
	 * the target did not write (events_discarded), packets lost
	 * (packet_seq_num gaps, or a first packet past 0: overwritten) */
	uint64_t discarded_events, lost_packets;
};

/* A call of a function on a core. */
struct ht_func_slice {
	const struct ht_func_core *core;
	uint32_t tid;	    /* 0 without a tid context */
	uint64_t addr;	    /* the function (run time) */
	uint64_t call_site; /* where it was called from, 0 if unknown */
	unsigned depth;	    /* 0 for an outermost call of its stack */
	int64_t begin_ns;
	int64_t end_ns;	   /* `slice` only */
	uint64_t excl_ns;  /* `slice` only: minus its callees' time */
	bool forced_end;   /* `slice` only: closed without its exit */
	void *parent_user; /* the caller's *user (NULL at depth 0) */
};

struct ht_func_slices_opts {
	/* A call begins; *@user (NULL on entry) is kept with it and given
	 * back in its callees' parent_user and to `slice` as @user. */
	void (*enter)(void *arg, const struct ht_func_slice *s, void **user);
	/* A call ends. */
	void (*slice)(void *arg, const struct ht_func_slice *s, void *user);
	void *arg;
	/* Open calls kept per stack (deeper ones are counted, not
	 * sliced); 0: 1 << 20. */
	unsigned max_depth;
};

/* Creates a tracker. @opts may be NULL. Returns 0 or HT_ENOMEM. */
int ht_func_slices_create(struct ht_func_slices **f,
			  const struct ht_func_slices_opts *opts);

/* Releases the tracker (not the symbols given to it). NULL allowed. */
void ht_func_slices_destroy(struct ht_func_slices *f);

/*
 * Names the functions of the cores called @core (a core name; NULL:
 * every core without its own) from @sy (kept, not owned). Call before
 * feeding. Returns 0 or HT_ENOMEM.
 */
int ht_func_slices_add_symbols(struct ht_func_slices *f, const char *core,
			       struct ht_func_symbols *sy);

/*
 * Feeds one reader message. Returns 0, HT_ENOMEM, or HT_EFORMAT when a
 * function record lacks its `addr` field (*@err says where, unless
 * @err_len is 0; the record is skipped and the caller may go on).
 */
int ht_func_slices_feed(struct ht_func_slices *f, const struct ht_ctf_msg *msg,
			char *err, size_t err_len);

/* Closes every open call at its core's last time. Call once. */
void ht_func_slices_finish(struct ht_func_slices *f);

/* The cores seen so far. */
size_t ht_func_slices_nr_cores(const struct ht_func_slices *f);
const struct ht_func_core *ht_func_slices_core(const struct ht_func_slices *f,
					       size_t i);

/*
 * The name of the function at run-time address @addr of @core: the ELF
 * symbol starting exactly there, or NULL (no ELF, stripped, or not a
 * function start of that ELF: a mismatched file). Without func_base
 * for a position-independent ELF, the bias is guessed from the
 * addresses seen so far (core->bias_guessed).
 */
const char *ht_func_slices_name(struct ht_func_slices *f,
				const struct ht_func_core *core, uint64_t addr);

/*
 * Of the distinct function addresses seen on @core, how many have a
 * name (*@named) out of how many (*@total).
 */
void ht_func_slices_name_stats(struct ht_func_slices *f,
			       const struct ht_func_core *core, size_t *named,
			       size_t *total);

#endif
