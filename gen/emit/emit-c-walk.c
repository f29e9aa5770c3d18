/* SPDX-License-Identifier: MIT */
/*
 * The C emitter's record serializer: the code that sizes and stores
 * each field of a record, from its field type (emit-c-walk.h says how
 * the walk keeps the position), and the parameters and C structure
 * types of the tracing functions.
 *
 * It emits statements for one scope at a time; which scopes a record
 * has, its header and the functions around it are emit-c.c's.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit-c-walk.h"

/* Default feature field types, barectf's. */
const struct ht_ft ht__ft_u64_a8 = {
    .kind = HT_FT_UINT,
    .align_bits = 8,
    .size_bits = 64,
    .display_base = 10,
};
const struct ht_ft ht__ft_u32_a8 = {
    .kind = HT_FT_UINT,
    .align_bits = 8,
    .size_bits = 32,
    .display_base = 10,
};
const struct ht_ft ht__ft_u8_a8 = {
    .kind = HT_FT_UINT,
    .align_bits = 8,
    .size_bits = 8,
    .display_base = 16,
};

void ht__walk_line(struct walk *w, const char *fmt, ...)
{
	va_list ap;
	int i;

	for (i = 0; i < w->indent; i++) {
		fputc('\t', w->out);
	}
	va_start(ap, fmt);
	vfprintf(w->out, fmt, ap);
	va_end(ap);
	fputc('\n', w->out);
}

/*
 * An expression built from names and indices: its length grows with the
 * nesting of arrays and structures (bounded by the configuration's
 * limits, not by a buffer here), so it is allocated. A failed
 * allocation makes the generated file fail to compile, loudly.
 */
