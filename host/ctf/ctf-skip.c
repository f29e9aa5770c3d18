/* SPDX-License-Identifier: MIT */
/*
 * Skipping a scope without fields: a fixed run by its size (only the
 * leaves that save a sequence length, a variant tag, an event id or a
 * clock value are loaded), a string by its terminator, a sequence of
 * fixed elements by its length times their size; variants are
 * followed. The packet reader skips packet scopes this way when no
 * field is wanted, the scan skips records.
 */
#include "ctf-stream.h"

void ht__skip_side_leaves(struct ht__stream *s, const struct ht__run *r,
			  uint64_t pos)
{
	const struct ht__leaf *l = r->leaves + r->nr_plain;
	const struct ht__leaf *end = l + r->nr_side;

	for (; l < end; l++) {
		uint64_t v;

		if (l->load == HT__LOAD_LE || l->load == HT__LOAD_BE) {
			v = ht__leaf_value(s->map, pos, l);
		} else {
			v = ht__read_bits_slow(s->map, pos + l->off_bits,
					       l->size_bits, l->bo);
			v = (v ^ l->sign) - l->sign;
		}
		ht__int_side(s, l->reg, l->meaning, l->clock, v, l->size_bits);
	}
}

int ht__skip_op(struct ht__stream *s, const struct ht__op *ops, uint32_t i)
{
	const struct ht__op *op = &ops[i];
	uint64_t pos = s->pos;

	if (op->kind == HT__OP_STRING) {
		pos = ht__skip_string(s->map, pos, s->content_end);
		if (pos > s->content_end) {
			return 1;
		}
		s->pos = pos;
		return 0;
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
			ht__int_side(s, op->reg, op->meaning, op->clock, v,
				     op->size_bits);
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
				ret = ht__skip_run(s, r);
			} else {
				ret = ht__skip_op(s, ops, i + r->member_op);
			}
			if (ret) {
				return ret;
			}
		}
		return 0;
	}
	case HT__OP_ARRAY:
	case HT__OP_SEQ: {
		const struct ht__run *r = op->elem_run;
		uint64_t len, k;

		s->pos = pos;
		/* the full decoder's limits */
		if (!ht__elems_fit(s, ops, i, pos, &len) || len > UINT32_MAX) {
			return 1;
		}
		if (!len) {
			return 0;
		}
		if (!ops[i + 1].min_bits) {
			/* elements of maybe zero bits: the decoder counts
			 * them (ctf-stream.h), the scan takes the same
			 * limits by going through it */
			return 1;
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
			int ret =
			    r ? ht__skip_run(s, r) : ht__skip_op(s, ops, i + 1);

			if (ret) {
				return ret;
			}
		}
		return 0;
	}
	case HT__OP_VARIANT: {
		uint64_t tag = s->regs[op->src_reg];
		uint32_t k = ht__variant_select(op, tag);

		if (k == op->nr_sel) {
			return 1;
		}
		s->pos = pos;
		return ht__skip_op(s, ops,
				   i + op->option_op[op->sel[k].option]);
	}
	case HT__OP_VARINT:
		return ht__varint_skip(s, op, pos);
	case HT__OP_USTRING:
		return ht__ustring_skip(s, op, pos);
	case HT__OP_OPTIONAL:
		return ht__optional_skip(s, ops, i, pos);
	}
	return 1;
}

/* Skips scope @p at s->pos. Returns 0, or 1 when anything is wrong. */
int ht__skip_scope(struct ht__stream *s, const struct ht__plan *p)
{
	if (!p->nr_ops) {
		return 0;
	}
	if (p->root_run) {
		return ht__skip_run(s, p->root_run);
	}
	return ht__skip_op(s, p->ops, 0);
}
