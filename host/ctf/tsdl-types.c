/* SPDX-License-Identifier: MIT */
/*
 * TSDL type declarations: integer, floating point, string, enum,
 * struct and variant specifiers with their attributes, declarators
 * (arrays and sequences), typealias and typedef, and the scopes that
 * hold aliases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsdl-parser.h"
#include "common/buf.h"
#include "common/error.h"

/*
 * Every type the parser makes, with how deep it nests (TSDL_MAX_DEPTH):
 * 0 for an integer, a floating point number, a string or an
 * enumeration, one more than its deepest member or element for a
 * structure, a variant, an array or a sequence.
 */
struct tsdl_type {
	struct ht_ctf_type pub; /* first: a type is its tsdl_type */
	unsigned depth;
};

/* Below this many, enum labels and members are looked up by a scan. */
#define SCAN_MAX 16

static unsigned type_depth(const struct ht_ctf_type *t)
{
	return ((const struct tsdl_type *)t)->depth;
}

static struct ht_ctf_type *new_type(struct parser *ps,
				    enum ht_ctf_type_kind kind)
{
	struct tsdl_type *t = ht__arena_alloc(ps->a, sizeof(*t));

	if (!t) {
		return NULL;
	}
	t->pub.kind = kind;
	t->pub.align_bits = 8;
	t->pub.base = 10;
	return &t->pub;
}

static struct ht_ctf_type *copy_type(struct parser *ps,
				     const struct ht_ctf_type *src)
{
	struct tsdl_type *t = ht__arena_alloc(ps->a, sizeof(*t));

	if (!t) {
		return NULL;
	}
	*t = *(const struct tsdl_type *)src;
	if ((t->pub.kind == HT_CTF_INT || t->pub.kind == HT_CTF_FLOAT) &&
	    ht__tsdl_vec_push(&ps->types, &t->pub)) {
		return NULL;
	}
	return &t->pub;
}

/* Sets the depth of @t, one more than @inner; an error at @line:@col
 * when that is too deep. */
static int set_depth(struct parser *ps, struct ht_ctf_type *t, unsigned inner,
		     unsigned line, unsigned col)
{
	if (inner >= TSDL_MAX_DEPTH) {
		return ht__tsdl_fail_at(ps, line, col, HT_ERANGE,
					"types nested deeper than %d",
					TSDL_MAX_DEPTH);
	}
	((struct tsdl_type *)t)->depth = inner + 1;
	return 0;
}

static int add_alias(struct parser *ps, const char *name, int kind,
		     const struct ht_ctf_type *type)
{
	struct name_index *ix = &ps->alias_ix[kind];
	size_t len = strlen(name);
	struct alias *a;

	if (ht_array_reserve((void **)&ps->aliases, &ps->cap_aliases,
			     ps->nr_aliases + 1, sizeof(*ps->aliases))) {
		return HT_ENOMEM;
	}
	a = &ps->aliases[ps->nr_aliases];
	a->name = name;
	a->kind = kind;
	a->type = type;
	a->depth = ps->depth;
	a->prev = ht__tsdl_index_find(ix, name, len);
	if (ht__tsdl_index_set(ix, name, len, ps->nr_aliases)) {
		return HT_ENOMEM;
	}
	ps->nr_aliases++;
	return 0;
}

static const struct ht_ctf_type *find_alias(struct parser *ps, const char *name,
					    size_t len, int kind)
{
	size_t i = ht__tsdl_index_find(&ps->alias_ix[kind], name, len);

	return i == NAME_NONE ? NULL : ps->aliases[i].type;
}

void ht__tsdl_enter_scope(struct parser *ps)
{
	ps->depth++;
}

void ht__tsdl_leave_scope(struct parser *ps)
{
	while (ps->nr_aliases &&
	       ps->aliases[ps->nr_aliases - 1].depth >= ps->depth) {
		const struct alias *a = &ps->aliases[--ps->nr_aliases];

		/* the name is in the index: setting it cannot fail */
		ht__tsdl_index_set(&ps->alias_ix[a->kind], a->name,
				   strlen(a->name), a->prev);
	}
	ps->depth--;
}

static int parse_declarator(struct parser *ps, const struct ht_ctf_type *base,
			    const struct ht_ctf_type **type, const char **name);

