/* SPDX-License-Identifier: MIT */
/*
 * The master's Linux CPUs in the states model (states-internal.h,
 * ht__states_kernel_feed()): the events of an LTTng kernel trace
 * (lttng-modules' names and fields, docs/events.md) on the cores of
 * role "kernel" that `hetrace sync --master-lttng` makes, one per CPU.
 *
 * - sched_switch: the CPU runs next_tid (0, the swapper, is idle),
 *   named next_comm; prev_state 0 (TASK_RUNNING) leaves prev ready
 *   (preempted), any other state blocked;
 * - sched_wakeup: tid becomes ready;
 * - irq_handler_entry/exit: interrupt slices "irq N";
 *   softirq_entry/exit: interrupt slices "softirq VEC" (ids apart from
 *   the irq numbers), nested as the kernel nests them;
 * - syscall_entry_NAME / syscall_exit_NAME: slices of the function
 *   layer named NAME. A task that blocks in a syscall leaves the CPU:
 *   a switch ends the CPU's open syscall slices there (forced_end),
 *   and an exit whose entry is not open on that CPU (entered before
 *   the switch, or on another CPU) is ignored.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "states-internal.h"

/* softirq slices: ids above every irq number */
#define SOFTIRQ_ID (1ull << 32)

/* The payload member @name (LTTng writes `_name` in the TSDL). */
static const struct ht_ctf_field *member(const struct ht_ctf_msg *msg,
					 const char *name)
{
	const struct ht_ctf_field *p =
	    msg->event->scope[HT_CTF_SCOPE_EVENT_PAYLOAD];
	const struct ht_ctf_field *f;
	char under[64];

	if (!p || p->type->kind != HT_CTF_STRUCT) {
		return NULL;
	}
	f = ht_ctf_field_member(p, name);
	if (!f) {
		snprintf(under, sizeof(under), "_%s", name);
		f = ht_ctf_field_member(p, under);
	}
	return f;
}

static bool member_int(const struct ht_ctf_msg *msg, const char *name,
		       uint64_t *v)
{
	const struct ht_ctf_field *f = member(msg, name);

	if (!f ||
	    (f->type->kind != HT_CTF_INT && f->type->kind != HT_CTF_ENUM)) {
		return false;
	}
	*v = f->v.u;
	return true;
}

/* A comm: char[16] (lttng-modules) or a string, into @buf. */
static const char *member_comm(const struct ht_ctf_msg *msg, const char *name,
			       char *buf, size_t len)
{
	const struct ht_ctf_field *f = member(msg, name), *e;
	size_t i = 0;
	uint32_t k;

	if (!f) {
		return NULL;
	}
	if (f->type->kind == HT_CTF_STRING) {
		return f->v.str;
	}
	if (f->type->kind != HT_CTF_ARRAY && f->type->kind != HT_CTF_SEQUENCE) {
		return NULL;
	}
	e = ht_ctf_field_first_child(f);
	for (k = 0; k < f->nr_children && i + 1 < len; k++) {
		if (e->type->kind != HT_CTF_INT || !(e->v.u & 0xff)) {
			break;
		}
		buf[i++] = (char)(e->v.u & 0xff);
		e = ht_ctf_field_next(e);
	}
	buf[i] = 0;
	return buf;
}

/* A syscall's id in the function layer: its name's hash (FNV-1a). */
static uint64_t name_id(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	}
	return h;
}

static int on_switch(struct ht_states *st, struct core *c,
		     const struct ht_ctf_msg *msg, int64_t t)
{
	uint64_t prev = HT__STATES_NO_TID, next, state = 0;
	char comm[32];
	const char *name;
	int ret;

	if (!member_int(msg, "next_tid", &next)) {
		return ht__states_anomaly(
		    st, c, t, msg, "sched_switch without an integer next_tid");
	}
	if (!member_int(msg, "prev_tid", &prev)) {
		prev = HT__STATES_NO_TID;
	}
	(void)member_int(msg, "prev_state", &state);
	name = member_comm(msg, "next_comm", comm, sizeof(comm));
	ret = ht__states_func_cut(st, c, t);
	if (ret) {
		return ret;
	}
	return ht__states_switch(st, c, msg, t, prev, state != 0, next, name);
}

int ht__states_kernel_feed(struct ht_states *st, struct core *c,
			   const struct ht_ctf_msg *msg, int64_t t, bool *done)
{
	const char *n = msg->event->cls->name;
	char buf[48];
	uint64_t v;
	bool found;

	*done = true;
	if (!strcmp(n, "sched_switch")) {
		return on_switch(st, c, msg, t);
	}
	if (!strcmp(n, "sched_wakeup")) {
		if (!member_int(msg, "tid", &v)) {
			return ht__states_anomaly(
			    st, c, t, msg,
			    "sched_wakeup without an integer tid");
		}
		return ht__states_wake(st, c, msg, t, v);
	}
	if (!strcmp(n, "irq_handler_entry") || !strcmp(n, "irq_handler_exit")) {
		if (!member_int(msg, "irq", &v)) {
			return ht__states_anomaly(
			    st, c, t, msg, "%s without an integer irq", n);
		}
		v &= UINT32_MAX;
		return n[13] == 'n'
			   ? ht__states_isr_enter(st, c, msg, t, v, NULL)
			   : ht__states_isr_exit(st, c, msg, t, v);
	}
	if (!strcmp(n, "softirq_entry") || !strcmp(n, "softirq_exit")) {
		if (!member_int(msg, "vec", &v)) {
			return ht__states_anomaly(
			    st, c, t, msg, "%s without an integer vec", n);
		}
		v &= UINT32_MAX;
		snprintf(buf, sizeof(buf), "softirq %u", (unsigned)v);
		return n[8] == 'e' && n[9] == 'n'
			   ? ht__states_isr_enter(st, c, msg, t, SOFTIRQ_ID | v,
						  buf)
			   : ht__states_isr_exit(st, c, msg, t, SOFTIRQ_ID | v);
	}
	if (!strncmp(n, "syscall_entry_", 14)) {
		/* (the class name outlives the slice) */
		return ht__states_func_enter(st, c, msg, t, name_id(n + 14),
					     n + 14);
	}
	if (!strncmp(n, "syscall_exit_", 13)) {
		return ht__states_func_exit(st, c, msg, t, name_id(n + 13),
					    &found);
	}
	*done = false;
	return 0;
}
