/* SPDX-License-Identifier: MIT */
/*
 * Decode plans: each scope type of each stream/event class becomes a
 * flat array of ops in pre-order. Sequence lengths and variant tags are
 * resolved here, once: the field they name saves its value in a
 * register that the sequence or variant reads at decode time.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf-model.h"
#include "common/error.h"

struct frame {
	uint32_t op; /* the struct op */
};

struct compiler {
	struct ht__trace *t;
	char *err;
	size_t err_len;
	const char *where; /* "event 'x'" for messages */
	int scope;	   /* enum ht_ctf_scope being compiled */
	struct ht__plan *plans[HT_CTF_NR_SCOPES];
	/* the plan being built */
	struct ht__op *ops;
	uint32_t nr_ops, cap_ops;
	struct frame stack[64];
	unsigned depth;
};

static int cfail(struct compiler *cc, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int cfail(struct compiler *cc, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (cc->err_len) {
		n = snprintf(cc->err, cc->err_len,
			     "%s: %s: ", cc->t->metadata_path, cc->where);
		if (n >= 0 && (size_t)n < cc->err_len) {
			va_start(ap, fmt);
			vsnprintf(cc->err + n, cc->err_len - n, fmt, ap);
			va_end(ap);
		}
	}
	return code;
}

static int new_op(struct compiler *cc, uint32_t *idx)
{
	if (cc->nr_ops == cc->cap_ops) {
		uint32_t cap = cc->cap_ops ? cc->cap_ops * 2 : 32;
		struct ht__op *n;

		if (cap > (1u << 24)) {
			return cfail(cc, HT_EUNSUPPORTED,
				     "the type is too large");
		}
		n = realloc(cc->ops, cap * sizeof(*n));
		if (!n) {
			return HT_ENOMEM;
		}
		cc->ops = n;
		cc->cap_ops = cap;
	}
	*idx = cc->nr_ops++;
	memset(&cc->ops[*idx], 0, sizeof(cc->ops[*idx]));
	cc->ops[*idx].reg = -1;
	cc->ops[*idx].src_reg = -1;
	return 0;
}

static bool name_eq(const char *a, const char *b, size_t blen)
{
	if (strlen(a) == blen && !memcmp(a, b, blen)) {
		return true;
	}
	/* CTF 1.8 writers prefix names with '_' to escape keywords */
	if (a[0] == '_' && strlen(a + 1) == blen && !memcmp(a + 1, b, blen)) {
		return true;
	}
	if (blen && b[0] == '_' && strlen(a) == blen - 1 &&
	    !memcmp(a, b + 1, blen - 1)) {
		return true;
	}
	return false;
}

/*
 * Finds @path (dotted) among the completed children of struct op @s in
 * @ops, descending through structs. Returns the op index or -1.
 */
static long find_in(const struct ht__op *ops, uint32_t s, const char *path)
{
	for (;;) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);
		uint32_t c = s + 1, k;
		long found = -1;

		if (ops[s].kind != HT__OP_STRUCT) {
			return -1;
		}
		for (k = 0; k < ops[s].nr; k++) {
			if (ops[c].name && name_eq(ops[c].name, path, len)) {
				found = c;
			}
			c += ops[c].span;
		}
		if (found < 0 || !dot) {
			return found;
		}
		s = found;
		path = dot + 1;
	}
}

static const char *const abs_prefix[HT_CTF_NR_SCOPES] = {
    "trace.packet.header.",  "stream.packet.context.", "stream.event.header.",
    "stream.event.context.", "event.context.",	       "event.fields.",
};

/* Resolves @ref to an op saving its value in a register. */
static int resolve(struct compiler *cc, const char *ref, const char *what,
		   struct ht__op **target)
{
	struct ht__op *ops = NULL;
	long idx = -1;
	int s;
	unsigned d;

