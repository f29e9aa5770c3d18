/* SPDX-License-Identifier: MIT */
/*
 * The -finstrument-functions hooks and the on-target profile
 * (include/hetrace/instrument.h, docs/instrument.md).
 *
 * Nothing in this file is instrumented: every function carries
 * HT_NO_INSTRUMENT, and a compiler without the attribute must build
 * this file without -finstrument-functions. The hooks take the `busy`
 * guard before anything else, so a hook never runs inside a hook of the
 * same ht_instr: no recursion through an instrumented callback.
 *
 * Shadow stack rules:
 * - `depth` counts the calls entered and not exited; frames below
 *   `stack_depth` are kept, deeper calls only move `depth`.
 * - An exit whose function is not the top frame's: when the function is
 *   further down, the frames above it lost their exits (an exit done
 *   while disabled, a longjmp): they are closed now and counted in
 *   `unbalanced`. When it is nowhere on the stack (it was entered
 *   before start), the exit is recorded but changes nothing, counted.
 *
 * Task switches (the rule: instrument.h, ht_instr_set_switch_fns()):
 * `stack`, `stack_depth` and `depth` are the loaded task's shadow
 * stack. A switch saves the depth of the outgoing task (in its
 * ht_instr_task, or core_depth for the core's stack) and loads the
 * incoming one's; the core's stack is reset (its calls closed as
 * unbalanced) when a task other than core_owner takes it. All of it
 * sits behind `watch`: a configuration without trigger, stopper and
 * switch functions pays one predictable branch per hook, as before.
 *
 * A full buffer (ht_instr_buffer_full(), fixed mode) stops only the
 * records: the hooks go on keeping the shadow stack, the window and the
 * profile, and count each record they would have written in
 * `stats.discarded` (the records' ops are swapped for counting ones:
 * nothing is added to the path that writes), so
 * records written + discarded = records a large enough buffer holds.
 *
 * Profile rules (docs/instrument.md, "On-target profile"):
 * - A call is timed when it enters while the window is open and its
 *   frame fits the shadow stack. Calls deeper than the stack are
 *   counted (`calls`, and `deep_calls`) but not timed: their time stays
 *   in the exclusive time of the deepest timed frame.
 * - Inclusive time is added when the outermost timed instance of a
 *   function exits (`active` drops to 0), so recursion does not count
 *   the same time twice; exclusive time is added for every instance.
 *   Exclusive times then sum to the time spent in timed calls.
 * - The function table is open-addressed: a function takes the first
 *   free slot among HT__PROBES from its hash. When there is none, its
 *   calls are counted in `lost_calls` and its time stays in its
 *   caller's exclusive time.
 */
#include <string.h>

#include "hetrace/instrument.h"

#define HT__PROBES 8u

#ifndef HT_PORT_INSTR_TLS
#define HT_PORT_INSTR_TLS
#endif

/* The instrumentation the hooks feed (per thread with HT_PORT_INSTR_TLS). */
static HT_PORT_INSTR_TLS struct ht_instr *current;

HT_NO_INSTRUMENT static void load_first_task(struct ht_instr *in);
HT_NO_INSTRUMENT static void write_names(struct ht_instr *in);

HT_NO_INSTRUMENT static uint32_t hash(uintptr_t fn)
{
	/* Fibonacci hashing; functions are at least 2-byte aligned. */
	return (uint32_t)(fn >> 1) * 2654435761u;
}

/* The table slot of @fn, taken if needed; 0 when the table is full. */
HT_NO_INSTRUMENT static uint32_t func_slot(struct ht_instr *in, uintptr_t fn)
{
	uint32_t h = hash(fn) >> 8;
	uint32_t k;

	for (k = 0; k < HT__PROBES; k++) {
		struct ht_instr_func *f = &in->funcs[(h + k) & in->funcs_mask];

		if (f->addr == fn) {
			return ((h + k) & in->funcs_mask) + 1u;
		}
		if (f->addr == 0u) {
			f->addr = fn;
			return ((h + k) & in->funcs_mask) + 1u;
		}
	}
	return 0;
}

