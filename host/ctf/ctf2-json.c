/* SPDX-License-Identifier: MIT */
/*
 * The JSON side of the CTF 2 metadata reader (ctf2-metadata.h): typed
 * reads of json-c values that fail with a message naming the JSON path,
 * and that path.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ctf2-metadata.h"
#include "common/error.h"

int ht__c2_fail(struct c2 *c, int code, const char *fmt, ...)
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

size_t ht__c2_path_key(struct c2 *c, const char *key)
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

size_t ht__c2_path_index(struct c2 *c, size_t i)
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

void ht__c2_path_pop(struct c2 *c, size_t old)
{
	c->jlen = old;
	c->jpath[old] = '\0';
}

/* ---- JSON values ---- */

const char *ht__c2_kind(json_object *v)
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
json_object *ht__c2_member(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v)) {
		return NULL;
	}
	return v;
}

int ht__c2_need_type(struct c2 *c, json_object *v, const char *key,
		     json_type type, const char *what)
{
	size_t old;
	int ret;

	if (json_object_is_type(v, type)) {
		return 0;
	}
	old = key ? ht__c2_path_key(c, key) : c->jlen;
	ret = ht__c2_fail(c, HT_ESYNTAX, "expected %s, found %s", what,
			  ht__c2_kind(v));
	ht__c2_path_pop(c, old);
	return ret;
}

/* @v as an unsigned integer (a uint64_t). */
int ht__c2_uint(struct c2 *c, json_object *v, const char *key, uint64_t *out)
{
	int ret =
	    ht__c2_need_type(c, v, key, json_type_int, "an unsigned integer");

	if (ret) {
		return ret;
	}
	if (json_object_get_int64(v) < 0) {
		size_t old = key ? ht__c2_path_key(c, key) : c->jlen;

		ret = ht__c2_fail(c, HT_ERANGE,
				  "expected an unsigned integer, "
				  "found a negative one");
		ht__c2_path_pop(c, old);
		return ret;
	}
	*out = json_object_get_uint64(v);
	return 0;
}

/* @v as a signed integer (an int64_t). */
int ht__c2_int(struct c2 *c, json_object *v, const char *key, int64_t *out)
{
	int ret = ht__c2_need_type(c, v, key, json_type_int, "an integer");

	if (ret) {
		return ret;
	}
	*out = json_object_get_int64(v);
	if (*out == INT64_MAX && json_object_get_uint64(v) > INT64_MAX) {
		size_t old = key ? ht__c2_path_key(c, key) : c->jlen;

		ret =
		    ht__c2_fail(c, HT_ERANGE, "integer out of the int64 range");
		ht__c2_path_pop(c, old);
		return ret;
	}
	return 0;
}

/* Optional unsigned member @key of @o (@def when absent). */
int ht__c2_opt_uint(struct c2 *c, json_object *o, const char *key, uint64_t def,
		    uint64_t *out)
{
	json_object *v = ht__c2_member(o, key);

	*out = def;
	return v ? ht__c2_uint(c, v, key, out) : 0;
}

int ht__c2_req_uint(struct c2 *c, json_object *o, const char *key,
		    uint64_t *out)
{
	json_object *v = ht__c2_member(o, key);

	if (!v) {
		return ht__c2_fail(c, HT_ESYNTAX, "missing property '%s'", key);
	}
	return ht__c2_uint(c, v, key, out);
}

/* Optional string member @key of @o (NULL when absent). */
int ht__c2_opt_str(struct c2 *c, json_object *o, const char *key,
		   const char **out)
{
	json_object *v = ht__c2_member(o, key);

	*out = NULL;
	if (!v) {
		return 0;
	}
	if (ht__c2_need_type(c, v, key, json_type_string, "a string")) {
		return HT_ESYNTAX;
	}
	*out = json_object_get_string(v);
	return 0;
}

int ht__c2_req_str(struct c2 *c, json_object *o, const char *key,
		   const char **out)
{
	int ret = ht__c2_opt_str(c, o, key, out);

	if (!ret && !*out) {
		ret = ht__c2_fail(c, HT_ESYNTAX, "missing property '%s'", key);
	}
	return ret;
}

char *ht__c2_strdup(struct c2 *c, const char *s)
{
	return ht__arena_strdup(c->a, s);
}
