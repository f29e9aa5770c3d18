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
 * (ht_ctf_type.sel_ranges). What has no CTF 1.8 layout is marked on
 * the type for the decoder (ctf2-fields.c): variable-length integers
 * are integers with .varint, optionals variants with .optional, UTF-16
 * and UTF-32 strings strings with their encoding and .str_len. Floats
 * other than 32 and 64 bits, integers longer than 64 bits and a bit
 * order other than the byte order's are refused by name.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf2-metadata.h"
#include "common/buf.h"
#include "common/error.h"

/* ---- fragments ---- */

static int frag_preamble(struct c2 *c, json_object *j)
{
	json_object *v = ht__c2_member(j, "version"), *u, *ext;
	size_t i;

	if (!v) {
		return ht__c2_fail(c, HT_ESYNTAX, "missing property 'version'");
	}
	if (!json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) != 2) {
		return ht__c2_fail(c, HT_EUNSUPPORTED,
				   "CTF version %s is not supported (2 only)",
				   json_object_to_json_string(v));
	}
	ext = ht__c2_member(j, "extensions");
	if (ext && json_object_is_type(ext, json_type_object)) {
		json_object_object_foreach(ext, name, val)
		{
			(void)val;
			return ht__c2_fail(c, HT_EUNSUPPORTED,
					   "extension '%s' is not supported",
					   name);
		}
	}
	u = ht__c2_member(j, "uuid");
	if (!u) {
		return 0;
	}
	if (!json_object_is_type(u, json_type_array) ||
	    json_object_array_length(u) != 16) {
		return ht__c2_fail(c, HT_ESYNTAX,
				   "uuid: expected an array of 16 "
				   "bytes");
	}
	for (i = 0; i < 16; i++) {
		json_object *b = json_object_array_get_idx(u, i);
		uint64_t x;
		int ret = ht__c2_uint(c, b, "uuid", &x);

		if (ret) {
			return ret;
		}
		if (x > 255) {
			return ht__c2_fail(c, HT_ERANGE,
					   "uuid: byte %zu is %llu", i,
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
	json_object *fc = ht__c2_member(j, "field-class");
	int ret = ht__c2_opt_str(c, j, "name", &name);

	if (ret) {
		return ret;
	}
	if (!name || !fc) {
		return ht__c2_fail(c, HT_ESYNTAX, "missing property '%s'",
				   name ? "field-class" : "name");
	}
	if (ht__tsdl_index_find(&c->alias_ix, name, strlen(name)) !=
	    NAME_NONE) {
		return ht__c2_fail(c, HT_ESYNTAX, "duplicate alias '%s'", name);
	}
	if (ht_array_reserve((void **)&c->aliases, &c->cap_aliases,
			     c->nr_aliases + 1, sizeof(*c->aliases))) {
		return HT_ENOMEM;
	}
	name = ht__c2_strdup(c, name);
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
	json_object *env = ht__c2_member(j, "environment");
	int ret;

	if (c->seen_trace) {
		return ht__c2_fail(c, HT_ESYNTAX, "a second trace class");
	}
	if (c->nr_streams) {
		return ht__c2_fail(c, HT_ESYNTAX,
				   "the trace class after a data stream class");
	}
	c->seen_trace = true;
	c->clock = NULL;
	ret = ht__c2_scope_field_class(c, j, "packet-header-field-class",
				       &c->t->pub.packet_header);
	if (ret || !env) {
		return ret;
	}
	ret = ht__c2_need_type(c, env, "environment", json_type_object,
			       "an object");
	if (ret) {
		return ret;
	}
	{
		json_object_object_foreach(env, key, val)
		{
			struct ht_ctf_env_entry *e;
			size_t old = ht__c2_path_key(c, "environment");

			if (ht_array_reserve((void **)&c->env, &c->cap_env,
					     c->nr_env + 1, sizeof(*c->env))) {
				return HT_ENOMEM;
			}
			e = &c->env[c->nr_env];
			memset(e, 0, sizeof(*e));
			e->name = ht__c2_strdup(c, key);
			if (json_object_is_type(val, json_type_string)) {
				e->is_string = true;
				e->str = ht__c2_strdup(
				    c, json_object_get_string(val));
			} else {
				ret = ht__c2_int(c, val, key, &e->i);
				if (ret) {
					ret = ht__c2_fail(
					    c, HT_ESYNTAX,
					    "environment entry '%s': "
					    "expected a string or an "
					    "integer",
					    key);
				}
			}
			ht__c2_path_pop(c, old);
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
	json_object *origin = ht__c2_member(j, "origin"), *off;
	uint64_t freq;
	int ret;

	if (!clk) {
		return HT_ENOMEM;
	}
	ret = ht__c2_opt_str(c, j, "id", &id);
	if (!ret) {
		ret = ht__c2_opt_str(c, j, "name", &name);
	}
	if (!ret) {
		ret = ht__c2_opt_str(c, j, "description", &descr);
	}
	if (!ret) {
		ret = ht__c2_opt_str(c, j, "uid", &uid);
	}
	if (!ret) {
		ret = ht__c2_req_uint(c, j, "frequency", &freq);
	}
	if (!ret) {
		ret = ht__c2_opt_uint(c, j, "precision", 0, &clk->precision);
	}
	if (ret) {
		return ret;
	}
	if (!id) {
		return ht__c2_fail(c, HT_ESYNTAX, "missing property 'id'");
	}
	if (!freq) {
		return ht__c2_fail(c, HT_ESYNTAX, "frequency 0");
	}
	if (ht__tsdl_index_find(&c->clock_ix, id, strlen(id)) != NAME_NONE) {
		return ht__c2_fail(c, HT_ESYNTAX, "duplicate clock class '%s'",
				   id);
	}
	clk->freq_hz = freq;
	off = ht__c2_member(j, "offset-from-origin");
	if (off) {
		size_t old = ht__c2_path_key(c, "offset-from-origin");
		json_object *s;
		uint64_t cy;

		ret = ht__c2_need_type(c, off, NULL, json_type_object,
				       "an object");
		if (!ret && (s = ht__c2_member(off, "seconds"))) {
			ret = ht__c2_int(c, s, "seconds", &clk->offset_s);
		}
		if (!ret) {
			ret = ht__c2_opt_uint(c, off, "cycles", 0, &cy);
		}
		if (!ret && cy > INT64_MAX) {
			ret = ht__c2_fail(c, HT_ERANGE, "cycles out of range");
		}
		ht__c2_path_pop(c, old);
		if (ret) {
			return ret;
		}
		clk->offset_cycles = (int64_t)cy;
	}
	if (origin && json_object_is_type(origin, json_type_string)) {
		if (strcmp(json_object_get_string(origin), "unix-epoch")) {
			size_t old = ht__c2_path_key(c, "origin");

			ret = ht__c2_fail(c, HT_ESYNTAX, "unknown origin '%s'",
					  json_object_get_string(origin));
			ht__c2_path_pop(c, old);
			return ret;
		}
		clk->absolute = true;
	} else if (origin) {
		/* a custom origin: not the Unix epoch */
		ret = ht__c2_need_type(c, origin, "origin", json_type_object,
				       "\"unix-epoch\" or an object");
		if (ret) {
			return ret;
		}
	}
	clk->name = ht__c2_strdup(c, name ? name : id);
	clk->description = descr ? ht__c2_strdup(c, descr) : NULL;
	if (uid) {
		clk->has_uuid = parse_uuid_text(uid, clk->uuid);
	}
	if (ht_array_reserve((void **)&c->clocks, &c->cap_clocks,
			     c->nr_clocks + 1, sizeof(*c->clocks))) {
		return HT_ENOMEM;
	}
	c->clocks[c->nr_clocks].id = ht__c2_strdup(c, id);
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
	const char *k = ht__c2_strdup(c, key);

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
	ret = ht__c2_opt_uint(c, j, "id", 0, &id);
	if (!ret) {
		ret = ht__c2_opt_str(c, j, "default-clock-class-id", &clock_id);
	}
	if (ret) {
		return ret;
	}
	if (find_stream(c, id)) {
		return ht__c2_fail(c, HT_ESYNTAX,
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
			size_t old =
			    ht__c2_path_key(c, "default-clock-class-id");

			ret =
			    ht__c2_fail(c, HT_ESYNTAX,
					"no clock class '%s' before", clock_id);
			ht__c2_path_pop(c, old);
			return ret;
		}
	}
	sc->pub.id = id;
	sc->pub.trace = &c->t->pub;
	sc->ctf2_clock = c->clock;
	ret = ht__c2_scope_field_class(c, j, "packet-context-field-class",
				       &sc->pub.packet_context);
	if (!ret) {
		ret = ht__c2_scope_field_class(
		    c, j, "event-record-header-field-class",
		    &sc->pub.event_header);
	}
	if (!ret) {
		ret = ht__c2_scope_field_class(
		    c, j, "event-record-common-context-field-class",
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

/*
 * LTTng's log level and EMF URI of an event record class: its
 * attributes "log-level" (an integer) and "emf-uri" (a string) in the
 * namespace "lttng.org,2009", which babeltrace2 reads as the CTF 1.8
 * `loglevel` and `model.emf.uri`. Other attributes are not read.
 */
static int lttng_attributes(struct c2 *c, json_object *j,
			    struct ht__event_class *ec)
{
	json_object *a = ht__c2_member(j, "attributes"), *ns, *v;
	size_t old;
	int ret = 0;

	if (!a || !json_object_is_type(a, json_type_object)) {
		return 0;
	}
	ns = ht__c2_member(a, "lttng.org,2009");
	if (!ns || !json_object_is_type(ns, json_type_object)) {
		return 0;
	}
	old = ht__c2_path_key(c, "attributes");
	ht__c2_path_key(c, "lttng.org,2009");
	v = ht__c2_member(ns, "log-level");
	if (v) {
		ret = ht__c2_int(c, v, "log-level", &ec->pub.loglevel);
		ec->pub.has_loglevel = !ret;
	}
	if (!ret) {
		const char *uri;

		ret = ht__c2_opt_str(c, ns, "emf-uri", &uri);
		if (!ret && uri) {
			ec->pub.emf_uri = ht__c2_strdup(c, uri);
			ret = ec->pub.emf_uri ? 0 : HT_ENOMEM;
		}
	}
	ht__c2_path_pop(c, old);
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
	ret = ht__c2_opt_uint(c, j, "id", 0, &id);
	if (!ret) {
		ret = ht__c2_opt_uint(c, j, "data-stream-class-id", 0, &sid);
	}
	if (!ret) {
		ret = ht__c2_opt_str(c, j, "name", &name);
	}
	if (ret) {
		return ret;
	}
	st = find_stream(c, sid);
	if (!st) {
		return ht__c2_fail(c, HT_ESYNTAX,
				   "no data stream class %llu before",
				   (unsigned long long)sid);
	}
	if (id_find(&c->event_ix, key, sizeof(key), sid, &id) != NAME_NONE) {
		return ht__c2_fail(
		    c, HT_ESYNTAX,
		    "duplicate event record class id %llu in data "
		    "stream class %llu",
		    (unsigned long long)id, (unsigned long long)sid);
	}
	c->clock = st->clock;
	ec->pub.id = id;
	ec->pub.name = ht__c2_strdup(c, name ? name : "");
	ec->pub.stream_class = &st->sc->pub;
	if (!ec->pub.name) {
		return HT_ENOMEM;
	}
	ret = lttng_attributes(c, j, ec);
	if (!ret) {
		ret = ht__c2_scope_field_class(
		    c, j, "specific-context-field-class", &ec->pub.context);
	}
	if (!ret) {
		ret = ht__c2_scope_field_class(c, j, "payload-field-class",
					       &ec->pub.payload);
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
		return ht__c2_fail(c, HT_ESYNTAX,
				   "expected an object, found %s",
				   ht__c2_kind(j));
	}
	ret = ht__c2_req_str(c, j, "type", &type);
	if (ret) {
		return ret;
	}
	if (c->frag == 1) {
		if (strcmp(type, "preamble")) {
			return ht__c2_fail(
			    c, HT_ESYNTAX,
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
		return ht__c2_fail(c, HT_ESYNTAX, "a second preamble");
	}
	return ht__c2_fail(c, HT_ESYNTAX, "unknown fragment type '%s'", type);
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
		ret = ht__c2_fail(c, HT_ESYNTAX, "bad JSON: %s",
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
			ret = ht__c2_fail(
			    c, HT_ESYNTAX,
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
			ret = ht__c2_fail(&c, HT_ESYNTAX,
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
			ret = ht__c2_fail(
			    &c, HT_EUNSUPPORTED,
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
		ret = ht__c2_fail(&c, HT_ESYNTAX, "no fragment");
	} else if (!c.seen_trace) {
		ret = ht__c2_fail(&c, HT_ESYNTAX, "no trace class fragment");
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
