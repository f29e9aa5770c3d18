/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_STATES_H
#define HT_HOST_STATES_H

/*
 * The states model: turns the time-ordered messages of a trace set
 * (host/ctf/ctf-reader.h) into per-core timelines, streaming.
 *
 * Per core (docs/events.md, "how a tool finds the core of a stream"):
 * - task slices from `task_switch`, or `func_task_switch` of the
 *   function runtime (tid 0 is idle, and gets an IDLE slice); before a
 *   core's first switch what runs is unknown (no slice, time counted as
 *   unknown); a switch without `next_name` names the task from the
 *   core's `func_task_name` records (a name that comes after the task
 *   was first seen renames its totals, not its earlier slices);
 * - interrupt slices from `isr_enter`/`isr_exit`, nested on the task
 *   (and on each other); a task_switch seen inside an interrupt takes
 *   effect when the outermost interrupt returns (that is when the CPU
 *   switches), so slices always nest;
 * - function slices from `func_entry`/`func_exit` (their own layer);
 * - message flows: `msg_send` (sender core, id) matched with
 *   `msg_recv` (src, id) through bounded tables of pending sends and
 *   pending receives (in a synchronized trace a receive may come at
 *   the time of its send or a little before, within the sync error);
 * - utilization: time split into idle / task / interrupt / unknown
 *   (before any task_switch), per core and per task, over the whole
 *   trace and over fixed time windows.
 *
 * Bad input is counted and reported as ANOMALY items, never turned into
 * a negative duration: an exit without its enter is dropped, an enter
 * without its exit is closed when an outer exit or the end of the trace
 * is reached (the slice says so), a time going backwards on a core is
 * clamped to the core's last time. An event time outside its packet's
 * timestamp_begin .. timestamp_end is damage (one corrupted time must
 * not become the trace's span): it is taken as the core's last time.
 * So a core's times, slices and windows stay within the span of its
 * good events, and the arithmetic on times cannot overflow.
 *
 * Memory is flat in trace size: per core a stack of open slices
 * (bounded depth), a table of tasks and interrupts seen; two tables of
 * pending messages (bounded, oldest evicted and reported).
 *
 * Use: ht_states_create(), ht_states_feed() each message (the caller
 * reads the set, so other analyses can see the same messages in the
 * same pass), ht_states_finish() at the end; items arrive through the
 * callback as they become known. Then ht_states_nr_cores() /
 * ht_states_core() give the totals. ht_states_run() does the reading
 * loop for callers that need nothing else.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/ctf/ctf-reader.h"

struct ht_states; /* opaque */

/* What a core does at a time. */
enum ht_states_kind {
	HT_STATES_UNKNOWN = 0, /* before the core's first task_switch */
	HT_STATES_IDLE,	       /* the idle task (tid 0) */
	HT_STATES_TASK,	       /* a task (tid != 0) */
	HT_STATES_ISR,	       /* an interrupt handler */
	HT_STATES_FUNC,	       /* a function (func_entry/func_exit) */
	HT_STATES_READY,       /* a task runnable, waiting for a core (it was
				* preempted, or woken and not running yet) */
	HT_STATES_BLOCKED,     /* a task waiting on a message, semaphore or
				* queue (task_block .. task_wake) */
};

/* What a blocked task waits on (task_block's `kind`). */
enum ht_states_object_kind {
	HT_STATES_OBJ_MSG = 0,
	HT_STATES_OBJ_SEM = 1,
	HT_STATES_OBJ_QUEUE = 2,
	HT_STATES_OBJ_OTHER = 3,
};

/* "msg", "sem", "queue" or "other". */
const char *ht_states_object_kind_name(enum ht_states_object_kind kind);