bool ht__tsdl_is_type_start(struct parser *ps)
{
	struct tok *t = cur(ps);
	static const char *const kw[] = {"integer", "floating_point", "string",
					 "enum",    "struct",	      "variant",
					 "const",   "volatile"};
	size_t i;

	if (t->kind != T_IDENT) {
		return false;
	}
	for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++) {
		if (tok_ident(t, kw[i])) {
			return true;
		}
	}
	return find_alias(ps, t->s, t->len, ALIAS_TYPE) != NULL ||
	       tok_ident(t, "unsigned") || tok_ident(t, "signed");
}

/* attribute block of integer / floating_point / string */
static int parse_attrs(struct parser *ps, struct ht_ctf_type *t)
{
	int ret;
	bool has_align = false;

	ret = expect(ps, "{");
	if (ret) {
		return ret;
	}
	while (!tok_is(cur(ps), "}")) {
		struct tok *k = cur(ps);
		struct value v;
		char name[32];

		if (k->kind != T_IDENT) {
			return FAIL(ps, HT_ESYNTAX, "expected an attribute");
		}
		snprintf(name, sizeof(name), "%.*s", (int)k->len, k->s);
		advance(ps);
		ret = expect(ps, "=");
		if (ret) {
			return ret;
		}
		ret = ht__tsdl_parse_value(ps, &v);
		if (ret) {
			return ret;
		}
		if (!strcmp(name, "size") || !strcmp(name, "exp_dig") ||
		    !strcmp(name, "mant_dig") || !strcmp(name, "align")) {
			uint64_t u = 0;

			ret = ht__tsdl_value_uint(ps, &v, &u);
			if (ret) {
				return ret;
			}
			if (!strcmp(name, "size")) {
				if (u == 0 || u > 64) {
					return ht__tsdl_fail_at(
					    ps, v.line, v.col, HT_EUNSUPPORTED,
					    "integer size %llu: only 1 to "
					    "64 bits are supported",
					    (unsigned long long)u);
				}
				t->size_bits = u;
			} else if (!strcmp(name, "exp_dig")) {
				t->exp_dig = u > 64 ? 64 : u;
			} else if (!strcmp(name, "mant_dig")) {
				t->mant_dig = u > 64 ? 64 : u;
			} else {
				if (u == 0 || (u & (u - 1)) || u > (1u << 20)) {
					return ht__tsdl_fail_at(
					    ps, v.line, v.col, HT_ESYNTAX,
					    "align must be a power "
					    "of two");
				}
				t->align_bits = u;
				has_align = true;
			}
		} else if (!strcmp(name, "signed")) {
			ret = ht__tsdl_value_bool(ps, &v, &t->is_signed);
		} else if (!strcmp(name, "byte_order")) {
			int bo;

			ret = ht__tsdl_value_bo(ps, &v, &bo);
			t->byte_order = bo;
		} else if (!strcmp(name, "base")) {
			if (v.kind == V_NUM) {
				t->base = v.num;
			} else if (v.kind == V_IDENT &&
				   (!strcmp(v.text, "decimal") ||
				    !strcmp(v.text, "dec") ||
				    !strcmp(v.text, "d") ||
				    !strcmp(v.text, "i") ||
				    !strcmp(v.text, "u"))) {
				t->base = 10;
			} else if (v.kind == V_IDENT &&
				   (!strcmp(v.text, "hexadecimal") ||
				    !strcmp(v.text, "hex") ||
				    !strcmp(v.text, "x") ||
				    !strcmp(v.text, "X") ||
				    !strcmp(v.text, "p"))) {
				t->base = 16;
			} else if (v.kind == V_IDENT &&
				   (!strcmp(v.text, "octal") ||
				    !strcmp(v.text, "oct") ||
				    !strcmp(v.text, "o"))) {
				t->base = 8;
			} else if (v.kind == V_IDENT &&
				   (!strcmp(v.text, "binary") ||
				    !strcmp(v.text, "b"))) {
				t->base = 2;
			} else {
				return ht__tsdl_fail_at(ps, v.line, v.col,
							HT_ESYNTAX, "bad base");
			}
			if (t->base != 2 && t->base != 8 && t->base != 10 &&
			    t->base != 16) {
				return ht__tsdl_fail_at(ps, v.line, v.col,
							HT_ESYNTAX, "bad base");
			}
		} else if (!strcmp(name, "encoding")) {
			if (v.kind != V_IDENT && v.kind != V_STR) {
				return ht__tsdl_fail_at(ps, v.line, v.col,
							HT_ESYNTAX,
							"bad encoding");
			}
			if (!strcasecmp(v.text, "UTF8")) {
				t->encoding = HT_CTF_ENC_UTF8;
			} else if (!strcasecmp(v.text, "ASCII")) {
				t->encoding = HT_CTF_ENC_ASCII;
			} else if (!strcasecmp(v.text, "none")) {
				t->encoding = HT_CTF_ENC_NONE;
			} else {
				return ht__tsdl_fail_at(ps, v.line, v.col,
							HT_ESYNTAX,
							"bad encoding");
			}
		} else if (!strcmp(name, "map")) {
			/* clock.NAME.value; resolved after parsing */
			const char *s = v.text;
			size_t n = strlen(s);

			if (v.kind != V_IDENT || strncmp(s, "clock.", 6) ||
			    n < 13 || strcmp(s + n - 6, ".value")) {
				return ht__tsdl_fail_at(
				    ps, v.line, v.col, HT_ESYNTAX,
				    "bad map (clock.NAME.value)");
			}
			/* stash the clock name in tag_ref until resolved */
			t->tag_ref = ht__arena_strndup(ps->a, s + 6, n - 12);
			if (!t->tag_ref) {
				return HT_ENOMEM;
			}
		} else {
			ht__tsdl_warn_once(ps, "unknown type attribute", v.line,
					   v.col);
		}
		if (ret) {
			return ret;
		}
		ret = expect(ps, ";");
		if (ret) {
			return ret;
		}
	}
	advance(ps);
	if (t->kind == HT_CTF_INT && !t->size_bits) {
		return FAIL(ps, HT_ESYNTAX, "integer without a size");
	}
	if (t->kind == HT_CTF_INT && !has_align) {
		t->align_bits = t->size_bits % 8 ? 1 : 8;
	}
	if (t->kind == HT_CTF_FLOAT) {
		if (!((t->exp_dig == 8 && t->mant_dig == 24) ||
		      (t->exp_dig == 11 && t->mant_dig == 53))) {
			return FAIL(ps, HT_EUNSUPPORTED,
				    "floating_point with exp_dig=%u "
				    "mant_dig=%u: only 32 and 64-bit IEEE 754 "
				    "are supported",
				    t->exp_dig, t->mant_dig);
		}
		t->size_bits = t->exp_dig + t->mant_dig;
	}
	return 0;
}

