/* SPDX-License-Identifier: MIT */
/*
 * The per-stream scan (ht_ctf_stream_scan()): the packets of one data
 * stream file in file order and, for each event record, only its class
 * and its timestamp. No field is stored: the record's steps (compiled
 * by ctf-plan-fast.c) are skipped the way ctf-skip.c skips a scope (a
 * fixed run by its size, loading only the leaves that save something,
 * a string by its terminator, a sequence of fixed elements by its
 * length times their size; variants are followed). Anything unusual in a record
 * (it does not fit in the packet content, an id nobody declared, a tag that
 * selects nothing) sends the record to the full decoder
 * (ht__stream_read_event()), which either decodes it or says what is wrong and
 * where with the same message `hetrace print` gives.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ctf-stream.h"
#include "common/error.h"

/* @pos aligned to @align_bits from the packet start, bit @base. */
static inline uint64_t align_from(uint64_t base, uint64_t pos,
				  uint32_t align_bits)
{
	const uint64_t m = align_bits - 1;

	/* mostly aligned already: a branch is cheaper than the sum */
	if (!((pos - base) & m)) {
		return pos;
	}
	return base + ((pos - base + m) & ~m);
}

/*
 * Runs the @n scan steps @k (the record after its header) from bit
 * @pos. Returns the position after them, or UINT64_MAX when anything is
 * wrong. The clock and the registers are updated in @s.
 */
