/* SPDX-License-Identifier: MIT */
/*
 * A capture's cores and the messages between them (capture.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "error.h"

#define MAX_NOTES 200

enum ev_kind {
	EV_OTHER = 0,
	EV_SYNC_REQ,
	EV_SYNC_ACK,
	EV_SYNC_NOTIFY,
	EV_SYNC_RECV,
	EV_MSG_SEND,
	EV_MSG_RECV,
};

/* Which half of a message an entry of the pending table holds. */
enum chan {
	CHAN_DOWN = 1, /* handshake, master -> slave (req / ack) */
	CHAN_UP,       /* handshake, slave -> master (notify / recv) */
	CHAN_MSG,      /* application message (send / recv) */
};

struct pending {
	uint64_t key_num;  /* seq or id; */
	uint32_t from;     /* sender core index + 1 (0: empty slot) */
	uint32_t to;       /* receiver core index (for CHAN_MSG: from the
			    * half that came first) */
	uint8_t chan;
	bool is_send;      /* which half is here */
	uint64_t cycles;
	uint32_t core;     /* core whose event this is (for notes) */
};

/* Last sequence number seen per (core, kind, peer), for order checks. */
struct seq_state {
	bool seen;
	uint64_t last;
};

struct cls_kind {
	const struct ht_ctf_event_class *cls;
	enum ev_kind kind;
};

struct ht_capture {
	char *dir;
	struct ht_ctf_set *set;
	struct ht_capture_core *cores;
	size_t nr_cores;
	/* stream index in the set -> core index */
	long *core_of_stream;
	size_t nr_streams;
	/* links, dense by from * nr_cores + to (allocated on use) */
	struct ht_capture_link **links;
	struct ht_capture_link **used; /* the non-empty ones, sorted */
	size_t nr_used;
	/* the pending halves: open addressing, linear probing */
	struct pending *tab;
	size_t tab_cap, tab_len;
	/* per (core, kind index 0..5, peer): sequence order */
	struct seq_state *seqs;
	/* event class -> kind cache, open addressing on the pointer */
	struct cls_kind *kinds;
	size_t kinds_cap, kinds_len;
	char **notes;
	size_t nr_notes;
	uint64_t notes_dropped;
};

static const char *const problem_names[HT_CAPTURE_NR_PROBLEMS] = {
	[HT_CAPTURE_UNMATCHED_REQ] = "sync_req without sync_ack",
	[HT_CAPTURE_UNMATCHED_ACK] = "sync_ack without sync_req",
	[HT_CAPTURE_UNMATCHED_NOTIFY] = "sync_notify without sync_recv",
	[HT_CAPTURE_UNMATCHED_RECV] = "sync_recv without sync_notify",
	[HT_CAPTURE_UNMATCHED_SEND] = "msg_send without msg_recv",
	[HT_CAPTURE_UNMATCHED_MRECV] = "msg_recv without msg_send",
	[HT_CAPTURE_DUP_SEQ] = "duplicated sequence number or id",
	[HT_CAPTURE_BAD_SEQ] = "inconsistent sequence number",
	[HT_CAPTURE_BAD_FIELD] = "bad field",
	[HT_CAPTURE_DAMAGED] = "damaged packet",
};

const char *ht_capture_problem_name(enum ht_capture_problem p)
{
	return p < HT_CAPTURE_NR_PROBLEMS ? problem_names[p] : "?";
}

static void note(struct ht_capture *cap, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];
	char **n;

	if (cap->nr_notes >= MAX_NOTES) {
		cap->notes_dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = realloc(cap->notes, (cap->nr_notes + 1) * sizeof(*n));
	if (!n) {
		cap->notes_dropped++;
		return;
	}
	cap->notes = n;
	n[cap->nr_notes] = strdup(buf);
	if (n[cap->nr_notes]) {
		cap->nr_notes++;
	} else {
		cap->notes_dropped++;
	}
}

