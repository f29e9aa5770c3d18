/* SPDX-License-Identifier: MIT */
/*
 * The states model (states.h): per-core task / interrupt / function
 * slices, message flows and utilization, from a stream of reader
 * messages.
 */
#include "states.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "states-internal.h"

/* ------------------------------------------------------------------ */
/* small helpers */

static int anomaly_v(struct ht_states *st, struct core *c, int64_t ns,
		     const char *path, uint64_t offset, const char *fmt,
		     va_list ap)
{
	struct ht_states_item it = {.kind = HT_STATES_ANOMALY};
	size_t n = 0;

	if (!st->cb) {
		return 0;
	}
	if (path) {
		n = snprintf(st->text, sizeof(st->text),
			     "file=%s offset=%" PRIu64 ": ", path, offset);
	}
	if (n >= sizeof(st->text)) {
		n = 0;
	}
	n += snprintf(st->text + n, sizeof(st->text) - n,
		      "core %s at %" PRId64 " ns: ", c->pub.name, ns);
	if (n < sizeof(st->text)) {
		vsnprintf(st->text + n, sizeof(st->text) - n, fmt, ap);
	}
	it.core = &c->pub;
	it.ns = ns;
	it.text = st->text;
	it.damaged = st->damaged_anomaly;
	return ht__states_emit(st, &it);
}

/* An anomaly at (@path, @offset) when @path is not NULL. */
int ht__states_anomaly_at(struct ht_states *st, struct core *c, int64_t ns,
			  const char *path, uint64_t offset, const char *fmt,
			  ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = anomaly_v(st, c, ns, path, offset, fmt, ap);
	va_end(ap);
	return ret;
}

/* An anomaly at @msg's event (when @msg is not NULL). */
int ht__states_anomaly(struct ht_states *st, struct core *c, int64_t ns,
		       const struct ht_ctf_msg *msg, const char *fmt, ...)
{
	bool at = msg && msg->stream && msg->event;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = anomaly_v(st, c, ns, at ? msg->stream->path : NULL,
			at ? msg->event->offset_bits / 8 : 0, fmt, ap);
	va_end(ap);
	return ret;
}

uint64_t ht_states_flow_id(uint32_t sender_core_id, uint64_t id)
{
	uint64_t h = ht__states_mix64(
	    id ^ ht__states_mix64((uint64_t)sender_core_id + 1));

	return h ? h : 1;
}

static bool member_name_eq(const char *member, const char *name)
{
	/* babeltrace2 shows TSDL names without one leading '_' */
	return !strcmp(member, name) ||
	       (member[0] == '_' && !strcmp(member + 1, name));
}

/* The payload member @name (a string literal: the cache keys on its
 * address) of @msg's event, or NULL. The member's position in its
 * structure type is cached, so a lookup is a short sibling walk. */
static const struct ht_ctf_field *payload_member(struct ht_states *st,
						 const struct ht_ctf_msg *msg,
						 const char *name)
{
	const struct ht_ctf_field *p =
	    msg->event->scope[HT_CTF_SCOPE_EVENT_PAYLOAD];
	const struct ht_ctf_type *t;
	struct member_cache *e;
	const struct ht_ctf_field *c;
	size_t h;
	int k;

	if (!p || p->type->kind != HT_CTF_STRUCT) {
		return NULL;
	}
	t = p->type;
	h = (size_t)ht__states_mix64((uint64_t)(uintptr_t)t ^
				     ((uint64_t)(uintptr_t)name << 7)) &
	    (MEMBER_CACHE - 1);
	e = &st->mcache[h];
	if (e->type != t || e->name != name) {
		size_t i;

		e->type = t;
		e->name = name;
		e->index = -1;
		for (i = 0; i < t->nr_members; i++) {
			if (member_name_eq(t->members[i].name, name)) {
				e->index = (int)i;
				break;
			}
		}
	}
	if (e->index < 0 || (uint32_t)e->index >= p->nr_children) {
		return NULL;
	}
	c = ht_ctf_field_first_child(p);
	for (k = 0; k < e->index; k++) {
		c = ht_ctf_field_next(c);
	}
	return c;
}

static bool field_uint(const struct ht_ctf_field *f, uint64_t *v)
{
	if (!f ||
	    (f->type->kind != HT_CTF_INT && f->type->kind != HT_CTF_ENUM)) {
		return false;
	}
	*v = f->v.u;
	return true;
}

static bool member_uint(struct ht_states *st, const struct ht_ctf_msg *msg,
			const char *name, uint64_t *v)
{
	return field_uint(payload_member(st, msg, name), v);
}

static const char *member_str(struct ht_states *st,
			      const struct ht_ctf_msg *msg, const char *name)
{
	const struct ht_ctf_field *f = payload_member(st, msg, name);

	return f && f->type->kind == HT_CTF_STRING ? f->v.str : NULL;
}

/* ------------------------------------------------------------------ */
/* event class roles, cached by class pointer */

static enum ev_role role_of_name(const char *full)
{
	static const struct {
		const char *name;
		enum ev_role role;
	} names[] = {
	    {"task_switch", EV_TASK_SWITCH},
	    {"isr_enter", EV_ISR_ENTER},
	    {"isr_exit", EV_ISR_EXIT},
	    {"func_entry", EV_FUNC_ENTRY},
	    {"func_exit", EV_FUNC_EXIT},
	    {"msg_send", EV_MSG_SEND},
	    {"msg_recv", EV_MSG_RECV},
	    {"func_task_switch", EV_TASK_SWITCH},
	    {"func_task_name", EV_TASK_NAME},
	    {"task_block", EV_TASK_BLOCK},
	    {"task_wake", EV_TASK_WAKE},
	};
	const char *n = ht_ctf_event_short_name(full);
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(n, names[i].name)) {
			return names[i].role;
		}
	}
	return EV_OTHER;
}

