/* SPDX-License-Identifier: MIT */
/*
 * Fixed runs (struct ht__run, ctf-plan.h): the members of a structure,
 * the element of an array or a sequence, or a whole scope whose layout
 * is constant once its start is aligned, flattened into a field
 * template and leaves at constant offsets; and flat scopes, structures
 * of fixed runs and strings.
 */
#include <stdlib.h>
#include <string.h>

#include "ctf-model.h"
#include "common/error.h"

/* Fixed runs bigger than this go through the general interpreter. */
#define FX_MAX_FIELDS 4096
#define FX_MAX_BITS (UINT64_C(1) << 30)

/*
 * Marks the ops whose subtree has a constant layout and shape: integers,
 * floats, and structures and static arrays of them whose members are
 * not more aligned than they are. Children come after their parent in
 * pre-order, so a backward pass sees them first.
 */
static void mark_fixed(struct ht__op *ops, uint32_t nr_ops)
{
	uint32_t i = nr_ops;

	while (i-- > 0) {
		struct ht__op *op = &ops[i];
		uint64_t off = 0, fields = 1, leaves = 0;

		op->fixed = 0;
		switch (op->kind) {
		case HT__OP_INT:
		case HT__OP_FLOAT:
			if (op->size_bits < 1 || op->size_bits > 64) {
				continue;
			}
			op->fixed = 1;
			op->fx_bits = op->size_bits;
			op->fx_fields = op->fx_leaves = 1;
			continue;
		case HT__OP_STRUCT: {
			uint32_t c = i + 1, k;

			for (k = 0; k < op->nr; k++) {
				const struct ht__op *m = &ops[c];

				if (!m->fixed ||
				    m->align_bits > op->align_bits) {
					break;
				}
				off = ht__align_up(off, m->align_bits) +
				      m->fx_bits;
				fields += m->fx_fields;
				leaves += m->fx_leaves;
				c += m->span;
			}
			if (k < op->nr) {
				continue;
			}
			break;
		}
		case HT__OP_ARRAY: {
			const struct ht__op *e = &ops[i + 1];
			uint64_t stride;

			if (!e->fixed || e->align_bits > op->align_bits ||
			    op->nr > FX_MAX_FIELDS) {
				continue;
			}
			stride = ht__align_up(e->fx_bits, e->align_bits);
			off = op->nr ? (op->nr - 1) * stride + e->fx_bits : 0;
			fields += (uint64_t)op->nr * e->fx_fields;
			leaves += (uint64_t)op->nr * e->fx_leaves;
			break;
		}
		default:
			continue;
		}
		if (fields > FX_MAX_FIELDS || off > FX_MAX_BITS) {
			continue;
		}
		op->fixed = 1;
		op->fx_bits = off;
		op->fx_fields = fields;
		op->fx_leaves = leaves;
	}
}

struct run_builder {
	const struct ht__op *ops;
	struct ht_ctf_field *tmpl;
	struct ht__leaf *leaves;
	uint32_t nf, nl;
	bool byte_aligned; /* the run's start is on a byte */
};

