/* SPDX-License-Identifier: MIT */
/*
 * Property readers: each reads one property of a mapping node (a
 * boolean, an integer in a range, a string, a mapping, an identifier,
 * a byte order, a UUID), checks it against barectf's schema and
 * reports what it rejects; and the checks of a mapping's keys (unknown,
 * duplicate) and of named objects.
 *
 * They check one value at a time; how values relate (a timestamp needs
 * a clock, ids need room) is checked where the model is built.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "config-internal.h"

bool ht__cfg_is_absent(const struct ht_ynode *v)
{
	return !v || ht_ynode_is_null(v);
}

/*
 * Checks that every key of map is one of keys[]; reports unknown keys
 * (with the closest valid key) and duplicate keys.
 */
void ht__cfg_check_keys(struct loader *ld, const struct ht_ynode *map,
			const char *const *keys, const char *what)
{
	size_t i, j, nr_keys = 0;
	char sugg[128];

	while (keys[nr_keys]) {
		nr_keys++;
	}
	for (i = 0; i < map->nr; i++) {
		const struct ht_ynode *k = map->keys[i];
		bool known = false;

		if (k->kind != HT_YNODE_SCALAR) {
			ht__cfg_diag(ld, &k->loc,
				     "expected a string key in %s, got %s",
				     what, ht_ynode_describe(k));
			continue;
		}
		for (j = 0; j < i; j++) {
			if (map->keys[j]->kind == HT_YNODE_SCALAR &&
			    !strcmp(map->keys[j]->str, k->str)) {
				ht__cfg_diag(ld, &k->loc,
					     "duplicate key `%s` in %s", k->str,
					     what);
				break;
			}
		}
		for (j = 0; j < nr_keys; j++) {
			if (!strcmp(keys[j], k->str)) {
				known = true;
				break;
			}
		}
		if (!known) {
			ht__cfg_suggestion(sugg, sizeof(sugg), k->str, keys,
					   nr_keys);
			ht__cfg_diag(ld, &k->loc, "unknown key `%s` in %s%s",
				     k->str, what, sugg);
		}
	}
}

/* Reports duplicate names in a mapping of named objects. */
void ht__cfg_check_dup_names(struct loader *ld, const struct ht_ynode *map,
			     const char *what)
{
	size_t i, j;

	for (i = 0; i < map->nr; i++) {
		if (map->keys[i]->kind != HT_YNODE_SCALAR) {
			ht__cfg_diag(ld, &map->keys[i]->loc,
				     "expected a %s name, got %s", what,
				     ht_ynode_describe(map->keys[i]));
			continue;
		}
		for (j = 0; j < i; j++) {
			if (map->keys[j]->kind == HT_YNODE_SCALAR &&
			    !strcmp(map->keys[j]->str, map->keys[i]->str)) {
				ht__cfg_diag(ld, &map->keys[i]->loc,
					     "duplicate %s `%s`", what,
					     map->keys[i]->str);
				break;
			}
		}
	}
}

/*
 * The non-empty mapping of named objects at `key` of `parent` (event
 * record types, data stream types), every error reported; `where` says
 * what holds it in the "missing" message; `item` names one object.
 */
const struct ht_ynode *ht__cfg_get_named_map(struct loader *ld,
					     const struct ht_ynode *parent,
					     const char *key, const char *where,
					     const char *item)
{
	const struct ht_ynode *v = ht_ynode_get(parent, key);
	char what[160];

	if (!v) {
		ht__cfg_diag(ld, &parent->loc, "missing `%s` in %s", key,
			     where);
		return NULL;
	}
	if (v->kind == HT_YNODE_MAP && v->nr == 0) {
		ht__cfg_diag(ld, &v->loc, "`%s`: expected at least one %s", key,
			     item);
		return NULL;
	}
	if (v->kind != HT_YNODE_MAP) {
		snprintf(what, sizeof(what),
			 "a non-empty mapping of %s names to %ss", item, item);
		ht__cfg_expect_fail(ld, v, key, what);
		return NULL;
	}
	ht__cfg_check_dup_names(ld, v, item);
	return v;
}

static const char *const tsdl_keywords[] = {
    "align",	      "callsite", "clock",   "enum",   "env",	 "event",
    "floating_point", "integer",  "stream",  "string", "struct", "trace",
    "typealias",      "typedef",  "variant", NULL,
};

static bool is_iden_syntax(const char *s)
{
	const char *p;

	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
	      *s == '_')) {
		return false;
	}
	for (p = s + 1; *p; p++) {
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '_')) {
			return false;
		}
	}
	return true;
}

/* barectf's iden-prop rule; reports and returns false when broken. */
bool ht__cfg_check_iden(struct loader *ld, const struct ht_ynode *node,
			const char *what)
{
	size_t i;

	if (!is_iden_syntax(node->str)) {
		ht__cfg_diag(
		    ld, &node->loc,
		    "invalid %s `%s`: expected an identifier (letters, digits "
		    "and `_`, not starting with a digit)",
		    what, node->str);
		return false;
	}
	for (i = 0; tsdl_keywords[i]; i++) {
		if (!strcmp(node->str, tsdl_keywords[i])) {
			ht__cfg_diag(ld, &node->loc,
				     "invalid %s `%s`: a reserved TSDL keyword",
				     what, node->str);
			return false;
		}
	}
	return true;
}