size_t ht_capture_nr_notes(const struct ht_capture *cap)
{
	return cap->nr_notes;
}

const char *ht_capture_note(const struct ht_capture *cap, size_t i)
{
	return i < cap->nr_notes ? cap->notes[i] : NULL;
}

uint64_t ht_capture_nr_notes_dropped(const struct ht_capture *cap)
{
	return cap->notes_dropped;
}

size_t ht_capture_nr_cores(const struct ht_capture *cap)
{
	return cap->nr_cores;
}

const struct ht_capture_core *ht_capture_core(const struct ht_capture *cap,
					      size_t i)
{
	return i < cap->nr_cores ? &cap->cores[i] : NULL;
}

long ht_capture_find_core(const struct ht_capture *cap, const char *name)
{
	size_t i;

	for (i = 0; i < cap->nr_cores; i++) {
		if (!strcmp(cap->cores[i].name, name)) {
			return (long)i;
		}
	}
	return -1;
}

static long core_by_id(const struct ht_capture *cap, uint64_t id)
{
	size_t i;

	for (i = 0; i < cap->nr_cores; i++) {
		if (cap->cores[i].id == id) {
			return (long)i;
		}
	}
	return -1;
}

static void warn_cb(void *arg, const char *msg)
{
	note(arg, "warning: %s", msg);
}

