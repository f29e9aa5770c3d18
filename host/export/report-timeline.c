/* SPDX-License-Identifier: MIT */
/*
 * The HTML report's data (report-timeline.h): the timeline pyramid,
 * the function rows, the utilization buckets and the message flows.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/json-writer.h"
#include "report-timeline.h"

#define LEVEL0_BUCKETS 1024
/* pass 2 checks the size of the runs every so many segments */
#define CHECK_SEGS 65536

struct core *ht__report_core(struct report *r, unsigned index)
{
	if (ht_array_extend((void **)&r->cores, &r->nr_cores, &r->cap_cores,
			    (size_t)index + 1, sizeof(*r->cores))) {
		r->nomem = true;
		return NULL;
	}
	return &r->cores[index];
}

static size_t state_hash(enum ht_states_kind kind, const char *name)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;

	for (; *name; name++) {
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	}
	return (size_t)(h ^ (h >> 29));
}

/* Puts state @id into the hash table (grown at half full). */
static bool hash_put(struct report *r, uint32_t id)
{
	size_t i, mask;

	if (2 * (r->nr_states + 1) > r->hash_cap) {
		size_t cap = r->hash_cap ? 2 * r->hash_cap : 256, k;
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h) {
			return false;
		}
		free(r->state_hash);
		r->state_hash = h;
		r->hash_cap = cap;
		for (k = 0; k < r->nr_states; k++) {
			if (k + 1 != id && !hash_put(r, (uint32_t)k + 1)) {
				return false;
			}
		}
	}
	mask = r->hash_cap - 1;
	for (i = state_hash(r->states[id - 1].kind, r->states[id - 1].name) &
		 mask;
	     r->state_hash[i]; i = (i + 1) & mask) {
	}
	r->state_hash[i] = id;
	return true;
}

static uint32_t state_of(struct report *r, const struct ht_states_slice *s)
{
	const char *name = s->name ? s->name : "?";
	size_t i, mask = r->hash_cap - 1;

	for (i = r->hash_cap ? state_hash(s->kind, name) & mask : 0;
	     r->hash_cap && r->state_hash[i]; i = (i + 1) & mask) {
		const struct state *st = &r->states[r->state_hash[i] - 1];

		if (st->kind == s->kind && !strcmp(st->name, name)) {
			return r->state_hash[i];
		}
	}
	if (ht_array_reserve((void **)&r->states, &r->cap_states,
			     r->nr_states + 1, sizeof(*r->states))) {
		r->nomem = true;
		return 0;
	}
	r->states[r->nr_states].kind = s->kind;
	r->states[r->nr_states].task_state = false;
	r->states[r->nr_states].name = strdup(name);
	if (!r->states[r->nr_states].name) {
		r->nomem = true;
		return 0;
	}
	r->nr_states++;
	if (!hash_put(r, (uint32_t)r->nr_states)) {
		r->nomem = true;
		return 0;
	}
	return (uint32_t)r->nr_states;
}

/* @v as a varint (7 bits a byte, low first; the top bit: more),
 * written in place (the hot path of pass 2). */
static void put_varint(struct ht_buf *b, uint64_t v)
{
	unsigned char *p;

	if (b->len + 11 > b->cap && !ht_buf_reserve(b, 10)) {
		return;
	}
	p = (unsigned char *)b->data + b->len;
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	b->len = (size_t)(p - (unsigned char *)b->data);
	b->data[b->len] = '\0';
}

static void enc_run(struct enc *e, int64_t bucket, uint32_t state)
{
	if (e->runs && state == e->last_state) {
		return;
	}
	put_varint(&e->out, (uint64_t)(bucket - (e->runs ? e->last_run : 0)));
	put_varint(&e->out, state);
	e->last_run = bucket;
	e->last_state = state;
	e->runs++;
}

static void enc_flush(struct enc *e)
{
	size_t i, best = 0;

	if (e->cur < 0 || !e->nr_acc) {
		return;
	}
	if (e->cur > e->next) {
		enc_run(e, e->next, 0); /* nothing known in between */
	}
	for (i = 1; i < e->nr_acc; i++) {
		if (e->acc[i].ns > e->acc[best].ns) {
			best = i;
		}
	}
	enc_run(e, e->cur, e->acc[best].state);
	e->next = e->cur + 1;
	e->nr_acc = 0;
	e->cur = -1;
}

static void enc_add(struct enc *e, int64_t bucket, uint32_t state, uint64_t ns,
		    bool *nomem)
{
	size_t i;

	if (bucket != e->cur) {
		enc_flush(e);
		e->cur = bucket;
	}
	for (i = 0; i < e->nr_acc; i++) {
		if (e->acc[i].state == state) {
			e->acc[i].ns += ns;
			return;
		}
	}
	if (ht_array_reserve((void **)&e->acc, &e->cap_acc, e->nr_acc + 1,
			     sizeof(*e->acc))) {
		*nomem = true;
		return;
	}
	e->acc[e->nr_acc].state = state;
	e->acc[e->nr_acc++].ns = ns;
}

