/* SPDX-License-Identifier: MIT */
/*
 * Field types: builds a model field type (struct ht_ft) from an
 * expanded field type node, checking every property of its class
 * (sizes, alignments, display bases, byte orders, enumeration
 * mappings, array lengths and elements, structure members); and the
 * feature field types of the trace and data stream types.
 *
 * It expects aliases and `$inherit` already expanded
 * (config-aliases.c); where a field type sits in the configuration is
 * the business of config-model.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "config-internal.h"
#include "model-priv.h"

static const char *const class_names[] = {
    "uint",
    "unsigned-int",
    "unsigned-integer",
    "sint",
    "signed-int",
    "signed-integer",
    "uenum",
    "unsigned-enum",
    "unsigned-enumeration",
    "senum",
    "signed-enum",
    "signed-enumeration",
    "real",
    "str",
    "string",
    "static-array",
    "dynamic-array",
    "struct",
    "structure",
    NULL,
};

static const enum ht_ft_kind class_kinds[] = {
    HT_FT_UINT,		 HT_FT_UINT,   HT_FT_UINT,   HT_FT_SINT,
    HT_FT_SINT,		 HT_FT_SINT,   HT_FT_UENUM,  HT_FT_UENUM,
    HT_FT_UENUM,	 HT_FT_SENUM,  HT_FT_SENUM,  HT_FT_SENUM,
    HT_FT_REAL,		 HT_FT_STRING, HT_FT_STRING, HT_FT_STATIC_ARRAY,
    HT_FT_DYNAMIC_ARRAY, HT_FT_STRUCT, HT_FT_STRUCT,
};

static const char *const int_keys[] = {
    "class", "size", "alignment", "preferred-display-base", "byte-order", NULL,
};
static const char *const enum_keys[] = {
    "class",	  "size",     "alignment", "preferred-display-base",
    "byte-order", "mappings", NULL,
};
static const char *const real_keys[] = {"class", "size", "alignment", NULL};
static const char *const string_keys[] = {"class", NULL};
static const char *const sarray_keys[] = {"class", "element-field-type",
					  "length", NULL};
static const char *const darray_keys[] = {"class", "element-field-type", NULL};
static const char *const struct_keys[] = {"class", "minimum-alignment",
					  "members", NULL};

static struct ht_ft *parse_ft(struct loader *ld, const struct ht_ynode *node,
			      const char *key);

static bool get_align(struct loader *ld, const struct ht_ynode *map,
		      const char *key, unsigned *out)
{
	const struct ht_ynode *v = ht_ynode_get(map, key);
	uint64_t a;

	if (ht__cfg_is_absent(v)) {
		return true;
	}
	if (!ht__cfg_want_uint(ld, v, key, 1, UINT64_MAX, &a)) {
		return false;
	}
	if (a & (a - 1)) {
		ht__cfg_diag(ld, &v->loc,
			     "`%s`: expected a power of two, got %s", key,
			     v->str);
		return false;
	}
	if (a > (1u << 30)) {
		ht__cfg_diag(ld, &v->loc, "`%s`: alignment %s is too large",
			     key, v->str);
		return false;
	}
	*out = (unsigned)a;
	return true;
}

/* Reads one enumeration value (range bound) for ft; false if bad. */
static bool enum_value(struct loader *ld, const struct ht_ft *ft,
		       const struct ht_ynode *v, int64_t *s, uint64_t *u)
{
	bool neg, of, is_signed = ft->kind == HT_FT_SENUM;
	uint64_t mag, umax;
	int64_t smin, smax;

	if (!ht_yscalar_int(v, &neg, &mag, &of)) {
		if (of) {
			ht__cfg_diag(
			    ld, &v->loc,
			    "enumeration value %s is out of range: it does "
			    "not fit %u bits (%s)",
			    v->str, ft->size_bits,
			    is_signed ? "signed" : "unsigned");
		} else {
			ht__cfg_expect_fail(
			    ld, v, NULL,
			    "an integer or a [lower, upper] range");
		}
		return false;
	}
	if (!is_signed) {
		umax = ft->size_bits == 64 ? UINT64_MAX
					   : (UINT64_C(1) << ft->size_bits) - 1;
		if ((neg && mag) || mag > umax) {
			ht__cfg_diag(
			    ld, &v->loc,
			    "enumeration value %s is out of range: %u-bit "
			    "unsigned integers hold 0 to %llu",
			    v->str, ft->size_bits, (unsigned long long)umax);
			return false;
		}
		*u = mag;
		return true;
	}
	smax = ft->size_bits == 64
		   ? INT64_MAX
		   : (int64_t)((UINT64_C(1) << (ft->size_bits - 1)) - 1);
	smin = -smax - 1;
	if ((!neg && mag > (uint64_t)smax) ||
	    (neg && mag > (uint64_t)smax + 1)) {
		ht__cfg_diag(
		    ld, &v->loc,
		    "enumeration value %s is out of range: %u-bit signed "
		    "integers hold %lld to %lld",
		    v->str, ft->size_bits, (long long)smin, (long long)smax);
		return false;
	}
	*s = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return true;
}