int ht_instr_init(struct ht_instr *in, const struct ht_instr_config *cfg)
{
	if ((cfg->flags & HT_INSTR_PROFILE) &&
	    (!cfg->clock || !cfg->funcs || !cfg->stack || !cfg->stack_depth ||
	     !cfg->nr_funcs || (cfg->nr_funcs & (cfg->nr_funcs - 1u)))) {
		return -1;
	}
	if (cfg->stack_depth && !cfg->stack) {
		return -1;
	}
	memset(in, 0, sizeof(*in));
	in->off = 1;
	in->stopped = 1;
	in->flags = cfg->flags;
	if (!cfg->ops || !cfg->ops->entry || !cfg->ops->exit) {
		/* A NULL op writes nothing (instrument.h). */
		in->flags &= ~(unsigned)HT_INSTR_TRACE;
	}
	in->ops = cfg->ops;
	in->ctx = cfg->ctx;
	in->rec = cfg->ops;
	in->rec_ctx = cfg->ctx;
	in->clock = cfg->clock;
	in->stack = cfg->stack;
	in->stack_depth = cfg->stack ? cfg->stack_depth : 0u;
	if (cfg->flags & HT_INSTR_PROFILE) {
		in->funcs = cfg->funcs;
		in->funcs_mask = cfg->nr_funcs - 1u;
		memset(in->funcs, 0,
		       (size_t)cfg->nr_funcs * sizeof(*in->funcs));
	}
	in->image_base = cfg->image_base;
	in->core_stack = in->stack;
	in->core_stack_depth = in->stack_depth;
	in->current_task = cfg->current_task;
	ht_instr_set_switch_fns(in, cfg->switch_fns, HT_INSTR_MAX_SWITCH_FNS);
	ht_instr_set_trigger(in, cfg->trigger, cfg->trigger_nth,
			     cfg->trigger_caller);
	ht_instr_set_stopper(in, cfg->stopper);
	return 0;
}

HT_NO_INSTRUMENT static void update_watch(struct ht_instr *in)
{
	in->watch =
	    in->trigger != 0u || in->stopper != 0u || in->nr_switch_fns != 0u;
	in->on = in->trigger == 0u && !in->window_done;
}

/* The records' ops once the buffer is full: count, write nothing. */
HT_NO_INSTRUMENT static void discard_entry(void *ctx, uintptr_t fn,
					   uintptr_t call_site, uint32_t task)
{
	(void)fn;
	(void)call_site;
	(void)task;
	((struct ht_instr *)ctx)->stats.discarded++;
}

HT_NO_INSTRUMENT static void discard_exit(void *ctx, uintptr_t fn,
					  uint32_t task)
{
	(void)fn;
	(void)task;
	((struct ht_instr *)ctx)->stats.discarded++;
}

HT_NO_INSTRUMENT static void discard_switch(void *ctx, uint32_t prev,
					    uint32_t next, int32_t prio)
{
	(void)prev;
	(void)next;
	(void)prio;
	((struct ht_instr *)ctx)->stats.discarded++;
}

HT_NO_INSTRUMENT static void discard_name(void *ctx, uint32_t tid, int32_t prio,
					  const char *name)
{
	(void)tid;
	(void)prio;
	(void)name;
	((struct ht_instr *)ctx)->stats.discarded++;
}

static const struct ht_instr_ops discard_ops = {
    .entry = discard_entry,
    .exit = discard_exit,
    .task_switch = discard_switch,
    .task_name = discard_name,
};

void ht_instr_buffer_full(struct ht_instr *in)
{
	/* The hooks call the records' ops through rec: the path that
	 * writes them costs nothing more, the one that counts a call. */
	in->rec = &discard_ops;
	in->rec_ctx = in;
}

