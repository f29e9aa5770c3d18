/* SPDX-License-Identifier: MIT */
/*
 * The copying path of the merge (merge-internal.h): a core whose
 * records can be moved as bytes is scanned stream by stream
 * (ht_ctf_stream_scan(): classes and times only, no field decoded);
 * each record gets a new event header (its class id and its mapped
 * time) and its contexts and payload are copied as they are.
 *
 * A record's bytes keep their meaning at another place when they start
 * on a byte boundary and, counted from their packet's start, on a
 * multiple of the largest alignment in them (A) in both traces: the
 * input's event header (merge-header.c: fixed, or the compact/extended
 * one of hetrace's runtime and LTTng) puts
 * every record's contexts and payload on such a boundary
 * (ht__merge_copy_align()), and the output's event header is aligned
 * so that its records' are too (8 bits for A <= 8, then 32 or 64:
 * ctf-writer.h). Fields aligned on 8 bytes after an input header on
 * 4 (hetrace's runtime) are the exception: the output's records start
 * their contexts on 8 bytes, the input's that do not are laid out
 * again field by field (repad()). The output is then the decoding
 * path's, byte for byte but for the content of padding bits.
 *
 * A stream alone in its core (copy_one()) is taken in runs: the scan's
 * batches with the records' positions (ht_ctf_scan_ops.records_at),
 * the run's times mapped and placed together, its records written by
 * one ht_ctf_wstream_raw_events(): no call per record.
 *
 * Memory: per stream of the core being merged, a batch of record
 * positions (BATCH of them, and for copy_one() the run's events as
 * event_time() and the writer take them); the bytes stay in the
 * reader's mapping.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/message.h"
#include "capture-reader-internal.h"
#include "merge-internal.h"

/* Records scanned ahead per stream. */
#define BATCH 1024
/* The batch is full at that many: the scan's callbacks add up to two
 * losses (a packet) or HT_CTF_SCAN_BATCH records at a time. */
#define BATCH_ROOM (BATCH - HT_CTF_SCAN_BATCH - 2)
/* What the scan callbacks return to stop the scan: the batch is full. */
#define BATCH_FULL 1

enum rec_kind {
	REC_EVENT,
	REC_DISCARDED, /* events lost before the packet */
	REC_LOST,      /* packets lost before it */
};

/* One record of a stream, or a loss before a packet. */
struct rec {
	const struct ht_ctf_event_class *cls;
	/* an event: its time; a loss: the end of its range */
	uint64_t cycles;
	/* bits from the file start: where the record starts (before its
	 * header's alignment), its body (after the header), its end; a
	 * loss: .start is the count */
	uint64_t start, body, end;
	uint64_t base;		  /* its packet's start (bits) */
	struct ht__merge_cpu cpu; /* of its packet */
	int64_t ns;		  /* an event: its time mapped */
	uint8_t kind;		  /* enum rec_kind */
	bool has_range;		  /* a loss with a time */
};

/* Where repad() writes: a body laid out from a multiple of 8 bytes. */
struct scratch {
	uint8_t *buf;
	size_t cap;
	uint64_t pos; /* bits */
};

struct rstream {
	struct merge *m;
	struct input *in;
	const struct ht_ctf_stream *stream;
	uint32_t index; /* in its trace */
	const uint8_t *bytes;
	struct ht_ctf_wstream *ws;
	/* the scan's state: where the next record starts, its packet */
	uint64_t pos, base;
	const struct ht_ctf_stream_class *sc;
	struct ht__merge_header hdr;
	unsigned out_align; /* the output's event header alignment */
	struct scratch pad; /* a record laid out again */
	bool bad_header;
	struct ht__merge_cpu cpu;
	bool prev_valid, prev_has_end;
	struct rec *recs;
	size_t n, i;
	bool ended;
	/* the batch's event times, mapped together (map_times()) */
	uint64_t *cycles;
	int64_t *ns;
	/* copy_one()'s runs of events: as event_time() sees them, and
	 * as the writer takes them */
	struct ht_merge_event *evs;
	struct ht_ctf_raw_event *raw;
};

