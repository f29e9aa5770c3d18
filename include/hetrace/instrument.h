/* SPDX-License-Identifier: MIT */
#ifndef HETRACE_INSTRUMENT_H
#define HETRACE_INSTRUMENT_H

/*
 * Function tracing and profiling with gcc/clang -finstrument-functions
 * (docs/instrument.md). The compiler calls __cyg_profile_func_enter()
 * and __cyg_profile_func_exit() (runtime/instrument.c) around every
 * instrumented function; they hand the calls to the current core's
 * struct ht_instr, which:
 * - keeps a shadow stack (the functions being run, and for the profile
 *   their entry times),
 * - opens the recording window at the trigger's entry and closes it at
 *   the stopper's exit (both optional; conditions: the Nth call, only
 *   from a given caller),
 * - records func_entry / func_exit through the ops (the generated
 *   tracing functions of gen/include/hetrace-functions.yaml),
 * - accumulates the on-target profile (calls, inclusive, exclusive and
 *   max time per function) in a fixed table.
 *
 * Every byte is the caller's: the struct, the shadow stack, the table.
 * The hooks never allocate, never block, and never run twice at once on
 * one ht_instr: a call made while a hook runs (an instrumented platform
 * callback, an interrupt handler) is dropped and counted in `nested`.
 *
 * One ht_instr per core (per stream). ht_instr_start() makes it the
 * current one. On a hosted system with threads, compile
 * runtime/instrument.c with -DHT_PORT_INSTR_TLS=__thread (or the
 * compiler's thread-local keyword): each thread then has its own.
 *
 * Requires C99 and <stdint.h>, <stddef.h>, <string.h> only.
 */

#include <stddef.h>
#include <stdint.h>

#include "port.h"

/* Keeps the compiler from instrumenting a function (the hooks, glue). */
#if defined(__GNUC__) || defined(__clang__)
#define HT_NO_INSTRUMENT __attribute__((no_instrument_function))
#else
/* Without the attribute: compile such files without instrumentation. */
#define HT_NO_INSTRUMENT
#endif

/*
 * One entry of the shadow stack. `fn` is always set (below the
 * configured depth); the times only while the profile records.
 */
struct ht_instr_frame {
	uintptr_t fn;
	uint64_t t0;	/* entry time (profile clock) */
	uint64_t child; /* time spent in timed callees */
	uint32_t func;	/* index in the function table + 1; 0: none */
	uint32_t timed; /* entered while the profile recorded */
};

/*
 * One function of the on-target profile. Times are in profile clock
 * units (cycles). `addr` 0 marks a free slot.
 */
struct ht_instr_func {
	uintptr_t addr;
	uint32_t calls;	 /* every call, timed or not */
	uint32_t active; /* timed instances on the shadow stack */
	uint64_t incl;	 /* inclusive time of the outermost instances */
	uint64_t excl;	 /* exclusive time of every timed instance */
	uint64_t max;	 /* the longest inclusive time of one call */
};

/* What the profile and the hooks could not account for. */
struct ht_instr_stats {
	uint32_t
	    lost_calls; /* calls of functions the full table had no slot for */
	uint32_t
	    deep_calls; /* calls below the shadow stack: counted, not timed */
	uint32_t
	    unbalanced;	 /* exits that matched no entry, entries never exited */
	uint32_t nested; /* hook calls dropped: a hook was running */
	uint32_t discarded; /* func_entry/func_exit not written: buffer full */
};

/*
 * How the records are written: the generated tracing functions of
 * hetrace-functions.yaml, wrapped (in a file that is not instrumented,
 * or with HT_NO_INSTRUMENT). Any may be NULL: nothing is written.
 * `ctx` is ht_instr_config.ctx; `task` the current task id
 * (ht_instr_set_task(), 0 when the platform has none).
 */
struct ht_instr_ops {
	void (*entry)(void *ctx, uintptr_t fn, uintptr_t call_site,
		      uint32_t task);
	void (*exit)(void *ctx, uintptr_t fn, uint32_t task);
	/* func_base: the run-time address of the image's first byte */
	void (*base)(void *ctx, uintptr_t base);
	/* func_profile: one function of the on-target profile */
	void (*profile)(void *ctx, const struct ht_instr_func *f);
	/* func_profile_stats: what the profile lost */
	void (*stats)(void *ctx, const struct ht_instr_stats *st);
};

enum ht_instr_flags {
	HT_INSTR_TRACE = 1u << 0,   /* write func_entry / func_exit */
	HT_INSTR_PROFILE = 1u << 1, /* accumulate the on-target profile */
};

/*
 * The build-time configuration. Unset members (0, NULL) turn the
 * feature off. The trigger and stopper can be changed at run time.
 */
struct ht_instr_config {
	unsigned flags; /* enum ht_instr_flags */
	const struct ht_instr_ops *ops;
	void *ctx; /* the stream context the ops write to */

	/* Profile clock (cycles), and the memory of the profile. */
	uint64_t (*clock)(void *ctx);
	struct ht_instr_frame *stack; /* the shadow stack */
	uint32_t stack_depth;	      /* its number of frames */
	struct ht_instr_func *funcs;  /* the function table */
	uint32_t nr_funcs;	      /* a power of two */

	/* The recording window (0: none; see ht_instr_set_trigger()). */
	uintptr_t trigger;
	uint32_t trigger_nth;
	uintptr_t trigger_caller;
	uintptr_t stopper;

	/* The image's load address, written as func_base at start. */
	uintptr_t image_base;
};