/* A range of an enumeration being parsed, and the label it maps to. */
struct enum_range {
	size_t map;
	struct ht_ctf_enum_range r;
};

/*
 * The index in @maps (@nr of them) of the label @s (@len bytes), or
 * NAME_NONE: a scan of a short enumeration, the index @ix of a long
 * one (made when it reaches SCAN_MAX labels).
 */
static size_t enum_label_find(struct name_index *ix,
			      const struct ht_ctf_enum_mapping *maps, size_t nr,
			      const char *s, size_t len)
{
	size_t j;

	if (nr > SCAN_MAX) {
		return ht__tsdl_index_find(ix, s, len);
	}
	for (j = 0; j < nr; j++) {
		if (strlen(maps[j].label) == len &&
		    !memcmp(maps[j].label, s, len)) {
			return j;
		}
	}
	return NAME_NONE;
}

static int enum_label_add(struct name_index *ix,
			  const struct ht_ctf_enum_mapping *maps, size_t nr)
{
	/* all labels once there are too many to scan, then each new one */
	size_t j = nr == SCAN_MAX + 1 ? 0 : nr - 1;

	if (nr <= SCAN_MAX) {
		return 0;
	}
	for (; j < nr; j++) {
		if (ht__tsdl_index_set(ix, maps[j].label, strlen(maps[j].label),
				       j)) {
			return HT_ENOMEM;
		}
	}
	return 0;
}

/*
 * The mappings @maps (@nr of them) and their ranges @rs (@nr_rs, in
 * metadata order) into the arena, as the enumeration @t holds them.
 */
static int enum_finish(struct parser *ps, struct ht_ctf_type *t,
		       struct ht_ctf_enum_mapping *maps, size_t nr,
		       const struct enum_range *rs, size_t nr_rs)
{
	struct ht_ctf_enum_mapping *m;
	struct ht_ctf_enum_range *all;
	size_t j, at = 0;

	if (!nr) {
		return 0;
	}
	m = ht__arena_alloc(ps->a, nr * sizeof(*m));
	all = ht__arena_alloc(ps->a, nr_rs * sizeof(*all));
	if (!m || !all) {
		return HT_ENOMEM;
	}
	/* each label's ranges one after the other (.nr_ranges counted
	 * them), in metadata order */
	for (j = 0; j < nr; j++) {
		m[j].label = maps[j].label;
		m[j].ranges = all + at;
		at += maps[j].nr_ranges;
	}
	for (j = 0; j < nr_rs; j++) {
		struct ht_ctf_enum_mapping *mj = &m[rs[j].map];

		all[(mj->ranges - all) + mj->nr_ranges++] = rs[j].r;
	}
	t->mappings = m;
	t->nr_mappings = nr;
	return 0;
}