/* The first position of bucket @k (@per buckets a ns): the least x
 * with (int64_t)(x * per) >= k, as enc_segment() maps positions. */
static uint64_t bucket_start(double per, int64_t k)
{
	double g = ceil((double)k / per);
	uint64_t x = g > 0 ? (uint64_t)g : 0;

	while (x > 0 && (int64_t)((double)(x - 1) * per) >= k) {
		x--;
	}
	while ((int64_t)((double)x * per) < k) {
		x++;
	}
	return x;
}

/* Segment [a, b) of @state into a level of @n buckets over the span,
 * @per buckets a ns (positions from t0, unsigned: the span may pass
 * INT64_MAX). A segment within the bucket being accumulated (most of
 * them at the coarse levels) is added without mapping its ends. */
static void enc_segment(struct report *r, struct enc *e, int64_t n, double per,
			uint64_t a, uint64_t b, uint32_t state)
{
	int64_t ba, bb;

	if (e->cur >= 0 && e->in_k == e->cur && a >= e->in_lo && b < e->in_hi) {
		enc_add(e, e->cur, state, b - a, &r->nomem);
		return;
	}
	ba = (int64_t)((double)a * per);
	bb = (int64_t)((double)b * per);
	if (ba >= n) {
		ba = n - 1;
	}
	if (bb >= n) {
		bb = n - 1;
	}
	if (ba == bb) {
		enc_add(e, ba, state, b - a, &r->nomem);
		if (e->in_k != ba && e->seen_k == ba &&
		    r->span < ((uint64_t)1 << 52)) {
			/* the bounds of this bucket, for the next ones
			 * (positions exact as doubles: a few steps find
			 * them) */
			e->in_k = ba;
			e->in_lo = bucket_start(per, ba);
			e->in_hi = ba == n - 1 ? UINT64_MAX
					       : bucket_start(per, ba + 1);
		}
		e->seen_k = ba;
		return;
	}
	{
		double end_a = ceil((double)(ba + 1) / per);
		double start_b = ceil((double)bb / per);

		enc_add(e, ba, state,
			end_a > (double)a ? (uint64_t)(end_a - (double)a) : 1,
			&r->nomem);
		enc_flush(e);
		if (bb > ba + 1) {
			/* whole buckets of this state */
			enc_run(e, ba + 1, state);
			e->next = bb;
		}
		enc_add(e, bb, state,
			(double)b > start_b ? (uint64_t)((double)b - start_b)
					    : 1,
			&r->nomem);
	}
}

/* The exact level: positions in ns from t0 (kept only for a span that
 * fits int64_t: choose_levels()). */
static void exact_segment(struct enc *e, uint64_t a, uint64_t b, uint32_t state)
{
	int64_t ra = (int64_t)a;

	if (e->runs && ra > e->next) {
		enc_run(e, e->next, 0);
	}
	if (!e->runs && ra > 0) {
		enc_run(e, 0, 0);
	}
	if (e->runs && state == e->last_state) {
		e->next = (int64_t)b;
		return;
	}
	enc_run(e, ra, state);
	e->next = (int64_t)b;
}

static void util_segment(struct report *r, struct core *c, uint64_t a,
			 uint64_t b, uint32_t state)
{
	double per = (double)UTIL_BUCKETS / (double)r->span;
	bool busy = r->states[state - 1].kind != HT_STATES_IDLE;

	while (a < b) {
		int64_t k = (int64_t)((double)a * per);
		double end_d;
		uint64_t end;

		if (k >= UTIL_BUCKETS) {
			k = UTIL_BUCKETS - 1;
		}
		end_d = ceil((double)(k + 1) / per);
		end = end_d >= (double)b || k == UTIL_BUCKETS - 1
			  ? b
			  : (uint64_t)end_d;
		if (end <= a) {
			end = a + 1;
		}
		c->known[k] += end - a;
		if (busy) {
			c->busy[k] += end - a;
		}
		a = end;
	}
}

/* The bytes of the runs of level @l (the exact one when @exact). */
static uint64_t level_bytes(struct report *r, unsigned l, bool exact)
{
	uint64_t size = 0;
	size_t i;

	for (i = 0; i < ht__report_nr_rows(r); i++) {
		const struct trow *t = ht__report_row(r, i);

		size += exact ? t->exact.out.len : t->lv[l].out.len;
	}
	return size;
}

static void enc_free(struct enc *e)
{
	ht_buf_fini(&e->out);
	free(e->acc);
	memset(e, 0, sizeof(*e));
	e->cur = -1;
	e->in_k = -1;
	e->seen_k = -1;
}

/*
 * Pass 2: the finest level is dropped (the exact one first; level 0
 * stays) while the runs are past r->enc_cap, or, once a sixteenth of
 * the segments is encoded, while their size projected to the end of
 * the trace is past r->enc_project (such a level cannot fit the page:
 * packing at best halves the runs, and base64 adds a third).
 */
