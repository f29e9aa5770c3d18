/* SPDX-License-Identifier: MIT */
/*
 * Pass 2 of the path analysis: the interference on the worst instances.
 *
 * Every activity of a worst instance is a window on its core, from the
 * moment it was ready (or began, when it began early) to its end. The
 * states model (host/analysis/states.h) gives each core's slices; a sweep turns
 * them into exclusive segments (the innermost slice running), and every
 * segment that overlaps a window is charged to whatever ran: a task, an
 * interrupt. Windows of one instance on one core are merged first, so
 * overlapping activities do not count the same time twice. At the end
 * the tasks that ran the instance's own activities (the task running
 * when each activity began) are taken out: what is left is what kept
 * the instance from running.
 *
 * Task states (HT_STATES_TASK_STATE items) split that: while an
 * activity's task was BLOCKED (on a message, semaphore, queue) it
 * waited, whatever ran; that time is charged to the object it waited
 * on (struct ht_paths_blocked), not to the tasks and interrupts that
 * ran meanwhile. What is left of those is preemption (the task was
 * ready) or interruption. The own tasks are known only once their
 * activity began, so the charged segments and the ready/blocked
 * intervals of each window are kept until the end (bounded by
 * MAX_KEPT over all windows: beyond it a worst instance keeps the
 * unsplit totals, states_dropped).
 */
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "paths-internal.h"
#include "states.h"

#define STACK_MAX 80
#define MAX_KEPT (1u << 20) /* segments + intervals kept */

struct who {
	enum ht_states_kind kind;
	uint64_t id;
	char *name;
};

struct awin {
	int64_t b, e, begin_ns; /* window and the activity's begin */
	size_t act;
	int own; /* who ran it (-1: not known yet) */
};

struct acc {
	int who;
	uint64_t ns;
	uint64_t during;
};

/* [b, e) ran @who, inside the target's windows. */
struct seg {
	int who;
	int64_t b, e;
};

/* A blocked interval of a task of the target's core. */
struct tstate {
	uint64_t tid;
	int64_t b, e;
	uint64_t object;
	enum ht_states_object_kind kind;
	char *name;
};

/* One worst instance on one core. */
struct target {
	struct ht_paths_worst *worst;
	size_t core; /* result core index */
	struct awin *aw;
	size_t nr_aw;
	int64_t (*mw)[2]; /* merged windows, sorted */
	size_t nr_mw;
	struct acc *acc;
	size_t nr_acc, cap_acc;
	struct seg *seg; /* in time order */
	size_t nr_seg, cap_seg;
	struct tstate *ts;
	size_t nr_ts, cap_ts;
	bool dropped; /* MAX_KEPT reached: segments or states missing */
};

struct core_state {
	bool mapped;
	size_t res_core;
	int stack[STACK_MAX]; /* who indexes, innermost last */
	unsigned depth;	      /* may exceed STACK_MAX: counted only */
	int64_t last_ns;
	size_t *targets; /* indexes in blame.targets */
	size_t nr_targets, cap_targets;
	int64_t min_b, max_e;
};

struct blame {
	struct ht_paths_result *res;
	struct target *targets;
	size_t nr_targets, cap_targets;
	struct who *who;
	size_t nr_who, cap_who;
	struct core_state *cores; /* by result core index */
	size_t nr_cores;
	size_t *map; /* states core index -> result core index + 1 */
	size_t nr_map, cap_map;
	size_t kept; /* segments + intervals, all targets */
	bool nomem;
};

/* Keeps [@b, @e) run by @who in @t (joined to the last segment when
 * it continues it). */
static int seg_add(struct blame *bl, struct target *t, int who, int64_t b,
		   int64_t e)
{
	struct seg *last = t->nr_seg ? &t->seg[t->nr_seg - 1] : NULL;

	if (t->dropped) {
		return 0;
	}
	if (last && last->who == who && last->e == b) {
		last->e = e;
		return 0;
	}
	if (bl->kept >= MAX_KEPT) {
		t->dropped = true;
		return 0;
	}
	if (ht_array_reserve((void **)&t->seg, &t->cap_seg, t->nr_seg + 1,
			     sizeof(*t->seg))) {
		return HT_ENOMEM;
	}
	t->seg[t->nr_seg].who = who;
	t->seg[t->nr_seg].b = b;
	t->seg[t->nr_seg].e = e;
	t->nr_seg++;
	bl->kept++;
	return 0;
}

