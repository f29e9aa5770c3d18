/* SPDX-License-Identifier: MIT */
/*
 * Task states (states.h, struct ht_states_task_state): running,
 * interrupted, ready and blocked intervals per task, from task_block /
 * task_wake / task_switch and the hooks of states-internal.h.
 *
 * The running task's interval lives in its core (run_state, run_since);
 * a task off its core (ready or blocked) lives in one table of the
 * model, keyed by (domain, tid), bounded by opts.max_waiting_tasks: when
 * it is full the task waiting longest is evicted (its interval is lost
 * and counted in waiting_evicted, with an anomaly).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
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
	*out = st->task_totals;
}

/* The domain of @c's tids: the kernel CPUs share one, a slave core is
 * its own. */
static const void *domain_of(struct ht_states *st, const struct core *c)
{
	return c->pub.role && !strcmp(c->pub.role, "kernel") ? (const void *)st
							     : (const void *)c;
}

static size_t wslot_hash(const void *domain, uint64_t tid)
{
	return (size_t)ht__states_mix64(
	    tid ^ ht__states_mix64((uint64_t)(uintptr_t)domain));
}

/* The slot of (@domain, @tid): live when it is there, else the free
 * slot it would take. The table is never full (used * 2 <= cap). */
static struct waiting *wslot(struct ht_states *st, const void *domain,
			     uint64_t tid)
{
	size_t mask = st->waiting_cap - 1, i;

	for (i = wslot_hash(domain, tid) & mask;; i = (i + 1) & mask) {
		struct waiting *w = &st->waiting[i];

		if (!w->live || (w->domain == domain && w->tid == tid)) {
			return w;
		}
	}
}

static struct waiting *wfind(struct ht_states *st, const void *domain,
			     uint64_t tid)
{
	struct waiting *w;

	if (!st->waiting_cap) {
		return NULL;
	}
	w = wslot(st, domain, tid);
	return w->live ? w : NULL;
}

/* Takes @w out (backward shift: no tombstones). */
static void wremove(struct ht_states *st, struct waiting *w)
{
	size_t mask = st->waiting_cap - 1, i = (size_t)(w - st->waiting), j;

	st->waiting[i].live = false;
	st->waiting_used--;
	for (j = (i + 1) & mask; st->waiting[j].live; j = (j + 1) & mask) {
		size_t h =
		    wslot_hash(st->waiting[j].domain, st->waiting[j].tid) &
		    mask;

		/* may entry j move to the hole at i? (h not in (i, j]) */
		if ((j > i && (h <= i || h > j)) ||
		    (j < i && (h <= i && h > j))) {
			st->waiting[i] = st->waiting[j];
			st->waiting[j].live = false;
			i = j;
		}
	}
}

static uint64_t span(int64_t a, int64_t b)
{
	return b > a ? (uint64_t)b - (uint64_t)a : 0;
}

/* Delivers one interval of task @task of core @c (NULL core: a task
 * never seen, not counted) and adds it to the task's totals. */
static int emit_state(struct ht_states *st, struct core *c, size_t task,
		      struct ht_states_task_state *s)
{
	struct ht_states_item it = {.kind = HT_STATES_TASK_STATE};
	uint64_t d;

	if (s->end_ns < s->begin_ns) {
		/* a wake seen on another core a little before (within
		 * the sync error) */
		s->end_ns = s->begin_ns;
	}
	d = span(s->begin_ns, s->end_ns);
	if (c) {
		struct ht_states_task *tk = &c->tasks[task];

		s->name = tk->name;
		if (s->state == HT_STATES_READY) {
			tk->ready_ns += d;
			if (d > tk->max_ready_ns) {
				tk->max_ready_ns = d;
			}
		} else if (s->state == HT_STATES_BLOCKED) {
			tk->blocked_ns += d;
			tk->blocks++;
			if (d > tk->max_blocked_ns) {
				tk->max_blocked_ns = d;
			}
		}
	}
	if (!s->name) {
		s->name = "?";
	}
	st->task_totals.intervals++;
	if (!c) {
		return 0;
	}
	it.core = &c->pub;
	it.ns = s->end_ns;
	it.task_state = s;
	return ht__states_emit(st, &it);
}

/* Ends @w's interval at @t and takes it out. */
static int wend(struct ht_states *st, struct waiting *w, int64_t t, bool forced)
{
	struct ht_states_task_state s = w->s;
	struct core *c = w->core;
	size_t task = w->task;

	s.end_ns = t;
	s.forced_end = forced;
	if (s.has_by && w->by_core) {
		s.by_name = w->by_core->tasks[w->by_task].name;
	}
	wremove(st, w);
	return emit_state(st, c, task, &s);
}

/* Room for one more waiting task: grows the table, or evicts the task
 * waiting longest. */