static void check_cap(struct report *r)
{
	uint64_t sz[MAX_LEVELS + 1], total = 0;
	unsigned l, n = r->nr_levels + (r->exact ? 1 : 0);
	uint64_t done = ht__report_rel(r, r->now_ns);
	double scale =
	    done && done >= r->span / 16 ? (double)r->span / (double)done : 0;
	size_t i;

	for (l = 0; l < n; l++) {
		sz[l] = level_bytes(r, l, l == r->nr_levels);
		total += sz[l];
	}
	while (n > 1 && (total > r->enc_cap ||
			 (double)total * scale > (double)r->enc_project)) {
		for (i = 0; i < ht__report_nr_rows(r); i++) {
			struct trow *t = ht__report_row(r, i);

			enc_free(r->exact ? &t->exact
					  : &t->lv[r->nr_levels - 1]);
		}
		if (r->exact) {
			r->exact = false;
		} else {
			r->nr_levels--;
		}
		total -= sz[--n];
	}
}

/* @state ran on row @t over [a, b): pass 1 counts, pass 2 encodes. */
static bool encode(struct report *r, struct trow *t, int64_t a, int64_t b,
		   uint32_t state)
{
	uint64_t ra, rb;
	unsigned l;

	if (b <= a || !state) {
		return false;
	}
	if (r->pass == 1) {
		t->segs++;
		return false;
	}
	ra = ht__report_rel(r, a);
	rb = ht__report_rel(r, b);
	for (l = 0; l < r->nr_levels; l++) {
		enc_segment(r, &t->lv[l], r->level_n[l], r->level_per[l], ra,
			    rb, state);
	}
	if (r->exact) {
		exact_segment(&t->exact, ra, rb, state);
	}
	if (++r->enc_segs % CHECK_SEGS == 0) {
		check_cap(r);
	}
	return true;
}

/* The innermost slice @state ran on @c over [a, b). */
static void segment(struct report *r, struct core *c, int64_t a, int64_t b,
		    uint32_t state)
{
	if (encode(r, &c->row, a, b, state)) {
		util_segment(r, c, ht__report_rel(r, a), ht__report_rel(r, b),
			     state);
	}
}

/* The function row of @c for calls at @depth, made on first use. */
static struct frow *frow_of(struct report *r, struct core *c, unsigned core,
			    unsigned depth)
{
	unsigned d = depth < FUNC_ROWS - 1 ? depth : FUNC_ROWS - 1;
	struct frow *f;

	if (c->frow[d]) {
		return &r->frows[c->frow[d] - 1];
	}
	if (r->pass == 2) {
		/* pass 1 saw the same items: every row exists */
		r->nomem = true;
		return NULL;
	}
	if (ht_array_reserve((void **)&r->frows, &r->cap_frows, r->nr_frows + 1,
			     sizeof(*r->frows))) {
		r->nomem = true;
		return NULL;
	}
	f = &r->frows[r->nr_frows++];
	memset(f, 0, sizeof(*f));
	f->core = core;
	f->depth = d;
	c->frow[d] = r->nr_frows;
	return f;
}

/* Row @f shows @state from @t on. */
static void frow_set(struct report *r, struct frow *f, int64_t t,
		     uint32_t state)
{
	if (f->state == state) {
		return;
	}
	if (f->state) {
		encode(r, &f->row, f->since, t, f->state);
	}
	f->state = state;
	f->since = t;
}

/*
 * A call begins or ends: the row of its depth changes (the last row
 * shows the innermost call at that depth or deeper). Pass 1 only
 * counts, so any non-zero state will do there (no names yet).
 */
static int on_func_slice(struct report *r, struct core *c,
			 const struct ht_states_item *it)
{
	unsigned d = it->slice->depth;
	struct frow *f = frow_of(r, c, it->core->index, d);
	uint32_t s = 1;

	if (!f) {
		return HT_ENOMEM;
	}
	if (it->kind == HT_STATES_SLICE_BEGIN) {
		if (r->pass == 2) {
			s = state_of(r, it->slice);
		}
		if (d < STACK_MAX) {
			c->fstack[d] = s;
		}
		frow_set(r, f, it->ns, s);
	} else if (d <= FUNC_ROWS - 1) {
		frow_set(r, f, it->ns, 0);
	} else {
		/* back to the caller, at depth d - 1 >= FUNC_ROWS - 1 (the
		 * states model keeps fewer than STACK_MAX open calls) */
		frow_set(r, f, it->ns,
			 c->fstack[d - 1 < STACK_MAX ? d - 1 : STACK_MAX - 1]);
	}
	return r->nomem ? HT_ENOMEM : 0;
}

/* The id of task-row state @ts, made on first use. */
static uint32_t ts_state(struct report *r, unsigned ts)
{
	static const char *const names[TS_NR] = {"running", "ready", "blocked",
						 "interrupted"};

	if (r->ts_state[ts]) {
		return r->ts_state[ts];
	}
	if (ht_array_reserve((void **)&r->states, &r->cap_states,
			     r->nr_states + 1, sizeof(*r->states))) {
		r->nomem = true;
		return 0;
	}
	r->states[r->nr_states].kind = HT_STATES_TASK;
	r->states[r->nr_states].task_state = true;
	r->states[r->nr_states].name = strdup(names[ts]);
	if (!r->states[r->nr_states].name) {
		r->nomem = true;
		return 0;
	}
	/* not in the hash: no task name can be taken for it */
	r->ts_state[ts] = (uint32_t)++r->nr_states;
	return r->ts_state[ts];
}

