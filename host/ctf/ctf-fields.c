/* SPDX-License-Identifier: MIT */
/*
 * Decoding any scope into fields: the general interpreter of a plan's
 * ops (integers of any size and byte order, floats, strings, structures
 * and their fixed runs, arrays, sequences, variants) appending to a
 * field array, each error naming the file, the offset and the field.
 * The packet reader and the event decoder take their fast paths first
 * and come here for the rest.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf-stream.h"
#include "common/error.h"

uint64_t ht__read_bits_slow(const uint8_t *map, uint64_t pos, unsigned size,
			    int bo)
{
	const uint8_t *p = map + (pos >> 3);
	unsigned shift = pos & 7;
	unsigned nbytes = (shift + size + 7) / 8;
	uint64_t v = 0;
	unsigned i;

	if (bo == HT_CTF_LE) {
		if (nbytes <= 8) {
			for (i = nbytes; i-- > 0;) {
				v = (v << 8) | p[i];
			}
			v >>= shift;
		} else {
			for (i = 8; i-- > 0;) {
				v = (v << 8) | p[i];
			}
			v = (v >> shift) | ((uint64_t)p[8] << (64 - shift));
		}
	} else {
		if (nbytes <= 8) {
			for (i = 0; i < nbytes; i++) {
				v = (v << 8) | p[i];
			}
			v >>= nbytes * 8 - shift - size;
		} else {
			for (i = 0; i < 8; i++) {
				v = (v << 8) | p[i];
			}
			v = (v << shift) | (p[8] >> (8 - shift));
			v >>= 64 - size;
			return v;
		}
	}
	if (size < 64) {
		v &= (UINT64_C(1) << size) - 1;
	}
	return v;
}

int ht__stream_fail(struct ht__stream *s, int code, uint64_t at_bits,
		    const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->err_len) {
		n = snprintf(s->err, s->err_len,
			     "cannot decode packet: file=%s offset=%llu: ",
			     s->pub.path, (unsigned long long)(at_bits / 8));
		if (n >= 0 && (size_t)n < s->err_len) {
			va_start(ap, fmt);
			vsnprintf(s->err + n, s->err_len - n, fmt, ap);
			va_end(ap);
		}
	}
	return code;
}

/*
 * Makes room for @need fields in @fb, within the decode's limit (see
 * HT__ELEMS_SLACK): fails saying so at bit @pos.
 */
static int fb_grow(struct ht__stream *s, struct ht__fieldbuf *fb, uint64_t need,
		   uint64_t pos)
{
	uint64_t cap = fb->cap ? fb->cap : 64;
	struct ht_ctf_field *n;

	if (need > s->fields_max || need > UINT32_MAX) {
		return ht__stream_fail(
		    s, HT_ERANGE, pos,
		    "more than %llu fields in one record (the limit: one "
		    "per bit of the packet content, plus %llu)",
		    (unsigned long long)s->fields_max,
		    (unsigned long long)HT__ELEMS_SLACK);
	}
	while (cap < need) {
		cap *= 2;
	}
	if (cap > s->fields_max) {
		cap = s->fields_max;
	}
	n = realloc(fb->f, cap * sizeof(*n));
	if (!n) {
		return ht__stream_fail(s, HT_ENOMEM, pos, "out of memory");
	}
	fb->f = n;
	fb->cap = cap;
	return 0;
}

static uint64_t bswap_n(uint64_t v, unsigned size)
{
	switch (size) {
	case 16:
		return __builtin_bswap16((uint16_t)v);
	case 32:
		return __builtin_bswap32((uint32_t)v);
	default:
		return __builtin_bswap64(v);
	}
}

static const char *op_name(const struct ht__op *op)
{
	return op->name ? op->name : "(element)";
}

/*
 * The raw bits of integer op at bit position pos (already aligned and
 * bounds-checked): whole bytes in the host's order are one load.
 */
static inline uint64_t read_int(const struct ht__stream *s,
				const struct ht__op *op, uint64_t pos)
{
	uint64_t v;

	switch (op->fast) {
	case HT__FAST_U8:
		return s->map[pos >> 3];
	case HT__FAST_U16: {
		uint16_t x;

		memcpy(&x, s->map + (pos >> 3), 2);
		return x;
	}
	case HT__FAST_U32: {
		uint32_t x;

		memcpy(&x, s->map + (pos >> 3), 4);
		return x;
	}
	case HT__FAST_U64:
		memcpy(&v, s->map + (pos >> 3), 8);
		return v;
	default:
		return ht__read_bits(s->map, pos, op->size_bits, op->bo);
	}
}

