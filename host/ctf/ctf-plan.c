/* SPDX-License-Identifier: MIT */
/*
 * Decode plans: each scope type of each stream/event class becomes a
 * flat array of ops in pre-order. Sequence lengths and variant tags are
 * resolved here, once: the field they name saves its value in a
 * register that the sequence or variant reads at decode time. Then the
 * runs (ctf-plan-runs.c) and the fast paths (ctf-plan-fast.c) are
 * built on the ops.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf-model.h"
#include "common/buf.h"
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
	uint32_t nr_ops;
	size_t cap_ops;
	uint64_t total_ops; /* in every plan of the trace */
	struct frame stack[64];
	unsigned depth;
};

/* The most ops in one scope's plan, and in all the plans of a trace. */
#define PLAN_MAX_OPS (1u << 18)
#define TRACE_MAX_OPS (1u << 20)

static int cfail(struct compiler *cc, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int cfail(struct compiler *cc, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (cc->err_len) {
		n = snprintf(cc->err, cc->err_len, "%s: %s: ",
			     cc->t->metadata_path ? cc->t->metadata_path
						  : "metadata",
			     cc->where);
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
	/* a type alias used several times in the one below, level after
	 * level, makes a tree of exponential size: its ops are bounded
	 * (an op is about 128 bytes) */
	if (cc->nr_ops == PLAN_MAX_OPS || cc->total_ops == TRACE_MAX_OPS) {
		return cfail(cc, HT_EUNSUPPORTED,
			     "the type is too large (more than %u fields "
			     "in a scope, or %u in the trace)",
			     PLAN_MAX_OPS, TRACE_MAX_OPS);
	}
	cc->total_ops++;
	if (ht_array_reserve((void **)&cc->ops, &cc->cap_ops, cc->nr_ops + 1,
			     sizeof(*cc->ops))) {
		return HT_ENOMEM;
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
	if (ops[idx].kind != HT__OP_INT && ops[idx].kind != HT__OP_VARINT) {
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

/* What the reader takes from a CTF 2 integer of role @role in @scope. */
static enum ht__meaning meaning_of_role(int scope, enum ht_ctf_role role)
{
	switch (role) {
	case HT_CTF_ROLE_PACKET_MAGIC:
		return HT__M_MAGIC;
	case HT_CTF_ROLE_STREAM_CLASS_ID:
		return HT__M_STREAM_ID;
	case HT_CTF_ROLE_STREAM_ID:
		return HT__M_STREAM_INSTANCE_ID;
	case HT_CTF_ROLE_PACKET_TOTAL_LEN:
		return HT__M_PACKET_SIZE;
	case HT_CTF_ROLE_PACKET_CONTENT_LEN:
		return HT__M_CONTENT_SIZE;
	case HT_CTF_ROLE_CLOCK_TS:
		return scope == HT_CTF_SCOPE_PACKET_CONTEXT ? HT__M_TS_BEGIN
							    : HT__M_NONE;
	case HT_CTF_ROLE_PACKET_END_CLOCK_TS:
		return HT__M_TS_END;
	case HT_CTF_ROLE_DISCARDED_SNAPSHOT:
		return HT__M_DISCARDED;
	case HT_CTF_ROLE_PACKET_SEQ_NUM:
		return HT__M_SEQ_NUM;
	case HT_CTF_ROLE_EVENT_CLASS_ID:
		return HT__M_EVENT_ID;
	case HT_CTF_ROLE_NONE:
		break;
	}
	return HT__M_NONE;
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
	op->meaning = cc->t->ctf2 ? meaning_of_role(cc->scope, it->role)
				  : meaning_of(cc->scope, cc->depth, op->name);
	if (it->mapped_clock) {
		op->clock = op->meaning != HT__M_TS_END;
	} else if (!cc->t->ctf2 && cc->t->pub.nr_clocks == 1 && op->name &&
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
	if (it->varint) {
		/* LEB128: one byte to ten (ctf2-fields.c) */
		op->kind = HT__OP_VARINT;
		op->fast = HT__FAST_NONE;
		op->min_bits = 8;
	}
	return 0;
}

/* A variant's options by name, sorted by (name, index). */
struct option_name {
	const char *name;
	uint32_t index;
};

static int cmp_option(const void *a, const void *b)
{
	const struct option_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

static struct option_name *sort_options(const struct ht_ctf_type *type)
{
	struct option_name *v = malloc((type->nr_members + 1) * sizeof(*v));
	size_t k;

	if (!v) {
		return NULL;
	}
	for (k = 0; k < type->nr_members; k++) {
		v[k].name = type->members[k].name;
		v[k].index = (uint32_t)k;
	}
	qsort(v, type->nr_members, sizeof(*v), cmp_option);
	return v;
}

/* strcmp(a, pre b): pre is "" or "_". */
static int cmp_prefixed(const char *a, const char *pre, const char *b)
{
	for (; *pre; a++, pre++) {
		if (*a != *pre) {
			return (unsigned char)*a - (unsigned char)*pre;
		}
	}
	return strcmp(a, b);
}

/* The first option (by index) named exactly pre name, or nr. */
static size_t find_exact(const struct option_name *v, size_t nr,
			 const char *pre, const char *name)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_prefixed(v[mid].name, pre, name) < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < nr && !cmp_prefixed(v[lo].name, pre, name) ? v[lo].index
							       : nr;
}

/*
 * The option a mapping's @label selects: the first option whose name
 * is the label, with or without the '_' CTF 1.8 writers put before
 * names (name_eq()), by binary search: a variant of many options
 * tagged by an enumeration of many labels compiles in n log n.
 */
static size_t find_option(const struct option_name *v, size_t nr,
			  const char *label)
{
	size_t best = find_exact(v, nr, "", label), k;

	if (label[0] == '_') {
		k = find_exact(v, nr, "", label + 1);
		best = k < best ? k : best;
	}
	k = find_exact(v, nr, "_", label);
	return k < best ? k : best;
}

/* The options of variant op @idx, each emitted after it. */
static int emit_options(struct compiler *cc, uint32_t idx,
			const struct ht_ctf_type *type)
{
	uint32_t *opt;
	size_t k;
	int ret;

	opt = ht__arena_alloc(&cc->t->arena,
			      (type->nr_members + 1) * sizeof(*opt));
	if (!opt) {
		return HT_ENOMEM;
	}
	cc->ops[idx].kind = HT__OP_VARIANT;
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

/*
 * The selector of op @idx (a CTF 2 variant or optional @type): the
 * register of its tag @tag, an integer (or an enumeration, whose labels
 * do not matter), and its ranges, each selecting its option (a
 * variant's) or the field (an optional's, @optional).
 */
static int emit_sel_ranges(struct compiler *cc, uint32_t idx,
			   const struct ht_ctf_type *type,
			   const struct ht__op *tag, bool optional)
{
	const struct ht_ctf_type *it = tag->type;
	struct ht__variant_sel *sel;
	size_t k;

	if (it->kind == HT_CTF_ENUM) {
		it = it->container;
	}
	sel = ht__arena_alloc(&cc->t->arena,
			      (type->nr_sel_ranges + 1) * sizeof(*sel));
	if (!sel) {
		return HT_ENOMEM;
	}
	for (k = 0; k < type->nr_sel_ranges; k++) {
		sel[k].lo = type->sel_ranges[k].lower.s;
		sel[k].hi = type->sel_ranges[k].upper.s;
		sel[k].option =
		    optional ? 0 : (uint32_t)type->sel_ranges[k].option;
	}
	cc->ops[idx].src_reg = tag->reg;
	cc->ops[idx].tag_signed = it->is_signed;
	cc->ops[idx].sel = sel;
	cc->ops[idx].nr_sel = type->nr_sel_ranges;
	return 0;
}

/* A CTF 2 variant: its options carry their selector ranges. */
static int emit_variant_ranges(struct compiler *cc, uint32_t idx,
			       const struct ht_ctf_type *type,
			       const struct ht__op *tag)
{
	int ret = emit_sel_ranges(cc, idx, type, tag, false);

	return ret ? ret : emit_options(cc, idx, type);
}

static int emit_variant(struct compiler *cc, uint32_t idx,
			const struct ht_ctf_type *type)
{
	struct ht__op *tag;
	const struct ht_ctf_type *et;
	struct ht__variant_sel *sel = NULL;
	struct option_name *by_name;
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
	if (type->sel_ranges) {
		return emit_variant_ranges(cc, idx, type, tag);
	}
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
	if (!sel) {
		return HT_ENOMEM;
	}
	by_name = sort_options(type);
	if (!by_name) {
		return HT_ENOMEM;
	}
	nr_sel = 0;
	for (m = 0; m < et->nr_mappings; m++) {
		const struct ht_ctf_enum_mapping *mp = &et->mappings[m];

		k = find_option(by_name, type->nr_members, mp->label);
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
	free(by_name);
	cc->ops[idx].sel = sel;
	cc->ops[idx].nr_sel = nr_sel;
	return emit_options(cc, idx, type);
}

/* A CTF 2 UTF-16 or UTF-32 string of any length kind. */
static int emit_ustring(struct compiler *cc, uint32_t idx,
			const struct ht_ctf_type *type)
{
	struct ht__op *op = &cc->ops[idx];
	struct ht__op *len;
	char what[300];
	int ret;

	op->kind = HT__OP_USTRING;
	op->align_bits = 8;
	op->size_bits = type->encoding == HT_CTF_ENC_UTF16BE ||
				type->encoding == HT_CTF_ENC_UTF16LE
			    ? 16
			    : 32;
	op->bo = type->encoding == HT_CTF_ENC_UTF16BE ||
			 type->encoding == HT_CTF_ENC_UTF32BE
		     ? HT_CTF_BE
		     : HT_CTF_LE;
	switch (type->str_len) {
	case HT_CTF_STR_NUL:
		op->min_bits = op->size_bits;
		return 0;
	case HT_CTF_STR_STATIC:
		if (type->length > UINT32_MAX) {
			return cfail(cc, HT_EUNSUPPORTED,
				     "string '%s' is too long",
				     op->name ? op->name : "?");
		}
		op->nr = (uint32_t)type->length;
		op->min_bits = type->length * 8;
		return 0;
	case HT_CTF_STR_DYNAMIC:
		break;
	}
	snprintf(what, sizeof(what), "string '%s'", op->name ? op->name : "?");
	ret = resolve(cc, type->length_ref, what, &len);
	if (ret) {
		return ret;
	}
	if (len->is_signed) {
		return cfail(cc, HT_ESYNTAX, "the length '%s' of %s is signed",
			     type->length_ref, what);
	}
	cc->ops[idx].src_reg = len->reg;
	return 0;
}

/*
 * A CTF 2 optional: its selector's register, its ranges (none: a
 * boolean selector), then its field as the next op.
 */
static int emit_optional(struct compiler *cc, uint32_t idx,
			 const struct ht_ctf_type *type)
{
	struct ht__op *tag;
	uint32_t child;
	char what[300];
	int ret;

	snprintf(what, sizeof(what), "optional '%s'",
		 cc->ops[idx].name ? cc->ops[idx].name : "?");
	ret = resolve(cc, type->tag_ref, what, &tag);
	if (ret) {
		return ret;
	}
	ret = emit_sel_ranges(cc, idx, type, tag, true);
	if (ret) {
		return ret;
	}
	cc->ops[idx].kind = HT__OP_OPTIONAL;
	cc->ops[idx].nr = 1;
	cc->ops[idx].min_bits = 0;
	/* the field, when there, is named as the optional is */
	return emit(cc, type->members[0].type, cc->ops[idx].name, &child);
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
		if (type->encoding >= HT_CTF_ENC_UTF16BE) {
			ret = emit_ustring(cc, idx, type);
			break;
		}
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
		ret = type->optional ? emit_optional(cc, idx, type)
				     : emit_variant(cc, idx, type);
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

/* Compiles the events of @sc, then its table of classes by id. */
static int compile_events(struct compiler *cc, struct ht__stream_class *sc)
{
	uint64_t max_id = 0;
	size_t e;
	int ret;

	for (e = 0; e < sc->pub.nr_event_classes; e++) {
		struct ht__event_class *ec =
		    (struct ht__event_class *)sc->pub.event_classes[e];
		char where[200];

		ec->index = e;
		snprintf(where, sizeof(where), "event '%s'", ec->pub.name);
		cc->where = where;
		ret = compile_scope(cc, HT_CTF_SCOPE_EVENT_SPECIFIC_CONTEXT,
				    ec->pub.context, &ec->context);
		if (!ret) {
			ret = compile_scope(cc, HT_CTF_SCOPE_EVENT_PAYLOAD,
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
		sc->by_id = ht__arena_alloc(&cc->t->arena,
					    sc->nr_by_id * sizeof(*sc->by_id));
		if (!sc->by_id) {
			return HT_ENOMEM;
		}
		for (e = 0; e < sc->pub.nr_event_classes; e++) {
			struct ht__event_class *ec =
			    (struct ht__event_class *)sc->pub.event_classes[e];

			sc->by_id[ec->pub.id] = ec;
		}
	}
	return 0;
}

/*
 * Compiles the scopes of stream class @sc and of its events, and finds
 * its default clock.
 */
static int compile_stream_class(struct compiler *cc,
				struct ht__stream_class *sc)
{
	char where[128];
	int ret;

	snprintf(where, sizeof(where), "stream %llu",
		 (unsigned long long)sc->pub.id);
	cc->where = where;
	ret = compile_scope(cc, HT_CTF_SCOPE_PACKET_CONTEXT,
			    sc->pub.packet_context, &sc->packet_context);
	if (!ret) {
		ret = compile_scope(cc, HT_CTF_SCOPE_EVENT_HEADER,
				    sc->pub.event_header, &sc->event_header);
	}
	if (!ret) {
		ret = compile_scope(cc, HT_CTF_SCOPE_EVENT_COMMON_CONTEXT,
				    sc->pub.event_context, &sc->event_context);
	}
	if (ret) {
		return ret;
	}
	sc->pub.default_clock = plan_clock(cc->t, &sc->event_header);
	if (!sc->pub.default_clock) {
		sc->pub.default_clock = plan_clock(cc->t, &sc->packet_context);
	}
	if (!sc->pub.default_clock) {
		sc->pub.default_clock = sc->ctf2_clock;
	}
	ht__stream_class_clock_init(sc);
	return compile_events(cc, sc);
}

/* Builds the runs of every plan of stream class @sc. */
static int build_stream_class_runs(struct ht__trace *t,
				   struct ht__stream_class *sc)
{
	struct ht__plan *const plans[] = {
	    &sc->packet_context, &sc->event_header, &sc->event_context};
	size_t e, k;
	int ret = 0;

	for (k = 0; !ret && k < 3; k++) {
		ret = ht__plan_build_runs(t, plans[k]);
	}
	for (e = 0; !ret && e < sc->pub.nr_event_classes; e++) {
		struct ht__event_class *ec =
		    (struct ht__event_class *)sc->pub.event_classes[e];

		ret = ht__plan_build_runs(t, &ec->context);
		if (!ret) {
			ret = ht__plan_build_runs(t, &ec->payload);
		}
	}
	return ret;
}

int ht__plan_compile_trace(struct ht__trace *t, char *err, size_t err_len)
{
	struct compiler cc;
	size_t s;
	int ret;

	memset(&cc, 0, sizeof(cc));
	cc.t = t;
	cc.err = err;
	cc.err_len = err_len;
	cc.where = "trace packet header";
	ret = compile_scope(&cc, HT_CTF_SCOPE_PACKET_HEADER,
			    t->pub.packet_header, &t->packet_header);
	for (s = 0; !ret && s < t->pub.nr_stream_classes; s++) {
		ret = compile_stream_class(
		    &cc, (struct ht__stream_class *)t->pub.stream_classes[s]);
	}
	if (ret) {
		return ret;
	}
	/* registers may be added to earlier plans until the end: the runs
	 * (which copy the side-effect flags) come last */
	ret = ht__plan_build_runs(t, &t->packet_header);
	for (s = 0; !ret && s < t->pub.nr_stream_classes; s++) {
		ret = build_stream_class_runs(
		    t, (struct ht__stream_class *)t->pub.stream_classes[s]);
	}
	for (s = 0; !ret && s < t->pub.nr_stream_classes; s++) {
		struct ht__stream_class *sc =
		    (struct ht__stream_class *)t->pub.stream_classes[s];

		ht__plan_fast_paths(sc);
		ret = ht__plan_skips(t, sc);
	}
	return ret;
}
