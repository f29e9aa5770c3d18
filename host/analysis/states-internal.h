/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_STATES_INTERNAL_H
#define HT_HOST_STATES_INTERNAL_H

/*
 * Inside the states model (states.h): the model's and the cores' state,
 * shared by the timeline (states.c) and the message matching
 * (states-msgs.c). Nothing outside those two files includes it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "states.h"

/* What an event class means to the model. */
enum ev_role {
	EV_OTHER = 0,
	EV_TASK_SWITCH,
	EV_ISR_ENTER,
	EV_ISR_EXIT,
	EV_FUNC_ENTRY,
	EV_FUNC_EXIT,
	EV_MSG_SEND,
	EV_MSG_RECV,
	EV_TASK_NAME, /* func_task_name: a name for a tid */
};

/* A task name of the name table (func_task_name), per core. */
struct task_name {
	uint64_t tid;
	char *name;
};

struct open_slice {
	struct ht_states_slice s;
	size_t task;	    /* index in core->tasks (ISR, task) */
	char addr_name[24]; /* FUNC without a symbol: "0x..." */
};

struct stack {
	struct open_slice *v;
	unsigned n;
	unsigned overflow; /* enters ignored because the stack was full */
};

struct core {
	struct ht_states_core pub;
	struct ht_states_task *tasks;
	size_t cap_tasks;
	/* func_task_name records: open addressing on tid, power of two */
	struct task_name *names;
	size_t names_cap, names_used;
	char *name, *role, *group;

	/* timeline */
	bool task_open;
	struct open_slice task;
	bool pending_switch; /* a task_switch inside an interrupt */
	size_t pending_task;
	struct stack isr, func;

	/* accounting: the state since acc_ns */
	int64_t acc_ns;
	bool acc_started;
	int64_t win_begin; /* the current window of this core */
	uint64_t w_unknown, w_idle, w_task, w_isr;
};

struct cls_map_entry {
	const struct ht_ctf_event_class *cls;
	enum ev_role role;
};

struct pending_msg {
	bool live;
	uint32_t core_id; /* the sender's core id (key, with id) */
	uint64_t id;
	int64_t ns;
	struct core *core; /* where it was seen */
	const char *path;  /* its stream file (for messages) */
	uint64_t offset;   /* its byte offset there */
};

/* A ring (insertion order) indexed by a hash of (core id, id) with
 * linear probing. */
struct pend {
	struct pending_msg *ring;
	size_t ring_cap, ring_head, ring_len;
	int32_t *hash; /* ring slot, or -1 */
	size_t hash_cap;
};

#define MEMBER_CACHE 256

struct member_cache {
	const struct ht_ctf_type *type;
	const char *name;
	int index;
};

struct ht_states {
	struct ht_states_opts opts;
	struct member_cache mcache[MEMBER_CACHE];
	ht_states_cb cb;
	void *arg;

	struct core **cores;
	size_t nr_cores, cap_cores;
	struct core **by_stream; /* stream index -> core */
	size_t nr_by_stream, cap_by_stream;

	struct cls_map_entry *cls_map; /* open addressing, power of two */
	size_t cls_cap, cls_used;

	struct pend sends, recvs; /* messages waiting for their other end */
	struct ht_states_msgs msgs;

	bool has_origin;
	int64_t origin_ns; /* window grid origin: the first event time */
	bool finished;
	bool damaged_anomaly; /* the anomaly being made is a damaged time */
	char text[512];
};

static inline int ht__states_emit(struct ht_states *st,
				  const struct ht_states_item *it)
{
	return st->cb ? st->cb(st->arg, it) : 0;
}

static inline uint64_t ht__states_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* An anomaly at (@path, @offset) when @path is not NULL. */
int ht__states_anomaly_at(struct ht_states *st, struct core *c, int64_t ns,
			  const char *path, uint64_t offset, const char *fmt,
			  ...) __attribute__((format(printf, 6, 7)));

/* An anomaly at @msg's event (when @msg is not NULL). */
int ht__states_anomaly(struct ht_states *st, struct core *c, int64_t ns,
		       const struct ht_ctf_msg *msg, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The tables of messages waiting for their other end (states-msgs.c):
 * made and freed with the model. */
int ht__states_msgs_init(struct ht_states *st);
void ht__states_msgs_fini(struct ht_states *st);

/* Adds the message (@key_core, @id) seen on core @c at @ns (@msg: where
 * in the trace) to @t, a table of sends or of receives; the oldest is
 * evicted (reported) when @t is full. */
int ht__states_pend_add(struct ht_states *st, struct pend *t, struct core *c,
			uint32_t key_core, uint64_t id, int64_t ns,
			const struct ht_ctf_msg *msg);

/* Takes (@key_core, @id) out of @t: its entry (valid until the next
 * add), or NULL. */
struct pending_msg *ht__states_pend_take(struct pend *t, uint32_t key_core,
					 uint64_t id);

/* At the end: every message still waiting is reported. */
int ht__states_msgs_drain(struct ht_states *st);

/*
 * Task states (states-tasks.c), driven by the slave events task_block,
 * task_wake and task_switch, and by other schedulers' events (a Linux
 * kernel trace: sched_switch, sched_wakeup) through the same entry
 * points. Each takes the core @c the event was seen on, its time @t
 * as ht_states_feed() made it (clamped to the core's time, charged),
 * and @msg for the position of anomalies (may be NULL).
 *
 * Tasks are identified by tid within a domain: a slave core is its own
 * domain (its RTOS numbers its tasks), the cores of role "kernel" (the
 * master's Linux CPUs) share one (a thread migrates between CPUs).
 */

#define HT__STATES_NO_TID UINT64_MAX

/* The running task of @c blocks on @object (of @kind): when it is
 * switched out next it is BLOCKED until a wake names it. */
int ht__states_block(struct ht_states *st, struct core *c,
		     const struct ht_ctf_msg *msg, int64_t t, uint64_t object,
		     enum ht_states_object_kind kind);

/*
 * A context switch on @c at @t: @prev_tid leaves the core (when
 * @prev_blocked, or after a ht__states_block(), it is BLOCKED on the
 * object given, or on object 0 of kind OTHER; else READY, preempted by
 * @next_tid), @next_tid (0: idle) runs, named @next_name (NULL: the
 * name table or "?"). @prev_tid HT__STATES_NO_TID: not traced. A Linux
 * sched_switch maps prev_state 0 (TASK_RUNNING) to @prev_blocked false, any
 * other state to true. Inside an interrupt the switch takes effect when the
 * outermost handler returns. Returns 0, HT_ENOMEM or what the callback
 * returned.
 */
int ht__states_switch(struct ht_states *st, struct core *c,
		      const struct ht_ctf_msg *msg, int64_t t,
		      uint64_t prev_tid, bool prev_blocked, uint64_t next_tid,
		      const char *next_name);

/*
 * Task @tid (of @c's domain) is woken at @t (task_wake, a Linux
 * sched_wakeup): a BLOCKED task becomes READY; a running task with a
 * pending block does not block. A ready task, or a running one without
 * a pending block, is an anomaly (counted in @c's wake_unblocked); a
 * task never seen becomes READY (its state before the trace is
 * unknown, so that is no anomaly).
 */
int ht__states_wake(struct ht_states *st, struct core *c,
		    const struct ht_ctf_msg *msg, int64_t t, uint64_t tid);

#endif