/* Adds the fields and leaves of fixed op @i at offset @off of the run. */
static void walk_fixed(struct run_builder *rb, uint32_t i, uint64_t off)
{
	const struct ht__op *op = &rb->ops[i];
	uint32_t fi = rb->nf++;
	struct ht_ctf_field *f = &rb->tmpl[fi];
	bool host_le = true;
	uint16_t probe = 1;

	memcpy(&host_le, &probe, 1);
	f->type = op->type;
	f->name = op->name;
	f->next = 1;
	f->nr_children = 0;
	f->v.u = 0;
	switch (op->kind) {
	case HT__OP_INT:
	case HT__OP_FLOAT: {
		struct ht__leaf *l = &rb->leaves[rb->nl++];
		bool bytes = rb->byte_aligned && off % 8 == 0;
		bool host = (op->bo == HT_CTF_LE) == host_le;

		l->off_bits = off;
		l->off_bytes = off / 8;
		l->field = fi;
		l->size_bits = op->size_bits;
		l->bo = op->bo;
		l->side = op->kind == HT__OP_INT &&
			  (op->meaning || op->clock || op->reg >= 0);
		l->meaning = op->meaning;
		l->clock = op->clock;
		l->reg = op->reg;
		l->mask = op->size_bits < 64
			      ? (UINT64_C(1) << op->size_bits) - 1
			      : ~UINT64_C(0);
		l->sign = op->kind == HT__OP_INT && op->is_signed &&
				  op->size_bits < 64
			      ? UINT64_C(1) << (op->size_bits - 1)
			      : 0;
		if (op->kind == HT__OP_FLOAT) {
			l->load = HT__LOAD_FSLOW;
			if (bytes && host && op->size_bits == 32) {
				l->load = HT__LOAD_F32;
			} else if (bytes && host && op->size_bits == 64) {
				/* the bits as they are: a plain 64-bit load */
				l->load = host_le ? HT__LOAD_LE : HT__LOAD_BE;
			}
			break;
		}
		/* one 8-byte load holds the value when it starts on a byte
		 * or spans at most 57 bits (the shift is at most 7) */
		if (!bytes && op->size_bits > 57) {
			l->load = HT__LOAD_SLOW;
		} else {
			l->load =
			    op->bo == HT_CTF_LE ? HT__LOAD_LE : HT__LOAD_BE;
		}
		break;
	}
	case HT__OP_STRUCT: {
		uint32_t c = i + 1, k;

		for (k = 0; k < op->nr; k++) {
			off = ht__align_up(off, rb->ops[c].align_bits);
			walk_fixed(rb, c, off);
			off += rb->ops[c].fx_bits;
			c += rb->ops[c].span;
		}
		f->nr_children = op->nr;
		f->next = rb->nf - fi;
		break;
	}
	case HT__OP_ARRAY: {
		uint32_t k;

		for (k = 0; k < op->nr; k++) {
			off = ht__align_up(off, rb->ops[i + 1].align_bits);
			walk_fixed(rb, i + 1, off);
			off += rb->ops[i + 1].fx_bits;
		}
		/* the element walk left its name (NULL) in place */
		f->nr_children = op->nr;
		f->next = rb->nf - fi;
		break;
	}
	default:
		break;
	}
}

/*
 * Fills run @r: @n fixed members of @parent starting at op @first,
 * their start aligned to @align_bits. Returns 0 or HT_ENOMEM.
 */
static int make_run(struct ht__trace *t, const struct ht__op *ops,
		    uint32_t parent, uint32_t first, uint32_t n,
		    uint32_t align_bits, struct ht__run *r)
{
	struct run_builder rb = {.ops = ops};
	uint64_t fields = 0, leaves = 0, off = 0;
	uint32_t c = first, k;

	for (k = 0; k < n; k++) {
		off = ht__align_up(off, ops[c].align_bits) + ops[c].fx_bits;
		fields += ops[c].fx_fields;
		leaves += ops[c].fx_leaves;
		c += ops[c].span;
	}
	rb.tmpl = ht__arena_alloc(&t->arena, fields * sizeof(*rb.tmpl));
	rb.leaves =
	    ht__arena_alloc(&t->arena, (leaves + 1) * sizeof(*rb.leaves));
	if (!rb.tmpl || !rb.leaves) {
		return HT_ENOMEM;
	}
	rb.byte_aligned = align_bits % 8 == 0;
	off = 0;
	c = first;
	for (k = 0; k < n; k++) {
		off = ht__align_up(off, ops[c].align_bits);
		walk_fixed(&rb, c, off);
		off += ops[c].fx_bits;
		c += ops[c].span;
	}
	/* plain leaves first (stable: the others keep their order, which
	 * matters for clock updates) */
	{
		struct ht__leaf *tmp = malloc((rb.nl + 1) * sizeof(*tmp));
		uint32_t j, np = 0, no = 0;

		if (!tmp) {
			return HT_ENOMEM;
		}
		/* the plain ones, then the ones that save something (their
		 * order kept: clock updates), then the others */
		r->bytes = align_bits >= 8 && align_bits % 8 == 0;
		for (j = 0; j < rb.nl; j++) {
			const struct ht__leaf *l = &rb.leaves[j];

			if (!l->side && l->load == HT__LOAD_LE) {
				tmp[np++] = *l;
			}
		}
		r->nr_le = np;
		for (j = 0; j < rb.nl; j++) {
			const struct ht__leaf *l = &rb.leaves[j];

			if (!l->side && l->load == HT__LOAD_BE) {
				tmp[np++] = *l;
			}
		}
		for (j = 0; j < np; j++) {
			if (tmp[j].off_bits % 8) {
				r->bytes = false;
			}
		}
		for (j = 0; j < rb.nl; j++) {
			if (rb.leaves[j].side) {
				tmp[np + no++] = rb.leaves[j];
			}
		}
		r->nr_side = no;
		for (j = 0; j < rb.nl; j++) {
			const struct ht__leaf *l = &rb.leaves[j];

			if (!l->side && l->load != HT__LOAD_LE &&
			    l->load != HT__LOAD_BE) {
				tmp[np + no++] = *l;
			}
		}
		memcpy(rb.leaves, tmp, rb.nl * sizeof(*tmp));
		free(tmp);
		r->nr_plain = np;
	}
	r->side = r->nr_side != 0;
	r->member_op = first - parent;
	r->nr_members = n;
	r->align_bits = align_bits;
	r->size_bits = off;
	r->nr_fields = rb.nf;
	r->nr_leaves = rb.nl;
	r->tmpl = rb.tmpl;
	r->leaves = rb.leaves;
	r->le_end = rb.leaves + r->nr_le;
	r->plain_end = rb.leaves + r->nr_plain;
	return 0;
}

