/* SPDX-License-Identifier: MIT */
/*
 * Perfetto's native trace format (docs/views.md): a `Trace` is a
 * sequence of `TracePacket`s (field 1, length-delimited). Written here
 * with the protobuf wire format directly:
 *
 * - one TrackDescriptor per core type (group), per core (child of its
 *   group), and, when used, per core a "functions" track and a
 *   "utilization %" counter track (children of the core's track); each
 *   parent orders its children explicitly (child_ordering EXPLICIT,
 *   sibling_order_rank): groups and cores in the display order of every
 *   view (ht_states_core_cmp(): master, kernel CPUs, slaves by id), a
 *   core's functions before its utilization;
 * - TrackEvents: SLICE_BEGIN/SLICE_END for tasks, idle and interrupts
 *   (nested on the core track) and functions; INSTANT for every other
 *   event with its payload fields as debug annotations (unsigned
 *   integers shown in hexadecimal, the addresses of `hetrace-addr`, as
 *   pointer values); the message's
 *   flow id in flow_ids on msg_send and msg_recv (Perfetto links the
 *   events of one id); COUNTER samples per utilization window;
 * - event names and annotation names interned (InternedData in the
 *   packet that first uses them), on one packet sequence (every packet,
 *   track descriptors included, carries its id) whose
 *   incremental state is cleared at the start and whenever the intern
 *   tables reach their bound (memory stays flat).
 *
 * Field numbers (perfetto/protos/perfetto/trace/...): Trace.packet 1;
 * TracePacket: timestamp 8, trusted_packet_sequence_id 10, track_event
 * 11, interned_data 12, sequence_flags 13, track_descriptor 60;
 * TrackDescriptor: uuid 1, name 2, parent_uuid 5, counter 8,
 * child_ordering 11 (3: EXPLICIT), sibling_order_rank 12;
 * CounterDescriptor: unit_name 6; TrackEvent: debug_annotations 4, type
 * 9, name_iid 10, track_uuid 11, double_counter_value 44, flow_ids 47,
 * terminating_flow_ids 48; DebugAnnotation: name_iid 1, bool 2, uint 3,
 * int 4, double 5, string 6, pointer 7, name 10, dict_entries 11,
 * array_values
 * 12; InternedData: event_names 2, debug_annotation_names 3;
 * EventName / DebugAnnotationName: iid 1, name 2.
 */
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/utf8.h"
#include "export.h"

enum {
	WT_VARINT = 0,
	WT_I64 = 1,
	WT_LEN = 2,
};

enum {
	SEQ_ID = 1,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	SEQ_NEEDS_INCREMENTAL_STATE = 2,
	TYPE_SLICE_BEGIN = 1,
	TYPE_SLICE_END = 2,
	TYPE_INSTANT = 3,
	TYPE_COUNTER = 4,
	CHILD_ORDERING_EXPLICIT = 3,
	/* sibling_order_rank of a core's functions and utilization tracks */
	RANK_FUNCTIONS = 1,
	RANK_UTILIZATION = 2,
};

/* intern tables: bounded, then the incremental state is cleared */
#define INTERN_MAX_ENTRIES 16384
#define INTERN_MAX_BYTES (1u << 20)
#define ANNOT_MAX_DEPTH 16

/* ------------------------------------------------------------------ */
/* the packet being built: protobuf fields into a byte buffer */

/* Room for @n more bytes in @b (buf.h); inline, as every field
 * written asks. */
static inline bool buf_room(struct ht_buf *b, size_t n)
{
	return n < b->cap - b->len || ht_buf_reserve(b, n);
}