static int parse_enum(struct parser *ps, const struct ht_ctf_type **out)
{
	struct ht_ctf_type *t;
	const struct ht_ctf_type *container = NULL;
	const char *name = NULL;
	struct ht_ctf_enum_mapping *maps = NULL;
	struct enum_range *rs = NULL;
	struct name_index ix = {NULL, 0, 0};
	size_t nr = 0, cap = 0, nr_rs = 0, cap_rs = 0;
	int64_t next = 0;
	bool next_valid = true;
	int ret;

	advance(ps); /* enum */
	if (cur(ps)->kind == T_IDENT && !tok_is(peek(ps, 1), "{") &&
	    !tok_is(peek(ps, 1), ":")) {
		/* a reference to a named enum */
		const struct ht_ctf_type *e;

		e = find_alias(ps, cur(ps)->s, cur(ps)->len, ALIAS_ENUM);
		if (!e) {
			return FAIL(ps, HT_ESYNTAX, "unknown enum '%.*s'",
				    (int)cur(ps)->len, cur(ps)->s);
		}
		advance(ps);
		*out = e;
		return 0;
	}
	if (cur(ps)->kind == T_IDENT) {
		name = tok_strdup(ps, cur(ps));
		if (!name) {
			return HT_ENOMEM;
		}
		advance(ps);
		if (!tok_is(cur(ps), "{") && !tok_is(cur(ps), ":")) {
			return FAIL(ps, HT_ESYNTAX, "expected '{' or ':'");
		}
	}
	if (tok_is(cur(ps), ":")) {
		advance(ps);
		ret = ht__tsdl_parse_type(ps, &container, false);
		if (ret) {
			return ret;
		}
	} else {
		container = find_alias(ps, "int", 3, ALIAS_TYPE);
		if (!container) {
			return FAIL(ps, HT_ESYNTAX,
				    "enum without a container type and no "
				    "`int` type alias");
		}
	}
	if (container->kind != HT_CTF_INT) {
		return FAIL(ps, HT_ESYNTAX,
			    "the container of an enum must be an integer");
	}
	ret = expect(ps, "{");
	if (ret) {
		return ret;
	}
	while (!tok_is(cur(ps), "}")) {
		struct ht_ctf_enum_range *r;
		struct tok *lt = cur(ps);
		struct value lo, hi;
		bool has_range = false;
		size_t j;

		if (lt->kind != T_IDENT && lt->kind != T_STR) {
			ret = FAIL(ps, HT_ESYNTAX, "expected an enum label");
			goto fail;
		}
		advance(ps);
		if (tok_is(cur(ps), "=")) {
			advance(ps);
			ret = ht__tsdl_parse_value(ps, &lo);
			if (ret) {
				goto fail;
			}
			hi = lo;
			if (tok_is(cur(ps), "...")) {
				advance(ps);
				ret = ht__tsdl_parse_value(ps, &hi);
				if (ret) {
					goto fail;
				}
			}
			if (lo.kind != V_NUM || hi.kind != V_NUM) {
				ret = ht__tsdl_fail_at(
				    ps, lo.line, lo.col, HT_ESYNTAX,
				    "enum values must be integers");
				goto fail;
			}
			has_range = true;
		}
		if (ht_array_reserve((void **)&rs, &cap_rs, nr_rs + 1,
				     sizeof(*rs))) {
			ret = HT_ENOMEM;
			goto fail;
		}
		r = &rs[nr_rs].r;
		memset(r, 0, sizeof(*r));
		if (has_range) {
			if (container->is_signed) {
				ret = ht__tsdl_value_int(ps, &lo, &r->lower.s);
				if (!ret) {
					ret = ht__tsdl_value_int(ps, &hi,
								 &r->upper.s);
				}
				if (ret) {
					goto fail;
				}
				if (r->lower.s > r->upper.s) {
					int64_t x = r->lower.s;

					r->lower.s = r->upper.s;
					r->upper.s = x;
				}
				next = r->upper.s;
			} else {
				r->lower.u = lo.neg ? 0 - lo.num : lo.num;
				r->upper.u = hi.neg ? 0 - hi.num : hi.num;
				if (r->lower.u > r->upper.u) {
					uint64_t x = r->lower.u;

					r->lower.u = r->upper.u;
					r->upper.u = x;
				}
				next = (int64_t)r->upper.u;
			}
			next_valid = !(container->is_signed
					   ? next == INT64_MAX
					   : (uint64_t)next == UINT64_MAX);
			next++;
		} else {
			if (!next_valid) {
				ret = FAIL(ps, HT_ERANGE,
					   "enum value out of range");
				goto fail;
			}
			r->lower.s = r->upper.s = next;
			next_valid = !(container->is_signed
					   ? next == INT64_MAX
					   : (uint64_t)next == UINT64_MAX);
			next++;
		}
		/* a label given twice adds a range to the first one */
		j = enum_label_find(&ix, maps, nr, lt->s, lt->len);
		if (j == NAME_NONE) {
			if (ht_array_reserve((void **)&maps, &cap, nr + 1,
					     sizeof(*maps))) {
				ret = HT_ENOMEM;
				goto fail;
			}
			j = nr++;
			maps[j].label = tok_strdup(ps, lt);
			maps[j].ranges = NULL;
			maps[j].nr_ranges = 0;
			if (!maps[j].label || enum_label_add(&ix, maps, nr)) {
				ret = HT_ENOMEM;
				goto fail;
			}
		}
		maps[j].nr_ranges++;
		rs[nr_rs++].map = j;
		if (tok_is(cur(ps), ",")) {
			advance(ps);
		} else if (!tok_is(cur(ps), "}")) {
			ret = FAIL(ps, HT_ESYNTAX, "expected ',' or '}'");
			goto fail;
		}
	}
	advance(ps);
	t = new_type(ps, HT_CTF_ENUM);
	if (!t) {
		ret = HT_ENOMEM;
		goto fail;
	}
	t->container = container;
	t->align_bits = container->align_bits;
	t->size_bits = container->size_bits;
	t->is_signed = container->is_signed;
	t->base = container->base;
	ret = enum_finish(ps, t, maps, nr, rs, nr_rs);
	if (!ret && name) {
		ret = add_alias(ps, name, ALIAS_ENUM, t);
	}
	if (!ret) {
		*out = t;
	}
fail:
	free(maps);
	free(rs);
	ht__tsdl_index_fini(&ix);
	return ret;
}