/* The levels of a new row (those encoded now: levels are only
 * dropped, never added). Returns 0 or HT_ENOMEM. */
static int trow_levels(struct report *r, struct trow *t)
{
	unsigned l;

	t->lv = calloc(r->nr_levels ? r->nr_levels : 1, sizeof(*t->lv));
	if (!t->lv) {
		return HT_ENOMEM;
	}
	for (l = 0; l < r->nr_levels; l++) {
		t->lv[l].cur = -1;
		t->lv[l].in_k = -1;
		t->lv[l].seen_k = -1;
	}
	t->exact.cur = -1;
	return 0;
}

/* (core, tid) mixed into every bit (splitmix64's finalizer): the same
 * tids on every core must not share the low bits the table uses. */
static size_t task_key_hash(unsigned core, uint64_t tid)
{
	uint64_t h = tid ^ ((uint64_t)core << 40) ^ ((uint64_t)core << 8);

	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	return (size_t)(h ^ (h >> 31));
}

/* Puts task row @idx (0-based) into the hash (grown at half full). */
static bool task_hash_put(struct report *r, size_t idx)
{
	size_t i, mask;

	if (2 * (r->nr_trows + 1) > r->task_hash_cap) {
		size_t cap = r->task_hash_cap ? 2 * r->task_hash_cap : 64, k;
		struct task_slot *h = calloc(cap, sizeof(*h));

		if (!h) {
			return false;
		}
		free(r->task_hash);
		r->task_hash = h;
		r->task_hash_cap = cap;
		for (k = 0; k < r->nr_trows; k++) {
			if (k != idx && !task_hash_put(r, k)) {
				return false;
			}
		}
	}
	mask = r->task_hash_cap - 1;
	for (i = task_key_hash(r->trows[idx].core, r->trows[idx].tid) & mask;
	     r->task_hash[i].row; i = (i + 1) & mask) {
	}
	r->task_hash[i].tid = r->trows[idx].tid;
	r->task_hash[i].core = r->trows[idx].core;
	r->task_hash[i].row = (uint32_t)idx + 1;
	return true;
}

/* The task row of (@core, @tid), made on its first interval (pass 2
 * only: pass 1 runs the model without task states), with its levels. */
static struct taskrow *taskrow_of(struct report *r, unsigned core, uint64_t tid,
				  const char *name)
{
	struct taskrow *t;
	size_t i, mask = r->task_hash_cap - 1;

	for (i = r->task_hash_cap ? task_key_hash(core, tid) & mask : 0;
	     r->task_hash_cap && r->task_hash[i].row; i = (i + 1) & mask) {
		if (r->task_hash[i].core == core &&
		    r->task_hash[i].tid == tid) {
			return &r->trows[r->task_hash[i].row - 1];
		}
	}
	if (ht_array_reserve((void **)&r->trows, &r->cap_trows, r->nr_trows + 1,
			     sizeof(*r->trows))) {
		r->nomem = true;
		return NULL;
	}
	t = &r->trows[r->nr_trows];
	memset(t, 0, sizeof(*t));
	if (trow_levels(r, &t->row)) {
		r->nomem = true;
		return NULL;
	}
	t->core = core;
	t->tid = tid;
	t->last_end = INT64_MIN;
	t->name = strdup(name ? name : "?");
	if (!t->name) {
		free(t->row.lv);
		r->nomem = true;
		return NULL;
	}
	r->nr_trows++;
	if (!task_hash_put(r, r->nr_trows - 1)) {
		r->nomem = true;
		return NULL;
	}
	return t;
}

/* One interval of a task's state into its row (the process Gantt).
 * A task's intervals come in order; one that overlaps the last encoded
 * (a task seen on two cores) is cut to what follows it. */
static int on_task_state(struct report *r, const struct ht_states_item *it)
{
	const struct ht_states_task_state *ts = it->task_state;
	struct taskrow *t;
	int64_t a;
	unsigned k;

	switch (ts->state) {
	case HT_STATES_TASK:
		k = TS_RUNNING;
		break;
	case HT_STATES_READY:
		k = TS_READY;
		break;
	case HT_STATES_BLOCKED:
		k = TS_BLOCKED;
		break;
	case HT_STATES_ISR:
		k = TS_INTERRUPTED;
		break;
	default:
		return 0;
	}
	t = taskrow_of(r, it->core->index, ts->tid, ts->name);
	if (!t) {
		return r->nomem ? HT_ENOMEM : 0;
	}
	a = ts->begin_ns > t->last_end ? ts->begin_ns : t->last_end;
	if (ts->end_ns <= a) {
		return 0;
	}
	encode(r, &t->row, a, ts->end_ns, ts_state(r, k));
	t->last_end = ts->end_ns;
	return r->nomem ? HT_ENOMEM : 0;
}

