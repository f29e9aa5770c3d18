/* SPDX-License-Identifier: MIT */
/*
 * The scan of a capture (capture-reader.h): every event read once, the
 * handshake and application events kept as halves of messages, checked
 * for order, and joined into pairs per link at the end.
 *
 * Two ways to read the events, with the same result:
 * - per stream (ht_ctf_stream_scan(): classes and times, no field
 *   decoded), a core after the other: the fields of the handshake and
 *   message events are read from their records' bytes
 *   (capture-fields.c), and a core's such events are put in time order
 *   (over its streams) before they are taken as halves. Taken when
 *   every stream class with such events has an event header the merge
 *   takes apart (merge-header.c) and fields capture-fields.c reads;
 * - else through the trace set, every event decoded, in time order.
 * The scan's notes come in the order of their events' times (per
 * core's clock, then stream), the earliest ones kept
 * (capture-notes.c).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture-reader-internal.h"
#include "common/buf.h"
#include "common/error.h"
#include "merge-internal.h"

enum ev_kind {
	EV_OTHER = 0,
	EV_SYNC_REQ,
	EV_SYNC_ACK,
	EV_SYNC_NOTIFY,
	EV_SYNC_RECV,
	EV_MSG_SEND,
	EV_MSG_RECV,
};

/* What kind of message a half belongs to. */
enum chan {
	CHAN_DOWN = HT_CAPTURE_DOWN,
	CHAN_UP = HT_CAPTURE_UP,
	CHAN_MSG = HT_CAPTURE_MSG,
};

/* One half of a message: its number (seq or id) and time. */
struct half {
	uint64_t num;
	uint64_t cycles;
	uint64_t offset_bits; /* its event's record (struct ht_capture_pair) */
	uint32_t peer;	      /* messages: the other core (dst / receiver) */
	uint32_t stream : 31; /* its event's stream in its core's trace */
	uint32_t bad : 1;     /* its timestamp turned out damaged: unused */
};

struct halves {
	struct half *v;
	size_t n, cap;
};

/*
 * The halves of the messages from one core to another (handshake) or
 * from one core to any (application messages), kept until the scan
 * ends and joined then: handshake numbers grow on each side (the order
 * checks drop the others), so the join is a linear merge; application
 * ids are sorted first.
 */
struct ht__side {
	uint8_t chan; /* CHAN_DOWN or CHAN_UP for a handshake link */
	struct halves send, recv;
};

/* Last sequence number seen per (core, kind, peer), for order checks. */
struct ht__seq_state {
	bool seen;
	uint64_t last;
};

/* A link and the capacity of its pairs (links[] points at pub). */
struct link {
	struct ht_capture_link pub;
	size_t cap_pairs;
};

/*
 * The time order of one stream: its last two good timestamps and
 * where its last event went, so that an event found later to be a
 * spike (stamped after both its neighbours) is taken back.
 */
struct ht__stream_time {
	uint64_t last, prev; /* good timestamps, last one first */
	unsigned nr;	     /* of them: 0, 1 or 2 */
	/* the last event: its position, and its half if it made one
	 * (the trace set's path) or its entry in cap->evs plus one (the
	 * per-stream path; 0: none) */
	uint64_t last_offset_bits;
	struct halves *last_half;
	size_t last_half_i;
	size_t last_ev;
};

/* A handshake or message event: where it is, what it is, its fields
 * (decoded in @msg, else read from its record while it was scanned:
 * the peer's (slave, dst or src) and the number (seq or id), when
 * there). */
struct ht__scan_ev {
	const struct ht_ctf_stream *stream;
	const struct ht_ctf_event_class *cls;
	uint64_t offset_bits, cycles;
	const struct ht_ctf_msg *msg;
	uint64_t peer, num;
	bool has_peer, has_num;
	uint32_t stream_in_core;
	uint8_t kind; /* enum ev_kind */
	bool bad;     /* its timestamp turned out damaged (a spike) */
	/* its notes' time: its own, or the next event's for a spike */
	uint64_t key_cycles;
};

/* Timestamps at or beyond this are damage: no clock counts that far
 * (146 years at 1 GHz), and the fit takes times below 2^62 only. */
#define BAD_TIME_LIMIT ((uint64_t)1 << 62)

/* The kind of an event class, cached by the class pointer. */
struct ht__cls_kind {
	const struct ht_ctf_event_class *cls;
	enum ev_kind kind;
};

static long core_by_id(const struct ht_capture_reader *cap, uint64_t id)
{
	size_t i;

	for (i = 0; i < cap->nr_cores; i++) {
		if (cap->cores[i].id == id) {
			return (long)i;
		}
	}
	return -1;
}

int ht__capture_reader_scan_init(struct ht_capture_reader *cap)
{
	size_t n = cap->nr_cores;

	cap->links = calloc(n * n, sizeof(*cap->links));
	cap->seqs = calloc(n * 6 * n, sizeof(*cap->seqs));
	cap->sync = calloc(n * n, sizeof(*cap->sync));
	cap->msg = calloc(n, sizeof(*cap->msg));
	cap->times = calloc(cap->nr_streams + 1, sizeof(*cap->times));
	if (!cap->links || !cap->seqs || !cap->sync || !cap->msg ||
	    !cap->times) {
		return HT_ENOMEM;
	}
	return 0;
}

