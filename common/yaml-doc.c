/* SPDX-License-Identifier: MIT */
/* A libyaml document turned into a mutable tree of located nodes. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "error.h"
#include "yaml-doc.h"

/*
 * Aliases are expanded into copies: a document that refers to its own
 * ancestors, or that multiplies nodes through nested aliases, must not
 * exhaust the stack or the memory (HT_YDOC_MAX_DEPTH, HT_YDOC_MAX_NODES).
 */
struct convert {
	yaml_document_t *doc;
	const char *file;
	size_t nr_nodes;
	int err;
	struct ht_src_loc err_loc; /* where the limit was passed */
};

struct ht_ynode *ht_ynode_new(enum ht_ynode_kind kind,
			      const struct ht_src_loc *loc)
{
	struct ht_ynode *node = calloc(1, sizeof(*node));

	if (!node) {
		return NULL;
	}
	node->kind = kind;
	node->loc = *loc;
	return node;
}

struct ht_ynode *ht_ynode_new_scalar(const char *str,
				     const struct ht_src_loc *loc)
{
	struct ht_ynode *node = ht_ynode_new(HT_YNODE_SCALAR, loc);

	if (!node) {
		return NULL;
	}
	node->str = strdup(str);
	if (!node->str) {
		free(node);
		return NULL;
	}
	return node;
}

void ht_ynode_destroy(struct ht_ynode *node)
{
	size_t i;

	if (!node) {
		return;
	}
	for (i = 0; i < node->nr; i++) {
		if (node->keys) {
			ht_ynode_destroy(node->keys[i]);
		}
		ht_ynode_destroy(node->items[i]);
	}
	free(node->keys);
	free(node->items);
	free(node->tag);
	free(node->str);
	free(node);
}

int ht_ynode_append(struct ht_ynode *node, struct ht_ynode *key,
		    struct ht_ynode *item)
{
	if (node->nr == node->cap) {
		size_t cap = node->cap ? node->cap * 2 : 4;
		struct ht_ynode **items, **keys;

		items = realloc(node->items, cap * sizeof(*items));
		if (!items) {
			return HT_ENOMEM;
		}
		node->items = items;
		if (node->kind == HT_YNODE_MAP) {
			keys = realloc(node->keys, cap * sizeof(*keys));
			if (!keys) {
				return HT_ENOMEM;
			}
			node->keys = keys;
		}
		node->cap = cap;
	}
	if (node->kind == HT_YNODE_MAP) {
		node->keys[node->nr] = key;
	}
	node->items[node->nr++] = item;
	return 0;
}

struct ht_ynode *ht_ynode_copy(const struct ht_ynode *node)
{
	struct ht_ynode *copy;
	size_t i;

	copy = ht_ynode_new(node->kind, &node->loc);
	if (!copy) {
		return NULL;
	}
	copy->quoted = node->quoted;
	if (node->tag && !(copy->tag = strdup(node->tag))) {
		goto destroy_copy;
	}
	if (node->str && !(copy->str = strdup(node->str))) {
		goto destroy_copy;
	}
	for (i = 0; i < node->nr; i++) {
		struct ht_ynode *key = NULL, *item;

		if (node->kind == HT_YNODE_MAP) {
			key = ht_ynode_copy(node->keys[i]);
			if (!key) {
				goto destroy_copy;
			}
		}
		item = ht_ynode_copy(node->items[i]);
		if (!item || ht_ynode_append(copy, key, item)) {
			ht_ynode_destroy(key);
			ht_ynode_destroy(item);
			goto destroy_copy;
		}
	}
	return copy;

destroy_copy:
	ht_ynode_destroy(copy);
	return NULL;
}

long ht_ynode_find(const struct ht_ynode *map, const char *key)
{
	size_t i;

	if (!map || map->kind != HT_YNODE_MAP) {
		return -1;
	}
	for (i = 0; i < map->nr; i++) {
		const struct ht_ynode *k = map->keys[i];

		if (k->kind == HT_YNODE_SCALAR && !strcmp(k->str, key)) {
			return (long)i;
		}
	}
	return -1;
}

struct ht_ynode *ht_ynode_get(const struct ht_ynode *map, const char *key)
{
	long i = ht_ynode_find(map, key);

	return i < 0 ? NULL : map->items[i];
}

void ht_ynode_remove(struct ht_ynode *node, size_t i)
{
	if (node->keys) {
		ht_ynode_destroy(node->keys[i]);
		memmove(&node->keys[i], &node->keys[i + 1],
			(node->nr - i - 1) * sizeof(*node->keys));
	}
	ht_ynode_destroy(node->items[i]);
	memmove(&node->items[i], &node->items[i + 1],
		(node->nr - i - 1) * sizeof(*node->items));
	node->nr--;
}