/* One value or [lower, upper] range of an enumeration mapping. */
static bool parse_range(struct loader *ld, const struct ht_ft *ft,
			const struct ht_ynode *v, struct ht_enum_range *r)
{
	bool good;

	if (v->kind != HT_YNODE_SEQ) {
		good = enum_value(ld, ft, v, &r->lower.s, &r->lower.u);
		r->upper = r->lower;
		return good;
	}
	if (v->nr != 2) {
		ht__cfg_expect_fail(ld, v, NULL,
				    "a [lower, upper] range of two integers");
		return false;
	}
	good = enum_value(ld, ft, v->items[0], &r->lower.s, &r->lower.u);
	good =
	    enum_value(ld, ft, v->items[1], &r->upper.s, &r->upper.u) && good;
	if (good && (ft->kind == HT_FT_SENUM ? r->lower.s > r->upper.s
					     : r->lower.u > r->upper.u)) {
		ht__cfg_diag(ld, &v->loc,
			     "enumeration range [%s, %s]: the lower bound is "
			     "greater than the upper bound",
			     v->items[0]->str, v->items[1]->str);
		return false;
	}
	return good;
}

static bool parse_mappings(struct loader *ld, struct ht_ft *ft,
			   const struct ht_ynode *node)
{
	const struct ht_ynode *maps = ht_ynode_get(node, "mappings");
	bool ok = true;
	size_t i, j;

	if (!maps) {
		ht__cfg_diag(ld, &node->loc,
			     "missing `mappings` in enumeration field type");
		return false;
	}
	if (maps->kind == HT_YNODE_MAP && maps->nr == 0) {
		ht__cfg_diag(ld, &maps->loc,
			     "`mappings`: expected at least one mapping");
		return false;
	}
	if (maps->kind != HT_YNODE_MAP) {
		ht__cfg_expect_fail(
		    ld, maps, "mappings",
		    "a non-empty mapping of labels to sequences of "
		    "values and ranges");
		return false;
	}
	ht__cfg_check_dup_names(ld, maps, "enumeration mapping");
	ft->mappings = calloc(maps->nr, sizeof(*ft->mappings));
	if (!ft->mappings) {
		ld->fatal = HT_ENOMEM;
		return false;
	}
	for (i = 0; i < maps->nr; i++) {
		const struct ht_ynode *label = maps->keys[i];
		const struct ht_ynode *vals = maps->items[i];
		struct ht_enum_mapping *m = &ft->mappings[ft->nr_mappings];

		if (label->kind != HT_YNODE_SCALAR) {
			ok = false;
			continue;
		}
		if (vals->kind != HT_YNODE_SEQ || vals->nr == 0) {
			ht__cfg_expect_fail(
			    ld, vals, label->str,
			    "a non-empty sequence of values and "
			    "[lower, upper] ranges");
			ok = false;
			continue;
		}
		m->label = ht__cfg_strdup(ld, label->str);
		m->loc = label->loc;
		m->ranges = calloc(vals->nr, sizeof(*m->ranges));
		ft->nr_mappings++;
		if (!m->label || !m->ranges) {
			ld->fatal = HT_ENOMEM;
			return false;
		}
		for (j = 0; j < vals->nr; j++) {
			if (parse_range(ld, ft, vals->items[j],
					&m->ranges[m->nr_ranges])) {
				m->nr_ranges++;
			} else {
				ok = false;
			}
		}
	}
	return ok;
}

