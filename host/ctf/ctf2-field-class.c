/* SPDX-License-Identifier: MIT */
/*
 * CTF 2 field classes translated into the model's types
 * (ctf2-metadata.h; what becomes what: ctf2-metadata.c's opening
 * comment). Nesting is bounded by TSDL_MAX_DEPTH, the types made by
 * CTF2_MAX_TYPES; an alias is translated once per default clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf2-metadata.h"
#include "common/buf.h"
#include "common/error.h"

/*
 * A member or option name as the model keeps it: CTF 1.8 names are
 * shown without one leading '_' (TSDL's escape of keywords), so a CTF 2
 * name that starts with '_' gets one more.
 */
static const char *model_name(struct c2 *c, const char *name)
{
	if (name[0] == '_') {
		size_t n = strlen(name);
		char *s = ht__arena_alloc(c->a, n + 2);

		if (s) {
			s[0] = '_';
			memcpy(s + 1, name, n + 1);
		}
		return s;
	}
	return ht__c2_strdup(c, name);
}

/* ---- field classes ---- */

static int fc_parse(struct c2 *c, json_object *j,
		    const struct ht_ctf_type **out);

static struct ht_ctf_type *new_type(struct c2 *c, enum ht_ctf_type_kind kind)
{
	struct ht_ctf_type *t;

	if (c->nr_types >= CTF2_MAX_TYPES) {
		return NULL;
	}
	t = ht__arena_alloc(c->a, sizeof(*t));
	if (t) {
		c->nr_types++;
		t->kind = kind;
		t->align_bits = 1;
		t->base = 10;
	}
	return t;
}

/* The error of new_type() returning NULL. */
static int type_fail(struct c2 *c)
{
	if (c->nr_types >= CTF2_MAX_TYPES) {
		return ht__c2_fail(
		    c, HT_EUNSUPPORTED,
		    "the metadata is too large (more than %u field "
		    "classes once its aliases are expanded)",
		    CTF2_MAX_TYPES);
	}
	return HT_ENOMEM;
}

static int parse_align(struct c2 *c, json_object *o, const char *key,
		       unsigned *align)
{
	uint64_t u;
	int ret = ht__c2_opt_uint(c, o, key, 1, &u);

	if (ret) {
		return ret;
	}
	if (u == 0 || (u & (u - 1)) || u > (1u << 20)) {
		size_t old = ht__c2_path_key(c, key);

		ret = ht__c2_fail(c, HT_ESYNTAX,
				  "must be a power of two up to 2^20, not %llu",
				  (unsigned long long)u);
		ht__c2_path_pop(c, old);
		return ret;
	}
	*align = (unsigned)u;
	return 0;
}

static int parse_byte_order(struct c2 *c, json_object *o,
			    enum ht_ctf_byte_order *bo)
{
	const char *s, *bit;
	int ret = ht__c2_opt_str(c, o, "byte-order", &s);

	if (!ret) {
		ret = ht__c2_opt_str(c, o, "bit-order", &bit);
	}
	if (ret) {
		return ret;
	}
	if (!s) {
		return ht__c2_fail(c, HT_ESYNTAX,
				   "missing property 'byte-order'");
	}
	if (!strcmp(s, "little-endian")) {
		*bo = HT_CTF_LE;
	} else if (!strcmp(s, "big-endian")) {
		*bo = HT_CTF_BE;
	} else {
		size_t old = ht__c2_path_key(c, "byte-order");

		ret = ht__c2_fail(c, HT_ESYNTAX, "unknown byte order '%s'", s);
		ht__c2_path_pop(c, old);
		return ret;
	}
	/* the bit order CTF 1.8 implies: first-to-last in little-endian,
	 * last-to-first in big-endian */
	if (bit &&
	    strcmp(bit, *bo == HT_CTF_LE ? "first-to-last" : "last-to-first")) {
		size_t old = ht__c2_path_key(c, "bit-order");

		ret = ht__c2_fail(c, HT_EUNSUPPORTED,
				  "bit order '%s' with byte order '%s' is not "
				  "supported",
				  bit, s);
		ht__c2_path_pop(c, old);
		return ret;
	}
	return 0;
}

static int parse_role(struct c2 *c, const char *s, enum ht_ctf_role *role)
{
	static const struct {
		const char *name;
		enum ht_ctf_role role;
	} tab[] = {
	    {"packet-magic-number", HT_CTF_ROLE_PACKET_MAGIC},
	    {"data-stream-class-id", HT_CTF_ROLE_STREAM_CLASS_ID},
	    {"data-stream-id", HT_CTF_ROLE_STREAM_ID},
	    {"packet-total-length", HT_CTF_ROLE_PACKET_TOTAL_LEN},
	    {"packet-content-length", HT_CTF_ROLE_PACKET_CONTENT_LEN},
	    {"default-clock-timestamp", HT_CTF_ROLE_CLOCK_TS},
	    {"packet-end-default-clock-timestamp",
	     HT_CTF_ROLE_PACKET_END_CLOCK_TS},
	    {"discarded-event-record-counter-snapshot",
	     HT_CTF_ROLE_DISCARDED_SNAPSHOT},
	    {"packet-sequence-number", HT_CTF_ROLE_PACKET_SEQ_NUM},
	    {"event-record-class-id", HT_CTF_ROLE_EVENT_CLASS_ID},
	    /* a BLOB's: the reader does not check it */
	    {"metadata-stream-uuid", HT_CTF_ROLE_NONE},
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (!strcmp(s, tab[i].name)) {
			*role = tab[i].role;
			return 0;
		}
	}
	return ht__c2_fail(c, HT_EUNSUPPORTED, "unknown role '%s'", s);
}