void ht_instr_set_trigger(struct ht_instr *in, uintptr_t fn, uint32_t nth,
			  uintptr_t caller)
{
	in->trigger = fn;
	in->trigger_nth = nth;
	in->trigger_caller = caller;
	in->trigger_seen = 0;
	in->window_done = 0;
	update_watch(in);
}

void ht_instr_set_stopper(struct ht_instr *in, uintptr_t fn)
{
	in->stopper = fn;
	update_watch(in);
}

void ht_instr_start(struct ht_instr *in)
{
	in->busy = 1;
	HT_COMPILER_BARRIER();
	load_first_task(in);
	current = in;
	if (in->ops && in->ops->base && (in->flags & HT_INSTR_TRACE)) {
		in->ops->base(in->ctx, in->image_base);
	}
	write_names(in);
	in->stopped = 0;
	in->off = in->disabled;
	HT_COMPILER_BARRIER();
	in->busy = 0;
}

void ht_instr_stop(struct ht_instr *in)
{
	in->stopped = 1;
	in->off = 1;
	HT_COMPILER_BARRIER();
	if (current == in) {
		current = NULL;
	}
}

int ht_instr_set_switch_fns(struct ht_instr *in, const uintptr_t *fns,
			    uint32_t n)
{
	uint32_t k, m = 0;

	if (n > HT_INSTR_MAX_SWITCH_FNS) {
		return -1;
	}
	for (k = 0; k < n; k++) {
		if (fns[k]) {
			in->switch_fns[m++] = fns[k];
		}
	}
	in->nr_switch_fns = m;
	if (!m) {
		in->switching = 0;
	}
	update_watch(in);
	return 0;
}

HT_NO_INSTRUMENT static struct ht_instr_task *find_task(struct ht_instr *in,
							uint32_t tid)
{
	struct ht_instr_task *t;

	for (t = in->tasks; t; t = t->next) {
		if (t->tid == tid) {
			return t;
		}
	}
	return NULL;
}

HT_NO_INSTRUMENT static void write_name(struct ht_instr *in,
					const struct ht_instr_task *t)
{
	if (t->name && (in->flags & HT_INSTR_TRACE) && in->ops &&
	    in->ops->task_name) {
		in->rec->task_name(in->rec_ctx, t->tid, t->prio, t->name);
	}
}

HT_NO_INSTRUMENT static void write_names(struct ht_instr *in)
{
	struct ht_instr_task *t;

	for (t = in->tasks; t; t = t->next) {
		write_name(in, t);
	}
}

int ht_instr_task_add(struct ht_instr *in, struct ht_instr_task *t)
{
	int busy = in->busy;

	if (t->stack && !t->stack_depth) {
		return -1;
	}
	/* The list and the record must not meet a hook halfway. */
	in->busy = 1;
	HT_COMPILER_BARRIER();
	if (find_task(in, t->tid) != t) {
		t->next = in->tasks;
		in->tasks = t;
	}
	t->depth = 0;
	if (!in->stopped) {
		write_name(in, t);
	}
	HT_COMPILER_BARRIER();
	in->busy = busy;
	return 0;
}

void ht_instr_task_names(struct ht_instr *in)
{
	int busy = in->busy;

	in->busy = 1;
	HT_COMPILER_BARRIER();
	write_names(in);
	HT_COMPILER_BARRIER();
	in->busy = busy;
}

/* The window closes after this exit (@d: the exiting call's depth)? */
HT_NO_INSTRUMENT static void watch_exit(struct ht_instr *in, uintptr_t fn,
					uint32_t d)
{
	if (!in->on || fn != in->stopper) {
		return;
	}
	if (fn == in->trigger && d != in->window_depth) {
		return;
	}
	in->on = 0;
	if (!in->trigger) {
		in->window_done = 1;
	}
}