static const char *env_str(const struct ht_ctf_trace *t, const char *name)
{
	const struct ht_ctf_env_entry *e = ht_ctf_trace_env(t, name);

	return e && e->is_string ? e->str : NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

int ht_capture_open(struct ht_capture **out, const char *dir, char *err,
		    size_t err_len)
{
	struct ht_ctf_open_opts opts = {0};
	struct ht_capture *cap;
	size_t i, j, nr_streams = 0;
	int ret;

	*out = NULL;
	cap = calloc(1, sizeof(*cap));
	if (!cap) {
		return HT_ENOMEM;
	}
	opts.flags = HT_CTF_EVENTS_ONLY | HT_CTF_KEEP_GOING;
	opts.warn = warn_cb;
	opts.warn_arg = cap;
	ret = ht_ctf_set_open(&cap->set, &dir, 1, &opts, err, err_len);
	if (ret) {
		goto close_cap;
	}
	cap->nr_cores = ht_ctf_set_nr_traces(cap->set);
	if (!cap->nr_cores) {
		snprintf(err, err_len, "%s: no CTF trace (no metadata file)",
			 dir);
		ret = HT_ENOENT;
		goto close_cap;
	}
	cap->cores = calloc(cap->nr_cores, sizeof(*cap->cores));
	if (!cap->cores) {
		ret = HT_ENOMEM;
		goto close_cap;
	}
	for (i = 0; i < cap->nr_cores; i++) {
		struct ht_capture_core *c = &cap->cores[i];
		const struct ht_ctf_trace *t = ht_ctf_set_trace(cap->set, i);
		const struct ht_ctf_env_entry *e;
		const char *role;

		c->trace = t;
		c->name = env_str(t, "core_name");
		if (!c->name) {
			c->name = base_name(t->path);
		}
		e = ht_ctf_trace_env(t, "core_id");
		c->id = (uint32_t)i;
		if (e && !e->is_string) {
			if (e->i < 0 || e->i > UINT32_MAX) {
				snprintf(err, err_len,
					 "%s/metadata: env core_id = %" PRId64
					 " is not a core id (0 to 2^32-1)",
					 t->path, e->i);
				ret = HT_EFORMAT;
				goto close_cap;
			}
			c->id = (uint32_t)e->i;
			c->has_id = true;
		}
		role = env_str(t, "core_role");
		c->is_master = role && !strcmp(role, "master");
		c->master_name = env_str(t, "core_master");
		c->master = -1;
		for (j = 0; j < t->nr_stream_classes; j++) {
			const struct ht_ctf_clock *k =
				t->stream_classes[j]->default_clock;

			if (!k) {
				continue;
			}
			if (c->clock && c->clock != k) {
				snprintf(err, err_len,
					 "%s/metadata: core %s has two "
					 "clocks (%s and %s); a core has one",
					 t->path, c->name, c->clock->name,
					 k->name);
				ret = HT_EUNSUPPORTED;
				goto close_cap;
			}
			c->clock = k;
		}
		if (!c->clock) {
			snprintf(err, err_len,
				 "%s/metadata: core %s has no clock: its "
				 "events cannot be placed in time",
				 t->path, c->name);
			ret = HT_EFORMAT;
			goto close_cap;
		}
		nr_streams += t->nr_streams;
	}
	for (i = 0; i < cap->nr_cores; i++) {
		struct ht_capture_core *c = &cap->cores[i];

		for (j = 0; j < i; j++) {
			if (!strcmp(cap->cores[j].name, c->name)) {
				snprintf(err, err_len,
					 "%s/metadata: core name '%s' is also "
					 "the name of %s",
					 c->trace->path, c->name,
					 cap->cores[j].trace->path);
				ret = HT_EFORMAT;
				goto close_cap;
			}
			if (cap->cores[j].id == c->id) {
				snprintf(err, err_len,
					 "%s/metadata: core id %" PRIu32
					 " is also the id of %s (%s)",
					 c->trace->path, c->id,
					 cap->cores[j].name,
					 cap->cores[j].trace->path);
				ret = HT_EFORMAT;
				goto close_cap;
			}
		}
	}
	for (i = 0; i < cap->nr_cores; i++) {
		struct ht_capture_core *c = &cap->cores[i];

		if (!c->master_name) {
			continue;
		}
		c->master = ht_capture_find_core(cap, c->master_name);
		if (c->master < 0) {
			snprintf(err, err_len,
				 "%s/metadata: core %s: its master '%s' "
				 "is not in the capture %s (a core is "
				 "missing)",
				 c->trace->path, c->name, c->master_name, dir);
			ret = HT_ENOENT;
			goto close_cap;
		}
		if ((size_t)c->master == i) {
			snprintf(err, err_len,
				 "%s/metadata: core %s is its own master",
				 c->trace->path, c->name);
			ret = HT_EFORMAT;
			goto close_cap;
		}
	}
	cap->nr_streams = nr_streams;
	cap->core_of_stream = malloc((nr_streams + 1) * sizeof(long));
	cap->links = calloc(cap->nr_cores * cap->nr_cores, sizeof(*cap->links));
	cap->seqs = calloc(cap->nr_cores * 6 * cap->nr_cores,
			   sizeof(*cap->seqs));
	cap->dir = strdup(dir);
	if (!cap->core_of_stream || !cap->links || !cap->seqs || !cap->dir) {
		ret = HT_ENOMEM;
		goto close_cap;
	}
	for (i = 0; i < nr_streams; i++) {
		cap->core_of_stream[i] = -1;
	}
	for (i = 0; i < cap->nr_cores; i++) {
		const struct ht_ctf_trace *t = cap->cores[i].trace;

		for (j = 0; j < t->nr_streams; j++) {
			if (t->streams[j]->index < nr_streams) {
				cap->core_of_stream[t->streams[j]->index] =
					(long)i;
			}
		}
	}
	*out = cap;
	return 0;
close_cap:
	ht_capture_close(cap);
	return ret;
}

void ht_capture_close(struct ht_capture *cap)
{
	size_t i;

	if (!cap) {
		return;
	}
	if (cap->links) {
		for (i = 0; i < cap->nr_cores * cap->nr_cores; i++) {
			if (cap->links[i]) {
				free(cap->links[i]->pairs);
				free(cap->links[i]);
			}
		}
	}
	for (i = 0; i < cap->nr_notes; i++) {
		free(cap->notes[i]);
	}
	free(cap->notes);
	free(cap->links);
	free(cap->used);
	free(cap->tab);
	free(cap->seqs);
	free(cap->kinds);
	free(cap->core_of_stream);
	free(cap->cores);
	free(cap->dir);
	ht_ctf_set_close(cap->set);
	free(cap);
}

/* ------------------------------------------------------------------ */
/* Event classes -> kinds                                              */

static enum ev_kind kind_of_name(const char *name)
{
	const char *s = strrchr(name, ':');

	/* an LTTng-UST "provider:name" matches "name" */
	if (s) {
		name = s + 1;
	}
	if (!strcmp(name, "sync_req")) {
		return EV_SYNC_REQ;
	}
	if (!strcmp(name, "sync_ack")) {
		return EV_SYNC_ACK;
	}
	if (!strcmp(name, "sync_notify")) {
		return EV_SYNC_NOTIFY;
	}
	if (!strcmp(name, "sync_recv")) {
		return EV_SYNC_RECV;
	}
	if (!strcmp(name, "msg_send")) {
		return EV_MSG_SEND;
	}
	if (!strcmp(name, "msg_recv")) {
		return EV_MSG_RECV;
	}
	return EV_OTHER;
}

static size_t hash_ptr(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x;
}

static int class_kind(struct ht_capture *cap,
		      const struct ht_ctf_event_class *cls, enum ev_kind *kind)
{
	size_t i;

	if (2 * (cap->kinds_len + 1) > cap->kinds_cap) {
		size_t n = cap->kinds_cap ? 2 * cap->kinds_cap : 64;
		struct cls_kind *k = calloc(n, sizeof(*k));

		if (!k) {
			return HT_ENOMEM;
		}
		for (i = 0; i < cap->kinds_cap; i++) {
			if (cap->kinds[i].cls) {
				size_t h = hash_ptr(cap->kinds[i].cls) & (n - 1);

				while (k[h].cls) {
					h = (h + 1) & (n - 1);
				}
				k[h] = cap->kinds[i];
			}
		}
		free(cap->kinds);
		cap->kinds = k;
		cap->kinds_cap = n;
	}
	i = hash_ptr(cls) & (cap->kinds_cap - 1);
	while (cap->kinds[i].cls) {
		if (cap->kinds[i].cls == cls) {
			*kind = cap->kinds[i].kind;
			return 0;
		}
		i = (i + 1) & (cap->kinds_cap - 1);
	}
	cap->kinds[i].cls = cls;
	cap->kinds[i].kind = kind_of_name(cls->name);
	cap->kinds_len++;
	*kind = cap->kinds[i].kind;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Pending halves                                                      */

static size_t hash_key(uint8_t chan, uint32_t from, uint32_t to, uint64_t n)
{
	uint64_t x = n * 0x9e3779b97f4a7c15ull;

	x ^= ((uint64_t)from << 40) ^ ((uint64_t)to << 20) ^ chan;
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 29;
	return (size_t)x;
}

static bool same_key(const struct pending *p, uint8_t chan, uint32_t from,
		     uint32_t to, uint64_t n)
{
	/* application messages match on (sender, id) only */
	return p->from == from && p->chan == chan && p->key_num == n &&
	       (chan == CHAN_MSG || p->to == to);
}

static int tab_grow(struct ht_capture *cap)
{
	size_t n = cap->tab_cap ? 2 * cap->tab_cap : 1024;
	struct pending *t = calloc(n, sizeof(*t));
	size_t i;

	if (!t) {
		return HT_ENOMEM;
	}
	for (i = 0; i < cap->tab_cap; i++) {
		const struct pending *p = &cap->tab[i];

		if (p->from) {
			size_t h = hash_key(p->chan, p->from,
					    p->chan == CHAN_MSG ? 0 : p->to,
					    p->key_num) &
				   (n - 1);

			while (t[h].from) {
				h = (h + 1) & (n - 1);
			}
			t[h] = *p;
		}
	}
	free(cap->tab);
	cap->tab = t;
	cap->tab_cap = n;
	return 0;
}

/* Removes slot @i, shifting back the entries of its probe run. */
static void tab_delete(struct ht_capture *cap, size_t i)
{
	size_t mask = cap->tab_cap - 1, j = i;

	for (;;) {
		size_t k;

		j = (j + 1) & mask;
		if (!cap->tab[j].from) {
			break;
		}
		k = hash_key(cap->tab[j].chan, cap->tab[j].from,
			     cap->tab[j].chan == CHAN_MSG ? 0 : cap->tab[j].to,
			     cap->tab[j].key_num) &
		    mask;
		/* move j to i when its home k is not in (i, j] */
		if ((i <= j) ? (k <= i || k > j) : (k <= i && k > j)) {
			cap->tab[i] = cap->tab[j];
			i = j;
		}
	}
	cap->tab[i].from = 0;
	cap->tab_len--;
}

static int add_pair(struct ht_capture *cap, size_t from, size_t to,
		    uint64_t send, uint64_t recv, uint8_t chan)
{
	struct ht_capture_link **lp = &cap->links[from * cap->nr_cores + to];
	struct ht_capture_link *l = *lp;

	if (!l) {
		l = calloc(1, sizeof(*l));
		if (!l) {
			return HT_ENOMEM;
		}
		l->from = from;
		l->to = to;
		*lp = l;
	}
	/* the capacity is 64, then doubles at each power of two */
	if (!l->nr_pairs ||
	    (l->nr_pairs >= 64 && !(l->nr_pairs & (l->nr_pairs - 1)))) {
		size_t n = l->nr_pairs ? 2 * l->nr_pairs : 64;
		struct ht_capture_pair *p = realloc(l->pairs, n * sizeof(*p));

		if (!p) {
			return HT_ENOMEM;
		}
		l->pairs = p;
	}
	l->pairs[l->nr_pairs].send = send;
	l->pairs[l->nr_pairs].recv = recv;
	l->nr_pairs++;
	if (chan == CHAN_MSG) {
		l->nr_msg++;
	} else {
		l->nr_sync++;
	}
	return 0;
}

/*
 * One half of a message: the send (on @from) or the receive (on @to).
 * Matches it with the other half, or keeps it until that comes.
 */
static int half(struct ht_capture *cap, uint8_t chan, size_t from, size_t to,
		uint64_t num, bool is_send, uint64_t cycles, size_t core)
{
	uint32_t f = (uint32_t)from + 1;
	uint32_t t = (uint32_t)to;
	size_t mask, i;
	int ret;

	if (2 * (cap->tab_len + 1) > cap->tab_cap) {
		ret = tab_grow(cap);
		if (ret) {
			return ret;
		}
	}
	mask = cap->tab_cap - 1;
	i = hash_key(chan, f, chan == CHAN_MSG ? 0 : t, num) & mask;
	for (; cap->tab[i].from; i = (i + 1) & mask) {
		struct pending *p = &cap->tab[i];

		if (!same_key(p, chan, f, t, num)) {
			continue;
		}
		if (p->is_send == is_send) {
			/* the same half twice: the order checks let only
			 * a reordered duplicate through */
			cap->cores[core].problems[HT_CAPTURE_DUP_SEQ]++;
			note(cap, "core %s: %s %" PRIu64 " seen twice",
			     cap->cores[core].name,
			     chan == CHAN_MSG ? "message id" : "sequence number",
			     num);
			return 0;
		}
		if (chan == CHAN_MSG && p->to != t) {
			cap->cores[core].problems[HT_CAPTURE_BAD_FIELD]++;
			note(cap,
			     "core %s: message %" PRIu64 " from %s: sent to "
			     "core %s, received by core %s",
			     cap->cores[core].name, num,
			     cap->cores[from].name,
			     cap->cores[is_send ? to : p->to].name,
			     cap->cores[is_send ? p->to : to].name);
			tab_delete(cap, i);
			return 0;
		}
		ret = add_pair(cap, from, to, is_send ? cycles : p->cycles,
			       is_send ? p->cycles : cycles, chan);
		tab_delete(cap, i);
		return ret;
	}
	cap->tab[i].from = f;
	cap->tab[i].to = t;
	cap->tab[i].chan = chan;
	cap->tab[i].key_num = num;
	cap->tab[i].is_send = is_send;
	cap->tab[i].cycles = cycles;
	cap->tab[i].core = (uint32_t)core;
	cap->tab_len++;
	return 0;
}

/*
 * Sequence numbers of one kind of event from one core towards one peer
 * must grow: a repeated one is a duplicate, a smaller one inconsistent.
 * Returns true when the event may be used.
 */
static bool seq_ok(struct ht_capture *cap, size_t core, enum ev_kind kind,
		   size_t peer, uint64_t seq, const struct ht_ctf_msg *msg)
{
	struct seq_state *s =
		&cap->seqs[(core * 6 + (kind - 1)) * cap->nr_cores + peer];
	struct ht_capture_core *c = &cap->cores[core];
	enum ht_capture_problem p;

	if (!s->seen || seq > s->last) {
		s->seen = true;
		s->last = seq;
		return true;
	}
	p = seq == s->last ? HT_CAPTURE_DUP_SEQ : HT_CAPTURE_BAD_SEQ;
	c->problems[p]++;
	note(cap,
	     "file=%s offset=%" PRIu64 ": core %s: %s %s %" PRIu64
	     " after %" PRIu64 " (event ignored)",
	     msg->stream->path, msg->event->offset_bits / 8, c->name,
	     msg->event->cls->name,
	     seq == s->last ? "repeats sequence number"
			    : "has a sequence number going backwards:",
	     seq, s->last);
	return false;
}

static const struct ht_ctf_field *payload_member(const struct ht_ctf_msg *msg,
						 const char *name)
{
	const struct ht_ctf_field *p =
		msg->event->scope[HT_CTF_SCOPE_EVENT_PAYLOAD];
	const struct ht_ctf_field *f;
	char alt[32];

	if (!p) {
		return NULL;
	}
	f = ht_ctf_field_member(p, name);
	if (!f) {
		/* TSDL may write a member with one leading underscore */
		snprintf(alt, sizeof(alt), "_%s", name);
		f = ht_ctf_field_member(p, alt);
	}
	if (f && f->type->kind != HT_CTF_INT && f->type->kind != HT_CTF_ENUM) {
		return NULL;
	}
	return f;
}

static bool get_uint(struct ht_capture *cap, size_t core,
		     const struct ht_ctf_msg *msg, const char *name,
		     uint64_t *v)
{
	const struct ht_ctf_field *f = payload_member(msg, name);

	if (!f) {
		cap->cores[core].problems[HT_CAPTURE_BAD_FIELD]++;
		note(cap,
		     "file=%s offset=%" PRIu64 ": core %s: %s has no "
		     "integer field '%s' (event ignored)",
		     msg->stream->path, msg->event->offset_bits / 8,
		     cap->cores[core].name, msg->event->cls->name, name);
		return false;
	}
	*v = f->v.u;
	return true;
}

/* The core named by the id in field @name, or -1 (noted). */
static long peer_of(struct ht_capture *cap, size_t core,
		    const struct ht_ctf_msg *msg, const char *name)
{
	uint64_t id;
	long peer;

	if (!get_uint(cap, core, msg, name, &id)) {
		return -1;
	}
	peer = core_by_id(cap, id);
	if (peer < 0 || (size_t)peer == core) {
		cap->cores[core].problems[HT_CAPTURE_BAD_FIELD]++;
		note(cap,
		     "file=%s offset=%" PRIu64 ": core %s: %s: %s = %" PRIu64
		     " %s (event ignored)",
		     msg->stream->path, msg->event->offset_bits / 8,
		     cap->cores[core].name, msg->event->cls->name, name, id,
		     peer < 0 ? "names no core of the capture (a core is "
				"missing?)"
			      : "is the core itself");
		return -1;
	}
	return peer;
}

/* The master of slave @core for its handshake events, or -1. */
static long master_of(struct ht_capture *cap, size_t core,
		      const struct ht_ctf_msg *msg)
{
	long m = cap->cores[core].master;
	size_t i;

	if (m >= 0) {
		return m;
	}
	/* no core_master: the only master of the capture */
	for (i = 0; i < cap->nr_cores; i++) {
		if (cap->cores[i].is_master && i != core) {
			if (m >= 0) {
				m = -2;
				break;
			}
			m = (long)i;
		}
	}
	if (m < 0) {
		cap->cores[core].problems[HT_CAPTURE_BAD_FIELD]++;
		note(cap,
		     "file=%s offset=%" PRIu64 ": core %s: %s but the core "
		     "has no core_master and the capture %s (event ignored)",
		     msg->stream->path, msg->event->offset_bits / 8,
		     cap->cores[core].name, msg->event->cls->name,
		     m == -1 ? "has no master core" : "has several masters");
		return -1;
	}
	cap->cores[core].master = m;
	return m;
}

static int on_event(struct ht_capture *cap, size_t core,
		    const struct ht_ctf_msg *msg)
{
	struct ht_capture_core *c = &cap->cores[core];
	uint64_t seq, id;
	enum ev_kind kind;
	long peer;
	int ret;

	c->nr_events++;
	if (msg->has_time) {
		if (!c->has_time) {
			c->has_time = true;
			c->first_cycles = msg->cycles;
		}
		c->last_cycles = msg->cycles;
	}
	ret = class_kind(cap, msg->event->cls, &kind);
	if (ret || kind == EV_OTHER) {
		return ret;
	}
	if (!msg->has_time) {
		return 0;
	}
	switch (kind) {
	case EV_SYNC_REQ:
	case EV_SYNC_RECV:
		c->nr_sync_events++;
		peer = peer_of(cap, core, msg, "slave");
		if (peer < 0 || !get_uint(cap, core, msg, "seq", &seq) ||
		    !seq_ok(cap, core, kind, (size_t)peer, seq, msg)) {
			return 0;
		}
		if (kind == EV_SYNC_REQ) {
			return half(cap, CHAN_DOWN, core, (size_t)peer, seq,
				    true, msg->cycles, core);
		}
		return half(cap, CHAN_UP, (size_t)peer, core, seq, false,
			    msg->cycles, core);
	case EV_SYNC_ACK:
	case EV_SYNC_NOTIFY:
		c->nr_sync_events++;
		peer = master_of(cap, core, msg);
		if (peer < 0 || !get_uint(cap, core, msg, "seq", &seq) ||
		    !seq_ok(cap, core, kind, (size_t)peer, seq, msg)) {
			return 0;
		}
		if (kind == EV_SYNC_ACK) {
			return half(cap, CHAN_DOWN, (size_t)peer, core, seq,
				    false, msg->cycles, core);
		}
		return half(cap, CHAN_UP, core, (size_t)peer, seq, true,
			    msg->cycles, core);
	case EV_MSG_SEND:
		peer = peer_of(cap, core, msg, "dst");
		/* ids are unique per sender, not ordered: duplicates
		 * are found when both copies are pending */
		if (peer < 0 || !get_uint(cap, core, msg, "id", &id)) {
			return 0;
		}
		return half(cap, CHAN_MSG, core, (size_t)peer, id, true,
			    msg->cycles, core);
	case EV_MSG_RECV:
		peer = peer_of(cap, core, msg, "src");
		if (peer < 0 || !get_uint(cap, core, msg, "id", &id)) {
			return 0;
		}
		/* receives from one sender may come in any order */
		return half(cap, CHAN_MSG, (size_t)peer, core, id, false,
			    msg->cycles, core);
	default:
		return 0;
	}
}

static int cmp_link(const void *a, const void *b)
{
	const struct ht_capture_link *x = *(const struct ht_capture_link *const *)a;
	const struct ht_capture_link *y = *(const struct ht_capture_link *const *)b;

	if (x->from != y->from) {
		return x->from < y->from ? -1 : 1;
	}
	return x->to < y->to ? -1 : x->to > y->to;
}

static void count_unmatched(struct ht_capture *cap)
{
	size_t i;

	for (i = 0; i < cap->tab_cap; i++) {
		const struct pending *p = &cap->tab[i];
		enum ht_capture_problem pr;

		if (!p->from) {
			continue;
		}
		switch (p->chan) {
		case CHAN_DOWN:
			pr = p->is_send ? HT_CAPTURE_UNMATCHED_REQ
					: HT_CAPTURE_UNMATCHED_ACK;
			break;
		case CHAN_UP:
			pr = p->is_send ? HT_CAPTURE_UNMATCHED_NOTIFY
					: HT_CAPTURE_UNMATCHED_RECV;
			break;
		default:
			pr = p->is_send ? HT_CAPTURE_UNMATCHED_SEND
					: HT_CAPTURE_UNMATCHED_MRECV;
			break;
		}
		cap->cores[p->core].problems[pr]++;
	}
}

int ht_capture_scan(struct ht_capture *cap)
{
	struct ht_ctf_msg msg;
	size_t i;
	int ret;

	for (;;) {
		long core;

		ret = ht_ctf_set_next(cap->set, &msg);
		if (ret == HT_EEOF) {
			break;
		}
		if (ret == HT_ENOMEM) {
			return ret;
		}
		if (ret) {
			/* damaged: noted; the reader goes on */
			const char *e = ht_ctf_set_error(cap->set);

			note(cap, "damaged stream: %s", e);
			for (i = 0; i < cap->nr_cores; i++) {
				const char *p = cap->cores[i].trace->path;
				size_t n = strlen(p);

				if (strstr(e, p) && e[strstr(e, p) - e + n] == '/') {
					cap->cores[i]
						.problems[HT_CAPTURE_DAMAGED]++;
					break;
				}
			}
			continue;
		}
		core = msg.stream->index < cap->nr_streams
			       ? cap->core_of_stream[msg.stream->index]
			       : -1;
		if (core < 0) {
			continue;
		}
		switch (msg.kind) {
		case HT_CTF_MSG_EVENT:
			ret = on_event(cap, (size_t)core, &msg);
			if (ret) {
				return ret;
			}
			break;
		case HT_CTF_MSG_DISCARDED_EVENTS:
			cap->cores[core].discarded_events += msg.count;
			break;
		case HT_CTF_MSG_DISCARDED_PACKETS:
			cap->cores[core].lost_packets += msg.count;
			break;
		default:
			break;
		}
	}
	count_unmatched(cap);
	for (i = 0; i < cap->nr_cores * cap->nr_cores; i++) {
		if (cap->links[i]) {
			cap->nr_used++;
		}
	}
	cap->used = calloc(cap->nr_used + 1, sizeof(*cap->used));
	if (!cap->used) {
		return HT_ENOMEM;
	}
	cap->nr_used = 0;
	for (i = 0; i < cap->nr_cores * cap->nr_cores; i++) {
		if (cap->links[i]) {
			cap->used[cap->nr_used++] = cap->links[i];
		}
	}
	qsort(cap->used, cap->nr_used, sizeof(*cap->used), cmp_link);
	return 0;
}

const struct ht_capture_link *ht_capture_link(const struct ht_capture *cap,
					      size_t from, size_t to)
{
	if (from >= cap->nr_cores || to >= cap->nr_cores) {
		return NULL;
	}
	return cap->links[from * cap->nr_cores + to];
}

size_t ht_capture_nr_links(const struct ht_capture *cap)
{
	return cap->nr_used;
}

const struct ht_capture_link *ht_capture_link_at(const struct ht_capture *cap,
						 size_t i)
{
	return i < cap->nr_used ? cap->used[i] : NULL;
}