static int wroom(struct ht_states *st, struct core *at, int64_t t)
{
	size_t max = st->opts.max_waiting_tasks, i;
	struct waiting *old = NULL;
	int ret;

	if (st->waiting_used >= max) {
		for (i = 0; i < st->waiting_cap; i++) {
			struct waiting *w = &st->waiting[i];

			if (w->live &&
			    (!old || w->s.begin_ns < old->s.begin_ns)) {
				old = w;
			}
		}
		st->task_totals.waiting_evicted++;
		ret = ht__states_anomaly(
		    st, at, t, NULL,
		    "more than %zu tasks ready or blocked: tid %" PRIu64
		    " (waiting since %" PRId64 " ns) no longer followed",
		    max, old->tid, old->s.begin_ns);
		wremove(st, old);
		return ret;
	}
	if ((st->waiting_used + 1) * 2 > st->waiting_cap) {
		size_t ncap = st->waiting_cap ? st->waiting_cap * 2 : 64;
		struct waiting *ov = st->waiting,
			       *nv = calloc(ncap, sizeof(*nv));
		size_t ocap = st->waiting_cap;

		if (!nv) {
			return HT_ENOMEM;
		}
		st->waiting = nv;
		st->waiting_cap = ncap;
		for (i = 0; i < ocap; i++) {
			if (ov[i].live) {
				*wslot(st, ov[i].domain, ov[i].tid) = ov[i];
			}
		}
		free(ov);
	}
	return 0;
}

/* Puts task @task of @c (tid @tid) off its core from @t; *@out: its
 * entry (NULL allowed). One probe when the table has room. */
static int wadd(struct ht_states *st, struct core *c, size_t task, uint64_t tid,
		const struct ht_states_task_state *s, struct waiting **out)
{
	const void *dom = domain_of(st, c);
	struct waiting *w = st->waiting_cap ? wslot(st, dom, tid) : NULL;
	int ret;

	if (w && w->live) {
		/* already off a core (a switch out of a task that did not
		 * run): the new interval replaces it */
		ret = wend(st, w, s->begin_ns, false);
		if (ret) {
			return ret;
		}
		w = NULL; /* entries moved */
	}
	if (!w || st->waiting_used >= st->opts.max_waiting_tasks ||
	    (st->waiting_used + 1) * 2 > st->waiting_cap) {
		ret = wroom(st, c, s->begin_ns);
		if (ret) {
			return ret;
		}
		w = wslot(st, dom, tid);
	}
	if (out) {
		*out = w;
	}
	memset(w, 0, sizeof(*w));
	w->live = true;
	w->domain = dom;
	w->tid = tid;
	w->s = *s;
	w->s.tid = tid;
	w->core = c;
	w->task = task;
	st->waiting_used++;
	return 0;
}

/* The running task's interval on @c ends at @t (if not empty). */
static int run_end(struct ht_states *st, struct core *c, int64_t t, bool forced)
{
	struct ht_states_task *tk = &c->tasks[c->task.task];
	struct ht_states_task_state s = {0};

	if (t <= c->run_since) {
		return 0;
	}
	s.state = c->run_state;
	s.tid = tk->id;
	s.begin_ns = c->run_since;
	s.end_ns = t;
	s.forced_end = forced;
	return emit_state(st, c, c->task.task, &s);
}

static bool running_task(const struct core *c)
{
	return c->task_open && c->tasks[c->task.task].kind == HT_STATES_TASK;
}

int ht__states_task_out(struct ht_states *st, struct core *c, int64_t t,
			size_t next_task, bool blocked)
{
	struct ht_states_task_state s = {0};
	const struct ht_states_task *tk;
	struct waiting *w;
	int ret;

	if (!running_task(c) || st->opts.no_task_states) {
		c->block_pending = false;
		return 0;
	}
	tk = &c->tasks[c->task.task];
	ret = run_end(st, c, t, false);
	if (ret) {
		return ret;
	}
	s.begin_ns = t;
	if (c->block_pending || blocked) {
		s.state = HT_STATES_BLOCKED;
		s.object = c->block_pending ? c->block_object : 0;
		s.object_kind =
		    c->block_pending ? c->block_kind : HT_STATES_OBJ_OTHER;
	} else {
		s.state = HT_STATES_READY;
		s.has_by = true;
		s.by_tid = c->tasks[next_task].id;
	}
	c->block_pending = false;
	ret = wadd(st, c, c->task.task, tk->id, &s, &w);
	if (!ret && s.has_by) {
		w->by_core = c;
		w->by_task = next_task;
	}
	return ret;
}