static int on_item(void *arg, const struct ht_states_item *it)
{
	struct report *r = arg;
	struct core *c;

	if (r->interference && r->pass == 2) {
		int ret = ht_paths_interference_item(r->interference, it);

		if (ret) {
			return ret;
		}
	}
	/* the core of the message being fed: its own items (a FLOW's
	 * core is the sender, a WINDOW's any core) */
	if (r->feeding && !r->feed_core && it->core &&
	    (it->kind == HT_STATES_CORE || it->kind == HT_STATES_EVENT ||
	     it->kind == HT_STATES_SLICE_BEGIN ||
	     it->kind == HT_STATES_SLICE_END)) {
		r->feed_core = it->core->index + 1;
	}

	if (it->kind == HT_STATES_FLOW) {
		/* every matched message, also a receive stamped at or
		 * before its send (the sync's error) */
		if (r->pass == 2 && r->flows++ % r->flow_stride == 0) {
			ht_buf_printf(
			    &r->flow_json, "%s[%u,%" PRIu64 ",%u,%" PRIu64 "]",
			    r->flows_kept ? "," : "", it->core->index,
			    ht__report_rel(r, it->ns), it->peer->index,
			    ht__report_rel(r, it->peer_ns));
			r->flows_kept++;
		}
		return 0;
	}
	if (it->kind == HT_STATES_TASK_STATE && it->task_state && it->core) {
		return on_task_state(r, it);
	}
	if (it->kind == HT_STATES_ANOMALY && it->damaged && r->pass == 1) {
		/* told once, as damaged parts of the trace are */
		r->damaged_times++;
		if (r->on_damage) {
			r->on_damage(r->on_damage_arg, it->text);
		}
		return 0;
	}
	if (it->kind != HT_STATES_SLICE_BEGIN &&
	    it->kind != HT_STATES_SLICE_END) {
		return 0;
	}
	c = ht__report_core(r, it->core->index);
	if (!c) {
		return HT_ENOMEM;
	}
	if (it->slice->kind == HT_STATES_FUNC) {
		return on_func_slice(r, c, it);
	}
	if (c->depth && c->depth <= STACK_MAX) {
		segment(r, c, c->last_ns, it->ns, c->stack[c->depth - 1]);
	}
	c->last_ns = it->ns;
	if (it->kind == HT_STATES_SLICE_BEGIN) {
		uint32_t s = state_of(r, it->slice);

		if (c->depth < STACK_MAX) {
			c->stack[c->depth] = s;
		}
		c->depth++;
	} else if (c->depth) {
		c->depth--;
	}
	return r->nomem ? HT_ENOMEM : 0;
}

/* The core index + 1 of @msg's stream (0: not known yet), learnt from
 * the model's items for it. */
static unsigned stream_core(struct report *r, const struct ht_ctf_msg *msg)
{
	size_t i = msg->stream ? msg->stream->index : 0;

	if (!msg->stream) {
		return 0;
	}
	if (i >= r->nr_stream_core || !r->stream_core[i]) {
		if (!r->feed_core) {
			return 0;
		}
		if (ht_array_extend((void **)&r->stream_core,
				    &r->nr_stream_core, &r->cap_stream_core,
				    i + 1, sizeof(*r->stream_core))) {
			r->nomem = true;
			return 0;
		}
		r->stream_core[i] = r->feed_core;
	}
	return r->stream_core[i];
}

/* The event table past its size: rows 0, 2, 4... kept (the events of
 * the doubled stride, as row k is event k * stride). */
static void table_halve(struct report *r)
{
	char *p = r->ev_json.data, *end = p + r->ev_json.len, *out = p;
	uint64_t k = 0, kept = 0;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *next = nl ? nl + 1 : end;

		if (k++ % 2 == 0) {
			/* a row ends with "," before its newline, but the
			 * last one: ends fixed below */
			memmove(out, p, (size_t)(next - p));
			out += next - p;
			kept++;
		}
		p = next;
	}
	/* no "," after the last row */
	while (out > r->ev_json.data && (out[-1] == '\n' || out[-1] == ',')) {
		out--;
	}
	r->ev_json.len = (size_t)(out - r->ev_json.data);
	r->ev_kept = kept;
	r->ev_stride *= 2;
}

/* Pass 2: every ev_stride-th event into the event table, its fields
 * as `hetrace print` shows them (babeltrace2's text). */