/* The roles of unsigned integer @t (at most one is used). */
static int parse_roles(struct c2 *c, json_object *o, struct ht_ctf_type *t,
		       bool allowed)
{
	json_object *v = ht__c2_member(o, "roles");
	size_t old, i, n;
	int ret = 0;

	if (!v) {
		return 0;
	}
	old = ht__c2_path_key(c, "roles");
	if (!allowed) {
		ret = ht__c2_fail(c, HT_ESYNTAX,
				  "only unsigned integers have roles here");
		goto out;
	}
	ret =
	    ht__c2_need_type(c, v, NULL, json_type_array, "an array of roles");
	n = ret ? 0 : json_object_array_length(v);
	for (i = 0; !ret && i < n; i++) {
		json_object *r = json_object_array_get_idx(v, i);
		size_t o2 = ht__c2_path_index(c, i);
		enum ht_ctf_role role = HT_CTF_ROLE_NONE;

		ret = ht__c2_need_type(c, r, NULL, json_type_string,
				       "a role name");
		if (!ret) {
			ret = parse_role(c, json_object_get_string(r), &role);
		}
		if (!ret && (role == HT_CTF_ROLE_CLOCK_TS ||
			     role == HT_CTF_ROLE_PACKET_END_CLOCK_TS)) {
			if (!c->clock) {
				ret = ht__c2_fail(
				    c, HT_ESYNTAX,
				    "a clock timestamp where there is "
				    "no default clock class");
			}
			t->mapped_clock = c->clock;
			c->uses_clock = true;
		}
		if (!ret && !t->role) {
			t->role = role;
		}
		ht__c2_path_pop(c, o2);
	}
out:
	ht__c2_path_pop(c, old);
	return ret;
}

/* One [lower, upper] pair of a mapping or selector range set. */
static int parse_range(struct c2 *c, json_object *r, bool is_signed,
		       struct ht_ctf_enum_range *out)
{
	json_object *lo, *hi;
	int ret;

	if (!json_object_is_type(r, json_type_array) ||
	    json_object_array_length(r) != 2) {
		return ht__c2_fail(c, HT_ESYNTAX,
				   "expected a range [lower, upper], found %s",
				   ht__c2_kind(r));
	}
	lo = json_object_array_get_idx(r, 0);
	hi = json_object_array_get_idx(r, 1);
	if (is_signed) {
		ret = ht__c2_int(c, lo, NULL, &out->lower.s);
		if (!ret) {
			ret = ht__c2_int(c, hi, NULL, &out->upper.s);
		}
		if (!ret && out->lower.s > out->upper.s) {
			ret = ht__c2_fail(c, HT_ESYNTAX,
					  "range lower bound above its "
					  "upper bound");
		}
		return ret;
	}
	ret = ht__c2_uint(c, lo, NULL, &out->lower.u);
	if (!ret) {
		ret = ht__c2_uint(c, hi, NULL, &out->upper.u);
	}
	if (!ret && out->lower.u > out->upper.u) {
		ret = ht__c2_fail(c, HT_ESYNTAX,
				  "range lower bound above its upper bound");
	}
	return ret;
}

/* An integer with mappings becomes an enumeration of it. */
static int parse_mappings(struct c2 *c, json_object *o,
			  const struct ht_ctf_type *it,
			  const struct ht_ctf_type **out)
{
	json_object *m = ht__c2_member(o, "mappings");
	struct ht_ctf_enum_mapping *maps;
	struct ht_ctf_type *et;
	size_t old, k = 0;
	int ret = 0;

	*out = it;
	if (!m) {
		return 0;
	}
	old = ht__c2_path_key(c, "mappings");
	ret = ht__c2_need_type(c, m, NULL, json_type_object,
			       "an object of mappings");
	if (ret) {
		goto out;
	}
	et = new_type(c, HT_CTF_ENUM);
	maps = ht__arena_alloc(c->a, (json_object_object_length(m) + 1) *
					 sizeof(*maps));
	if (!et || !maps) {
		ret = et ? HT_ENOMEM : type_fail(c);
		goto out;
	}
	{
		json_object_object_foreach(m, label, ranges)
		{
			size_t o2 = ht__c2_path_key(c, label);
			struct ht_ctf_enum_range *rv;
			size_t i, n;

			ret = ht__c2_need_type(c, ranges, NULL, json_type_array,
					       "an array of ranges");
			if (ret) {
				goto out;
			}
			n = json_object_array_length(ranges);
			rv = ht__arena_alloc(c->a, (n + 1) * sizeof(*rv));
			if (!rv) {
				ret = HT_ENOMEM;
				goto out;
			}
			for (i = 0; i < n; i++) {
				size_t o3 = ht__c2_path_index(c, i);

				ret = parse_range(
				    c, json_object_array_get_idx(ranges, i),
				    it->is_signed, &rv[i]);
				ht__c2_path_pop(c, o3);
				if (ret) {
					goto out;
				}
			}
			maps[k].label = ht__c2_strdup(c, label);
			maps[k].ranges = rv;
			maps[k].nr_ranges = n;
			k++;
			ht__c2_path_pop(c, o2);
		}
	}
	et->align_bits = it->align_bits;
	et->size_bits = it->size_bits;
	et->is_signed = it->is_signed;
	et->byte_order = it->byte_order;
	et->base = it->base;
	et->container = it;
	et->mappings = maps;
	et->nr_mappings = k;
	et->role = it->role;
	*out = et;
out:
	ht__c2_path_pop(c, old);
	return ret;
}