	for (s = 0; s < HT_CTF_NR_SCOPES; s++) {
		size_t n = strlen(abs_prefix[s]);

		if (!strncmp(ref, abs_prefix[s], n)) {
			if (s == cc->scope) {
				ops = cc->ops;
				idx = find_in(ops, 0, ref + n);
			} else if (s < cc->scope && cc->plans[s] &&
				   cc->plans[s]->nr_ops) {
				ops = cc->plans[s]->ops;
				idx = find_in(ops, 0, ref + n);
			}
			goto found;
		}
	}
	/* relative: the enclosing structs, innermost first, then the
	 * scopes decoded before this one */
	for (d = cc->depth; d-- > 0;) {
		idx = find_in(cc->ops, cc->stack[d].op, ref);
		if (idx >= 0) {
			ops = cc->ops;
			goto found;
		}
	}
	for (s = cc->scope - 1; s >= 0; s--) {
		if (cc->plans[s] && cc->plans[s]->nr_ops) {
			idx = find_in(cc->plans[s]->ops, 0, ref);
			if (idx >= 0) {
				ops = cc->plans[s]->ops;
				goto found;
			}
		}
	}
found:
	if (idx < 0) {
		return cfail(cc, HT_ESYNTAX, "cannot find the field '%s' of %s",
			     ref, what);
	}
	if (ops[idx].kind != HT__OP_INT) {
		return cfail(cc, HT_ESYNTAX,
			     "the field '%s' of %s is not an integer", ref,
			     what);
	}
	if (ops[idx].reg < 0) {
		if (cc->t->nr_regs >= 4096) {
			return cfail(cc, HT_EUNSUPPORTED,
				     "too many length and tag fields");
		}
		ops[idx].reg = cc->t->nr_regs++;
		ops[idx].side = 1;
	}
	*target = &ops[idx];
	return 0;
}

static enum ht__meaning meaning_of(int scope, unsigned depth, const char *name)
{
	static const struct {
		int scope;
		const char *name;
		enum ht__meaning m;
	} tab[] = {
	    {HT_CTF_SCOPE_PACKET_HEADER, "magic", HT__M_MAGIC},
	    {HT_CTF_SCOPE_PACKET_HEADER, "stream_id", HT__M_STREAM_ID},
	    {HT_CTF_SCOPE_PACKET_HEADER, "stream_instance_id",
	     HT__M_STREAM_INSTANCE_ID},
	    {HT_CTF_SCOPE_PACKET_CONTEXT, "packet_size", HT__M_PACKET_SIZE},
	    {HT_CTF_SCOPE_PACKET_CONTEXT, "content_size", HT__M_CONTENT_SIZE},
	    {HT_CTF_SCOPE_PACKET_CONTEXT, "timestamp_begin", HT__M_TS_BEGIN},
	    {HT_CTF_SCOPE_PACKET_CONTEXT, "timestamp_end", HT__M_TS_END},
	    {HT_CTF_SCOPE_PACKET_CONTEXT, "events_discarded", HT__M_DISCARDED},
	    {HT_CTF_SCOPE_PACKET_CONTEXT, "packet_seq_num", HT__M_SEQ_NUM},
	};
	size_t i;

	if (!name) {
		return HT__M_NONE;
	}
	if (scope == HT_CTF_SCOPE_EVENT_HEADER && !strcmp(name, "id")) {
		return HT__M_EVENT_ID;
	}
	if (depth != 1) {
		return HT__M_NONE;
	}
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (tab[i].scope == scope && !strcmp(tab[i].name, name)) {
			return tab[i].m;
		}
	}
	return HT__M_NONE;
}

static int emit(struct compiler *cc, const struct ht_ctf_type *type,
		const char *name, uint32_t *out_idx);

