/* SPDX-License-Identifier: MIT */
/*
 * Execution-path analysis (paths.h). Pass 1 reads the path events and
 * builds every instance; the statistics follow from the instances;
 * pass 2 (paths-blame.c) re-reads the trace through the states model
 * to explain the worst instances.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "host/ctf/ctf-reader.h"
#include "common/buf.h"
#include "common/error.h"
#include "paths-internal.h"
#include "states.h"

#define MAX_NOTES 20
/* Every instance holds one run per activity of its path: at most this
 * many runs in all (32 bytes each: 1 GiB), so that a path file of tens
 * of thousands of activities and a trace of many instances cannot
 * take the memory without a word. */
#define MAX_RUNS ((uint64_t)1 << 25)

enum {
	EV_OTHER = 0,
	EV_BEGIN = 1u << 0,
	EV_END = 1u << 1,
	EV_TRIGGER = 1u << 2, /* some path's trigger */
	EV_STATE = 1u << 3,   /* task_switch, isr_enter: states exist */
	EV_KNOWN = 1u << 7,   /* the entry is filled */
};

struct class_entry {
	const struct ht_ctf_event_class *cls;
	unsigned kind;
};

/* instance number -> index, open addressing */
struct inst_map {
	uint64_t *keys;
	size_t *vals;
	size_t cap, nr;
};

struct path_state {
	struct ht_paths_instance *inst;
	size_t nr, cap;
	struct inst_map map;
};

struct pass1 {
	const struct ht_path_desc *desc;
	struct ht_paths_result *res;
	struct path_state *ps;
	struct class_entry *classes;
	size_t classes_cap;
	int32_t *stream_core; /* per stream index, -1 not yet known */
	size_t nr_stream_core, cap_stream_core;
	uint64_t nr_runs; /* runs of every instance so far: MAX_RUNS */
	char *err;	  /* the error message (ht_paths_analyze()'s) */
	size_t err_len;
};

void ht__paths_note(struct ht_paths_result *res, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (res->nr_notes >= MAX_NOTES) {
		res->nr_notes_dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	res->notes[res->nr_notes] = strdup(buf);
	if (res->notes[res->nr_notes]) {
		res->nr_notes++;
	}
}

int ht__paths_core_index(struct ht_paths_result *res, const char *name,
			 const char *role, bool has_id, uint32_t id)
{
	struct ht_paths_core *ci;
	size_t i;

	for (i = 0; i < res->nr_cores; i++) {
		if (!strcmp(res->cores[i], name)) {
			return (int)i;
		}
	}
	if (ht_array_reserve((void **)&res->cores, &res->cap_cores,
			     res->nr_cores + 1, sizeof(*res->cores)) ||
	    ht_array_reserve((void **)&res->core_info, &res->cap_core_info,
			     res->nr_cores + 1, sizeof(*res->core_info))) {
		return HT_ENOMEM;
	}
	ci = &res->core_info[res->nr_cores];
	memset(ci, 0, sizeof(*ci));
	ci->has_id = has_id;
	ci->id = id;
	if (role) {
		ci->role = strdup(role);
		if (!ci->role) {
			return HT_ENOMEM;
		}
	}
	res->cores[res->nr_cores] = strdup(name);
	if (!res->cores[res->nr_cores]) {
		free(ci->role);
		ci->role = NULL;
		return HT_ENOMEM;
	}
	return (int)res->nr_cores++;
}

static const struct ht_paths_result *order_res;

static int core_display_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct ht_paths_core *cx = &order_res->core_info[x],
				   *cy = &order_res->core_info[y];
	struct ht_states_core sx = {
	    .name = order_res->cores[x],
	    .role = cx->role,
	    .has_core_id = cx->has_id,
	    .core_id = cx->id,
	};
	struct ht_states_core sy = {
	    .name = order_res->cores[y],
	    .role = cy->role,
	    .has_core_id = cy->has_id,
	    .core_id = cy->id,
	};
	int r = ht_states_core_cmp(&sx, &sy);

	return r ? r : (x > y) - (x < y);
}

/* @v[i] of @n per-core values, renumbered: new index @to[i]. */
static int permute_u64(uint64_t *v, const size_t *to, size_t n)
{
	uint64_t *tmp;
	size_t i;

	if (!v || n < 2) {
		return 0;
	}
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp) {
		return HT_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		tmp[to[i]] = v[i];
	}
	memcpy(v, tmp, n * sizeof(*tmp));
	free(tmp);
	return 0;
}