bool ht__cfg_get_bool(struct loader *ld, const struct ht_ynode *map,
		      const char *key, bool *out, bool nullable)
{
	const struct ht_ynode *v = ht_ynode_get(map, key);

	if (!v || (nullable && ht_ynode_is_null(v))) {
		return true;
	}
	if (!ht_yscalar_bool(v, out)) {
		ht__cfg_expect_fail(ld, v, key,
				    "a boolean (`true` or `false`)");
		return false;
	}
	return true;
}

/* Reads an integer in [min, max] (non-negative). */
bool ht__cfg_want_uint(struct loader *ld, const struct ht_ynode *v,
		       const char *key, uint64_t min, uint64_t max,
		       uint64_t *out)
{
	char what[96];
	bool neg, of;
	uint64_t mag;

	if (max >= (uint64_t)INT64_MAX) {
		snprintf(what, sizeof(what),
			 "an integer greater than or equal to %llu",
			 (unsigned long long)min);
	} else {
		snprintf(what, sizeof(what), "an integer between %llu and %llu",
			 (unsigned long long)min, (unsigned long long)max);
	}
	if (!ht_yscalar_int(v, &neg, &mag, &of) || (neg && mag != 0) ||
	    mag < min || mag > max) {
		if (of || ht_yscalar_type(v) == HT_YSCALAR_INT) {
			ht__cfg_diag(ld, &v->loc, "`%s`: expected %s, got %s",
				     key, what, v->str);
		} else {
			ht__cfg_expect_fail(ld, v, key, what);
		}
		return false;
	}
	*out = mag;
	return true;
}

bool ht__cfg_get_uint(struct loader *ld, const struct ht_ynode *map,
		      const char *key, uint64_t min, uint64_t max,
		      uint64_t *out)
{
	const struct ht_ynode *v = ht_ynode_get(map, key);

	if (ht__cfg_is_absent(v)) {
		return true;
	}
	return ht__cfg_want_uint(ld, v, key, min, max, out);
}

/* A string property (NULL stays NULL when absent or null). */
bool ht__cfg_get_str(struct loader *ld, const struct ht_ynode *map,
		     const char *key, const char **out)
{
	const struct ht_ynode *v = ht_ynode_get(map, key);

	if (ht__cfg_is_absent(v)) {
		return true;
	}
	if (v->kind != HT_YNODE_SCALAR ||
	    ht_yscalar_type(v) != HT_YSCALAR_STR) {
		ht__cfg_expect_fail(ld, v, key, "a string");
		return false;
	}
	*out = v->str;
	return true;
}

/*
 * A mapping property: NULL when absent, or null and nullable (barectf's
 * schema lets some properties be null, not others); NULL and reported
 * when it is something else.
 */
const struct ht_ynode *ht__cfg_get_map(struct loader *ld,
				       const struct ht_ynode *map,
				       const char *key, const char *what,
				       bool nullable)
{
	const struct ht_ynode *v = ht_ynode_get(map, key);

	if (!v || (nullable && ht_ynode_is_null(v))) {
		return NULL;
	}
	if (v->kind != HT_YNODE_MAP) {
		ht__cfg_expect_fail(ld, v, key, what);
		return NULL;
	}
	return v;
}

char *ht__cfg_strdup(struct loader *ld, const char *s)
{
	char *d = strdup(s);

	if (!d) {
		ld->fatal = HT_ENOMEM;
	}
	return d;
}

bool ht__cfg_parse_byte_order(const char *s, enum ht_byte_order *bo)
{
	if (!strcmp(s, "le") || !strcmp(s, "little") ||
	    !strcmp(s, "little-endian")) {
		*bo = HT_BO_LE;
		return true;
	}
	if (!strcmp(s, "be") || !strcmp(s, "big") || !strcmp(s, "big-endian")) {
		*bo = HT_BO_BE;
		return true;
	}
	return false;
}

bool ht__cfg_parse_uuid(const char *s, uint8_t uuid[16])
{
	static const int groups[] = {8, 4, 4, 4, 12};
	size_t g, i, n = 0;
	const char *p = s;

	for (g = 0; g < 5; g++) {
		for (i = 0; i < (size_t)groups[g]; i++, p++) {
			unsigned d;

			if (*p >= '0' && *p <= '9') {
				d = (unsigned)(*p - '0');
			} else if (*p >= 'a' && *p <= 'f') {
				d = (unsigned)(*p - 'a' + 10);
			} else {
				return false;
			}
			if (n % 2 == 0) {
				uuid[n / 2] = (uint8_t)(d << 4);
			} else {
				uuid[n / 2] |= (uint8_t)d;
			}
			n++;
		}
		if (g < 4 && *p++ != '-') {
			return false;
		}
	}
	return *p == '\0';
}

void ht__cfg_mark_error(struct loader *ld, struct ht_ynode *node)
{
	free(node->tag);
	node->tag = ht__cfg_strdup(ld, ERROR_TAG);
}

bool ht__cfg_is_error(const struct ht_ynode *node)
{
	return node->tag && !strcmp(node->tag, ERROR_TAG);
}
