/* SPDX-License-Identifier: MIT */
/*
 * What the fast paths need of a stream class, computed once its plans
 * and runs are built: the fixed event header read in one load or as
 * LTTng's compact/extended variant header, and the steps the scan
 * takes over each event class's records (struct ht__skip), with the
 * table of scan entries by event id.
 */
#include <stdlib.h>
#include <string.h>

#include "ctf-model.h"
#include "common/error.h"

static bool scope_fast(const struct ht__plan *p)
{
	return !p->nr_ops || p->root_run || p->flat_tmpl || p->flat_var;
}

/* Whether leaf @l is an unsigned little-endian one that one 8-byte
 * load at any bit of its run's first byte holds. */
static bool one_load_leaf(const struct ht__leaf *l)
{
	return l->load == HT__LOAD_LE && !l->sign &&
	       l->off_bits + l->size_bits + 7 <= 64;
}

/* Sets .hdr_one_load and its shifts and masks (see ctf-model.h). */
static void plan_one_load(struct ht__stream_class *sc)
{
	const struct ht__run *r = sc->hdr_fast;
	const struct ht__leaf *id =
	    sc->hdr_id_leaf >= 0 ? &r->leaves[sc->hdr_id_leaf] : NULL;
	const struct ht__leaf *ts =
	    sc->hdr_ts_leaf >= 0 ? &r->leaves[sc->hdr_ts_leaf] : NULL;

	sc->hdr_one_load =
	    id && one_load_leaf(id) && (!ts || one_load_leaf(ts));
	if (!sc->hdr_one_load) {
		return;
	}
	sc->hdr_id_shift = id->off_bits;
	sc->hdr_id_mask = id->mask;
	sc->hdr_ts_shift = ts ? ts->off_bits : 0;
	sc->hdr_ts_mask = ts ? ts->mask : 0;
}

/* Whether leaf @l can be loaded as a plain one (8 bytes, shifted). */
static bool plain_load(const struct ht__leaf *l)
{
	return (l->load == HT__LOAD_LE || l->load == HT__LOAD_BE) && !l->sign;
}

/* Fills option @ho from variant option @o (a structure of one run). */
static bool plan_hdr_option(struct ht__hdr_option *ho, const struct ht__op *o)
{
	const struct ht__run *r;
	uint32_t i;

	if (o->kind != HT__OP_STRUCT || o->nr_runs != 1 || !o->runs[0].tmpl) {
		return false;
	}
	r = &o->runs[0];
	ho->run = r;
	ho->align_bits =
	    o->align_bits > r->align_bits ? o->align_bits : r->align_bits;
	if (!ho->align_bits) {
		ho->align_bits = 1;
	}
	ho->size_bits = r->size_bits;
	ho->has_id = ho->has_ts = false;
	for (i = r->nr_plain; i < r->nr_leaves; i++) {
		const struct ht__leaf *l = &r->leaves[i];

		if (!plain_load(l) || l->reg >= 0) {
			return false;
		}
		if (l->meaning == HT__M_EVENT_ID && !l->clock && !ho->has_id) {
			ho->has_id = true;
			ho->id = *l;
		} else if (l->clock && !l->meaning && !ho->has_ts) {
			ho->has_ts = true;
			ho->ts = *l;
		} else {
			return false;
		}
	}
	return true;
}

/*
 * Whether option @o of @hv is its timestamp alone, at the bit after
 * the tag without alignment, tag and timestamp in 64 bits (see
 * struct ht__hdr_option's .in_word).
 */
static bool option_in_word(const struct ht__hdr_var *hv,
			   const struct ht__hdr_option *o)
{
	const struct ht__run *r = o->run;

	return o->has_ts && !o->has_id && r->nr_leaves == 1 &&
	       o->ts.load == HT__LOAD_LE && !o->ts.off_bits && !o->ts.sign &&
	       hv->tag_bits % o->align_bits == 0 &&
	       hv->align_bits % o->align_bits == 0 &&
	       hv->tag_bits + o->size_bits <= 64;
}