/* The byte order and the alignment of a fixed-length field class (a bit
 * array or a floating point number) into @t. */
static int parse_fixed_layout(struct c2 *c, json_object *j,
			      struct ht_ctf_type *t)
{
	int ret = parse_byte_order(c, j, &t->byte_order);

	if (!ret) {
		ret = parse_align(c, j, "alignment", &t->align_bits);
	}
	return ret;
}

enum bits_kind { BITS_UINT, BITS_SINT, BITS_BOOL, BITS_ARRAY, BITS_MAP };

/* Fixed-length bit arrays and what inherits them, as integers. */
static int fc_bits(struct c2 *c, json_object *j, enum bits_kind kind,
		   const struct ht_ctf_type **out)
{
	struct ht_ctf_type *t = new_type(c, HT_CTF_INT);
	uint64_t len, base;
	int ret;

	if (!t) {
		return type_fail(c);
	}
	ret = ht__c2_req_uint(c, j, "length", &len);
	if (!ret && (len == 0 || len > 64)) {
		size_t old = ht__c2_path_key(c, "length");

		ret =
		    ht__c2_fail(c, len ? HT_EUNSUPPORTED : HT_ESYNTAX,
				"a fixed-length bit array of %llu bits is not "
				"supported (1 to 64)",
				(unsigned long long)len);
		ht__c2_path_pop(c, old);
	}
	if (!ret) {
		ret = parse_fixed_layout(c, j, t);
	}
	if (!ret) {
		ret = ht__c2_opt_uint(
		    c, j, "preferred-display-base",
		    kind == BITS_ARRAY || kind == BITS_MAP ? 16 : 10, &base);
	}
	if (!ret && base != 2 && base != 8 && base != 10 && base != 16) {
		ret = ht__c2_fail(c, HT_ESYNTAX,
				  "display base %llu is not 2, 8, 10 "
				  "or 16",
				  (unsigned long long)base);
	}
	if (ret) {
		return ret;
	}
	t->size_bits = (unsigned)len;
	t->is_signed = kind == BITS_SINT;
	t->is_bool = kind == BITS_BOOL;
	t->base = (unsigned)base;
	ret = parse_roles(c, j, t, kind == BITS_UINT);
	if (ret) {
		return ret;
	}
	if (kind == BITS_UINT || kind == BITS_SINT) {
		return parse_mappings(c, j, t, out);
	}
	*out = t;
	return 0;
}

static int fc_float(struct c2 *c, json_object *j,
		    const struct ht_ctf_type **out)
{
	struct ht_ctf_type *t = new_type(c, HT_CTF_FLOAT);
	uint64_t len;
	int ret;

	if (!t) {
		return type_fail(c);
	}
	ret = ht__c2_req_uint(c, j, "length", &len);
	if (!ret && len != 32 && len != 64) {
		size_t old = ht__c2_path_key(c, "length");

		ret = ht__c2_fail(c, HT_EUNSUPPORTED,
				  "a floating point number of %llu bits is not "
				  "supported (32 or 64)",
				  (unsigned long long)len);
		ht__c2_path_pop(c, old);
	}
	if (!ret) {
		ret = parse_fixed_layout(c, j, t);
	}
	if (ret) {
		return ret;
	}
	t->size_bits = (unsigned)len;
	t->exp_dig = len == 32 ? 8 : 11;
	t->mant_dig = len == 32 ? 24 : 53;
	*out = t;
	return 0;
}

/* The encoding of a string (UTF-8 when absent) into @enc. */
static int parse_encoding(struct c2 *c, json_object *j,
			  enum ht_ctf_encoding *enc)
{
	static const struct {
		const char *name;
		enum ht_ctf_encoding enc;
	} tab[] = {
	    {"utf-8", HT_CTF_ENC_UTF8},	      {"utf-16be", HT_CTF_ENC_UTF16BE},
	    {"utf-16le", HT_CTF_ENC_UTF16LE}, {"utf-32be", HT_CTF_ENC_UTF32BE},
	    {"utf-32le", HT_CTF_ENC_UTF32LE},
	};
	const char *name;
	size_t i, old;
	int ret = ht__c2_opt_str(c, j, "encoding", &name);