static __attribute__((format(printf, 2, 3))) char *expr(struct walk *w,
							const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = n < 0 ? NULL : malloc((size_t)n + 1);
	if (!s) {
		if (!w->err && w->out) {
			fputs("#error \"hetrace gen: out of memory\"\n",
			      w->out);
		}
		w->err = 1;
		return NULL;
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

static int is_int(const struct ht_ft *ft)
{
	return ft->kind == HT_FT_UINT || ft->kind == HT_FT_SINT ||
	       ft->kind == HT_FT_UENUM || ft->kind == HT_FT_SENUM;
}

static int is_signed(const struct ht_ft *ft)
{
	return ft->kind == HT_FT_SINT || ft->kind == HT_FT_SENUM;
}

static unsigned c_width(unsigned size_bits)
{
	if (size_bits <= 8) {
		return 8;
	}
	if (size_bits <= 16) {
		return 16;
	}
	if (size_bits <= 32) {
		return 32;
	}
	return 64;
}

static int is_native(const struct walk *w, const struct ht_ft *ft)
{
	return ft->byte_order == HT_BO_NATIVE ||
	       ft->byte_order == w->cfg->native_bo;
}

static int ft_is_le(const struct ht_config *cfg, const struct ht_ft *ft)
{
	enum ht_byte_order bo =
	    ft->byte_order == HT_BO_NATIVE ? cfg->native_bo : ft->byte_order;

	return bo == HT_BO_LE;
}

/*
 * A field whose instances have a size known here and whose elements
 * can be copied with memcpy from a C array (native, byte-sized ints or
 * reals, aligned no more than their size).
 */
static int is_memcpy_elem(const struct walk *w, const struct ht_ft *ft)
{
	if (!(is_int(ft) || ft->kind == HT_FT_REAL)) {
		return 0;
	}
	if (ft->size_bits != 8 && ft->size_bits != 16 && ft->size_bits != 32 &&
	    ft->size_bits != 64) {
		return 0;
	}
	if (ft->kind != HT_FT_REAL && c_width(ft->size_bits) != ft->size_bits) {
		return 0;
	}
	return ft->align_bits <= ft->size_bits && is_native(w, ft);
}

uint64_t ht__align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static unsigned low_bit(uint64_t v)
{
	unsigned a = 1;

	if (!v) {
		return 64;
	}
	while (!(v & a) && a < 64) {
		a <<= 1;
	}
	return a;
}

void ht__walk_init(struct walk *w, const struct ht_config *cfg,
		   enum walk_mode mode, unsigned base_align, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->cfg = cfg;
	w->mode = mode;
	w->base_align = base_align;
	w->indent = 1;
	w->out = out;
}

/* Enters dynamic mode: b (or nb) takes the static position. */
static void go_dynamic(struct walk *w)
{
	if (w->dynamic) {
		return;
	}
	if (w->mode == WALK_WRITE) {
		ht__walk_line(w,
			      "b = (uint32_t)(q - s->buf) * 8u + %" PRIu64 "u;",
			      w->off);
	} else {
		ht__walk_line(w, "nb = %" PRIu64 "u;", w->off);
	}
	w->dynamic = 1;
	w->dyn_align =
	    w->base_align < low_bit(w->off) ? w->base_align : low_bit(w->off);
}

void ht__walk_align(struct walk *w, unsigned a)
{
	if (a <= 1) {
		return;
	}
	if (!w->dynamic) {
		if (a <= w->base_align) {
			w->off = ht__align_up(w->off, a);
			return;
		}
		go_dynamic(w);
	}
	if (a <= w->dyn_align) {
		return;
	}
	if (w->mode == WALK_WRITE) {
		ht__walk_line(w, "b = ht_align_bits(b, %uu);", a);
	} else {
		/* The size is a bound: the padding is at most a - 1 bits. */
		ht__walk_line(w, "nb += %uu;", a - 1);
	}
	w->dyn_align = a;
}

void ht__walk_advance(struct walk *w, const char *bits_expr, uint64_t bits)
{
	if (!w->dynamic && !bits_expr) {
		w->off += bits;
		return;
	}
	go_dynamic(w);
	if (bits_expr) {
		ht__walk_line(w, "%s += %s;",
			      w->mode == WALK_WRITE ? "b" : "nb", bits_expr);
		w->dyn_align = w->dyn_align < 8 ? w->dyn_align : 8;
	} else {
		ht__walk_line(w, "%s += %" PRIu64 "u;",
			      w->mode == WALK_WRITE ? "b" : "nb", bits);
		if (low_bit(bits) < w->dyn_align) {
			w->dyn_align = low_bit(bits);
		}
	}
}

/* Byte pointer of the current position (byte aligned). */
static void pos_ptr(struct walk *w, char *buf, size_t len)
{
	if (w->dynamic) {
		snprintf(buf, len, "s->buf + (b >> 3)");
	} else if (w->off) {
		snprintf(buf, len, "q + %" PRIu64, w->off / 8);
	} else {
		snprintf(buf, len, "q");
	}
}

static int pos_byte_aligned(const struct walk *w)
{
	return w->dynamic ? w->dyn_align >= 8 : w->off % 8 == 0;
}

/* Writes an integer, enumeration or real of `ft` from expression v. */
void ht__walk_scalar(struct walk *w, const struct ht_ft *ft, const char *v)
{
	unsigned n = ft->size_bits;
	char ptr[64];

	ht__walk_align(w, ft->align_bits);
	if (w->mode == WALK_WRITE) {
		char *val;

		if (ft->kind == HT_FT_REAL) {
			val = expr(w, "%s(%s)",
				   n == 32 ? "ht_float_bits" : "ht_double_bits",
				   v);
		} else if (n == 64) {
			val = expr(w, "(uint64_t)(%s)", v);
		} else {
			val = expr(w, "(uint%u_t)(%s)", c_width(n), v);
		}
		if (!val) {
			return;
		}
		pos_ptr(w, ptr, sizeof(ptr));
		if (pos_byte_aligned(w) &&
		    (n == 8 || n == 16 || n == 32 || n == 64)) {
			if (n == 8) {
				ht__walk_line(w, "ht_store_u8(%s, %s);", ptr,
					      val);
			} else if (is_native(w, ft)) {
				ht__walk_line(w, "ht_store_u%u(%s, %s);", n,
					      ptr, val);
			} else {
				ht__walk_line(
				    w, "ht_store_u%u(%s, ht_swap%u(%s));", n,
				    ptr, n, val);
			}
		} else if (w->dynamic) {
			ht__walk_line(
			    w, "ht_bits_write_%s(s->buf, b, %u, (uint64_t)%s);",
			    ft_is_le(w->cfg, ft) ? "le" : "be", n, val);
		} else {
			ht__walk_line(w,
				      "ht_bits_write_%s(q, %" PRIu64
				      "u, %u, (uint64_t)%s);",
				      ft_is_le(w->cfg, ft) ? "le" : "be",
				      w->off, n, val);
		}
		free(val);
	}
	ht__walk_advance(w, NULL, n);
}

static void walk_ft(struct walk *w, const struct ht_ft *ft, const char *v,
		    const char *len_v);

static void walk_string(struct walk *w, const char *v, int in_loop)
{
	char *lenv;
	char *bits;
	char ptr[64];

	ht__walk_align(w, 8);
	if (in_loop) {
		lenv = expr(w, "(uint32_t)strlen(%s)", v);
	} else {
		lenv = expr(w, "l%u", w->strings++);
	}
	if (!lenv) {
		return;
	}
	if (!in_loop) {
		if (w->mode == WALK_SIZE) {
			ht__walk_line(w, "%s = (uint32_t)strlen(%s);", lenv, v);
		}
	}
	if (w->mode == WALK_WRITE) {
		pos_ptr(w, ptr, sizeof(ptr));
		ht__walk_line(w, "memcpy(%s, %s, (size_t)%s + 1);", ptr, v,
			      lenv);
	}
	bits = expr(w, "(%s + 1u) * 8u", lenv);
	free(lenv);
	if (bits) {
		ht__walk_advance(w, bits, 0);
		free(bits);
	}
}

/* Has every instance of ft the same size (no strings, no sequences)? */
int ht__ft_fixed(const struct ht_ft *ft)
{
	size_t i;

	switch (ft->kind) {
	case HT_FT_STRING:
	case HT_FT_DYNAMIC_ARRAY:
		return 0;
	case HT_FT_STATIC_ARRAY:
		return ht__ft_fixed(ft->elem);
	case HT_FT_STRUCT:
		for (i = 0; i < ft->nr_members; i++) {
			if (!ht__ft_fixed(ft->members[i].ft)) {
				return 0;
			}
		}
		return 1;
	default:
		return 1;
	}
}

/* Element count of a static array, nested static arrays flattened. */
static uint64_t flat_count(const struct ht_ft *ft)
{
	uint64_t n = 1;

	while (ft->kind == HT_FT_STATIC_ARRAY) {
		n *= ft->length;
		ft = ft->elem;
	}
	return n;
}

static const struct ht_ft *flat_elem(const struct ht_ft *ft)
{
	while (ft->kind == HT_FT_STATIC_ARRAY) {
		ft = ft->elem;
	}
	return ft;
}

/*
 * Arrays: v is a pointer to the flattened elements, count_v the number
 * of elements (an expression) or NULL for a static count.
 */
static void walk_array(struct walk *w, const struct ht_ft *ft, const char *v,
		       const char *count_v)
{
	const struct ht_ft *elem = flat_elem(ft->elem);
	uint64_t count = ft->kind == HT_FT_STATIC_ARRAY ? flat_count(ft) : 0;
	char *cnt;
	char *ev;
	char ptr[64];
	char idx[16];

	if (count_v) {
		cnt = expr(w, "(%s) * %" PRIu64 "u", count_v,
			   flat_count(ft->elem));
	} else {
		cnt = expr(w, "%" PRIu64 "u", count);
	}
	if (!cnt) {
		return;
	}
	ht__walk_align(w, ht_ft_align(elem));
	if (is_memcpy_elem(w, elem) && pos_byte_aligned(w)) {
		if (w->mode == WALK_WRITE) {
			pos_ptr(w, ptr, sizeof(ptr));
			ht__walk_line(w, "memcpy(%s, %s, (size_t)(%s) * %uu);",
				      ptr, v, cnt, elem->size_bits / 8);
		}
		if (count_v) {
			char *bits = expr(w, "(uint32_t)(%s) * %uu", cnt,
					  elem->size_bits);

			if (bits) {
				ht__walk_advance(w, bits, 0);
				free(bits);
			}
		} else {
			ht__walk_advance(w, NULL, count * elem->size_bits);
		}
		free(cnt);
		return;
	}
	/* A loop: the position is dynamic from here. */
	go_dynamic(w);
	snprintf(idx, sizeof(idx), "i%u", w->depth);
	ht__walk_line(w, "for (uint32_t %s = 0; %s < (uint32_t)(%s); %s++) {",
		      idx, idx, cnt, idx);
	free(cnt);
	w->indent++;
	w->depth++;
	ev = expr(w, "(%s)[%s]", v, idx);
	/* The alignment at the top of each iteration is unknown. */
	w->dyn_align = 1;
	if (ev) {
		walk_ft(w, elem, ev, NULL);
		free(ev);
	}
	w->dyn_align = 1;
	w->depth--;
	w->indent--;
	ht__walk_line(w, "}");
}

/*
 * Walks a field of type ft whose value is expression v. For members of
 * a top-level structure, values are parameters; inside arrays, element
 * expressions. len_v is the length expression of a dynamic array.
 */
static void walk_ft(struct walk *w, const struct ht_ft *ft, const char *v,
		    const char *len_v)
{
	size_t i;

	switch (ft->kind) {
	case HT_FT_UINT:
	case HT_FT_SINT:
	case HT_FT_UENUM:
	case HT_FT_SENUM:
	case HT_FT_REAL:
		ht__walk_scalar(w, ft, v);
		break;
	case HT_FT_STRING:
		walk_string(w, v, w->depth > 0);
		break;
	case HT_FT_STATIC_ARRAY:
		walk_array(w, ft, v, NULL);
		break;
	case HT_FT_DYNAMIC_ARRAY:
		ht__walk_scalar(w, &ht__ft_u32_a8, len_v);
		walk_array(w, ft, v, len_v);
		break;
	case HT_FT_STRUCT:
		ht__walk_align(w, ht_ft_align(ft));
		for (i = 0; i < ft->nr_members; i++) {
			char *mv = expr(w, "(%s).%s", v, ft->members[i].name);

			if (!mv) {
				return;
			}
			walk_ft(w, ft->members[i].ft, mv, NULL);
			free(mv);
		}
		break;
	}
}

/* Parameters (struct params says how they are named). */

static void c_elem_type(const struct params *pp, const struct ht_ft *ft,
			const char *path, char *buf, size_t len)
{
	while (ft->kind == HT_FT_STATIC_ARRAY ||
	       ft->kind == HT_FT_DYNAMIC_ARRAY) {
		ft = ft->elem;
	}
	switch (ft->kind) {
	case HT_FT_REAL:
		snprintf(buf, len, "%s",
			 ft->size_bits == 32 ? "float" : "double");
		break;
	case HT_FT_STRING:
		snprintf(buf, len, "const char *");
		break;
	case HT_FT_STRUCT:
		snprintf(buf, len, "struct %s%s_%s", pp->prefix, pp->owner,
			 path);
		break;
	case HT_FT_DYNAMIC_ARRAY:
		/* Rejected before: arrays of sequences have no C form here. */
		snprintf(buf, len, "void *");
		break;
	default:
		snprintf(buf, len, "%sint%u_t", is_signed(ft) ? "" : "u",
			 c_width(ft->size_bits));
		break;
	}
}

/*
 * Emits the C structure type of an array element e (named after path),
 * after the types its members take: a nested structure member is a C
 * structure member of type <path>_<member>, an array of structures a
 * pointer-less C array of <path>_<member>.
 */
static void emit_elem_struct(FILE *out, const struct params *pp,
			     const struct ht_ft *e, const char *path)
{
	size_t i;
	char sub[256];
	char ty[300];

	for (i = 0; i < e->nr_members; i++) {
		const struct ht_ft *m = e->members[i].ft;

		snprintf(sub, sizeof(sub), "%s_%s", path, e->members[i].name);
		if (m->kind == HT_FT_STRUCT) {
			emit_elem_struct(out, pp, m, sub);
		} else {
			ht__emit_elem_types(out, pp, m, sub);
		}
	}
	fprintf(out, "struct %s%s_%s {\n", pp->prefix, pp->owner, path);
	for (i = 0; i < e->nr_members; i++) {
		const struct ht_ft *m = e->members[i].ft;

		snprintf(sub, sizeof(sub), "%s_%s", path, e->members[i].name);
		c_elem_type(pp, m, sub, ty, sizeof(ty));
		if (m->kind == HT_FT_STATIC_ARRAY) {
			fprintf(out, "\t%s %s[%" PRIu64 "];\n", ty,
				e->members[i].name, flat_count(m));
		} else {
			fprintf(out, "\t%s %s;\n", ty, e->members[i].name);
		}
	}
	fprintf(out, "};\n\n");
}

/* Emits the C structure types that arrays of structures take. */
void ht__emit_elem_types(FILE *out, const struct params *pp,
			 const struct ht_ft *ft, const char *path)
{
	size_t i;
	char sub[256];

	if (ft->kind == HT_FT_STATIC_ARRAY || ft->kind == HT_FT_DYNAMIC_ARRAY) {
		const struct ht_ft *e = flat_elem(ft->elem);

		if (e->kind == HT_FT_STRUCT) {
			emit_elem_struct(out, pp, e, path);
		}
		return;
	}
	if (ft->kind == HT_FT_STRUCT) {
		for (i = 0; i < ft->nr_members; i++) {
			snprintf(sub, sizeof(sub), "%s_%s", path,
				 ft->members[i].name);
			ht__emit_elem_types(out, pp, ft->members[i].ft, sub);
		}
	}
}

/* Emits the parameter list entries of a scope structure's members. */
void ht__emit_params(FILE *out, const struct params *pp, const struct ht_ft *ft,
		     const char *path)
{
	size_t i;
	char name[256];
	char ty[300];

	for (i = 0; i < ft->nr_members; i++) {
		const struct ht_ft *m = ft->members[i].ft;

		snprintf(name, sizeof(name), "%s_%s", path,
			 ft->members[i].name);
		switch (m->kind) {
		case HT_FT_STRUCT:
			ht__emit_params(out, pp, m, name);
			break;
		case HT_FT_STATIC_ARRAY:
		case HT_FT_DYNAMIC_ARRAY:
			c_elem_type(pp, m, name, ty, sizeof(ty));
			if (m->kind == HT_FT_DYNAMIC_ARRAY) {
				fprintf(out, ",\n\tuint32_t %s___%s_len", path,
					ft->members[i].name);
			}
			if (flat_elem(m->elem)->kind == HT_FT_STRING) {
				fprintf(out, ",\n\tconst char *const *%s",
					name);
			} else {
				fprintf(out, ",\n\tconst %s *%s", ty, name);
			}
			break;
		default:
			c_elem_type(pp, m, name, ty, sizeof(ty));
			fprintf(out, ",\n\t%s%s%s", ty,
				m->kind == HT_FT_STRING ? "" : " ", name);
			break;
		}
	}
}

/* Walks a scope structure whose members are parameters. */
void ht__walk_scope(struct walk *w, const struct ht_ft *ft, const char *path)
{
	size_t i;
	char name[256];
	char lenv[300];

	ht__walk_align(w, ht_ft_align(ft));
	for (i = 0; i < ft->nr_members; i++) {
		const struct ht_ft *m = ft->members[i].ft;

		snprintf(name, sizeof(name), "%s_%s", path,
			 ft->members[i].name);
		if (w->mode == WALK_WRITE) {
			ht__walk_line(w, "/* `%s` */", ft->members[i].name);
		}
		switch (m->kind) {
		case HT_FT_STRUCT:
			ht__walk_scope(w, m, name);
			break;
		case HT_FT_DYNAMIC_ARRAY:
			snprintf(lenv, sizeof(lenv), "%s___%s_len", path,
				 ft->members[i].name);
			walk_ft(w, m, name, lenv);
			break;
		default:
			walk_ft(w, m, name, NULL);
			break;
		}
	}
}