/* Fills .hdr_var of @sc when its event header is one (ctf-plan.h). */
static void plan_hdr_variant(struct ht__stream_class *sc)
{
	const struct ht__plan *p = &sc->event_header;
	struct ht__hdr_var *hv = &sc->hdr_var;
	const struct ht__op *root, *var;
	const struct ht__run *r0;
	const struct ht__leaf *tag = NULL;
	uint32_t i, vi;

	hv->nr = 0;
	memset(hv->by_tag, 0, sizeof(hv->by_tag));
	if (sc->hdr_fast || !p->nr_ops || p->root_run) {
		return;
	}
	root = &p->ops[0];
	if (root->kind != HT__OP_STRUCT || root->nr_runs != 2 ||
	    !root->runs[0].tmpl || root->runs[1].tmpl) {
		return;
	}
	r0 = &root->runs[0];
	vi = root->runs[1].member_op;
	var = &p->ops[vi];
	if (var->kind != HT__OP_VARIANT || var->nr_sel > HT__HDR_OPTIONS ||
	    !var->nr_sel || var->tag_signed ||
	    r0->align_bits > root->align_bits) {
		return;
	}
	/* the first run's one saving leaf: the id, the variant's tag */
	for (i = r0->nr_plain; i < r0->nr_leaves; i++) {
		const struct ht__leaf *l = &r0->leaves[i];

		if (tag || !plain_load(l) || l->reg != var->src_reg ||
		    l->clock || l->meaning != HT__M_EVENT_ID) {
			return;
		}
		tag = l;
	}
	if (!tag) {
		return;
	}
	for (i = 0; i < var->nr_sel; i++) {
		const struct ht__variant_sel *sel = &var->sel[i];
		const struct ht__op *o =
		    &p->ops[vi + var->option_op[sel->option]];

		if (!plan_hdr_option(&hv->opt[i], o)) {
			return;
		}
		hv->opt[i].lo = sel->lo;
		hv->opt[i].hi = sel->hi;
		hv->opt[i].field_base = 1 + r0->nr_fields + 2;
		hv->opt[i].index = i;
	}
	hv->tag_run = r0;
	hv->align_bits = root->align_bits ? root->align_bits : 1;
	hv->tag_bits = r0->size_bits;
	hv->tag = *tag;
	hv->nr = var->nr_sel;
	hv->tag_word = r0->nr_leaves == 1 && tag->load == HT__LOAD_LE &&
		       !tag->off_bits && !tag->sign && hv->align_bits % 8 == 0;
	for (i = 0; i < hv->nr; i++) {
		struct ht__hdr_option *o = &hv->opt[i];
		uint64_t t;

		o->in_word = hv->tag_word && option_in_word(hv, o);
		for (t = 0; t < HT__HDR_TAGS; t++) {
			if (!hv->by_tag[t] && t >= (uint64_t)o->lo &&
			    t <= (uint64_t)o->hi) {
				hv->by_tag[t] = (uint8_t)(i + 1);
			}
		}
	}
}

/* Fills the fast-path descriptions of @sc (see ctf-model.h). */
void ht__plan_fast_paths(struct ht__stream_class *sc)
{
	const struct ht__run *r = sc->event_header.root_run;
	uint32_t i, nr_clock = 0;
	size_t e;

	sc->hdr_fast = NULL;
	sc->hdr_one_load = false;
	sc->hdr_id = sc->hdr_ts = -1;
	sc->hdr_id_leaf = sc->hdr_ts_leaf = -1;
	for (i = 0; r && i < r->nr_leaves; i++) {
		const struct ht__leaf *l = &r->leaves[i];

		if ((l->load != HT__LOAD_LE && l->load != HT__LOAD_BE) ||
		    l->reg >= 0 ||
		    (l->meaning && l->meaning != HT__M_EVENT_ID) ||
		    (l->clock && l->meaning)) {
			break;
		}
		if (l->meaning == HT__M_EVENT_ID) {
			if (sc->hdr_id >= 0) {
				break;
			}
			sc->hdr_id = l->field;
			sc->hdr_id_leaf = i;
		}
		if (l->clock) {
			nr_clock++;
			sc->hdr_ts = l->field;
			sc->hdr_ts_bits = l->size_bits;
			sc->hdr_ts_leaf = i;
		}
	}
	if (r && i == r->nr_leaves && nr_clock <= 1) {
		sc->hdr_fast = r;
		plan_one_load(sc);
	} else {
		sc->hdr_id = sc->hdr_ts = -1;
		sc->hdr_id_leaf = sc->hdr_ts_leaf = -1;
	}
	plan_hdr_variant(sc);
	for (e = 0; e < sc->pub.nr_event_classes; e++) {
		struct ht__event_class *ec =
		    (struct ht__event_class *)sc->pub.event_classes[e];

		ec->fast = scope_fast(&sc->event_context) &&
			   scope_fast(&ec->context) && scope_fast(&ec->payload);
	}
}

