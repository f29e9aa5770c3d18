/* SPDX-License-Identifier: MIT */
/*
 * The per-stream scan (ht_ctf_stream_scan()): the packets of one data
 * stream file in file order and, for each event record, only its class
 * and its timestamp. No field is stored: a fixed run is skipped by its
 * size (only the leaves that save a sequence length, a variant tag, an
 * event id or a clock value are loaded), a string by its terminator, a
 * sequence of fixed elements by its length times their size; variants
 * are followed. Anything unusual in a record (it does not fit in the
 * packet content, an id nobody declared, a tag that selects nothing)
 * sends the record to the full decoder (ht__stream_read_event()), which
 * either decodes it or says what is wrong and where with the same
 * message `hetrace print` gives.
 */
#include "ctf-internal.h"
#include "error.h"

/* The leaves of run @r at @pos that save something: loaded, applied. */
static void scan_side_leaves(struct ht__stream *s, const struct ht__run *r,
			     uint64_t pos)
{
	const struct ht__leaf *l = r->leaves + r->nr_plain;
	const struct ht__leaf *end = r->leaves + r->nr_leaves;

	for (; l < end; l++) {
		const uint64_t p = pos + l->off_bits;
		uint64_t v, w;

		if (!l->side) {
			continue;
		}
		if (l->load == HT__LOAD_LE) {
			memcpy(&w, s->map + (p >> 3), 8);
			v = (ht__le64(w) >> (p & 7)) & l->mask;
		} else if (l->load == HT__LOAD_BE) {
			memcpy(&w, s->map + (p >> 3), 8);
			v = (ht__be64(w) << (p & 7)) >> (64 - l->size_bits);
		} else {
			v = ht__read_bits_slow(s->map, p, l->size_bits, l->bo);
		}
		v = (v ^ l->sign) - l->sign;
		if (l->reg >= 0) {
			s->regs[l->reg] = v;
		}
		if (l->meaning) {
			s->mval[l->meaning] = v;
			s->mset |= 1u << l->meaning;
		}
		if (l->clock) {
			ht__clock_update(s, v, l->size_bits);
		}
	}
}

/* Skips fixed run @r at s->pos. Returns 0, or 1 when it does not fit. */
static inline int scan_run(struct ht__stream *s, const struct ht__run *r)
{
	uint64_t pos = s->pos;

	if (r->align_bits > 1) {
		pos = ht__align_in_packet(s, pos, r->align_bits);
	}
	if (pos + r->size_bits > s->content_end) {
		return 1;
	}
	if (r->side) {
		scan_side_leaves(s, r, pos);
	}
	s->pos = pos + r->size_bits;
	return 0;
}

/* Skips a string at s->pos. Returns 0, or 1 when it is not terminated. */
static inline int scan_string(struct ht__stream *s)
{
	/* packets start on a byte: byte alignment in the packet is byte
	 * alignment in the file */
	uint64_t pos = (s->pos + 7) & ~(uint64_t)7;
	const uint8_t *p, *z;

	if (pos >= s->content_end) {
		return 1;
	}
	p = s->map + (pos >> 3);
	z = ht__find_nul(p, (s->content_end - pos) / 8);
	if (!z) {
		return 1;
	}
	s->pos = pos + (uint64_t)(z - p + 1) * 8;
	return 0;
}

/*
 * Skips op @i of @ops at s->pos, applying what its integers save.
 * Returns 0, or 1 when anything is wrong (the full decoder says what).
 */