void ht_ynode_replace(struct ht_ynode *node, size_t i, struct ht_ynode *item)
{
	ht_ynode_destroy(node->items[i]);
	node->items[i] = item;
}

static bool str_in(const char *s, const char *const *set)
{
	for (; *set; set++) {
		if (!strcmp(s, *set)) {
			return true;
		}
	}
	return false;
}

static const char *const null_words[] = {"", "~", "null", "Null", "NULL", NULL};
static const char *const true_words[] = {"true", "True", "TRUE", "yes", "Yes",
					 "YES",	 "on",	 "On",	 "ON",	NULL};
static const char *const false_words[] = {
    "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", NULL};

/*
 * Parses an integer under YAML 1.1's rules. Returns false when s is no
 * integer; sets *overflow when it is one but does not fit 64 bits.
 */
static bool parse_int(const char *s, bool *neg, uint64_t *mag, bool *overflow)
{
	unsigned base = 10;
	uint64_t v = 0;
	bool digits = false;

	*neg = false;
	*overflow = false;
	if (*s == '-' || *s == '+') {
		*neg = *s == '-';
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
		base = 8;
		s += 2;
	} else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		base = 2;
		s += 2;
	} else if (s[0] == '0' && s[1]) {
		base = 8;
		s++;
	}
	for (; *s; s++) {
		unsigned d;

		if (*s == '_') {
			continue;
		}
		if (isdigit((unsigned char)*s)) {
			d = (unsigned)(*s - '0');
		} else if (isxdigit((unsigned char)*s)) {
			d = (unsigned)(tolower((unsigned char)*s) - 'a' + 10);
		} else {
			return false;
		}
		if (d >= base) {
			return false;
		}
		if (v > (UINT64_MAX - d) / base) {
			*overflow = true;
		}
		v = v * base + d;
		digits = true;
	}
	*mag = v;
	return digits;
}

static bool looks_float(const char *s)
{
	char *end;

	if (!*s || isspace((unsigned char)*s)) {
		return false;
	}
	if (str_in(s, (const char *const[]){".inf", ".Inf", ".INF", "-.inf",
					    "+.inf", ".nan", ".NaN", ".NAN",
					    NULL})) {
		return true;
	}
	if (!strpbrk(s, ".eE")) {
		return false;
	}
	strtod(s, &end);
	return *end == '\0';
}

enum ht_yscalar_type ht_yscalar_type(const struct ht_ynode *node)
{
	bool neg, of;
	uint64_t mag;

	if (node->kind != HT_YNODE_SCALAR || node->quoted) {
		return HT_YSCALAR_STR;
	}
	if (str_in(node->str, null_words)) {
		return HT_YSCALAR_NULL;
	}
	if (str_in(node->str, true_words) || str_in(node->str, false_words)) {
		return HT_YSCALAR_BOOL;
	}
	if (parse_int(node->str, &neg, &mag, &of)) {
		return HT_YSCALAR_INT;
	}
	if (looks_float(node->str)) {
		return HT_YSCALAR_FLOAT;
	}
	return HT_YSCALAR_STR;
}

bool ht_ynode_is_null(const struct ht_ynode *node)
{
	return node->kind == HT_YNODE_SCALAR &&
	       ht_yscalar_type(node) == HT_YSCALAR_NULL;
}

bool ht_ynode_is_str(const struct ht_ynode *node)
{
	return node->kind == HT_YNODE_SCALAR &&
	       ht_yscalar_type(node) == HT_YSCALAR_STR;
}

bool ht_yscalar_bool(const struct ht_ynode *node, bool *value)
{
	if (node->kind != HT_YNODE_SCALAR || node->quoted) {
		return false;
	}
	if (str_in(node->str, true_words)) {
		*value = true;
		return true;
	}
	if (str_in(node->str, false_words)) {
		*value = false;
		return true;
	}
	return false;
}

bool ht_yscalar_int(const struct ht_ynode *node, bool *neg, uint64_t *mag,
		    bool *overflow)
{
	*overflow = false;
	if (node->kind != HT_YNODE_SCALAR || node->quoted) {
		return false;
	}
	if (!parse_int(node->str, neg, mag, overflow)) {
		*overflow = false;
		return false;
	}
	return !*overflow;
}

const char *ht_ynode_describe(const struct ht_ynode *node)
{
	switch (node->kind) {
	case HT_YNODE_MAP:
		return "a mapping";
	case HT_YNODE_SEQ:
		return "a sequence";
	case HT_YNODE_SCALAR:
		break;
	}
	switch (ht_yscalar_type(node)) {
	case HT_YSCALAR_NULL:
		return "null";
	case HT_YSCALAR_BOOL:
		return "a boolean";
	case HT_YSCALAR_INT:
		return "an integer";
	case HT_YSCALAR_FLOAT:
		return "a real number";
	case HT_YSCALAR_STR:
		break;
	}
	return "a string";
}