	*enc = HT_CTF_ENC_UTF8;
	if (ret || !name) {
		return ret;
	}
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (!strcmp(name, tab[i].name)) {
			*enc = tab[i].enc;
			return 0;
		}
	}
	old = ht__c2_path_key(c, "encoding");
	ret = ht__c2_fail(c, HT_ESYNTAX, "unknown encoding '%s'", name);
	ht__c2_path_pop(c, old);
	return ret;
}

/*
 * A field location as the model's reference: "scope.a.b" (absolute,
 * the scope as TSDL names it) or "a.b" (relative: the plan compiler
 * looks in the enclosing structures, innermost first; the null items
 * that climb out of structures are dropped, so a same-named member of
 * a nearer structure would be found first).
 */
static int parse_location(struct c2 *c, json_object *j, const char *key,
			  const char **out)
{
	static const struct {
		const char *origin, *prefix;
	} scopes[] = {
	    {"packet-header", "trace.packet.header"},
	    {"packet-context", "stream.packet.context"},
	    {"event-record-header", "stream.event.header"},
	    {"event-record-common-context", "stream.event.context"},
	    {"event-record-specific-context", "event.context"},
	    {"event-record-payload", "event.fields"},
	};
	json_object *loc = ht__c2_member(j, key), *p;
	const char *origin = NULL;
	struct ht_buf b = {0};
	size_t old, i, n;
	int ret;

	if (!loc) {
		return ht__c2_fail(c, HT_ESYNTAX, "missing property '%s'", key);
	}
	old = ht__c2_path_key(c, key);
	ret = ht__c2_need_type(c, loc, NULL, json_type_object,
			       "a field location");
	if (!ret) {
		ret = ht__c2_opt_str(c, loc, "origin", &origin);
	}
	if (ret) {
		goto out;
	}
	if (origin) {
		for (i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
			if (!strcmp(origin, scopes[i].origin)) {
				break;
			}
		}
		if (i == sizeof(scopes) / sizeof(scopes[0])) {
			ret = ht__c2_fail(c, HT_ESYNTAX, "unknown origin '%s'",
					  origin);
			goto out;
		}
		ht_buf_puts(&b, scopes[i].prefix);
	}
	p = ht__c2_member(loc, "path");
	if (!p) {
		ret = ht__c2_fail(c, HT_ESYNTAX, "missing property 'path'");
		goto out;
	}
	ret = ht__c2_need_type(c, p, "path", json_type_array, "an array");
	n = ret ? 0 : json_object_array_length(p);
	for (i = 0; !ret && i < n; i++) {
		json_object *e = json_object_array_get_idx(p, i);
		const char *s;

		if (!e && !origin) {
			continue; /* null: out of a structure */
		}
		if (!json_object_is_type(e, json_type_string)) {
			ret = ht__c2_fail(
			    c, HT_ESYNTAX,
			    "path item %zu: expected a member name, "
			    "found %s",
			    i, e ? ht__c2_kind(e) : "null");
			break;
		}
		s = json_object_get_string(e);
		if (strchr(s, '.')) {
			ret = ht__c2_fail(
			    c, HT_EUNSUPPORTED,
			    "a field location through the name '%s' "
			    "(with a '.') is not supported",
			    s);
			break;
		}
		if (b.len) {
			ht_buf_putc(&b, '.');
		}
		ht_buf_puts(&b, s);
	}
	if (!ret && b.nomem) {
		ret = HT_ENOMEM;
	}
	if (!ret && !b.len) {
		ret = ht__c2_fail(c, HT_ESYNTAX, "empty field location");
	}
	if (!ret) {
		*out = ht__arena_strndup(c->a, b.data, b.len);
		if (!*out) {
			ret = HT_ENOMEM;
		}
	}
out:
	ht_buf_fini(&b);
	ht__c2_path_pop(c, old);
	return ret;
}

static int fc_ustring(struct c2 *c, json_object *j, enum ht_ctf_str_len len,
		      enum ht_ctf_encoding enc, const struct ht_ctf_type **out);

/*
 * An array or sequence of bytes (BLOBs and UTF-8 strings); a UTF-16 or
 * UTF-32 string is a string (fc_ustring()).
 */