static int scan_op(struct ht__stream *s, const struct ht__op *ops, uint32_t i)
{
	const struct ht__op *op = &ops[i];
	uint64_t pos = s->pos;

	if (op->kind == HT__OP_STRING) {
		return scan_string(s);
	}
	if (op->align_bits > 1) {
		pos = ht__align_in_packet(s, pos, op->align_bits);
	}
	switch (op->kind) {
	case HT__OP_INT:
		if (pos + op->size_bits > s->content_end) {
			return 1;
		}
		if (op->side) {
			uint64_t v =
			    ht__read_bits(s->map, pos, op->size_bits, op->bo);

			if (op->is_signed && op->size_bits < 64) {
				uint64_t m = UINT64_C(1) << (op->size_bits - 1);

				v = (v ^ m) - m;
			}
			if (op->reg >= 0) {
				s->regs[op->reg] = v;
			}
			if (op->meaning) {
				s->mval[op->meaning] = v;
				s->mset |= 1u << op->meaning;
			}
			if (op->clock) {
				ht__clock_update(s, v, op->size_bits);
			}
		}
		s->pos = pos + op->size_bits;
		return 0;
	case HT__OP_FLOAT:
		if (pos + op->size_bits > s->content_end) {
			return 1;
		}
		s->pos = pos + op->size_bits;
		return 0;
	case HT__OP_STRUCT: {
		uint32_t k;

		s->pos = pos;
		for (k = 0; k < op->nr_runs; k++) {
			const struct ht__run *r = &op->runs[k];
			int ret;

			if (r->tmpl) {
				ret = scan_run(s, r);
			} else {
				ret = scan_op(s, ops, i + r->member_op);
			}
			if (ret) {
				return ret;
			}
		}
		return 0;
	}
	case HT__OP_ARRAY:
	case HT__OP_SEQ: {
		uint64_t len =
		    op->kind == HT__OP_ARRAY ? op->nr : s->regs[op->src_reg];
		uint64_t k,
		    room = s->content_end > pos ? s->content_end - pos : 0;
		const struct ht__op *el = &ops[i + 1];
		const struct ht__run *r = op->elem_run;

		s->pos = pos;
		/* the full decoder's limits */
		if ((el->min_bits ? len > room / el->min_bits
				  : len > (1u << 20)) ||
		    len > UINT32_MAX) {
			return 1;
		}
		if (!len) {
			return 0;
		}
		if (r && !r->side && r->align_bits &&
		    r->size_bits % r->align_bits == 0) {
			/* every element starts aligned: one jump */
			uint64_t p = s->pos, end;

			if (r->align_bits > 1) {
				p = ht__align_in_packet(s, p, r->align_bits);
			}
			end = p + len * r->size_bits;
			if (end > s->content_end || end < p) {
				return 1;
			}
			s->pos = end;
			return 0;
		}
		for (k = 0; k < len; k++) {
			int ret = r ? scan_run(s, r) : scan_op(s, ops, i + 1);

			if (ret) {
				return ret;
			}
		}
		return 0;
	}
	case HT__OP_VARIANT: {
		uint64_t tag = s->regs[op->src_reg];
		uint32_t k;

		for (k = 0; k < op->nr_sel; k++) {
			const struct ht__variant_sel *sel = &op->sel[k];

			if (op->tag_signed ? (int64_t)tag >= sel->lo &&
						 (int64_t)tag <= sel->hi
					   : tag >= (uint64_t)sel->lo &&
						 tag <= (uint64_t)sel->hi) {
				break;
			}
		}
		if (k == op->nr_sel) {
			return 1;
		}
		s->pos = pos;
		return scan_op(s, ops, i + op->option_op[op->sel[k].option]);
	}
	}
	return 1;
}

/* Skips scope @p at s->pos. Returns 0, or 1 when anything is wrong. */
static inline int scan_scope(struct ht__stream *s, const struct ht__plan *p)
{
	if (!p->nr_ops) {
		return 0;
	}
	if (p->root_run) {
		return scan_run(s, p->root_run);
	}
	return scan_op(s, p->ops, 0);
}

/* The value of plain leaf @l of a run that starts at @pos. */
static inline uint64_t leaf_value(const uint8_t *map, uint64_t pos,
				  const struct ht__leaf *l)
{
	const uint64_t p = pos + l->off_bits;
	uint64_t w, v;

	memcpy(&w, map + (p >> 3), 8);
	if (l->load == HT__LOAD_LE) {
		v = (ht__le64(w) >> (p & 7)) & l->mask;
	} else {
		v = (ht__be64(w) << (p & 7)) >> (64 - l->size_bits);
	}
	return (v ^ l->sign) - l->sign;
}

/* The event class of id @id in @sc, or NULL. */
static inline struct ht__event_class *class_of(struct ht__stream_class *sc,
					       uint64_t id)
{
	size_t k;

	if (id < sc->nr_by_id) {
		return sc->by_id[id];
	}
	for (k = 0; k < sc->pub.nr_event_classes; k++) {
		if (sc->pub.event_classes[k]->id == id) {
			return (struct ht__event_class *)
			    sc->pub.event_classes[k];
		}
	}
	return NULL;
}

/*
 * Skips the event record at s->pos, updating the clock. Returns 0 with
 * *@ec set, or 1 when the full decoder must take the record.
 */