static bool parse_int_props(struct loader *ld, struct ht_ft *ft,
			    const struct ht_ynode *node)
{
	const struct ht_ynode *size = ht_ynode_get(node, "size");
	const char *base = NULL, *bo = NULL;
	uint64_t bits = 0;
	bool ok = true;

	if (!size) {
		ht__cfg_diag(ld, &node->loc, "missing `size` in %s field type",
			     ft->kind == HT_FT_REAL ? "real" : "integer");
		ok = false;
	} else if (ft->kind == HT_FT_REAL) {
		bool neg, of;

		if (!ht_yscalar_int(size, &neg, &bits, &of) || neg ||
		    (bits != 32 && bits != 64)) {
			if (ht_yscalar_type(size) == HT_YSCALAR_INT) {
				ht__cfg_diag(
				    ld, &size->loc,
				    "`size`: expected 32 or 64, got %s",
				    size->str);
			} else {
				ht__cfg_expect_fail(ld, size, "size",
						    "32 or 64");
			}
			ok = false;
		}
	} else if (!ht__cfg_want_uint(ld, size, "size", 1, 64, &bits)) {
		ok = false;
	}
	ft->size_bits = (unsigned)bits;
	ft->align_bits = ft->kind == HT_FT_REAL ? 8 : (bits % 8 == 0 ? 8 : 1);
	ok = get_align(ld, node, "alignment", &ft->align_bits) && ok;
	ft->display_base = 10;
	if (ft->kind == HT_FT_REAL) {
		return ok;
	}
	if (!ht__cfg_get_str(ld, node, "preferred-display-base", &base)) {
		ok = false;
	} else if (base) {
		if (!strcmp(base, "bin") || !strcmp(base, "binary")) {
			ft->display_base = 2;
		} else if (!strcmp(base, "oct") || !strcmp(base, "octal")) {
			ft->display_base = 8;
		} else if (!strcmp(base, "dec") || !strcmp(base, "decimal")) {
			ft->display_base = 10;
		} else if (!strcmp(base, "hex") ||
			   !strcmp(base, "hexadecimal")) {
			ft->display_base = 16;
		} else {
			ht__cfg_diag(
			    ld,
			    &ht_ynode_get(node, "preferred-display-base")->loc,
			    "`preferred-display-base`: expected `bin`, `oct`, "
			    "`dec` or `hex` (or `binary`, `octal`, `decimal`, "
			    "`hexadecimal`), got `%s`",
			    base);
			ok = false;
		}
	}
	if (!ht__cfg_get_str(ld, node, "byte-order", &bo)) {
		ok = false;
	} else if (bo && !ht__cfg_parse_byte_order(bo, &ft->byte_order)) {
		ht__cfg_diag(
		    ld, &ht_ynode_get(node, "byte-order")->loc,
		    "`byte-order`: expected `le`, `little`, `little-endian`, "
		    "`be`, `big` or `big-endian`, got `%s`",
		    bo);
		ok = false;
	}
	if (ok && (ft->kind == HT_FT_UENUM || ft->kind == HT_FT_SENUM)) {
		ok = parse_mappings(ld, ft, node);
	}
	return ok;
}

/*
 * A dynamic array's length member is named after it (`__NAME_len`):
 * reports, and returns true, when another member has that name.
 */