static int fc_bytes(struct c2 *c, json_object *j, bool dynamic, bool text,
		    const struct ht_ctf_type **out)
{
	enum ht_ctf_encoding enc = HT_CTF_ENC_UTF8;
	struct ht_ctf_type *t, *e;
	int ret = 0;

	if (text) {
		ret = parse_encoding(c, j, &enc);
		if (ret) {
			return ret;
		}
		if (enc != HT_CTF_ENC_UTF8) {
			return fc_ustring(c, j,
					  dynamic ? HT_CTF_STR_DYNAMIC
						  : HT_CTF_STR_STATIC,
					  enc, out);
		}
	}
	t = new_type(c, dynamic ? HT_CTF_SEQUENCE : HT_CTF_ARRAY);
	e = new_type(c, HT_CTF_INT);
	if (!t || !e) {
		return type_fail(c);
	}
	e->size_bits = 8;
	e->align_bits = 8;
	e->encoding = text ? HT_CTF_ENC_UTF8 : HT_CTF_ENC_NONE;
	t->align_bits = 8;
	t->element = e;
	if (dynamic) {
		ret = parse_location(c, j, "length-field-location",
				     &t->length_ref);
	} else if (!ret) {
		ret = ht__c2_req_uint(c, j, "length", &t->length);
	}
	if (!ret && !text) {
		ret = parse_roles(c, j, t, true);
		if (!ret && t->role) {
			ret = ht__c2_fail(c, HT_ESYNTAX,
					  "a BLOB's role can only be "
					  "metadata-stream-uuid");
		}
	}
	*out = t;
	return ret;
}

static int fc_struct(struct c2 *c, json_object *j,
		     const struct ht_ctf_type **out)
{
	struct ht_ctf_type *t = new_type(c, HT_CTF_STRUCT);
	struct ht_ctf_member *mv;
	json_object *mc = ht__c2_member(j, "member-classes");
	struct name_index names = {0}; /* the JSON's names -> index */
	size_t old, i, n = 0;
	unsigned min_align;
	int ret;

	if (!t) {
		return type_fail(c);
	}
	ret = parse_align(c, j, "minimum-alignment", &min_align);
	if (ret) {
		return ret;
	}
	t->align_bits = min_align;
	*out = t;
	if (!mc) {
		return 0;
	}
	old = ht__c2_path_key(c, "member-classes");
	ret = ht__c2_need_type(c, mc, NULL, json_type_array,
			       "an array of members");
	if (!ret) {
		n = json_object_array_length(mc);
		mv = ht__arena_alloc(c->a, (n + 1) * sizeof(*mv));
		if (!mv) {
			ret = HT_ENOMEM;
		}
	}
	for (i = 0; !ret && i < n; i++) {
		json_object *m = json_object_array_get_idx(mc, i), *fc;
		size_t o2 = ht__c2_path_index(c, i);
		const char *name;

		ret = ht__c2_need_type(c, m, NULL, json_type_object,
				       "a member class");
		if (!ret) {
			ret = ht__c2_req_str(c, m, "name", &name);
		}
		if (!ret && ht__tsdl_index_find(&names, name, strlen(name)) !=
				NAME_NONE) {
			ret = ht__c2_fail(c, HT_ESYNTAX,
					  "duplicate member name '%s'", name);
		}
		if (!ret && ht__tsdl_index_set(&names, name, strlen(name), i)) {
			ret = HT_ENOMEM;
		}
		fc = ret ? NULL : ht__c2_member(m, "field-class");
		if (!ret && !fc) {
			ret = ht__c2_fail(c, HT_ESYNTAX,
					  "missing property 'field-class'");
		}
		if (!ret) {
			size_t o3 = ht__c2_path_key(c, "field-class");

			ret = fc_parse(c, fc, &mv[i].type);
			ht__c2_path_pop(c, o3);
		}
		if (!ret) {
			mv[i].name = model_name(c, name);
			if (!mv[i].name) {
				ret = HT_ENOMEM;
			} else if (mv[i].type->align_bits > t->align_bits) {
				t->align_bits = mv[i].type->align_bits;
			}
		}
		ht__c2_path_pop(c, o2);
	}
	ht__c2_path_pop(c, old);
	ht__tsdl_index_fini(&names);
	if (!ret) {
		t->members = mv;
		t->nr_members = n;
	}
	return ret;
}

static int fc_array(struct c2 *c, json_object *j, bool dynamic,
		    const struct ht_ctf_type **out)
{
	struct ht_ctf_type *t =
	    new_type(c, dynamic ? HT_CTF_SEQUENCE : HT_CTF_ARRAY);
	json_object *ef = ht__c2_member(j, "element-field-class");
	unsigned min_align;
	size_t old;
	int ret;

	if (!t) {
		return type_fail(c);
	}
	ret = parse_align(c, j, "minimum-alignment", &min_align);
	if (!ret && dynamic) {
		ret = parse_location(c, j, "length-field-location",
				     &t->length_ref);
	} else if (!ret) {
		ret = ht__c2_req_uint(c, j, "length", &t->length);
	}
	if (!ret && !ef) {
		ret = ht__c2_fail(c, HT_ESYNTAX,
				  "missing property 'element-field-class'");
	}
	if (ret) {
		return ret;
	}
	old = ht__c2_path_key(c, "element-field-class");
	ret = fc_parse(c, ef, &t->element);
	ht__c2_path_pop(c, old);
	if (ret) {
		return ret;
	}
	t->align_bits = min_align > t->element->align_bits
			    ? min_align
			    : t->element->align_bits;
	*out = t;
	return 0;
}