/*
 * Whether a member of @mem (@nr of them) is named @name: a scan of a
 * short list, the index @ix of a long one (made when it reaches
 * SCAN_MAX names); @name is added to @ix when it is new.
 */
static int member_seen(struct name_index *ix, const struct ht_ctf_member *mem,
		       size_t nr, const char *name, bool *seen)
{
	size_t j, len = strlen(name);

	*seen = false;
	if (nr < SCAN_MAX) {
		for (j = 0; j < nr; j++) {
			if (!strcmp(mem[j].name, name)) {
				*seen = true;
				return 0;
			}
		}
		return 0;
	}
	for (j = nr == SCAN_MAX ? 0 : nr; j < nr; j++) {
		if (ht__tsdl_index_set(ix, mem[j].name, strlen(mem[j].name),
				       j)) {
			return HT_ENOMEM;
		}
	}
	*seen = ht__tsdl_index_find(ix, name, len) != NAME_NONE;
	if (!*seen && ht__tsdl_index_set(ix, name, len, nr)) {
		return HT_ENOMEM;
	}
	return 0;
}

/* struct or variant body: members / options */
static int parse_compound_body(struct parser *ps, struct ht_ctf_type *t)
{
	struct ht_ctf_member *mem = NULL;
	struct name_index ix = {NULL, 0, 0};
	size_t nr = 0, cap = 0;
	unsigned depth = 0;
	int ret;

	ret = expect(ps, "{");
	if (ret) {
		return ret;
	}
	ht__tsdl_enter_scope(ps);
	while (!tok_is(cur(ps), "}")) {
		const struct ht_ctf_type *base;

		if (tok_ident(cur(ps), "typealias")) {
			ret = ht__tsdl_parse_alias_decl(ps, false);
		} else if (tok_ident(cur(ps), "typedef")) {
			ret = ht__tsdl_parse_alias_decl(ps, true);
		} else {
			ret = ht__tsdl_parse_type(ps, &base, true);
			if (ret) {
				goto fail;
			}
			if (tok_is(cur(ps), ";")) {
				/* a named struct/enum/variant declaration */
				advance(ps);
				continue;
			}
			for (;;) {
				const struct ht_ctf_type *ft;
				const char *name;
				bool seen;

				ret = parse_declarator(ps, base, &ft, &name);
				if (!ret) {
					ret = member_seen(&ix, mem, nr, name,
							  &seen);
				}
				if (ret) {
					goto fail;
				}
				if (seen) {
					ret =
					    FAIL(ps, HT_ESYNTAX,
						 "duplicate member '%s'", name);
					goto fail;
				}
				if (type_depth(ft) > depth) {
					depth = type_depth(ft);
				}
				if (ht_array_reserve((void **)&mem, &cap,
						     nr + 1, sizeof(*mem))) {
					ret = HT_ENOMEM;
					goto fail;
				}
				mem[nr].name = name;
				mem[nr].type = ft;
				nr++;
				if (!tok_is(cur(ps), ",")) {
					break;
				}
				advance(ps);
			}
			ret = expect(ps, ";");
		}
		if (ret) {
			goto fail;
		}
	}
	advance(ps);
	if (nr) {
		struct ht_ctf_member *m =
		    ht__arena_alloc(ps->a, nr * sizeof(*m));

		if (!m) {
			ret = HT_ENOMEM;
			goto fail;
		}
		memcpy(m, mem, nr * sizeof(*m));
		t->members = m;
	}
	t->nr_members = nr;
	((struct tsdl_type *)t)->depth = depth; /* of its members here */
fail:
	ht__tsdl_leave_scope(ps);
	ht__tsdl_index_fini(&ix);
	free(mem);
	return ret;
}