static void table_event(struct report *r, const struct ht_ctf_msg *msg)
{
	const char *line, *p, *name;
	unsigned core;
	size_t len, n;

	if (msg->kind != HT_CTF_MSG_EVENT || !msg->has_time || !r->ev_max ||
	    r->ev_seen++ % r->ev_stride) {
		return;
	}
	core = stream_core(r, msg);
	if (!core || ht_pretty_event(r->pretty, msg)) {
		return;
	}
	line = ht_pretty_data(r->pretty, &len);
	name = msg->event->cls->name ? msg->event->cls->name : "?";
	n = strlen(name);
	/* "[time] name: fields": the fields */
	p = memchr(line, ']', len);
	p = p ? p + 1 : line;
	while (p < line + len && *p == ' ') {
		p++;
	}
	if ((size_t)(line + len - p) > n + 1 && !memcmp(p, name, n) &&
	    p[n] == ':') {
		p += n + 1;
	}
	while (p < line + len && *p == ' ') {
		p++;
	}
	len = (size_t)(line + len - p);
	while (len && (p[len - 1] == '\n' || p[len - 1] == ' ')) {
		len--;
	}
	{
		struct ht_json j = {.b = &r->ev_json, .flags = HT_JSON_HTML};

		ht_buf_printf(&r->ev_json, "%s[%u,%" PRIu64 ",",
			      r->ev_kept ? ",\n" : "", core - 1,
			      ht__report_rel(r, msg->ns));
		ht_json_str(&j, name);
		ht_json_raw(&j, ",");
		ht_json_strn(&j, p, len > 400 ? 400 : len);
		ht_json_raw(&j, "]");
	}
	ht_pretty_consume(r->pretty);
	r->ev_kept++;
	if (r->ev_json.len > r->ev_bytes || r->ev_kept > r->ev_max) {
		table_halve(r);
	}
}

static const char *symbolize(void *arg, const struct ht_ctf_msg *msg,
			     uint64_t addr)
{
	return ht_func_names_lookup(arg, msg, addr);
}

int ht__report_pass(struct report *r, const char *const *traces,
		    size_t nr_traces, struct ht_func_names *fnames,
		    struct ht_states **stp, char *err, size_t err_len)
{
	struct ht_ctf_open_opts oo = {.flags = HT_CTF_KEEP_GOING};
	struct ht_states_opts so = {.no_events = true};
	struct ht_ctf_set *set = NULL;
	struct ht_ctf_msg msg;
	size_t i;
	int ret;

	for (i = 0; i < r->nr_cores; i++) {
		r->cores[i].depth = 0;
	}
	for (i = 0; i < r->nr_frows; i++) {
		r->frows[i].state = 0;
	}
	for (i = 0; i < r->nr_trows; i++) {
		r->trows[i].last_end = INT64_MIN;
	}
	if (fnames && r->pass == 2) {
		so.symbolize = symbolize;
		so.symbolize_arg = fnames;
	}
	/* pass 1 learns the cores, the span and the slices: the task rows
	 * are made in pass 2 */
	so.no_task_states = r->pass == 1;
	ret = ht_states_create(stp, &so, on_item, r);
	if (ret) {
		return ret;
	}
	oo.select = r->select;
	ret = ht_ctf_set_open(&set, traces, nr_traces, &oo, err, err_len);
	if (ret) {
		return ret;
	}
	for (;;) {
		ret = ht_ctf_set_next(set, &msg);
		if (ret == HT_EEOF) {
			ret = ht_states_finish(*stp);
			break;
		}
		if (ret) {
			/* damaged: said once (pass 1), skipped, the rest is
			 * used */
			if (r->paths_reader && r->pass == 1) {
				ht_paths_reader_skipped(
				    r->paths_reader,
				    ht_ctf_set_last_error(set));
			}
			if (r->pass == 1) {
				r->reader_errors++;
				if (r->on_damage) {
					r->on_damage(
					    r->on_damage_arg,
					    ht_ctf_set_last_error(set));
				}
			}
			continue;
		}
		if (fnames && r->pass == 1) {
			ret = ht_func_names_scan(fnames, &msg);
			if (ret) {
				break;
			}
		}
		if (r->paths_reader && r->pass == 1) {
			ret = ht_paths_reader_feed(r->paths_reader, &msg, err,
						   err_len);
			if (ret) {
				break;
			}
		}
		r->feeding = true;
		r->feed_core = 0;
		ret = ht_states_feed(*stp, &msg);
		r->feeding = false;
		if (ret) {
			break;
		}
		if (r->pass == 2) {
			if (msg.has_time && msg.ns > r->now_ns) {
				r->now_ns = msg.ns;
			}
			table_event(r, &msg);
		}
	}
	ht_ctf_set_close(set);
	if (!ret && r->nomem) {
		ret = HT_ENOMEM;
	}
	return ret;
}

/* The worst-case size of a level of @n buckets: one run per bucket or
 * per segment, whichever is fewer, ~4 bytes each in base64. */
static uint64_t level_bound(struct report *r, int64_t n)
{
	uint64_t bound = 0;
	size_t i;

	for (i = 0; i < ht__report_nr_rows(r); i++) {
		uint64_t s = ht__report_row(r, i)->segs + 2;

		bound += ((uint64_t)n < s ? (uint64_t)n : s) * 4;
	}
	return bound;
}

/*
 * Chooses the levels: 4 times finer each while the worst case fits the
 * budget; then one last level as fine as the rest of the budget allows
 * (at least twice the previous one); then the exact slices if they fit.
 */