static bool scratch_room(struct scratch *o, uint64_t bits)
{
	size_t need = (size_t)((o->pos + bits + 7) / 8) + 8, old = o->cap;
	uint8_t *b;

	if (need <= o->cap) {
		return true;
	}
	b = realloc(o->buf, 2 * need);
	if (!b) {
		return false;
	}
	o->buf = b;
	o->cap = 2 * need;
	memset(b + old, 0, o->cap - old);
	return true;
}

/* @n bits at bit @from of @src to bit @to of @dst (zeros there), the
 * same bit of a byte in both (the fields' in-byte offsets agree: the
 * two layouts differ by whole bytes of padding). */
static void copy_bits(uint8_t *dst, uint64_t to, const uint8_t *src,
		      uint64_t from, uint64_t n)
{
	uint64_t i;

	if (!(from % 8) && !(n % 8)) {
		memcpy(dst + to / 8, src + from / 8, (size_t)(n / 8));
		return;
	}
	for (i = 0; i < n; i++) {
		uint64_t a = from + i, b = to + i;

		dst[b / 8] |= (uint8_t)(src[a / 8] & (1u << (a % 8)));
	}
}

/*
 * The fields of @t at bit *@in of @src (aligned from @base, the input
 * packet's start) laid out again at o->pos (aligned from 0): the same
 * bits, the padding of their new place. Returns 0, HT_EFORMAT when the
 * record (ending at @end) ends first, or HT_ENOMEM.
 */
static int repad(const struct ht_ctf_type *t, const uint8_t *src, uint64_t base,
		 uint64_t *in, uint64_t end, struct scratch *o)
{
	unsigned a = ht__type_max_align(t);
	uint64_t i, n;
	int ret;

	if (!t) {
		return 0;
	}
	if (a > 1) {
		*in = base + (*in - base + a - 1) / a * a;
		o->pos = (o->pos + a - 1) / a * a;
	}
	switch (t->kind) {
	case HT_CTF_INT:
	case HT_CTF_ENUM:
	case HT_CTF_FLOAT:
		n = t->kind == HT_CTF_ENUM ? t->container->size_bits
					   : t->size_bits;
		if (*in + n > end) {
			return HT_EFORMAT;
		}
		if (!scratch_room(o, n)) {
			return HT_ENOMEM;
		}
		copy_bits(o->buf, o->pos, src, *in, n);
		*in += n;
		o->pos += n;
		return 0;
	case HT_CTF_STRING:
		for (n = 0; *in + 8 * n + 8 <= end; n++) {
			if (src[*in / 8 + n]) {
				continue;
			}
			n++;
			if (!scratch_room(o, 8 * n)) {
				return HT_ENOMEM;
			}
			memcpy(o->buf + o->pos / 8, src + *in / 8, (size_t)n);
			*in += 8 * n;
			o->pos += 8 * n;
			return 0;
		}
		return HT_EFORMAT;
	case HT_CTF_ARRAY:
		for (i = 0, ret = 0; !ret && i < t->length; i++) {
			ret = repad(t->element, src, base, in, end, o);
		}
		return ret;
	case HT_CTF_STRUCT:
		for (i = 0, ret = 0; !ret && i < t->nr_members; i++) {
			ret = repad(t->members[i].type, src, base, in, end, o);
		}
		return ret;
	default:
		return HT_EFORMAT;
	}
}

unsigned ht__merge_copy_align(const struct ht_ctf_stream_class *sc)
{
	unsigned need = ht__type_max_align(sc->event_context), i, a;
	struct ht__merge_header h;

	for (i = 0; i < sc->nr_event_classes; i++) {
		const struct ht_ctf_event_class *ec = sc->event_classes[i];

		a = ht__type_max_align(ec->context);
		need = a > need ? a : need;
		a = ht__type_max_align(ec->payload);
		need = a > need ? a : need;
	}
	/* a byte at least: the bytes are copied */
	need = need < 8 ? 8 : need;
	if (!sc->default_clock || need > 64 ||
	    !ht__merge_header_shape(sc->event_header, &h) || h.body_align < 8) {
		return 0;
	}
	if (h.body_align >= need) {
		return need <= 8 ? 8 : need <= 32 ? 32 : 64;
	}
	/* 64-bit fields after a header on 4 bytes (hetrace's and LTTng's
	 * compact/extended one): half the records are copied, the others
	 * laid out again (repad()) when their fields let it */
	if (need != 64 || !ht__capture_walkable(sc->event_context)) {
		return 0;
	}
	for (i = 0; i < sc->nr_event_classes; i++) {
		if (!ht__capture_walkable(sc->event_classes[i]->context) ||
		    !ht__capture_walkable(sc->event_classes[i]->payload)) {
			return 0;
		}
	}
	return 64;
}