void ht__capture_reader_scan_fini(struct ht_capture_reader *cap)
{
	size_t i;

	if (cap->links) {
		for (i = 0; i < cap->nr_cores * cap->nr_cores; i++) {
			if (cap->links[i]) {
				free(cap->links[i]->pairs);
				free(cap->links[i]);
			}
		}
	}
	free(cap->links);
	free(cap->used);
	if (cap->sync) {
		for (i = 0; i < cap->nr_cores * cap->nr_cores; i++) {
			free(cap->sync[i].send.v);
			free(cap->sync[i].recv.v);
		}
	}
	if (cap->msg) {
		for (i = 0; i < cap->nr_cores; i++) {
			free(cap->msg[i].send.v);
			free(cap->msg[i].recv.v);
		}
	}
	free(cap->sync);
	free(cap->msg);
	free(cap->seqs);
	free(cap->kinds);
	free(cap->times);
	free(cap->evs);
	if (cap->cores) {
		for (i = 0; i < cap->nr_cores; i++) {
			free(cap->cores[i].bad_times);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Event classes -> kinds                                              */

static const struct {
	const char *name;
	enum ev_kind kind;
} kind_names[] = {
    {"sync_req", EV_SYNC_REQ},	     {"sync_ack", EV_SYNC_ACK},
    {"sync_notify", EV_SYNC_NOTIFY}, {"sync_recv", EV_SYNC_RECV},
    {"msg_send", EV_MSG_SEND},	     {"msg_recv", EV_MSG_RECV},
};

static enum ev_kind kind_of_name(const char *name)
{
	size_t i;

	name = ht_ctf_event_short_name(name);
	for (i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++) {
		if (!strcmp(name, kind_names[i].name)) {
			return kind_names[i].kind;
		}
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

static int class_kind(struct ht_capture_reader *cap,
		      const struct ht_ctf_event_class *cls, enum ev_kind *kind)
{
	size_t i;

	if (2 * (cap->kinds_len + 1) > cap->kinds_cap) {
		size_t n = cap->kinds_cap ? 2 * cap->kinds_cap : 64;
		struct ht__cls_kind *k = calloc(n, sizeof(*k));

		if (!k) {
			return HT_ENOMEM;
		}
		for (i = 0; i < cap->kinds_cap; i++) {
			if (cap->kinds[i].cls) {
				size_t h =
				    hash_ptr(cap->kinds[i].cls) & (n - 1);

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
/* Halves and their join                                               */

static int push_half(struct ht_capture_reader *cap, struct halves *h,
		     uint64_t num, uint64_t cycles, size_t peer)
{
	/* (tested here first: the call only when the array is full) */
	if (h->n == h->cap && ht_array_reserve((void **)&h->v, &h->cap,
					       h->n + 1, sizeof(*h->v))) {
		return HT_ENOMEM;
	}
	h->v[h->n].num = num;
	h->v[h->n].cycles = cycles;
	h->v[h->n].peer = (uint32_t)peer;
	/* (the event being taken: its stream in its core's trace) */
	h->v[h->n].offset_bits = cap->cur_ev->offset_bits;
	h->v[h->n].stream =
	    (uint32_t)(cap->cur_ev->stream->index -
		       cap->cores[cap->cur_core].trace->streams[0]->index) &
	    0x7fffffffu;
	h->v[h->n].bad = cap->cur_ev->bad;
	h->n++;
	return 0;
}

/* Pushes a half for the event being scanned, remembered on its stream
 * (cap->cur_time) in case its timestamp turns out to be a spike. */
static int push_event_half(struct ht_capture_reader *cap, struct halves *h,
			   uint64_t num, uint64_t cycles, size_t peer)
{
	int ret = push_half(cap, h, num, cycles, peer);

	if (!ret && cap->cur_time) {
		cap->cur_time->last_half = h;
		cap->cur_time->last_half_i = h->n - 1;
	}
	return ret;
}

/* One half of a handshake message from @from to @to. */
static int sync_half(struct ht_capture_reader *cap, uint8_t chan, size_t from,
		     size_t to, uint64_t seq, bool is_send, uint64_t cycles)
{
	struct ht__side *sd = &cap->sync[from * cap->nr_cores + to];

	sd->chan = chan;
	return push_event_half(cap, is_send ? &sd->send : &sd->recv, seq,
			       cycles, 0);
}

/* One half of application message @id sent by @from to @to. */
static int msg_half(struct ht_capture_reader *cap, size_t from, size_t to,
		    uint64_t id, bool is_send, uint64_t cycles)
{
	struct ht__side *sd = &cap->msg[from];

	return push_event_half(cap, is_send ? &sd->send : &sd->recv, id, cycles,
			       to);
}

static int add_pair(struct ht_capture_reader *cap, size_t from, size_t to,
		    uint64_t send, const struct half *recv, uint8_t chan)
{
	struct ht_capture_pair *p;
	struct ht_capture_link **lp = &cap->links[from * cap->nr_cores + to];
	struct link *lk = (struct link *)*lp;
	struct ht_capture_link *l;

	if (!lk) {
		lk = calloc(1, sizeof(*lk));
		if (!lk) {
			return HT_ENOMEM;
		}
		lk->pub.from = from;
		lk->pub.to = to;
		*lp = &lk->pub;
	}
	l = &lk->pub;
	if (l->nr_pairs == lk->cap_pairs &&
	    ht_array_reserve((void **)&l->pairs, &lk->cap_pairs,
			     l->nr_pairs + 1, sizeof(*l->pairs))) {
		return HT_ENOMEM;
	}
	p = &l->pairs[l->nr_pairs++];
	memset(p, 0, sizeof(*p));
	p->send = send;
	p->recv = recv->cycles;
	p->num = recv->num;
	p->chan = chan;
	p->recv_stream = recv->stream;
	p->recv_offset_bits = recv->offset_bits;
	if (chan == CHAN_MSG) {
		l->nr_msg++;
	} else {
		l->nr_sync++;
	}
	return 0;
}

/*
 * Counts @problem on @core for event @msg and notes it: the file, the
 * position, the core and the event, then the printf-formatted rest
 * (" (event ignored)" is added: such an event is not used).
 */
static void event_problem(struct ht_capture_reader *cap, size_t core,
			  const struct ht__scan_ev *e,
			  enum ht_capture_problem problem, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* A note of the scan, on the event at hand (cap->key_*). */
static void scan_note(struct ht_capture_reader *cap, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void scan_note(struct ht_capture_reader *cap, const char *fmt, ...)
{
	int64_t ns = 0;
	uint32_t stream = 0;
	char buf[1024];
	va_list ap;

	if (cap->keyed) {
		ns = cap->key_has ? ht_ctf_stream_cycles_to_ns(cap->key_stream,
							       cap->key_cycles)
				  : INT64_MIN;
		stream = cap->key_stream->index;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ht__capture_reader_note_at(
	    cap, ns, stream, cap->keyed ? cap->key_offset_bits : 0, "%s", buf);
}

static void event_problem(struct ht_capture_reader *cap, size_t core,
			  const struct ht__scan_ev *e,
			  enum ht_capture_problem problem, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	cap->cores[core].problems[problem]++;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	scan_note(cap,
		  "file=%s offset=%" PRIu64 ": core %s: %s%s (event "
		  "ignored)",
		  e->stream->path, e->offset_bits / 8, cap->cores[core].name,
		  e->cls->name, what);
}

/*
 * Sequence numbers of one kind of event from one core towards one peer
 * must grow: a repeated one is a duplicate, a smaller one inconsistent.
 * Returns true when the event may be used.
 */
static bool seq_ok(struct ht_capture_reader *cap, size_t core,
		   enum ev_kind kind, size_t peer, uint64_t seq,
		   const struct ht__scan_ev *e)
{
	struct ht__seq_state *s =
	    &cap->seqs[(core * 6 + (kind - 1)) * cap->nr_cores + peer];
	enum ht_capture_problem p;

	if (!s->seen || seq > s->last) {
		s->seen = true;
		s->last = seq;
		return true;
	}
	p = seq == s->last ? HT_CAPTURE_DUP_SEQ : HT_CAPTURE_BAD_SEQ;
	event_problem(cap, core, e, p, " %s %" PRIu64 " after %" PRIu64,
		      seq == s->last ? "repeats sequence number"
				     : "has a sequence number going backwards:",
		      seq, s->last);
	return false;
}

bool ht__capture_payload_uint(const struct ht_ctf_msg *msg, const char *name,
			      uint64_t *v)
{
	const struct ht_ctf_field *p =
	    msg->event->scope[HT_CTF_SCOPE_EVENT_PAYLOAD];
	const struct ht_ctf_field *f;
	char alt[32];

	if (!p) {
		return false;
	}
	f = ht_ctf_field_member(p, name);
	if (!f) {
		/* TSDL may write a member with one leading underscore */
		snprintf(alt, sizeof(alt), "_%s", name);
		f = ht_ctf_field_member(p, alt);
	}
	if (!f ||
	    (f->type->kind != HT_CTF_INT && f->type->kind != HT_CTF_ENUM)) {
		return false;
	}
	*v = f->v.u;
	return true;
}

/* The unsigned integer member @name of @e's payload, decoded or read
 * from its record. */
/* The name of the member naming the peer of an event of kind @k. */
static const char *peer_field(enum ev_kind k)
{
	switch (k) {
	case EV_SYNC_REQ:
	case EV_SYNC_RECV:
		return "slave";
	case EV_MSG_SEND:
		return "dst";
	case EV_MSG_RECV:
		return "src";
	default:
		return NULL;
	}
}

/* The name of the member numbering an event of kind @k. */
static const char *num_field(enum ev_kind k)
{
	return k == EV_MSG_SEND || k == EV_MSG_RECV ? "id" : "seq";
}

static bool ev_uint(const struct ht__scan_ev *e, const char *name, uint64_t *v)
{
	const char *peer = peer_field((enum ev_kind)e->kind);

	if (e->msg) {
		return ht__capture_payload_uint(e->msg, name, v);
	}
	if (peer && !strcmp(name, peer)) {
		*v = e->peer;
		return e->has_peer;
	}
	*v = e->num;
	return e->has_num;
}

static bool get_uint(struct ht_capture_reader *cap, size_t core,
		     const struct ht__scan_ev *e, const char *name, uint64_t *v)
{
	if (!ev_uint(e, name, v)) {
		event_problem(cap, core, e, HT_CAPTURE_BAD_FIELD,
			      " has no integer field '%s'", name);
		return false;
	}
	return true;
}

/* Core id @id, named by field @name of event @msg, has no trace: a
 * missing core, listed once. */
static void missing_id(struct ht_capture_reader *cap, size_t core,
		       const struct ht__scan_ev *e, const char *name,
		       uint64_t id)
{
	char who[48], why[256];
	size_t i;

	snprintf(who, sizeof(who), "core_id %" PRIu64, id);
	for (i = 0; i < cap->nr_missing; i++) {
		if (!strcmp(cap->missing[i].name, who)) {
			return;
		}
	}
	snprintf(why, sizeof(why),
		 "offset=%" PRIu64 ": core %s: %s names it (%s = %" PRIu64
		 ") and no trace of the capture has that core_id",
		 e->offset_bits / 8, cap->cores[core].name, e->cls->name, name,
		 id);
	if (ht__capture_missing_add(cap, who, e->stream->path, why)) {
		cap->missing_dropped++;
	}
}

/* An event of @core with a damaged timestamp @cycles at @offset_bits
 * of the stream @st: counted, noted, listed for the merge. */
static void bad_time(struct ht_capture_reader *cap, size_t core,
		     const struct ht_ctf_stream *st, uint64_t offset_bits,
		     uint64_t cycles, const char *why)
{
	struct ht_capture_core *c = &cap->cores[core];
	struct ht_capture_bad_time *b;

	c->problems[HT_CAPTURE_BAD_TIME]++;
	scan_note(cap,
		  "file=%s offset=%" PRIu64 ": core %s: "
		  "timestamp %" PRIu64 " cycles %s: a damaged "
		  "timestamp (the event is placed at its "
		  "predecessor's time, not used for the sync)",
		  st->path, offset_bits / 8, c->name, cycles, why);
	if (ht_array_reserve((void **)&c->bad_times, &c->cap_bad_times,
			     c->nr_bad_times + 1, sizeof(*c->bad_times))) {
		/* (counted all the same; the merge keeps its time) */
		return;
	}
	b = &c->bad_times[c->nr_bad_times++];
	b->offset_bits = offset_bits;
	b->stream = (uint32_t)(st->index - c->trace->streams[0]->index);
	b->pad = 0;
}

/*
 * The time order of stream @s (cap->cur_time) at its event at
 * @offset_bits stamped @t. A timestamp beyond 2^62 is damage; one
 * before the last good one is either a dip (before the last two good
 * ones: this event is damaged) or follows a spike (the last event was
 * stamped after both its neighbours: that one is damaged and its half,
 * if any, taken back; *@first, the first good time, moves when it was
 * that one). Returns false when this event's timestamp is damaged.
 */
static bool time_ok(struct ht_capture_reader *cap, size_t core,
		    const struct ht_ctf_stream *s, uint64_t offset_bits,
		    uint64_t t, uint64_t *first)
{
	struct ht__stream_time *st = cap->cur_time;
	char why[128];

	if (t < BAD_TIME_LIMIT && (!st->nr || t >= st->last)) {
		/* (in order: the common case) */
		st->prev = st->last;
		st->last = t;
		st->nr += st->nr < 2;
		st->last_offset_bits = offset_bits;
		st->last_half = NULL;
		st->last_ev = 0;
		return true;
	}
	/* (the notes of a damaged timestamp: at the time the stream had
	 * reached, that of a spike: at the time of the event after it) */
	cap->key_has = st->nr > 0;
	cap->key_cycles = st->last;
	cap->key_offset_bits = offset_bits;
	if (t >= BAD_TIME_LIMIT) {
		bad_time(cap, core, s, offset_bits, t, "is beyond 2^62");
		return false;
	}
	/* (out of order: st->nr > 0 and t < st->last, or the common case
	 * above would have taken it) */
	if (st->nr == 2 && t < st->prev) {
		snprintf(why, sizeof(why),
			 "is before the two events before it (%" PRIu64
			 " and %" PRIu64 ")",
			 st->prev, st->last);
		bad_time(cap, core, s, offset_bits, t, why);
		return false;
	}
	snprintf(why, sizeof(why),
		 "is after the event that follows it (%" PRIu64 ")", t);
	cap->key_has = true;
	cap->key_cycles = t;
	bad_time(cap, core, s, st->last_offset_bits, st->last, why);
	if (st->last_half) {
		st->last_half->v[st->last_half_i].bad = 1;
	}
	if (st->last_ev) {
		cap->evs[st->last_ev - 1].bad = true;
		cap->evs[st->last_ev - 1].key_cycles = t;
	}
	if (*first == st->last) {
		*first = t;
	}
	st->last = t;
	st->last_offset_bits = offset_bits;
	st->last_half = NULL;
	st->last_ev = 0;
	return true;
}

/* The core named by the id in field @name, or -1 (noted). */
static long peer_of(struct ht_capture_reader *cap, size_t core,
		    const struct ht__scan_ev *e, const char *name)
{
	uint64_t id;
	long peer;

	if (!get_uint(cap, core, e, name, &id)) {
		return -1;
	}
	peer = core_by_id(cap, id);
	if (peer < 0) {
		missing_id(cap, core, e, name, id);
	}
	if (peer < 0 || (size_t)peer == core) {
		event_problem(cap, core, e, HT_CAPTURE_BAD_FIELD,
			      ": %s = %" PRIu64 " %s", name, id,
			      peer < 0 ? "names no core of the capture (a core "
					 "is missing?)"
				       : "is the core itself");
		return -1;
	}
	return peer;
}

/* The master of slave @core for its handshake events, or -1. */
static long master_of(struct ht_capture_reader *cap, size_t core,
		      const struct ht__scan_ev *e)
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
		event_problem(cap, core, e, HT_CAPTURE_BAD_FIELD,
			      " but the core has no core_master and the "
			      "capture %s",
			      m == -1 ? "has no master core"
				      : "has several masters");
		return -1;
	}
	cap->cores[core].master = m;
	return m;
}

/* A handshake or message event with a good time, taken as a half. */
static int on_message_event(struct ht_capture_reader *cap, size_t core,
			    const struct ht__scan_ev *e)
{
	struct ht_capture_core *c = &cap->cores[core];
	enum ev_kind kind = (enum ev_kind)e->kind;
	uint64_t seq, id;
	long peer;

	switch (kind) {
	case EV_SYNC_REQ:
	case EV_SYNC_RECV:
		c->nr_sync_events++;
		peer = peer_of(cap, core, e, "slave");
		if (peer < 0 || !get_uint(cap, core, e, "seq", &seq) ||
		    !seq_ok(cap, core, kind, (size_t)peer, seq, e)) {
			return 0;
		}
		if (kind == EV_SYNC_REQ) {
			return sync_half(cap, CHAN_DOWN, core, (size_t)peer,
					 seq, true, e->cycles);
		}
		return sync_half(cap, CHAN_UP, (size_t)peer, core, seq, false,
				 e->cycles);
	case EV_SYNC_ACK:
	case EV_SYNC_NOTIFY:
		c->nr_sync_events++;
		peer = master_of(cap, core, e);
		if (peer < 0 || !get_uint(cap, core, e, "seq", &seq) ||
		    !seq_ok(cap, core, kind, (size_t)peer, seq, e)) {
			return 0;
		}
		if (kind == EV_SYNC_ACK) {
			return sync_half(cap, CHAN_DOWN, (size_t)peer, core,
					 seq, false, e->cycles);
		}
		return sync_half(cap, CHAN_UP, core, (size_t)peer, seq, true,
				 e->cycles);
	case EV_MSG_SEND:
		peer = peer_of(cap, core, e, "dst");
		/* ids are unique per sender, not ordered: duplicates
		 * are found at the join */
		if (peer < 0 || !get_uint(cap, core, e, "id", &id)) {
			return 0;
		}
		return msg_half(cap, core, (size_t)peer, id, true, e->cycles);
	case EV_MSG_RECV:
		peer = peer_of(cap, core, e, "src");
		if (peer < 0 || !get_uint(cap, core, e, "id", &id)) {
			return 0;
		}
		/* receives from one sender may come in any order */
		return msg_half(cap, (size_t)peer, core, id, false, e->cycles);
	default:
		return 0;
	}
}

/* An event of the trace set (the decoding path). */
static int on_event(struct ht_capture_reader *cap, size_t core,
		    const struct ht_ctf_msg *msg)
{
	struct ht_capture_core *c = &cap->cores[core];
	struct ht__scan_ev e;
	enum ev_kind kind;
	int ret;

	c->nr_events++;
	if (msg->has_time &&
	    !time_ok(cap, core, msg->stream, msg->event->offset_bits,
		     msg->cycles, &c->first_cycles)) {
		return 0;
	}
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
	memset(&e, 0, sizeof(e));
	e.stream = msg->stream;
	e.cls = msg->event->cls;
	e.offset_bits = msg->event->offset_bits;
	e.cycles = msg->cycles;
	e.msg = msg;
	e.kind = (uint8_t)kind;
	cap->cur_ev = &e;
	ret = on_message_event(cap, core, &e);
	cap->cur_ev = NULL;
	return ret;
}

static int cmp_link(const void *a, const void *b)
{
	const struct ht_capture_link *x =
	    *(const struct ht_capture_link *const *)a;
	const struct ht_capture_link *y =
	    *(const struct ht_capture_link *const *)b;

	if (x->from != y->from) {
		return x->from < y->from ? -1 : 1;
	}
	return x->to < y->to ? -1 : x->to > y->to;
}

/* Takes out the halves whose timestamp turned out damaged. */
static void drop_bad(struct halves *h)
{
	size_t i, n = 0;

	for (i = 0; i < h->n; i++) {
		if (!h->v[i].bad) {
			h->v[n++] = h->v[i];
		}
	}
	h->n = n;
}

/* Joins the handshake halves of link @from -> @to (both sorted). */
static int join_sync(struct ht_capture_reader *cap, size_t from, size_t to)
{
	struct ht__side *sd = &cap->sync[from * cap->nr_cores + to];
	const struct half *s, *r;
	size_t i = 0, j = 0;
	bool down = sd->chan == CHAN_DOWN;
	int ret;

	drop_bad(&sd->send);
	drop_bad(&sd->recv);
	s = sd->send.v;
	r = sd->recv.v;

	while (i < sd->send.n || j < sd->recv.n) {
		if (j == sd->recv.n ||
		    (i < sd->send.n && s[i].num < r[j].num)) {
			cap->cores[from]
			    .problems[down ? HT_CAPTURE_UNMATCHED_REQ
					   : HT_CAPTURE_UNMATCHED_NOTIFY]++;
			i++;
		} else if (i == sd->send.n || r[j].num < s[i].num) {
			cap->cores[to]
			    .problems[down ? HT_CAPTURE_UNMATCHED_ACK
					   : HT_CAPTURE_UNMATCHED_RECV]++;
			j++;
		} else {
			ret = add_pair(cap, from, to, s[i].cycles, &r[j],
				       sd->chan);
			if (ret) {
				return ret;
			}
			i++;
			j++;
		}
	}
	return 0;
}

static int cmp_half(const void *a, const void *b)
{
	const struct half *x = a, *y = b;

	if (x->num != y->num) {
		return x->num < y->num ? -1 : 1;
	}
	return x->cycles < y->cycles ? -1 : x->cycles > y->cycles;
}

/* Drops every half whose number appears more than once; counts them. */
static size_t drop_dups(struct ht_capture_reader *cap, struct halves *h,
			size_t sender, bool is_send)
{
	size_t i, n = 0, k;

	for (i = 0; i < h->n; i = k) {
		for (k = i + 1; k < h->n && h->v[k].num == h->v[i].num; k++) {
		}
		if (k - i == 1) {
			h->v[n++] = h->v[i];
			continue;
		}
		/* which copy belongs to the other half is unknown */
		cap->cores[is_send ? sender : h->v[i].peer]
		    .problems[HT_CAPTURE_DUP_SEQ] += k - i;
		ht__capture_reader_note(
		    cap,
		    "core %s: message id %" PRIu64 " from %s %s %zu times "
		    "(not used)",
		    cap->cores[is_send ? sender : h->v[i].peer].name,
		    h->v[i].num, cap->cores[sender].name,
		    is_send ? "sent" : "received", k - i);
	}
	return n;
}

/* Joins the application messages sent by @from. */
static int join_msg(struct ht_capture_reader *cap, size_t from)
{
	struct ht__side *sd = &cap->msg[from];
	const struct half *s, *r;
	size_t i = 0, j = 0;
	int ret;

	drop_bad(&sd->send);
	drop_bad(&sd->recv);
	/* (qsort must not get the NULL of an empty vector) */
	if (sd->send.n > 1) {
		qsort(sd->send.v, sd->send.n, sizeof(struct half), cmp_half);
	}
	if (sd->recv.n > 1) {
		qsort(sd->recv.v, sd->recv.n, sizeof(struct half), cmp_half);
	}
	sd->send.n = drop_dups(cap, &sd->send, from, true);
	sd->recv.n = drop_dups(cap, &sd->recv, from, false);
	s = sd->send.v;
	r = sd->recv.v;
	while (i < sd->send.n || j < sd->recv.n) {
		if (j == sd->recv.n ||
		    (i < sd->send.n && s[i].num < r[j].num)) {
			cap->cores[from].problems[HT_CAPTURE_UNMATCHED_SEND]++;
			i++;
		} else if (i == sd->send.n || r[j].num < s[i].num) {
			cap->cores[r[j].peer]
			    .problems[HT_CAPTURE_UNMATCHED_MRECV]++;
			j++;
		} else if (s[i].peer != r[j].peer) {
			cap->cores[r[j].peer].problems[HT_CAPTURE_BAD_FIELD]++;
			ht__capture_reader_note(
			    cap,
			    "core %s: message %" PRIu64 " from %s: sent to "
			    "core %s, received by core %s (not used)",
			    cap->cores[r[j].peer].name, s[i].num,
			    cap->cores[from].name, cap->cores[s[i].peer].name,
			    cap->cores[r[j].peer].name);
			i++;
			j++;
		} else {
			ret = add_pair(cap, from, s[i].peer, s[i].cycles, &r[j],
				       CHAN_MSG);
			if (ret) {
				return ret;
			}
			i++;
			j++;
		}
	}
	return 0;
}

static int join_all(struct ht_capture_reader *cap)
{
	size_t a, b;
	int ret;

	for (a = 0; a < cap->nr_cores; a++) {
		for (b = 0; b < cap->nr_cores; b++) {
			ret = join_sync(cap, a, b);
			if (ret) {
				return ret;
			}
		}
	}
	for (a = 0; a < cap->nr_cores; a++) {
		ret = join_msg(cap, a);
		if (ret) {
			return ret;
		}
	}
	return 0;
}

/* A damaged stream: noted, and counted on the core whose trace the
 * reader's message @e names. */
static void on_damage(struct ht_capture_reader *cap, const char *e)
{
	size_t i;

	scan_note(cap, "damaged stream: %s", e);
	for (i = 0; i < cap->nr_cores; i++) {
		const char *p = cap->cores[i].trace->path;
		size_t n = strlen(p);

		if (strstr(e, p) && e[strstr(e, p) - e + n] == '/') {
			cap->cores[i].problems[HT_CAPTURE_DAMAGED]++;
			break;
		}
	}
}

/* Every message of the set, once, to the core of its stream (the
 * decoding path). */
static int read_events(struct ht_capture_reader *cap)
{
	struct ht_ctf_msg msg;
	int ret;

	for (;;) {
		long core;

		ret = ht_ctf_set_next(cap->set, &msg);
		if (ret == HT_EEOF) {
			return 0;
		}
		if (ret == HT_ENOMEM) {
			return ret;
		}
		if (ret) {
			/* the reader goes on */
			on_damage(cap, ht_ctf_set_last_error(cap->set));
			continue;
		}
		core = msg.stream->index < cap->nr_streams
			   ? cap->core_of_stream[msg.stream->index]
			   : -1;
		if (core < 0) {
			continue;
		}
		cap->cur_time = &cap->times[msg.stream->index];
		cap->cur_core = (size_t)core;
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
}

/* ------------------------------------------------------------------ */
/* The per-stream path                                                 */

/* One stream being scanned. */
struct rscan {
	struct ht_capture_reader *cap;
	size_t core;
	const struct ht_ctf_stream *stream;
	uint32_t stream_in_core;
	const uint8_t *bytes;
	/* the current packet's start (bits) */
	uint64_t base;
	const struct ht_ctf_stream_class *sc;
	struct ht__merge_header hdr;
	bool hdr_ok;
	/* the last class met and its kind */
	const struct ht_ctf_event_class *cls;
	enum ev_kind kind;
	/* the stream's good times: the first and the last */
	bool has_time;
	uint64_t first, last;
};

static int raw_packet(void *arg, const struct ht_ctf_stream *stream,
		      const struct ht_ctf_packet *pkt, uint64_t discarded,
		      uint64_t lost)
{
	struct rscan *r = arg;
	struct ht_capture_core *c = &r->cap->cores[r->core];

	r->base = pkt->offset_bytes * 8;
	if (r->sc != stream->stream_class) {
		r->sc = stream->stream_class;
		r->hdr_ok =
		    ht__merge_header_shape(r->sc->event_header, &r->hdr);
	}
	c->discarded_events += discarded;
	c->lost_packets += lost;
	return 0;
}

/* A handshake or message record of @r: kept in cap->evs. */
static int keep_ev(struct rscan *r, const struct ht_ctf_event_class *cls,
		   uint64_t cycles, uint64_t start, uint64_t end)
{
	struct ht_capture_reader *cap = r->cap;
	struct ht__capture_raw raw;
	const char *peer = peer_field(r->kind);
	struct ht__scan_ev *e;

	if (ht_array_reserve((void **)&cap->evs, &cap->cap_evs, cap->nr_evs + 1,
			     sizeof(*cap->evs))) {
		return HT_ENOMEM;
	}
	e = &cap->evs[cap->nr_evs++];
	memset(e, 0, sizeof(*e));
	e->stream = r->stream;
	e->cls = cls;
	e->offset_bits = start;
	e->cycles = cycles;
	/* the fields, now that the bytes are mapped (raw_ok() took the
	 * header of every class with such events) */
	raw.bytes = r->bytes;
	raw.base = r->base;
	raw.body =
	    r->hdr_ok ? ht__merge_header_body(&r->hdr, r->bytes, r->base, start)
		      : UINT64_MAX;
	raw.end = end;
	raw.scope[0] = r->sc->event_context;
	raw.scope[1] = cls->context;
	raw.scope[2] = cls->payload;
	if (raw.body <= end) {
		e->has_peer =
		    peer && ht__capture_raw_uint(&raw, peer, &e->peer);
		e->has_num =
		    ht__capture_raw_uint(&raw, num_field(r->kind), &e->num);
	}
	e->stream_in_core = r->stream_in_core;
	e->kind = (uint8_t)r->kind;
	e->key_cycles = cycles;
	cap->cur_time->last_ev = cap->nr_evs;
	return 0;
}

static inline int raw_record(struct rscan *r,
			     const struct ht_ctf_event_class *cls,
			     uint64_t cycles, uint64_t start, uint64_t end)
{
	struct ht_capture_reader *cap = r->cap;
	struct ht__stream_time *st = cap->cur_time;
	int ret;

	if (!r->sc->default_clock) {
		/* (no time: no half) */
		return 0;
	}
	if (cycles < BAD_TIME_LIMIT && st->nr == 2 && cycles >= st->last) {
		/* time_ok()'s common case, here */
		st->prev = st->last;
		st->last = cycles;
		st->last_offset_bits = start;
		st->last_half = NULL;
		st->last_ev = 0;
	} else if (!time_ok(cap, r->core, r->stream, start, cycles,
			    &r->first)) {
		return 0;
	}
	if (!r->has_time) {
		r->has_time = true;
		r->first = cycles;
	}
	r->last = cycles;
	if (cls != r->cls) {
		ret = class_kind(cap, cls, &r->kind);
		if (ret) {
			return ret;
		}
		r->cls = cls;
	}
	if (r->kind == EV_OTHER) {
		return 0;
	}
	return keep_ev(r, cls, cycles, start, end);
}

/*
 * raw_record() of the records @rec[i...] of time_ok()'s common case
 * (times in order, below BAD_TIME_LIMIT, two times known) and of the
 * last class met when it is of no interest (EV_OTHER), in one step:
 * only the last two times and the last position are kept. Returns
 * where such records end.
 */
static size_t other_run(struct rscan *r, const struct ht_ctf_scan_rec *rec,
			size_t i, size_t n)
{
	struct ht__stream_time *st = r->cap->cur_time;
	uint64_t last = st->last;
	size_t j;

	if (!r->sc->default_clock || st->nr != 2 || r->kind != EV_OTHER ||
	    !r->cls || !r->has_time) {
		return i;
	}
	for (j = i; j < n && rec[j].cls == r->cls &&
		    rec[j].cycles < BAD_TIME_LIMIT && rec[j].cycles >= last;
	     j++) {
		last = rec[j].cycles;
	}
	if (j == i) {
		return i;
	}
	st->prev = j - i >= 2 ? rec[j - 2].cycles : st->last;
	st->last = last;
	st->last_offset_bits = rec[j - 1].start_bits;
	st->last_half = NULL;
	st->last_ev = 0;
	r->last = last;
	return j;
}

/* The records of a batch (ht_ctf_scan_ops.records_at). */
static int raw_records(void *arg, const struct ht_ctf_scan_rec *rec, size_t n)
{
	struct rscan *r = arg;
	size_t i;
	int ret;

	r->cap->cores[r->core].nr_events += n;
	for (i = 0; i < n;) {
		i = other_run(r, rec, i, n);
		if (i == n) {
			break;
		}
		ret = raw_record(r, rec[i].cls, rec[i].cycles,
				 rec[i].start_bits, rec[i].end_bits);
		if (ret) {
			return ret;
		}
		i++;
	}
	return 0;
}

/* Scans stream @k of @core into the core's counts and cap->evs. */
static int scan_stream(struct ht_capture_reader *cap, size_t core, size_t k)
{
	struct ht_capture_core *c = &cap->cores[core];
	struct ht_ctf_scan_ops ops = {0};
	struct rscan r;
	uint64_t size;
	int ret;

	memset(&r, 0, sizeof(r));
	r.cap = cap;
	r.core = core;
	r.stream = c->trace->streams[k];
	r.stream_in_core = (uint32_t)k;
	r.bytes = ht_ctf_stream_raw_bytes(r.stream, &size);
	ops.packet = raw_packet;
	ops.records_at = raw_records;
	ops.arg = &r;
	cap->cur_time = &cap->times[r.stream->index];
	cap->key_stream = r.stream;
	cap->key_has = false;
	while ((ret = ht_ctf_stream_scan(cap->set, r.stream, &ops)) != 0) {
		if (ret == HT_ENOMEM) {
			return ret;
		}
		/* damage: noted at the time and position the stream had
		 * reached, the scan goes on at the next packet */
		cap->key_has = cap->cur_time->nr > 0;
		cap->key_cycles = cap->cur_time->last;
		cap->key_offset_bits = ht_ctf_stream_raw_pos(r.stream);
		on_damage(cap, ht_ctf_set_last_error(cap->set));
	}
	cap->cur_time = NULL;
	if (r.has_time) {
		if (!c->has_time) {
			c->has_time = true;
			c->first_cycles = r.first;
			c->last_cycles = r.last;
		} else {
			c->first_cycles = r.first < c->first_cycles
					      ? r.first
					      : c->first_cycles;
			c->last_cycles =
			    r.last > c->last_cycles ? r.last : c->last_cycles;
		}
	}
	return 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ht__scan_ev *x = a, *y = b;

	if (x->cycles != y->cycles) {
		return x->cycles < y->cycles ? -1 : 1;
	}
	if (x->stream_in_core != y->stream_in_core) {
		return x->stream_in_core < y->stream_in_core ? -1 : 1;
	}
	return (x->offset_bits > y->offset_bits) -
	       (x->offset_bits < y->offset_bits);
}

/* The streams of @core, then its handshake and message events in time
 * order (over its streams: one clock). */
static int scan_core(struct ht_capture_reader *cap, size_t core)
{
	const struct ht_ctf_trace *t = cap->cores[core].trace;
	size_t k;
	int ret;

	cap->nr_evs = 0;
	for (k = 0; k < t->nr_streams; k++) {
		ret = scan_stream(cap, core, k);
		if (ret) {
			return ret;
		}
	}
	if (t->nr_streams > 1 && cap->nr_evs > 1) {
		qsort(cap->evs, cap->nr_evs, sizeof(*cap->evs), cmp_ev);
	}
	cap->cur_core = core;
	for (k = 0; k < cap->nr_evs; k++) {
		const struct ht__scan_ev *e = &cap->evs[k];

		cap->key_stream = e->stream;
		cap->key_cycles = e->key_cycles;
		cap->key_offset_bits = e->offset_bits;
		cap->key_has = true;
		cap->cur_ev = e;
		ret = on_message_event(cap, core, e);
		cap->cur_ev = NULL;
		if (ret) {
			return ret;
		}
	}
	return 0;
}

/* Whether the stream classes of @t with handshake or message events
 * have their fields read from the records' bytes. */
static bool raw_ok_trace(const struct ht_ctf_trace *t)
{
	struct ht__merge_header h;
	size_t i, j;

	for (i = 0; i < t->nr_stream_classes; i++) {
		const struct ht_ctf_stream_class *sc = t->stream_classes[i];
		bool any = false;

		for (j = 0; j < sc->nr_event_classes; j++) {
			const struct ht_ctf_event_class *ec =
			    sc->event_classes[j];

			if (kind_of_name(ec->name) == EV_OTHER) {
				continue;
			}
			any = true;
			if (!ht__capture_walkable(ec->context) ||
			    !ht__capture_walkable(ec->payload)) {
				return false;
			}
		}
		if (any && (!ht__merge_header_shape(sc->event_header, &h) ||
			    !ht__capture_walkable(sc->event_context))) {
			return false;
		}
	}
	return true;
}

/* Whether the per-stream path reads @cap (HETRACE_SCAN_DECODE=1 in the
 * environment: never, to compare the two). */
static bool raw_ok(const struct ht_capture_reader *cap)
{
	const char *env = getenv("HETRACE_SCAN_DECODE");
	size_t i;

	if (env && !strcmp(env, "1")) {
		return false;
	}
	for (i = 0; i < cap->nr_cores; i++) {
		if (!raw_ok_trace(cap->cores[i].trace)) {
			return false;
		}
	}
	return true;
}

/* Every core, stream by stream. */
static int scan_cores(struct ht_capture_reader *cap)
{
	size_t i;
	int ret;

	for (i = 0; i < cap->nr_streams; i++) {
		cap->times[i].last_ev = 0;
	}
	for (i = 0; i < cap->nr_cores; i++) {
		ret = scan_core(cap, i);
		if (ret) {
			return ret;
		}
	}
	return 0;
}

/* The links with messages, in (from, to) order. */
static int list_links(struct ht_capture_reader *cap)
{
	size_t i;

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

static int cmp_bad_time(const void *a, const void *b)
{
	const struct ht_capture_bad_time *x = a, *y = b;

	if (x->stream != y->stream) {
		return x->stream < y->stream ? -1 : 1;
	}
	return (x->offset_bits > y->offset_bits) -
	       (x->offset_bits < y->offset_bits);
}

int ht_capture_reader_scan(struct ht_capture_reader *cap)
{
	size_t i;
	int ret;

	cap->keyed = raw_ok(cap);
	ret = cap->keyed ? scan_cores(cap) : read_events(cap);
	cap->cur_time = NULL;
	ht__capture_reader_notes_flush(cap);
	if (ret) {
		return ret;
	}
	for (i = 0; i < cap->nr_cores; i++) {
		struct ht_capture_core *c = &cap->cores[i];

		if (c->nr_bad_times > 1) {
			qsort(c->bad_times, c->nr_bad_times,
			      sizeof(*c->bad_times), cmp_bad_time);
		}
	}
	ret = join_all(cap);
	if (ret) {
		return ret;
	}
	return list_links(cap);
}

const struct ht_capture_link *
ht_capture_reader_link(const struct ht_capture_reader *cap, size_t from,
		       size_t to)
{
	if (from >= cap->nr_cores || to >= cap->nr_cores) {
		return NULL;
	}
	return cap->links[from * cap->nr_cores + to];
}

size_t ht_capture_reader_nr_links(const struct ht_capture_reader *cap)
{
	return cap->nr_used;
}

const struct ht_capture_link *
ht_capture_reader_link_at(const struct ht_capture_reader *cap, size_t i)
{
	return i < cap->nr_used ? cap->used[i] : NULL;
}