HT_NO_INSTRUMENT static void prof_enter(struct ht_instr *in, uint32_t d,
					uintptr_t fn)
{
	uint32_t slot = func_slot(in, fn);

	if (slot) {
		in->funcs[slot - 1u].calls++;
	} else {
		in->stats.lost_calls++;
	}
	if (d < in->stack_depth) {
		struct ht_instr_frame *fr = &in->stack[d];

		fr->func = slot;
		fr->child = 0;
		fr->timed = 1;
		if (slot) {
			in->funcs[slot - 1u].active++;
		}
		fr->t0 = in->clock(in->ctx);
	} else {
		in->stats.deep_calls++;
	}
}

/* Closes the timed frame @d at time @now. */
HT_NO_INSTRUMENT static void prof_close(struct ht_instr *in, uint32_t d,
					uint64_t now)
{
	struct ht_instr_frame *fr = &in->stack[d];
	uint64_t dt;

	if (!fr->timed) {
		return;
	}
	fr->timed = 0;
	/* A clock that went back (another core's counter) counts as 0. */
	dt = now > fr->t0 ? now - fr->t0 : 0u;
	if (d > 0u && in->stack[d - 1u].timed) {
		in->stack[d - 1u].child += dt;
	}
	if (fr->func) {
		struct ht_instr_func *f = &in->funcs[fr->func - 1u];

		/* Children never outlast their parent; guard all the same. */
		f->excl += dt > fr->child ? dt - fr->child : 0u;
		if (f->max < dt) {
			f->max = dt;
		}
		if (f->active && --f->active == 0u) {
			f->incl += dt;
		}
	}
}

/* Closes the frames @top down to @d of the loaded stack at one time
 * (the frames at or past stack_depth were never kept). */
HT_NO_INSTRUMENT static void close_frames(struct ht_instr *in, uint32_t top,
					  uint32_t d)
{
	uint32_t k, hi = top < in->stack_depth ? top + 1u : in->stack_depth;
	uint64_t now;
	int timed = 0;

	for (k = hi; k > d; k--) {
		timed |= (int)in->stack[k - 1u].timed;
	}
	if (!timed) {
		return;
	}
	now = in->clock(in->ctx);
	for (k = hi; k > d; k--) {
		prof_close(in, k - 1u, now);
	}
}

/* Loads the shadow stack of task @tid (@t: its entry, or NULL). */
HT_NO_INSTRUMENT static void load_task(struct ht_instr *in,
				       struct ht_instr_task *t, uint32_t tid)
{
	in->stack_task = tid;
	if (t && t->stack) {
		in->cur = t;
		in->stack = t->stack;
		in->stack_depth = t->stack_depth;
		in->depth = t->depth;
		return;
	}
	in->cur = NULL;
	in->stack = in->core_stack;
	in->stack_depth = in->core_stack_depth;
	in->depth = in->core_depth;
	if (in->core_owner != tid) {
		/* Another task's calls: they cannot be returned to here. */
		if (in->depth && in->funcs) {
			close_frames(in, in->depth - 1u, 0);
		}
		in->stats.unbalanced += in->depth;
		in->depth = 0;
		in->core_owner = tid;
	}
}

HT_NO_INSTRUMENT static void load_first_task(struct ht_instr *in)
{
	struct ht_instr_task *t;

	for (t = in->tasks; t; t = t->next) {
		t->depth = 0;
	}
	in->switching = 0;
	in->core_depth = 0;
	in->core_owner = in->task;
	load_task(in, find_task(in, in->task), in->task);
}

/* The core runs task @next now: records the switch, swaps the stacks. */
HT_NO_INSTRUMENT static void switch_to(struct ht_instr *in, uint32_t next)
{
	struct ht_instr_task *t = find_task(in, next);
	uint32_t prev = in->stack_task;

	if (in->cur) {
		in->cur->depth = in->depth;
	} else {
		in->core_depth = in->depth;
	}
	load_task(in, t, next);
	in->task = next;
	if ((in->flags & HT_INSTR_TRACE) && in->ops->task_switch) {
		in->rec->task_switch(in->rec_ctx, prev, next, t ? t->prio : 0);
	}
}