static void choose_levels(struct report *r, size_t budget)
{
	uint64_t total_segs = 0, used = 0;
	int64_t n = LEVEL0_BUCKETS;
	uint64_t span = r->span;
	size_t i;

	for (i = 0; i < ht__report_nr_rows(r); i++) {
		total_segs += ht__report_row(r, i)->segs;
	}
	r->nr_levels = 0;
	while (r->nr_levels < MAX_LEVELS) {
		uint64_t bound = level_bound(r, n);

		if (r->nr_levels && used + bound > budget) {
			/* the finest level that still fits */
			int64_t lo = 2 * r->level_n[r->nr_levels - 1], hi = n;

			if (used + level_bound(r, lo) > budget) {
				break;
			}
			while (hi - lo > 1) {
				int64_t mid = lo + (hi - lo) / 2;

				if (used + level_bound(r, mid) <= budget) {
					lo = mid;
				} else {
					hi = mid;
				}
			}
			r->level_n[r->nr_levels++] = lo;
			used += level_bound(r, lo);
			break;
		}
		r->level_n[r->nr_levels++] = n;
		used += bound;
		/* a level with more buckets than segments, or buckets
		 * under 1 ns, adds nothing */
		if ((uint64_t)n >= 4 * (total_segs + 1) ||
		    (uint64_t)n >= span) {
			break;
		}
		n *= 4;
	}
	/* exact positions are int64_t ns from t0 */
	r->exact =
	    used + (total_segs + 2 * ht__report_nr_rows(r)) * 8 <= budget &&
	    span <= (uint64_t)INT64_MAX;
}

static uint64_t level_size(struct report *r, unsigned l, bool exact)
{
	uint64_t size = 0;
	size_t i;

	for (i = 0; i < ht__report_nr_rows(r); i++) {
		const struct enc *e = exact ? &ht__report_row(r, i)->exact
					    : &ht__report_row(r, i)->lv[l];

		size += (e->out.len + 2) / 3 * 4 + 3;
	}
	return size;
}

/* Keeps the coarse levels, then the exact slices, while they fit. */
static void keep_levels(struct report *r, size_t budget)
{
	uint64_t used = 0;
	unsigned l;

	for (l = 0; l < r->nr_levels; l++) {
		uint64_t size = level_size(r, l, false);

		if (l && used + size > budget) {
			break;
		}
		used += size;
	}
	r->nr_kept = l;
	r->exact_kept = r->exact && r->nr_kept == r->nr_levels &&
			used + level_size(r, 0, true) <= budget;
}
/* The levels kept with @budget bytes for them: nr_kept, and 1 more
 * when the exact slices are kept too (finer is more). */
static unsigned levels_within(struct report *r, size_t budget)
{
	keep_levels(r, budget);
	return r->nr_kept + (r->exact_kept ? 1 : 0);
}

/*
 * The timeline first, the event table in what it leaves: the table is
 * halved (down to a sixteenth of @budget) while a smaller one lets a
 * finer level in; then the levels are kept for the room the table left.
 */
static void fit(struct report *r, size_t budget)
{
	size_t floor = budget / 16;
	unsigned best = levels_within(r, budget - floor);

	while (r->ev_json.len > floor && r->ev_kept > 1 &&
	       levels_within(r, budget - (r->ev_json.len < budget
					      ? r->ev_json.len
					      : budget)) < best) {
		table_halve(r);
	}
	keep_levels(r, budget -
			   (r->ev_json.len < budget ? r->ev_json.len : budget));
}

int ht__report_plan(struct report *r, size_t budget)
{
	size_t i;
	unsigned l;

	/* the bounds are pessimistic (a task row holds one state for
	 * many buckets): the levels within 16 times the budget are
	 * encoded, the finest dropped while the runs pass 3 times the
	 * budget, then what fits is kept once the sizes are known */
	choose_levels(r, 16 * budget);
	r->enc_cap = 3 * budget;
	r->enc_project = 2 * budget;
	r->now_ns = INT64_MIN;
	for (l = 0; l < r->nr_levels; l++) {
		r->level_per[l] = (double)r->level_n[l] / (double)r->span;
	}
	for (i = 0; i < r->nr_cores; i++) {
		struct core *c = &r->cores[i];

		c->busy = calloc(UTIL_BUCKETS, sizeof(*c->busy));
		c->known = calloc(UTIL_BUCKETS, sizeof(*c->known));
		if (!c->busy || !c->known) {
			return HT_ENOMEM;
		}
	}
	for (i = 0; i < ht__report_nr_rows(r); i++) {
		if (trow_levels(r, ht__report_row(r, i))) {
			return HT_ENOMEM;
		}
	}
	return 0;
}

static uint64_t get_varint(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	unsigned sh = 0;

	while (*p < end) {
		unsigned char c = *(*p)++;

		if (sh < 64) {
			v |= (uint64_t)(c & 0x7f) << sh;
		}
		sh += 7;
		if (!(c & 0x80)) {
			break;
		}
	}
	return v;
}