static size_t ptr_hash(const void *p)
{
	return (size_t)ht__states_mix64((uint64_t)(uintptr_t)p);
}

static int cls_role(struct ht_states *st, const struct ht_ctf_event_class *cls,
		    enum ev_role *role)
{
	size_t i, mask;

	if (st->cls_used * 2 >= st->cls_cap) {
		size_t ncap = st->cls_cap ? st->cls_cap * 2 : 64, k;
		struct cls_map_entry *nm = calloc(ncap, sizeof(*nm));

		if (!nm) {
			return HT_ENOMEM;
		}
		for (k = 0; k < st->cls_cap; k++) {
			if (st->cls_map[k].cls) {
				i = ptr_hash(st->cls_map[k].cls) & (ncap - 1);
				while (nm[i].cls) {
					i = (i + 1) & (ncap - 1);
				}
				nm[i] = st->cls_map[k];
			}
		}
		free(st->cls_map);
		st->cls_map = nm;
		st->cls_cap = ncap;
	}
	mask = st->cls_cap - 1;
	for (i = ptr_hash(cls) & mask; st->cls_map[i].cls; i = (i + 1) & mask) {
		if (st->cls_map[i].cls == cls) {
			*role = st->cls_map[i].role;
			return 0;
		}
	}
	st->cls_map[i].cls = cls;
	st->cls_map[i].role = role_of_name(cls->name);
	st->cls_used++;
	*role = st->cls_map[i].role;
	return 0;
}

/* ------------------------------------------------------------------ */
/* cores */

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d) {
		memcpy(d, s, n);
	}
	return d;
}

static int stack_init(struct stack *s, unsigned depth)
{
	s->v = calloc(depth, sizeof(*s->v));
	return s->v ? 0 : HT_ENOMEM;
}

static void core_free(struct core *c)
{
	size_t i;

	if (!c) {
		return;
	}
	for (i = 0; i < c->pub.nr_tasks; i++) {
		free((char *)c->tasks[i].name);
	}
	free(c->tasks);
	for (i = 0; i < c->names_cap; i++) {
		free(c->names[i].name);
	}
	free(c->names);
	free(c->isr.v);
	free(c->func.v);
	free(c->name);
	free(c->role);
	free(c->group);
	free(c);
}

/* The core of @msg's stream, created on first sight. */
static int core_of(struct ht_states *st, const struct ht_ctf_msg *msg,
		   struct core **out)
{
	const struct ht_ctf_stream *s = msg->stream;
	const struct ht_ctf_field *ctx = NULL;
	struct ht_ctf_core core;
	char namebuf[512];
	const char *name, *role;
	bool has_id;
	uint64_t id;
	struct core *c;
	size_t i;
	int ret;

	if (s->index < st->nr_by_stream && st->by_stream[s->index]) {
		*out = st->by_stream[s->index];
		return 0;
	}
	if (msg->packet) {
		ctx = msg->packet->context;
	}
	if (!ctx && msg->event) {
		ctx = msg->event->scope[HT_CTF_SCOPE_PACKET_CONTEXT];
	}
	/* the rule every tool shares (docs/events.md) */
	ht_ctf_stream_core(s, ctx, namebuf, sizeof(namebuf), &core);
	name = core.name;
	role = core.role;
	has_id = core.has_id;
	id = core.id;
	c = NULL;
	for (i = 0; i < st->nr_cores; i++) {
		if (!strcmp(st->cores[i]->pub.name, name)) {
			c = st->cores[i];
			break;
		}
	}
	if (!c) {
		struct ht_states_item it = {.kind = HT_STATES_CORE};
		size_t glen;

		if (ht_array_reserve((void **)&st->cores, &st->cap_cores,
				     st->nr_cores + 1, sizeof(*st->cores))) {
			return HT_ENOMEM;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			return HT_ENOMEM;
		}
		c->name = dup_str(name);
		c->role = role ? dup_str(role) : NULL;
		/* core type: the role, else the name without trailing
		 * digits ("dsp3" -> "dsp") */
		glen = strlen(name);
		while (glen > 1 && name[glen - 1] >= '0' &&
		       name[glen - 1] <= '9') {
			glen--;
		}
		c->group = role ? dup_str(role) : malloc(glen + 1);
		if (c->group && !role) {
			memcpy(c->group, name, glen);
			c->group[glen] = '\0';
		}
		if (!c->name || (role && !c->role) || !c->group ||
		    stack_init(&c->isr, st->opts.max_depth) ||
		    stack_init(&c->func, st->opts.max_depth)) {
			core_free(c);
			return HT_ENOMEM;
		}
		c->pub.index = st->nr_cores;
		c->pub.has_core_id = has_id;
		c->pub.core_id = (uint32_t)id;
		c->pub.name = c->name;
		c->pub.role = c->role;
		c->pub.group = c->group;
		st->cores[st->nr_cores++] = c;
		it.core = &c->pub;
		it.ns = msg->has_time ? msg->ns : 0;
		ret = ht__states_emit(st, &it);
		if (ret) {
			return ret;
		}
	}
	if (ht_array_extend((void **)&st->by_stream, &st->nr_by_stream,
			    &st->cap_by_stream, (size_t)s->index + 1,
			    sizeof(*st->by_stream))) {
		return HT_ENOMEM;
	}
	st->by_stream[s->index] = c;
	*out = c;
	return 0;
}

