/* SPDX-License-Identifier: MIT */
/*
 * CTF 2 metadata: a JSON text sequence (RFC 7464: each fragment after a
 * 0x1e byte) of fragments (preamble, field class aliases, trace class,
 * clock classes, data stream classes, event record classes), translated
 * into the model the TSDL parser builds (ctf-model.h), so that the
 * decode plans, the decoder and the text formatter serve both formats.
 *
 * A field class becomes the CTF 1.8 type of the same layout: booleans,
 * bit arrays and bit maps are integers; an integer with mappings is an
 * enumeration; static- and dynamic-length UTF-8 strings are arrays and
 * sequences of 8-bit UTF-8 characters (shown as text, as babeltrace2
 * shows such arrays); BLOBs are arrays and sequences of bytes; roles
 * go to ht_ctf_type.role; variants keep their selector ranges
 * (ht_ctf_type.sel_ranges). What has no such layout (variable-length
 * integers, optionals, UTF-16 and UTF-32 strings, floats other than 32
 * and 64 bits, integers longer than 64 bits, a bit order other than the
 * byte order's) is refused by name.
 *
 * JSON is parsed by json-c: a well-kept library (Debian's libjson-c)
 * that reads 64-bit unsigned integers whole (CTF 2 mappings, magic
 * numbers and clock offsets need them), bounds nesting in its
 * tokenizer without recursion and gives the offset of an error; the
 * metadata is read once, so its speed does not matter.
 *
 * Bad input is normal input: nesting is bounded (JSON by the
 * tokenizer, field classes by TSDL_MAX_DEPTH), the types made are
 * counted (aliases used in aliases could make a tree of exponential
 * size), and every error names the file, the fragment's line:column,
 * the fragment's number and the JSON path inside it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "common/buf.h"
#include "common/error.h"
#include "ctf-model.h"
#include "tsdl-parser.h"

/* JSON nesting: a field class nests about 3 JSON levels deep per level */
#define JSON_MAX_DEPTH (3 * TSDL_MAX_DEPTH + 16)
/* the types made from one metadata stream (each about 200 bytes) */
#define CTF2_MAX_TYPES (1u << 19)
/*
 * The largest fragment: json-c's tree takes about 20 times the text
 * (an object is a hash table of 16 slots), so one fragment is bounded
 * and the tree of only one is held at a time (aliases are kept as
 * text). A fragment is one class: LTTng's largest, enumerations of a
 * few thousand labels, are well below.
 */
#define CTF2_MAX_FRAGMENT (16u << 20)

struct c2_alias {
	const char *name;
	char *fc_text; /* its field class as compact JSON (malloc'ed) */
	const struct ht_ctf_type *type;	  /* translated, or NULL */
	const struct ht_ctf_clock *clock; /* the default clock it used */
	bool uses_clock; /* .type depends on the default clock */
	bool busy;
};

struct c2_clock {
	const char *id;
	struct ht_ctf_clock *clk;
};

struct c2_stream {
	struct ht__stream_class *sc;
	const struct ht_ctf_clock *clock; /* its default clock, or NULL */
	const struct ht_ctf_event_class **events;
	size_t nr_events, cap_events;
};

struct c2 {
	const char *path;
	struct ht__trace *t;
	struct ht__arena *a;
	char *err;
	size_t err_len;
	/* the fragment being read: its number (from 1) and position */
	unsigned frag;
	unsigned line, col;
	char jpath[768]; /* its JSON path being read, from "$" */
	size_t jlen;
	unsigned depth; /* field classes being read, one in another */
	size_t nr_types;
	json_tokener *tok;
	/* the default clock of the data stream class being read */
	const struct ht_ctf_clock *clock;
	bool uses_clock;
	struct c2_alias *aliases;
	size_t nr_aliases, cap_aliases;
	struct name_index alias_ix;
	struct c2_clock *clocks;
	size_t nr_clocks, cap_clocks;
	/* clock ids, data stream class ids ("7") and event record class
	 * ids ("7/12": stream/event) -> index: no quadratic lookup */
	struct name_index clock_ix, stream_ix, event_ix;
	struct c2_stream *streams;
	size_t nr_streams, cap_streams;
	struct ht_ctf_env_entry *env;
	size_t nr_env, cap_env;
	bool seen_trace;
};

static int fail(struct c2 *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct c2 *c, int code, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!c->err_len) {
		return code;
	}
	n = snprintf(c->err, c->err_len, "%s:%u:%u: fragment %u: %s: ", c->path,
		     c->line, c->col, c->frag, c->jlen ? c->jpath : "$");
	if (n >= 0 && (size_t)n < c->err_len) {
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->err_len - n, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* ---- the JSON path of messages ---- */

static size_t path_push_key(struct c2 *c, const char *key)
{
	size_t old = c->jlen;
	int n;

	if (!old) {
		c->jpath[0] = '$';
		c->jlen = old = 1;
	}
	n = snprintf(c->jpath + c->jlen, sizeof(c->jpath) - c->jlen, ".%s",
		     key);
	if (n > 0) {
		c->jlen += (size_t)n;
		if (c->jlen >= sizeof(c->jpath)) {
			c->jlen = sizeof(c->jpath) - 1;
		}
	}
	return old;
}

static size_t path_push_index(struct c2 *c, size_t i)
{
	size_t old = c->jlen;
	int n;

	if (!old) {
		c->jpath[0] = '$';
		c->jlen = old = 1;
	}
	n = snprintf(c->jpath + c->jlen, sizeof(c->jpath) - c->jlen, "[%zu]",
		     i);
	if (n > 0) {
		c->jlen += (size_t)n;
		if (c->jlen >= sizeof(c->jpath)) {
			c->jlen = sizeof(c->jpath) - 1;
		}
	}
	return old;
}

static void path_pop(struct c2 *c, size_t old)
{
	c->jlen = old;
	c->jpath[old] = '\0';
}

/* ---- JSON values ---- */

static const char *json_kind(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
		return "a number with a fraction";
	case json_type_int:
		return "an integer";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return "a string";
	}
	return "?";
}

/* Member @key of object @o, or NULL when absent. */
static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v)) {
		return NULL;
	}
	return v;
}

