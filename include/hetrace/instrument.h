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
 *   max time per function) in a fixed table,
 * - turns the entry and exit of configured switch functions (an RTOS's
 *   context switch routine) into func_task_switch records, and keeps
 *   one shadow stack per registered task across those switches
 *   (gen/include/hetrace-tasks.yaml; the rule below, at
 *   ht_instr_set_switch_fns()).
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

/* Switch functions at most (ht_instr_set_switch_fns()). */
#define HT_INSTR_MAX_SWITCH_FNS 4

/*
 * A task the instrumentation knows (ht_instr_task_add()): its name and
 * priority, written once as func_task_name, and its own shadow stack.
 * The memory is the caller's and stays registered until
 * ht_instr_stop().
 */
struct ht_instr_task {
	uint32_t tid;
	int32_t prio;		      /* written with the switches to it */
	const char *name;	      /* NULL: no func_task_name record */
	struct ht_instr_frame *stack; /* its shadow stack; NULL: it shares
				       * the core's (config.stack) */
	uint32_t stack_depth;	      /* frames of .stack */
	/* Private to runtime/instrument.c. */
	uint32_t depth; /* its shadow stack depth while switched out */
	struct ht_instr_task *next;
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
	/* func_task_switch: the core runs task @next (priority @next_prio,
	 * 0 when not registered) in place of @prev */
	void (*task_switch)(void *ctx, uint32_t prev, uint32_t next,
			    int32_t next_prio);
	/* func_task_name: task @tid is called @name */
	void (*task_name)(void *ctx, uint32_t tid, int32_t prio,
			  const char *name);
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

	/* Switch functions (0: unused; see ht_instr_set_switch_fns()). */
	uintptr_t switch_fns[HT_INSTR_MAX_SWITCH_FNS];
	/* The task running now, asked only while a switch function runs;
	 * NULL: the task of ht_instr_set_task(). */
	uint32_t (*current_task)(void *ctx);
};

/* The per-core state. Members are private to runtime/instrument.c. */
struct ht_instr {
	/* Read by every hook call. */
	volatile int busy; /* a hook is running */
	volatile int off;  /* not started, disabled or stopped */
	int on;		   /* inside the recording window */
	int watch;	   /* a trigger, a stopper or a switch fn is set */
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

	/* Task switches (ht_instr_set_switch_fns()). */
	uintptr_t switch_fns[HT_INSTR_MAX_SWITCH_FNS];
	uint32_t nr_switch_fns;
	int switching; /* a switch function was entered: look for a switch */
	uint32_t (*current_task)(void *ctx);
	uint32_t stack_task;	     /* the task whose shadow stack is loaded */
	struct ht_instr_task *cur;   /* its entry, NULL: the core's stack */
	struct ht_instr_task *tasks; /* the registered tasks */
	struct ht_instr_frame *core_stack; /* config.stack */
	uint32_t core_stack_depth;
	uint32_t core_depth; /* the core stack's depth while not loaded */
	uint32_t core_owner; /* the task whose calls are on the core stack */
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

/*
 * The current task id, written with each record (0: none). With switch
 * functions and no current_task callback, the port calls it from its
 * switch code: the switch is recorded at the next hook while a switch
 * function runs.
 */
HT_NO_INSTRUMENT static inline void ht_instr_set_task(struct ht_instr *in,
						      uint32_t task)
{
	in->task = task;
}

/*
 * Sets the switch functions (@n <= HT_INSTR_MAX_SWITCH_FNS addresses;
 * 0 entries are ignored), replacing the configured ones. Returns 0, or
 * -1 when @n is too large (nothing changed).
 *
 * The rule: a switch function is entered by the outgoing task and
 * exited by the incoming one (a context-switch routine: swapcontext,
 * an RTOS's switch function, the C function its PendSV handler
 * calls). From its entry until a task change is seen or a switch
 * function exits, each hook asks which task runs (current_task, or
 * the task of ht_instr_set_task()); when that is another task, the
 * hook first writes func_task_switch (prev, next, next's priority),
 * saves the outgoing task's shadow stack depth and loads the incoming
 * task's, then handles its own call on the incoming task's stack. So
 * the switch function's frame stays on the outgoing task's stack and
 * is popped when that task is switched back in (at the exit of its own
 * switch-function call); a task's first run begins with an empty
 * stack. Registered tasks with a stack keep their calls across any
 * number of switches; every other task shares the core's stack
 * (config.stack), which restarts empty when a task other than its
 * owner is switched in: the calls on it are closed at that time and
 * counted as unbalanced. Profile times are wall-clock: a call's time
 * includes the time its task was switched out.
 *
 * Task switches are written whenever the hooks run (started, enabled),
 * inside the recording window or not: the window selects function
 * records, the task timeline stays whole.
 */
HT_NO_INSTRUMENT int ht_instr_set_switch_fns(struct ht_instr *in,
					     const uintptr_t *fns, uint32_t n);

/*
 * Registers task @t (its memory stays the caller's, registered until
 * ht_instr_stop()): its shadow stack (when t->stack is set) is used
 * whenever a switch loads t->tid; its name and priority are written as
 * func_task_name now when started, else at ht_instr_start(). Register
 * a task before it first runs. Returns 0, or -1 when t->stack is set
 * without a depth.
 */
HT_NO_INSTRUMENT int ht_instr_task_add(struct ht_instr *in,
				       struct ht_instr_task *t);

/*
 * Writes func_task_name for every registered task with a name again:
 * for an overwrite ring, before its last packet closes, so that the
 * newest packets name the tasks.
 */
HT_NO_INSTRUMENT void ht_instr_task_names(struct ht_instr *in);

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