static inline void put_varint(struct ht_buf *b, uint64_t v)
{
	uint8_t *q;

	if (!buf_room(b, 10)) {
		return;
	}
	q = (uint8_t *)b->data + b->len;
	while (v >= 0x80) {
		*q++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*q++ = (uint8_t)v;
	b->len = (size_t)(q - (uint8_t *)b->data);
}

static inline void put_tag(struct ht_buf *b, unsigned field, unsigned wt)
{
	put_varint(b, ((uint64_t)field << 3) | wt);
}

static inline void put_uint(struct ht_buf *b, unsigned field, uint64_t v)
{
	put_tag(b, field, WT_VARINT);
	put_varint(b, v);
}

static void put_fixed64(struct ht_buf *b, unsigned field, uint64_t v)
{
	int i;

	put_tag(b, field, WT_I64);
	if (!buf_room(b, 8)) {
		return;
	}
	for (i = 0; i < 8; i++) {
		b->data[b->len++] = (char)(v >> (8 * i));
	}
}

static void put_double(struct ht_buf *b, unsigned field, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	put_fixed64(b, field, v);
}

static void put_bytes(struct ht_buf *b, unsigned field, const void *s, size_t n)
{
	put_tag(b, field, WT_LEN);
	put_varint(b, n);
	if (!buf_room(b, n)) {
		return;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

/* A string field: protobuf strings must be UTF-8, so what is not is
 * replaced (common/utf8.h); checking costs one compare per ASCII byte. */
static void put_text(struct ht_buf *b, unsigned field, const char *s, size_t n)
{
	size_t ok = ht_utf8_valid_len(s, n), len;

	if (ok == n) {
		put_bytes(b, field, s, n);
		return;
	}
	len = ok + ht_utf8_repaired_len(s + ok, n - ok);
	put_tag(b, field, WT_LEN);
	put_varint(b, len);
	if (!buf_room(b, len)) {
		return;
	}
	memcpy(b->data + b->len, s, ok);
	b->len += ok + ht_utf8_repair(b->data + b->len + ok, s + ok, n - ok);
}

static void put_str(struct ht_buf *b, unsigned field, const char *s)
{
	put_text(b, field, s, strlen(s));
}

/* A nested message: one byte is reserved for its length; when the
 * length needs more, the content moves (lengths are minimal varints). */
static inline size_t nest_begin(struct ht_buf *b, unsigned field)
{
	put_tag(b, field, WT_LEN);
	if (buf_room(b, 1)) {
		b->data[b->len++] = 0;
	}
	return b->len;
}

static inline void nest_end(struct ht_buf *b, size_t start)
{
	size_t n = b->len - start, k = 1;
	uint64_t v = n;

	if (b->nomem) {
		return;
	}
	while (v >= 0x80) {
		v >>= 7;
		k++;
	}
	if (k > 1) {
		if (!buf_room(b, k - 1)) {
			return;
		}
		memmove(b->data + start + k - 1, b->data + start, n);
		b->len += k - 1;
	}
	v = n;
	{
		uint8_t *q = (uint8_t *)b->data + start - 1;

		while (v >= 0x80) {
			*q++ = (uint8_t)(v | 0x80);
			v >>= 7;
		}
		*q = (uint8_t)v;
	}
}

/* ------------------------------------------------------------------ */
/* interning */

struct intern_entry {
	uint64_t hash; /* 0: empty */
	uint64_t iid;
	const char *str; /* in the arena */
	size_t len;
};

#define PTR_CACHE 1024

struct intern {
	struct intern_entry *v;
	size_t cap, used;
	/* iids of strings whose address stays valid with that content
	 * (metadata names, the states model's task names), by address */
	struct {
		const char *s;
		uint64_t iid;
		unsigned gen;
	} ptr_cache[PTR_CACHE];
	unsigned gen; /* bumped at each clear */
	/* entries new in the packet being built (interned data to write) */
	size_t *fresh;
	size_t nr_fresh, cap_fresh;
};

struct arena_block {
	struct arena_block *next;
	size_t len, cap;
	char data[];
};

struct pf {
	struct ht_buf pkt;    /* the packet being built */
	struct intern names;  /* EventName */
	struct intern annots; /* DebugAnnotationName */
	struct arena_block *arena;
	size_t arena_bytes;
	uint64_t next_iid;
	/* tracks */
	struct core_tracks {
		uint64_t uuid, group_uuid;
		bool has_func, has_counter;
	} * cores;
	size_t nr_cores, cap_cores;
};

static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	}
	return h ? h : 1;
}

static const char *arena_dup(struct pf *pf, const char *s, size_t n)
{
	struct arena_block *a = pf->arena;
	char *d;

	if (!a || a->len + n + 1 > a->cap) {
		size_t cap = n + 1 > 65536 ? n + 1 : 65536;

		a = malloc(sizeof(*a) + cap);
		if (!a) {
			return NULL;
		}
		a->next = pf->arena;
		a->len = 0;
		a->cap = cap;
		pf->arena = a;
	}
	d = a->data + a->len;
	memcpy(d, s, n);
	d[n] = '\0';
	a->len += n + 1;
	pf->arena_bytes += n + 1;
	return d;
}

static void arena_free(struct pf *pf)
{
	while (pf->arena) {
		struct arena_block *n = pf->arena->next;

		free(pf->arena);
		pf->arena = n;
	}
	pf->arena_bytes = 0;
}

static void intern_clear(struct intern *t)
{
	if (t->v) {
		memset(t->v, 0, t->cap * sizeof(*t->v));
	}
	t->used = 0;
	t->nr_fresh = 0;
	t->gen++;
}

/* The iid of @s in @t (0 when out of memory). */
static uint64_t intern(struct pf *pf, struct intern *t, const char *s)
{
	size_t n = strlen(s), i, mask;
	uint64_t h = str_hash(s, n);
	struct intern_entry *e;

	if (t->used * 2 >= t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256, k;
		struct intern_entry *nv = calloc(ncap, sizeof(*nv));

		if (!nv) {
			return 0;
		}
		for (k = 0; k < t->cap; k++) {
			if (t->v[k].hash) {
				i = t->v[k].hash & (ncap - 1);
				while (nv[i].hash) {
					i = (i + 1) & (ncap - 1);
				}
				nv[i] = t->v[k];
			}
		}
		/* fresh entries are slot indices: remap them */
		for (k = 0; k < t->nr_fresh; k++) {
			const struct intern_entry *old = &t->v[t->fresh[k]];

			i = old->hash & (ncap - 1);
			while (nv[i].iid != old->iid) {
				i = (i + 1) & (ncap - 1);
			}
			t->fresh[k] = i;
		}
		free(t->v);
		t->v = nv;
		t->cap = ncap;
	}
	mask = t->cap - 1;
	for (i = h & mask; t->v[i].hash; i = (i + 1) & mask) {
		e = &t->v[i];
		if (e->hash == h && e->len == n && !memcmp(e->str, s, n)) {
			return e->iid;
		}
	}
	if (ht_array_reserve((void **)&t->fresh, &t->cap_fresh, t->nr_fresh + 1,
			     sizeof(*t->fresh))) {
		return 0;
	}
	e = &t->v[i];
	e->str = arena_dup(pf, s, n);
	if (!e->str) {
		return 0;
	}
	e->hash = h;
	e->len = n;
	e->iid = ++pf->next_iid;
	t->used++;
	t->fresh[t->nr_fresh++] = i;
	return e->iid;
}

/* intern() for a string whose address keeps its content for the whole
 * export: a hit costs one compare of addresses. */
static uint64_t intern_stable(struct pf *pf, struct intern *t, const char *s)
{
	size_t h = (size_t)(((uintptr_t)s >> 3) * 0x9e3779b97f4a7c15ull >> 54) &
		   (PTR_CACHE - 1);

	if (t->ptr_cache[h].s != s || t->ptr_cache[h].gen != t->gen) {
		uint64_t iid = intern(pf, t, s);

		if (!iid) {
			return 0;
		}
		t->ptr_cache[h].s = s;
		t->ptr_cache[h].iid = iid;
		t->ptr_cache[h].gen = t->gen;
	}
	return t->ptr_cache[h].iid;
}

static void put_fresh(struct ht_buf *b, struct intern *t, unsigned field)
{
	size_t k, m;

	for (k = 0; k < t->nr_fresh; k++) {
		const struct intern_entry *e = &t->v[t->fresh[k]];

		m = nest_begin(b, field);
		put_uint(b, 1, e->iid);
		put_text(b, 2, e->str, e->len);
		nest_end(b, m);
	}
	t->nr_fresh = 0;
}

/* ------------------------------------------------------------------ */
/* packets */

/* Writes the packet built in pf->pkt as Trace.packet. */
static int packet_flush(struct ht_export *ex, struct pf *pf)
{
	struct ht_buf *b = &pf->pkt;
	uint8_t hdr[11];
	size_t n = 0;
	uint64_t v = b->len;

	if (b->nomem) {
		return HT_ENOMEM;
	}
	hdr[n++] = (1 << 3) | WT_LEN;
	while (v >= 0x80) {
		hdr[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	hdr[n++] = (uint8_t)v;
	ht__export_puts(&ex->out, (const char *)hdr, n);
	ht__export_puts(&ex->out, b->data, b->len);
	b->len = 0;
	return ht__export_maybe_flush(&ex->out);
}

/* A packet that clears the sequence's incremental state. */
static int packet_clear_state(struct ht_export *ex, struct pf *pf)
{
	intern_clear(&pf->names);
	intern_clear(&pf->annots);
	arena_free(pf);
	put_uint(&pf->pkt, 10, SEQ_ID);
	put_uint(&pf->pkt, 13, SEQ_INCREMENTAL_STATE_CLEARED);
	return packet_flush(ex, pf);
}

/* Starts a TrackEvent packet; returns the track_event nesting mark. */
static int event_begin(struct ht_export *ex, struct pf *pf, int64_t ns,
		       size_t *mark)
{
	int ret;

	if (pf->names.used + pf->annots.used > INTERN_MAX_ENTRIES ||
	    pf->arena_bytes > INTERN_MAX_BYTES) {
		ret = packet_clear_state(ex, pf);
		if (ret) {
			return ret;
		}
	}
	put_uint(&pf->pkt, 8, ns < 0 ? 0 : (uint64_t)ns);
	/* trusted_packet_sequence_id and sequence_flags: constant bytes */
	if (buf_room(&pf->pkt, 4)) {
		uint8_t *q = (uint8_t *)pf->pkt.data + pf->pkt.len;

		q[0] = (10 << 3) | WT_VARINT;
		q[1] = SEQ_ID;
		q[2] = (13 << 3) | WT_VARINT;
		q[3] = SEQ_NEEDS_INCREMENTAL_STATE;
		pf->pkt.len += 4;
	}
	*mark = nest_begin(&pf->pkt, 11);
	return 0;
}

static int event_end(struct ht_export *ex, struct pf *pf, size_t mark)
{
	struct ht_buf *b = &pf->pkt;

	nest_end(b, mark);
	if (pf->names.nr_fresh || pf->annots.nr_fresh) {
		size_t m = nest_begin(b, 12);

		put_fresh(b, &pf->names, 2);
		put_fresh(b, &pf->annots, 3);
		nest_end(b, m);
	}
	return packet_flush(ex, pf);
}

/* A track @uuid under @parent (0: none) at @rank among its siblings;
 * @counter: a counter track (no children), else one that orders its
 * children by their rank. */
static int track_descriptor(struct ht_export *ex, struct pf *pf, uint64_t uuid,
			    uint64_t parent, int32_t rank, const char *name,
			    const char *name2, bool counter)
{
	struct ht_buf *b = &pf->pkt;
	size_t m;

	put_uint(b, 10, SEQ_ID);
	m = nest_begin(b, 60);
	put_uint(b, 1, uuid);
	if (parent) {
		put_uint(b, 5, parent);
	}
	if (!counter) {
		put_uint(b, 11, CHILD_ORDERING_EXPLICIT);
	}
	/* int32: negative values are 10-byte varints */
	put_uint(b, 12, (uint64_t)(int64_t)rank);
	if (name2) {
		/* name + " " + name2 */
		struct ht_buf full = {0};

		ht_buf_printf(&full, "%s %s", name, name2);
		if (full.nomem) {
			b->nomem = true;
		} else {
			put_text(b, 2, full.data, full.len);
		}
		ht_buf_fini(&full);
	} else {
		put_str(b, 2, name);
	}
	if (counter) {
		size_t c = nest_begin(b, 8);

		put_str(b, 6, "%");
		nest_end(b, c);
	}
	nest_end(b, m);
	return packet_flush(ex, pf);
}

/* ------------------------------------------------------------------ */
/* debug annotations from decoded fields */

static void annot_value(struct pf *pf, const struct ht_ctf_field *f,
			unsigned depth);

static void annot_named(struct pf *pf, unsigned field,
			const struct ht_ctf_field *f, bool interned_name,
			unsigned depth)
{
	struct ht_buf *b = &pf->pkt;
	size_t m = nest_begin(b, field);

	if (f->name) {
		/* babeltrace2 shows names without one leading '_' */
		const char *n = f->name[0] == '_' ? f->name + 1 : f->name;

		if (interned_name) {
			put_uint(b, 1, intern_stable(pf, &pf->annots, n));
		} else {
			put_str(b, 10, n);
		}
	}
	annot_value(pf, f, depth);
	nest_end(b, m);
}

static void annot_value(struct pf *pf, const struct ht_ctf_field *f,
			unsigned depth)
{
	struct ht_buf *b = &pf->pkt;
	const struct ht_ctf_field *c;
	const char *label;
	uint32_t i;

	switch (f->type->kind) {
	case HT_CTF_INT:
		if (f->type->is_signed) {
			put_uint(b, 4, (uint64_t)f->v.s);
		} else if (f->type->base == 16) {
			/* hetrace-addr: a code address */
			put_uint(b, 7, f->v.u);
		} else {
			put_uint(b, 3, f->v.u);
		}
		break;
	case HT_CTF_ENUM:
		if (ht_ctf_enum_labels(f->type, f->v.u, &label, 1)) {
			put_str(b, 6, label);
		} else if (f->type->container->is_signed) {
			put_uint(b, 4, (uint64_t)f->v.s);
		} else {
			put_uint(b, 3, f->v.u);
		}
		break;
	case HT_CTF_FLOAT:
		put_double(b, 5, f->v.d);
		break;
	case HT_CTF_STRING:
		put_text(b, 6, f->v.str, f->nr_children);
		break;
	case HT_CTF_STRUCT:
	case HT_CTF_VARIANT:
		if (depth >= ANNOT_MAX_DEPTH) {
			put_str(b, 6, "...");
			break;
		}
		c = ht_ctf_field_first_child(f);
		for (i = 0; i < f->nr_children; i++, c = ht_ctf_field_next(c)) {
			annot_named(pf, 11, c, false, depth + 1);
		}
		break;
	case HT_CTF_ARRAY:
	case HT_CTF_SEQUENCE:
		if (depth >= ANNOT_MAX_DEPTH) {
			put_str(b, 6, "...");
			break;
		}
		c = ht_ctf_field_first_child(f);
		for (i = 0; i < f->nr_children; i++, c = ht_ctf_field_next(c)) {
			size_t m = nest_begin(b, 12);

			annot_value(pf, c, depth + 1);
			nest_end(b, m);
		}
		break;
	}
}

/* ------------------------------------------------------------------ */
/* the exporter */

static int pf_begin(struct ht_export *ex)
{
	struct pf *pf = calloc(1, sizeof(*pf));

	if (!pf) {
		return HT_ENOMEM;
	}
	ex->priv = pf;
	return packet_clear_state(ex, pf);
}

static struct core_tracks *core_tracks(struct pf *pf,
				       const struct ht_states_core *c)
{
	return c->index < pf->nr_cores ? &pf->cores[c->index] : NULL;
}

static int on_core(struct ht_export *ex, const struct ht_states_item *it)
{
	struct pf *pf = ex->priv;
	const struct ht_states_core *c = it->core;
	uint64_t group_uuid;
	bool new_group;
	size_t g;
	int ret;

	if (ht__export_group(ex, c->group, &g, &new_group)) {
		return HT_ENOMEM;
	}
	group_uuid = 0x6000000000000000ull + g + 1;
	if (new_group) {
		/* the group takes the place of its first core */
		ret = track_descriptor(ex, pf, group_uuid, 0,
				       ht__export_core_rank(c), c->group, NULL,
				       false);
		if (ret) {
			return ret;
		}
	}
	if (ht_array_extend((void **)&pf->cores, &pf->nr_cores, &pf->cap_cores,
			    (size_t)c->index + 1, sizeof(*pf->cores))) {
		return HT_ENOMEM;
	}
	pf->cores[c->index].uuid =
	    0x7000000000000000ull + ((uint64_t)c->index << 2);
	pf->cores[c->index].group_uuid = group_uuid;
	ex->stats->cores++;
	return track_descriptor(ex, pf, pf->cores[c->index].uuid, group_uuid,
				ht__export_core_rank(c), c->name, NULL, false);
}

static int on_slice(struct ht_export *ex, const struct ht_states_item *it)
{
	struct pf *pf = ex->priv;
	struct core_tracks *t = core_tracks(pf, it->core);
	const struct ht_states_slice *s = it->slice;
	struct ht_buf *b = &pf->pkt;
	uint64_t track;
	size_t mark, m;
	int ret;

	if (!t) {
		return HT_EINVAL;
	}
	track = t->uuid;
	if (s->kind == HT_STATES_FUNC) {
		track = t->uuid + 1;
		if (!t->has_func) {
			t->has_func = true;
			ret = track_descriptor(ex, pf, track, t->uuid,
					       RANK_FUNCTIONS, it->core->name,
					       "functions", false);
			if (ret) {
				return ret;
			}
		}
	}
	ret = event_begin(ex, pf, it->ns, &mark);
	if (ret) {
		return ret;
	}
	put_uint(b, 11, track);
	if (it->kind == HT_STATES_SLICE_BEGIN) {
		put_uint(b, 9, TYPE_SLICE_BEGIN);
		/* function names without a symbol live in a reused buffer */
		put_uint(b, 10,
			 s->kind == HT_STATES_FUNC
			     ? intern(pf, &pf->names, s->name)
			     : intern_stable(pf, &pf->names, s->name));
		m = nest_begin(b, 4);
		switch (s->kind) {
		case HT_STATES_ISR:
			put_uint(b, 1, intern_stable(pf, &pf->annots, "irq"));
			put_uint(b, 3, s->id);
			break;
		case HT_STATES_FUNC:
			put_uint(b, 1, intern_stable(pf, &pf->annots, "addr"));
			put_uint(b, 7, s->id);
			break;
		default:
			put_uint(b, 1, intern_stable(pf, &pf->annots, "tid"));
			put_uint(b, 3, s->id);
			break;
		}
		nest_end(b, m);
	} else {
		put_uint(b, 9, TYPE_SLICE_END);
		if (s->forced_end) {
			m = nest_begin(b, 4);
			put_uint(
			    b, 1,
			    intern_stable(pf, &pf->annots, "no_end_event"));
			put_uint(b, 2, 1);
			nest_end(b, m);
		}
		ex->stats->slices++;
	}
	return event_end(ex, pf, mark);
}

static int on_event(struct ht_export *ex, const struct ht_states_item *it)
{
	struct pf *pf = ex->priv;
	struct core_tracks *t = core_tracks(pf, it->core);
	const struct ht_ctf_event *ev = it->msg->event;
	const struct ht_ctf_field *p = ev->scope[HT_CTF_SCOPE_EVENT_PAYLOAD];
	struct ht_buf *b = &pf->pkt;
	size_t mark;
	int ret;

	if (!t) {
		return HT_EINVAL;
	}
	ret = event_begin(ex, pf, it->ns, &mark);
	if (ret) {
		return ret;
	}
	put_uint(b, 11, t->uuid);
	put_uint(b, 9, TYPE_INSTANT);
	put_uint(b, 10, intern_stable(pf, &pf->names, ev->cls->name));
	if (p && p->type->kind == HT_CTF_STRUCT) {
		const struct ht_ctf_field *c = ht_ctf_field_first_child(p);
		uint32_t i;

		for (i = 0; i < p->nr_children; i++, c = ht_ctf_field_next(c)) {
			annot_named(pf, 4, c, true, 1);
		}
	}
	/* both ends carry the message's flow id: Perfetto links the
	 * events of one id in time order (a receive stamped before its
	 * send, within the sync error, still gets its arrow) */
	if (it->flow_id) {
		put_fixed64(b, 47, it->flow_id);
	}
	ex->stats->instants++;
	return event_end(ex, pf, mark);
}

static int on_window(struct ht_export *ex, const struct ht_states_item *it)
{
	struct pf *pf = ex->priv;
	struct core_tracks *t = core_tracks(pf, it->core);
	uint64_t known = it->win_idle_ns + it->win_task_ns + it->win_isr_ns;
	struct ht_buf *b = &pf->pkt;
	size_t mark;
	int ret;

	if (!t) {
		return HT_EINVAL;
	}
	if (!known) {
		return 0; /* nothing known: no sample rather than a zero */
	}
	if (!t->has_counter) {
		t->has_counter = true;
		ret = track_descriptor(ex, pf, t->uuid + 2, t->uuid,
				       RANK_UTILIZATION, it->core->name,
				       "utilization", true);
		if (ret) {
			return ret;
		}
	}
	ret = event_begin(ex, pf, it->win_begin_ns, &mark);
	if (ret) {
		return ret;
	}
	put_uint(b, 11, t->uuid + 2);
	put_uint(b, 9, TYPE_COUNTER);
	put_double(b, 44,
		   100.0 * (double)(it->win_task_ns + it->win_isr_ns) /
		       (double)known);
	ex->stats->counters++;
	return event_end(ex, pf, mark);
}

static void intern_free(struct intern *t)
{
	free(t->v);
	free(t->fresh);
}

static int pf_end(struct ht_export *ex, bool ok)
{
	struct pf *pf = ex->priv;

	(void)ok;
	if (!pf) {
		return 0;
	}
	free(pf->cores);
	intern_free(&pf->names);
	intern_free(&pf->annots);
	arena_free(pf);
	ht_buf_fini(&pf->pkt);
	free(pf);
	ex->priv = NULL;
	return 0;
}

const struct ht_export_ops ht__export_perfetto = {
    .name = "perfetto",
    .description = "Perfetto protobuf trace (ui.perfetto.dev, trace_processor)",
    .begin = pf_begin,
    .core = on_core,
    .slice = on_slice,
    .event = on_event,
    .window = on_window,
    .end = pf_end,
};
