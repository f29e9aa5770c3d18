/* SPDX-License-Identifier: MIT */
/*
 * The scan of a capture (capture-reader.h): every event read once, the
 * handshake and application events kept as halves of messages, checked
 * for order, and joined into pairs per link at the end.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture-reader-internal.h"
#include "common/buf.h"
#include "common/error.h"

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
	/* the last event: its position, and its half if it made one */
	uint64_t last_offset_bits;
	struct halves *last_half;
	size_t last_half_i;
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
	/* (the event being scanned: its stream in its core's trace) */
	h->v[h->n].offset_bits = cap->cur_msg->event->offset_bits;
	h->v[h->n].stream =
	    (uint32_t)(cap->cur_msg->stream->index -
		       cap->cores[cap->cur_core].trace->streams[0]->index) &
	    0x7fffffffu;
	h->v[h->n].bad = 0;
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
			  const struct ht_ctf_msg *msg,
			  enum ht_capture_problem problem, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void event_problem(struct ht_capture_reader *cap, size_t core,
			  const struct ht_ctf_msg *msg,
			  enum ht_capture_problem problem, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	cap->cores[core].problems[problem]++;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ht__capture_reader_note(
	    cap,
	    "file=%s offset=%" PRIu64 ": core %s: %s%s (event "
	    "ignored)",
	    msg->stream->path, msg->event->offset_bits / 8,
	    cap->cores[core].name, msg->event->cls->name, what);
}

/*
 * Sequence numbers of one kind of event from one core towards one peer
 * must grow: a repeated one is a duplicate, a smaller one inconsistent.
 * Returns true when the event may be used.
 */