static bool len_member_clashes(struct loader *ld,
			       const struct ht_ynode *members, const char *name)
{
	char len_name[300];
	bool clash = false;
	size_t j;

	snprintf(len_name, sizeof(len_name), "__%s_len", name);
	for (j = 0; j < members->nr; j++) {
		const struct ht_ynode *o = members->items[j];

		if (o->kind == HT_YNODE_MAP && o->nr == 1 &&
		    o->keys[0]->kind == HT_YNODE_SCALAR &&
		    !strcmp(o->keys[0]->str, len_name)) {
			ht__cfg_diag(ld, &o->keys[0]->loc,
				     "member `%s` clashes with the length "
				     "member of dynamic array `%s`",
				     len_name, name);
			clash = true;
		}
	}
	return clash;
}

bool ht__cfg_parse_members(struct loader *ld, struct ht_ft *ft,
			   const struct ht_ynode *members, const char *what)
{
	bool ok = true;
	size_t i, j;

	if (members->kind != HT_YNODE_SEQ) {
		ht__cfg_expect_fail(
		    ld, members, what,
		    "a sequence of `- name: field type` members");
		return false;
	}
	ft->members = calloc(members->nr + 1, sizeof(*ft->members));
	if (!ft->members) {
		ld->fatal = HT_ENOMEM;
		return false;
	}
	for (i = 0; i < members->nr; i++) {
		const struct ht_ynode *m = members->items[i], *name, *v, *fnode;
		struct ht_struct_member *sm;
		struct ht_ft *mft;
		bool dup = false;

		if (m->kind != HT_YNODE_MAP || m->nr != 1 ||
		    m->keys[0]->kind != HT_YNODE_SCALAR) {
			ht__cfg_expect_fail(
			    ld, m, NULL,
			    "a member (a mapping of one name to its "
			    "field type)");
			ok = false;
			continue;
		}
		name = m->keys[0];
		v = m->items[0];
		if (!ht__cfg_check_iden(ld, name, "structure member name")) {
			ok = false;
		}
		for (j = 0; j < ft->nr_members; j++) {
			if (!strcmp(ft->members[j].name, name->str)) {
				ht__cfg_diag(ld, &name->loc,
					     "duplicate member `%s`",
					     name->str);
				dup = true;
				break;
			}
		}
		if (v->kind != HT_YNODE_MAP) {
			if (!ht__cfg_is_error(v)) {
				ht__cfg_expect_fail(
				    ld, v, name->str,
				    "a field type alias name or a "
				    "mapping with `field-type`");
			}
			ok = false;
			continue;
		}
		ht__cfg_check_keys(ld, v,
				   (const char *const[]){"field-type", NULL},
				   "structure member");
		fnode = ht_ynode_get(v, "field-type");
		if (!fnode) {
			ht__cfg_diag(ld, &v->loc,
				     "missing `field-type` in member `%s`",
				     name->str);
			ok = false;
			continue;
		}
		mft = parse_ft(ld, fnode, "field-type");
		if (!mft || dup) {
			ht__ft_destroy(mft);
			ok = false;
			continue;
		}
		if (mft->kind == HT_FT_DYNAMIC_ARRAY &&
		    len_member_clashes(ld, members, name->str)) {
			ok = false;
		}
		sm = &ft->members[ft->nr_members++];
		sm->ft = mft;
		sm->loc = name->loc;
		sm->name = ht__cfg_strdup(ld, name->str);
		if (!sm->name) {
			return false;
		}
	}
	return ok;
}

/* The keys a field type of this kind may have. */
static const char *const *kind_keys(enum ht_ft_kind kind)
{
	switch (kind) {
	case HT_FT_UINT:
	case HT_FT_SINT:
		return int_keys;
	case HT_FT_UENUM:
	case HT_FT_SENUM:
		return enum_keys;
	case HT_FT_REAL:
		return real_keys;
	case HT_FT_STRING:
		return string_keys;
	case HT_FT_STATIC_ARRAY:
		return sarray_keys;
	case HT_FT_DYNAMIC_ARRAY:
		return darray_keys;
	case HT_FT_STRUCT:
		break;
	}
	return struct_keys;
}