int ht__paths_order_cores(struct ht_paths_result *res)
{
	size_t n = res->nr_cores, i, k, j, a, *order, *to;
	char **names;
	struct ht_paths_core *info;
	int ret = HT_ENOMEM;

	if (n < 2) {
		return 0;
	}
	order = malloc(n * sizeof(*order));
	to = malloc(n * sizeof(*to));
	names = malloc(n * sizeof(*names));
	info = malloc(n * sizeof(*info));
	if (!order || !to || !names || !info) {
		goto out;
	}
	for (i = 0; i < n; i++) {
		order[i] = i;
	}
	order_res = res;
	qsort(order, n, sizeof(*order), core_display_cmp);
	for (i = 0; i < n; i++) {
		to[order[i]] = i;
		names[i] = res->cores[order[i]];
		info[i] = res->core_info[order[i]];
	}
	memcpy(res->cores, names, n * sizeof(*names));
	memcpy(res->core_info, info, n * sizeof(*info));
	for (i = 0; i < res->desc->nr_paths; i++) {
		struct ht_paths_path_result *pr = &res->paths[i];

		for (k = 0; k < pr->nr_instances; k++) {
			for (a = 0; a < pr->path->nr_activities; a++) {
				struct ht_paths_run *r =
				    &pr->instances[k].runs[a];

				if (r->core >= 0 && (size_t)r->core < n) {
					r->core = (int32_t)to[r->core];
				}
			}
		}
		for (k = 0; k < pr->nr_worst; k++) {
			struct ht_paths_worst *w = &pr->worst[k];

			for (j = 0; j < w->nr_blame; j++) {
				if (permute_u64(w->blame[j].core_ns, to, n)) {
					goto out;
				}
			}
			for (j = 0; j < w->nr_blocked; j++) {
				if (permute_u64(w->blocked[j].core_ns, to, n)) {
					goto out;
				}
			}
		}
	}
	ret = 0;
out:
	free(order);
	free(to);
	free(names);
	free(info);
	return ret;
}

/* docs/events.md: the packet context's core_id named by
 * core_<id>_name, else env core_name, else the stream file's name. */
static int core_of_msg(struct pass1 *p, const struct ht_ctf_msg *msg)
{
	const struct ht_ctf_stream *s = msg->stream;
	const struct ht_ctf_env_entry *e = NULL, *r = NULL, *ie;
	const struct ht_ctf_field *id = NULL;
	bool has_id = false;
	uint32_t core_id = 0;
	char key[64];
	const char *name;
	int ret;

	if (s->index < p->nr_stream_core && p->stream_core[s->index] >= 0) {
		return p->stream_core[s->index];
	}
	if (s->index >= p->nr_stream_core) {
		size_t n = (size_t)s->index + 1, i;

		if (ht_array_reserve((void **)&p->stream_core,
				     &p->cap_stream_core, n,
				     sizeof(*p->stream_core))) {
			return HT_ENOMEM;
		}
		for (i = p->nr_stream_core; i < n; i++) {
			p->stream_core[i] = -1; /* not named yet */
		}
		p->nr_stream_core = n;
	}
	if (msg->packet && msg->packet->context) {
		id = ht_ctf_field_member(msg->packet->context, "core_id");
	}
	if (id && (id->type->kind == HT_CTF_INT)) {
		snprintf(key, sizeof(key), "core_%" PRIu64 "_name", id->v.u);
		e = ht_ctf_trace_env(s->trace, key);
		if (e && e->is_string) {
			has_id = true;
			core_id = (uint32_t)id->v.u;
			snprintf(key, sizeof(key), "core_%" PRIu64 "_role",
				 id->v.u);
			r = ht_ctf_trace_env(s->trace, key);
		}
	}
	if (!e || !e->is_string) {
		e = ht_ctf_trace_env(s->trace, "core_name");
		r = ht_ctf_trace_env(s->trace, "core_role");
		ie = ht_ctf_trace_env(s->trace, "core_id");
		if (ie && !ie->is_string) {
			has_id = true;
			core_id = (uint32_t)ie->i;
		}
	}
	name = e && e->is_string ? e->str : s->file_name;
	ret = ht__paths_core_index(
	    p->res, name, r && r->is_string ? r->str : NULL, has_id, core_id);
	if (ret >= 0) {
		p->stream_core[s->index] = ret;
	}
	return ret;
}