static struct rec *push(struct rstream *r, enum rec_kind kind)
{
	struct rec *e = &r->recs[r->n++];

	e->kind = (uint8_t)kind;
	e->cpu = r->cpu;
	return e;
}

static int on_packet(void *arg, const struct ht_ctf_stream *stream,
		     const struct ht_ctf_packet *pkt, uint64_t discarded,
		     uint64_t lost)
{
	struct rstream *r = arg;
	const struct ht_ctf_field *f =
	    pkt->context ? ht_ctf_field_member(pkt->context, "cpu_id") : NULL;
	struct rec *e;

	r->pos = ht_ctf_stream_raw_pos(stream);
	r->base = pkt->offset_bytes * 8;
	if (r->sc != stream->stream_class) {
		r->sc = stream->stream_class;
		/* (ht__merge_copy_align() took every class of the trace) */
		ht__merge_header_shape(r->sc->event_header, &r->hdr);
		r->out_align = ht__merge_copy_align(r->sc);
	}
	r->cpu.has = f != NULL;
	r->cpu.is_int = f && f->type->kind == HT_CTF_INT;
	r->cpu.value = f ? f->v.u : 0;
	/* the losses as the reader's DISCARDED_* messages time them */
	if (discarded) {
		e = push(r, REC_DISCARDED);
		e->start = discarded;
		e->has_range = pkt->has_end && (r->prev_valid ? r->prev_has_end
							      : pkt->has_begin);
		e->cycles = pkt->end_cycles;
	}
	if (lost) {
		e = push(r, REC_LOST);
		e->start = lost;
		e->has_range =
		    r->prev_valid && r->prev_has_end && pkt->has_begin;
		e->cycles = pkt->begin_cycles;
	}
	r->prev_valid = true;
	r->prev_has_end = pkt->has_end;
	return r->n >= BATCH_ROOM ? BATCH_FULL : 0;
}

/* Where the contexts of the record at @start begin: a fixed header's
 * size without a call. */
static inline uint64_t body_of(const struct rstream *r, uint64_t start)
{
	const uint64_t a = r->hdr.align;

	if (!r->hdr.has_var && !(a & (a - 1))) {
		/* (ht__merge_header_body(): aligned from the packet) */
		if (a > 1) {
			start =
			    r->base + ((start - r->base + a - 1) & ~(a - 1));
		}
		return start + r->hdr.fixed_bits;
	}
	return ht__merge_header_body(&r->hdr, r->bytes, r->base, start);
}

static int on_records(void *arg, const struct ht_ctf_scan_rec *rec, size_t n)
{
	struct rstream *r = arg;
	size_t i;

	for (i = 0; i < n; i++) {
		struct rec *e = push(r, REC_EVENT);
		const uint64_t end = rec[i].end_bits;

		e->cls = rec[i].cls;
		e->cycles = rec[i].cycles;
		e->start = rec[i].start_bits;
		e->base = r->base;
		/* (a record the scan reported: its header selects an
		 * option) */
		e->body = body_of(r, e->start);
		if (e->body == UINT64_MAX || e->body % 8) {
			/* (the scan read this header: not reached) */
			r->bad_header = true;
			return BATCH_FULL;
		}
		e->end = end < e->body ? e->body : end;
	}
	return r->n >= BATCH_ROOM ? BATCH_FULL : 0;
}

/* The mapped times of the events of @r's batch. */
static void map_times(struct rstream *r)
{
	const struct ht_merge_core *c = r->in->core;
	size_t i, k = 0;

	if (!c->map_many) {
		for (i = 0; i < r->n; i++) {
			if (r->recs[i].kind == REC_EVENT) {
				r->recs[i].ns =
				    c->map(c->map_arg, r->recs[i].cycles);
			}
		}
		return;
	}
	for (i = 0; i < r->n; i++) {
		if (r->recs[i].kind == REC_EVENT) {
			r->cycles[k++] = r->recs[i].cycles;
		}
	}
	c->map_many(c->map_arg, r->cycles, r->ns, k);
	for (i = 0, k = 0; i < r->n; i++) {
		if (r->recs[i].kind == REC_EVENT) {
			r->recs[i].ns = r->ns[k++];
		}
	}
}