static int parse_tag_ref(struct parser *ps, const char **ref)
{
	char buf[512];
	int ret;

	ret = expect(ps, "<");
	if (ret) {
		return ret;
	}
	if (!ht__tsdl_dotted_name(ps, buf, sizeof(buf))) {
		return FAIL(ps, HT_ESYNTAX, "bad variant tag");
	}
	ret = expect(ps, ">");
	if (ret) {
		return ret;
	}
	*ref = ht__arena_strdup(ps->a, buf);
	return *ref ? 0 : HT_ENOMEM;
}

static int parse_struct_or_variant(struct parser *ps,
				   const struct ht_ctf_type **out)
{
	bool is_variant = tok_ident(cur(ps), "variant");
	int kind = is_variant ? ALIAS_VARIANT : ALIAS_STRUCT;
	const char *name = NULL, *tag = NULL;
	unsigned line = cur(ps)->line, col = cur(ps)->col;
	struct ht_ctf_type *t;
	int ret;

	advance(ps);
	if (cur(ps)->kind == T_IDENT) {
		name = tok_strdup(ps, cur(ps));
		if (!name) {
			return HT_ENOMEM;
		}
		advance(ps);
	}
	if (is_variant && tok_is(cur(ps), "<")) {
		ret = parse_tag_ref(ps, &tag);
		if (ret) {
			return ret;
		}
	}
	if (!tok_is(cur(ps), "{")) {
		const struct ht_ctf_type *ref;

		if (!name) {
			return FAIL(ps, HT_ESYNTAX, "expected '{'");
		}
		ref = find_alias(ps, name, strlen(name), kind);
		if (!ref) {
			return FAIL(ps, HT_ESYNTAX, "unknown %s '%s'",
				    is_variant ? "variant" : "struct", name);
		}
		if (tag) {
			t = copy_type(ps, ref);
			if (!t) {
				return HT_ENOMEM;
			}
			t->tag_ref = tag;
			ref = t;
		}
		*out = ref;
		return 0;
	}
	t = new_type(ps, is_variant ? HT_CTF_VARIANT : HT_CTF_STRUCT);
	if (!t) {
		return HT_ENOMEM;
	}
	t->align_bits = 1;
	t->tag_ref = tag;
	ret = parse_compound_body(ps, t);
	if (!ret) {
		ret = set_depth(ps, t, type_depth(t), line, col);
	}
	if (ret) {
		return ret;
	}
	if (!is_variant && tok_ident(cur(ps), "align")) {
		struct value v;
		uint64_t u = 0;

		advance(ps);
		ret = expect(ps, "(");
		if (!ret) {
			ret = ht__tsdl_parse_value(ps, &v);
		}
		if (!ret) {
			ret = ht__tsdl_value_uint(ps, &v, &u);
		}
		if (!ret && (u == 0 || (u & (u - 1)) || u > (1u << 20))) {
			ret = ht__tsdl_fail_at(ps, v.line, v.col, HT_ESYNTAX,
					       "align must be a power of two");
		}
		if (!ret) {
			ret = expect(ps, ")");
		}
		if (ret) {
			return ret;
		}
		t->align_bits = u;
	}
	if (!is_variant) {
		size_t i;

		for (i = 0; i < t->nr_members; i++) {
			if (t->members[i].type->align_bits > t->align_bits) {
				t->align_bits = t->members[i].type->align_bits;
			}
		}
	}
	if (name) {
		ret = add_alias(ps, name, kind, t);
		if (ret) {
			return ret;
		}
	}
	*out = t;
	return 0;
}