static int emit_int(struct compiler *cc, struct ht__op *op,
		    const struct ht_ctf_type *type)
{
	const struct ht_ctf_type *it =
	    type->kind == HT_CTF_ENUM ? type->container : type;
	bool host_le = true;
	uint16_t probe = 1;

	memcpy(&host_le, &probe, 1);
	op->kind = HT__OP_INT;
	op->size_bits = it->size_bits;
	op->is_signed = it->is_signed;
	op->bo = it->byte_order;
	op->min_bits = it->size_bits;
	op->meaning = meaning_of(cc->scope, cc->depth, op->name);
	if (it->mapped_clock) {
		op->clock = op->meaning != HT__M_TS_END;
	} else if (cc->t->pub.nr_clocks == 1 && op->name &&
		   ((cc->scope == HT_CTF_SCOPE_EVENT_HEADER &&
		     !strcmp(op->name, "timestamp")) ||
		    op->meaning == HT__M_TS_BEGIN)) {
		/* babeltrace2 maps these to the only clock */
		op->clock = 1;
	}
	if (op->align_bits % 8 == 0 && (op->bo == HT_CTF_LE) == host_le) {
		switch (op->size_bits) {
		case 8:
			op->fast = HT__FAST_U8;
			break;
		case 16:
			op->fast = HT__FAST_U16;
			break;
		case 32:
			op->fast = HT__FAST_U32;
			break;
		case 64:
			op->fast = HT__FAST_U64;
			break;
		default:
			break;
		}
	}
	if (op->size_bits == 8 && op->align_bits % 8 == 0) {
		op->fast = HT__FAST_U8; /* byte order does not matter */
	}
	return 0;
}

static int emit_variant(struct compiler *cc, uint32_t idx,
			const struct ht_ctf_type *type)
{
	struct ht__op *tag;
	const struct ht_ctf_type *et;
	struct ht__variant_sel *sel = NULL;
	uint32_t *opt;
	size_t nr_sel = 0, k, m, r;
	char what[300];
	int ret;

	snprintf(what, sizeof(what), "variant '%s'",
		 cc->ops[idx].name ? cc->ops[idx].name : "?");
	if (!type->tag_ref) {
		return cfail(cc, HT_ESYNTAX, "%s has no tag", what);
	}
	ret = resolve(cc, type->tag_ref, what, &tag);
	if (ret) {
		return ret;
	}
	et = tag->type;
	if (et->kind != HT_CTF_ENUM) {
		return cfail(cc, HT_ESYNTAX,
			     "the tag '%s' of %s is not an "
			     "enumeration",
			     type->tag_ref, what);
	}
	cc->ops[idx].src_reg = tag->reg;
	cc->ops[idx].tag_signed = et->is_signed;
	for (m = 0; m < et->nr_mappings; m++) {
		nr_sel += et->mappings[m].nr_ranges;
	}
	sel = ht__arena_alloc(&cc->t->arena, (nr_sel + 1) * sizeof(*sel));
	opt = ht__arena_alloc(&cc->t->arena,
			      (type->nr_members + 1) * sizeof(*opt));
	if (!sel || !opt) {
		return HT_ENOMEM;
	}
	nr_sel = 0;
	for (m = 0; m < et->nr_mappings; m++) {
		const struct ht_ctf_enum_mapping *mp = &et->mappings[m];

		for (k = 0; k < type->nr_members; k++) {
			if (name_eq(type->members[k].name, mp->label,
				    strlen(mp->label))) {
				break;
			}
		}
		if (k == type->nr_members) {
			continue;
		}
		for (r = 0; r < mp->nr_ranges; r++) {
			sel[nr_sel].lo = mp->ranges[r].lower.s;
			sel[nr_sel].hi = mp->ranges[r].upper.s;
			sel[nr_sel].option = k;
			nr_sel++;
		}
	}
	cc->ops[idx].kind = HT__OP_VARIANT;
	cc->ops[idx].sel = sel;
	cc->ops[idx].nr_sel = nr_sel;
	cc->ops[idx].nr = type->nr_members;
	cc->ops[idx].min_bits = UINT64_MAX;
	for (k = 0; k < type->nr_members; k++) {
		uint32_t child;

		ret = emit(cc, type->members[k].type, type->members[k].name,
			   &child);
		if (ret) {
			return ret;
		}
		opt[k] = child - idx;
		if (cc->ops[child].min_bits < cc->ops[idx].min_bits) {
			cc->ops[idx].min_bits = cc->ops[child].min_bits;
		}
	}
	if (!type->nr_members) {
		cc->ops[idx].min_bits = 0;
	}
	cc->ops[idx].option_op = opt;
	return 0;
}