/* Per task (or per interrupt line) totals on one core. */
struct ht_states_task {
	enum ht_states_kind kind; /* IDLE, TASK or ISR */
	uint64_t id;		  /* tid, or irq number */
	const char *name;	  /* the last name seen ("irq N" for ISR) */
	uint64_t run_ns;	  /* time running (task: minus interrupts) */
	uint64_t slices;	  /* number of slices */
	uint64_t max_slice_ns;	  /* longest slice (wall time) */
	uint64_t window_ns;	  /* run time in the current window */
	/* TASK only (docs/views.md, "Task states"): time an interrupt
	 * ran on top of the task, time ready (switched out without
	 * blocking, or woken, until it runs again), time blocked
	 * (task_block .. task_wake), and the longest of each; a ready or
	 * blocked interval counts on the core the task left */
	uint64_t interrupted_ns;
	uint64_t ready_ns, blocked_ns;
	uint64_t max_ready_ns, max_blocked_ns;
	uint64_t blocks; /* blocked intervals */
};

/* One core and its totals (valid until ht_states_destroy()). */
struct ht_states_core {
	unsigned index; /* 0.. in order of first appearance */
	bool has_core_id;
	uint32_t core_id;  /* packet context core_id or env core_id */
	const char *name;  /* core_<id>_name, core_name or file name */
	const char *role;  /* core_<id>_role / core_role, or NULL */
	const char *group; /* core type: the role, else the name
			    * without its trailing digits */
	bool has_tasks;	   /* a task_switch was seen on this core */
	bool has_time;
	int64_t first_ns, last_ns; /* first and last time on this core */
	/* time split over [first_ns, last_ns] (interrupts on top of the
	 * idle task count as ISR, not idle) */
	uint64_t unknown_ns, idle_ns, task_ns, isr_ns;
	uint64_t events; /* events of this core */
	uint64_t context_switches, interrupts, calls;
	/* per task and per interrupt line, in order of appearance */
	const struct ht_states_task *tasks;
	size_t nr_tasks;
	/* anomalies (also reported one by one as ANOMALY items) */
	uint64_t isr_exit_unmatched; /* isr_exit with no open isr_enter */
	uint64_t isr_enter_unclosed; /* isr_enter closed by force */
	uint64_t func_exit_unmatched;
	uint64_t func_entry_unclosed;
	uint64_t switch_prev_mismatch; /* prev_tid is not the running task */
	uint64_t time_backwards;
	uint64_t depth_overflow; /* nesting deeper than the stack */
	/* task states: a task_wake for a task that is running without a
	 * pending task_block, or ready; a task_block outside a task (idle
	 * or no task running) */
	uint64_t wake_unblocked;
	uint64_t block_no_task;
	/* events whose time is damaged (outside their packet's
	 * timestamp_begin .. timestamp_end): taken as the core's last
	 * time; before the core has one, as the packet's begin, else
	 * skipped (not counted in .events) */
	uint64_t time_damaged;
};

/* A slice on a core. */
struct ht_states_slice {
	enum ht_states_kind kind; /* IDLE, TASK, ISR or FUNC */
	uint64_t id;		  /* tid, irq number or function address */
	const char *name;	  /* task name, "irq N", function name or
				   * "0x..." (valid during the callback) */
	unsigned depth;		  /* 0 task/idle, 1.. interrupts; FUNC:
				   * its own depth from 0 */
	int64_t begin_ns;
	int64_t end_ns;	 /* SLICE_END only */
	bool forced_end; /* SLICE_END: closed without its end
			  * event (anomaly or end of trace) */
};

/*
 * One interval of a task's state (HT_STATES_TASK_STATE). A task is
 * RUNNING (HT_STATES_TASK) from its switch in to its switch out, except
 * while interrupts run on top of it (HT_STATES_ISR: interrupted); once
 * switched out it is BLOCKED when it had traced task_block (until its
 * task_wake), then READY until it is switched in again; switched out
 * without a block it is READY (preempted by the task that took the
 * core). The idle task has no states.
 */