/* Scans @r's next records into its batch (none when it ends), their
 * times mapped when @map (else put_run() maps them). */
static int fill(struct rstream *r, bool map)
{
	struct ht_ctf_scan_ops ops = {0};
	struct merge *m = r->m;
	int ret;

	ops.packet = on_packet;
	ops.records_at = on_records;
	ops.arg = r;
	ops.packet_fields = true;
	r->n = r->i = 0;
	while (!r->ended && !r->n) {
		ret = ht_ctf_stream_scan(r->in->set, r->stream, &ops);
		if (r->bad_header) {
			snprintf(
			    m->err, m->err_len,
			    "%s: core %s: an event header the merge cannot "
			    "take apart",
			    r->stream->path, r->in->core->name);
			return HT_EFORMAT;
		}
		if (ret == BATCH_FULL) {
			break;
		}
		if (!ret) {
			r->ended = true;
			break;
		}
		if (ret == HT_ENOMEM) {
			return ret;
		}
		/* damage: the records before it are in the batch, the scan
		 * goes on at the next packet */
		m->st->damaged++;
		ht_message_sendf(m->o->note, m->o->note_arg,
				 "core %s: damaged stream, packet skipped: %s",
				 r->in->core->name,
				 ht_ctf_set_last_error(r->in->set));
		if (r->n) {
			break;
		}
	}
	if (map) {
		map_times(r);
	}
	return 0;
}

static int out_stream(struct rstream *r, const struct rec *e)
{
	if (r->ws) {
		return 0;
	}
	return ht__merge_stream(r->m, r->in, r->stream, &e->cpu, &r->ws);
}

/* The loss at the head of @r. */
static int put_loss(struct rstream *r, const struct rec *e)
{
	int ret = out_stream(r, e);

	if (ret) {
		return ret;
	}
	return ht__merge_loss(r->m, r->in, r->ws, e->kind == REC_DISCARDED,
			      e->start, e->has_range, e->cycles);
}

/* The record @e of @r laid out again for a body on 8 bytes. */
static int relay(struct rstream *r, const struct rec *e, uint64_t ts)
{
	const struct ht_ctf_type *scopes[3] = {
	    r->sc->event_context, e->cls->context, e->cls->payload};
	uint64_t in = e->body;
	unsigned k;
	int ret = 0;

	if (r->pad.cap) {
		memset(r->pad.buf, 0, r->pad.cap);
	}
	r->pad.pos = 0;
	for (k = 0; !ret && k < 3; k++) {
		ret = repad(scopes[k], r->bytes, e->base, &in, e->end, &r->pad);
	}
	if (!ret && !scratch_room(&r->pad, 0)) {
		ret = HT_ENOMEM;
	}
	if (ret == HT_EFORMAT) {
		snprintf(r->m->err, r->m->err_len,
			 "file=%s offset=%" PRIu64 ": core %s: event %s: its "
			 "fields end past its record",
			 r->stream->path, e->start / 8, r->in->core->name,
			 e->cls->name);
	}
	if (ret) {
		return ret;
	}
	ret = ht_ctf_wstream_raw_event(r->ws, e->cls->id, ts, r->pad.buf,
				       (size_t)((r->pad.pos + 7) / 8));
	if (ret) {
		snprintf(r->m->err, r->m->err_len, "%s",
			 ht_ctf_writer_last_error(r->m->w));
	}
	return ret;
}

/* The event at the head of @r: placed, its header written, its body
 * copied. */