static inline uint64_t scan_steps(struct ht__stream *s,
				  const struct ht__skip *k, uint32_t n,
				  uint64_t pos)
{
	const struct ht__skip *end = k + n;
	const uint64_t ce = s->content_end, base = s->pkt_off * 8;

	for (; k < end; k++) {
		switch (k->kind) {
		case HT__SKIP_FIXED:
			if (k->align_bits > 1) {
				pos = align_from(base, pos, k->align_bits);
			}
			pos += k->size_bits;
			if (pos > ce) {
				return UINT64_MAX;
			}
			break;
		case HT__SKIP_STRING:
			pos = ht__skip_string(s->map, pos, ce);
			if (pos > ce) {
				return UINT64_MAX;
			}
			break;
		case HT__SKIP_LEN:
			if (k->align_bits > 1) {
				pos = align_from(base, pos, k->align_bits);
			}
			if (pos + k->size_bits > ce) {
				return UINT64_MAX;
			}
			s->regs[k->leaf->reg] =
			    ht__leaf_value(s->map, pos, k->leaf);
			pos += k->size_bits;
			break;
		case HT__SKIP_RUN:
			s->pos = pos;
			if (ht__skip_run(s, k->run)) {
				return UINT64_MAX;
			}
			pos = s->pos;
			break;
		case HT__SKIP_SEQ: {
			/* the full decoder's limits, then one jump */
			const struct ht__op *op = &k->ops[k->op];
			const uint64_t len = s->regs[op->src_reg];
			const uint64_t min = op[1].min_bits;
			uint64_t room;

			if (k->align_bits > 1) {
				pos = align_from(base, pos, k->align_bits);
			}
			room = ce > pos ? ce - pos : 0;
			/* elements of maybe zero bits: the decoder counts
			 * them (ctf-stream.h) */
			if ((min ? len > room / min : len != 0) ||
			    len > UINT32_MAX) {
				return UINT64_MAX;
			}
			pos += len * k->size_bits;
			if (pos > ce) {
				return UINT64_MAX;
			}
			break;
		}
		default:
			s->pos = pos;
			if (ht__skip_op(s, k->ops, k->op)) {
				return UINT64_MAX;
			}
			pos = s->pos;
			break;
		}
	}
	return pos;
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

/* The only event class of @sc, or NULL when it has several. */
static inline struct ht__event_class *only_class(struct ht__stream_class *sc)
{
	return sc->pub.nr_event_classes == 1
		   ? (struct ht__event_class *)sc->pub.event_classes[0]
		   : NULL;
}

/*
 * The record at s->pos that the scan could not take, decoded by the
 * full decoder: returns 0 with *@ec set, or its error.
 */
static int record_slow(struct ht__stream *s, struct ht__event_class **ec)
{
	int ret = ht__stream_read_event(s);

	*ec = ret ? NULL : (struct ht__event_class *)s->ev.cls;
	return ret;
}

/* Records waiting for ops->records or ops->records_at (all of one
 * packet). */
#define SCAN_BATCH HT_CTF_SCAN_BATCH

struct batch {
	const struct ht_ctf_event_class *cls[SCAN_BATCH];
	uint64_t cycles[SCAN_BATCH];
	struct ht_ctf_scan_rec at[SCAN_BATCH];
	unsigned n;
};

/* Whether @ops takes records in batches. */
static inline bool batched(const struct ht_ctf_scan_ops *ops)
{
	return ops->records || ops->records_at;
}

static int batch_flush(const struct ht_ctf_scan_ops *ops, struct batch *b)
{
	unsigned n = b->n;

	if (!n) {
		return 0;
	}
	b->n = 0;
	if (ops->records_at) {
		return ops->records_at(ops->arg, b->at, n);
	}
	return ops->records(ops->arg, b->cls, b->cycles, n);
}

/* Reports the record of @cls at @cycles, from bit @start to @end: to
 * ops->records_at or ops->records in batches, else to ops->record. */
static inline int report(const struct ht_ctf_scan_ops *ops, struct batch *b,
			 const struct ht_ctf_event_class *cls, uint64_t cycles,
			 uint64_t start, uint64_t end)
{
	if (ops->records_at) {
		struct ht_ctf_scan_rec *r = &b->at[b->n];

		r->cls = cls;
		r->cycles = cycles;
		r->start_bits = start;
		r->end_bits = end;
		if (++b->n == SCAN_BATCH) {
			return batch_flush(ops, b);
		}
		return 0;
	}
	if (ops->records) {
		b->cls[b->n] = cls;
		b->cycles[b->n] = cycles;
		if (++b->n == SCAN_BATCH) {
			return batch_flush(ops, b);
		}
		return 0;
	}
	return ops->record ? ops->record(ops->arg, cls, cycles) : 0;
}

/*
 * Damage (@ret) in the record at @start (clock @clock there): the
 * records before it are reported first; when that fails the record is
 * taken again by the next call.
 */
static int damaged(struct ht__stream *s, const struct ht_ctf_scan_ops *ops,
		   struct batch *b, uint64_t start, uint64_t clock, int ret)
{
	int r = batched(ops) ? batch_flush(ops, b) : 0;

	if (r) {
		s->pos = start;
		s->clock = clock;
		return r;
	}
	/* the last record before the damage is the stream's time */
	ht__stream_reached(s, clock);
	return ht__stream_damaged(s, ret);
}

/*
 * The record of class @ec at @start is at @clock, before the record
 * before it (@clock0): time goes backwards. Returns 0 when the stream
 * has no default clock (its clock means nothing), else the error
 * (with HT_CTF_KEEP_GOING the caller counts the record and returns
 * it, else the stream ends there as at damage).
 */
static int __attribute__((noinline))
record_back(struct ht__stream *s, const struct ht__event_class *ec,
	    uint64_t start, uint64_t clock, uint64_t clock0)
{
	char what[300];

	if (!s->sc->pub.default_clock) {
		return 0;
	}
	snprintf(what, sizeof(what), "event '%s'", ec->pub.name);
	return ht__stream_time_back(s, start, what, clock, clock0);
}

/*
 * Runs the @n quick steps @q from bit @pos, saving lengths in @regs.
 * Returns the position after them, or one past @ce (UINT64_MAX) when
 * anything is wrong.
 */
static inline uint64_t quick_steps(const uint8_t *map, uint64_t *regs,
				   uint64_t base, uint64_t ce,
				   const struct ht__quick_step *q, uint32_t n,
				   uint64_t pos)
{
	const struct ht__quick_step *end = q + n;

	for (; q < end; q++) {
		if (q->kind == HT__SKIP_STRING) {
			pos = ht__skip_string(map, pos, ce);
			if (pos > ce) {
				return UINT64_MAX;
			}
			continue;
		}
		if (q->align_bits > 1) {
			pos = align_from(base, pos, q->align_bits);
		}
		if (q->kind == HT__SKIP_SEQ) {
			/* the full decoder's limits */
			const uint64_t len = regs[q->leaf.reg];

			if (pos > ce || len > (ce - pos) / q->size_bits ||
			    len > UINT32_MAX) {
				return UINT64_MAX;
			}
			pos += len * q->size_bits;
			continue;
		}
		if (pos + q->size_bits > ce) {
			return UINT64_MAX;
		}
		if (q->kind == HT__SKIP_LEN) {
			regs[q->leaf.reg] = ht__leaf_value(map, pos, &q->leaf);
		}
		pos += q->size_bits;
	}
	return pos;
}

/* Counts record of class @ec at time @clock (ht_ctf_scan_ops.tally). */
static inline void tally_add(struct ht__stream *s,
			     const struct ht__event_class *ec, uint64_t clock)
{
	s->tally[ec->index]++;
	if (!s->tally_n++) {
		s->tally_first = clock;
	}
	s->tally_last = clock;
}

/*
 * Entry @v of @by_id. For the small ids most traces use, through one
 * branch per id: the branch is predicted, so the entry's address, its
 * loads and the next record's position do not wait for the load of
 * the id, only its check does (twice as fast on a stream of small
 * records). The empty asm keeps the compiler from folding the cases
 * back into by_id + v.
 */
static inline const struct ht__scan_entry *
entry_of(const struct ht__scan_entry *by_id, uint64_t v)
{
	const struct ht__scan_entry *se;

	/* clang-format off */
	switch (v) {
#define CASE(i)                                                                \
	case i:                                                                \
		se = by_id + i;                                                \
		__asm__("" : "+r"(se));                                        \
		return se;
		CASE(0) CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7)
		CASE(8) CASE(9) CASE(10) CASE(11) CASE(12) CASE(13) CASE(14)
		CASE(15)
#undef CASE
	default:
		return by_id + v;
	}
	/* clang-format on */
}