/*
 * The class of a field type node: its index in class_names[], or -1
 * (reported) when it has none or an unknown one.
 */
static int find_class(struct loader *ld, const struct ht_ynode *node)
{
	const struct ht_ynode *cls = ht_ynode_get(node, "class");
	char sugg[128];
	int i;

	if (!cls) {
		ht__cfg_diag(ld, &node->loc, "missing `class` in field type");
		return -1;
	}
	if (!ht_ynode_is_str(cls)) {
		ht__cfg_expect_fail(ld, cls, "class",
				    "a field type class name");
		return -1;
	}
	for (i = 0; class_names[i]; i++) {
		if (!strcmp(cls->str, class_names[i])) {
			return i;
		}
	}
	ht__cfg_suggestion(sugg, sizeof(sugg), cls->str, class_names,
			   sizeof(class_kinds) / sizeof(class_kinds[0]));
	ht__cfg_diag(ld, &cls->loc, "unknown field type class `%s`%s", cls->str,
		     sugg);
	return -1;
}

/* A static or dynamic array's length and element field type. */
static bool parse_array(struct loader *ld, struct ht_ft *ft,
			const struct ht_ynode *node)
{
	const struct ht_ynode *x;
	bool ok = true;

	if (ft->kind == HT_FT_STATIC_ARRAY) {
		x = ht_ynode_get(node, "length");
		if (!x) {
			ht__cfg_diag(ld, &node->loc,
				     "missing `length` in static array field "
				     "type");
			ok = false;
		} else if (!ht__cfg_want_uint(ld, x, "length", 0, UINT32_MAX,
					      &ft->length)) {
			ok = false;
		}
	}
	x = ht_ynode_get(node, "element-field-type");
	if (!x) {
		ht__cfg_diag(
		    ld, &node->loc,
		    "missing `element-field-type` in array field type");
		return false;
	}
	ft->elem = parse_ft(ld, x, "element-field-type");
	if (!ft->elem) {
		return false;
	}
	if (ft->elem->kind == HT_FT_DYNAMIC_ARRAY) {
		ht__cfg_diag(ld, &x->loc,
			     "`element-field-type`: arrays of dynamic arrays "
			     "are not supported");
		ok = false;
	} else if (ft->kind == HT_FT_DYNAMIC_ARRAY &&
		   ft->elem->kind == HT_FT_STRUCT) {
		ht__cfg_diag(ld, &x->loc,
			     "`element-field-type`: dynamic arrays of "
			     "structures are not supported (static arrays of "
			     "structures are)");
		ok = false;
	}
	ft->align_bits = ht_ft_align(ft->elem);
	return ok;
}

/*
 * Builds a field type from an expanded field type node; reports every
 * problem and returns NULL when there is one.
 */
static struct ht_ft *parse_ft(struct loader *ld, const struct ht_ynode *node,
			      const char *key)
{
	const struct ht_ynode *x;
	struct ht_ft *ft;
	char what[64];
	bool ok = true;
	int cls;

	if (ht__cfg_is_error(node)) {
		return NULL;
	}
	if (node->kind != HT_YNODE_MAP) {
		ht__cfg_expect_fail(ld, node, key,
				    "a field type (a mapping with `class`, or "
				    "a field type alias name)");
		return NULL;
	}
	cls = find_class(ld, node);
	if (cls < 0) {
		return NULL;
	}
	ft = calloc(1, sizeof(*ft));
	if (!ft) {
		ld->fatal = HT_ENOMEM;
		return NULL;
	}
	ft->kind = class_kinds[cls];
	ft->loc = node->loc;
	snprintf(what, sizeof(what), "`%s` field type",
		 ht_ynode_get(node, "class")->str);
	ht__cfg_check_keys(ld, node, kind_keys(ft->kind), what);

	switch (ft->kind) {
	case HT_FT_UINT:
	case HT_FT_SINT:
	case HT_FT_UENUM:
	case HT_FT_SENUM:
	case HT_FT_REAL:
		ok = parse_int_props(ld, ft, node);
		break;
	case HT_FT_STRING:
		ft->align_bits = 8;
		break;
	case HT_FT_STATIC_ARRAY:
	case HT_FT_DYNAMIC_ARRAY:
		ok = parse_array(ld, ft, node);
		break;
	case HT_FT_STRUCT:
		ft->align_bits = 1;
		ok = get_align(ld, node, "minimum-alignment", &ft->align_bits);
		x = ht_ynode_get(node, "members");
		if (!ht__cfg_is_absent(x)) {
			ok = ht__cfg_parse_members(ld, ft, x, "members") && ok;
		}
		break;
	}
	if (!ok) {
		ht__ft_destroy(ft);
		return NULL;
	}
	return ft;
}