static inline int exec_int(struct ht__stream *s, const struct ht__op *op,
			   struct ht_ctf_field *f, uint64_t pos)
{
	uint64_t v;

	if (pos + op->size_bits > s->content_end) {
		return ht__stream_fail(
		    s, HT_ETRUNC, pos,
		    "field '%s' (%u bits) goes past the end "
		    "of the packet content (byte %llu)",
		    op_name(op), op->size_bits,
		    (unsigned long long)(s->content_end / 8));
	}
	v = read_int(s, op, pos);
	s->pos = pos + op->size_bits;
	if (op->is_signed && op->size_bits < 64) {
		uint64_t m = UINT64_C(1) << (op->size_bits - 1);

		v = (v ^ m) - m;
	}
	f->v.u = v;
	ht__int_side(s, op->reg, op->meaning, op->clock, v, op->size_bits);
	return 0;
}

/* The value of the IEEE 754 float of @size_bits (32 or 64) bits @v. */
static double float_of_bits(uint64_t v, unsigned size_bits)
{
	double d;

	if (size_bits == 32) {
		uint32_t x = v;
		float fl;

		memcpy(&fl, &x, 4);
		return fl;
	}
	memcpy(&d, &v, 8);
	return d;
}

void ht__leaf_load_other(struct ht__stream *s, const struct ht__leaf *l,
			 uint64_t p, uint64_t w, struct ht_ctf_field *f)
{
	uint64_t v;

	switch (l->load) {
	case HT__LOAD_F64:
		memcpy(&f->v.d, &w, 8);
		return;
	case HT__LOAD_F32: {
		float x;

		memcpy(&x, s->map + (p >> 3), 4);
		f->v.d = x;
		return;
	}
	case HT__LOAD_FSLOW:
		v = ht__read_bits_slow(s->map, p, l->size_bits, l->bo);
		f->v.d = float_of_bits(v, l->size_bits);
		return;
	default:
		v = ht__read_bits_slow(s->map, p, l->size_bits, l->bo);
		v = (v ^ l->sign) - l->sign;
		f->v.u = v;
		if (l->side) {
			ht__int_side(s, l->reg, l->meaning, l->clock, v,
				     l->size_bits);
		}
		return;
	}
}

/* A run with other leaves than plain ones: out of ht__run_load()'s
 * way, which then saves no register. */
static __attribute__((noinline)) void run_load_mixed(struct ht__stream *s,
						     const struct ht__run *r,
						     uint64_t pos,
						     struct ht_ctf_field *f)
{
	ht__run_load_plain(r, s->map, pos, f);
	ht__run_load_rest(s, r, pos, f);
}

void ht__run_load(struct ht__stream *s, const struct ht__run *r, uint64_t pos,
		  struct ht_ctf_field *f)
{
	if (r->nr_plain < r->nr_leaves) {
		run_load_mixed(s, r, pos, f);
		return;
	}
	ht__run_load_plain(r, s->map, pos, f);
}

void ht__run_load_rest(struct ht__stream *s, const struct ht__run *r,
		       uint64_t pos, struct ht_ctf_field *f)
{
	const struct ht__leaf *l = r->leaves + r->nr_plain;
	const struct ht__leaf *end = r->leaves + r->nr_leaves;

	for (; l < end; l++) {
		ht__leaf_load_side(s, s->map, l, pos, f);
	}
}

/*
 * Runs run @r of op @parent at s->pos: one alignment, one bounds check
 * and one capacity check, then the leaves at their constant offsets.
 * When the run does not fit in the packet content, its members go
 * through the general interpreter, which says which field is cut.
 */
static int exec_run(struct ht__stream *s, const struct ht__op *ops,
		    uint32_t parent, const struct ht__run *r,
		    struct ht__fieldbuf *fb, unsigned depth)
{
	uint32_t c = parent + r->member_op, k;
	uint64_t pos = s->pos;
	int ret;

