/* SPDX-License-Identifier: MIT */
/*
 * The copying path of the merge (merge-internal.h): a core whose
 * records can be moved as bytes is scanned stream by stream
 * (ht_ctf_stream_scan(): classes and times only, no field decoded);
 * each record gets a new event header (its class id and its mapped
 * time) and its contexts and payload are copied as they are.
 *
 * A record's bytes keep their meaning at another place when nothing in
 * them is aligned beyond a byte and they start on a byte boundary in
 * both traces: the input's event header is fixed, byte-aligned and a
 * whole number of bytes (ht__merge_can_copy()), and the output's ends
 * on a byte (ctf-writer.h). The output is then the decoding path's,
 * byte for byte but for the content of padding bits.
 *
 * Memory: per stream of the core being merged, a batch of record
 * positions (BATCH of them); the bytes stay in the reader's mapping.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/message.h"
#include "merge-internal.h"

/* Records scanned ahead per stream. */
#define BATCH 4096
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
	struct ht__merge_cpu cpu; /* of its packet */
	uint8_t kind;		  /* enum rec_kind */
	bool has_range;		  /* a loss with a time */
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
	uint32_t halign;
	uint64_t hsize;
	struct ht__merge_cpu cpu;
	bool prev_valid, prev_has_end;
	struct rec *recs;
	size_t n, i;
	bool ended;
};

/* The largest alignment in @t (1 when NULL). */
static unsigned max_align(const struct ht_ctf_type *t)
{
	unsigned a, b;
	size_t i;

	if (!t) {
		return 1;
	}
	a = t->align_bits;
	switch (t->kind) {
	case HT_CTF_ENUM:
		b = max_align(t->container);
		break;
	case HT_CTF_STRUCT:
	case HT_CTF_VARIANT:
		b = 1;
		for (i = 0; i < t->nr_members; i++) {
			unsigned c = max_align(t->members[i].type);

			b = c > b ? c : b;
		}
		break;
	case HT_CTF_ARRAY:
	case HT_CTF_SEQUENCE:
		b = max_align(t->element);
		break;
	default:
		b = 1;
		break;
	}
	return a > b ? a : b;
}

bool ht__merge_can_copy(const struct input *in)
{
	const struct ht_ctf_trace *t = in->trace;
	size_t i, j;

	/* (a per-CPU input's streams are named by their packets) */
	if (in->core->per_cpu) {
		return false;
	}
	for (i = 0; i < t->nr_stream_classes; i++) {
		const struct ht_ctf_stream_class *sc = t->stream_classes[i];
		uint32_t align;
		uint64_t size;

		if (!sc->default_clock ||
		    !ht_ctf_stream_class_raw_header(sc, &align, &size) ||
		    align < 8 || size % 8 || max_align(sc->event_context) > 8) {
			return false;
		}
		for (j = 0; j < sc->nr_event_classes; j++) {
			const struct ht_ctf_event_class *ec =
			    sc->event_classes[j];

			if (max_align(ec->context) > 8 ||
			    max_align(ec->payload) > 8) {
				return false;
			}
		}
	}
	return true;
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
		/* (ht__merge_can_copy() checked every class) */
		ht_ctf_stream_class_raw_header(r->sc, &r->halign, &r->hsize);
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
	return r->n >= BATCH ? BATCH_FULL : 0;
}

static int on_record(void *arg, const struct ht_ctf_event_class *cls,
		     uint64_t cycles)
{
	struct rstream *r = arg;
	struct rec *e = push(r, REC_EVENT);
	uint64_t end = ht_ctf_stream_raw_pos(r->stream);
	/* the header's start: aligned from the packet's start */
	uint64_t a = r->halign;
	uint64_t hdr = r->base + ((r->pos - r->base + a - 1) / a) * a;

	e->cls = cls;
	e->cycles = cycles;
	e->start = r->pos;
	e->body = hdr + r->hsize;
	e->end = end < e->body ? e->body : end;
	r->pos = end;
	return r->n >= BATCH ? BATCH_FULL : 0;
}

/* Scans @r's next records into its batch (none when it ends). */
static int fill(struct rstream *r)
{
	struct ht_ctf_scan_ops ops = {0};
	struct merge *m = r->m;
	int ret;

	ops.packet = on_packet;
	ops.record = on_record;
	ops.arg = r;
	ops.packet_fields = true;
	r->n = r->i = 0;
	while (!r->ended && !r->n) {
		ret = ht_ctf_stream_scan(r->in->set, r->stream, &ops);
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
	key = ht__merge_key(r->in, &ev);
	ret = out_stream(r, e);
	if (!ret) {
		ret = ht__merge_place(m, r->in, key, e->cls->name,
				      r->stream->path, e->start, &ts);
	}
	if (ret) {
		return ret;
	}
	from = e->body / 8;
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
			ret = fill(r);
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

/* One stream: its records in order. */
static int copy_one(struct rstream *r)
{
	const struct rec *e;
	int ret;

	for (;;) {
		ret = head(r, &e);
		if (ret || !e) {
			return ret;
		}
		ret = put_event(r, e);
		if (ret) {
			return ret;
		}
		r->i++;
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
		if (!rs[k].recs) {
			goto free_all;
		}
	}
	ret = n == 1 ? copy_one(&rs[0]) : copy_many(rs, n);
free_all:
	for (k = 0; k < n; k++) {
		free(rs[k].recs);
	}
	free(rs);
	return ret;
}