static int put_event(struct rstream *r, const struct rec *e)
{
	struct merge *m = r->m;
	struct ht_merge_event ev;
	uint64_t ts, from;
	int64_t key;
	int ret;

	ev.stream = r->index;
	ev.offset_bits = e->start;
	ev.cycles = e->cycles;
	key = ht__merge_key_at(r->in, &ev, e->ns);
	ret = out_stream(r, e);
	if (!ret) {
		ret = ht__merge_place(m, r->in, key, e->cls->name,
				      r->stream->path, e->start, &ts);
	}
	if (ret) {
		return ret;
	}
	from = e->body / 8;
	if (r->out_align == 64 && (e->body - e->base) % 64) {
		/* the output's body is on 8 bytes, the input's on 4 */
		ret = relay(r, e, ts);
		if (ret) {
			return ret;
		}
		m->st->copied++;
		return 0;
	}
	ret = ht_ctf_wstream_raw_event(r->ws, e->cls->id, ts, r->bytes + from,
				       (size_t)((e->end + 7) / 8 - from));
	if (ret) {
		snprintf(m->err, m->err_len, "%s",
			 ht_ctf_writer_last_error(m->w));
		return ret;
	}
	m->st->copied++;
	return 0;
}

/*
 * The head event of @r, after the losses before it (NULL at the end of
 * the stream): the batch is filled again when it is used up.
 */
static int head(struct rstream *r, const struct rec **out)
{
	int ret;

	for (;;) {
		if (r->i == r->n) {
			if (r->ended) {
				*out = NULL;
				return 0;
			}
			ret = fill(r, true);
			if (ret) {
				return ret;
			}
			continue;
		}
		if (r->recs[r->i].kind == REC_EVENT) {
			*out = &r->recs[r->i];
			return 0;
		}
		ret = put_loss(r, &r->recs[r->i++]);
		if (ret) {
			return ret;
		}
	}
}

/*
 * The events @r->recs[from, to) of a stream alone in its core: put_event()
 * of each, in steps over the run (their times placed, then their
 * records written) with no call per event.
 */
static int put_run(struct rstream *r, size_t from, size_t to)
{
	struct merge *m = r->m;
	struct input *in = r->in;
	const struct ht_merge_core *c = in->core;
	struct ht_merge_stats *st = m->st;
	const size_t n = to - from;
	int64_t *key = r->ns, last = in->last_key;
	size_t i, k;
	int ret;

	if (m->o->keep_ref_clock) {
		/* (the events before the origin are noted one by one) */
		for (i = from; i < to; i++) {
			ret = put_event(r, &r->recs[i]);
			if (ret) {
				return ret;
			}
		}
		return 0;
	}
	ret = out_stream(r, &r->recs[from]);
	if (ret) {
		return ret;
	}
	/* the times mapped (map_times()), as event_time() takes them */
	for (i = 0; i < n; i++) {
		const struct rec *e = &r->recs[from + i];

		r->evs[i].stream = r->index;
		r->evs[i].offset_bits = e->start;
		r->evs[i].cycles = e->cycles;
		r->cycles[i] = e->cycles;
	}
	if (c->map_many) {
		c->map_many(c->map_arg, r->cycles, key, n);
	} else {
		for (i = 0; i < n; i++) {
			key[i] = c->map(c->map_arg, r->cycles[i]);
		}
	}
	if (c->event_time_many) {
		c->event_time_many(c->map_arg, r->evs, key, n);
	} else if (c->event_time) {
		for (i = 0; i < n; i++) {
			key[i] = c->event_time(c->map_arg, &r->evs[i], key[i]);
		}
	}
	/* ht__merge_key_at() and ht__merge_place() of each: a core's
	 * events stay in their order */
	for (i = 0; i < n; i++) {
		last = key[i] > last ? key[i] : last;
		key[i] = last;
		/* ht__merge_out_ts() */
		if (last < m->origin_ns) {
			st->clamped++;
			r->raw[i].ts_ns = 0;
		} else {
			r->raw[i].ts_ns =
			    (uint64_t)last - (uint64_t)m->origin_ns;
		}
	}
	in->last_key = last;
	if (!st->has_time || key[0] < st->first_ns) {
		st->first_ns = key[0];
	}
	if (!st->has_time || last > st->last_ns) {
		st->last_ns = last;
	}
	st->has_time = true;
	st->events += n;
	/* the records: copied in runs, a record laid out again alone */
	for (i = k = 0; i < n; i++) {
		const struct rec *e = &r->recs[from + i];
		const uint64_t at = e->body / 8;

		if (r->out_align == 64 && (e->body - e->base) % 64) {
			ret =
			    ht_ctf_wstream_raw_events(r->ws, r->raw + k, i - k);
			if (ret) {
				goto fail;
			}
			ret = relay(r, e, r->raw[i].ts_ns);
			if (ret) {
				return ret;
			}
			k = i + 1;
			continue;
		}
		r->raw[i].cls_id = e->cls->id;
		r->raw[i].body = r->bytes + at;
		r->raw[i].body_bytes = (size_t)((e->end + 7) / 8 - at);
	}
	ret = ht_ctf_wstream_raw_events(r->ws, r->raw + k, n - k);
	if (ret) {
		goto fail;
	}
	st->copied += n;
	return 0;
fail:
	snprintf(m->err, m->err_len, "%s", ht_ctf_writer_last_error(m->w));
	return ret;
}