/* The task entry (kind, id, name) of core @c, created on first sight. */
static int task_of(struct core *c, enum ht_states_kind kind, uint64_t id,
		   const char *name, size_t *out)
{
	size_t i;
	char buf[32];
	struct ht_states_task *t;

	/* most recent first: switches come back to the same few tasks */
	for (i = c->pub.nr_tasks; i-- > 0;) {
		t = &c->tasks[i];
		if (t->id == id && t->kind == kind &&
		    (kind == HT_STATES_ISR || !strcmp(t->name, name))) {
			*out = i;
			return 0;
		}
	}
	if (ht_array_reserve((void **)&c->tasks, &c->cap_tasks,
			     c->pub.nr_tasks + 1, sizeof(*c->tasks))) {
		return HT_ENOMEM;
	}
	c->pub.tasks = c->tasks;
	if (kind == HT_STATES_ISR) {
		snprintf(buf, sizeof(buf), "irq %" PRIu64, id);
		name = buf;
	}
	t = &c->tasks[c->pub.nr_tasks];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->id = id;
	t->name = dup_str(name ? name : "");
	if (!t->name) {
		return HT_ENOMEM;
	}
	*out = c->pub.nr_tasks++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* accounting */

/* Adds @d ns of the core's current state to the totals and window. */
static void charge_span(struct core *c, uint64_t d)
{
	struct ht_states_task *t = NULL;

	if (c->isr.n) {
		c->pub.isr_ns += d;
		c->w_isr += d;
		t = &c->tasks[c->isr.v[c->isr.n - 1].task];
		if (c->task_open &&
		    c->tasks[c->task.task].kind == HT_STATES_TASK) {
			c->tasks[c->task.task].interrupted_ns += d;
		}
	} else if (!c->task_open) {
		c->pub.unknown_ns += d;
		c->w_unknown += d;
	} else {
		t = &c->tasks[c->task.task];
		if (t->kind == HT_STATES_IDLE) {
			c->pub.idle_ns += d;
			c->w_idle += d;
		} else {
			c->pub.task_ns += d;
			c->w_task += d;
		}
	}
	if (t) {
		t->run_ns += d;
		t->window_ns += d;
	}
}

static int flush_window(struct ht_states *st, struct core *c, int64_t end)
{
	struct ht_states_item it = {.kind = HT_STATES_WINDOW};
	size_t i;
	int ret;

	it.core = &c->pub;
	it.ns = end;
	it.win_begin_ns = c->win_begin;
	it.win_end_ns = end;
	it.win_unknown_ns = c->w_unknown;
	it.win_idle_ns = c->w_idle;
	it.win_task_ns = c->w_task;
	it.win_isr_ns = c->w_isr;
	ret = ht__states_emit(st, &it);
	c->w_unknown = c->w_idle = c->w_task = c->w_isr = 0;
	for (i = 0; i < c->pub.nr_tasks; i++) {
		c->tasks[i].window_ns = 0;
	}
	return ret;
}

/* @b - @a for @a <= @b: any two times, without signed overflow. */
static uint64_t span_ns(int64_t a, int64_t b)
{
	return (uint64_t)b - (uint64_t)a;
}

/* @a + @d, knowing the sum is a time (it does not pass INT64_MAX). */
static int64_t add_ns(int64_t a, uint64_t d)
{
	return (int64_t)((uint64_t)a + d);
}

/* The beginning of the window of the grid (@origin + k * @w) that holds
 * @t, or @t itself when that is before INT64_MIN. */
static int64_t window_of(int64_t origin, int64_t w, int64_t t)
{
	uint64_t d, k;

	if (t >= origin) {
		d = span_ns(origin, t);
		return add_ns(origin, d - d % (uint64_t)w);
	}
	d = span_ns(t, origin);
	k = d / (uint64_t)w + (d % (uint64_t)w != 0);
	if (k > span_ns(INT64_MIN, origin) / (uint64_t)w) {
		return t;
	}
	return (int64_t)((uint64_t)origin - k * (uint64_t)w);
}

/* Charges the core's state from its last accounting point to @t,
 * closing the windows passed on the way (c->win_begin <= c->acc_ns <
 * @t throughout). */
static int charge(struct ht_states *st, struct core *c, int64_t t)
{
	int64_t w = st->opts.window_ns;
	int ret;

	if (!c->acc_started) {
		c->acc_started = true;
		c->acc_ns = t;
		if (w) {
			c->win_begin = window_of(st->origin_ns, w, t);
		}
		return 0;
	}
	if (t <= c->acc_ns) {
		return 0;
	}
	while (w && span_ns(c->win_begin, t) >= (uint64_t)w) {
		int64_t end = add_ns(c->win_begin, (uint64_t)w);

		charge_span(c, span_ns(c->acc_ns, end));
		c->acc_ns = end;
		ret = flush_window(st, c, end);
		if (ret) {
			return ret;
		}
		c->win_begin = end;
	}
	charge_span(c, span_ns(c->acc_ns, t));
	c->acc_ns = t;
	return 0;
}

/* ------------------------------------------------------------------ */
/* slices */

static int slice_begin(struct ht_states *st, struct core *c,
		       struct open_slice *o)
{
	struct ht_states_item it = {.kind = HT_STATES_SLICE_BEGIN};

	it.core = &c->pub;
	it.ns = o->s.begin_ns;
	it.slice = &o->s;
	return ht__states_emit(st, &it);
}

static int slice_end(struct ht_states *st, struct core *c, struct open_slice *o,
		     int64_t t, bool forced)
{
	struct ht_states_item it = {.kind = HT_STATES_SLICE_END};
	uint64_t d;

	o->s.end_ns = t < o->s.begin_ns ? o->s.begin_ns : t;
	o->s.forced_end = forced;
	d = span_ns(o->s.begin_ns, o->s.end_ns);
	if (o->s.kind != HT_STATES_FUNC) {
		struct ht_states_task *tk = &c->tasks[o->task];

		if (d > tk->max_slice_ns) {
			tk->max_slice_ns = d;
		}
	}
	it.core = &c->pub;
	it.ns = o->s.end_ns;
	it.slice = &o->s;
	return ht__states_emit(st, &it);
}

static int task_start(struct ht_states *st, struct core *c, size_t task,
		      int64_t t)
{
	struct ht_states_task *tk = &c->tasks[task];

	memset(&c->task, 0, sizeof(c->task));
	c->task.s.kind = tk->kind;
	c->task.s.id = tk->id;
	c->task.s.name = tk->name;
	c->task.s.depth = 0;
	c->task.s.begin_ns = t;
	c->task.task = task;
	c->task_open = true;
	tk->slices++;
	return slice_begin(st, c, &c->task);
}

static int do_switch(struct ht_states *st, struct core *c, size_t next,
		     int64_t t, bool blocked)
{
	int ret;

	if (c->task_open) {
		ret = ht__states_task_out(st, c, t, next, blocked);
		if (!ret) {
			ret = slice_end(st, c, &c->task, t, false);
		}
		if (ret) {
			return ret;
		}
		c->task_open = false;
	}
	c->pub.context_switches++;
	ret = task_start(st, c, next, t);
	return ret ? ret : ht__states_task_in(st, c, next, t);
}

/* The slot of @tid in the core's name table (free when not there). */
static struct task_name *name_slot(struct core *c, uint64_t tid)
{
	size_t mask = c->names_cap - 1, i;

	for (i = (size_t)ht__states_mix64(tid) & mask;; i = (i + 1) & mask) {
		if (!c->names[i].name || c->names[i].tid == tid) {
			return &c->names[i];
		}
	}
}

/* The name func_task_name gave @tid on core @c, or NULL. */
static const char *name_of(const struct core *c, uint64_t tid)
{
	return c->names_cap ? name_slot((struct core *)c, tid)->name : NULL;
}

/*
 * func_task_name: @tid is called @name from now on. Tasks already seen
 * under the placeholder name (a switch before the name) take it in
 * their totals; their slices so far keep the placeholder.
 */
static int on_task_name(struct ht_states *st, struct core *c,
			const struct ht_ctf_msg *msg, int64_t t)
{
	const char *name = member_str(st, msg, "name");
	struct task_name *e;
	uint64_t tid;
	size_t i;
	char *d;

	if (!member_uint(st, msg, "tid", &tid) || !name) {
		return ht__states_anomaly(
		    st, c, t, msg,
		    "func_task_name without integer tid and name");
	}
	if ((c->names_used + 1) * 2 > c->names_cap) {
		size_t ncap = c->names_cap ? c->names_cap * 2 : 16, old;
		struct task_name *ov = c->names,
				 *nv = calloc(ncap, sizeof(*nv));

		if (!nv) {
			return HT_ENOMEM;
		}
		old = c->names_cap;
		c->names = nv;
		c->names_cap = ncap;
		for (i = 0; i < old; i++) {
			if (ov[i].name) {
				*name_slot(c, ov[i].tid) = ov[i];
			}
		}
		free(ov);
	}
	d = dup_str(name);
	if (!d) {
		return HT_ENOMEM;
	}
	e = name_slot(c, tid);
	if (!e->name) {
		c->names_used++;
	}
	free(e->name);
	e->tid = tid;
	e->name = d;
	for (i = 0; i < c->pub.nr_tasks; i++) {
		struct ht_states_task *tk = &c->tasks[i];

		if (tk->kind == HT_STATES_TASK && tk->id == tid &&
		    !strcmp(tk->name, "?")) {
			char *nn = dup_str(name);

			if (!nn) {
				return HT_ENOMEM;
			}
			free((char *)tk->name);
			tk->name = nn;
		}
	}
	return 0;
}

int ht__states_switch(struct ht_states *st, struct core *c,
		      const struct ht_ctf_msg *msg, int64_t t,
		      uint64_t prev_tid, bool prev_blocked, uint64_t next_tid,
		      const char *next_name)
{
	size_t task;
	int ret;

	if (prev_tid != HT__STATES_NO_TID && c->task_open &&
	    !c->pending_switch && c->task.s.id != prev_tid) {
		c->pub.switch_prev_mismatch++;
		ret = ht__states_anomaly(st, c, t, msg,
					 "task_switch prev_tid %" PRIu64
					 " but tid %" PRIu64 " was running",
					 prev_tid, c->task.s.id);
		if (ret) {
			return ret;
		}
	}
	if (!next_name) {
		/* func_task_switch: the name table (func_task_name) */
		next_name = name_of(c, next_tid);
	}
	ret = task_of(c, next_tid ? HT_STATES_TASK : HT_STATES_IDLE, next_tid,
		      next_name ? next_name : (next_tid ? "?" : "idle"), &task);
	if (ret) {
		return ret;
	}
	c->pub.has_tasks = true;
	if (c->isr.n) {
		/* the CPU switches when the outermost handler returns */
		c->pending_switch = true;
		c->pending_task = task;
		c->pending_blocked = prev_blocked;
		return 0;
	}
	return do_switch(st, c, task, t, prev_blocked);
}

/* task_block (object, kind) and task_wake (tid, object). */
static int on_block_wake(struct ht_states *st, struct core *c,
			 const struct ht_ctf_msg *msg, int64_t t, bool block)
{
	uint64_t object = 0, v = HT_STATES_OBJ_OTHER;

	if (block) {
		if (!member_uint(st, msg, "object", &object)) {
			return ht__states_anomaly(
			    st, c, t, msg,
			    "task_block without an integer object");
		}
		member_uint(st, msg, "kind", &v);
		return ht__states_block(st, c, msg, t, object,
					v > HT_STATES_OBJ_OTHER
					    ? HT_STATES_OBJ_OTHER
					    : (enum ht_states_object_kind)v);
	}
	if (!member_uint(st, msg, "tid", &v)) {
		return ht__states_anomaly(st, c, t, msg,
					  "task_wake without an integer tid");
	}
	return ht__states_wake(st, c, msg, t, v);
}

static int on_task_switch(struct ht_states *st, struct core *c,
			  const struct ht_ctf_msg *msg, int64_t t)
{
	uint64_t prev = HT__STATES_NO_TID, next = 0;

	if (!member_uint(st, msg, "next_tid", &next)) {
		return ht__states_anomaly(
		    st, c, t, msg, "task_switch without an integer next_tid");
	}
	if (!member_uint(st, msg, "prev_tid", &prev)) {
		prev = HT__STATES_NO_TID;
	}
	return ht__states_switch(st, c, msg, t, prev, false, next,
				 member_str(st, msg, "next_name"));
}

static int push(struct ht_states *st, struct core *c, struct stack *s,
		const struct open_slice *o, const struct ht_ctf_msg *msg)
{
	if (s->n >= st->opts.max_depth) {
		s->overflow++;
		c->pub.depth_overflow++;
		return ht__states_anomaly(
		    st, c, o->s.begin_ns, msg,
		    "nesting deeper than %u: slice dropped",
		    st->opts.max_depth);
	}
	s->v[s->n] = *o;
	if (o->s.kind == HT_STATES_FUNC && o->s.name == o->addr_name) {
		s->v[s->n].s.name = s->v[s->n].addr_name;
	}
	s->n++;
	return slice_begin(st, c, &s->v[s->n - 1]);
}

/* Pops the slice of @s with id @id (top first), force-closing those
 * above it. *@found says whether it was there. */
static int pop_id(struct ht_states *st, struct core *c, struct stack *s,
		  bool any, uint64_t id, int64_t t, uint64_t *unclosed,
		  const struct ht_ctf_msg *msg, bool *found)
{
	unsigned i;
	int ret;

	*found = false;
	if (s->overflow) {
		/* the matching enter was dropped */
		s->overflow--;
		*found = true;
		return 0;
	}
	for (i = s->n; i-- > 0;) {
		if (any || s->v[i].s.id == id) {
			break;
		}
	}
	if (i == (unsigned)-1 || s->n == 0) {
		return 0;
	}
	*found = true;
	while (s->n > i + 1) {
		struct open_slice *o = &s->v[s->n - 1];

		(*unclosed)++;
		ret = ht__states_anomaly(st, c, t, msg,
					 "%s entered at %" PRId64
					 " ns has no exit: closed here",
					 o->s.name, o->s.begin_ns);
		if (!ret) {
			ret = slice_end(st, c, o, t, true);
		}
		s->n--;
		if (ret) {
			return ret;
		}
	}
	ret = slice_end(st, c, &s->v[i], t, false);
	s->n--;
	return ret;
}

/* Ends the interrupt @id (any: the innermost) at @t; *@found says
 * whether one was open. The outermost one's return lets the task run
 * again, and a switch seen inside the interrupts take effect. */
static int isr_exit(struct ht_states *st, struct core *c,
		    const struct ht_ctf_msg *msg, int64_t t, bool any,
		    uint64_t id, bool *found)
{
	int ret = pop_id(st, c, &c->isr, any, id, t, &c->pub.isr_enter_unclosed,
			 msg, found);

	if (ret || !*found || c->isr.n) {
		return ret;
	}
	ret = ht__states_task_isr(st, c, t, false);
	if (!ret && c->pending_switch) {
		c->pending_switch = false;
		ret = do_switch(st, c, c->pending_task, t, c->pending_blocked);
	}
	return ret;
}

static int on_isr(struct ht_states *st, struct core *c,
		  const struct ht_ctf_msg *msg, int64_t t, bool enter)
{
	uint64_t irq = 0;
	bool has_irq = member_uint(st, msg, "irq", &irq), found;
	int ret;

	if (enter) {
		return ht__states_isr_enter(st, c, msg, t, irq, NULL);
	}
	ret = isr_exit(st, c, msg, t, !has_irq, irq, &found);
	if (!ret && !found) {
		c->pub.isr_exit_unmatched++;
		return ht__states_anomaly(
		    st, c, t, msg, "isr_exit irq %" PRIu64 " without isr_enter",
		    irq);
	}
	return ret;
}

/* The function of a func_entry/func_exit: address and name fields. */
static bool func_ident(struct ht_states *st, const struct ht_ctf_msg *msg,
		       uint64_t *addr, const char **name)
{
	static const char *const addr_names[] = {"addr", "func", "fn",
						 "address", "this_fn"};
	static const char *const name_names[] = {"name", "func_name",
						 "function"};
	size_t i;

	*name = NULL;
	for (i = 0; i < sizeof(name_names) / sizeof(name_names[0]); i++) {
		*name = member_str(st, msg, name_names[i]);
		if (*name) {
			break;
		}
	}
	for (i = 0; i < sizeof(addr_names) / sizeof(addr_names[0]); i++) {
		if (member_uint(st, msg, addr_names[i], addr)) {
			return true;
		}
	}
	*addr = 0;
	return false;
}

/* "0x" and @v in lower-case hex (printf's "0x%" PRIx64, without its
 * cost: this runs on every call of an unnamed function). */
static void hex_name(char *buf, uint64_t v)
{
	char t[16];
	size_t n = 0;

	do {
		t[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*buf++ = '0';
	*buf++ = 'x';
	while (n) {
		*buf++ = t[--n];
	}
	*buf = '\0';
}

static int on_func(struct ht_states *st, struct core *c,
		   const struct ht_ctf_msg *msg, int64_t t, bool enter)
{
	uint64_t addr;
	const char *name;
	bool has_addr = func_ident(st, msg, &addr, &name), found;
	struct open_slice o;
	int ret;

	if (enter) {
		memset(&o, 0, sizeof(o));
		if (!name && st->opts.symbolize) {
			name = st->opts.symbolize(st->opts.symbolize_arg, msg,
						  addr);
		}
		if (!name) {
			hex_name(o.addr_name, addr);
			name = o.addr_name;
		}
		o.s.kind = HT_STATES_FUNC;
		o.s.id = addr;
		o.s.name = name;
		o.s.depth = c->func.n;
		o.s.begin_ns = t;
		c->pub.calls++;
		return push(st, c, &c->func, &o, msg);
	}
	ret = pop_id(st, c, &c->func, !has_addr, addr, t,
		     &c->pub.func_entry_unclosed, msg, &found);
	if (ret) {
		return ret;
	}
	if (!found) {
		c->pub.func_exit_unmatched++;
		return ht__states_anomaly(
		    st, c, t, msg, "func_exit 0x%" PRIx64 " without func_entry",
		    addr);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* slices of other vocabularies (states-kernel.c: Linux CPUs) */

int ht__states_isr_enter(struct ht_states *st, struct core *c,
			 const struct ht_ctf_msg *msg, int64_t t, uint64_t id,
			 const char *name)
{
	struct open_slice o;
	size_t task;
	int ret = task_of(c, HT_STATES_ISR, id, NULL, &task);

	if (!ret && name && strcmp(c->tasks[task].name, name)) {
		char *n = dup_str(name);

		if (!n) {
			return HT_ENOMEM;
		}
		free((char *)c->tasks[task].name);
		c->tasks[task].name = n;
	}
	if (ret) {
		return ret;
	}
	memset(&o, 0, sizeof(o));
	o.s.kind = HT_STATES_ISR;
	o.s.id = id;
	o.s.name = c->tasks[task].name;
	o.s.depth = c->isr.n + 1;
	o.s.begin_ns = t;
	o.task = task;
	c->pub.interrupts++;
	c->tasks[task].slices++;
	if (!c->isr.n) {
		ret = ht__states_task_isr(st, c, t, true);
		if (ret) {
			return ret;
		}
	}
	return push(st, c, &c->isr, &o, msg);
}

int ht__states_isr_exit(struct ht_states *st, struct core *c,
			const struct ht_ctf_msg *msg, int64_t t, uint64_t id)
{
	bool found;
	int ret = isr_exit(st, c, msg, t, false, id, &found);

	if (!ret && !found) {
		c->pub.isr_exit_unmatched++;
		return ht__states_anomaly(st, c, t, msg,
					  "%s exit without its entry",
					  msg->event->cls->name);
	}
	return ret;
}

int ht__states_func_enter(struct ht_states *st, struct core *c,
			  const struct ht_ctf_msg *msg, int64_t t, uint64_t id,
			  const char *name)
{
	struct open_slice o;

	memset(&o, 0, sizeof(o));
	o.s.kind = HT_STATES_FUNC;
	o.s.id = id;
	o.s.name = name;
	o.s.depth = c->func.n;
	o.s.begin_ns = t;
	c->pub.calls++;
	return push(st, c, &c->func, &o, msg);
}

int ht__states_func_exit(struct ht_states *st, struct core *c,
			 const struct ht_ctf_msg *msg, int64_t t, uint64_t id,
			 bool *found)
{
	return pop_id(st, c, &c->func, false, id, t,
		      &c->pub.func_entry_unclosed, msg, found);
}

int ht__states_func_cut(struct ht_states *st, struct core *c, int64_t t)
{
	int ret = 0;

	while (!ret && c->func.n) {
		ret = slice_end(st, c, &c->func.v[c->func.n - 1], t, true);
		c->func.n--;
	}
	c->func.overflow = 0;
	return ret;
}

/* ------------------------------------------------------------------ */
/* messages: matched through the pending tables (states-msgs.c) */

static int emit_flow(struct ht_states *st, struct core *sender, int64_t send_ns,
		     struct core *receiver, int64_t recv_ns, uint64_t flow)
{
	struct ht_states_item it = {.kind = HT_STATES_FLOW};

	st->msgs.matched++;
	it.core = &sender->pub;
	it.ns = send_ns;
	it.peer = &receiver->pub;
	it.peer_ns = recv_ns;
	it.flow_id = flow;
	return ht__states_emit(st, &it);
}

static int on_send(struct ht_states *st, struct core *c,
		   const struct ht_ctf_msg *msg, int64_t t,
		   struct ht_states_item *it)
{
	struct pending_msg *p;
	uint64_t id;

	if (!member_uint(st, msg, "id", &id)) {
		return ht__states_anomaly(st, c, t, msg,
					  "msg_send without an integer id");
	}
	st->msgs.sent++;
	it->flow_out = it->flow_id = ht_states_flow_id(c->pub.core_id, id);
	p = ht__states_pend_take(&st->recvs, c->pub.core_id, id);
	if (p) {
		/* its receive came first (at the same time, or earlier
		 * within the synchronization's error) */
		return emit_flow(st, c, t, p->core, p->ns, it->flow_id);
	}
	return ht__states_pend_add(st, &st->sends, c, c->pub.core_id, id, t,
				   msg);
}

static int on_recv(struct ht_states *st, struct core *c,
		   const struct ht_ctf_msg *msg, int64_t t,
		   struct ht_states_item *it)
{
	struct pending_msg *p;
	uint64_t id, src;

	if (!member_uint(st, msg, "id", &id) ||
	    !member_uint(st, msg, "src", &src)) {
		return ht__states_anomaly(
		    st, c, t, msg, "msg_recv without integer id and src");
	}
	st->msgs.received++;
	it->flow_id = ht_states_flow_id((uint32_t)src, id);
	p = ht__states_pend_take(&st->sends, (uint32_t)src, id);
	if (!p) {
		return ht__states_pend_add(st, &st->recvs, c, (uint32_t)src, id,
					   t, msg);
	}
	it->flow_in = it->flow_id;
	it->peer = &p->core->pub;
	it->peer_ns = p->ns;
	return emit_flow(st, p->core, p->ns, c, t, it->flow_id);
}

/* ------------------------------------------------------------------ */
/* the model */

int ht_states_create(struct ht_states **out, const struct ht_states_opts *opts,
		     ht_states_cb cb, void *arg)
{
	struct ht_states *st = calloc(1, sizeof(*st));

	*out = NULL;
	if (!st) {
		return HT_ENOMEM;
	}
	if (opts) {
		st->opts = *opts;
	}
	if (!st->opts.max_pending_msgs) {
		st->opts.max_pending_msgs = 65536;
	}
	if (st->opts.max_pending_msgs > (1u << 30)) {
		st->opts.max_pending_msgs = 1u << 30;
	}
	if (!st->opts.max_waiting_tasks) {
		st->opts.max_waiting_tasks = 65536;
	}
	if (!st->opts.max_depth) {
		st->opts.max_depth = 64;
	}
	if (st->opts.window_ns < 0) {
		st->opts.window_ns = 0;
	}
	st->cb = cb;
	st->arg = arg;
	if (ht__states_msgs_init(st)) {
		ht_states_destroy(st);
		return HT_ENOMEM;
	}
	*out = st;
	return 0;
}

void ht_states_destroy(struct ht_states *st)
{
	size_t i;

	if (!st) {
		return;
	}
	for (i = 0; i < st->nr_cores; i++) {
		core_free(st->cores[i]);
	}
	free(st->cores);
	free(st->by_stream);
	free(st->cls_map);
	ht__states_msgs_fini(st);
	ht__states_tasks_fini(st);
	free(st);
}

/*
 * Whether the time of @msg is damaged (docs/views.md, "Damaged
 * times"): a tracer writes a packet's timestamp_begin and
 * timestamp_end around its events, so an event outside them holds a
 * corrupted time (a flipped bit, a bad clock read) and is not taken as
 * the core's time. A packet whose bounds contradict each other (begin
 * after end) has one of them damaged: its end is kept when it is not
 * before the core's last time (else its begin). Compared in cycles,
 * exactly, at the cost of two compares per event.
 */
static bool time_damaged(const struct core *c, const struct ht_ctf_msg *msg,
			 bool *lo_ok)
{
	const struct ht_ctf_packet *p = msg->packet;
	bool lo, hi;

	*lo_ok = false;
	if (!p || !msg->has_time) {
		return false;
	}
	lo = p->has_begin;
	hi = p->has_end;
	if (lo && hi && p->begin_cycles > p->end_cycles) {
		if (c->pub.has_time &&
		    ht_ctf_stream_cycles_to_ns(msg->stream, p->end_cycles) <
			c->pub.last_ns) {
			hi = false;
		} else {
			lo = false;
		}
	}
	*lo_ok = lo;
	return (lo && msg->cycles < p->begin_cycles) ||
	       (hi && msg->cycles > p->end_cycles);
}

/*
 * A damaged time: counted, reported with its file and offset, and
 * replaced by the core's last time (the event keeps its place in the
 * core's sequence); a core without a time yet takes its packet's
 * begin, else the event is skipped (*@skip).
 */
static int on_damaged_time(struct ht_states *st, struct core *c,
			   const struct ht_ctf_msg *msg, bool lo_ok, int64_t *t,
			   bool *skip)
{
	const struct ht_ctf_packet *p = msg->packet;
	int ret;

	c->pub.time_damaged++;
	*skip = false;
	if (c->pub.has_time) {
		*t = c->pub.last_ns;
	} else if (lo_ok) {
		*t = ht_ctf_stream_cycles_to_ns(msg->stream, p->begin_cycles);
	} else {
		*skip = true;
	}
	st->damaged_anomaly = true;
	ret = ht__states_anomaly(
	    st, c, *t, msg,
	    "damaged time %" PRId64 " ns (%" PRIu64
	    " cycles), outside its packet's timestamp_begin .. "
	    "timestamp_end (%s%" PRIu64 " .. %s%" PRIu64 " cycles): %s",
	    msg->ns, msg->cycles, p->has_begin ? "" : "none ", p->begin_cycles,
	    p->has_end ? "" : "none ", p->end_cycles,
	    *skip ? "event skipped" : "taken as the core's last time");
	st->damaged_anomaly = false;
	return ret;
}

int ht_states_feed(struct ht_states *st, const struct ht_ctf_msg *msg)
{
	struct ht_states_item it = {.kind = HT_STATES_EVENT};
	enum ev_role role;
	struct core *c;
	bool lo_ok, skip;
	int64_t t;
	int ret;

	if (msg->kind != HT_CTF_MSG_EVENT) {
		return 0;
	}
	ret = core_of(st, msg, &c);
	if (!ret) {
		ret = cls_role(st, msg->event->cls, &role);
	}
	if (ret) {
		return ret;
	}
	t = msg->has_time ? msg->ns : (c->pub.has_time ? c->pub.last_ns : 0);
	if (time_damaged(c, msg, &lo_ok)) {
		ret = on_damaged_time(st, c, msg, lo_ok, &t, &skip);
		if (ret || skip) {
			return ret;
		}
	}
	c->pub.events++;
	if (!st->has_origin) {
		st->has_origin = true;
		st->origin_ns = t;
	}
	if (!c->pub.has_time) {
		c->pub.has_time = true;
		c->pub.first_ns = t;
		c->pub.last_ns = t;
	} else if (t < c->pub.last_ns) {
		c->pub.time_backwards++;
		ret = ht__states_anomaly(
		    st, c, t, msg,
		    "time goes back %" PRIu64
		    " ns on this core: taken as %" PRId64 " ns",
		    span_ns(t, c->pub.last_ns), c->pub.last_ns);
		if (ret) {
			return ret;
		}
		t = c->pub.last_ns;
	}
	c->pub.last_ns = t;
	ret = charge(st, c, t);
	if (ret) {
		return ret;
	}
	switch (role) {
	case EV_TASK_SWITCH:
		return on_task_switch(st, c, msg, t);
	case EV_ISR_ENTER:
	case EV_ISR_EXIT:
		return on_isr(st, c, msg, t, role == EV_ISR_ENTER);
	case EV_FUNC_ENTRY:
	case EV_FUNC_EXIT:
		return on_func(st, c, msg, t, role == EV_FUNC_ENTRY);
	case EV_TASK_BLOCK:
	case EV_TASK_WAKE:
		ret = on_block_wake(st, c, msg, t, role == EV_TASK_BLOCK);
		if (ret || st->opts.no_events) {
			return ret;
		}
		break;
	case EV_TASK_NAME:
		ret = on_task_name(st, c, msg, t);
		if (ret || st->opts.no_events) {
			return ret;
		}
		break;
	case EV_MSG_SEND:
		ret = on_send(st, c, msg, t, &it);
		break;
	case EV_MSG_RECV:
		ret = on_recv(st, c, msg, t, &it);
		break;
	default:
		if (c->role && !strcmp(c->role, "kernel")) {
			bool done;

			ret = ht__states_kernel_feed(st, c, msg, t, &done);
			if (ret || done) {
				return ret;
			}
		}
		if (st->opts.no_events) {
			return 0;
		}
		break;
	}
	if (ret) {
		return ret;
	}
	it.core = &c->pub;
	it.ns = t;
	it.msg = msg;
	return ht__states_emit(st, &it);
}

/* At the end of the trace: the slices still open on @s (calls or
 * interrupts), innermost first, end at @t; each one is counted in
 * *@unclosed, and reported in one warning (a trace cut inside a deep
 * call tree leaves many). */
static int close_open(struct ht_states *st, struct core *c, struct stack *s,
		      uint64_t *unclosed, int64_t t)
{
	int ret = 0;

	if (s->n == 1) {
		ret = ht__states_anomaly(st, c, t, NULL,
					 "%s entered at %" PRId64
					 " ns has no exit: closed at the end",
					 s->v[0].s.name, s->v[0].s.begin_ns);
	} else if (s->n > 1) {
		ret = ht__states_anomaly(
		    st, c, t, NULL,
		    "%u calls have no exit, from %s entered at %" PRId64
		    " ns to %s entered at %" PRId64 " ns: closed at the end",
		    s->n, s->v[0].s.name, s->v[0].s.begin_ns,
		    s->v[s->n - 1].s.name, s->v[s->n - 1].s.begin_ns);
	}
	while (!ret && s->n) {
		(*unclosed)++;
		ret = slice_end(st, c, &s->v[s->n - 1], t, true);
		s->n--;
	}
	return ret;
}

int ht_states_finish(struct ht_states *st)
{
	size_t i;
	int ret;

	if (st->finished) {
		return 0;
	}
	st->finished = true;
	ret = ht__states_tasks_finish(st);
	if (ret) {
		return ret;
	}
	for (i = 0; i < st->nr_cores; i++) {
		struct core *c = st->cores[i];
		int64_t t = c->pub.last_ns;

		ret = charge(st, c, t);
		if (!ret) {
			ret = close_open(st, c, &c->func,
					 &c->pub.func_entry_unclosed, t);
		}
		if (!ret) {
			ret = close_open(st, c, &c->isr,
					 &c->pub.isr_enter_unclosed, t);
		}
		if (!ret && c->task_open) {
			ret = slice_end(st, c, &c->task, t, true);
			c->task_open = false;
		}
		if (!ret && st->opts.window_ns && c->acc_started &&
		    t > c->win_begin) {
			ret = flush_window(st, c, t);
		}
		if (ret) {
			return ret;
		}
	}
	return ht__states_msgs_drain(st);
}

int ht_states_run(struct ht_states *st, struct ht_ctf_set *set,
		  uint64_t *nr_errors, char *err, size_t err_len)
{
	struct ht_ctf_msg msg;
	uint64_t errors = 0;
	int ret;

	if (err_len) {
		err[0] = '\0';
	}
	for (;;) {
		ret = ht_ctf_set_next(set, &msg);
		if (ret == HT_EEOF) {
			break;
		}
		if (ret) {
			if (!errors && err_len) {
				snprintf(err, err_len, "%s",
					 ht_ctf_set_last_error(set));
			}
			errors++;
			continue;
		}
		ret = ht_states_feed(st, &msg);
		if (ret) {
			goto out;
		}
	}
	ret = ht_states_finish(st);
out:
	if (nr_errors) {
		*nr_errors = errors;
	}
	return ret;
}

size_t ht_states_nr_cores(const struct ht_states *st)
{
	return st->nr_cores;
}

const struct ht_states_core *ht_states_core(const struct ht_states *st,
					    size_t i)
{
	return i < st->nr_cores ? &st->cores[i]->pub : NULL;
}

int ht_states_role_rank(const char *role)
{
	if (!role) {
		return 4;
	}
	if (!strcmp(role, "master")) {
		return 0;
	}
	if (!strcmp(role, "kernel")) {
		return 1;
	}
	return !strcmp(role, "slave") ? 2 : 3;
}

int ht_states_core_cmp(const struct ht_states_core *a,
		       const struct ht_states_core *b)
{
	int ra = ht_states_role_rank(a->role),
	    rb = ht_states_role_rank(b->role);

	if (ra != rb) {
		return ra < rb ? -1 : 1;
	}
	if (ra == 3 && strcmp(a->role, b->role)) {
		return strcmp(a->role, b->role);
	}
	if (a->has_core_id != b->has_core_id) {
		return a->has_core_id ? -1 : 1;
	}
	if (a->has_core_id && a->core_id != b->core_id) {
		return a->core_id < b->core_id ? -1 : 1;
	}
	return strcmp(a->name, b->name);
}

void ht_states_core_order(const struct ht_states *st, size_t *order)
{
	size_t i, j;

	/* insertion sort: a few dozen cores, and stable */
	for (i = 0; i < st->nr_cores; i++) {
		for (j = i;
		     j > 0 && ht_states_core_cmp(&st->cores[order[j - 1]]->pub,
						 &st->cores[i]->pub) > 0;
		     j--) {
			order[j] = order[j - 1];
		}
		order[j] = i;
	}
}

void ht_states_msgs(const struct ht_states *st, struct ht_states_msgs *out)
{
	*out = st->msgs;
}