static inline int scan_record(struct ht__stream *s,
			      struct ht__event_class **ecp)
{
	struct ht__stream_class *sc = s->sc;
	const struct ht__run *hr = sc->hdr_fast;
	struct ht__event_class *ec;
	uint64_t start = s->pos;

	if (hr) {
		/* a fixed header: only its id and its timestamp */
		uint64_t pos = start;

		if (hr->align_bits > 1) {
			pos = ht__align_in_packet(s, pos, hr->align_bits);
		}
		if (pos + hr->size_bits > s->content_end) {
			return 1;
		}
		if (sc->hdr_ts_leaf >= 0) {
			ht__clock_update(
			    s,
			    leaf_value(s->map, pos,
				       &hr->leaves[sc->hdr_ts_leaf]),
			    sc->hdr_ts_bits);
		}
		if (sc->hdr_id_leaf >= 0) {
			ec = class_of(sc,
				      leaf_value(s->map, pos,
						 &hr->leaves[sc->hdr_id_leaf]));
		} else {
			ec = sc->pub.nr_event_classes == 1
				 ? (struct ht__event_class *)
				       sc->pub.event_classes[0]
				 : NULL;
		}
		s->pos = pos + hr->size_bits;
	} else {
		s->mset &= ~(1u << HT__M_EVENT_ID);
		if (scan_scope(s, &sc->event_header)) {
			return 1;
		}
		if (s->mset & (1u << HT__M_EVENT_ID)) {
			ec = class_of(sc, s->mval[HT__M_EVENT_ID]);
		} else {
			ec = sc->pub.nr_event_classes == 1
				 ? (struct ht__event_class *)
				       sc->pub.event_classes[0]
				 : NULL;
		}
	}
	if (!ec || scan_scope(s, &sc->event_context) ||
	    scan_scope(s, &ec->context) || scan_scope(s, &ec->payload) ||
	    s->pos == start) {
		return 1;
	}
	*ecp = ec;
	return 0;
}

/*
 * The records of the current packet from s->pos. Returns 0 at the end
 * of the packet content, a negative HT_E... code for damage (s->err
 * says what and where), or what a callback returned.
 */
static int scan_records(struct ht__stream *s, const struct ht_ctf_scan_ops *ops)
{
	int (*record)(void *, const struct ht_ctf_event_class *, uint64_t) =
	    ops->record;
	void *arg = ops->arg;

	while (s->pos < s->content_end) {
		uint64_t start = s->pos, clock = s->clock;
		struct ht__event_class *ec;
		int ret;

		if (scan_record(s, &ec)) {
			/* from the record's start again, as if it was
			 * not read: the full decoder decodes it or says
			 * what is wrong */
			s->pos = start;
			s->clock = clock;
			ret = ht__stream_read_event(s);
			if (ret) {
				return ht__stream_damaged(s, ret);
			}
			ec = (struct ht__event_class *)s->ev.cls;
		}
		if (record) {
			ret = record(arg, &ec->pub, s->clock);
			if (ret) {
				return ret;
			}
		}
	}
	return 0;
}

int ht__stream_scan(struct ht__stream *s, const struct ht_ctf_scan_ops *ops)
{
	int ret;

	for (;;) {
		switch (s->state) {
		case HT__S_BEGIN:
			s->state = HT__S_PACKET;
			continue;
		case HT__S_PACKET: {
			uint64_t discarded, lost;

			ht__stream_release(s, s->pkt_off);
			if (s->pkt_off >= s->size) {
				s->state = HT__S_END;
				continue;
			}
			ret = ht__stream_read_packet(s);
			if (ret) {
				return ht__stream_damaged(s, ret);
			}
			ht__stream_losses(s, &discarded, &lost);
			s->state = HT__S_EVENTS;
			if (ops->packet) {
				ret = ops->packet(ops->arg, &s->pub, &s->pkt,
						  discarded, lost);
				if (ret) {
					return ret;
				}
			}
			continue;
		}
		case HT__S_QUEUE:
		case HT__S_EVENTS:
			ret = scan_records(s, ops);
			if (ret) {
				return ret;
			}
			ht__stream_end_packet(s);
			continue;
		case HT__S_END:
			ht__stream_release_all(s);
			s->state = HT__S_DONE;
			continue;
		case HT__S_DONE:
			return 0;
		}
	}
}