static int fc_variant(struct c2 *c, json_object *j,
		      const struct ht_ctf_type **out)
{
	struct ht_ctf_type *t = new_type(c, HT_CTF_VARIANT);
	json_object *opts = ht__c2_member(j, "options");
	struct ht_ctf_variant_range *rv = NULL;
	struct ht_ctf_member *mv = NULL;
	size_t old, i, n = 0, nr = 0, cap = 0;
	int ret;

	if (!t) {
		return type_fail(c);
	}
	ret = parse_location(c, j, "selector-field-location", &t->tag_ref);
	if (!ret && !opts) {
		ret = ht__c2_fail(c, HT_ESYNTAX, "missing property 'options'");
	}
	if (ret) {
		return ret;
	}
	old = ht__c2_path_key(c, "options");
	ret = ht__c2_need_type(c, opts, NULL, json_type_array,
			       "an array of options");
	if (!ret) {
		n = json_object_array_length(opts);
		if (!n) {
			ret = ht__c2_fail(c, HT_ESYNTAX,
					  "a variant without options");
		}
	}
	if (!ret) {
		mv = ht__arena_alloc(c->a, (n + 1) * sizeof(*mv));
		if (!mv) {
			ret = HT_ENOMEM;
		}
	}
	for (i = 0; !ret && i < n; i++) {
		json_object *o = json_object_array_get_idx(opts, i), *fc, *sr;
		size_t o2 = ht__c2_path_index(c, i), k, nsr = 0;
		const char *name = NULL;

		ret =
		    ht__c2_need_type(c, o, NULL, json_type_object, "an option");
		if (!ret) {
			ret = ht__c2_opt_str(c, o, "name", &name);
		}
		fc = ret ? NULL : ht__c2_member(o, "field-class");
		sr = ret ? NULL : ht__c2_member(o, "selector-field-ranges");
		if (!ret && (!fc || !sr)) {
			ret = ht__c2_fail(
			    c, HT_ESYNTAX, "missing property '%s'",
			    fc ? "selector-field-ranges" : "field-class");
		}
		if (!ret) {
			ret = ht__c2_need_type(c, sr, "selector-field-ranges",
					       json_type_array,
					       "an array of ranges");
		}
		if (!ret) {
			nsr = json_object_array_length(sr);
			if (ht_array_reserve((void **)&rv, &cap, nr + nsr + 1,
					     sizeof(*rv))) {
				ret = HT_ENOMEM;
			}
		}
		for (k = 0; !ret && k < nsr; k++) {
			json_object *r = json_object_array_get_idx(sr, k);
			struct ht_ctf_enum_range er;
			size_t o3 = ht__c2_path_key(c, "selector-field-ranges");
			size_t o4 = ht__c2_path_index(c, k);
			bool neg = json_object_is_type(r, json_type_array) &&
				   json_object_array_length(r) == 2 &&
				   json_object_get_int64(
				       json_object_array_get_idx(r, 0)) < 0;

			/* the selector's signedness is known once the plan
			 * finds it: a negative lower bound reads signed */
			ret = parse_range(c, r, neg, &er);
			ht__c2_path_pop(c, o4);
			ht__c2_path_pop(c, o3);
			if (!ret) {
				rv[nr].lower.u = er.lower.u;
				rv[nr].upper.u = er.upper.u;
				rv[nr].option = i;
				nr++;
			}
		}
		if (!ret) {
			size_t o3 = ht__c2_path_key(c, "field-class");

			ret = fc_parse(c, fc, &mv[i].type);
			ht__c2_path_pop(c, o3);
		}
		if (!ret) {
			mv[i].name = model_name(c, name ? name : "");
			if (!mv[i].name) {
				ret = HT_ENOMEM;
			}
		}
		ht__c2_path_pop(c, o2);
	}
	ht__c2_path_pop(c, old);
	if (!ret) {
		struct ht_ctf_variant_range *a =
		    ht__arena_alloc(c->a, (nr + 1) * sizeof(*a));

		if (!a) {
			ret = HT_ENOMEM;
		} else {
			memcpy(a, rv, nr * sizeof(*a));
			t->sel_ranges = a;
			t->nr_sel_ranges = nr;
			t->members = mv;
			t->nr_members = n;
			*out = t;
		}
	}
	free(rv);
	return ret;
}

/*
 * A string of @len's kind: UTF-8 null-terminated ones as in CTF 1.8,
 * UTF-16 and UTF-32 ones of any length kind converted to UTF-8 by the
 * decoder.
 */
static int fc_ustring(struct c2 *c, json_object *j, enum ht_ctf_str_len len,
		      enum ht_ctf_encoding enc, const struct ht_ctf_type **out)
{
	struct ht_ctf_type *t = new_type(c, HT_CTF_STRING);
	int ret = 0;