static bool is_default_tag(const char *tag)
{
	return !strcmp(tag, YAML_DEFAULT_SCALAR_TAG) ||
	       !strcmp(tag, YAML_DEFAULT_SEQUENCE_TAG) ||
	       !strcmp(tag, YAML_DEFAULT_MAPPING_TAG);
}

static struct ht_ynode *convert_node(struct convert *cv, yaml_node_t *yn,
				     unsigned depth)
{
	struct ht_src_loc loc = {
	    .file = cv->file,
	    .line = (unsigned)yn->start_mark.line + 1,
	    .col = (unsigned)yn->start_mark.column + 1,
	};
	struct ht_ynode *node = NULL;
	yaml_node_item_t *it;
	yaml_node_pair_t *pair;

	if (depth > HT_YDOC_MAX_DEPTH || ++cv->nr_nodes > HT_YDOC_MAX_NODES) {
		cv->err = HT_ERANGE;
		cv->err_loc = loc;
		return NULL;
	}
	switch (yn->type) {
	case YAML_SCALAR_NODE:
		/* Nodes hold C strings: a NUL would cut the value short. */
		if (memchr(yn->data.scalar.value, '\0',
			   yn->data.scalar.length)) {
			cv->err = HT_EFORMAT;
			cv->err_loc = loc;
			return NULL;
		}
		node = ht_ynode_new(HT_YNODE_SCALAR, &loc);
		if (!node) {
			goto nomem;
		}
		node->str = malloc(yn->data.scalar.length + 1);
		if (!node->str) {
			goto nomem;
		}
		memcpy(node->str, yn->data.scalar.value,
		       yn->data.scalar.length);
		node->str[yn->data.scalar.length] = '\0';
		node->quoted = yn->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
		break;
	case YAML_SEQUENCE_NODE:
		node = ht_ynode_new(HT_YNODE_SEQ, &loc);
		if (!node) {
			goto nomem;
		}
		for (it = yn->data.sequence.items.start;
		     it < yn->data.sequence.items.top; it++) {
			struct ht_ynode *item = convert_node(
			    cv, yaml_document_get_node(cv->doc, *it),
			    depth + 1);

			if (!item) {
				goto fail;
			}
			if (ht_ynode_append(node, NULL, item)) {
				ht_ynode_destroy(item);
				goto nomem;
			}
		}
		break;
	case YAML_MAPPING_NODE:
		node = ht_ynode_new(HT_YNODE_MAP, &loc);
		if (!node) {
			goto nomem;
		}
		for (pair = yn->data.mapping.pairs.start;
		     pair < yn->data.mapping.pairs.top; pair++) {
			struct ht_ynode *key, *value;

			key = convert_node(
			    cv, yaml_document_get_node(cv->doc, pair->key),
			    depth + 1);
			if (!key) {
				goto fail;
			}
			value = convert_node(
			    cv, yaml_document_get_node(cv->doc, pair->value),
			    depth + 1);
			if (!value) {
				ht_ynode_destroy(key);
				goto fail;
			}
			if (ht_ynode_append(node, key, value)) {
				ht_ynode_destroy(key);
				ht_ynode_destroy(value);
				goto nomem;
			}
		}
		break;
	default:
		cv->err = HT_EUNSUPPORTED;
		return NULL;
	}
	if (yn->tag && !is_default_tag((const char *)yn->tag)) {
		node->tag = strdup((const char *)yn->tag);
		if (!node->tag) {
			goto nomem;
		}
	}
	return node;

nomem:
	cv->err = HT_ENOMEM;
fail:
	ht_ynode_destroy(node);
	return NULL;
}

static void set_parser_error(const yaml_parser_t *parser, char *msg,
			     size_t msg_size, unsigned *line, unsigned *col)
{
	const char *problem = parser->problem ? parser->problem : "error";

	if (parser->error == YAML_MEMORY_ERROR) {
		problem = "out of memory";
	}
	*line = (unsigned)parser->problem_mark.line + 1;
	*col = (unsigned)parser->problem_mark.column + 1;
	if (parser->context) {
		snprintf(msg, msg_size,
			 "invalid YAML: %s (%s at line %u, column %u)", problem,
			 parser->context,
			 (unsigned)parser->context_mark.line + 1,
			 (unsigned)parser->context_mark.column + 1);
	} else {
		snprintf(msg, msg_size, "invalid YAML: %s", problem);
	}
}

/*
 * Reads the whole text as events, stopping at the first collection
 * nested deeper than HT_YDOC_MAX_DEPTH. libyaml's scanner does work
 * proportional to the flow nesting for every token, and its composer
 * keeps a stack entry per level: a text of a few hundred kilobytes of
 * `[[[[...` would cost minutes, or block `- - - ...` hundreds of
 * megabytes, before the tree could be checked. Stopped at the limit,
 * this pass is linear in the size of the text. Returns 0, HT_ESYNTAX
 * (msg, line and col filled) or HT_ENOMEM.
 */