/* The per-core state. Members are private to runtime/instrument.c. */
struct ht_instr {
	/* Read by every hook call. */
	volatile int busy; /* a hook is running */
	volatile int off;  /* not started, disabled or stopped */
	int on;		   /* inside the recording window */
	int watch;	   /* a trigger or a stopper is set */
	uint32_t depth;	   /* shadow stack depth, untruncated */
	uint32_t task;
	unsigned flags;
	const struct ht_instr_ops *rec; /* entry/exit: ops, or counting */
	void *rec_ctx;			/* their ctx: ctx, or this struct */
	const struct ht_instr_ops *ops;
	void *ctx;
	uint64_t (*clock)(void *ctx);
	struct ht_instr_frame *stack;
	uint32_t stack_depth;
	struct ht_instr_func *funcs;
	uint32_t funcs_mask; /* nr_funcs - 1; funcs NULL: no profile */

	/* The window. */
	uintptr_t trigger, trigger_caller, stopper;
	uint32_t trigger_nth, trigger_seen;
	uint32_t window_depth; /* depth of the trigger call that opened it */
	int window_done;       /* a stopper without trigger closed it */

	uintptr_t image_base;
	int disabled; /* ht_instr_disable() */
	int stopped;  /* ht_instr_stop() */
	struct ht_instr_stats stats;
};

/*
 * Prepares @in from @cfg: stopped, nothing recorded until
 * ht_instr_start(). Clears the function table. Returns 0, or -1 when
 * the configuration is invalid (nr_funcs not a power of two, profile
 * without clock, stack or table).
 */
HT_NO_INSTRUMENT int ht_instr_init(struct ht_instr *in,
				   const struct ht_instr_config *cfg);

/*
 * Makes @in the current instrumentation (of this thread with
 * HT_PORT_INSTR_TLS) and starts it: writes func_base, then the hooks
 * record. The shadow stack starts empty: the functions being run now
 * are not on it (their exits are counted as unbalanced).
 */
HT_NO_INSTRUMENT void ht_instr_start(struct ht_instr *in);

/* Stops recording for good and detaches @in from the hooks. */
HT_NO_INSTRUMENT void ht_instr_stop(struct ht_instr *in);

/*
 * Run-time disable / enable, e.g. around a critical section: while
 * disabled the hooks return at once (nothing recorded, nothing
 * counted). Calls entered before disable() and exited after enable()
 * are recorded normally.
 */
HT_NO_INSTRUMENT static inline void ht_instr_disable(struct ht_instr *in)
{
	in->disabled = 1;
	in->off = 1;
	/* The flag is set before the code that must not be traced runs. */
	HT_COMPILER_BARRIER();
}

HT_NO_INSTRUMENT static inline void ht_instr_enable(struct ht_instr *in)
{
	HT_COMPILER_BARRIER();
	in->disabled = 0;
	in->off = in->stopped;
}

/*
 * Sets the trigger at run time: recording starts at the entry of @fn
 * (0: at once). @nth: only its Nth call (1-based; 0: every call, each
 * reopening the window after the stopper closed it). @caller: only
 * when called from the function at @caller (0: from anywhere).
 */
HT_NO_INSTRUMENT void ht_instr_set_trigger(struct ht_instr *in, uintptr_t fn,
					   uint32_t nth, uintptr_t caller);

/*
 * Sets the stopper: recording stops after the exit of @fn (0: never).
 * When the stopper is the trigger, the window closes at the exit of the
 * very call that opened it (recursion included).
 */
HT_NO_INSTRUMENT void ht_instr_set_stopper(struct ht_instr *in, uintptr_t fn);

/* The current task id, written with each record (0: none). */
HT_NO_INSTRUMENT static inline void ht_instr_set_task(struct ht_instr *in,
						      uint32_t task)
{
	in->task = task;
}

/*
 * The platform's back end is full and the buffer is in fixed mode
 * (keep the first records): stop writing func_entry / func_exit. Call
 * it from the stream's is_backend_full callback when it returns true
 * (it is safe there: the hook that was writing holds the guard); that
 * record is the stream's to count. The hooks go on: the shadow stack,
 * the window and the on-target profile stay exact, and every record
 * that would have been written is counted in `stats.discarded`
 * (ht_instr_discarded()), for the platform to add to the stream's
 * events_discarded before its last packet closes.
 */
HT_NO_INSTRUMENT void ht_instr_buffer_full(struct ht_instr *in);

/*
 * The func_entry / func_exit records not written since the buffer was
 * full (ht_instr_buffer_full()); 0 before.
 */
HT_NO_INSTRUMENT static inline uint32_t
ht_instr_discarded(const struct ht_instr *in)
{
	return in->stats.discarded;
}

/* True while the recording window is open. */
HT_NO_INSTRUMENT static inline int ht_instr_is_on(const struct ht_instr *in)
{
	return in->on && !in->off;
}

/*
 * Writes the on-target profile through ops->profile (one record per
 * function with calls) and ops->stats. Call it outside instrumented
 * code's critical paths: it walks the whole table.
 */
HT_NO_INSTRUMENT void ht_instr_profile_dump(struct ht_instr *in);

/* The function table entry of @fn, or NULL. */
HT_NO_INSTRUMENT const struct ht_instr_func *
ht_instr_profile_find(const struct ht_instr *in, uintptr_t fn);

/* The hooks the compiler calls (runtime/instrument.c). */
HT_NO_INSTRUMENT void __cyg_profile_func_enter(void *fn, void *call_site);
HT_NO_INSTRUMENT void __cyg_profile_func_exit(void *fn, void *call_site);

#endif