static int who_of(struct blame *bl, const struct ht_states_slice *s)
{
	size_t i;

	for (i = 0; i < bl->nr_who; i++) {
		if (bl->who[i].kind == s->kind && bl->who[i].id == s->id &&
		    !strcmp(bl->who[i].name, s->name)) {
			return (int)i;
		}
	}
	if (ht_array_reserve((void **)&bl->who, &bl->cap_who, bl->nr_who + 1,
			     sizeof(*bl->who))) {
		return HT_ENOMEM;
	}
	bl->who[bl->nr_who].kind = s->kind;
	bl->who[bl->nr_who].id = s->id;
	bl->who[bl->nr_who].name = strdup(s->name ? s->name : "?");
	if (!bl->who[bl->nr_who].name) {
		return HT_ENOMEM;
	}
	return (int)bl->nr_who++;
}

static int acc_add(struct target *t, int who, uint64_t ns, uint64_t during)
{
	size_t i;

	for (i = 0; i < t->nr_acc; i++) {
		if (t->acc[i].who == who) {
			t->acc[i].ns += ns;
			t->acc[i].during |= during;
			return 0;
		}
	}
	if (ht_array_reserve((void **)&t->acc, &t->cap_acc, t->nr_acc + 1,
			     sizeof(*t->acc))) {
		return HT_ENOMEM;
	}
	t->acc[t->nr_acc].who = who;
	t->acc[t->nr_acc].ns = ns;
	t->acc[t->nr_acc].during = during;
	t->nr_acc++;
	return 0;
}

/* [a, b) on core @c ran @who (the innermost slice); base is the task
 * under it (depth 0), the one an activity beginning now runs in. */
static int charge(struct blame *bl, struct core_state *c, int64_t a, int64_t b,
		  int who, int base)
{
	size_t i, k;
	int ret;

	if (b <= a || b <= c->min_b || a >= c->max_e) {
		return 0;
	}
	for (i = 0; i < c->nr_targets; i++) {
		struct target *t = &bl->targets[c->targets[i]];
		uint64_t during = 0, ns = 0;

		for (k = 0; k < t->nr_aw; k++) {
			struct awin *w = &t->aw[k];

			if (w->own < 0 && base >= 0 && a <= w->begin_ns &&
			    w->begin_ns < b) {
				w->own = base;
			}
			if (w->b < b && a < w->e && w->act < 64) {
				during |= 1ull << w->act;
			}
		}
		if (!during) {
			continue;
		}
		for (k = 0; k < t->nr_mw; k++) {
			int64_t lo = a > t->mw[k][0] ? a : t->mw[k][0];
			int64_t hi = b < t->mw[k][1] ? b : t->mw[k][1];

			if (hi > lo) {
				ns += (uint64_t)(hi - lo);
			}
		}
		if (!ns || bl->who[who].kind == HT_STATES_IDLE) {
			continue;
		}
		ret = acc_add(t, who, ns, during);
		for (k = 0; !ret && k < t->nr_mw; k++) {
			int64_t lo = a > t->mw[k][0] ? a : t->mw[k][0];
			int64_t hi = b < t->mw[k][1] ? b : t->mw[k][1];

			if (hi > lo) {
				ret = seg_add(bl, t, who, lo, hi);
			}
		}
		if (ret) {
			return ret;
		}
	}
	return 0;
}

static struct core_state *core_for(struct blame *bl,
				   const struct ht_states_core *sc)
{
	size_t i;

	if (ht_array_extend((void **)&bl->map, &bl->nr_map, &bl->cap_map,
			    (size_t)sc->index + 1, sizeof(*bl->map))) {
		bl->nomem = true;
		return NULL;
	}
	if (!bl->map[sc->index]) {
		int ci = ht__paths_core_index(bl->res, sc->name, sc->role,
					      sc->has_core_id, sc->core_id);

		if (ci < 0) {
			bl->nomem = true;
			return NULL;
		}
		bl->map[sc->index] = (size_t)ci + 1;
	}
	i = bl->map[sc->index] - 1;
	/* a core first seen now has no windows */
	return i < bl->nr_cores ? &bl->cores[i] : NULL;
}

/* A blocked interval of a task of @c: kept by the targets whose
 * windows it overlaps. */