/* A root field type that must be a structure (or absent). */
bool ht__cfg_get_struct_ft(struct loader *ld, const struct ht_ynode *map,
			   const char *key, struct ht_ft **out)
{
	const struct ht_ynode *v = ht_ynode_get(map, key);
	struct ht_ft *ft;

	*out = NULL;
	if (ht__cfg_is_absent(v)) {
		return true;
	}
	ft = parse_ft(ld, v, key);
	if (!ft) {
		return false;
	}
	if (ft->kind != HT_FT_STRUCT) {
		ht__cfg_diag(
		    ld, &v->loc,
		    "`%s`: expected a structure field type, got class `%s`",
		    key, ht_ynode_get(v, "class")->str);
		ht__ft_destroy(ft);
		return false;
	}
	*out = ft;
	return true;
}

/* ------------------------------------------------------------------ */
/* Features                                                            */

static bool is_uint_kind(const struct ht_ft *ft)
{
	return ft->kind == HT_FT_UINT || ft->kind == HT_FT_UENUM;
}

bool ht__cfg_get_feature(struct loader *ld, const struct ht_ynode *map,
			 const char *key, struct ht_feature *f, bool def,
			 enum feature_rule rule)
{
	const struct ht_ynode *v = ht_ynode_get(map, key);
	bool b;

	f->enabled = def;
	f->ft = NULL;
	if (ht__cfg_is_absent(v)) {
		return true;
	}
	f->loc = v->loc;
	if (ht_yscalar_bool(v, &b)) {
		if (!b && rule == FEATURE_UINT_NOFALSE) {
			ht__cfg_diag(
			    ld, &v->loc,
			    "`%s`: this feature cannot be disabled (expected "
			    "`true`, null or an unsigned integer field type)",
			    key);
			return false;
		}
		f->enabled = b;
		return true;
	}
	if (v->kind != HT_YNODE_MAP) {
		ht__cfg_expect_fail(
		    ld, v, key,
		    rule == FEATURE_UUID
			? "a boolean, null or a static array field type"
			: "a boolean, null or an unsigned integer field type");
		return false;
	}
	f->ft = parse_ft(ld, v, key);
	if (!f->ft) {
		return false;
	}
	f->enabled = true;
	switch (rule) {
	case FEATURE_UUID:
		if (f->ft->kind != HT_FT_STATIC_ARRAY || f->ft->length != 16 ||
		    f->ft->elem->kind != HT_FT_UINT ||
		    f->ft->elem->size_bits != 8 ||
		    f->ft->elem->align_bits != 8) {
			ht__cfg_diag(
			    ld, &v->loc,
			    "`%s`: expected a static array of 16 8-bit, "
			    "byte-aligned unsigned integers",
			    key);
			return false;
		}
		return true;
	case FEATURE_MAGIC:
		if (!is_uint_kind(f->ft) || f->ft->size_bits != 32) {
			ht__cfg_diag(
			    ld, &v->loc,
			    "`%s`: expected a 32-bit unsigned integer field "
			    "type",
			    key);
			return false;
		}
		return true;
	default:
		if (!is_uint_kind(f->ft)) {
			ht__cfg_diag(
			    ld, &v->loc,
			    "`%s`: expected an unsigned integer field type",
			    key);
			return false;
		}
		return true;
	}
}