static int check_depth(const unsigned char *text, size_t size, char *msg,
		       size_t msg_size, unsigned *line, unsigned *col)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	yaml_event_type_t type;
	unsigned depth = 0;
	int ret = 0;

	if (!yaml_parser_initialize(&parser)) {
		return HT_ENOMEM;
	}
	yaml_parser_set_input_string(&parser, text, size);
	do {
		if (!yaml_parser_parse(&parser, &ev)) {
			set_parser_error(&parser, msg, msg_size, line, col);
			ret = parser.error == YAML_MEMORY_ERROR ? HT_ENOMEM
								: HT_ESYNTAX;
			break;
		}
		type = ev.type;
		if (type == YAML_SEQUENCE_START_EVENT ||
		    type == YAML_MAPPING_START_EVENT) {
			if (++depth > HT_YDOC_MAX_DEPTH) {
				*line = (unsigned)ev.start_mark.line + 1;
				*col = (unsigned)ev.start_mark.column + 1;
				snprintf(msg, msg_size,
					 "invalid YAML: collections nested "
					 "more than %d deep",
					 HT_YDOC_MAX_DEPTH);
				ret = HT_ESYNTAX;
			}
		} else if (type == YAML_SEQUENCE_END_EVENT ||
			   type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		yaml_event_delete(&ev);
	} while (!ret && type != YAML_STREAM_END_EVENT);
	yaml_parser_delete(&parser);
	return ret;
}

int ht_ydoc_parse(const char *file, const unsigned char *text, size_t size,
		  struct ht_ynode **root, char *msg, size_t msg_size,
		  unsigned *line, unsigned *col)
{
	struct convert cv = {.file = file};
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	yaml_node_t *yroot;
	int ret;

	*root = NULL;
	ret = check_depth(text, size, msg, msg_size, line, col);
	if (ret) {
		return ret;
	}
	if (!yaml_parser_initialize(&parser)) {
		return HT_ENOMEM;
	}
	yaml_parser_set_input_string(&parser, text, size);
	if (!yaml_parser_load(&parser, &doc)) {
		set_parser_error(&parser, msg, msg_size, line, col);
		ret =
		    parser.error == YAML_MEMORY_ERROR ? HT_ENOMEM : HT_ESYNTAX;
		goto delete_parser;
	}
	yroot = yaml_document_get_root_node(&doc);
	if (!yroot) {
		struct ht_src_loc loc = {file, 1, 1};

		*root = ht_ynode_new_scalar("", &loc);
		ret = *root ? 0 : HT_ENOMEM;
		goto delete_doc;
	}
	cv.doc = &doc;
	*root = convert_node(&cv, yroot, 0);
	if (!*root) {
		ret = cv.err;
		if (ret == HT_ERANGE) {
			*line = cv.err_loc.line;
			*col = cv.err_loc.col;
			if (cv.nr_nodes > HT_YDOC_MAX_NODES) {
				snprintf(msg, msg_size,
					 "invalid YAML: more than %d nodes "
					 "once aliases are expanded",
					 HT_YDOC_MAX_NODES);
			} else {
				snprintf(msg, msg_size,
					 "invalid YAML: nested more than %d "
					 "deep once aliases are expanded",
					 HT_YDOC_MAX_DEPTH);
			}
			ret = HT_ESYNTAX;
		} else if (ret == HT_EFORMAT) {
			*line = cv.err_loc.line;
			*col = cv.err_loc.col;
			snprintf(msg, msg_size,
				 "invalid YAML: a NUL character in a scalar");
			ret = HT_ESYNTAX;
		}
		goto delete_doc;
	}

	/* barectf reads one document per file; a second one is an error. */
	if (!yaml_parser_load(&parser, &extra)) {
		set_parser_error(&parser, msg, msg_size, line, col);
		ret = HT_ESYNTAX;
		goto destroy_root;
	}
	yroot = yaml_document_get_root_node(&extra);
	if (yroot) {
		*line = (unsigned)yroot->start_mark.line + 1;
		*col = (unsigned)yroot->start_mark.column + 1;
		snprintf(msg, msg_size,
			 "invalid YAML: expected a single document, found a "
			 "second one");
		ret = HT_ESYNTAX;
	}
	yaml_document_delete(&extra);
	if (ret) {
		goto destroy_root;
	}
	goto delete_doc;

destroy_root:
	ht_ynode_destroy(*root);
	*root = NULL;
delete_doc:
	yaml_document_delete(&doc);
delete_parser:
	yaml_parser_delete(&parser);
	return ret;
}