static int on_task_state(struct blame *bl, struct core_state *c,
			 const struct ht_states_task_state *s)
{
	size_t i, k;

	if (s->state != HT_STATES_BLOCKED || s->end_ns <= c->min_b ||
	    s->begin_ns >= c->max_e) {
		return 0;
	}
	for (i = 0; i < c->nr_targets; i++) {
		struct target *t = &bl->targets[c->targets[i]];
		struct tstate *ts;

		for (k = 0; k < t->nr_mw; k++) {
			if (s->begin_ns < t->mw[k][1] &&
			    t->mw[k][0] < s->end_ns) {
				break;
			}
		}
		if (k == t->nr_mw || t->dropped) {
			continue;
		}
		if (bl->kept >= MAX_KEPT) {
			t->dropped = true;
			continue;
		}
		if (ht_array_reserve((void **)&t->ts, &t->cap_ts, t->nr_ts + 1,
				     sizeof(*t->ts))) {
			return HT_ENOMEM;
		}
		ts = &t->ts[t->nr_ts];
		ts->tid = s->tid;
		ts->b = s->begin_ns;
		ts->e = s->end_ns;
		ts->object = s->object;
		ts->kind = s->object_kind;
		ts->name = strdup(s->name ? s->name : "?");
		if (!ts->name) {
			return HT_ENOMEM;
		}
		t->nr_ts++;
		bl->kept++;
	}
	return 0;
}

static int on_item(void *arg, const struct ht_states_item *it)
{
	struct blame *bl = arg;
	struct core_state *c;
	int top, base, who, ret;

	if (it->kind == HT_STATES_TASK_STATE) {
		c = core_for(bl, it->core);
		if (!c) {
			return bl->nomem ? HT_ENOMEM : 0;
		}
		return on_task_state(bl, c, it->task_state);
	}
	if (it->kind != HT_STATES_SLICE_BEGIN &&
	    it->kind != HT_STATES_SLICE_END) {
		return 0;
	}
	if (it->slice->kind == HT_STATES_FUNC) {
		return 0;
	}
	c = core_for(bl, it->core);
	if (!c) {
		return bl->nomem ? HT_ENOMEM : 0;
	}
	top = c->depth && c->depth <= STACK_MAX ? c->stack[c->depth - 1] : -1;
	base = c->depth ? c->stack[0] : -1;
	if (top >= 0) {
		ret = charge(bl, c, c->last_ns, it->ns, top, base);
		if (ret) {
			return ret;
		}
	}
	c->last_ns = it->ns;
	if (it->kind == HT_STATES_SLICE_BEGIN) {
		who = who_of(bl, it->slice);
		if (who < 0) {
			return who;
		}
		if (c->depth < STACK_MAX) {
			c->stack[c->depth] = who;
		}
		c->depth++;
		if (c->depth == 1) {
			/* own-task detection for activities beginning at
			 * this very instant */
			size_t i, k;

			for (i = 0; i < c->nr_targets; i++) {
				struct target *t = &bl->targets[c->targets[i]];

				for (k = 0; k < t->nr_aw; k++) {
					if (t->aw[k].own < 0 &&
					    t->aw[k].begin_ns == it->ns) {
						t->aw[k].own = who;
					}
				}
			}
		}
	} else if (c->depth) {
		c->depth--;
	}
	return 0;
}

static int awin_cmp(const void *a, const void *b)
{
	const struct awin *x = a, *y = b;

	return x->b < y->b ? -1 : x->b > y->b;
}

/* The windows of one worst instance, one target per core. */
static int add_targets(struct blame *bl, struct ht_paths_path_result *pr,
		       struct ht_paths_worst *w)
{
	const struct ht_paths_instance *in = &pr->instances[w->instance];
	size_t k, core, nr = 0;