static int emit(struct compiler *cc, const struct ht_ctf_type *type,
		const char *name, uint32_t *out_idx)
{
	uint32_t idx = 0, child = 0;
	struct ht__op *op;
	size_t k;
	int ret;

	ret = new_op(cc, &idx);
	if (ret) {
		return ret;
	}
	op = &cc->ops[idx];
	op->type = type;
	op->name = name;
	op->align_bits = type->align_bits ? type->align_bits : 1;
	switch (type->kind) {
	case HT_CTF_INT:
	case HT_CTF_ENUM:
		ret = emit_int(cc, op, type);
		break;
	case HT_CTF_FLOAT:
		op->kind = HT__OP_FLOAT;
		op->size_bits = type->size_bits;
		op->bo = type->byte_order;
		op->min_bits = type->size_bits;
		break;
	case HT_CTF_STRING:
		op->kind = HT__OP_STRING;
		op->align_bits = 8;
		op->min_bits = 8;
		break;
	case HT_CTF_STRUCT:
		op->kind = HT__OP_STRUCT;
		if (cc->depth == sizeof(cc->stack) / sizeof(cc->stack[0])) {
			return cfail(cc, HT_EUNSUPPORTED,
				     "structures nested too deeply");
		}
		cc->stack[cc->depth++].op = idx;
		for (k = 0; k < type->nr_members; k++) {
			ret = emit(cc, type->members[k].type,
				   type->members[k].name, &child);
			if (ret) {
				return ret;
			}
			cc->ops[idx].min_bits += cc->ops[child].min_bits;
			cc->ops[idx].nr++; /* completed children */
		}
		cc->depth--;
		break;
	case HT_CTF_ARRAY:
	case HT_CTF_SEQUENCE:
		op->kind =
		    type->kind == HT_CTF_ARRAY ? HT__OP_ARRAY : HT__OP_SEQ;
		if (type->kind == HT_CTF_ARRAY) {
			if (type->length > UINT32_MAX) {
				return cfail(cc, HT_EUNSUPPORTED,
					     "array '%s' is too long",
					     name ? name : "?");
			}
			op->nr = type->length;
		} else {
			struct ht__op *len;
			char what[300];

			snprintf(what, sizeof(what), "sequence '%s'",
				 name ? name : "?");
			ret = resolve(cc, type->length_ref, what, &len);
			if (ret) {
				return ret;
			}
			if (len->is_signed) {
				return cfail(cc, HT_ESYNTAX,
					     "the length '%s' of %s is signed",
					     type->length_ref, what);
			}
			cc->ops[idx].src_reg = len->reg;
		}
		/* the element type may not enter the struct stack: its
		 * fields cannot be referenced from outside */
		ret = emit(cc, type->element, NULL, &child);
		if (ret) {
			return ret;
		}
		if (type->kind == HT_CTF_ARRAY) {
			uint64_t eb = cc->ops[child].min_bits;

			cc->ops[idx].min_bits =
			    eb && type->length > UINT64_MAX / eb
				? UINT64_MAX
				: eb * type->length;
		}
		break;
	case HT_CTF_VARIANT:
		ret = emit_variant(cc, idx, type);
		break;
	}
	if (ret) {
		return ret;
	}
	cc->ops[idx].span = cc->nr_ops - idx;
	*out_idx = idx;
	return 0;
}

static int compile_scope(struct compiler *cc, int scope,
			 const struct ht_ctf_type *root, struct ht__plan *plan)
{
	uint32_t idx = 0;
	int ret;

	cc->scope = scope;
	cc->plans[scope] = plan;
	plan->ops = NULL;
	plan->nr_ops = 0;
	if (!root) {
		return 0;
	}
	cc->ops = NULL;
	cc->nr_ops = cc->cap_ops = 0;
	cc->depth = 0;
	ret = emit(cc, root, NULL, &idx);
	if (!ret) {
		uint32_t i;

		for (i = 0; i < cc->nr_ops; i++) {
			struct ht__op *o = &cc->ops[i];

			o->side = o->meaning || o->clock || o->reg >= 0;
		}
		plan->ops = ht__arena_alloc(&cc->t->arena,
					    cc->nr_ops * sizeof(*plan->ops));
		if (!plan->ops) {
			ret = HT_ENOMEM;
		} else {
			memcpy(plan->ops, cc->ops,
			       cc->nr_ops * sizeof(*plan->ops));
			plan->nr_ops = cc->nr_ops;
		}
	}
	free(cc->ops);
	cc->ops = NULL;
	return ret;
}