	if (!t) {
		return type_fail(c);
	}
	t->align_bits = 8;
	t->encoding = enc;
	t->str_len = len;
	if (len == HT_CTF_STR_DYNAMIC) {
		ret = parse_location(c, j, "length-field-location",
				     &t->length_ref);
	} else if (len == HT_CTF_STR_STATIC) {
		ret = ht__c2_req_uint(c, j, "length", &t->length);
	}
	*out = t;
	return ret;
}

/*
 * A variable-length integer: LEB128 bytes, at most 64 bits of value
 * (the decoder refuses more), byte-aligned.
 */
static int fc_varint(struct c2 *c, json_object *j, bool is_signed,
		     const struct ht_ctf_type **out)
{
	struct ht_ctf_type *t = new_type(c, HT_CTF_INT);
	uint64_t base;
	int ret;

	if (!t) {
		return type_fail(c);
	}
	ret = ht__c2_opt_uint(c, j, "preferred-display-base", 10, &base);
	if (!ret && base != 2 && base != 8 && base != 10 && base != 16) {
		ret = ht__c2_fail(c, HT_ESYNTAX,
				  "display base %llu is not 2, 8, 10 or 16",
				  (unsigned long long)base);
	}
	if (ret) {
		return ret;
	}
	t->size_bits = 64;
	t->align_bits = 8;
	t->is_signed = is_signed;
	t->base = (unsigned)base;
	t->varint = true;
	ret = parse_roles(c, j, t, !is_signed);
	if (ret) {
		return ret;
	}
	return parse_mappings(c, j, t, out);
}

/*
 * An optional: a variant of one option that is there when its
 * selector, a boolean, is true, or an integer, is in its ranges.
 */
static int fc_optional(struct c2 *c, json_object *j,
		       const struct ht_ctf_type **out)
{
	struct ht_ctf_type *t = new_type(c, HT_CTF_VARIANT);
	struct ht_ctf_member *mv = ht__arena_alloc(c->a, sizeof(*mv));
	json_object *fc = ht__c2_member(j, "field-class");
	json_object *sr = ht__c2_member(j, "selector-field-ranges");
	struct ht_ctf_variant_range *rv = NULL;
	size_t old, k, n = 0;
	int ret;

	if (!t || !mv) {
		return t ? HT_ENOMEM : type_fail(c);
	}
	t->optional = true;
	ret = parse_location(c, j, "selector-field-location", &t->tag_ref);
	if (!ret && !fc) {
		ret = ht__c2_fail(c, HT_ESYNTAX,
				  "missing property 'field-class'");
	}
	if (!ret && sr) {
		ret = ht__c2_need_type(c, sr, "selector-field-ranges",
				       json_type_array, "an array of ranges");
		n = ret ? 0 : json_object_array_length(sr);
		rv = ht__arena_alloc(c->a, (n + 1) * sizeof(*rv));
		if (!ret && !rv) {
			ret = HT_ENOMEM;
		}
	}
	old = ht__c2_path_key(c, "selector-field-ranges");
	for (k = 0; !ret && k < n; k++) {
		json_object *r = json_object_array_get_idx(sr, k);
		struct ht_ctf_enum_range er;
		size_t o2 = ht__c2_path_index(c, k);
		/* as a variant's: a negative lower bound reads signed */
		bool neg =
		    json_object_is_type(r, json_type_array) &&
		    json_object_array_length(r) == 2 &&
		    json_object_get_int64(json_object_array_get_idx(r, 0)) < 0;

		ret = parse_range(c, r, neg, &er);
		ht__c2_path_pop(c, o2);
		if (!ret) {
			rv[k].lower.u = er.lower.u;
			rv[k].upper.u = er.upper.u;
			rv[k].option = 0;
		}
	}
	ht__c2_path_pop(c, old);
	if (ret) {
		return ret;
	}
	old = ht__c2_path_key(c, "field-class");
	ret = fc_parse(c, fc, &mv->type);
	ht__c2_path_pop(c, old);
	if (ret) {
		return ret;
	}
	mv->name = "";
	t->members = mv;
	t->nr_members = 1;
	t->sel_ranges = rv;
	t->nr_sel_ranges = n;
	/* an absent field takes no room, not even padding: the field,
	 * when there, aligns itself */
	t->align_bits = 1;
	*out = t;
	return 0;
}