static unsigned class_kind(struct pass1 *p, const struct ht_ctf_event_class *c)
{
	size_t h, i;
	const char *name;
	unsigned kind = EV_KNOWN;

	if (!p->classes_cap) {
		p->classes_cap = 256;
		p->classes = calloc(p->classes_cap, sizeof(*p->classes));
		if (!p->classes) {
			p->classes_cap = 0;
			return EV_OTHER;
		}
	}
	h = ((uintptr_t)c >> 4) & (p->classes_cap - 1);
	for (i = 0; i < p->classes_cap; i++) {
		struct class_entry *e =
		    &p->classes[(h + i) & (p->classes_cap - 1)];

		if (e->cls == c) {
			return e->kind;
		}
		if (!e->cls) {
			break;
		}
	}
	name = ht_ctf_event_short_name(c->name);
	if (!strcmp(name, "activity_begin")) {
		kind |= EV_BEGIN;
	} else if (!strcmp(name, "activity_end")) {
		kind |= EV_END;
	} else if (!strcmp(name, "task_switch") ||
		   !strcmp(name, "func_task_switch") ||
		   !strcmp(name, "isr_enter")) {
		kind |= EV_STATE;
	}
	for (i = 0; i < p->desc->nr_paths; i++) {
		if (!strcmp(name, p->desc->paths[i].trigger)) {
			kind |= EV_TRIGGER;
		}
	}
	/* a full table (more classes than slots) just stops caching */
	if (i < p->classes_cap) {
		for (i = 0; i < p->classes_cap; i++) {
			struct class_entry *e =
			    &p->classes[(h + i) & (p->classes_cap - 1)];

			if (!e->cls) {
				e->cls = c;
				e->kind = kind;
				break;
			}
		}
	}
	return kind;
}

static size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