static bool seq_ok(struct ht_capture_reader *cap, size_t core,
		   enum ev_kind kind, size_t peer, uint64_t seq,
		   const struct ht_ctf_msg *msg)
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
	event_problem(cap, core, msg, p, " %s %" PRIu64 " after %" PRIu64,
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

static bool get_uint(struct ht_capture_reader *cap, size_t core,
		     const struct ht_ctf_msg *msg, const char *name,
		     uint64_t *v)
{
	if (!ht__capture_payload_uint(msg, name, v)) {
		event_problem(cap, core, msg, HT_CAPTURE_BAD_FIELD,
			      " has no integer field '%s'", name);
		return false;
	}
	return true;
}

/* Core id @id, named by field @name of event @msg, has no trace: a
 * missing core, listed once. */
static void missing_id(struct ht_capture_reader *cap, size_t core,
		       const struct ht_ctf_msg *msg, const char *name,
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
		 msg->event->offset_bits / 8, cap->cores[core].name,
		 msg->event->cls->name, name, id);
	if (ht__capture_missing_add(cap, who, msg->stream->path, why)) {
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
	ht__capture_reader_note(cap,
				"file=%s offset=%" PRIu64 ": core %s: "
				"timestamp %" PRIu64 " cycles %s: a damaged "
				"timestamp (the event is placed at its "
				"predecessor's time, not used for the sync)",
				st->path, offset_bits / 8, c->name, cycles,
				why);
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
 * The time order of @msg's stream (cap->cur_time). A timestamp beyond
 * 2^62 is damage; one before the last good one is either a dip (before
 * the last two good ones: this event is damaged) or follows a spike
 * (the last event was stamped after both its neighbours: that one is
 * damaged and its half, if any, taken back). Returns false when this
 * event's timestamp is damaged.
 */
static bool time_ok(struct ht_capture_reader *cap, size_t core,
		    const struct ht_ctf_msg *msg)
{
	struct ht__stream_time *st = cap->cur_time;
	struct ht_capture_core *c = &cap->cores[core];
	uint64_t t = msg->cycles;
	char why[128];

	if (t >= BAD_TIME_LIMIT) {
		bad_time(cap, core, msg->stream, msg->event->offset_bits, t,
			 "is beyond 2^62");
		return false;
	}
	if (st->nr && t < st->last) {
		if (st->nr == 2 && t < st->prev) {
			snprintf(why, sizeof(why),
				 "is before the two events before it (%" PRIu64
				 " and %" PRIu64 ")",
				 st->prev, st->last);
			bad_time(cap, core, msg->stream,
				 msg->event->offset_bits, t, why);
			return false;
		}
		snprintf(why, sizeof(why),
			 "is after the event that follows it (%" PRIu64 ")", t);
		bad_time(cap, core, msg->stream, st->last_offset_bits, st->last,
			 why);
		if (st->last_half) {
			st->last_half->v[st->last_half_i].bad = 1;
		}
		if (c->first_cycles == st->last) {
			c->first_cycles = t;
		}
		st->last = t;
	} else {
		st->prev = st->last;
		st->last = t;
		st->nr += st->nr < 2;
	}
	st->last_offset_bits = msg->event->offset_bits;
	st->last_half = NULL;
	return true;
}

/* The core named by the id in field @name, or -1 (noted). */
static long peer_of(struct ht_capture_reader *cap, size_t core,
		    const struct ht_ctf_msg *msg, const char *name)
{
	uint64_t id;
	long peer;

	if (!get_uint(cap, core, msg, name, &id)) {
		return -1;
	}
	peer = core_by_id(cap, id);
	if (peer < 0) {
		missing_id(cap, core, msg, name, id);
	}
	if (peer < 0 || (size_t)peer == core) {
		event_problem(cap, core, msg, HT_CAPTURE_BAD_FIELD,
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
		event_problem(cap, core, msg, HT_CAPTURE_BAD_FIELD,
			      " but the core has no core_master and the "
			      "capture %s",
			      m == -1 ? "has no master core"
				      : "has several masters");
		return -1;
	}
	cap->cores[core].master = m;
	return m;
}

static int on_event(struct ht_capture_reader *cap, size_t core,
		    const struct ht_ctf_msg *msg)
{
	struct ht_capture_core *c = &cap->cores[core];
	uint64_t seq, id;
	enum ev_kind kind;
	long peer;
	int ret;

	c->nr_events++;
	if (msg->has_time && !time_ok(cap, core, msg)) {
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
			return sync_half(cap, CHAN_DOWN, core, (size_t)peer,
					 seq, true, msg->cycles);
		}
		return sync_half(cap, CHAN_UP, (size_t)peer, core, seq, false,
				 msg->cycles);
	case EV_SYNC_ACK:
	case EV_SYNC_NOTIFY:
		c->nr_sync_events++;
		peer = master_of(cap, core, msg);
		if (peer < 0 || !get_uint(cap, core, msg, "seq", &seq) ||
		    !seq_ok(cap, core, kind, (size_t)peer, seq, msg)) {
			return 0;
		}
		if (kind == EV_SYNC_ACK) {
			return sync_half(cap, CHAN_DOWN, (size_t)peer, core,
					 seq, false, msg->cycles);
		}
		return sync_half(cap, CHAN_UP, core, (size_t)peer, seq, true,
				 msg->cycles);
	case EV_MSG_SEND:
		peer = peer_of(cap, core, msg, "dst");
		/* ids are unique per sender, not ordered: duplicates
		 * are found at the join */
		if (peer < 0 || !get_uint(cap, core, msg, "id", &id)) {
			return 0;
		}
		return msg_half(cap, core, (size_t)peer, id, true, msg->cycles);
	case EV_MSG_RECV:
		peer = peer_of(cap, core, msg, "src");
		if (peer < 0 || !get_uint(cap, core, msg, "id", &id)) {
			return 0;
		}
		/* receives from one sender may come in any order */
		return msg_half(cap, (size_t)peer, core, id, false,
				msg->cycles);
	default:
		return 0;
	}
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

	ht__capture_reader_note(cap, "damaged stream: %s", e);
	for (i = 0; i < cap->nr_cores; i++) {
		const char *p = cap->cores[i].trace->path;
		size_t n = strlen(p);

		if (strstr(e, p) && e[strstr(e, p) - e + n] == '/') {
			cap->cores[i].problems[HT_CAPTURE_DAMAGED]++;
			break;
		}
	}
}

/* Every message of the set, once, to the core of its stream. */
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
		cap->cur_msg = &msg;
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

	ret = read_events(cap);
	cap->cur_time = NULL;
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