/*
 * Whether member op @m is an array or a sequence of fixed elements
 * that are never of zero bits (a flat scope with sequences may hold
 * it).
 */
static bool var_member(const struct ht__op *m)
{
	return (m->kind == HT__OP_ARRAY || m->kind == HT__OP_SEQ) &&
	       m->elem_run && m[1].min_bits > 0;
}

/* The largest power of two that divides @bits (0: none, any). */
static uint64_t low_bit(uint64_t bits)
{
	return bits ? bits & -bits : UINT64_MAX;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * Sets .flat_align_bits of the runs of flat scope with sequences @p:
 * the alignment the position is known to have (from the packet's
 * start, which is on a byte) is followed from the scope's start
 * through each run, string and sequence; a run or a sequence that
 * needs no more is not aligned again at decode time.
 */
static void plan_flat_align(struct ht__plan *p)
{
	const struct ht__op *root = &p->ops[0];
	struct ht__run *runs = (struct ht__run *)root->runs;
	uint64_t known = max_u64(root->align_bits, 1);
	uint32_t k;

	for (k = 0; k < root->nr_runs; k++) {
		struct ht__run *r = &runs[k];
		const struct ht__op *m = &p->ops[r->member_op];
		uint64_t a;

		if (r->tmpl) {
			a = max_u64(r->align_bits, 1);
			r->flat_align_bits = a <= known ? 1 : r->align_bits;
			known =
			    min_u64(max_u64(known, a), low_bit(r->size_bits));
		} else if (m->kind == HT__OP_STRING) {
			/* on a byte, and a whole number of bytes */
			r->flat_align_bits = m->align_bits;
			known = 8;
		} else {
			const struct ht__run *er = m->elem_run;
			uint64_t ea = max_u64(er->align_bits, 1);

			a = max_u64(m->align_bits, 1);
			r->flat_align_bits = a <= known ? 1 : m->align_bits;
			known = max_u64(known, a);
			/* no element, or after the last one */
			known =
			    min_u64(known, min_u64(ea, low_bit(er->size_bits)));
			if (m[1].kind == HT__OP_INT &&
			    m[1].fast == HT__FAST_U8) {
				/* the byte loop puts them on a byte */
				known = min_u64(known, 8);
			}
		}
	}
}

/*
 * Makes @p a flat scope (see struct ht__plan) when its root structure's
 * runs are all fixed runs or string members, or a flat scope with
 * sequences when some are arrays or sequences of fixed elements.
 */
static int make_flat(struct ht__trace *t, struct ht__plan *p)
{
	const struct ht__op *root = &p->ops[0];
	struct ht__run *runs = (struct ht__run *)root->runs;
	struct ht_ctf_field *f;
	uint64_t n = 1;
	uint32_t k, nr_var = 0;

	for (k = 0; k < root->nr_runs; k++) {
		const struct ht__run *r = &runs[k];

		if (r->tmpl) {
			n += r->nr_fields;
		} else if (p->ops[r->member_op].kind == HT__OP_STRING) {
			n++;
		} else if (var_member(&p->ops[r->member_op])) {
			nr_var++;
			n++;
		} else {
			return 0;
		}
	}
	if (nr_var) {
		p->flat_var = true;
		p->nr_var = nr_var;
		/* the fields without the elements: one capacity check
		 * per sequence covers the fixed runs after it */
		p->flat_fields = n <= UINT32_MAX ? (uint32_t)n : UINT32_MAX;
		plan_flat_align(p);
		return 0;
	}
	if (n > FX_MAX_FIELDS) {
		return 0;
	}
	f = ht__arena_alloc(&t->arena, n * sizeof(*f));
	if (!f) {
		return HT_ENOMEM;
	}
	f[0].type = root->type;
	f[0].name = root->name;
	f[0].next = n;
	f[0].nr_children = root->nr;
	f[0].v.u = 0;
	n = 1;
	for (k = 0; k < root->nr_runs; k++) {
		struct ht__run *r = &runs[k];

		r->keep_off = n;
		if (r->tmpl) {
			memcpy(&f[n], r->tmpl, r->nr_fields * sizeof(*f));
			n += r->nr_fields;
		} else {
			const struct ht__op *so = &p->ops[r->member_op];

			f[n].type = so->type;
			f[n].name = so->name;
			f[n].next = 1;
			f[n].nr_children = 0;
			f[n].v.str = "";
			n++;
		}
	}
	p->flat_tmpl = f;
	p->flat_fields = n;
	return 0;
}

/*
 * Splits each structure's members into runs: a run starts at a fixed
 * member (aligned to the structure's alignment for the first member,
 * else to its own) and takes the following fixed members that are not
 * more aligned than its start; every other member is a run of its own.
 */
int ht__plan_build_runs(struct ht__trace *t, struct ht__plan *p)
{
	struct ht__op *ops = p->ops;
	uint32_t i;
	int ret;

	if (!p->nr_ops) {
		return 0;
	}
	mark_fixed(ops, p->nr_ops);
	for (i = 0; i < p->nr_ops; i++) {
		struct ht__op *op = &ops[i];

		if (op->kind == HT__OP_STRUCT && op->nr) {
			struct ht__run *runs;
			uint32_t c = i + 1, k = 0, nr = 0;

			runs =
			    ht__arena_alloc(&t->arena, op->nr * sizeof(*runs));
			if (!runs) {
				return HT_ENOMEM;
			}
			while (k < op->nr) {
				struct ht__run *r = &runs[nr++];
				uint32_t a, first = c, n = 0;

				if (!ops[c].fixed) {
					memset(r, 0, sizeof(*r));
					r->member_op = c - i;
					r->nr_members = 1;
					c += ops[c].span;
					k++;
					continue;
				}
				a = k == 0 ? op->align_bits : ops[c].align_bits;
				while (k < op->nr && ops[c].fixed &&
				       ops[c].align_bits <= a) {
					c += ops[c].span;
					k++;
					n++;
				}
				ret = make_run(t, ops, i, first, n, a, r);
				if (ret) {
					return ret;
				}
			}
			op->runs = runs;
			op->nr_runs = nr;
		} else if ((op->kind == HT__OP_ARRAY ||
			    op->kind == HT__OP_SEQ) &&
			   ops[i + 1].fixed) {
			struct ht__run *r;

			r = ht__arena_alloc(&t->arena, sizeof(*r));
			if (!r) {
				return HT_ENOMEM;
			}
			ret = make_run(t, ops, i, i + 1, 1,
				       ops[i + 1].align_bits, r);
			if (ret) {
				return ret;
			}
			r->one_le = r->bytes && r->nr_fields == 1 &&
				    r->nr_leaves == 1 && r->nr_le == 1 &&
				    r->size_bits % 8 == 0 &&
				    r->size_bits % r->align_bits == 0;
			op->elem_run = r;
		}
	}
	if (ops[0].fixed) {
		struct ht__run *r = ht__arena_alloc(&t->arena, sizeof(*r));

		if (!r) {
			return HT_ENOMEM;
		}
		ret = make_run(t, ops, 0, 0, 1, ops[0].align_bits, r);
		if (ret) {
			return ret;
		}
		p->root_run = r;
	} else if (ops[0].kind == HT__OP_STRUCT) {
		return make_flat(t, p);
	}
	return 0;
}