/* A switch function runs: has the task changed? */
HT_NO_INSTRUMENT static void look_for_switch(struct ht_instr *in)
{
	uint32_t now = in->current_task ? in->current_task(in->ctx) : in->task;

	if (now != in->stack_task) {
		in->switching = 0;
		switch_to(in, now);
	}
}

HT_NO_INSTRUMENT static int is_switch_fn(const struct ht_instr *in,
					 uintptr_t fn)
{
	uint32_t k;

	for (k = 0; k < in->nr_switch_fns; k++) {
		if (in->switch_fns[k] == fn) {
			return 1;
		}
	}
	return 0;
}

/*
 * Before an entry, with a trigger, a stopper or switch functions: a
 * pending switch first (the call belongs to the incoming task), then
 * the window opens at this call of the trigger?
 */
HT_NO_INSTRUMENT static void watch_enter(struct ht_instr *in, uintptr_t fn)
{
	uint32_t d;

	if (in->switching) {
		look_for_switch(in);
	}
	if (in->nr_switch_fns && is_switch_fn(in, fn)) {
		in->switching = 1;
	}
	if (in->on || fn != in->trigger) {
		return;
	}
	d = in->depth;
	if (in->trigger_caller) {
		if (d == 0u || d - 1u >= in->stack_depth ||
		    in->stack[d - 1u].fn != in->trigger_caller) {
			return;
		}
	}
	in->trigger_seen++;
	if (in->trigger_nth && in->trigger_seen != in->trigger_nth) {
		return;
	}
	in->on = 1;
	in->window_depth = d;
}

HT_NO_INSTRUMENT static void do_enter(struct ht_instr *in, uintptr_t fn,
				      uintptr_t site)
{
	uint32_t d;

	if (HT_UNLIKELY(in->watch)) {
		watch_enter(in, fn);
	}
	d = in->depth++;
	if (d < in->stack_depth) {
		in->stack[d].fn = fn;
		in->stack[d].timed = 0;
	}
	if (!in->on) {
		return;
	}
	if (in->flags & HT_INSTR_TRACE) {
		in->rec->entry(in->rec_ctx, fn, site, in->task);
	}
	if (in->funcs) {
		prof_enter(in, d, fn);
	}
}

/* Writes (or, the buffer being full, counts) the exit of @fn. */
HT_NO_INSTRUMENT static inline void put_exit(struct ht_instr *in, uintptr_t fn)
{
	if (!in->on) {
		return;
	}
	if (in->flags & HT_INSTR_TRACE) {
		in->rec->exit(in->rec_ctx, fn, in->task);
	}
}

/*
 * Pops the call of @fn from the loaded shadow stack and closes its
 * timed frames. Returns 1 and its depth in *@dp, or 0 when it matched
 * no frame (counted).
 */
HT_NO_INSTRUMENT static inline int pop_frame(struct ht_instr *in, uintptr_t fn,
					     uint32_t *dp)
{
	uint32_t d, top;

	if (in->depth == 0u) {
		/* Entered before start: no frame to close. */
		in->stats.unbalanced++;
		return 0;
	}
	top = in->depth - 1u;
	d = top;
	if (top < in->stack_depth && in->stack[top].fn != fn) {
		/* Find the frame; the ones above it lost their exits. */
		while (d > 0u && in->stack[d].fn != fn) {
			d--;
		}
		if (in->stack[d].fn != fn) {
			in->stats.unbalanced++;
			return 0;
		}
		in->stats.unbalanced += top - d;
	}
	if (in->funcs) {
		close_frames(in, top, d);
	}
	in->depth = d;
	*dp = d;
	return 1;
}