/* One stream: its records in order. */
static int copy_one(struct rstream *r)
{
	size_t j;
	int ret;

	r->evs = malloc(BATCH * sizeof(*r->evs));
	r->raw = malloc(BATCH * sizeof(*r->raw));
	if (!r->evs || !r->raw) {
		return HT_ENOMEM;
	}
	for (;;) {
		if (r->i == r->n) {
			if (r->ended) {
				return 0;
			}
			/* (put_run() maps the times, put_event() needs them
			 * mapped) */
			ret = fill(r, r->m->o->keep_ref_clock);
			if (ret) {
				return ret;
			}
			continue;
		}
		if (r->recs[r->i].kind != REC_EVENT) {
			ret = put_loss(r, &r->recs[r->i++]);
			if (ret) {
				return ret;
			}
			continue;
		}
		for (j = r->i; j < r->n && r->recs[j].kind == REC_EVENT; j++) {
		}
		ret = put_run(r, r->i, j);
		if (ret) {
			return ret;
		}
		r->i = j;
	}
}

/*
 * Several streams: in the order the reader's trace set gives their
 * events (time on the core's own clock, then stream order), which the
 * core's mapped times follow.
 */
static int copy_many(struct rstream *rs, size_t n)
{
	for (;;) {
		struct rstream *best = NULL;
		int64_t best_ns = 0;
		size_t k;
		int ret;

		for (k = 0; k < n; k++) {
			const struct rec *e;
			int64_t ns;

			ret = head(&rs[k], &e);
			if (ret) {
				return ret;
			}
			if (!e) {
				continue;
			}
			ns =
			    ht_ctf_stream_cycles_to_ns(rs[k].stream, e->cycles);
			if (!best || ns < best_ns) {
				best = &rs[k];
				best_ns = ns;
			}
		}
		if (!best) {
			return 0;
		}
		ret = put_event(best, &best->recs[best->i]);
		if (ret) {
			return ret;
		}
		best->i++;
	}
}

int ht__merge_copy_input(struct merge *m, struct input *in)
{
	const struct ht_ctf_trace *t = in->trace;
	size_t n = t->nr_streams, k;
	struct rstream *rs = calloc(n + 1, sizeof(*rs));
	int ret = HT_ENOMEM;

	if (!rs) {
		return ret;
	}
	for (k = 0; k < n; k++) {
		uint64_t size;

		rs[k].m = m;
		rs[k].in = in;
		rs[k].stream = t->streams[k];
		rs[k].index = (uint32_t)k;
		rs[k].bytes = ht_ctf_stream_raw_bytes(t->streams[k], &size);
		rs[k].recs = malloc(BATCH * sizeof(*rs[k].recs));
		rs[k].cycles = malloc(BATCH * sizeof(*rs[k].cycles));
		rs[k].ns = malloc(BATCH * sizeof(*rs[k].ns));
		if (!rs[k].recs || !rs[k].cycles || !rs[k].ns) {
			goto free_all;
		}
	}
	ret = n == 1 ? copy_one(&rs[0]) : copy_many(rs, n);
free_all:
	for (k = 0; k < n; k++) {
		free(rs[k].recs);
		free(rs[k].cycles);
		free(rs[k].ns);
		free(rs[k].pad.buf);
		free(rs[k].evs);
		free(rs[k].raw);
	}
	free(rs);
	return ret;
}