/* Appends step @k to @out (*@n steps), merged with the last when it can. */
static void skip_add(struct ht__skip *out, uint32_t *n, struct ht__skip k)
{
	struct ht__skip *last = *n ? &out[*n - 1] : NULL;
	uint32_t a = k.kind == HT__SKIP_OP	 ? k.ops[k.op].align_bits
		     : k.kind == HT__SKIP_STRING ? 8
						 : k.align_bits;

	if (!a) {
		a = 1;
	}

	if (last && last->kind == HT__SKIP_FIXED && !last->size_bits &&
	    a >= last->align_bits) {
		/* an alignment that the step makes anyway */
		*n -= 1;
		last = *n ? &out[*n - 1] : NULL;
	}
	if (last && last->kind == HT__SKIP_FIXED && k.kind == HT__SKIP_FIXED &&
	    k.align_bits <= last->align_bits) {
		/* after the last step the position is its size modulo its
		 * alignment, which @k's alignment divides: the padding
		 * before @k is constant */
		last->size_bits =
		    ht__align_up(last->size_bits, k.align_bits) + k.size_bits;
		return;
	}
	out[(*n)++] = k;
}

static void skip_add_run(struct ht__skip *out, uint32_t *n,
			 const struct ht__run *r)
{
	struct ht__skip k = {.align_bits = r->align_bits ? r->align_bits : 1};

	if (r->side) {
		const struct ht__leaf *l = &r->leaves[r->nr_plain];

		k.kind = HT__SKIP_RUN;
		k.run = r;
		if (r->nr_side == 1 && l->reg >= 0 && !l->meaning &&
		    !l->clock &&
		    (l->load == HT__LOAD_LE || l->load == HT__LOAD_BE)) {
			k.kind = HT__SKIP_LEN;
			k.leaf = l;
			k.size_bits = r->size_bits;
		}
	} else {
		k.kind = HT__SKIP_FIXED;
		k.size_bits = r->size_bits;
	}
	skip_add(out, n, k);
}

/* The steps of scope @p (at most its root's runs plus one). */
static void skip_scope(const struct ht__plan *p, struct ht__skip *out,
		       uint32_t *n)
{
	const struct ht__op *root;
	uint32_t k;

	if (!p->nr_ops) {
		return;
	}
	root = &p->ops[0];
	if (p->root_run) {
		skip_add_run(out, n, p->root_run);
		return;
	}
	if (root->kind != HT__OP_STRUCT) {
		skip_add(out, n,
			 (struct ht__skip){.kind = HT__SKIP_OP, .ops = p->ops});
		return;
	}
	if (root->align_bits > 1) {
		skip_add(out, n,
			 (struct ht__skip){.kind = HT__SKIP_FIXED,
					   .align_bits = root->align_bits});
	}
	for (k = 0; k < root->nr_runs; k++) {
		const struct ht__run *r = &root->runs[k];

		if (r->tmpl) {
			skip_add_run(out, n, r);
		} else if (p->ops[r->member_op].kind == HT__OP_STRING) {
			skip_add(out, n,
				 (struct ht__skip){.kind = HT__SKIP_STRING,
						   .align_bits = 8});
		} else {
			const struct ht__op *op = &p->ops[r->member_op];
			const struct ht__run *er = op->elem_run;
			struct ht__skip k = {.kind = HT__SKIP_OP,
					     .ops = p->ops,
					     .op = r->member_op};

			if ((op->kind == HT__OP_SEQ ||
			     op->kind == HT__OP_ARRAY) &&
			    er && !er->side && er->align_bits &&
			    er->size_bits % er->align_bits == 0 &&
			    er->align_bits <= op->align_bits) {
				/* elements one after the other: a sequence
				 * is its length times their size, an array
				 * a fixed run */
				k.kind = op->kind == HT__OP_SEQ
					     ? HT__SKIP_SEQ
					     : HT__SKIP_FIXED;
				k.align_bits = op->align_bits;
				k.size_bits = er->size_bits;
				if (op->kind == HT__OP_ARRAY) {
					k.size_bits *= op->nr;
				}
			}
			skip_add(out, n, k);
		}
	}
}