struct ht_states_task_state {
	enum ht_states_kind state; /* TASK (running), ISR (interrupted),
				    * READY or BLOCKED */
	uint64_t tid;
	const char *name; /* the task's name (valid during the callback) */
	int64_t begin_ns, end_ns;
	/* BLOCKED: what the task waits on (task_block's object and kind;
	 * object 0 and OTHER when the scheduler does not say) */
	uint64_t object;
	enum ht_states_object_kind object_kind;
	/* READY after a preemption: the task that took the core (its tid
	 * and name; has_by false when woken, or not known) */
	bool has_by;
	uint64_t by_tid;
	const char *by_name;
	bool forced_end; /* ended by the end of the trace (or evicted) */
};

enum ht_states_item_kind {
	HT_STATES_CORE,	       /* .core seen for the first time */
	HT_STATES_SLICE_BEGIN, /* .slice begins (at .slice->begin_ns) */
	HT_STATES_SLICE_END,   /* .slice ends; begin and end are set */
	HT_STATES_EVENT,       /* any other event (.msg); .flow_* set for
				* msg_send / msg_recv */
	HT_STATES_WINDOW,      /* a window closed: .core's tasks[] hold
				* .window_ns; .win_* below */
	HT_STATES_ANOMALY,     /* .text says what and where */
	HT_STATES_FLOW,	       /* a matched message, once both ends are
				* known: .core/.ns the sender and its send
				* time, .peer/.peer_ns the receiver and its
				* receive time, .flow_id */
	HT_STATES_TASK_STATE,  /* .task_state ended (at .ns = its end):
				* .core is the core the task ran on (for
				* READY after a wake of a task never seen,
				* the core it runs on next) */
};

/*
 * One item. Items come in time order per core (SLICE_END of a slice
 * comes after the SLICE_END of every slice nested in it). WINDOW items
 * of a core come when that core's time passes the window's end (or at
 * ht_states_finish()), so windows of different cores interleave.
 */
struct ht_states_item {
	enum ht_states_item_kind kind;
	const struct ht_states_core *core;
	int64_t ns;			     /* when (the item's time) */
	const struct ht_states_slice *slice; /* SLICE_BEGIN / SLICE_END */
	const struct ht_ctf_msg *msg;	     /* EVENT (the reader's) */
	/* EVENT msg_send: flow_out = the flow id (sender core, id);
	 * msg_recv: flow_in = that id when its send came before it, else
	 * 0 (the send may still come: draw arrows from FLOW items, which
	 * cover every matched message). Ids are never 0. */
	uint64_t flow_out, flow_in;
	const struct ht_states_core *peer; /* msg_recv matched: sender;
					    * FLOW: the receiver */
	int64_t peer_ns;		   /* ... and its time */
	/* WINDOW: [win_begin_ns, win_end_ns) for .core */
	int64_t win_begin_ns, win_end_ns;
	uint64_t win_unknown_ns, win_idle_ns, win_task_ns, win_isr_ns;
	const char *text; /* ANOMALY */
	bool damaged;	  /* ANOMALY: a damaged time (time_damaged) */
	/* EVENT msg_send and msg_recv (matched or not) and FLOW: the
	 * message's flow id, ht_states_flow_id(sender core id, id) */
	uint64_t flow_id;
	/* TASK_STATE. These items are not in time order with the core's
	 * other items: a blocked interval ends when its task_wake is seen,
	 * maybe on another core. */
	const struct ht_states_task_state *task_state;
};

/* Returns 0 to go on, or a negative HT_E... code to stop: the feeding
 * call returns it. */
typedef int (*ht_states_cb)(void *arg, const struct ht_states_item *item);