/*
 * A type specifier. With @need_declarator, a run of identifiers naming an
 * alias leaves its last identifier for the declarator.
 */
int ht__tsdl_parse_type(struct parser *ps, const struct ht_ctf_type **out,
			bool need_declarator)
{
	struct tok *t;
	struct ht_ctf_type *nt;
	int ret;

	while (tok_ident(cur(ps), "const") || tok_ident(cur(ps), "volatile")) {
		advance(ps);
	}
	t = cur(ps);
	if (tok_ident(t, "integer") || tok_ident(t, "floating_point")) {
		nt = new_type(ps, tok_ident(t, "integer") ? HT_CTF_INT
							  : HT_CTF_FLOAT);
		if (!nt) {
			return HT_ENOMEM;
		}
		nt->byte_order = BO_NATIVE;
		advance(ps);
		ret = parse_attrs(ps, nt);
		if (ret) {
			return ret;
		}
		if (ht__tsdl_vec_push(&ps->types, nt)) {
			return HT_ENOMEM;
		}
		*out = nt;
		return 0;
	}
	if (tok_ident(t, "string")) {
		nt = new_type(ps, HT_CTF_STRING);
		if (!nt) {
			return HT_ENOMEM;
		}
		nt->encoding = HT_CTF_ENC_UTF8;
		advance(ps);
		if (tok_is(cur(ps), "{")) {
			ret = parse_attrs(ps, nt);
			if (ret) {
				return ret;
			}
			nt->align_bits = 8;
		}
		*out = nt;
		return 0;
	}
	if (tok_ident(t, "enum") || tok_ident(t, "struct") ||
	    tok_ident(t, "variant")) {
		/* these hold type specifiers: bound the recursion before
		 * the depth of the types made (set_depth()) can */
		if (ps->nest == TSDL_MAX_DEPTH) {
			return FAIL(ps, HT_ERANGE,
				    "types nested deeper than %d",
				    TSDL_MAX_DEPTH);
		}
		ps->nest++;
		ret = tok_ident(t, "enum") ? parse_enum(ps, out)
					   : parse_struct_or_variant(ps, out);
		ps->nest--;
		return ret;
	}
	if (t->kind == T_IDENT) {
		/* an alias name: one or more identifiers */
		size_t n = 0, k, best = 0;
		char name[256];
		size_t len = 0;
		const struct ht_ctf_type *found = NULL;

		while (peek(ps, n)->kind == T_IDENT) {
			n++;
		}
		/* the longest run that names an alias (leaving one
		 * identifier for the declarator when needed) */
		for (k = 1; k <= n; k++) {
			const struct ht_ctf_type *a;
			struct tok *tk = peek(ps, k - 1);

			if (need_declarator && k == n) {
				break;
			}
			if (len + tk->len + 2 > sizeof(name)) {
				break;
			}
			if (k > 1) {
				name[len++] = ' ';
			}
			memcpy(name + len, tk->s, tk->len);
			len += tk->len;
			a = find_alias(ps, name, len, ALIAS_TYPE);
			if (a) {
				found = a;
				best = k;
			}
		}
		if (!found) {
			return FAIL(ps, HT_ESYNTAX, "unknown type '%.*s'",
				    (int)t->len, t->s);
		}
		ps->i += best;
		if (found->kind == HT_CTF_VARIANT && tok_is(cur(ps), "<")) {
			const char *tag;

			ret = parse_tag_ref(ps, &tag);
			if (ret) {
				return ret;
			}
			nt = copy_type(ps, found);
			if (!nt) {
				return HT_ENOMEM;
			}
			nt->tag_ref = tag;
			found = nt;
		}
		*out = found;
		return 0;
	}
	{
		char b[64];

		return FAIL(ps, HT_ESYNTAX, "expected a type, found %s",
			    ht__tsdl_tok_desc(t, b, sizeof(b)));
	}
}