static uint32_t skip_bound(const struct ht__plan *p)
{
	if (!p->nr_ops) {
		return 0;
	}
	return p->ops[0].kind == HT__OP_STRUCT ? p->ops[0].nr_runs + 1 : 1;
}

/* Step @k by value in @q; false when it is not a quick one. */
static bool quick_step(struct ht__quick_step *q, const struct ht__skip *k)
{
	q->kind = k->kind;
	q->align_bits = k->align_bits;
	q->size_bits = k->size_bits;
	switch (k->kind) {
	case HT__SKIP_FIXED:
	case HT__SKIP_STRING:
		return true;
	case HT__SKIP_LEN:
		q->leaf = *k->leaf;
		return true;
	case HT__SKIP_SEQ:
		q->leaf.reg = k->ops[k->op].src_reg;
		return k->size_bits > 0;
	default:
		return false;
	}
}

/* Compiles the scan steps of every event class of @sc. */
int ht__plan_skips(struct ht__trace *t, struct ht__stream_class *sc)
{
	size_t e;

	for (e = 0; e < sc->pub.nr_event_classes; e++) {
		struct ht__event_class *ec =
		    (struct ht__event_class *)sc->pub.event_classes[e];
		uint32_t max = skip_bound(&sc->event_context) +
			       skip_bound(&ec->context) +
			       skip_bound(&ec->payload);
		struct ht__skip *k;

		k = ht__arena_alloc(&t->arena, (max + 1) * sizeof(*k));
		if (!k) {
			return HT_ENOMEM;
		}
		ec->nr_skip = 0;
		skip_scope(&sc->event_context, k, &ec->nr_skip);
		skip_scope(&ec->context, k, &ec->nr_skip);
		skip_scope(&ec->payload, k, &ec->nr_skip);
		ec->skip = k;
		if (sc->hdr_fast) {
			/* a fixed header and the fixed step after it, as
			 * one when the padding between them is constant */
			const struct ht__run *h = sc->hdr_fast;

			ec->head_bits = h->size_bits;
			if (ec->nr_skip && k->kind == HT__SKIP_FIXED &&
			    k->align_bits <=
				(h->align_bits ? h->align_bits : 1)) {
				ec->head_bits =
				    ht__align_up(h->size_bits, k->align_bits) +
				    k->size_bits;
				ec->skip++;
				ec->nr_skip--;
			}
		}
	}
	if ((sc->hdr_fast || sc->hdr_var.nr) && sc->nr_by_id) {
		sc->scan_by_id = ht__arena_alloc(
		    &t->arena, sc->nr_by_id * sizeof(*sc->scan_by_id));
		if (!sc->scan_by_id) {
			return HT_ENOMEM;
		}
		for (e = 0; e < sc->pub.nr_event_classes; e++) {
			struct ht__event_class *ec =
			    (struct ht__event_class *)sc->pub.event_classes[e];
			struct ht__scan_entry *se = &sc->scan_by_id[ec->pub.id];
			uint32_t q;

			se->head_bits = ec->head_bits;
			se->ec = ec;
			se->skip = ec->skip;
			se->nr_skip = ec->nr_skip;
			se->index = ec->index;
			bool quick = ec->nr_skip <= HT__QUICK_STEPS;

			for (q = 0; q < ec->nr_skip && quick; q++) {
				quick = quick_step(&se->q[q], &ec->skip[q]);
			}
			se->shape = !quick	       ? HT__SHAPE_STEPS
				    : ec->nr_skip == 0 ? HT__SHAPE_NONE
				    : ec->nr_skip > 1  ? HT__SHAPE_QUICK
				    : se->q[0].kind == HT__SKIP_FIXED
					? HT__SHAPE_FIXED
				    : se->q[0].kind == HT__SKIP_STRING
					? HT__SHAPE_STRING
					: HT__SHAPE_QUICK;
		}
	}
	return 0;
}