/*
 * The records of the current packet from s->pos, for a stream class
 * whose event header is fixed (.hdr_fast): only its id and timestamp
 * leaves are loaded (with one load when @one_load: .hdr_one_load), and
 * the rest of a record is skipped as its entry in .scan_by_id says.
 * Records are counted (@tally) or reported. Returns 0 at the end of
 * the packet content, a negative HT_E... code for damage, or what a
 * callback returned.
 */
enum hdr_mode {
	HDR_FIXED,    /* .hdr_fast */
	HDR_ONE_LOAD, /* .hdr_fast and .hdr_one_load */
	HDR_VARIANT,  /* .hdr_var */
};

/*
 * The event header at @pos described by @hv: the record's id in *@id,
 * the clock updated in *@clock. Returns the position after it, or
 * UINT64_MAX when its tag selects no option.
 */
static inline uint64_t variant_header(const uint8_t *map,
				      const struct ht__hdr_var *hv,
				      uint64_t base, uint64_t pos, uint64_t *id,
				      uint64_t *clock)
{
	const uint64_t tag = ht__leaf_value(map, pos, &hv->tag);
	const struct ht__hdr_option *o = ht__hdr_option(hv, tag);

	*id = tag;
	if (!o) {
		return UINT64_MAX;
	}
	pos += hv->tag_bits;
	if (o->align_bits > 1) {
		pos = align_from(base, pos, o->align_bits);
	}
	if (o->has_ts) {
		const uint64_t t = ht__leaf_value(map, pos, &o->ts);

		*clock = ht__clock_next(*clock, t, o->ts.size_bits);
	}
	if (o->has_id) {
		*id = ht__leaf_value(map, pos, &o->id);
	}
	return pos + o->size_bits;
}