	if (!r->tmpl) {
		return ht__scope_decode(s, ops, c, ops[c].name, fb, depth + 1);
	}
	if (r->align_bits > 1) {
		pos = ht__align_in_packet(s, pos, r->align_bits);
	}
	if (pos + r->size_bits <= s->content_end) {
		struct ht_ctf_field *f;

		if (fb->n + r->nr_fields > fb->cap) {
			ret =
			    fb_grow(s, fb, (uint64_t)fb->n + r->nr_fields, pos);
			if (ret) {
				return ret;
			}
		}
		f = &fb->f[fb->n];
		memcpy(f, r->tmpl, r->nr_fields * sizeof(*f));
		ht__run_load_leaves(s, r, pos, f);
		fb->n += r->nr_fields;
		s->pos = pos + r->size_bits;
		return 0;
	}
	for (k = 0; k < r->nr_members; k++) {
		ret = ht__scope_decode(s, ops, c, ops[c].name, fb, depth + 1);
		if (ret) {
			return ret;
		}
		c += ops[c].span;
	}
	return 0;
}

int ht__scope_decode(struct ht__stream *s, const struct ht__op *ops, uint32_t i,
		     const char *name, struct ht__fieldbuf *fb, unsigned depth)
{
	const struct ht__op *op = &ops[i];
	struct ht_ctf_field *f;
	uint32_t fi;
	uint64_t pos = s->pos;
	uint64_t v;
	int ret;

	if (op->align_bits > 1) {
		pos = ht__align_in_packet(s, pos, op->align_bits);
	}
	if (fb->n >= fb->cap) {
		ret = fb_grow(s, fb, (uint64_t)fb->n + 1, pos);
		if (ret) {
			return ret;
		}
	}
	fi = fb->n++;
	f = &fb->f[fi];
	f->type = op->type;
	f->name = name;
	f->next = 1;
	f->nr_children = 0;

	switch (op->kind) {
	case HT__OP_INT:
		return exec_int(s, op, f, pos);
	case HT__OP_FLOAT:
		if (pos + op->size_bits > s->content_end) {
			return ht__stream_fail(
			    s, HT_ETRUNC, pos,
			    "field '%s' goes past the end of the "
			    "packet content",
			    op_name(op));
		}
		if (pos % 8 == 0) {
			memcpy(&v, s->map + (pos >> 3), op->size_bits / 8);
			if (op->size_bits == 32) {
				v &= 0xffffffffu;
			}
			if (op->bo != HT_CTF_LE) {
				v = bswap_n(v, op->size_bits);
			}
		} else {
			v = ht__read_bits(s->map, pos, op->size_bits, op->bo);
		}
		f->v.d = float_of_bits(v, op->size_bits);
		s->pos = pos + op->size_bits;
		return 0;
	case HT__OP_STRING: {
		const uint8_t *p = s->map + (pos >> 3);
		const uint8_t *z;
		uint64_t avail;

		if (pos >= s->content_end) {
			return ht__stream_fail(
			    s, HT_ETRUNC, pos,
			    "string '%s' starts past the end of the "
			    "packet content",
			    op_name(op));
		}
		avail = (s->content_end - pos) / 8;
		z = ht__find_nul(p, avail);
		if (!z) {
			return ht__stream_fail(
			    s, HT_ETRUNC, pos,
			    "string '%s' is not terminated before "
			    "the end of the packet content",
			    op_name(op));
		}
		f->v.str = (const char *)p;
		f->nr_children = z - p;
		s->pos = pos + (uint64_t)(z - p + 1) * 8;
		return 0;
	}
	case HT__OP_STRUCT: {
		uint32_t k;

		s->pos = pos;
		f->nr_children = op->nr;
		for (k = 0; k < op->nr_runs; k++) {
			const struct ht__run *r = &op->runs[k];

			if (r->tmpl) {
				ret = exec_run(s, ops, i, r, fb, depth);
			} else if (ops[i + r->member_op].kind ==
				       HT__OP_STRING &&
				   fb->n < fb->cap) {
				/* strings are common members: no call */
				const struct ht__op *so =
				    &ops[i + r->member_op];
				uint64_t sp = (s->pos + 7) & ~(uint64_t)7;
				const uint8_t *p = s->map + (sp >> 3);
				const uint8_t *z = NULL;
				struct ht_ctf_field *sf;

				if (sp < s->content_end) {
					z = ht__find_nul(
					    p, (s->content_end - sp) / 8);
				}
				if (!z) {
					/* the general path says what is wrong
					 */
					ret = ht__scope_decode(
					    s, ops, i + r->member_op, so->name,
					    fb, depth + 1);
				} else {
					sf = &fb->f[fb->n++];
					sf->type = so->type;
					sf->name = so->name;
					sf->next = 1;
					sf->nr_children = z - p;
					sf->v.str = (const char *)p;
					s->pos = sp + (uint64_t)(z - p + 1) * 8;
					ret = 0;
				}
			} else {
				uint32_t c = i + r->member_op;

				ret = ht__scope_decode(s, ops, c, ops[c].name,
						       fb, depth + 1);
			}
			if (ret) {
				return ret;
			}
		}
		fb->f[fi].next = fb->n - fi;
		return 0;
	}
	case HT__OP_ARRAY:
	case HT__OP_SEQ: {
		const struct ht__op *el = &ops[i + 1];
		uint64_t len, k;

		s->pos = pos;
		if (!ht__elems_fit(s, ops, i, pos, &len)) {
			return ht__stream_fail(
			    s, HT_EFORMAT, pos,
			    "%s '%s' of %llu elements does not fit "
			    "in the packet content",
			    op->kind == HT__OP_SEQ ? "sequence" : "array",
			    op_name(op), (unsigned long long)len);
		}
		if (!el->min_bits) {
			/* elements of maybe zero bits: what the packet
			 * has room for is counted (ctf-stream.h) */
			if (len > s->zero_left) {
				return ht__stream_fail(
				    s, HT_ERANGE, pos,
				    "%s '%s' of %llu elements: the packet has "
				    "room for %llu more elements of zero bits "
				    "(one per bit of its content, plus %llu)",
				    op->kind == HT__OP_SEQ ? "sequence"
							   : "array",
				    op_name(op), (unsigned long long)len,
				    (unsigned long long)s->zero_left,
				    (unsigned long long)HT__ELEMS_SLACK);
			}
			s->zero_left -= len;
		}
		if ((uint64_t)fb->n + len + 1 > fb->cap) {
			ret = fb_grow(s, fb, (uint64_t)fb->n + len + 1, pos);
			if (ret) {
				return ret;
			}
		}
		fb->f[fi].nr_children = len;
		if (el->kind == HT__OP_INT && el->fast == HT__FAST_U8 &&
		    el->reg < 0 && !el->meaning && !el->clock) {
			/* bytes (char arrays, UUIDs): no per-op dispatch */
			struct ht_ctf_field *ef = &fb->f[fb->n];
			const uint8_t *p;

			pos = (pos + 7) & ~(uint64_t)7;
			if (pos + len * 8 > s->content_end) {
				return ht__stream_fail(
				    s, HT_ETRUNC, pos,
				    "array '%s' goes past the end "
				    "of the packet content",
				    op_name(op));
			}
			p = s->map + (pos >> 3);
			for (k = 0; k < len; k++) {
				ef[k].type = el->type;
				ef[k].name = NULL;
				ef[k].next = 1;
				ef[k].nr_children = 0;
				ef[k].v.u =
				    el->is_signed
					? (uint64_t)(int64_t)(int8_t)p[k]
					: p[k];
			}
			fb->n += len;
			s->pos = pos + len * 8;
		} else if (op->elem_run) {
			for (k = 0; k < len; k++) {
				ret = exec_run(s, ops, i, op->elem_run, fb,
					       depth);
				if (ret) {
					return ret;
				}
			}
		} else {
			for (k = 0; k < len; k++) {
				ret = ht__scope_decode(s, ops, i + 1, NULL, fb,
						       depth + 1);
				if (ret) {
					return ret;
				}
			}
		}
		fb->f[fi].next = fb->n - fi;
		return 0;
	}
	case HT__OP_VARIANT: {
		uint64_t tag = s->regs[op->src_reg];
		uint32_t k;
		const struct ht__op *opt;

		s->pos = pos;
		k = ht__variant_select(op, tag);
		if (k == op->nr_sel) {
			return ht__stream_fail(
			    s, HT_EFORMAT, pos,
			    "variant '%s': tag value %lld selects "
			    "no option",
			    op_name(op), (long long)tag);
		}
		opt = &ops[i + op->option_op[op->sel[k].option]];
		f->nr_children = 1;
		ret = ht__scope_decode(s, ops,
				       i + op->option_op[op->sel[k].option],
				       opt->name, fb, depth + 1);
		if (ret) {
			return ret;
		}
		fb->f[fi].next = fb->n - fi;
		return 0;
	}
	case HT__OP_VARINT:
		return ht__varint_decode(s, op, f, pos);
	case HT__OP_USTRING:
		return ht__ustring_decode(s, op, fb, fi, pos);
	case HT__OP_OPTIONAL:
		return ht__optional_decode(s, ops, i, fb, fi, pos, depth);
	}
	return ht__stream_fail(s, HT_EFORMAT, pos, "bad decode plan");
}