struct ht_states_opts {
	int64_t window_ns;	  /* 0: no WINDOW items */
	size_t max_pending_msgs;  /* pending sends kept; 0: 65536 */
	unsigned max_depth;	  /* open slices per core and layer; 0: 64 */
	bool no_events;		  /* do not deliver EVENT items for events
				   * that are not msg_send/msg_recv */
	size_t max_waiting_tasks; /* ready or blocked tasks followed (when
				   * full the one waiting longest is
				   * evicted, counted); 0: 65536 */
	/* no task states: no TASK_STATE items, task_block/task_wake
	 * ignored (no anomaly from them), the tasks' ready and blocked
	 * totals 0 (a pass that needs only the slices) */
	bool no_task_states;
	/* function name of an address (func_entry without a name field)
	 * traced in @msg (its stream says the core:
	 * host/analysis/func-names.h), a string that stays valid; NULL or
	 * returning NULL: "0x..." */
	const char *(*symbolize)(void *arg, const struct ht_ctf_msg *msg,
				 uint64_t addr);
	void *symbolize_arg;
};

/* Creates a model; @cb (may be NULL) receives the items. @opts may be
 * NULL. Returns 0 or HT_ENOMEM. */
int ht_states_create(struct ht_states **st, const struct ht_states_opts *opts,
		     ht_states_cb cb, void *arg);

/* Releases the model. NULL is allowed. */
void ht_states_destroy(struct ht_states *st);

/*
 * Feeds one reader message (any kind; events drive the model, packet
 * beginnings give a core its first time). Returns 0, HT_ENOMEM, or
 * what the callback returned.
 */
int ht_states_feed(struct ht_states *st, const struct ht_ctf_msg *msg);

/*
 * Ends the trace: closes every open slice at its core's last time
 * (forced_end), reports pending sends as unmatched, delivers the last
 * window. Call once. Returns 0 or what the callback returned.
 */
int ht_states_finish(struct ht_states *st);

/* Reads @set to its end, feeding @st, then finishes. Damaged input is
 * counted in *@nr_errors (may be NULL) and the reading goes on; the
 * first error message is copied into @err. Returns 0 or a negative
 * code (callback or memory). */
int ht_states_run(struct ht_states *st, struct ht_ctf_set *set,
		  uint64_t *nr_errors, char *err, size_t err_len);

/* The cores seen so far, by index. */
size_t ht_states_nr_cores(const struct ht_states *st);
const struct ht_states_core *ht_states_core(const struct ht_states *st,
					    size_t i);

/*
 * The order every view shows cores in (states, paths, profile, export,
 * report): by role, the master first, then the master's Linux CPUs
 * (role "kernel", from an LTTng kernel trace), then the slaves, then
 * cores without a role; within a role by core id (a core without one
 * after those with one), then by name. Returns <0, 0 or >0 as strcmp.
 */
int ht_states_core_cmp(const struct ht_states_core *a,
		       const struct ht_states_core *b);
/* The rank of @role in that order: 0 master, 1 kernel, 2 slave, 3 other
 * roles, 4 none (NULL). */
int ht_states_role_rank(const char *role);
/* Fills @order[0..n) with the cores' indexes (ht_states_core()) in
 * display order, n = ht_states_nr_cores(). */
void ht_states_core_order(const struct ht_states *st, size_t *order);

/* Message totals over the trace. */
struct ht_states_msgs {
	uint64_t sent, received, matched;
	uint64_t recv_unmatched; /* receives whose send never came */
	uint64_t send_unmatched; /* sends never received (at finish) */
	uint64_t send_evicted;	 /* of those, pushed out of the table */
};
void ht_states_msgs(const struct ht_states *st, struct ht_states_msgs *out);

/* Task state totals over the trace (per task: struct ht_states_task). */
struct ht_states_task_totals {
	uint64_t intervals;	  /* TASK_STATE items delivered */
	uint64_t waiting_evicted; /* ready/blocked tasks pushed out of
				   * the table (their interval is lost) */
	uint64_t waiting_at_end;  /* ready/blocked at the end of the trace */
};
void ht_states_task_totals(const struct ht_states *st,
			   struct ht_states_task_totals *out);

/* The flow id of message (@sender_core_id, @id): what EVENT items carry
 * (never 0). */
uint64_t ht_states_flow_id(uint32_t sender_core_id, uint64_t id);

#endif