static inline int scan_fixed_header(struct ht__stream *s,
				    const struct ht_ctf_scan_ops *ops,
				    const bool tally, const bool at,
				    const enum hdr_mode mode)
{
	struct ht__stream_class *sc = s->sc;
	const bool one_load = mode == HDR_ONE_LOAD;
	const struct ht__hdr_var *hv = &sc->hdr_var;
	/* the variant header's first run stands for it until its option
	 * is known */
	const struct ht__run vr = {.align_bits = hv->align_bits,
				   .size_bits = (uint32_t)hv->tag_bits};
	const struct ht__run *hr = mode == HDR_VARIANT ? &vr : sc->hdr_fast;
	const struct ht__leaf *ts =
	    sc->hdr_ts_leaf >= 0 ? &hr->leaves[sc->hdr_ts_leaf] : NULL;
	const struct ht__leaf *id =
	    sc->hdr_id_leaf >= 0 ? &hr->leaves[sc->hdr_id_leaf] : NULL;
	struct ht__event_class *only = only_class(sc);
	const uint8_t *map = s->map;
	const uint64_t ce = s->content_end, base = s->pkt_off * 8;
	const uint32_t halign = hr->align_bits;
	const uint64_t hsize = hr->size_bits;
	const unsigned ts_bits = sc->hdr_ts_bits;
	const uint32_t id_shift = sc->hdr_id_shift, ts_shift = sc->hdr_ts_shift;
	const uint64_t id_mask = sc->hdr_id_mask, ts_mask = sc->hdr_ts_mask;
	const struct ht__scan_entry *by_id = sc->scan_by_id;
	const uint64_t nr_by_id = by_id ? sc->nr_by_id : 0;
	/* without an id field, the only class's entry */
	const struct ht__scan_entry *only_se =
	    !id && only && only->pub.id < nr_by_id ? &by_id[only->pub.id]
						   : NULL;
	/* copies: the counts' stores could alias the originals */
	const struct ht__leaf tsl = ts ? *ts : (struct ht__leaf){0};
	const struct ht__leaf idl = id ? *id : (struct ht__leaf){0};
	uint64_t *const counts = s->tally;
	uint64_t n = s->tally_n, first = s->tally_first;
	uint64_t *const regs = s->regs;
	uint64_t pos = s->pos, clock = s->clock;
	struct batch b;
	int ret;

	b.n = 0;
	while (pos < ce) {
		const uint64_t start = pos, clock0 = clock;
		const struct ht__scan_entry *se;
		struct ht__event_class *ec;
		uint64_t v;

		if (halign > 1) {
			pos = align_from(base, pos, halign);
		}
		if (pos + hsize > ce) {
			goto slow;
		}
		if (mode == HDR_VARIANT) {
			pos = variant_header(map, hv, base, pos, &v, &clock);
			if (pos > ce) {
				goto slow;
			}
		} else if (one_load) {
			uint64_t w;

			memcpy(&w, map + (pos >> 3), 8);
			w = ht__le64(w) >> (pos & 7);
			if (ts_mask) {
				/* ht__clock_next() with the mask known: 5%
				 * less time than calling it (be16) */
				const uint64_t t = (w >> ts_shift) & ts_mask;
				const uint64_t low = clock & ts_mask;

				clock = (clock - low) | t;
				if (t < low) {
					clock += ts_mask + 1;
				}
			}
			v = (w >> id_shift) & id_mask;
		} else {
			if (ts) {
				const uint64_t t =
				    ht__leaf_value(map, pos, &tsl);

				clock = ht__clock_next(clock, t, ts_bits);
			}
			if (!id) {
				if (!only_se) {
					ec = only;
					goto by_class;
				}
				se = only_se;
				goto entry;
			}
			v = ht__leaf_value(map, pos, &idl);
		}
		if (v >= nr_by_id) {
			ec = class_of(sc, v);
			goto by_class;
		}
		se = entry_of(by_id, v);
	entry:
		ec = se->ec;
		if (!ec) {
			goto slow;
		}
		pos += se->head_bits;
		switch (se->shape) {
		case HT__SHAPE_NONE:
			break;
		case HT__SHAPE_FIXED:
			if (se->q[0].align_bits > 1) {
				pos =
				    align_from(base, pos, se->q[0].align_bits);
			}
			pos += se->q[0].size_bits;
			break;
		case HT__SHAPE_STRING:
			if (pos <= ce) {
				pos = ht__skip_string(map, pos, ce);
			}
			break;
		case HT__SHAPE_QUICK:
			if (pos <= ce) {
				pos = quick_steps(map, regs, base, ce, se->q,
						  se->nr_skip, pos);
			}
			break;
		default:
			if (pos > ce) {
				goto slow;
			}
			s->clock = clock;
			pos = scan_steps(s, se->skip, se->nr_skip, pos);
			clock = s->clock;
			break;
		}
		/* UINT64_MAX included; an empty record would never end */
		if (pos > ce || (!hsize && pos == start)) {
			goto slow;
		}
		goto done;
	by_class:
		if (!ec) {
			goto slow;
		}
		pos += ec->head_bits;
		if (pos > ce) {
			goto slow;
		}
		s->clock = clock;
		pos = scan_steps(s, ec->skip, ec->nr_skip, pos);
		clock = s->clock;
		if (pos == UINT64_MAX || pos == start) {
			goto slow;
		}
		goto done;
	slow:
		/* from the record's start again, as if it was not read:
		 * the full decoder decodes it or says what is wrong */
		s->pos = start;
		s->clock = clock0;
		ret = record_slow(s, &ec);
		if (ret) {
			if (tally && n != s->tally_n) {
				/* the last record counted is the one before */
				s->tally_n = n;
				s->tally_first = first;
				s->tally_last = clock0;
			}
			return damaged(s, ops, &b, start, clock0, ret);
		}
		pos = s->pos;
		clock = s->clock;
	done:
		if (__builtin_expect(clock < clock0, 0) &&
		    (ret = record_back(s, ec, start, clock, clock0)) != 0) {
			if (!(s->flags & HT_CTF_KEEP_GOING)) {
				/* as damage: the record is not counted */
				if (tally && n != s->tally_n) {
					s->tally_n = n;
					s->tally_first = first;
					s->tally_last = clock0;
				}
				return damaged(s, ops, &b, start, clock0, ret);
			}
			/* counted, then reported; the next call goes on */
			if (tally) {
				counts[ec->index]++;
				if (!n++) {
					first = clock;
				}
				s->tally_n = n;
				s->tally_first = first;
				s->tally_last = clock;
			}
			s->pos = pos;
			s->clock = clock;
			if (!tally) {
				int r = report(ops, &b, &ec->pub, clock, start,
					       pos);

				if (!r && batched(ops)) {
					r = batch_flush(ops, &b);
				}
				if (r) {
					return r;
				}
			}
			return ret;
		}
		if (tally) {
			counts[ec->index]++;
			if (!n++) {
				first = clock;
			}
			continue;
		}
		if (at) {
			/* report() for .records_at, the stream's place kept
			 * for the callback only */
			struct ht_ctf_scan_rec *q = &b.at[b.n];

			q->cls = &ec->pub;
			q->cycles = clock;
			q->start_bits = start;
			q->end_bits = pos;
			if (++b.n == SCAN_BATCH) {
				s->pos = pos;
				s->clock = clock;
				ret = batch_flush(ops, &b);
				if (ret) {
					return ret;
				}
			}
			continue;
		}
		s->pos = pos;
		s->clock = clock;
		ret = report(ops, &b, &ec->pub, clock, start, pos);
		if (ret) {
			return ret;
		}
	}
	if (tally && n != s->tally_n) {
		/* the last record counted is the packet's last */
		s->tally_n = n;
		s->tally_first = first;
		s->tally_last = clock;
	}
	s->pos = pos;
	s->clock = clock;
	return !tally && batched(ops) ? batch_flush(ops, &b) : 0;
}