/* An exit with a trigger, a stopper or switch functions set. */
HT_NO_INSTRUMENT static void watch_do_exit(struct ht_instr *in, uintptr_t fn)
{
	uint32_t d;
	int popped;

	if (in->switching) {
		look_for_switch(in);
	}
	popped = pop_frame(in, fn, &d);
	put_exit(in, fn);
	if (popped) {
		watch_exit(in, fn, d);
	}
	if (in->switching && is_switch_fn(in, fn)) {
		/* It returned to the task that entered it. */
		in->switching = 0;
	}
}

HT_NO_INSTRUMENT static void do_exit(struct ht_instr *in, uintptr_t fn)
{
	uint32_t d;

	if (HT_UNLIKELY(in->watch)) {
		watch_do_exit(in, fn);
		return;
	}
	(void)pop_frame(in, fn, &d);
	put_exit(in, fn);
}

/* The hooks' re-entrancy guard: takes it and returns 1, or returns 0
 * (counting a nested call unless tracing is off) when there is no
 * context, tracing is off or a hook of this context is running. */
HT_NO_INSTRUMENT static inline int hook_guard_take(struct ht_instr *in)
{
	if (!in) {
		return 0;
	}
	if (in->busy | in->off) {
		if (!in->off) {
			in->stats.nested++;
		}
		return 0;
	}
	in->busy = 1;
	/* The guard is taken before the state is touched. */
	HT_COMPILER_BARRIER();
	return 1;
}

HT_NO_INSTRUMENT static inline void hook_guard_release(struct ht_instr *in)
{
	/* The state is complete before the guard is free. */
	HT_COMPILER_BARRIER();
	in->busy = 0;
}

void __cyg_profile_func_enter(void *fn, void *call_site)
{
	struct ht_instr *in = current;

	if (hook_guard_take(in)) {
		do_enter(in, (uintptr_t)fn, (uintptr_t)call_site);
		hook_guard_release(in);
	}
}

void __cyg_profile_func_exit(void *fn, void *call_site)
{
	struct ht_instr *in = current;

	(void)call_site;
	if (hook_guard_take(in)) {
		do_exit(in, (uintptr_t)fn);
		hook_guard_release(in);
	}
}

const struct ht_instr_func *ht_instr_profile_find(const struct ht_instr *in,
						  uintptr_t fn)
{
	uint32_t h = hash(fn) >> 8;
	uint32_t k;

	if (!in->funcs || !fn) {
		return NULL;
	}
	for (k = 0; k < HT__PROBES; k++) {
		const struct ht_instr_func *f =
		    &in->funcs[(h + k) & in->funcs_mask];

		if (f->addr == fn) {
			return f;
		}
		if (f->addr == 0u) {
			break;
		}
	}
	return NULL;
}

/* The calls on every shadow stack, loaded or switched out. */
HT_NO_INSTRUMENT static uint32_t open_calls(const struct ht_instr *in)
{
	const struct ht_instr_task *t;
	uint32_t n = in->depth;

	for (t = in->tasks; t; t = t->next) {
		if (t->stack && t != in->cur) {
			n += t->depth;
		}
	}
	if (in->cur) {
		n += in->core_depth;
	}
	return n;
}

void ht_instr_profile_dump(struct ht_instr *in)
{
	int busy = in->busy;
	uint32_t i;

	/* The records written here must not re-enter the hooks. */
	in->busy = 1;
	HT_COMPILER_BARRIER();
	if (in->ops && in->ops->profile && in->funcs) {
		for (i = 0; i <= in->funcs_mask; i++) {
			if (in->funcs[i].addr && in->funcs[i].calls) {
				in->ops->profile(in->ctx, &in->funcs[i]);
			}
		}
	}
	if (in->ops && in->ops->stats) {
		struct ht_instr_stats st = in->stats;

		/* Calls still on the stacks never exited. */
		st.unbalanced += open_calls(in);
		in->ops->stats(in->ctx, &st);
	}
	HT_COMPILER_BARRIER();
	in->busy = busy;
}