static int need_type(struct c2 *c, json_object *v, const char *key,
		     json_type type, const char *what)
{
	size_t old;
	int ret;

	if (json_object_is_type(v, type)) {
		return 0;
	}
	old = key ? path_push_key(c, key) : c->jlen;
	ret = fail(c, HT_ESYNTAX, "expected %s, found %s", what, json_kind(v));
	path_pop(c, old);
	return ret;
}

/* @v as an unsigned integer (a uint64_t). */
static int value_uint(struct c2 *c, json_object *v, const char *key,
		      uint64_t *out)
{
	int ret = need_type(c, v, key, json_type_int, "an unsigned integer");

	if (ret) {
		return ret;
	}
	if (json_object_get_int64(v) < 0) {
		size_t old = key ? path_push_key(c, key) : c->jlen;

		ret = fail(c, HT_ERANGE,
			   "expected an unsigned integer, "
			   "found a negative one");
		path_pop(c, old);
		return ret;
	}
	*out = json_object_get_uint64(v);
	return 0;
}

/* @v as a signed integer (an int64_t). */
static int value_int(struct c2 *c, json_object *v, const char *key,
		     int64_t *out)
{
	int ret = need_type(c, v, key, json_type_int, "an integer");

	if (ret) {
		return ret;
	}
	*out = json_object_get_int64(v);
	if (*out == INT64_MAX && json_object_get_uint64(v) > INT64_MAX) {
		size_t old = key ? path_push_key(c, key) : c->jlen;

		ret = fail(c, HT_ERANGE, "integer out of the int64 range");
		path_pop(c, old);
		return ret;
	}
	return 0;
}

/* Optional unsigned member @key of @o (@def when absent). */
static int opt_uint(struct c2 *c, json_object *o, const char *key, uint64_t def,
		    uint64_t *out)
{
	json_object *v = member(o, key);

	*out = def;
	return v ? value_uint(c, v, key, out) : 0;
}

static int req_uint(struct c2 *c, json_object *o, const char *key,
		    uint64_t *out)
{
	json_object *v = member(o, key);

	if (!v) {
		return fail(c, HT_ESYNTAX, "missing property '%s'", key);
	}
	return value_uint(c, v, key, out);
}

/* Optional string member @key of @o (NULL when absent). */
static int opt_str(struct c2 *c, json_object *o, const char *key,
		   const char **out)
{
	json_object *v = member(o, key);

	*out = NULL;
	if (!v) {
		return 0;
	}
	if (need_type(c, v, key, json_type_string, "a string")) {
		return HT_ESYNTAX;
	}
	*out = json_object_get_string(v);
	return 0;
}

static char *arena_str(struct c2 *c, const char *s)
{
	return ht__arena_strdup(c->a, s);
}

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
	return arena_str(c, name);
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
		return fail(c, HT_EUNSUPPORTED,
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
	int ret = opt_uint(c, o, key, 1, &u);

	if (ret) {
		return ret;
	}
	if (u == 0 || (u & (u - 1)) || u > (1u << 20)) {
		size_t old = path_push_key(c, key);

		ret = fail(c, HT_ESYNTAX,
			   "must be a power of two up to 2^20, not %llu",
			   (unsigned long long)u);
		path_pop(c, old);
		return ret;
	}
	*align = (unsigned)u;
	return 0;
}

static int parse_byte_order(struct c2 *c, json_object *o,
			    enum ht_ctf_byte_order *bo)
{
	const char *s, *bit;
	int ret = opt_str(c, o, "byte-order", &s);

	if (!ret) {
		ret = opt_str(c, o, "bit-order", &bit);
	}
	if (ret) {
		return ret;
	}
	if (!s) {
		return fail(c, HT_ESYNTAX, "missing property 'byte-order'");
	}
	if (!strcmp(s, "little-endian")) {
		*bo = HT_CTF_LE;
	} else if (!strcmp(s, "big-endian")) {
		*bo = HT_CTF_BE;
	} else {
		size_t old = path_push_key(c, "byte-order");

		ret = fail(c, HT_ESYNTAX, "unknown byte order '%s'", s);
		path_pop(c, old);
		return ret;
	}
	/* the bit order CTF 1.8 implies: first-to-last in little-endian,
	 * last-to-first in big-endian */
	if (bit &&
	    strcmp(bit, *bo == HT_CTF_LE ? "first-to-last" : "last-to-first")) {
		size_t old = path_push_key(c, "bit-order");

		ret = fail(c, HT_EUNSUPPORTED,
			   "bit order '%s' with byte order '%s' is not "
			   "supported",
			   bit, s);
		path_pop(c, old);
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
	return fail(c, HT_EUNSUPPORTED, "unknown role '%s'", s);
}

/* The roles of unsigned integer @t (at most one is used). */
static int parse_roles(struct c2 *c, json_object *o, struct ht_ctf_type *t,
		       bool allowed)
{
	json_object *v = member(o, "roles");
	size_t old, i, n;
	int ret = 0;

	if (!v) {
		return 0;
	}
	old = path_push_key(c, "roles");
	if (!allowed) {
		ret = fail(c, HT_ESYNTAX,
			   "only unsigned integers have roles here");
		goto out;
	}
	ret = need_type(c, v, NULL, json_type_array, "an array of roles");
	n = ret ? 0 : json_object_array_length(v);
	for (i = 0; !ret && i < n; i++) {
		json_object *r = json_object_array_get_idx(v, i);
		size_t o2 = path_push_index(c, i);
		enum ht_ctf_role role = HT_CTF_ROLE_NONE;

		ret = need_type(c, r, NULL, json_type_string, "a role name");
		if (!ret) {
			ret = parse_role(c, json_object_get_string(r), &role);
		}
		if (!ret && (role == HT_CTF_ROLE_CLOCK_TS ||
			     role == HT_CTF_ROLE_PACKET_END_CLOCK_TS)) {
			if (!c->clock) {
				ret = fail(c, HT_ESYNTAX,
					   "a clock timestamp where there is "
					   "no default clock class");
			}
			t->mapped_clock = c->clock;
			c->uses_clock = true;
		}
		if (!ret && !t->role) {
			t->role = role;
		}
		path_pop(c, o2);
	}
out:
	path_pop(c, old);
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
		return fail(c, HT_ESYNTAX,
			    "expected a range [lower, upper], found %s",
			    json_kind(r));
	}
	lo = json_object_array_get_idx(r, 0);
	hi = json_object_array_get_idx(r, 1);
	if (is_signed) {
		ret = value_int(c, lo, NULL, &out->lower.s);
		if (!ret) {
			ret = value_int(c, hi, NULL, &out->upper.s);
		}
		if (!ret && out->lower.s > out->upper.s) {
			ret = fail(c, HT_ESYNTAX,
				   "range lower bound above its "
				   "upper bound");
		}
		return ret;
	}
	ret = value_uint(c, lo, NULL, &out->lower.u);
	if (!ret) {
		ret = value_uint(c, hi, NULL, &out->upper.u);
	}
	if (!ret && out->lower.u > out->upper.u) {
		ret = fail(c, HT_ESYNTAX,
			   "range lower bound above its upper bound");
	}
	return ret;
}