	for (core = 0; core < bl->nr_cores; core++) {
		struct target *t = NULL;

		for (k = 0; k < pr->path->nr_activities; k++) {
			const struct ht_paths_run *r = &in->runs[k];
			struct awin *aw;
			int64_t b;

			if (!(r->flags & HT_PATHS_RUN_END) ||
			    (size_t)r->core != core) {
				continue;
			}
			if (!t) {
				if (ht_array_reserve((void **)&bl->targets,
						     &bl->cap_targets,
						     bl->nr_targets + 1,
						     sizeof(*bl->targets))) {
					return HT_ENOMEM;
				}
				t = &bl->targets[bl->nr_targets++];
				memset(t, 0, sizeof(*t));
				t->worst = w;
				t->core = core;
				t->aw = calloc(pr->path->nr_activities,
					       sizeof(*t->aw));
				t->mw = calloc(pr->path->nr_activities,
					       sizeof(*t->mw));
				if (!t->aw || !t->mw) {
					return HT_ENOMEM;
				}
			}
			b = (r->flags & HT_PATHS_RUN_READY) &&
				    !(r->flags & HT_PATHS_RUN_EARLY)
				? r->ready_ns
				: r->begin_ns;
			aw = &t->aw[t->nr_aw++];
			aw->b = b;
			aw->e = r->end_ns;
			aw->begin_ns = r->begin_ns;
			aw->act = k;
			aw->own = -1;
		}
		if (!t) {
			continue;
		}
		nr++;
		if (t->nr_aw > 1) {
			qsort(t->aw, t->nr_aw, sizeof(*t->aw), awin_cmp);
		}
		for (k = 0; k < t->nr_aw; k++) {
			if (t->nr_mw && t->aw[k].b <= t->mw[t->nr_mw - 1][1]) {
				if (t->aw[k].e > t->mw[t->nr_mw - 1][1]) {
					t->mw[t->nr_mw - 1][1] = t->aw[k].e;
				}
			} else {
				t->mw[t->nr_mw][0] = t->aw[k].b;
				t->mw[t->nr_mw][1] = t->aw[k].e;
				t->nr_mw++;
			}
		}
	}
	(void)nr;
	return 0;
}

static int blame_cmp(const void *a, const void *b)
{
	const struct ht_paths_blame *x = a, *y = b;

	if (x->total_ns != y->total_ns) {
		return x->total_ns > y->total_ns ? -1 : 1;
	}
	return strcmp(x->who, y->who);
}

static int blocked_cmp(const void *a, const void *b)
{
	const struct ht_paths_blocked *x = a, *y = b;

	if (x->total_ns != y->total_ns) {
		return x->total_ns > y->total_ns ? -1 : 1;
	}
	if (x->object != y->object) {
		return x->object < y->object ? -1 : 1;
	}
	return strcmp(x->task, y->task);
}