static int map_grow(struct inst_map *m)
{
	size_t cap = m->cap ? 2 * m->cap : 64, i;
	uint64_t *keys = malloc(cap * sizeof(*keys));
	size_t *vals = malloc(cap * sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return HT_ENOMEM;
	}
	for (i = 0; i < cap; i++) {
		vals[i] = SIZE_MAX;
	}
	for (i = 0; i < m->cap; i++) {
		size_t h;

		if (m->vals[i] == SIZE_MAX) {
			continue;
		}
		h = hash64(m->keys[i]) & (cap - 1);
		while (vals[h] != SIZE_MAX) {
			h = (h + 1) & (cap - 1);
		}
		keys[h] = m->keys[i];
		vals[h] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

/* The instance @number of path @pi, created when new; NULL when there
 * is no memory or the runs would pass MAX_RUNS (no_instance()). */
static struct ht_paths_instance *instance_get(struct pass1 *p, size_t pi,
					      uint64_t number)
{
	struct path_state *ps = &p->ps[pi];
	const struct ht_path *path = &p->desc->paths[pi];
	struct ht_paths_instance *in;
	size_t h;

	if (2 * (ps->map.nr + 1) > ps->map.cap && map_grow(&ps->map)) {
		return NULL;
	}
	h = hash64(number) & (ps->map.cap - 1);
	while (ps->map.vals[h] != SIZE_MAX) {
		if (ps->map.keys[h] == number) {
			return &ps->inst[ps->map.vals[h]];
		}
		h = (h + 1) & (ps->map.cap - 1);
	}
	if (p->nr_runs + path->nr_activities > MAX_RUNS) {
		return NULL;
	}
	if (ht_array_reserve((void **)&ps->inst, &ps->cap, ps->nr + 1,
			     sizeof(*ps->inst))) {
		return NULL;
	}
	in = &ps->inst[ps->nr];
	memset(in, 0, sizeof(*in));
	in->number = number;
	in->runs = calloc(path->nr_activities, sizeof(*in->runs));
	if (!in->runs) {
		return NULL;
	}
	ps->map.keys[h] = number;
	ps->map.vals[h] = ps->nr++;
	ps->map.nr++;
	p->nr_runs += path->nr_activities;
	return in;
}

/* No instance from instance_get(): past MAX_RUNS (said, with where),
 * else no memory. */
static int no_instance(struct pass1 *p, const struct ht_ctf_msg *msg, size_t pi)
{
	const struct ht_path *path = &p->desc->paths[pi];

	if (p->nr_runs + path->nr_activities <= MAX_RUNS) {
		return HT_ENOMEM;
	}
	if (p->err_len) {
		snprintf(p->err, p->err_len,
			 "file=%s offset=%" PRIu64
			 ": a new instance of path `%s` (%zu activities) "
			 "would take the instances of %s past %" PRIu64
			 " activity runs (%" PRIu64 " so far)",
			 msg->stream->path, msg->event->offset_bits / 8,
			 path->name, path->nr_activities, p->desc->file,
			 MAX_RUNS, p->nr_runs);
	}
	return HT_ERANGE;
}

static bool field_uint(const struct ht_ctf_field *f, uint64_t *v)
{
	if (!f ||
	    (f->type->kind != HT_CTF_INT && f->type->kind != HT_CTF_ENUM)) {
		return false;
	}
	if (f->type->kind == HT_CTF_INT ? f->type->is_signed
					: f->type->container->is_signed) {
		if (f->v.s < 0) {
			return false;
		}
	}
	*v = f->v.u;
	return true;
}

static const char *field_str(const struct ht_ctf_field *f)
{
	return f && f->type->kind == HT_CTF_STRING ? f->v.str : NULL;
}

#define WHERE_FMT "file=%s offset=%" PRIu64 ": "
#define WHERE_ARGS(msg) (msg)->stream->path, (msg)->event->offset_bits / 8

static int on_event(struct pass1 *p, const struct ht_ctf_msg *msg)
{
	const struct ht_ctf_event *ev = msg->event;
	const struct ht_ctf_field *pl = ev->scope[HT_CTF_SCOPE_EVENT_PAYLOAD];
	struct ht_paths_result *res = p->res;
	unsigned kind = class_kind(p, ev->cls);
	const char *pname, *aname;
	uint64_t number;
	size_t pi;
	long ai;
	int core;

	res->events++;
	if (kind & EV_STATE) {
		res->has_states = true;
	}
	if (!(kind & (EV_BEGIN | EV_END | EV_TRIGGER)) || !pl ||
	    !msg->has_time) {
		return 0;
	}
	if (!field_uint(ht_ctf_field_member(pl, "instance"), &number)) {
		return 0;
	}
	pname = field_str(ht_ctf_field_member(pl, "path"));
	if (kind & EV_TRIGGER) {
		const char *name = ht_ctf_event_short_name(ev->cls->name);
		bool any = false;

		for (pi = 0; pi < p->desc->nr_paths; pi++) {
			const struct ht_path *path = &p->desc->paths[pi];
			struct ht_paths_instance *in;

			if (strcmp(path->trigger, name) ||
			    (pname && strcmp(pname, path->name))) {
				continue;
			}
			any = true;
			in = instance_get(p, pi, number);
			if (!in) {
				return no_instance(p, msg, pi);
			}
			if (in->has_trigger) {
				res->repeated_trigger++;
				ht__paths_note(res,
					       WHERE_FMT "`%s` of path `%s` "
							 "instance %" PRIu64
							 " again: the first "
							 "one is kept",
					       WHERE_ARGS(msg), name,
					       path->name, number);
				continue;
			}
			in->has_trigger = true;
			in->trigger_ns = msg->ns;
		}
		res->path_events++;
		if (!any && pname && !(kind & (EV_BEGIN | EV_END))) {
			res->unknown_path++;
		}
		if (!(kind & (EV_BEGIN | EV_END))) {
			return 0;
		}
	}
	aname = field_str(ht_ctf_field_member(pl, "activity"));
	if (!pname || !aname) {
		return 0;
	}
	res->path_events++;
	for (pi = 0; pi < p->desc->nr_paths; pi++) {
		if (!strcmp(p->desc->paths[pi].name, pname)) {
			break;
		}
	}
	if (pi == p->desc->nr_paths) {
		if (!res->unknown_path++) {
			ht__paths_note(res,
				       WHERE_FMT "path `%s` is not in %s "
						 "(its events are ignored)",
				       WHERE_ARGS(msg), pname, p->desc->file);
		}
		return 0;
	}
	ai = ht_path_find_activity(&p->desc->paths[pi], aname);
	if (ai < 0) {
		if (!res->unknown_activity++) {
			ht__paths_note(res,
				       WHERE_FMT "activity `%s` is not in path "
						 "`%s` of %s (its events are "
						 "ignored)",
				       WHERE_ARGS(msg), aname, pname,
				       p->desc->file);
		}
		return 0;
	}
	core = core_of_msg(p, msg);
	if (core < 0) {
		return core;
	}
	{
		struct ht_paths_instance *in = instance_get(p, pi, number);
		struct ht_paths_run *r;

		if (!in) {
			return no_instance(p, msg, pi);
		}
		r = &in->runs[ai];
		if (kind & EV_BEGIN) {
			if ((r->flags & HT_PATHS_RUN_BEGIN) &&
			    !(r->flags & HT_PATHS_RUN_END)) {
				res->unmatched_begin++;
				ht__paths_note(
				    res,
				    WHERE_FMT "activity_begin of %s/%s "
					      "instance %" PRIu64
					      " while it is running: the "
					      "earlier begin has no end",
				    WHERE_ARGS(msg), pname, aname, number);
			} else if (r->flags & HT_PATHS_RUN_END) {
				/* it ran already: keep the first run */
				res->unmatched_begin++;
				ht__paths_note(
				    res,
				    WHERE_FMT "%s/%s instance %" PRIu64
					      " begins a second "
					      "time: the first run "
					      "is kept",
				    WHERE_ARGS(msg), pname, aname, number);
				return 0;
			}
			r->flags |= HT_PATHS_RUN_BEGIN;
			r->begin_ns = msg->ns;
			r->core = core;
		} else {
			if (!(r->flags & HT_PATHS_RUN_BEGIN) ||
			    (r->flags & HT_PATHS_RUN_END)) {
				res->unmatched_end++;
				ht__paths_note(
				    res,
				    WHERE_FMT "activity_end of %s/%s "
					      "instance %" PRIu64
					      " without its begin",
				    WHERE_ARGS(msg), pname, aname, number);
				return 0;
			}
			r->flags |= HT_PATHS_RUN_END;
			r->end_ns = msg->ns;
		}
	}
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Fills @st from @v[0..n) (sorted in place). */
static void stat_of(struct ht_paths_stat *st, uint64_t *v, size_t n)
{
	size_t i, rank;
	double sum = 0;

	memset(st, 0, sizeof(*st));
	if (!n) {
		return;
	}
	qsort(v, n, sizeof(*v), u64_cmp);
	for (i = 0; i < n; i++) {
		sum += (double)v[i];
	}
	st->count = n;
	st->min_ns = v[0];
	st->max_ns = v[n - 1];
	st->mean_ns = sum / (double)n;
	rank = (size_t)((99 * (uint64_t)n + 99) / 100); /* ceil(0.99 n) */
	st->p99_ns = v[rank - 1];
}

static int inst_start_cmp(const void *a, const void *b)
{
	const struct ht_paths_instance *x = a, *y = b;

	if (x->start_ns != y->start_ns) {
		return x->start_ns < y->start_ns ? -1 : 1;
	}
	return x->number < y->number ? -1 : x->number > y->number;
}

/* Ready times, spans, deadlines of every instance of one path. */
static void finish_instances(struct ht_paths_result *res,
			     struct ht_paths_path_result *pr)
{
	const struct ht_path *path = pr->path;
	size_t i, k, j;
	bool have_t0 = false;
	int64_t t0 = 0;
	uint64_t n0 = 0;

	for (i = 0; i < pr->nr_instances; i++) {
		struct ht_paths_instance *in = &pr->instances[i];
		bool any = false, open = false;

		in->start_ns = in->trigger_ns;
		for (k = 0; k < path->nr_activities; k++) {
			struct ht_paths_run *r = &in->runs[k];

			if (r->flags & HT_PATHS_RUN_BEGIN) {
				if (!in->has_trigger &&
				    (!any || r->begin_ns < in->start_ns)) {
					in->start_ns = r->begin_ns;
				}
				any = true;
				if (!(r->flags & HT_PATHS_RUN_END)) {
					/* begun and never ended */
					open = true;
					res->unmatched_begin++;
				}
			}
		}
		if (!any && !in->has_trigger) {
			continue;
		}
		if (!in->has_trigger) {
			pr->no_trigger++;
		}
		in->complete = any && !open;
		if (in->complete) {
			in->end_ns = in->start_ns;
			for (k = 0; k < path->nr_activities; k++) {
				struct ht_paths_run *r = &in->runs[k];

				if ((r->flags & HT_PATHS_RUN_END) &&
				    r->end_ns > in->end_ns) {
					in->end_ns = r->end_ns;
				}
			}
			in->response_ns = (uint64_t)(in->end_ns - in->start_ns);
		}
		if (in->has_trigger && (!have_t0 || in->trigger_ns < t0)) {
			have_t0 = true;
			t0 = in->trigger_ns;
			n0 = in->number;
		}
	}
	if (pr->nr_instances > 1) {
		/* (no instances: no array, and qsort() takes no NULL) */
		qsort(pr->instances, pr->nr_instances, sizeof(*pr->instances),
		      inst_start_cmp);
	}
	for (i = 0; i < pr->nr_instances; i++) {
		struct ht_paths_instance *in = &pr->instances[i];

		if (path->has_period && have_t0) {
			in->has_firing = true;
			in->firing_ns =
			    t0 + ((int64_t)in->number - (int64_t)n0) *
				     (int64_t)path->period_ns;
		}
		/* ready times in precedence order */
		for (j = 0; j < path->nr_activities; j++) {
			size_t a = path->order[j];
			const struct ht_path_activity *act =
			    &path->activities[a];
			struct ht_paths_run *r = &in->runs[a];
			bool ready = false;
			int64_t t = 0;

			if (!act->nr_preds) {
				ready = in->has_trigger;
				t = in->trigger_ns;
			} else if (act->join == HT_PATH_JOIN_AND) {
				ready = true;
				for (k = 0; k < act->nr_preds; k++) {
					struct ht_paths_run *q =
					    &in->runs[act->preds[k]];

					if (!(q->flags & HT_PATHS_RUN_END)) {
						ready = false;
						break;
					}
					if (!k || q->end_ns > t) {
						t = q->end_ns;
					}
				}
			} else {
				for (k = 0; k < act->nr_preds; k++) {
					struct ht_paths_run *q =
					    &in->runs[act->preds[k]];

					if ((q->flags & HT_PATHS_RUN_END) &&
					    (!ready || q->end_ns < t)) {
						ready = true;
						t = q->end_ns;
					}
				}
			}
			if (ready) {
				r->flags |= HT_PATHS_RUN_READY;
				r->ready_ns = t;
				if ((r->flags & HT_PATHS_RUN_BEGIN) &&
				    r->begin_ns < t) {
					r->flags |= HT_PATHS_RUN_EARLY;
				}
			}
		}
		if (!path->has_deadline) {
			in->deadline = HT_PATHS_DL_NONE;
		} else if (!in->complete) {
			in->deadline = HT_PATHS_DL_UNKNOWN;
		} else {
			int64_t ref =
			    in->has_firing ? in->firing_ns : in->start_ns;

			in->lateness_ns =
			    in->end_ns - ref - (int64_t)path->deadline_ns;
			in->deadline = in->lateness_ns > 0 ? HT_PATHS_DL_MISSED
							   : HT_PATHS_DL_MET;
		}
		if (in->deadline == HT_PATHS_DL_MET) {
			pr->met++;
		} else if (in->deadline == HT_PATHS_DL_MISSED) {
			pr->missed++;
		}
		if (!in->complete) {
			pr->incomplete++;
		}
	}
}

static int stats_of_path(struct ht_paths_result *res,
			 struct ht_paths_path_result *pr)
{
	const struct ht_path *path = pr->path;
	size_t n = pr->nr_instances, i, k, m;
	uint64_t *v = malloc((n ? n : 1) * sizeof(*v));

	(void)res;
	if (!v) {
		return HT_ENOMEM;
	}
	pr->acts = calloc(path->nr_activities ? path->nr_activities : 1,
			  sizeof(*pr->acts));
	if (!pr->acts) {
		free(v);
		return HT_ENOMEM;
	}
	for (m = 0, i = 0; i < n; i++) {
		if (pr->instances[i].complete) {
			v[m++] = pr->instances[i].response_ns;
		}
	}
	stat_of(&pr->response, v, m);
	for (m = 0, i = 0; i < n; i++) {
		const struct ht_paths_instance *in = &pr->instances[i];

		if (in->has_firing && in->has_trigger &&
		    in->trigger_ns >= in->firing_ns) {
			v[m++] = (uint64_t)(in->trigger_ns - in->firing_ns);
		} else if (in->has_firing && in->has_trigger) {
			v[m++] = 0; /* early: no release delay */
		}
	}
	stat_of(&pr->jitter, v, m);
	for (k = 0; k < path->nr_activities; k++) {
		struct ht_paths_activity_stats *as = &pr->acts[k];

		for (m = 0, i = 0; i < n; i++) {
			const struct ht_paths_run *r =
			    &pr->instances[i].runs[k];

			if (!(r->flags & HT_PATHS_RUN_BEGIN)) {
				as->not_run++;
			}
			if (r->flags & HT_PATHS_RUN_EARLY) {
				as->early++;
			}
			if ((r->flags & HT_PATHS_RUN_READY) &&
			    (r->flags & HT_PATHS_RUN_BEGIN) &&
			    !(r->flags & HT_PATHS_RUN_EARLY)) {
				v[m++] = (uint64_t)(r->begin_ns - r->ready_ns);
			}
		}
		stat_of(&as->wait, v, m);
		for (m = 0, i = 0; i < n; i++) {
			const struct ht_paths_run *r =
			    &pr->instances[i].runs[k];

			if (r->flags & HT_PATHS_RUN_END) {
				v[m++] = (uint64_t)(r->end_ns - r->begin_ns);
			}
		}
		stat_of(&as->exec, v, m);
	}
	free(v);
	return 0;
}

struct worst_key {
	int64_t key, start_ns;
	size_t idx;
};

static int worse_cmp(const void *a, const void *b)
{
	const struct worst_key *x = a, *y = b;

	if (x->key != y->key) {
		return x->key > y->key ? -1 : 1;
	}
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* The worst complete instances: the latest against the deadline, or
 * the longest without one. */
static int pick_worst(struct ht_paths_path_result *pr, size_t nr_worst)
{
	size_t i, m = 0;
	struct worst_key *keys = malloc((pr->nr_instances + 1) * sizeof(*keys));

	if (!keys) {
		return HT_ENOMEM;
	}
	for (i = 0; i < pr->nr_instances; i++) {
		const struct ht_paths_instance *in = &pr->instances[i];

		if (in->complete) {
			keys[m].key = pr->path->has_deadline
					  ? in->lateness_ns
					  : (int64_t)in->response_ns;
			keys[m].start_ns = in->start_ns;
			keys[m++].idx = i;
		}
	}
	qsort(keys, m, sizeof(*keys), worse_cmp);
	if (m > nr_worst) {
		m = nr_worst;
	}
	pr->worst = calloc(m ? m : 1, sizeof(*pr->worst));
	if (!pr->worst) {
		free(keys);
		return HT_ENOMEM;
	}
	for (i = 0; i < m; i++) {
		pr->worst[i].instance = keys[i].idx;
	}
	pr->nr_worst = m;
	free(keys);
	return 0;
}

int ht_paths_result_reorder(struct ht_paths_result *res)
{
	return ht__paths_order_cores(res);
}

/* The instance pass fed by a caller (paths.h), or by
 * ht_paths_analyze(). */
struct ht_paths_reader {
	struct pass1 p;
	size_t nr_paths; /* of p.ps (the description may go first) */
	size_t nr_worst;
	bool no_interference;
};

void ht_paths_reader_destroy(struct ht_paths_reader *rd)
{
	struct pass1 *p = rd ? &rd->p : NULL;
	size_t i, k;

	if (!p) {
		return;
	}
	if (p->ps) {
		for (i = 0; i < rd->nr_paths; i++) {
			for (k = 0; k < p->ps[i].nr; k++) {
				free(p->ps[i].inst[k].runs);
			}
			free(p->ps[i].inst);
			free(p->ps[i].map.keys);
			free(p->ps[i].map.vals);
		}
	}
	free(p->ps);
	free(p->classes);
	free(p->stream_core);
	ht_paths_result_destroy(p->res);
	free(rd);
}

int ht_paths_reader_create(const struct ht_path_desc *desc,
			   const struct ht_paths_opts *opts,
			   struct ht_paths_reader **out)
{
	struct ht_paths_reader *rd;
	struct ht_paths_result *res;

	*out = NULL;
	rd = calloc(1, sizeof(*rd));
	res = calloc(1, sizeof(*res));
	if (!rd || !res) {
		free(rd);
		free(res);
		return HT_ENOMEM;
	}
	rd->p.desc = desc;
	rd->p.res = res;
	rd->nr_paths = desc->nr_paths;
	rd->nr_worst = opts && opts->nr_worst ? opts->nr_worst : 3;
	rd->no_interference = opts && opts->no_interference;
	res->desc = desc;
	res->notes = calloc(MAX_NOTES, sizeof(*res->notes));
	res->paths =
	    calloc(desc->nr_paths ? desc->nr_paths : 1, sizeof(*res->paths));
	rd->p.ps =
	    calloc(desc->nr_paths ? desc->nr_paths : 1, sizeof(*rd->p.ps));
	if (!res->notes || !res->paths || !rd->p.ps) {
		ht_paths_reader_destroy(rd);
		return HT_ENOMEM;
	}
	*out = rd;
	return 0;
}

int ht_paths_reader_feed(struct ht_paths_reader *rd,
			 const struct ht_ctf_msg *msg, char *err,
			 size_t err_len)
{
	if (msg->kind != HT_CTF_MSG_EVENT) {
		return 0;
	}
	rd->p.err = err;
	rd->p.err_len = err_len;
	return on_event(&rd->p, msg);
}

void ht_paths_reader_skipped(struct ht_paths_reader *rd, const char *text)
{
	rd->p.res->read_errors++;
	ht__paths_note(rd->p.res, "%s (skipped)", text);
}

int ht_paths_reader_finish(struct ht_paths_reader *rd,
			   const char *const *traces, size_t nr_traces,
			   struct ht_paths_result **out, char *err,
			   size_t err_len)
{
	struct pass1 *p = &rd->p;
	struct ht_paths_result *res = p->res;
	const struct ht_path_desc *desc = p->desc;
	size_t i;
	int ret;

	*out = NULL;
	for (i = 0; i < desc->nr_paths; i++) {
		struct ht_paths_path_result *pr = &res->paths[i];

		pr->path = &desc->paths[i];
		pr->instances = p->ps[i].inst;
		pr->nr_instances = p->ps[i].nr;
		p->ps[i].inst = NULL;
		p->ps[i].nr = 0;
		finish_instances(res, pr);
		ret = stats_of_path(res, pr);
		if (!ret) {
			ret = pick_worst(pr, rd->nr_worst);
		}
		if (ret) {
			return ret;
		}
	}
	if (!rd->no_interference) {
		ret = ht__paths_blame(res, traces, nr_traces, err, err_len);
		if (ret) {
			return ret;
		}
	}
	ret = ht__paths_order_cores(res);
	if (ret) {
		return ret;
	}
	*out = res;
	p->res = NULL;
	return 0;
}

int ht_paths_analyze(const struct ht_path_desc *desc, const char *const *traces,
		     size_t nr_traces, const struct ht_paths_opts *opts,
		     struct ht_paths_result **out, char *err, size_t err_len)
{
	struct ht_ctf_open_opts oo = {
	    .flags = HT_CTF_EVENTS_ONLY | HT_CTF_KEEP_GOING,
	};
	struct ht_paths_reader *rd;
	struct ht_ctf_set *set = NULL;
	int ret;

	*out = NULL;
	ret = ht_paths_reader_create(desc, opts, &rd);
	if (ret) {
		return ret;
	}
	oo.select = opts ? opts->select : NULL;
	ret = ht_ctf_set_open(&set, traces, nr_traces, &oo, err, err_len);
	if (ret) {
		goto out;
	}
	for (;;) {
		struct ht_ctf_msg msg;

		ret = ht_ctf_set_next(set, &msg);
		if (ret == HT_EEOF) {
			ret = 0;
			break;
		}
		if (ret == HT_ENOMEM) {
			goto out;
		}
		if (ret) {
			ht_paths_reader_skipped(rd, ht_ctf_set_last_error(set));
			continue;
		}
		ret = ht_paths_reader_feed(rd, &msg, err, err_len);
		if (ret) {
			goto out;
		}
	}
	ht_ctf_set_close(set);
	set = NULL;
	ret = ht_paths_reader_finish(rd, traces, nr_traces, out, err, err_len);
out:
	ht_ctf_set_close(set);
	ht_paths_reader_destroy(rd);
	return ret;
}

void ht_paths_result_destroy(struct ht_paths_result *res)
{
	size_t i, k;

	if (!res) {
		return;
	}
	for (i = 0; res->paths && i < res->desc->nr_paths; i++) {
		struct ht_paths_path_result *pr = &res->paths[i];

		for (k = 0; k < pr->nr_instances; k++) {
			free(pr->instances[k].runs);
		}
		free(pr->instances);
		free(pr->acts);
		for (k = 0; k < pr->nr_worst; k++) {
			size_t b;

			for (b = 0; b < pr->worst[k].nr_blame; b++) {
				free(pr->worst[k].blame[b].who);
				free(pr->worst[k].blame[b].core_ns);
			}
			free(pr->worst[k].blame);
			for (b = 0; b < pr->worst[k].nr_blocked; b++) {
				free(pr->worst[k].blocked[b].task);
				free(pr->worst[k].blocked[b].core_ns);
			}
			free(pr->worst[k].blocked);
		}
		free(pr->worst);
	}
	free(res->paths);
	for (i = 0; i < res->nr_cores; i++) {
		free(res->cores[i]);
		free(res->core_info[i].role);
	}
	free(res->cores);
	free(res->core_info);
	for (i = 0; i < res->nr_notes; i++) {
		free(res->notes[i]);
	}
	free(res->notes);
	free(res);
}
