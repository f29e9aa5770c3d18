/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CTF_CTF2_METADATA_H
#define HT_HOST_CTF_CTF2_METADATA_H

/*
 * The CTF 2 metadata reader's state, shared by its files: the JSON
 * values and the messages (ctf2-json.c), the field classes
 * (ctf2-field-class.c), the fragments and the JSON text sequence
 * (ctf2-metadata.c, whose opening comment says what is read and how).
 * It builds the model (ctf-model.h) and nothing else: it knows no
 * decode plan and no data stream.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

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

/* a field-class-alias fragment */
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

/* ---- ctf2-json.c ---- */

/*
 * Fills the error with "path:line:col: fragment N: JSON-PATH: " and the
 * message (line:col: the fragment's first byte); returns @code.
 */
int ht__c2_fail(struct c2 *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Appends ".@key" or "[@i]" to the JSON path of messages; returns the
 * length to give ht__c2_path_pop() to take it back. */
size_t ht__c2_path_key(struct c2 *c, const char *key);
size_t ht__c2_path_index(struct c2 *c, size_t i);
void ht__c2_path_pop(struct c2 *c, size_t old);

/* What @v is, for a message ("an integer", "a string"...). */
const char *ht__c2_kind(json_object *v);

/* Member @key of object @o, or NULL when absent. */
json_object *ht__c2_member(json_object *o, const char *key);

/* An error at member @key (NULL: at @v itself) unless @v is of @type
 * (@what names it for the message). */
int ht__c2_need_type(struct c2 *c, json_object *v, const char *key,
		     json_type type, const char *what);

/* @v (member @key, for messages) as a uint64_t, an int64_t. */
int ht__c2_uint(struct c2 *c, json_object *v, const char *key, uint64_t *out);
int ht__c2_int(struct c2 *c, json_object *v, const char *key, int64_t *out);

/* Member @key of @o as an unsigned integer: @def when absent (opt),
 * an error when absent (req). */
int ht__c2_opt_uint(struct c2 *c, json_object *o, const char *key, uint64_t def,
		    uint64_t *out);
int ht__c2_req_uint(struct c2 *c, json_object *o, const char *key,
		    uint64_t *out);

/* Member @key of @o as a string: NULL when absent (opt), an error when
 * absent (req). */
int ht__c2_opt_str(struct c2 *c, json_object *o, const char *key,
		   const char **out);
int ht__c2_req_str(struct c2 *c, json_object *o, const char *key,
		   const char **out);

/* A copy of @s in the trace's arena (NULL: out of memory). */
char *ht__c2_strdup(struct c2 *c, const char *s);

/* ---- ctf2-field-class.c ---- */

/*
 * The field class of scope @key of fragment @o (a structure) into
 * *@out, NULL when absent; integers with a clock role map to
 * c->clock. Returns 0 or a negative HT_E... code with the message.
 */
int ht__c2_scope_field_class(struct c2 *c, json_object *o, const char *key,
			     const struct ht_ctf_type **out);

#endif