/* ---- fixed runs (see struct ht__run) ---- */

/* Fixed runs bigger than this go through the general interpreter. */
#define FX_MAX_FIELDS 4096
#define FX_MAX_BITS (UINT64_C(1) << 30)

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

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
				off = align_up(off, m->align_bits) + m->fx_bits;
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
			stride = align_up(e->fx_bits, e->align_bits);
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
			off = align_up(off, rb->ops[c].align_bits);
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
			off = align_up(off, rb->ops[i + 1].align_bits);
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
		off = align_up(off, ops[c].align_bits) + ops[c].fx_bits;
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
		off = align_up(off, ops[c].align_bits);
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
		for (j = 0; j < rb.nl; j++) {
			const struct ht__leaf *l = &rb.leaves[j];

			if (!l->side && (l->load == HT__LOAD_LE ||
					 l->load == HT__LOAD_BE)) {
				tmp[np++] = *l;
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
	return 0;
}

/*
 * Makes @p a flat scope (see struct ht__plan) when its root structure's
 * runs are all fixed runs or string members.
 */
static int make_flat(struct ht__trace *t, struct ht__plan *p)
{
	const struct ht__op *root = &p->ops[0];
	struct ht__run *runs = (struct ht__run *)root->runs;
	struct ht_ctf_field *f;
	uint64_t n = 1;
	uint32_t k;

	for (k = 0; k < root->nr_runs; k++) {
		const struct ht__run *r = &runs[k];

		if (r->tmpl) {
			n += r->nr_fields;
		} else if (p->ops[r->member_op].kind == HT__OP_STRING) {
			n++;
		} else {
			return 0;
		}
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
static int build_runs(struct ht__trace *t, struct ht__plan *p)
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

static const struct ht_ctf_clock *plan_clock(const struct ht__trace *t,
					     const struct ht__plan *p)
{
	uint32_t i;

	for (i = 0; i < p->nr_ops; i++) {
		if (p->ops[i].clock) {
			const struct ht_ctf_type *ty = p->ops[i].type;

			if (ty->kind == HT_CTF_ENUM) {
				ty = ty->container;
			}
			return ty->mapped_clock ? ty->mapped_clock
						: t->pub.clocks[0];
		}
	}
	return NULL;
}

static bool scope_fast(const struct ht__plan *p)
{
	return !p->nr_ops || p->root_run || p->flat_tmpl;
}

/* Whether leaf @l is an unsigned little-endian one that one 8-byte
 * load at any bit of its run's first byte holds. */
static bool one_load_leaf(const struct ht__leaf *l)
{
	return l->load == HT__LOAD_LE && !l->sign &&
	       l->off_bits + l->size_bits + 7 <= 64;
}

/* Sets .hdr_one_load and its shifts and masks (see ctf-internal.h). */
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

/* Fills .hdr_var of @sc when its event header is one (ctf-internal.h). */
static void plan_hdr_variant(struct ht__stream_class *sc)
{
	const struct ht__plan *p = &sc->event_header;
	struct ht__hdr_var *hv = &sc->hdr_var;
	const struct ht__op *root, *var;
	const struct ht__run *r0;
	const struct ht__leaf *tag = NULL;
	uint32_t i, vi;

	hv->nr = 0;
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
	}
	hv->tag_run = r0;
	hv->align_bits = root->align_bits ? root->align_bits : 1;
	hv->tag_bits = r0->size_bits;
	hv->tag = *tag;
	hv->nr = var->nr_sel;
}

/* Fills the fast-path descriptions of @sc (see ctf-internal.h). */
static void plan_fast_paths(struct ht__stream_class *sc)
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
		    align_up(last->size_bits, k.align_bits) + k.size_bits;
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
static int plan_skips(struct ht__trace *t, struct ht__stream_class *sc)
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
				    align_up(h->size_bits, k->align_bits) +
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

int ht__plan_compile_trace(struct ht__trace *t, char *err, size_t err_len)
{
	struct compiler cc;
	size_t s, e;
	int ret;

	memset(&cc, 0, sizeof(cc));
	cc.t = t;
	cc.err = err;
	cc.err_len = err_len;
	cc.where = "trace packet header";
	ret = compile_scope(&cc, HT_CTF_SCOPE_PACKET_HEADER,
			    t->pub.packet_header, &t->packet_header);
	if (ret) {
		return ret;
	}
	for (s = 0; s < t->pub.nr_stream_classes; s++) {
		struct ht__stream_class *sc =
		    (struct ht__stream_class *)t->pub.stream_classes[s];
		char where[128];
		uint64_t max_id = 0;

		snprintf(where, sizeof(where), "stream %llu",
			 (unsigned long long)sc->pub.id);
		cc.where = where;
		ret =
		    compile_scope(&cc, HT_CTF_SCOPE_PACKET_CONTEXT,
				  sc->pub.packet_context, &sc->packet_context);
		if (!ret) {
			ret = compile_scope(&cc, HT_CTF_SCOPE_EVENT_HEADER,
					    sc->pub.event_header,
					    &sc->event_header);
		}
		if (!ret) {
			ret = compile_scope(
			    &cc, HT_CTF_SCOPE_EVENT_COMMON_CONTEXT,
			    sc->pub.event_context, &sc->event_context);
		}
		if (ret) {
			return ret;
		}
		sc->pub.default_clock = plan_clock(t, &sc->event_header);
		if (!sc->pub.default_clock) {
			sc->pub.default_clock =
			    plan_clock(t, &sc->packet_context);
		}
		ht__stream_class_clock_init(sc);
		for (e = 0; e < sc->pub.nr_event_classes; e++) {
			struct ht__event_class *ec =
			    (struct ht__event_class *)sc->pub.event_classes[e];
			char ewhere[200];

			ec->index = e;
			snprintf(ewhere, sizeof(ewhere), "event '%s'",
				 ec->pub.name);
			cc.where = ewhere;
			ret = compile_scope(&cc,
					    HT_CTF_SCOPE_EVENT_SPECIFIC_CONTEXT,
					    ec->pub.context, &ec->context);
			if (!ret) {
				ret = compile_scope(
				    &cc, HT_CTF_SCOPE_EVENT_PAYLOAD,
				    ec->pub.payload, &ec->payload);
			}
			if (ret) {
				return ret;
			}
			if (ec->pub.id > max_id) {
				max_id = ec->pub.id;
			}
		}
		/* a dense id table for the usual small ids */
		if (sc->pub.nr_event_classes && max_id < 65536) {
			sc->nr_by_id = max_id + 1;
			sc->by_id = ht__arena_alloc(
			    &t->arena, sc->nr_by_id * sizeof(*sc->by_id));
			if (!sc->by_id) {
				return HT_ENOMEM;
			}
			for (e = 0; e < sc->pub.nr_event_classes; e++) {
				struct ht__event_class *ec =
				    (struct ht__event_class *)
					sc->pub.event_classes[e];

				sc->by_id[ec->pub.id] = ec;
			}
		}
	}
	/* registers may be added to earlier plans until the end: the runs
	 * (which copy the side-effect flags) come last */
	ret = build_runs(t, &t->packet_header);
	for (s = 0; !ret && s < t->pub.nr_stream_classes; s++) {
		struct ht__stream_class *sc =
		    (struct ht__stream_class *)t->pub.stream_classes[s];

		ret = build_runs(t, &sc->packet_context);
		if (!ret) {
			ret = build_runs(t, &sc->event_header);
		}
		if (!ret) {
			ret = build_runs(t, &sc->event_context);
		}
		for (e = 0; !ret && e < sc->pub.nr_event_classes; e++) {
			struct ht__event_class *ec =
			    (struct ht__event_class *)sc->pub.event_classes[e];

			ret = build_runs(t, &ec->context);
			if (!ret) {
				ret = build_runs(t, &ec->payload);
			}
		}
	}
	for (s = 0; !ret && s < t->pub.nr_stream_classes; s++) {
		struct ht__stream_class *sc =
		    (struct ht__stream_class *)t->pub.stream_classes[s];

		plan_fast_paths(sc);
		ret = plan_skips(t, sc);
	}
	return ret;
}