/*
 * The runs of @e packed: the palette (its size, then the state ids in
 * order of first use), then per run delta << b | palette index, b the
 * bits of the palette's largest index. A delta that would pass 2^53
 * shifted (the viewer's integers are doubles) keeps the pairs: palette
 * size 0. @map: per state id, its palette index + 1, all 0 (left so).
 */
static void pack_runs(struct enc *e, uint32_t *map, struct ht_buf *tmp)
{
	const unsigned char *p = (const unsigned char *)e->out.data, *q;
	const unsigned char *end = p + e->out.len;
	uint32_t pal[64], *palette = pal;
	size_t k = 0, cap = 64;
	unsigned b = 0;
	bool wide = false;

	if (!e->out.len) {
		return;
	}
	for (q = p; q < end;) {
		uint64_t d = get_varint(&q, end);
		uint32_t s = (uint32_t)get_varint(&q, end);

		if (d >> 40) {
			wide = true;
		}
		if (map[s]) {
			continue;
		}
		if (k == cap) {
			uint32_t *np = malloc(2 * cap * sizeof(*np));

			if (!np) {
				tmp->nomem = true;
				break;
			}
			memcpy(np, palette, k * sizeof(*np));
			if (palette != pal) {
				free(palette);
			}
			palette = np;
			cap *= 2;
		}
		palette[k++] = s;
		map[s] = (uint32_t)k;
	}
	while (((size_t)1 << b) < k) {
		b++;
	}
	ht_buf_clear(tmp);
	if (wide || b > 12 || tmp->nomem) {
		put_varint(tmp, 0);
		ht_buf_add(tmp, e->out.data, e->out.len);
	} else {
		size_t i;

		put_varint(tmp, k);
		for (i = 0; i < k; i++) {
			put_varint(tmp, palette[i]);
		}
		for (q = p; q < end;) {
			uint64_t d = get_varint(&q, end);
			uint32_t s = (uint32_t)get_varint(&q, end);

			put_varint(tmp, d << b | (map[s] - 1));
		}
	}
	for (; k; k--) {
		map[palette[k - 1]] = 0;
	}
	if (palette != pal) {
		free(palette);
	}
	if (!tmp->nomem) {
		struct ht_buf t = e->out;

		e->out = *tmp;
		*tmp = t;
	}
}

int ht__report_finish(struct report *r, size_t budget)
{
	struct ht_buf tmp = {0};
	uint32_t *map;
	size_t i;
	unsigned l;

	for (i = 0; i < ht__report_nr_rows(r); i++) {
		struct trow *t = ht__report_row(r, i);

		for (l = 0; l < r->nr_levels; l++) {
			enc_flush(&t->lv[l]);
			/* the end of the last run */
			if (t->lv[l].runs) {
				enc_run(&t->lv[l], t->lv[l].next, 0);
			}
			r->nomem |= t->lv[l].out.nomem;
		}
		if (t->exact.runs) {
			enc_run(&t->exact, t->exact.next, 0);
		}
		r->nomem |= t->exact.out.nomem;
	}
	check_cap(r);
	map = calloc(r->nr_states + 1, sizeof(*map));
	if (!map) {
		return HT_ENOMEM;
	}
	for (i = 0; i < ht__report_nr_rows(r); i++) {
		struct trow *t = ht__report_row(r, i);

		for (l = 0; l < r->nr_levels; l++) {
			pack_runs(&t->lv[l], map, &tmp);
		}
		if (r->exact) {
			pack_runs(&t->exact, map, &tmp);
		}
	}
	r->nomem |= tmp.nomem;
	ht_buf_fini(&tmp);
	free(map);
	if (r->nomem || r->flow_json.nomem || r->notes.nomem ||
	    r->ev_json.nomem) {
		return HT_ENOMEM;
	}
	fit(r, budget);
	return 0;
}

void ht__report_fini(struct report *r)
{
	size_t i;
	unsigned l;

	for (i = 0; i < ht__report_nr_rows(r); i++) {
		struct trow *t = ht__report_row(r, i);

		for (l = 0; t->lv && l < r->nr_levels; l++) {
			ht_buf_fini(&t->lv[l].out);
			free(t->lv[l].acc);
		}
		free(t->lv);
		ht_buf_fini(&t->exact.out);
	}
	for (i = 0; i < r->nr_cores; i++) {
		free(r->cores[i].busy);
		free(r->cores[i].known);
	}
	free(r->cores);
	free(r->frows);
	for (i = 0; i < r->nr_trows; i++) {
		free(r->trows[i].name);
	}
	free(r->trows);
	free(r->task_hash);
	free(r->state_hash);
	for (i = 0; i < r->nr_states; i++) {
		free(r->states[i].name);
	}
	free(r->states);
	ht_buf_fini(&r->flow_json);
	ht_buf_fini(&r->notes);
	ht_buf_fini(&r->ev_json);
	ht_pretty_destroy(r->pretty);
	free(r->stream_core);
	ht_paths_interference_destroy(r->interference);
	ht_paths_reader_destroy(r->paths_reader);
}