/* The same for any event header, walked. */
static int scan_records_any_header(struct ht__stream *s,
				   const struct ht_ctf_scan_ops *ops)
{
	struct ht__stream_class *sc = s->sc;
	struct ht__event_class *only = only_class(sc);
	struct batch b;
	int ret;

	b.n = 0;
	while (s->pos < s->content_end) {
		const uint64_t start = s->pos, clock = s->clock;
		struct ht__event_class *ec;
		uint64_t pos;

		s->mset &= ~(1u << HT__M_EVENT_ID);
		if (ht__skip_scope(s, &sc->event_header)) {
			goto slow;
		}
		ec = s->mset & (1u << HT__M_EVENT_ID)
			 ? class_of(sc, s->mval[HT__M_EVENT_ID])
			 : only;
		if (!ec) {
			goto slow;
		}
		pos = scan_steps(s, ec->skip, ec->nr_skip, s->pos);
		if (pos == UINT64_MAX || pos == start) {
			goto slow;
		}
		s->pos = pos;
		goto report;
	slow:
		s->pos = start;
		s->clock = clock;
		ret = record_slow(s, &ec);
		if (ret) {
			return damaged(s, ops, &b, start, clock, ret);
		}
	report:
		if (s->clock < clock &&
		    (ret = record_back(s, ec, start, s->clock, clock)) != 0) {
			if (!(s->flags & HT_CTF_KEEP_GOING)) {
				s->pos = start;
				s->clock = clock;
				return damaged(s, ops, &b, start, clock, ret);
			}
			/* counted, then reported; the next call goes on */
			if (ops->tally) {
				tally_add(s, ec, s->clock);
			} else {
				int r = report(ops, &b, &ec->pub, s->clock,
					       start, s->pos);

				if (!r && batched(ops)) {
					r = batch_flush(ops, &b);
				}
				if (r) {
					return r;
				}
			}
			return ret;
		}
		if (ops->tally) {
			tally_add(s, ec, s->clock);
			continue;
		}
		ret = report(ops, &b, &ec->pub, s->clock, start, s->pos);
		if (ret) {
			return ret;
		}
	}
	return !ops->tally && batched(ops) ? batch_flush(ops, &b) : 0;
}