/* An integer with mappings becomes an enumeration of it. */
static int parse_mappings(struct c2 *c, json_object *o,
			  const struct ht_ctf_type *it,
			  const struct ht_ctf_type **out)
{
	json_object *m = member(o, "mappings");
	struct ht_ctf_enum_mapping *maps;
	struct ht_ctf_type *et;
	size_t old, k = 0;
	int ret = 0;

	*out = it;
	if (!m) {
		return 0;
	}
	old = path_push_key(c, "mappings");
	ret = need_type(c, m, NULL, json_type_object, "an object of mappings");
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
			size_t o2 = path_push_key(c, label);
			struct ht_ctf_enum_range *rv;
			size_t i, n;

			ret = need_type(c, ranges, NULL, json_type_array,
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
				size_t o3 = path_push_index(c, i);

				ret = parse_range(
				    c, json_object_array_get_idx(ranges, i),
				    it->is_signed, &rv[i]);
				path_pop(c, o3);
				if (ret) {
					goto out;
				}
			}
			maps[k].label = arena_str(c, label);
			maps[k].ranges = rv;
			maps[k].nr_ranges = n;
			k++;
			path_pop(c, o2);
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
	path_pop(c, old);
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
	ret = req_uint(c, j, "length", &len);
	if (!ret && (len == 0 || len > 64)) {
		size_t old = path_push_key(c, "length");

		ret = fail(c, len ? HT_EUNSUPPORTED : HT_ESYNTAX,
			   "a fixed-length bit array of %llu bits is not "
			   "supported (1 to 64)",
			   (unsigned long long)len);
		path_pop(c, old);
	}
	if (!ret) {
		ret = parse_byte_order(c, j, &t->byte_order);
	}
	if (!ret) {
		ret = parse_align(c, j, "alignment", &t->align_bits);
	}
	if (!ret) {
		ret = opt_uint(c, j, "preferred-display-base",
			       kind == BITS_ARRAY || kind == BITS_MAP ? 16 : 10,
			       &base);
	}
	if (!ret && base != 2 && base != 8 && base != 10 && base != 16) {
		ret = fail(c, HT_ESYNTAX,
			   "display base %llu is not 2, 8, 10 "
			   "or 16",
			   (unsigned long long)base);
	}
	if (ret) {
		return ret;
	}
	t->size_bits = (unsigned)len;
	t->is_signed = kind == BITS_SINT;
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
	ret = req_uint(c, j, "length", &len);
	if (!ret && len != 32 && len != 64) {
		size_t old = path_push_key(c, "length");

		ret = fail(c, HT_EUNSUPPORTED,
			   "a floating point number of %llu bits is not "
			   "supported (32 or 64)",
			   (unsigned long long)len);
		path_pop(c, old);
	}
	if (!ret) {
		ret = parse_byte_order(c, j, &t->byte_order);
	}
	if (!ret) {
		ret = parse_align(c, j, "alignment", &t->align_bits);
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

/* The encoding of a string: only UTF-8 has a CTF 1.8 layout. */
static int parse_encoding(struct c2 *c, json_object *j, const char *what)
{
	const char *enc;
	int ret = opt_str(c, j, "encoding", &enc);

	if (ret || !enc || !strcmp(enc, "utf-8")) {
		return ret;
	}
	{
		size_t old = path_push_key(c, "encoding");

		if (!strcmp(enc, "utf-16be") || !strcmp(enc, "utf-16le") ||
		    !strcmp(enc, "utf-32be") || !strcmp(enc, "utf-32le")) {
			ret = fail(c, HT_EUNSUPPORTED,
				   "a %s encoded in '%s' is not supported "
				   "(UTF-8 only)",
				   what, enc);
		} else {
			ret = fail(c, HT_ESYNTAX, "unknown encoding '%s'", enc);
		}
		path_pop(c, old);
	}
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
	json_object *loc = member(j, key), *p;
	const char *origin = NULL;
	struct ht_buf b = {0};
	size_t old, i, n;
	int ret;

	if (!loc) {
		return fail(c, HT_ESYNTAX, "missing property '%s'", key);
	}
	old = path_push_key(c, key);
	ret = need_type(c, loc, NULL, json_type_object, "a field location");
	if (!ret) {
		ret = opt_str(c, loc, "origin", &origin);
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
			ret =
			    fail(c, HT_ESYNTAX, "unknown origin '%s'", origin);
			goto out;
		}
		ht_buf_puts(&b, scopes[i].prefix);
	}
	p = member(loc, "path");
	if (!p) {
		ret = fail(c, HT_ESYNTAX, "missing property 'path'");
		goto out;
	}
	ret = need_type(c, p, "path", json_type_array, "an array");
	n = ret ? 0 : json_object_array_length(p);
	for (i = 0; !ret && i < n; i++) {
		json_object *e = json_object_array_get_idx(p, i);
		const char *s;

		if (!e && !origin) {
			continue; /* null: out of a structure */
		}
		if (!json_object_is_type(e, json_type_string)) {
			ret = fail(c, HT_ESYNTAX,
				   "path item %zu: expected a member name, "
				   "found %s",
				   i, e ? json_kind(e) : "null");
			break;
		}
		s = json_object_get_string(e);
		if (strchr(s, '.')) {
			ret = fail(c, HT_EUNSUPPORTED,
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
		ret = fail(c, HT_ESYNTAX, "empty field location");
	}
	if (!ret) {
		*out = ht__arena_strndup(c->a, b.data, b.len);
		if (!*out) {
			ret = HT_ENOMEM;
		}
	}
out:
	ht_buf_fini(&b);
	path_pop(c, old);
	return ret;
}

/* An array or sequence of bytes (strings and BLOBs). */
static int fc_bytes(struct c2 *c, json_object *j, bool dynamic, bool text,
		    const struct ht_ctf_type **out)
{
	struct ht_ctf_type *t, *e;
	int ret = 0;

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
	if (text) {
		ret = parse_encoding(c, j, "string");
	}
	if (!ret && dynamic) {
		ret = parse_location(c, j, "length-field-location",
				     &t->length_ref);
	} else if (!ret) {
		ret = req_uint(c, j, "length", &t->length);
	}
	if (!ret && !text) {
		ret = parse_roles(c, j, t, true);
		if (!ret && t->role) {
			ret = fail(c, HT_ESYNTAX,
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
	json_object *mc = member(j, "member-classes");
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
	old = path_push_key(c, "member-classes");
	ret = need_type(c, mc, NULL, json_type_array, "an array of members");
	if (!ret) {
		n = json_object_array_length(mc);
		mv = ht__arena_alloc(c->a, (n + 1) * sizeof(*mv));
		if (!mv) {
			ret = HT_ENOMEM;
		}
	}
	for (i = 0; !ret && i < n; i++) {
		json_object *m = json_object_array_get_idx(mc, i), *fc;
		size_t o2 = path_push_index(c, i);
		const char *name;

		ret = need_type(c, m, NULL, json_type_object, "a member class");
		if (!ret) {
			ret = opt_str(c, m, "name", &name);
		}
		if (!ret && !name) {
			ret = fail(c, HT_ESYNTAX, "missing property 'name'");
		}
		if (!ret && ht__tsdl_index_find(&names, name, strlen(name)) !=
				NAME_NONE) {
			ret = fail(c, HT_ESYNTAX, "duplicate member name '%s'",
				   name);
		}
		if (!ret && ht__tsdl_index_set(&names, name, strlen(name), i)) {
			ret = HT_ENOMEM;
		}
		fc = ret ? NULL : member(m, "field-class");
		if (!ret && !fc) {
			ret = fail(c, HT_ESYNTAX,
				   "missing property 'field-class'");
		}
		if (!ret) {
			size_t o3 = path_push_key(c, "field-class");

			ret = fc_parse(c, fc, &mv[i].type);
			path_pop(c, o3);
		}
		if (!ret) {
			mv[i].name = model_name(c, name);
			if (!mv[i].name) {
				ret = HT_ENOMEM;
			} else if (mv[i].type->align_bits > t->align_bits) {
				t->align_bits = mv[i].type->align_bits;
			}
		}
		path_pop(c, o2);
	}
	path_pop(c, old);
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
	json_object *ef = member(j, "element-field-class");
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
		ret = req_uint(c, j, "length", &t->length);
	}
	if (!ret && !ef) {
		ret = fail(c, HT_ESYNTAX,
			   "missing property 'element-field-class'");
	}
	if (ret) {
		return ret;
	}
	old = path_push_key(c, "element-field-class");
	ret = fc_parse(c, ef, &t->element);
	path_pop(c, old);
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
	json_object *opts = member(j, "options");
	struct ht_ctf_variant_range *rv = NULL;
	struct ht_ctf_member *mv = NULL;
	size_t old, i, n = 0, nr = 0, cap = 0;
	int ret;

	if (!t) {
		return type_fail(c);
	}
	ret = parse_location(c, j, "selector-field-location", &t->tag_ref);
	if (!ret && !opts) {
		ret = fail(c, HT_ESYNTAX, "missing property 'options'");
	}
	if (ret) {
		return ret;
	}
	old = path_push_key(c, "options");
	ret = need_type(c, opts, NULL, json_type_array, "an array of options");
	if (!ret) {
		n = json_object_array_length(opts);
		if (!n) {
			ret = fail(c, HT_ESYNTAX, "a variant without options");
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
		size_t o2 = path_push_index(c, i), k, nsr = 0;
		const char *name = NULL;

		ret = need_type(c, o, NULL, json_type_object, "an option");
		if (!ret) {
			ret = opt_str(c, o, "name", &name);
		}
		fc = ret ? NULL : member(o, "field-class");
		sr = ret ? NULL : member(o, "selector-field-ranges");
		if (!ret && (!fc || !sr)) {
			ret =
			    fail(c, HT_ESYNTAX, "missing property '%s'",
				 fc ? "selector-field-ranges" : "field-class");
		}
		if (!ret) {
			ret = need_type(c, sr, "selector-field-ranges",
					json_type_array, "an array of ranges");
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
			size_t o3 = path_push_key(c, "selector-field-ranges");
			size_t o4 = path_push_index(c, k);
			bool neg = json_object_is_type(r, json_type_array) &&
				   json_object_array_length(r) == 2 &&
				   json_object_get_int64(
				       json_object_array_get_idx(r, 0)) < 0;

			/* the selector's signedness is known once the plan
			 * finds it: a negative lower bound reads signed */
			ret = parse_range(c, r, neg, &er);
			path_pop(c, o4);
			path_pop(c, o3);
			if (!ret) {
				rv[nr].lower.u = er.lower.u;
				rv[nr].upper.u = er.upper.u;
				rv[nr].option = i;
				nr++;
			}
		}
		if (!ret) {
			size_t o3 = path_push_key(c, "field-class");

			ret = fc_parse(c, fc, &mv[i].type);
			path_pop(c, o3);
		}
		if (!ret) {
			mv[i].name = model_name(c, name ? name : "");
			if (!mv[i].name) {
				ret = HT_ENOMEM;
			}
		}
		path_pop(c, o2);
	}
	path_pop(c, old);
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
		return fail(c, HT_ESYNTAX, "no field class alias '%s' before",
			    name);
	}
	al = &c->aliases[i];
	if (al->type && (!al->uses_clock || al->clock == c->clock)) {
		*out = al->type;
		c->uses_clock |= al->uses_clock;
		return 0;
	}
	if (al->busy) {
		return fail(c, HT_ESYNTAX, "alias '%s' used in itself", name);
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
	path_pop(c, old);
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
		return fail(c, HT_ESYNTAX,
			    "expected a field class (an object or an alias "
			    "name), found %s",
			    json_kind(j));
	}
	ret = opt_str(c, j, "type", &type);
	if (ret) {
		return ret;
	}
	if (!type) {
		return fail(c, HT_ESYNTAX, "missing property 'type'");
	}
	if (c->depth >= TSDL_MAX_DEPTH) {
		return fail(c, HT_EUNSUPPORTED,
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
		struct ht_ctf_type *t = new_type(c, HT_CTF_STRING);

		ret = t ? parse_encoding(c, j, "null-terminated string")
			: type_fail(c);
		if (!ret) {
			t->align_bits = 8;
			t->encoding = HT_CTF_ENC_UTF8;
			*out = t;
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
	} else if (!strcmp(type, "variable-length-unsigned-integer") ||
		   !strcmp(type, "variable-length-signed-integer") ||
		   !strcmp(type, "optional")) {
		size_t old = path_push_key(c, "type");

		ret = fail(c, HT_EUNSUPPORTED,
			   "CTF 2 field class '%s' is not supported", type);
		path_pop(c, old);
	} else {
		size_t old = path_push_key(c, "type");

		ret =
		    fail(c, HT_ESYNTAX, "unknown field class type '%s'", type);
		path_pop(c, old);
	}
	c->depth--;
	return ret;
}

/* A scope's root field class (member @key of @o): a structure. */
static int scope_fc(struct c2 *c, json_object *o, const char *key,
		    const struct ht_ctf_type **out)
{
	json_object *v = member(o, key);
	size_t old;
	int ret;

	*out = NULL;
	if (!v) {
		return 0;
	}
	old = path_push_key(c, key);
	ret = fc_parse(c, v, out);
	if (!ret && (*out)->kind != HT_CTF_STRUCT) {
		ret = fail(c, HT_ESYNTAX,
			   "a scope's field class must be a "
			   "structure");
	}
	path_pop(c, old);
	return ret;
}

/* ---- fragments ---- */

static int frag_preamble(struct c2 *c, json_object *j)
{
	json_object *v = member(j, "version"), *u, *ext;
	size_t i;

	if (!v) {
		return fail(c, HT_ESYNTAX, "missing property 'version'");
	}
	if (!json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) != 2) {
		return fail(c, HT_EUNSUPPORTED,
			    "CTF version %s is not supported (2 only)",
			    json_object_to_json_string(v));
	}
	ext = member(j, "extensions");
	if (ext && json_object_is_type(ext, json_type_object)) {
		json_object_object_foreach(ext, name, val)
		{
			(void)val;
			return fail(c, HT_EUNSUPPORTED,
				    "extension '%s' is not supported", name);
		}
	}
	u = member(j, "uuid");
	if (!u) {
		return 0;
	}
	if (!json_object_is_type(u, json_type_array) ||
	    json_object_array_length(u) != 16) {
		return fail(c, HT_ESYNTAX,
			    "uuid: expected an array of 16 "
			    "bytes");
	}
	for (i = 0; i < 16; i++) {
		json_object *b = json_object_array_get_idx(u, i);
		uint64_t x;
		int ret = value_uint(c, b, "uuid", &x);

		if (ret) {
			return ret;
		}
		if (x > 255) {
			return fail(c, HT_ERANGE, "uuid: byte %zu is %llu", i,
				    (unsigned long long)x);
		}
		c->t->pub.uuid[i] = (uint8_t)x;
	}
	c->t->pub.has_uuid = true;
	return 0;
}

static int frag_alias(struct c2 *c, json_object *j)
{
	const char *name;
	json_object *fc = member(j, "field-class");
	int ret = opt_str(c, j, "name", &name);

	if (ret) {
		return ret;
	}
	if (!name || !fc) {
		return fail(c, HT_ESYNTAX, "missing property '%s'",
			    name ? "field-class" : "name");
	}
	if (ht__tsdl_index_find(&c->alias_ix, name, strlen(name)) !=
	    NAME_NONE) {
		return fail(c, HT_ESYNTAX, "duplicate alias '%s'", name);
	}
	if (ht_array_reserve((void **)&c->aliases, &c->cap_aliases,
			     c->nr_aliases + 1, sizeof(*c->aliases))) {
		return HT_ENOMEM;
	}
	name = arena_str(c, name);
	if (!name) {
		return HT_ENOMEM;
	}
	memset(&c->aliases[c->nr_aliases], 0, sizeof(c->aliases[0]));
	c->aliases[c->nr_aliases].name = name;
	/* text, which json-c parsed: it parses again when used */
	c->aliases[c->nr_aliases].fc_text =
	    strdup(json_object_to_json_string_ext(fc, JSON_C_TO_STRING_PLAIN));
	if (!c->aliases[c->nr_aliases].fc_text ||
	    ht__tsdl_index_set(&c->alias_ix, name, strlen(name),
			       c->nr_aliases)) {
		free(c->aliases[c->nr_aliases].fc_text);
		return HT_ENOMEM;
	}
	c->nr_aliases++;
	return 0;
}

static int frag_trace(struct c2 *c, json_object *j)
{
	json_object *env = member(j, "environment");
	int ret;

	if (c->seen_trace) {
		return fail(c, HT_ESYNTAX, "a second trace class");
	}
	if (c->nr_streams) {
		return fail(c, HT_ESYNTAX,
			    "the trace class after a data stream class");
	}
	c->seen_trace = true;
	c->clock = NULL;
	ret = scope_fc(c, j, "packet-header-field-class",
		       &c->t->pub.packet_header);
	if (ret || !env) {
		return ret;
	}
	ret = need_type(c, env, "environment", json_type_object, "an object");
	if (ret) {
		return ret;
	}
	{
		json_object_object_foreach(env, key, val)
		{
			struct ht_ctf_env_entry *e;
			size_t old = path_push_key(c, "environment");

			if (ht_array_reserve((void **)&c->env, &c->cap_env,
					     c->nr_env + 1, sizeof(*c->env))) {
				return HT_ENOMEM;
			}
			e = &c->env[c->nr_env];
			memset(e, 0, sizeof(*e));
			e->name = arena_str(c, key);
			if (json_object_is_type(val, json_type_string)) {
				e->is_string = true;
				e->str =
				    arena_str(c, json_object_get_string(val));
			} else {
				ret = value_int(c, val, key, &e->i);
				if (ret) {
					ret = fail(c, HT_ESYNTAX,
						   "environment entry '%s': "
						   "expected a string or an "
						   "integer",
						   key);
				}
			}
			path_pop(c, old);
			if (ret) {
				return ret;
			}
			if (!e->name || (e->is_string && !e->str)) {
				return HT_ENOMEM;
			}
			c->nr_env++;
		}
	}
	return 0;
}

/* Whether @s is a UUID in its text form; its bytes in @uuid. */
static bool parse_uuid_text(const char *s, uint8_t *uuid)
{
	size_t i, k = 0;

	if (strlen(s) != 36) {
		return false;
	}
	for (i = 0; i < 36; i++) {
		int h;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-') {
				return false;
			}
			continue;
		}
		h = ht__tsdl_hexval((unsigned char)s[i]);
		if (h < 0) {
			return false;
		}
		if (k % 2 == 0) {
			uuid[k / 2] = (uint8_t)(h << 4);
		} else {
			uuid[k / 2] |= (uint8_t)h;
		}
		k++;
	}
	return true;
}

static int frag_clock(struct c2 *c, json_object *j)
{
	struct ht_ctf_clock *clk = ht__arena_alloc(c->a, sizeof(*clk));
	const char *id, *name, *descr, *uid;
	json_object *origin = member(j, "origin"), *off;
	uint64_t freq;
	int ret;

	if (!clk) {
		return HT_ENOMEM;
	}
	ret = opt_str(c, j, "id", &id);
	if (!ret) {
		ret = opt_str(c, j, "name", &name);
	}
	if (!ret) {
		ret = opt_str(c, j, "description", &descr);
	}
	if (!ret) {
		ret = opt_str(c, j, "uid", &uid);
	}
	if (!ret) {
		ret = req_uint(c, j, "frequency", &freq);
	}
	if (!ret) {
		ret = opt_uint(c, j, "precision", 0, &clk->precision);
	}
	if (ret) {
		return ret;
	}
	if (!id) {
		return fail(c, HT_ESYNTAX, "missing property 'id'");
	}
	if (!freq) {
		return fail(c, HT_ESYNTAX, "frequency 0");
	}
	if (ht__tsdl_index_find(&c->clock_ix, id, strlen(id)) != NAME_NONE) {
		return fail(c, HT_ESYNTAX, "duplicate clock class '%s'", id);
	}
	clk->freq_hz = freq;
	off = member(j, "offset-from-origin");
	if (off) {
		size_t old = path_push_key(c, "offset-from-origin");
		json_object *s;
		uint64_t cy;

		ret = need_type(c, off, NULL, json_type_object, "an object");
		if (!ret && (s = member(off, "seconds"))) {
			ret = value_int(c, s, "seconds", &clk->offset_s);
		}
		if (!ret) {
			ret = opt_uint(c, off, "cycles", 0, &cy);
		}
		if (!ret && cy > INT64_MAX) {
			ret = fail(c, HT_ERANGE, "cycles out of range");
		}
		path_pop(c, old);
		if (ret) {
			return ret;
		}
		clk->offset_cycles = (int64_t)cy;
	}
	if (origin && json_object_is_type(origin, json_type_string)) {
		if (strcmp(json_object_get_string(origin), "unix-epoch")) {
			size_t old = path_push_key(c, "origin");

			ret = fail(c, HT_ESYNTAX, "unknown origin '%s'",
				   json_object_get_string(origin));
			path_pop(c, old);
			return ret;
		}
		clk->absolute = true;
	} else if (origin) {
		/* a custom origin: not the Unix epoch */
		ret = need_type(c, origin, "origin", json_type_object,
				"\"unix-epoch\" or an object");
		if (ret) {
			return ret;
		}
	}
	clk->name = arena_str(c, name ? name : id);
	clk->description = descr ? arena_str(c, descr) : NULL;
	if (uid) {
		clk->has_uuid = parse_uuid_text(uid, clk->uuid);
	}
	if (ht_array_reserve((void **)&c->clocks, &c->cap_clocks,
			     c->nr_clocks + 1, sizeof(*c->clocks))) {
		return HT_ENOMEM;
	}
	c->clocks[c->nr_clocks].id = arena_str(c, id);
	c->clocks[c->nr_clocks].clk = clk;
	if (!clk->name || !c->clocks[c->nr_clocks].id ||
	    (descr && !clk->description) ||
	    ht__tsdl_index_set(&c->clock_ix, c->clocks[c->nr_clocks].id,
			       strlen(id), c->nr_clocks)) {
		return HT_ENOMEM;
	}
	c->nr_clocks++;
	return 0;
}

/* @key ("ID" or "SID/ID") in @ix; @key becomes the arena's copy. */
static size_t id_find(struct name_index *ix, char *key, size_t n, uint64_t a,
		      const uint64_t *b)
{
	int len = b ? snprintf(key, n, "%llu/%llu", (unsigned long long)a,
			       (unsigned long long)*b)
		    : snprintf(key, n, "%llu", (unsigned long long)a);

	return ht__tsdl_index_find(ix, key, (size_t)len);
}

static int id_add(struct c2 *c, struct name_index *ix, const char *key,
		  size_t value)
{
	const char *k = arena_str(c, key);

	if (!k || ht__tsdl_index_set(ix, k, strlen(k), value)) {
		return HT_ENOMEM;
	}
	return 0;
}

static struct c2_stream *find_stream(struct c2 *c, uint64_t id)
{
	char key[48];
	size_t i = id_find(&c->stream_ix, key, sizeof(key), id, NULL);

	return i == NAME_NONE ? NULL : &c->streams[i];
}

static int frag_stream(struct c2 *c, json_object *j)
{
	struct ht__stream_class *sc = ht__arena_alloc(c->a, sizeof(*sc));
	const char *clock_id;
	uint64_t id;
	size_t i;
	int ret;

	if (!sc) {
		return HT_ENOMEM;
	}
	ret = opt_uint(c, j, "id", 0, &id);
	if (!ret) {
		ret = opt_str(c, j, "default-clock-class-id", &clock_id);
	}
	if (ret) {
		return ret;
	}
	if (find_stream(c, id)) {
		return fail(c, HT_ESYNTAX,
			    "duplicate data stream class id %llu",
			    (unsigned long long)id);
	}
	c->clock = NULL;
	if (clock_id) {
		i = ht__tsdl_index_find(&c->clock_ix, clock_id,
					strlen(clock_id));
		if (i != NAME_NONE) {
			c->clock = c->clocks[i].clk;
		} else {
			size_t old = path_push_key(c, "default-clock-class-id");

			ret = fail(c, HT_ESYNTAX, "no clock class '%s' before",
				   clock_id);
			path_pop(c, old);
			return ret;
		}
	}
	sc->pub.id = id;
	sc->pub.trace = &c->t->pub;
	ret = scope_fc(c, j, "packet-context-field-class",
		       &sc->pub.packet_context);
	if (!ret) {
		ret = scope_fc(c, j, "event-record-header-field-class",
			       &sc->pub.event_header);
	}
	if (!ret) {
		ret = scope_fc(c, j, "event-record-common-context-field-class",
			       &sc->pub.event_context);
	}
	if (ret) {
		return ret;
	}
	if (ht_array_reserve((void **)&c->streams, &c->cap_streams,
			     c->nr_streams + 1, sizeof(*c->streams))) {
		return HT_ENOMEM;
	}
	memset(&c->streams[c->nr_streams], 0, sizeof(c->streams[0]));
	c->streams[c->nr_streams].clock = c->clock;
	c->streams[c->nr_streams].sc = sc;
	{
		char key[48];

		id_find(&c->stream_ix, key, sizeof(key), id, NULL);
		ret = id_add(c, &c->stream_ix, key, c->nr_streams);
	}
	c->nr_streams++;
	return ret;
}

static int frag_event(struct c2 *c, json_object *j)
{
	struct ht__event_class *ec = ht__arena_alloc(c->a, sizeof(*ec));
	struct c2_stream *st;
	const char *name;
	uint64_t id, sid;
	char key[48];
	int ret;

	if (!ec) {
		return HT_ENOMEM;
	}
	ret = opt_uint(c, j, "id", 0, &id);
	if (!ret) {
		ret = opt_uint(c, j, "data-stream-class-id", 0, &sid);
	}
	if (!ret) {
		ret = opt_str(c, j, "name", &name);
	}
	if (ret) {
		return ret;
	}
	st = find_stream(c, sid);
	if (!st) {
		return fail(c, HT_ESYNTAX, "no data stream class %llu before",
			    (unsigned long long)sid);
	}
	if (id_find(&c->event_ix, key, sizeof(key), sid, &id) != NAME_NONE) {
		return fail(c, HT_ESYNTAX,
			    "duplicate event record class id %llu in data "
			    "stream class %llu",
			    (unsigned long long)id, (unsigned long long)sid);
	}
	c->clock = st->clock;
	ec->pub.id = id;
	ec->pub.name = arena_str(c, name ? name : "");
	ec->pub.stream_class = &st->sc->pub;
	if (!ec->pub.name) {
		return HT_ENOMEM;
	}
	ret = scope_fc(c, j, "specific-context-field-class", &ec->pub.context);
	if (!ret) {
		ret = scope_fc(c, j, "payload-field-class", &ec->pub.payload);
	}
	if (ret) {
		return ret;
	}
	if (ht_array_reserve((void **)&st->events, &st->cap_events,
			     st->nr_events + 1, sizeof(*st->events))) {
		return HT_ENOMEM;
	}
	st->events[st->nr_events++] = &ec->pub;
	return id_add(c, &c->event_ix, key, 0);
}

static int fragment(struct c2 *c, json_object *j)
{
	const char *type;
	int ret;

	if (!json_object_is_type(j, json_type_object)) {
		return fail(c, HT_ESYNTAX, "expected an object, found %s",
			    json_kind(j));
	}
	ret = opt_str(c, j, "type", &type);
	if (ret) {
		return ret;
	}
	if (!type) {
		return fail(c, HT_ESYNTAX, "missing property 'type'");
	}
	if (c->frag == 1) {
		if (strcmp(type, "preamble")) {
			return fail(c, HT_ESYNTAX,
				    "the first fragment is a '%s', not a "
				    "preamble",
				    type);
		}
		return frag_preamble(c, j);
	}
	if (!strcmp(type, "field-class-alias")) {
		return frag_alias(c, j);
	}
	if (!strcmp(type, "trace-class")) {
		return frag_trace(c, j);
	}
	if (!strcmp(type, "clock-class")) {
		return frag_clock(c, j);
	}
	if (!strcmp(type, "data-stream-class")) {
		return frag_stream(c, j);
	}
	if (!strcmp(type, "event-record-class")) {
		return frag_event(c, j);
	}
	if (!strcmp(type, "preamble")) {
		return fail(c, HT_ESYNTAX, "a second preamble");
	}
	return fail(c, HT_ESYNTAX, "unknown fragment type '%s'", type);
}

/* Sets the stream default clocks, then the arrays of the model. */
static int link_model(struct c2 *c)
{
	struct ht__trace *t = c->t;
	const struct ht_ctf_clock **clocks;
	const struct ht_ctf_stream_class **scs;
	struct ht_ctf_env_entry *env;
	const struct ht_ctf_type *ph = t->pub.packet_header;
	size_t i;

	clocks = ht__arena_alloc(c->a, (c->nr_clocks + 1) * sizeof(*clocks));
	scs = ht__arena_alloc(c->a, (c->nr_streams + 1) * sizeof(*scs));
	env = ht__arena_alloc(c->a, (c->nr_env + 1) * sizeof(*env));
	if (!clocks || !scs || !env) {
		return HT_ENOMEM;
	}
	for (i = 0; i < c->nr_clocks; i++) {
		clocks[i] = c->clocks[i].clk;
	}
	if (c->nr_env) {
		memcpy(env, c->env, c->nr_env * sizeof(*env));
	}
	for (i = 0; i < c->nr_streams; i++) {
		struct c2_stream *st = &c->streams[i];
		const struct ht_ctf_event_class **ecs =
		    ht__arena_alloc(c->a, (st->nr_events + 1) * sizeof(*ecs));

		if (!ecs) {
			return HT_ENOMEM;
		}
		if (st->nr_events) {
			memcpy(ecs, st->events, st->nr_events * sizeof(*ecs));
		}
		st->sc->pub.event_classes = ecs;
		st->sc->pub.nr_event_classes = st->nr_events;
		scs[i] = &st->sc->pub;
	}
	t->pub.clocks = clocks;
	t->pub.nr_clocks = c->nr_clocks;
	t->pub.env = env;
	t->pub.nr_env = c->nr_env;
	t->pub.stream_classes = scs;
	t->pub.nr_stream_classes = c->nr_streams;
	t->pub.major = 2;
	t->pub.minor = 0;
	/* CTF 2 has no trace byte order: the packet header's first
	 * integer (the magic number) gives the one `info` shows */
	t->pub.byte_order = HT_CTF_LE;
	for (i = 0; ph && i < ph->nr_members; i++) {
		const struct ht_ctf_type *m = ph->members[i].type;

		if (m->kind == HT_CTF_INT || m->kind == HT_CTF_ENUM) {
			t->pub.byte_order = m->byte_order;
			break;
		}
	}
	t->ctf2 = true;
	return 0;
}

/* Line and column of byte @off of @text, going on from @c's. */
static void advance_pos(struct c2 *c, const char *text, size_t from, size_t off)
{
	size_t i;

	for (i = from; i < off; i++) {
		if (text[i] == '\n') {
			c->line++;
			c->col = 1;
		} else {
			c->col++;
		}
	}
}

/* Parses fragment @c->frag, the bytes [@b, @e) of @text. */
static int parse_fragment(struct c2 *c, json_tokener *tok, const char *text,
			  size_t b, size_t e)
{
	enum json_tokener_error jerr;
	json_object *j;
	size_t end;
	int ret;

	json_tokener_reset(tok);
	j = json_tokener_parse_ex(tok, text + b, (int)(e - b));
	jerr = json_tokener_get_error(tok);
	end = b + json_tokener_get_parse_end(tok);
	if (!j || jerr != json_tokener_success) {
		unsigned line = c->line, col = c->col;

		if (jerr == json_tokener_continue) {
			jerr = json_tokener_error_parse_eof;
			end = e;
		}
		advance_pos(c, text, b, end);
		ret = fail(c, HT_ESYNTAX, "bad JSON: %s",
			   json_tokener_error_desc(jerr));
		c->line = line;
		c->col = col;
		json_object_put(j);
		return ret;
	}
	for (; end < e; end++) {
		char ch = text[end];

		if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') {
			unsigned line = c->line, col = c->col;

			advance_pos(c, text, b, end);
			ret = fail(c, HT_ESYNTAX,
				   "bad JSON: text after the fragment's value");
			c->line = line;
			c->col = col;
			json_object_put(j);
			return ret;
		}
	}
	ret = fragment(c, j);
	json_object_put(j);
	return ret;
}

int ht__ctf2_parse(struct ht__trace *trace, const char *path, const char *text,
		   size_t len, const struct ht_ctf_open_opts *opts, char *err,
		   size_t err_len)
{
	struct c2 c;
	json_tokener *tok;
	size_t b = 0, e, i, prev = 0;
	int ret = 0;

	(void)opts;
	memset(&c, 0, sizeof(c));
	c.path = path;
	c.t = trace;
	c.a = &trace->arena;
	c.err = err;
	c.err_len = err_len;
	c.line = c.col = 1;
	tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	if (!tok) {
		ret = HT_ENOMEM;
		goto out;
	}
	c.tok = tok;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
					JSON_TOKENER_VALIDATE_UTF8);
	while (b < len) {
		if (text[b] != 0x1e) {
			/* only white space may come before the first 0x1e */
			if (!c.frag && (text[b] == ' ' || text[b] == '\n' ||
					text[b] == '\r' || text[b] == '\t')) {
				b++;
				continue;
			}
			advance_pos(&c, text, prev, b);
			c.frag = c.frag ? c.frag : 1;
			ret = fail(&c, HT_ESYNTAX,
				   "expected a record "
				   "separator (0x1e)");
			goto out;
		}
		e = b + 1;
		while (e < len && text[e] != 0x1e) {
			e++;
		}
		advance_pos(&c, text, prev, b);
		prev = b;
		c.frag++;
		c.jlen = 0;
		if (e - b - 1 > CTF2_MAX_FRAGMENT) {
			ret = fail(&c, HT_EUNSUPPORTED,
				   "a fragment of %zu bytes is not supported "
				   "(at most %u MiB)",
				   e - b - 1, CTF2_MAX_FRAGMENT >> 20);
			goto out;
		}
		ret = parse_fragment(&c, tok, text, b + 1, e);
		if (ret) {
			goto out;
		}
		b = e;
	}
	c.jlen = 0;
	if (!c.frag) {
		ret = fail(&c, HT_ESYNTAX, "no fragment");
	} else if (!c.seen_trace) {
		ret = fail(&c, HT_ESYNTAX, "no trace class fragment");
	}
	if (!ret) {
		ret = link_model(&c);
	}
out:
	if (ret == HT_ENOMEM && err_len) {
		snprintf(err, err_len, "%s: out of memory", path);
	}
	if (tok) {
		json_tokener_free(tok);
	}
	for (i = 0; i < c.nr_aliases; i++) {
		free(c.aliases[i].fc_text);
	}
	free(c.aliases);
	ht__tsdl_index_fini(&c.alias_ix);
	ht__tsdl_index_fini(&c.clock_ix);
	ht__tsdl_index_fini(&c.stream_ix);
	ht__tsdl_index_fini(&c.event_ix);
	free(c.clocks);
	for (i = 0; i < c.nr_streams; i++) {
		free(c.streams[i].events);
	}
	free(c.streams);
	free(c.env);
	return ret;
}