static int span_cmp(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

static uint64_t overlap(int64_t a, int64_t b, int64_t c, int64_t d)
{
	int64_t lo = a > c ? a : c, hi = b < d ? b : d;

	return hi > lo ? (uint64_t)(hi - lo) : 0;
}

/* Whether tid @tid ran the activity of window @k of @t. */
static bool is_own(const struct blame *bl, const struct target *t, uint64_t tid,
		   size_t k)
{
	const struct awin *w = &t->aw[k];

	return w->own >= 0 && bl->who[w->own].kind == HT_STATES_TASK &&
	       bl->who[w->own].id == tid;
}

static bool own_tid(const struct blame *bl, const struct target *t,
		    uint64_t tid)
{
	size_t k;

	for (k = 0; k < t->nr_aw; k++) {
		if (is_own(bl, t, tid, k)) {
			return true;
		}
	}
	return false;
}

/* The blocked intervals of @t's own tasks: charged to what they waited
 * on (@w->blocked), taken out of what ran meanwhile (@t->acc). */
static int split_blocked(struct blame *bl, struct target *t,
			 struct ht_paths_worst *w)
{
	int64_t(*u)[2];
	size_t nu = 0, i, j, k;

	if (!t->nr_ts) {
		return 0;
	}
	u = malloc(t->nr_ts * sizeof(*u));
	if (!u) {
		return HT_ENOMEM;
	}
	for (i = 0; i < t->nr_ts; i++) {
		const struct tstate *ts = &t->ts[i];
		struct ht_paths_blocked *b = NULL;
		uint64_t ns = 0, during = 0;

		if (!own_tid(bl, t, ts->tid)) {
			continue;
		}
		u[nu][0] = ts->b;
		u[nu][1] = ts->e;
		nu++;
		for (k = 0; k < t->nr_mw; k++) {
			ns += overlap(ts->b, ts->e, t->mw[k][0], t->mw[k][1]);
		}
		for (k = 0; k < t->nr_aw; k++) {
			if (t->aw[k].act < 64 && is_own(bl, t, ts->tid, k) &&
			    overlap(ts->b, ts->e, t->aw[k].b, t->aw[k].e)) {
				during |= 1ull << t->aw[k].act;
			}
		}
		if (!ns) {
			continue;
		}
		for (j = 0; j < w->nr_blocked; j++) {
			if (w->blocked[j].object == ts->object &&
			    !strcmp(w->blocked[j].object_kind,
				    ht_states_object_kind_name(ts->kind)) &&
			    !strcmp(w->blocked[j].task, ts->name)) {
				b = &w->blocked[j];
				break;
			}
		}
		if (!b) {
			if (ht_array_reserve((void **)&w->blocked,
					     &w->cap_blocked, w->nr_blocked + 1,
					     sizeof(*w->blocked))) {
				free(u);
				return HT_ENOMEM;
			}
			b = &w->blocked[w->nr_blocked++];
			memset(b, 0, sizeof(*b));
			b->task = strdup(ts->name);
			b->object = ts->object;
			b->object_kind = ht_states_object_kind_name(ts->kind);
			b->core_ns =
			    calloc(bl->res->nr_cores, sizeof(*b->core_ns));
			if (!b->task || !b->core_ns) {
				free(u);
				return HT_ENOMEM;
			}
		}
		b->total_ns += ns;
		b->core_ns[t->core] += ns;
		b->during |= during;
	}
	/* their union, sorted, against the segments (in time order) */
	if (nu > 1) {
		qsort(u, nu, sizeof(*u), span_cmp);
	}
	for (i = 0, j = 0; i < nu; i++) {
		if (j && u[i][0] <= u[j - 1][1]) {
			if (u[i][1] > u[j - 1][1]) {
				u[j - 1][1] = u[i][1];
			}
		} else {
			u[j][0] = u[i][0];
			u[j][1] = u[i][1];
			j++;
		}
	}
	nu = j;
	for (i = 0, j = 0; i < t->nr_seg && nu; i++) {
		const struct seg *sg = &t->seg[i];
		uint64_t d = 0;

		while (j < nu && u[j][1] <= sg->b) {
			j++;
		}
		for (k = j; k < nu && u[k][0] < sg->e; k++) {
			d += overlap(sg->b, sg->e, u[k][0], u[k][1]);
		}
		for (k = 0; d && k < t->nr_acc; k++) {
			if (t->acc[k].who == sg->who) {
				t->acc[k].ns -=
				    d < t->acc[k].ns ? d : t->acc[k].ns;
				break;
			}
		}
	}
	free(u);
	return 0;
}

/* Gathers the targets of @w into its blame list. */
static int collect(struct blame *bl, struct ht_paths_worst *w)
{
	size_t i, k, j;

	for (i = 0; i < bl->nr_targets; i++) {
		struct target *t = &bl->targets[i];

		if (t->worst != w) {
			continue;
		}
		if (t->dropped) {
			w->states_dropped = true;
		} else {
			int ret = split_blocked(bl, t, w);

			if (ret) {
				return ret;
			}
		}
		for (k = 0; k < t->nr_acc; k++) {
			const struct acc *a = &t->acc[k];
			const struct who *who = &bl->who[a->who];
			struct ht_paths_blame *b = NULL;

			if (!a->ns) {
				continue;
			}

			for (j = 0; j < t->nr_aw; j++) {
				if (t->aw[j].own == a->who) {
					break;
				}
			}
			if (j < t->nr_aw) {
				continue; /* it ran the activities */
			}
			for (j = 0; j < w->nr_blame; j++) {
				if (!strcmp(w->blame[j].who, who->name) &&
				    w->blame[j].is_isr ==
					(who->kind == HT_STATES_ISR)) {
					b = &w->blame[j];
					break;
				}
			}
			if (!b) {
				if (ht_array_reserve(
					(void **)&w->blame, &w->cap_blame,
					w->nr_blame + 1, sizeof(*w->blame))) {
					return HT_ENOMEM;
				}
				b = &w->blame[w->nr_blame++];
				memset(b, 0, sizeof(*b));
				b->who = strdup(who->name);
				b->is_isr = who->kind == HT_STATES_ISR;
				b->core_ns = calloc(bl->res->nr_cores,
						    sizeof(*b->core_ns));
				if (!b->who || !b->core_ns) {
					return HT_ENOMEM;
				}
			}
			b->total_ns += a->ns;
			b->core_ns[t->core] += a->ns;
			b->during |= a->during;
		}
	}
	if (w->nr_blame > 1) {
		qsort(w->blame, w->nr_blame, sizeof(*w->blame), blame_cmp);
	}
	if (w->nr_blocked > 1) {
		qsort(w->blocked, w->nr_blocked, sizeof(*w->blocked),
		      blocked_cmp);
	}
	return 0;
}

/* The pass's state, for a caller's own states model (paths.h). */
struct ht_paths_interference {
	struct blame bl;
};

void ht_paths_interference_destroy(struct ht_paths_interference *pi)
{
	struct blame *bl = pi ? &pi->bl : NULL;
	size_t i, k;

	if (!bl) {
		return;
	}
	for (i = 0; i < bl->nr_targets; i++) {
		free(bl->targets[i].aw);
		free(bl->targets[i].mw);
		free(bl->targets[i].acc);
		free(bl->targets[i].seg);
		for (k = 0; k < bl->targets[i].nr_ts; k++) {
			free(bl->targets[i].ts[k].name);
		}
		free(bl->targets[i].ts);
	}
	free(bl->targets);
	for (i = 0; i < bl->nr_cores; i++) {
		free(bl->cores[i].targets);
	}
	free(bl->cores);
	for (i = 0; i < bl->nr_who; i++) {
		free(bl->who[i].name);
	}
	free(bl->who);
	free(bl->map);
	free(pi);
}

int ht_paths_interference_create(struct ht_paths_result *res,
				 struct ht_paths_interference **out)
{
	struct ht_paths_interference *pi;
	struct blame *bl;
	size_t i, k;
	int ret;

	*out = NULL;
	if (!res->has_states) {
		return 0;
	}
	pi = calloc(1, sizeof(*pi));
	if (!pi) {
		return HT_ENOMEM;
	}
	bl = &pi->bl;
	bl->res = res;
	bl->nr_cores = res->nr_cores;
	bl->cores = calloc(bl->nr_cores ? bl->nr_cores : 1, sizeof(*bl->cores));
	if (!bl->cores) {
		ret = HT_ENOMEM;
		goto fail;
	}
	for (i = 0; i < res->desc->nr_paths; i++) {
		struct ht_paths_path_result *pr = &res->paths[i];

		for (k = 0; k < pr->nr_worst; k++) {
			ret = add_targets(bl, pr, &pr->worst[k]);
			if (ret) {
				goto fail;
			}
		}
	}
	if (!bl->nr_targets) {
		ht_paths_interference_destroy(pi);
		return 0;
	}
	for (i = 0; i < bl->nr_targets; i++) {
		struct target *t = &bl->targets[i];
		struct core_state *c = &bl->cores[t->core];

		if (ht_array_reserve((void **)&c->targets, &c->cap_targets,
				     c->nr_targets + 1, sizeof(*c->targets))) {
			ret = HT_ENOMEM;
			goto fail;
		}
		if (!c->nr_targets || t->mw[0][0] < c->min_b) {
			c->min_b = t->mw[0][0];
		}
		if (!c->nr_targets || t->mw[t->nr_mw - 1][1] > c->max_e) {
			c->max_e = t->mw[t->nr_mw - 1][1];
		}
		c->targets[c->nr_targets++] = i;
	}
	*out = pi;
	return 0;

fail:
	ht_paths_interference_destroy(pi);
	return ret;
}

int ht_paths_interference_item(struct ht_paths_interference *pi,
			       const struct ht_states_item *it)
{
	return on_item(&pi->bl, it);
}

int ht_paths_interference_finish(struct ht_paths_interference *pi)
{
	struct blame *bl = &pi->bl;
	size_t i, k;
	int ret;

	for (i = 0; i < bl->res->desc->nr_paths; i++) {
		struct ht_paths_path_result *pr = &bl->res->paths[i];

		for (k = 0; k < pr->nr_worst; k++) {
			ret = collect(bl, &pr->worst[k]);
			if (ret) {
				return ret;
			}
		}
	}
	return 0;
}

int ht__paths_blame(struct ht_paths_result *res, const char *const *traces,
		    size_t nr_traces, char *err, size_t err_len)
{
	struct ht_ctf_open_opts oo = {
	    .flags = HT_CTF_KEEP_GOING,
	};
	struct ht_states_opts so = {.no_events = true};
	struct ht_paths_interference *pi = NULL;
	struct ht_states *st = NULL;
	struct ht_ctf_set *set = NULL;
	int ret;

	ret = ht_paths_interference_create(res, &pi);
	if (ret || !pi) {
		return ret;
	}
	ret = ht_states_create(&st, &so, on_item, &pi->bl);
	if (ret) {
		goto out;
	}
	ret = ht_ctf_set_open(&set, traces, nr_traces, &oo, err, err_len);
	if (ret) {
		goto out;
	}
	ret = ht_states_run(st, set, NULL, NULL, 0);
	if (ret) {
		goto out;
	}
	ret = ht_paths_interference_finish(pi);
out:
	ht_ctf_set_close(set);
	ht_states_destroy(st);
	ht_paths_interference_destroy(pi);
	return ret;
}