/* a path inside [ ]: a number (static array) or a field reference */
static int parse_declarator(struct parser *ps, const struct ht_ctf_type *base,
			    const struct ht_ctf_type **type, const char **name)
{
	struct {
		bool is_seq;
		uint64_t len;
		const char *ref;
	} dims[8];
	size_t nd = 0;
	const struct ht_ctf_type *ft = base;
	unsigned line = cur(ps)->line, col = cur(ps)->col;
	int ret;

	if (cur(ps)->kind != T_IDENT) {
		char b[64];

		return FAIL(ps, HT_ESYNTAX, "expected a field name, found %s",
			    ht__tsdl_tok_desc(cur(ps), b, sizeof(b)));
	}
	*name = tok_strdup(ps, cur(ps));
	if (!*name) {
		return HT_ENOMEM;
	}
	advance(ps);
	while (tok_is(cur(ps), "[")) {
		advance(ps);
		if (nd == sizeof(dims) / sizeof(dims[0])) {
			return FAIL(ps, HT_EUNSUPPORTED,
				    "too many array dimensions");
		}
		if (cur(ps)->kind == T_NUM) {
			dims[nd].is_seq = false;
			dims[nd].len = cur(ps)->num;
			advance(ps);
		} else {
			struct value v;

			ret = ht__tsdl_parse_value(ps, &v);
			if (ret) {
				return ret;
			}
			if (v.kind != V_IDENT) {
				return ht__tsdl_fail_at(ps, v.line, v.col,
							HT_ESYNTAX,
							"bad array length");
			}
			dims[nd].is_seq = true;
			dims[nd].ref = ht__arena_strdup(ps->a, v.text);
			if (!dims[nd].ref) {
				return HT_ENOMEM;
			}
		}
		nd++;
		ret = expect(ps, "]");
		if (ret) {
			return ret;
		}
	}
	/* name[a][b]: an array of a arrays of b elements */
	while (nd--) {
		struct ht_ctf_type *at;

		at = new_type(ps,
			      dims[nd].is_seq ? HT_CTF_SEQUENCE : HT_CTF_ARRAY);
		if (!at) {
			return HT_ENOMEM;
		}
		at->element = ft;
		at->align_bits = ft->align_bits;
		at->length = dims[nd].len;
		at->length_ref = dims[nd].ref;
		ret = set_depth(ps, at, type_depth(ft), line, col);
		if (ret) {
			return ret;
		}
		ft = at;
	}
	*type = ft;
	return 0;
}

/* typealias TYPE := NAME;   typedef TYPE NAME[...];  */
int ht__tsdl_parse_alias_decl(struct parser *ps, bool is_typedef)
{
	const struct ht_ctf_type *base, *ft;
	const char *name;
	int ret;

	advance(ps);
	ret = ht__tsdl_parse_type(ps, &base, is_typedef);
	if (ret) {
		return ret;
	}
	if (is_typedef) {
		for (;;) {
			ret = parse_declarator(ps, base, &ft, &name);
			if (ret) {
				return ret;
			}
			ret = add_alias(ps, name, ALIAS_TYPE, ft);
			if (ret) {
				return ret;
			}
			if (!tok_is(cur(ps), ",")) {
				break;
			}
			advance(ps);
		}
		return expect(ps, ";");
	} else {
		char buf[256];
		size_t n = 0;
		char *nm;

		/* typealias integer {...} [declarator] := name words; */
		ret = expect(ps, ":=");
		if (ret) {
			return ret;
		}
		while (cur(ps)->kind == T_IDENT) {
			struct tok *t = cur(ps);

			if (n + t->len + 2 > sizeof(buf)) {
				return FAIL(ps, HT_ERANGE, "alias too long");
			}
			if (n) {
				buf[n++] = ' ';
			}
			memcpy(buf + n, t->s, t->len);
			n += t->len;
			advance(ps);
		}
		if (!n) {
			return FAIL(ps, HT_ESYNTAX, "expected an alias name");
		}
		ft = base;
		while (tok_is(cur(ps), "*")) {
			advance(ps);
		}
		nm = ht__arena_strndup(ps->a, buf, n);
		if (!nm) {
			return HT_ENOMEM;
		}
		ret = add_alias(ps, nm, ALIAS_TYPE, ft);
		if (ret) {
			return ret;
		}
		return expect(ps, ";");
	}
}