int ht__states_task_in(struct ht_states *st, struct core *c, size_t task,
		       int64_t t)
{
	const struct ht_states_task *tk = &c->tasks[task];
	struct waiting *w;
	int ret = 0;

	c->run_state = HT_STATES_TASK;
	c->run_since = t;
	c->block_pending = false;
	if (tk->kind != HT_STATES_TASK || st->opts.no_task_states) {
		return 0;
	}
	w = wfind(st, domain_of(st, c), tk->id);
	if (w) {
		if (!w->core) {
			/* woken before it was ever seen: its ready time
			 * counts where it runs */
			w->core = c;
			w->task = task;
		}
		ret = wend(st, w, t, false);
	}
	return ret;
}

int ht__states_task_isr(struct ht_states *st, struct core *c, int64_t t,
			bool enter)
{
	int ret;

	if (!running_task(c) || st->opts.no_task_states) {
		return 0;
	}
	ret = run_end(st, c, t, false);
	c->run_state = enter ? HT_STATES_ISR : HT_STATES_TASK;
	c->run_since = t;
	return ret;
}

int ht__states_block(struct ht_states *st, struct core *c,
		     const struct ht_ctf_msg *msg, int64_t t, uint64_t object,
		     enum ht_states_object_kind kind)
{
	if (st->opts.no_task_states) {
		return 0;
	}
	if (!running_task(c)) {
		c->pub.block_no_task++;
		return ht__states_anomaly(st, c, t, msg,
					  "task_block on object 0x%" PRIx64
					  " while no task runs",
					  object);
	}
	c->block_pending = true;
	c->block_object = object;
	c->block_kind = kind > HT_STATES_OBJ_OTHER ? HT_STATES_OBJ_OTHER : kind;
	return 0;
}

/* The core of @c's domain where @tid runs now, or NULL. */
static struct core *running_on(struct ht_states *st, struct core *c,
			       uint64_t tid)
{
	const void *dom = domain_of(st, c);
	size_t i;

	if (dom == (const void *)c) {
		return running_task(c) && c->task.s.id == tid ? c : NULL;
	}
	for (i = 0; i < st->nr_cores; i++) {
		struct core *o = st->cores[i];

		if (domain_of(st, o) == dom && running_task(o) &&
		    o->task.s.id == tid) {
			return o;
		}
	}
	return NULL;
}

int ht__states_wake(struct ht_states *st, struct core *c,
		    const struct ht_ctf_msg *msg, int64_t t, uint64_t tid)
{
	struct ht_states_task_state s = {0};
	struct waiting *w;
	struct core *r;
	int ret;

	if (st->opts.no_task_states) {
		return 0;
	}
	w = wfind(st, domain_of(st, c), tid);
	if (w && w->s.state == HT_STATES_BLOCKED) {
		struct core *wc = w->core;
		size_t task = w->task;

		/* a wake seen on another core before the switch out it
		 * follows (within the sync error): blocked for no time,
		 * ready from the switch out */
		int64_t from = t < w->s.begin_ns ? w->s.begin_ns : t;

		ret = wend(st, w, t, false);
		if (ret) {
			return ret;
		}
		s.state = HT_STATES_READY;
		s.begin_ns = from;
		return wadd(st, wc, task, tid, &s, NULL);
	}
	r = w ? NULL : running_on(st, c, tid);
	if (r && r->block_pending) {
		/* woken before it was switched out: it does not block */
		r->block_pending = false;
		return 0;
	}
	if (w || r) {
		c->pub.wake_unblocked++;
		return ht__states_anomaly(st, c, t, msg,
					  "task_wake of tid %" PRIu64
					  " which is %s, not blocked",
					  tid, w ? "ready" : "running");
	}
	/* never seen: ready from now, counted where it runs */
	ret = wroom(st, c, t);
	if (ret) {
		return ret;
	}
	w = wslot(st, domain_of(st, c), tid);
	memset(w, 0, sizeof(*w));
	w->live = true;
	w->domain = domain_of(st, c);
	w->tid = tid;
	w->s.state = HT_STATES_READY;
	w->s.tid = tid;
	w->s.begin_ns = t;
	st->waiting_used++;
	return 0;
}

int ht__states_tasks_finish(struct ht_states *st)
{
	size_t i;
	int ret;

	if (st->opts.no_task_states) {
		return 0;
	}
	for (i = 0; i < st->nr_cores; i++) {
		struct core *c = st->cores[i];

		if (running_task(c)) {
			ret = run_end(st, c, c->pub.last_ns, true);
			if (ret) {
				return ret;
			}
		}
	}
	for (i = 0; i < st->waiting_cap; i++) {
		struct waiting *w = &st->waiting[i];

		/* wend() shifts later entries down: look at i again */
		while (w->live) {
			int64_t t =
			    w->core ? w->core->pub.last_ns : w->s.begin_ns;

			st->task_totals.waiting_at_end++;
			ret = wend(st, w, t, true);
			if (ret) {
				return ret;
			}
		}
	}
	return 0;
}

void ht__states_tasks_fini(struct ht_states *st)
{
	free(st->waiting);
	st->waiting = NULL;
	st->waiting_cap = st->waiting_used = 0;
}