/* A field class named by an alias fragment. */
static int fc_alias(struct c2 *c, const char *name,
		    const struct ht_ctf_type **out)
{
	size_t i = ht__tsdl_index_find(&c->alias_ix, name, strlen(name));
	struct c2_alias *al;
	bool outer_uses;
	size_t old;
	int ret;

	if (i == NAME_NONE) {
		return ht__c2_fail(c, HT_ESYNTAX,
				   "no field class alias '%s' before", name);
	}
	al = &c->aliases[i];
	if (al->type && (!al->uses_clock || al->clock == c->clock)) {
		*out = al->type;
		c->uses_clock |= al->uses_clock;
		return 0;
	}
	if (al->busy) {
		return ht__c2_fail(c, HT_ESYNTAX, "alias '%s' used in itself",
				   name);
	}
	al->busy = true;
	outer_uses = c->uses_clock;
	c->uses_clock = false;
	old = c->jlen;
	{
		int n = snprintf(c->jpath + c->jlen, sizeof(c->jpath) - c->jlen,
				 "(alias '%s')", name);

		if (n > 0) {
			c->jlen += (size_t)n;
			if (c->jlen >= sizeof(c->jpath)) {
				c->jlen = sizeof(c->jpath) - 1;
			}
		}
	}
	{
		json_object *j;

		json_tokener_reset(c->tok);
		j = json_tokener_parse_ex(c->tok, al->fc_text,
					  (int)strlen(al->fc_text));
		ret = j ? fc_parse(c, j, out) : HT_ENOMEM;
		json_object_put(j);
	}
	ht__c2_path_pop(c, old);
	al = &c->aliases[i];
	al->busy = false;
	if (!ret) {
		al->type = *out;
		al->clock = c->clock;
		al->uses_clock = c->uses_clock;
	}
	c->uses_clock |= outer_uses;
	return ret;
}

static int fc_parse(struct c2 *c, json_object *j,
		    const struct ht_ctf_type **out)
{
	const char *type;
	int ret;

	if (json_object_is_type(j, json_type_string)) {
		return fc_alias(c, json_object_get_string(j), out);
	}
	if (!json_object_is_type(j, json_type_object)) {
		return ht__c2_fail(
		    c, HT_ESYNTAX,
		    "expected a field class (an object or an alias "
		    "name), found %s",
		    ht__c2_kind(j));
	}
	ret = ht__c2_req_str(c, j, "type", &type);
	if (ret) {
		return ret;
	}
	if (c->depth >= TSDL_MAX_DEPTH) {
		return ht__c2_fail(c, HT_EUNSUPPORTED,
				   "field classes nested more than %d deep",
				   TSDL_MAX_DEPTH);
	}
	c->depth++;
	if (!strcmp(type, "fixed-length-unsigned-integer")) {
		ret = fc_bits(c, j, BITS_UINT, out);
	} else if (!strcmp(type, "fixed-length-signed-integer")) {
		ret = fc_bits(c, j, BITS_SINT, out);
	} else if (!strcmp(type, "fixed-length-boolean")) {
		ret = fc_bits(c, j, BITS_BOOL, out);
	} else if (!strcmp(type, "fixed-length-bit-array")) {
		ret = fc_bits(c, j, BITS_ARRAY, out);
	} else if (!strcmp(type, "fixed-length-bit-map")) {
		ret = fc_bits(c, j, BITS_MAP, out);
	} else if (!strcmp(type, "fixed-length-floating-point-number")) {
		ret = fc_float(c, j, out);
	} else if (!strcmp(type, "null-terminated-string")) {
		enum ht_ctf_encoding enc;

		ret = parse_encoding(c, j, &enc);
		if (!ret) {
			ret = fc_ustring(c, j, HT_CTF_STR_NUL, enc, out);
		}
	} else if (!strcmp(type, "static-length-string")) {
		ret = fc_bytes(c, j, false, true, out);
	} else if (!strcmp(type, "dynamic-length-string")) {
		ret = fc_bytes(c, j, true, true, out);
	} else if (!strcmp(type, "static-length-blob")) {
		ret = fc_bytes(c, j, false, false, out);
	} else if (!strcmp(type, "dynamic-length-blob")) {
		ret = fc_bytes(c, j, true, false, out);
	} else if (!strcmp(type, "structure")) {
		ret = fc_struct(c, j, out);
	} else if (!strcmp(type, "static-length-array")) {
		ret = fc_array(c, j, false, out);
	} else if (!strcmp(type, "dynamic-length-array")) {
		ret = fc_array(c, j, true, out);
	} else if (!strcmp(type, "variant")) {
		ret = fc_variant(c, j, out);
	} else if (!strcmp(type, "variable-length-unsigned-integer")) {
		ret = fc_varint(c, j, false, out);
	} else if (!strcmp(type, "variable-length-signed-integer")) {
		ret = fc_varint(c, j, true, out);
	} else if (!strcmp(type, "optional")) {
		ret = fc_optional(c, j, out);
	} else {
		size_t old = ht__c2_path_key(c, "type");

		ret = ht__c2_fail(c, HT_ESYNTAX,
				  "unknown field class type '%s'", type);
		ht__c2_path_pop(c, old);
	}
	c->depth--;
	return ret;
}

/* A scope's root field class (member @key of @o): a structure. */
int ht__c2_scope_field_class(struct c2 *c, json_object *o, const char *key,
			     const struct ht_ctf_type **out)
{
	json_object *v = ht__c2_member(o, key);
	size_t old;
	int ret;

	*out = NULL;
	if (!v) {
		return 0;
	}
	old = ht__c2_path_key(c, key);
	ret = fc_parse(c, v, out);
	if (!ret && (*out)->kind != HT_CTF_STRUCT) {
		ret = ht__c2_fail(c, HT_ESYNTAX,
				  "a scope's field class must be a "
				  "structure");
	}
	ht__c2_path_pop(c, old);
	return ret;
}