/* The records of the current packet, counted or reported. */
static int scan_records(struct ht__stream *s, const struct ht_ctf_scan_ops *ops)
{
	if (!s->sc->hdr_fast && !s->sc->hdr_var.nr) {
		return scan_records_any_header(s, ops);
	}
	/* copies of the loop: without the reporting, with .records_at,
	 * with the other callbacks; by header */
	if (s->sc->hdr_var.nr) {
		return ops->tally
			   ? scan_fixed_header(s, ops, true, false, HDR_VARIANT)
		       : ops->records_at
			   ? scan_fixed_header(s, ops, false, true, HDR_VARIANT)
			   : scan_fixed_header(s, ops, false, false,
					       HDR_VARIANT);
	}
	if (s->sc->hdr_one_load) {
		return ops->tally ? scan_fixed_header(s, ops, true, false,
						      HDR_ONE_LOAD)
		       : ops->records_at
			   ? scan_fixed_header(s, ops, false, true,
					       HDR_ONE_LOAD)
			   : scan_fixed_header(s, ops, false, false,
					       HDR_ONE_LOAD);
	}
	return ops->tally ? scan_fixed_header(s, ops, true, false, HDR_FIXED)
	       : ops->records_at
		   ? scan_fixed_header(s, ops, false, true, HDR_FIXED)
		   : scan_fixed_header(s, ops, false, false, HDR_FIXED);
}

/* Makes s->tally fit the stream class's event classes. */
static int tally_prepare(struct ht__stream *s)
{
	const size_t nr = s->sc->pub.nr_event_classes;
	uint64_t *t;

	if (s->tally && s->nr_tally == nr) {
		return 0;
	}
	t = realloc(s->tally, (nr ? nr : 1) * sizeof(*t));
	if (!t) {
		return HT_ENOMEM;
	}
	if (nr > s->nr_tally) {
		memset(t + s->nr_tally, 0, (nr - s->nr_tally) * sizeof(*t));
	}
	s->tally = t;
	s->nr_tally = nr;
	return 0;
}

static int scan(struct ht__stream *s, const struct ht_ctf_scan_ops *ops)
{
	int ret;

	for (;;) {
		switch (s->state) {
		case HT__S_BEGIN:
			s->tally_n = s->tally_first = s->tally_last = 0;
			if (s->tally) {
				memset(s->tally, 0,
				       s->nr_tally * sizeof(*s->tally));
			}
			s->state = HT__S_PACKET;
			continue;
		case HT__S_PACKET: {
			uint64_t discarded, lost;

			ht__stream_release(s, s->pkt_off);
			if (s->pkt_off >= s->size) {
				s->state = HT__S_END;
				continue;
			}
			ret = ht__stream_read_packet(s, ops->packet_fields);
			if (ret) {
				return ht__stream_damaged(s, ret);
			}
			ht__stream_losses(s, &discarded, &lost);
			s->state = HT__S_EVENTS;
			if (ops->tally && (ret = tally_prepare(s)) != 0) {
				return ret;
			}
			if (ops->packet) {
				ret = ops->packet(ops->arg, &s->pub, &s->pkt,
						  discarded, lost);
				if (ret) {
					return ret;
				}
			}
			/* time going back: the stream ends, or goes on
			 * (HT_CTF_KEEP_GOING) once it is reported */
			ret = ht__stream_packet_time(s);
			if (ret) {
				return ret;
			}
			continue;
		}
		case HT__S_QUEUE:
		case HT__S_EVENTS:
			ret = scan_records(s, ops);
			if (ret) {
				return ret;
			}
			ret = ht__stream_end_time(s);
			if (ret && s->state == HT__S_END) {
				return ret;
			}
			ht__stream_end_packet(s);
			if (ret) {
				return ret;
			}
			continue;
		case HT__S_HOLD:
			s->state = s->hold_state;
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

int ht__stream_scan(struct ht__stream *s, const struct ht_ctf_scan_ops *ops)
{
	int ret = scan(s, ops), r;

	if (!ops->tally) {
		return ret;
	}
	r = ops->tally(ops->arg, &s->pub, s->tally, s->tally ? s->nr_tally : 0,
		       s->tally_n, s->tally_first, s->tally_last);
	return ret ? ret : r;
}
