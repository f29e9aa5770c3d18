/* SPDX-License-Identifier: MIT */
/*
 * barectf 3 configuration loader.
 *
 * The stages follow barectf's own (the same input gives the same
 * effective configuration):
 *   1. parse the main file into a located node tree;
 *   2. process `$include` (trace, trace type, clock type, data stream
 *      type and event record type objects), merging as barectf does;
 *   3. expand field type aliases and apply `$inherit`;
 *   4. replace log level aliases;
 *   5. check every property and build the model.
 * Every stage reports every problem it finds and carries on, so one run
 * lists all the errors of a configuration; a configuration with an
 * error yields no model.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config-load.h"
#include "common/embedded.h"
#include "common/error.h"
#include "model-priv.h"
#include "common/yaml-doc.h"

#define CONFIG_TAG "tag:barectf.org,2020/3/config"
#define STD_INCLUDE_PREFIX "include/3/"
#define MAX_INCLUDE_DEPTH 64
#define MAX_ALIAS_DEPTH 128
#define MAX_EXPANDED_NODES 1000000

/* Marks a node whose problem was already reported. */
#define ERROR_TAG "!hetrace-error"

enum level {
	LEVEL_TRACE,
	LEVEL_TRACE_TYPE,
	LEVEL_CLOCK,
	LEVEL_DST,
	LEVEL_ERT,
};

struct include_frame {
	char *id;   /* real path, or the embedded name */
	char *name; /* as shown in messages */
};

/* Where a message points, to list messages in file order. */
struct diag_key {
	size_t file; /* index in the config's file list */
	unsigned line, col;
	size_t seq;
	char *msg;
};

struct loader {
	struct ht_diags *diags;
	struct diag_key *diag_keys; /* parallel to diags->msgs */
	struct ht_config *cfg;
	const char *const *inc_dirs;
	size_t nr_inc_dirs;
	int fatal; /* HT_ENOMEM and the like: stop */

	struct include_frame stack[MAX_INCLUDE_DEPTH];
	size_t depth;

	/* Content hash of every file read, for `uuid: auto`. */
	uint64_t hash[2];

	/* Field type aliases: the trace type's map and per-alias state. */
	struct ht_ynode *aliases;
	unsigned char *alias_state; /* 0 new, 1 resolving, 2 done, 3 bad */
	size_t resolving[MAX_ALIAS_DEPTH]; /* aliases being resolved */
	size_t nr_resolving;
	size_t nr_expanded; /* nodes copied from aliases so far */
	bool uuid_auto;

	bool barectf_header; /* options: hetrace: event-header: barectf */
};

/* ------------------------------------------------------------------ */
/* Messages                                                            */

void ht_diags_fini(struct ht_diags *diags)
{
	size_t i;

	for (i = 0; i < diags->nr; i++) {
		free(diags->msgs[i]);
	}
	free(diags->msgs);
	diags->msgs = NULL;
	diags->nr = 0;
}

__attribute__((format(printf, 3, 4))) static void
diag(struct loader *ld, const struct ht_src_loc *loc, const char *fmt, ...)
{
	char text[1024], *msg, **msgs;
	const char *file;
	struct diag_key *keys;
	va_list ap;
	size_t i;
	int n;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	file = loc->file ? loc->file : "?";
	n = snprintf(NULL, 0, "%s:%u:%u: %s", file, loc->line, loc->col, text);
	msg = malloc((size_t)n + 1);
	if (!msg) {
		ld->fatal = HT_ENOMEM;
		return;
	}
	snprintf(msg, (size_t)n + 1, "%s:%u:%u: %s", file, loc->line, loc->col,
		 text);

	/* An alias used in many places reports its problems once. */
	for (i = 0; i < ld->diags->nr; i++) {
		if (!strcmp(ld->diags->msgs[i], msg)) {
			free(msg);
			return;
		}
	}
	msgs = realloc(ld->diags->msgs, (ld->diags->nr + 1) * sizeof(*msgs));
	if (!msgs) {
		free(msg);
		ld->fatal = HT_ENOMEM;
		return;
	}
	ld->diags->msgs = msgs;
	keys = realloc(ld->diag_keys, (ld->diags->nr + 1) * sizeof(*keys));
	if (!keys) {
		free(msg);
		ld->fatal = HT_ENOMEM;
		return;
	}
	ld->diag_keys = keys;
	keys[ld->diags->nr].file = SIZE_MAX;
	for (i = 0; i < ld->cfg->nr_files; i++) {
		if (ld->cfg->files[i] == loc->file) {
			keys[ld->diags->nr].file = i;
			break;
		}
	}
	keys[ld->diags->nr].line = loc->line;
	keys[ld->diags->nr].col = loc->col;
	keys[ld->diags->nr].seq = ld->diags->nr;
	keys[ld->diags->nr].msg = msg;
	msgs[ld->diags->nr++] = msg;
}

static int cmp_diag(const void *a, const void *b)
{
	const struct diag_key *x = a, *y = b;

	if (x->file != y->file) {
		return x->file < y->file ? -1 : 1;
	}
	if (x->line != y->line) {
		return x->line < y->line ? -1 : 1;
	}
	if (x->col != y->col) {
		return x->col < y->col ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Messages in the order of the files read, then of their positions. */
static void sort_diags(struct loader *ld)
{
	size_t i;

	if (!ld->diag_keys) {
		return;
	}
	qsort(ld->diag_keys, ld->diags->nr, sizeof(*ld->diag_keys), cmp_diag);
	for (i = 0; i < ld->diags->nr; i++) {
		ld->diags->msgs[i] = ld->diag_keys[i].msg;
	}
	free(ld->diag_keys);
	ld->diag_keys = NULL;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[128], prev, tmp;

	if (lb >= sizeof(row) / sizeof(row[0]) || la >= 128) {
		return SIZE_MAX;
	}
	for (j = 0; j <= lb; j++) {
		row[j] = j;
	}
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			tmp = row[j];
			if (row[j] + 1 < best) {
				best = row[j] + 1;
			}
			if (row[j - 1] + 1 < best) {
				best = row[j - 1] + 1;
			}
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

/* The candidate closest to word when it is close enough, or NULL. */
static const char *closest(const char *word, const char *const *cands,
			   size_t nr)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX, i, len = strlen(word);

	for (i = 0; i < nr; i++) {
		size_t d = edit_distance(word, cands[i]);

		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	if (best && (best_d <= 2 || best_d * 3 <= len) && best_d < len) {
		return best;
	}
	return NULL;
}

static void suggestion(char *buf, size_t size, const char *word,
		       const char *const *cands, size_t nr)
{
	const char *c = closest(word, cands, nr);

	if (c) {
		snprintf(buf, size, " (did you mean `%s`?)", c);
	} else {
		buf[0] = '\0';
	}
}

/* "a string (`abc`)", "an integer (`65`)", "a mapping", ... */
static const char *got(const struct ht_ynode *node, char *buf, size_t size)
{
	const char *what = ht_ynode_describe(node);

	if (node->kind != HT_YNODE_SCALAR ||
	    ht_yscalar_type(node) == HT_YSCALAR_NULL) {
		return what;
	}
	if (strlen(node->str) > 40) {
		snprintf(buf, size, "%s (`%.37s...`)", what, node->str);
	} else {
		snprintf(buf, size, "%s (`%s`)", what, node->str);
	}
	return buf;
}

static void expect_fail(struct loader *ld, const struct ht_ynode *node,
			const char *key, const char *what)
{
	char buf[96];

	if (node->tag && !strcmp(node->tag, ERROR_TAG)) {
		return;
	}
	if (key) {
		diag(ld, &node->loc, "`%s`: expected %s, got %s", key, what,
		     got(node, buf, sizeof(buf)));
	} else {
		diag(ld, &node->loc, "expected %s, got %s", what,
		     got(node, buf, sizeof(buf)));
	}
}

/* ------------------------------------------------------------------ */
/* Small property readers                                              */

static bool is_absent(const struct ht_ynode *v)
{
	return !v || ht_ynode_is_null(v);
}

/*
 * Checks that every key of map is one of keys[]; reports unknown keys
 * (with the closest valid key) and duplicate keys.
 */
static void check_keys(struct loader *ld, const struct ht_ynode *map,
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
			diag(ld, &k->loc, "expected a string key in %s, got %s",
			     what, ht_ynode_describe(k));
			continue;
		}
		for (j = 0; j < i; j++) {
			if (map->keys[j]->kind == HT_YNODE_SCALAR &&
			    !strcmp(map->keys[j]->str, k->str)) {
				diag(ld, &k->loc, "duplicate key `%s` in %s",
				     k->str, what);
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
			suggestion(sugg, sizeof(sugg), k->str, keys, nr_keys);
			diag(ld, &k->loc, "unknown key `%s` in %s%s", k->str,
			     what, sugg);
		}
	}
}

/* Reports duplicate names in a mapping of named objects. */
static void check_dup_names(struct loader *ld, const struct ht_ynode *map,
			    const char *what)
{
	size_t i, j;

	for (i = 0; i < map->nr; i++) {
		if (map->keys[i]->kind != HT_YNODE_SCALAR) {
			diag(ld, &map->keys[i]->loc,
			     "expected a %s name, got %s", what,
			     ht_ynode_describe(map->keys[i]));
			continue;
		}
		for (j = 0; j < i; j++) {
			if (map->keys[j]->kind == HT_YNODE_SCALAR &&
			    !strcmp(map->keys[j]->str, map->keys[i]->str)) {
				diag(ld, &map->keys[i]->loc,
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
static const struct ht_ynode *get_named_map(struct loader *ld,
					    const struct ht_ynode *parent,
					    const char *key, const char *where,
					    const char *item)
{
	const struct ht_ynode *v = ht_ynode_get(parent, key);
	char what[160];

	if (!v) {
		diag(ld, &parent->loc, "missing `%s` in %s", key, where);
		return NULL;
	}
	if (v->kind == HT_YNODE_MAP && v->nr == 0) {
		diag(ld, &v->loc, "`%s`: expected at least one %s", key, item);
		return NULL;
	}
	if (v->kind != HT_YNODE_MAP) {
		snprintf(what, sizeof(what),
			 "a non-empty mapping of %s names to %ss", item, item);
		expect_fail(ld, v, key, what);
		return NULL;
	}
	check_dup_names(ld, v, item);
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
static bool check_iden(struct loader *ld, const struct ht_ynode *node,
		       const char *what)
{
	size_t i;

	if (!is_iden_syntax(node->str)) {
		diag(ld, &node->loc,
		     "invalid %s `%s`: expected an identifier (letters, digits "
		     "and `_`, not starting with a digit)",
		     what, node->str);
		return false;
	}
	for (i = 0; tsdl_keywords[i]; i++) {
		if (!strcmp(node->str, tsdl_keywords[i])) {
			diag(ld, &node->loc,
			     "invalid %s `%s`: a reserved TSDL keyword", what,
			     node->str);
			return false;
		}
	}
	return true;
}

static bool get_bool(struct loader *ld, const struct ht_ynode *map,
		     const char *key, bool *out, bool nullable)
{
	const struct ht_ynode *v = ht_ynode_get(map, key);

	if (!v || (nullable && ht_ynode_is_null(v))) {
		return true;
	}
	if (!ht_yscalar_bool(v, out)) {
		expect_fail(ld, v, key, "a boolean (`true` or `false`)");
		return false;
	}
	return true;
}

/* Reads an integer in [min, max] (non-negative). */
static bool want_uint(struct loader *ld, const struct ht_ynode *v,
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
			diag(ld, &v->loc, "`%s`: expected %s, got %s", key,
			     what, v->str);
		} else {
			expect_fail(ld, v, key, what);
		}
		return false;
	}
	*out = mag;
	return true;
}

static bool get_uint(struct loader *ld, const struct ht_ynode *map,
		     const char *key, uint64_t min, uint64_t max, uint64_t *out)
{
	const struct ht_ynode *v = ht_ynode_get(map, key);

	if (is_absent(v)) {
		return true;
	}
	return want_uint(ld, v, key, min, max, out);
}

/* A string property (NULL stays NULL when absent or null). */
static bool get_str(struct loader *ld, const struct ht_ynode *map,
		    const char *key, const char **out)
{
	const struct ht_ynode *v = ht_ynode_get(map, key);

	if (is_absent(v)) {
		return true;
	}
	if (v->kind != HT_YNODE_SCALAR ||
	    ht_yscalar_type(v) != HT_YSCALAR_STR) {
		expect_fail(ld, v, key, "a string");
		return false;
	}
	*out = v->str;
	return true;
}

/* A mapping property: NULL when absent or null (reported when wrong). */
static const struct ht_ynode *get_map(struct loader *ld,
				      const struct ht_ynode *map,
				      const char *key, const char *what)
{
	const struct ht_ynode *v = ht_ynode_get(map, key);

	if (is_absent(v)) {
		return NULL;
	}
	if (v->kind != HT_YNODE_MAP) {
		expect_fail(ld, v, key, what);
		return NULL;
	}
	return v;
}

/* Like get_map(), for properties barectf's schema does not let be null. */
static const struct ht_ynode *get_map_strict(struct loader *ld,
					     const struct ht_ynode *map,
					     const char *key, const char *what)
{
	const struct ht_ynode *v = ht_ynode_get(map, key);

	if (!v) {
		return NULL;
	}
	if (v->kind != HT_YNODE_MAP) {
		expect_fail(ld, v, key, what);
		return NULL;
	}
	return v;
}

static char *xstrdup(struct loader *ld, const char *s)
{
	char *d = strdup(s);

	if (!d) {
		ld->fatal = HT_ENOMEM;
	}
	return d;
}

static bool parse_byte_order(const char *s, enum ht_byte_order *bo)
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

static bool parse_uuid(const char *s, uint8_t uuid[16])
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

/* ------------------------------------------------------------------ */
/* Files and `$include`                                                */

static void hash_bytes(struct loader *ld, const unsigned char *p, size_t n)
{
	size_t i;

	/* Two FNV-1a streams, the second over a different basis. */
	for (i = 0; i < n; i++) {
		ld->hash[0] = (ld->hash[0] ^ p[i]) * 0x100000001b3ULL;
		ld->hash[1] = (ld->hash[1] ^ p[i]) * 0x100000001b3ULL;
	}
	ld->hash[1] ^= n;
}

static const char *add_file(struct loader *ld, const char *name)
{
	struct ht_config *cfg = ld->cfg;
	char **files, *copy;

	copy = xstrdup(ld, name);
	if (!copy) {
		return NULL;
	}
	files = realloc(cfg->files, (cfg->nr_files + 1) * sizeof(*files));
	if (!files) {
		free(copy);
		ld->fatal = HT_ENOMEM;
		return NULL;
	}
	cfg->files = files;
	files[cfg->nr_files++] = copy;
	return copy;
}

static int read_whole_file(const char *path, unsigned char **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL, *nbuf;
	size_t len = 0, cap = 0, n;
	int ret = 0;

	if (!f) {
		return errno == ENOENT ? HT_ENOENT : HT_EIO;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				ret = HT_ENOMEM;
				goto free_buf;
			}
			buf = nbuf;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			break;
		}
	}
	if (ferror(f)) {
		ret = HT_EIO;
		goto free_buf;
	}
	*data = buf;
	*size = len;
	fclose(f);
	return 0;

free_buf:
	free(buf);
	fclose(f);
	return ret;
}

/*
 * Parses one file's text into a tree. Reports YAML errors at their
 * position. Returns NULL on failure.
 */
static struct ht_ynode *parse_text(struct loader *ld, const char *name,
				   const unsigned char *text, size_t size)
{
	struct ht_ynode *root = NULL;
	char msg[512];
	unsigned line = 1, col = 1;
	int ret;

	hash_bytes(ld, text, size);
	ret = ht_ydoc_parse(name, text, size, &root, msg, sizeof(msg), &line,
			    &col);
	if (ret == HT_ESYNTAX) {
		struct ht_src_loc loc = {name, line, col};

		diag(ld, &loc, "%s", msg);
		return NULL;
	}
	if (ret) {
		ld->fatal = ret;
		return NULL;
	}
	return root;
}

static char *join_path(const char *dir, const char *name)
{
	size_t n;
	char *p;

	if (name[0] == '/' || !dir || !strcmp(dir, ".")) {
		return strdup(name);
	}
	n = strlen(dir) + strlen(name) + 2;
	p = malloc(n);
	if (p) {
		snprintf(p, n, "%s%s%s", dir,
			 dir[strlen(dir) - 1] == '/' ? "" : "/", name);
	}
	return p;
}

static char *dir_of(const char *path)
{
	char *copy = strdup(path), *d;

	if (!copy) {
		return NULL;
	}
	d = strdup(dirname(copy));
	free(copy);
	return d;
}

static bool is_regular_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Finds, loads and parses the file an `$include` item names, pushing it
 * on the include stack. Returns NULL (reported) when it cannot.
 */
static struct ht_ynode *load_include(struct loader *ld,
				     const struct ht_ynode *item)
{
	const struct ht_embedded_file *emb = NULL;
	char *found = NULL, *id = NULL, *dir, chain[1024];
	const char *name;
	struct ht_ynode *root = NULL;
	unsigned char *text = NULL;
	size_t size = 0, i, j, len;
	int ret;

	if (item->kind != HT_YNODE_SCALAR ||
	    ht_yscalar_type(item) != HT_YSCALAR_STR || !item->str[0]) {
		expect_fail(ld, item, "$include", "a file name");
		return NULL;
	}

	/* The including file's directory, the -I directories, then ours. */
	dir = dir_of(item->loc.file);
	if (!dir) {
		ld->fatal = HT_ENOMEM;
		return NULL;
	}
	found = join_path(dir, item->str);
	free(dir);
	if (!found) {
		ld->fatal = HT_ENOMEM;
		return NULL;
	}
	if (!is_regular_file(found)) {
		free(found);
		found = NULL;
		for (i = 0; i < ld->nr_inc_dirs && !found; i++) {
			found = join_path(ld->inc_dirs[i], item->str);
			if (!found) {
				ld->fatal = HT_ENOMEM;
				return NULL;
			}
			if (!is_regular_file(found)) {
				free(found);
				found = NULL;
			}
		}
	}
	/* barectf also looks in the current directory, after -I. */
	if (!found && is_regular_file(item->str)) {
		found = strdup(item->str);
		if (!found) {
			ld->fatal = HT_ENOMEM;
			return NULL;
		}
	}
	if (found) {
		id = realpath(found, NULL);
		if (!id) {
			id = strdup(found);
		}
	} else if (!strchr(item->str, '/')) {
		char emb_name[256];

		snprintf(emb_name, sizeof(emb_name), STD_INCLUDE_PREFIX "%s",
			 item->str);
		emb = ht_embedded_find(emb_name);
		if (emb) {
			found = strdup(emb_name);
			id = strdup(emb_name);
		}
	}
	if (!found) {
		diag(ld, &item->loc,
		     "cannot find `$include` file `%s` (looked in the "
		     "including file's directory, the -I directories, the "
		     "current directory and hetrace's standard includes)",
		     item->str);
		return NULL;
	}
	if (!id) {
		ld->fatal = HT_ENOMEM;
		goto free_found;
	}

	for (i = 0; i < ld->depth; i++) {
		if (strcmp(ld->stack[i].id, id)) {
			continue;
		}
		len = 0;
		chain[0] = '\0';
		for (j = i; j < ld->depth; j++) {
			len += (size_t)snprintf(
			    chain + len,
			    len < sizeof(chain) ? sizeof(chain) - len : 0,
			    "`%s` -> ", ld->stack[j].name);
			if (len >= sizeof(chain)) {
				len = sizeof(chain) - 1;
			}
		}
		diag(ld, &item->loc, "cyclic `$include`: %s`%s`", chain, found);
		goto free_id;
	}
	if (ld->depth == MAX_INCLUDE_DEPTH) {
		diag(ld, &item->loc, "`$include` nested too deeply");
		goto free_id;
	}

	name = add_file(ld, found);
	if (!name) {
		goto free_id;
	}
	if (emb) {
		root = parse_text(ld, name, emb->data, emb->size);
	} else {
		ret = read_whole_file(found, &text, &size);
		if (ret) {
			diag(ld, &item->loc,
			     "cannot read `$include` file `%s`: %s", found,
			     ht_strerror(ret));
			goto free_id;
		}
		root = parse_text(ld, name, text, size);
		free(text);
	}
	if (!root) {
		goto free_id;
	}
	if (root->kind != HT_YNODE_MAP) {
		diag(
		    ld, &root->loc,
		    "expected a mapping at the top of an included file, got %s",
		    ht_ynode_describe(root));
		ht_ynode_destroy(root);
		root = NULL;
		goto free_id;
	}
	ld->stack[ld->depth].id = id;
	ld->stack[ld->depth].name = (char *)name;
	ld->depth++;
	free(found);
	return root;

free_id:
	free(id);
free_found:
	free(found);
	return NULL;
}

static void pop_include(struct loader *ld)
{
	ld->depth--;
	free(ld->stack[ld->depth].id);
}

static int update_node(struct loader *ld, struct ht_ynode *base,
		       const struct ht_ynode *overlay);

/* barectf's `members` merge: same-named members update, others append. */
static int update_members(struct loader *ld, struct ht_ynode *base,
			  const struct ht_ynode *overlay)
{
	size_t i, j;

	for (i = 0; i < overlay->nr; i++) {
		const struct ht_ynode *oi = overlay->items[i];
		struct ht_ynode *copy;
		bool merged = false;

		if (oi->kind == HT_YNODE_MAP && oi->nr == 1 &&
		    oi->keys[0]->kind == HT_YNODE_SCALAR) {
			for (j = 0; j < base->nr; j++) {
				struct ht_ynode *bi = base->items[j];

				if (bi->kind == HT_YNODE_MAP && bi->nr >= 1 &&
				    bi->keys[0]->kind == HT_YNODE_SCALAR &&
				    !strcmp(bi->keys[0]->str,
					    oi->keys[0]->str)) {
					if (update_node(ld, bi, oi)) {
						return HT_ENOMEM;
					}
					merged = true;
					break;
				}
			}
		}
		if (merged) {
			continue;
		}
		copy = ht_ynode_copy(oi);
		if (!copy || ht_ynode_append(base, NULL, copy)) {
			ht_ynode_destroy(copy);
			return HT_ENOMEM;
		}
	}
	return 0;
}

/*
 * Updates base with overlay as barectf does: mappings merge
 * recursively, sequences append (`members` merge by name), anything
 * else is replaced by the overlay's value.
 */
static int update_node(struct loader *ld, struct ht_ynode *base,
		       const struct ht_ynode *overlay)
{
	size_t i;

	for (i = 0; i < overlay->nr; i++) {
		const struct ht_ynode *ok = overlay->keys[i];
		const struct ht_ynode *ov = overlay->items[i];
		long bi = ok->kind == HT_YNODE_SCALAR
			      ? ht_ynode_find(base, ok->str)
			      : -1;
		struct ht_ynode *copy, *kcopy;

		if (bi >= 0) {
			struct ht_ynode *bv = base->items[bi];

			if (ov->kind == HT_YNODE_MAP &&
			    bv->kind == HT_YNODE_MAP) {
				if (update_node(ld, bv, ov)) {
					return HT_ENOMEM;
				}
				continue;
			}
			if (ov->kind == HT_YNODE_SEQ &&
			    bv->kind == HT_YNODE_SEQ) {
				if (!strcmp(ok->str, "members")) {
					if (update_members(ld, bv, ov)) {
						return HT_ENOMEM;
					}
					continue;
				}
				for (size_t j = 0; j < ov->nr; j++) {
					copy = ht_ynode_copy(ov->items[j]);
					if (!copy ||
					    ht_ynode_append(bv, NULL, copy)) {
						ht_ynode_destroy(copy);
						return HT_ENOMEM;
					}
				}
				continue;
			}
			copy = ht_ynode_copy(ov);
			if (!copy) {
				return HT_ENOMEM;
			}
			ht_ynode_replace(base, (size_t)bi, copy);
			continue;
		}
		kcopy = ht_ynode_copy(ok);
		copy = ht_ynode_copy(ov);
		if (!kcopy || !copy || ht_ynode_append(base, kcopy, copy)) {
			ht_ynode_destroy(kcopy);
			ht_ynode_destroy(copy);
			return HT_ENOMEM;
		}
	}
	return 0;
}

static struct ht_ynode *
process_includes(struct loader *ld, struct ht_ynode *node, enum level level);

static void process_children_map(struct loader *ld, struct ht_ynode *parent,
				 const char *key, enum level level)
{
	struct ht_ynode *map = ht_ynode_get(parent, key);
	size_t i;

	if (!map || map->kind != HT_YNODE_MAP) {
		return;
	}
	for (i = 0; i < map->nr && !ld->fatal; i++) {
		map->items[i] = process_includes(ld, map->items[i], level);
	}
}

/*
 * Returns the effective node for node (which it consumes): node's
 * children first, then the files node's `$include` names, in order,
 * each updated by the next, and node's own properties last.
 */
static struct ht_ynode *
process_includes(struct loader *ld, struct ht_ynode *node, enum level level)
{
	struct ht_ynode *inc, *base = NULL;
	long at;
	size_t i, nr_paths;

	if (node->kind != HT_YNODE_MAP) {
		return node;
	}
	switch (level) {
	case LEVEL_TRACE: {
		long t = ht_ynode_find(node, "type");

		if (t >= 0) {
			node->items[t] = process_includes(ld, node->items[t],
							  LEVEL_TRACE_TYPE);
		}
		break;
	}
	case LEVEL_TRACE_TYPE:
		process_children_map(ld, node, "clock-types", LEVEL_CLOCK);
		process_children_map(ld, node, "data-stream-types", LEVEL_DST);
		break;
	case LEVEL_DST:
		process_children_map(ld, node, "event-record-types", LEVEL_ERT);
		break;
	default:
		break;
	}

	at = ht_ynode_find(node, "$include");
	if (at < 0 || ld->fatal) {
		return node;
	}
	inc = node->items[at];
	if (inc->kind == HT_YNODE_SEQ) {
		nr_paths = inc->nr;
		if (nr_paths == 0) {
			expect_fail(ld, inc, "$include",
				    "a file name or a non-empty sequence of "
				    "file names");
		}
	} else if (inc->kind == HT_YNODE_SCALAR &&
		   ht_yscalar_type(inc) == HT_YSCALAR_STR) {
		nr_paths = 1;
	} else {
		expect_fail(ld, inc, "$include",
			    "a file name or a sequence of file names");
		nr_paths = 0;
	}
	for (i = 0; i < nr_paths && !ld->fatal; i++) {
		const struct ht_ynode *item =
		    inc->kind == HT_YNODE_SEQ ? inc->items[i] : inc;
		struct ht_ynode *overlay = load_include(ld, item);

		if (!overlay) {
			continue;
		}
		overlay = process_includes(ld, overlay, level);
		pop_include(ld);
		if (!base) {
			base = overlay;
			continue;
		}
		if (update_node(ld, base, overlay)) {
			ld->fatal = HT_ENOMEM;
		}
		ht_ynode_destroy(overlay);
	}
	ht_ynode_remove(node, (size_t)at);
	if (!base) {
		return node;
	}
	if (update_node(ld, base, node)) {
		ld->fatal = HT_ENOMEM;
	}
	/* The effective object is written where the including one was. */
	base->loc = node->loc;
	ht_ynode_destroy(node);
	return base;
}

/* ------------------------------------------------------------------ */
/* Field type aliases and `$inherit`                                   */

static void mark_error(struct loader *ld, struct ht_ynode *node)
{
	free(node->tag);
	node->tag = xstrdup(ld, ERROR_TAG);
}

static bool is_error(const struct ht_ynode *node)
{
	return node->tag && !strcmp(node->tag, ERROR_TAG);
}

static void resolve_ft(struct loader *ld, struct ht_ynode *parent, size_t i);

static size_t count_nodes(const struct ht_ynode *node)
{
	size_t n = 1, i;

	for (i = 0; i < node->nr; i++) {
		n += count_nodes(node->items[i]) + (node->keys ? 1 : 0);
	}
	return n;
}

static void alias_names(const struct loader *ld, const char **names, size_t *nr)
{
	size_t i;

	*nr = 0;
	for (i = 0; ld->aliases && i < ld->aliases->nr; i++) {
		if (ld->aliases->keys[i]->kind == HT_YNODE_SCALAR) {
			names[(*nr)++] = ld->aliases->keys[i]->str;
		}
	}
}

/*
 * Resolves alias name used at `use`; returns the alias's (expanded)
 * node, or NULL when unknown, cyclic or bad (reported).
 */
static const struct ht_ynode *resolve_alias(struct loader *ld,
					    const struct ht_ynode *use)
{
	long i = ht_ynode_find(ld->aliases, use->str);

	if (i < 0) {
		const char **names;
		char sugg[128] = "";
		size_t nr;

		names = calloc(ld->aliases ? ld->aliases->nr + 1 : 1,
			       sizeof(*names));
		if (names) {
			alias_names(ld, names, &nr);
			suggestion(sugg, sizeof(sugg), use->str, names, nr);
			free(names);
		}
		diag(ld, &use->loc, "unknown field type alias `%s`%s", use->str,
		     sugg);
		return NULL;
	}
	switch (ld->alias_state[i]) {
	case 1: {
		char chain[512];
		size_t len = 0, j, from = 0;

		for (j = 0; j < ld->nr_resolving; j++) {
			if (ld->resolving[j] == (size_t)i) {
				from = j;
			}
		}
		chain[0] = '\0';
		for (j = from; j < ld->nr_resolving && len < sizeof(chain);
		     j++) {
			len += (size_t)snprintf(
			    chain + len, sizeof(chain) - len, "`%s` -> ",
			    ld->aliases->keys[ld->resolving[j]]->str);
		}
		diag(ld, &use->loc, "field type alias cycle: %s`%s`", chain,
		     use->str);
		ld->alias_state[i] = 3;
		return NULL;
	}
	case 2:
		return ld->aliases->items[i];
	case 3:
		return NULL;
	default:
		break;
	}
	if (ld->nr_resolving == MAX_ALIAS_DEPTH) {
		diag(ld, &use->loc, "field type aliases nested too deeply");
		return NULL;
	}
	ld->alias_state[i] = 1;
	ld->resolving[ld->nr_resolving++] = (size_t)i;
	resolve_ft(ld, ld->aliases, (size_t)i);
	ld->nr_resolving--;
	if (ld->alias_state[i] == 1) {
		ld->alias_state[i] = is_error(ld->aliases->items[i]) ? 3 : 2;
	}
	return ld->alias_state[i] == 2 ? ld->aliases->items[i] : NULL;
}

static void resolve_members(struct loader *ld, struct ht_ynode *members)
{
	size_t i;

	if (members->kind != HT_YNODE_SEQ) {
		return;
	}
	for (i = 0; i < members->nr; i++) {
		struct ht_ynode *m = members->items[i], *v;
		long fi;

		if (m->kind != HT_YNODE_MAP || m->nr != 1) {
			continue;
		}
		v = m->items[0];
		if (v->kind == HT_YNODE_SCALAR &&
		    ht_yscalar_type(v) == HT_YSCALAR_STR) {
			/* `- name: alias` is `- name: {field-type: alias}`. */
			struct ht_ynode *wrap, *key;

			wrap = ht_ynode_new(HT_YNODE_MAP, &v->loc);
			key = ht_ynode_new_scalar("field-type", &v->loc);
			if (!wrap || !key || ht_ynode_append(wrap, key, v)) {
				ht_ynode_destroy(wrap);
				ht_ynode_destroy(key);
				ld->fatal = HT_ENOMEM;
				return;
			}
			m->items[0] = wrap;
			v = wrap;
		}
		if (v->kind != HT_YNODE_MAP) {
			continue;
		}
		fi = ht_ynode_find(v, "field-type");
		if (fi >= 0) {
			resolve_ft(ld, v, (size_t)fi);
		}
	}
}

static void apply_inherit(struct loader *ld, struct ht_ynode *parent, size_t i);

/*
 * Expands parent->items[i] as a field type: an alias name becomes a
 * copy of the alias's field type; aliases inside a field type object
 * (element type, members, `$inherit`) are expanded too, then
 * `$inherit` is applied.
 */
static void resolve_ft(struct loader *ld, struct ht_ynode *parent, size_t i)
{
	struct ht_ynode *node = parent->items[i];
	long k;

	if (ld->fatal || is_error(node)) {
		return;
	}
	if (node->kind == HT_YNODE_SCALAR &&
	    ht_yscalar_type(node) == HT_YSCALAR_STR) {
		const struct ht_ynode *target = resolve_alias(ld, node);
		struct ht_ynode *copy;

		if (ld->fatal) {
			return;
		}
		if (!target) {
			mark_error(ld, node);
			return;
		}
		/* Aliases of aliases can multiply nodes: bound the total. */
		ld->nr_expanded += count_nodes(target);
		if (ld->nr_expanded > MAX_EXPANDED_NODES) {
			diag(ld, &node->loc,
			     "field type aliases expand to more than %d nodes",
			     MAX_EXPANDED_NODES);
			ld->fatal = HT_ECONFIG;
			return;
		}
		copy = ht_ynode_copy(target);
		if (!copy) {
			ld->fatal = HT_ENOMEM;
			return;
		}
		/*
		 * Problems with the field type as a whole (not a structure,
		 * not unsigned) point at the use; problems inside it point
		 * into the alias's definition.
		 */
		copy->loc = node->loc;
		ht_ynode_replace(parent, i, copy);
		return;
	}
	if (node->kind != HT_YNODE_MAP) {
		return;
	}
	k = ht_ynode_find(node, "element-field-type");
	if (k >= 0) {
		resolve_ft(ld, node, (size_t)k);
	}
	k = ht_ynode_find(node, "members");
	if (k >= 0) {
		resolve_members(ld, node->items[k]);
	}
	k = ht_ynode_find(node, "$inherit");
	if (k >= 0) {
		struct ht_ynode *v = node->items[k];

		if (ht_ynode_find(node, "class") >= 0) {
			/* barectf: a field type inherits or has a class. */
			diag(ld, &node->keys[ht_ynode_find(node, "class")]->loc,
			     "`class` and `$inherit` exclude each other");
			mark_error(ld, node);
			return;
		}

		if (v->kind != HT_YNODE_SCALAR ||
		    ht_yscalar_type(v) != HT_YSCALAR_STR) {
			expect_fail(ld, v, "$inherit",
				    "a field type alias name");
			mark_error(ld, node);
			return;
		}
		resolve_ft(ld, node, (size_t)k);
		if (is_error(node->items[k])) {
			mark_error(ld, node);
			return;
		}
	}
	apply_inherit(ld, parent, i);
}

/* node = copy of its `$inherit` base, updated with node's properties. */
static void apply_inherit(struct loader *ld, struct ht_ynode *parent, size_t i)
{
	struct ht_ynode *node = parent->items[i], *base;
	long k = ht_ynode_find(node, "$inherit");

	if (k < 0) {
		return;
	}
	base = node->items[k];
	if (base->kind != HT_YNODE_MAP) {
		expect_fail(ld, base, "$inherit",
			    "the name of an alias of a field type object");
		mark_error(ld, node);
		return;
	}
	/* Take the base out of node, then lay node over it. */
	node->items[k] = NULL;
	ht_ynode_remove(node, (size_t)k);
	if (update_node(ld, base, node)) {
		ld->fatal = HT_ENOMEM;
	}
	base->loc = node->loc;
	ht_ynode_replace(parent, i, base);
}

static void resolve_ft_at(struct loader *ld, struct ht_ynode *map,
			  const char *key)
{
	long k;

	if (!map || map->kind != HT_YNODE_MAP) {
		return;
	}
	k = ht_ynode_find(map, key);
	if (k >= 0) {
		resolve_ft(ld, map, (size_t)k);
	}
}

/* The field types of a data stream type's packet `$features`: expanded
 * here (aliases, inheritance), checked as its keys by the validation. */
static const char *const pkt_features_keys[] = {
    "total-size-field-type",
    "content-size-field-type",
    "beginning-timestamp-field-type",
    "end-timestamp-field-type",
    "discarded-event-records-counter-snapshot-field-type",
    "sequence-number-field-type",
    NULL,
};

static void expand_field_types(struct loader *ld, struct ht_ynode *tt)
{
	struct ht_ynode *features, *dsts;
	size_t i, j;
	long k;

	k = ht_ynode_find(tt, "$field-type-aliases");
	if (k >= 0) {
		struct ht_ynode *a = tt->items[k];

		if (a->kind == HT_YNODE_MAP) {
			ld->aliases = a;
			check_dup_names(ld, a, "field type alias");
			for (i = 0; i < a->nr; i++) {
				const struct ht_ynode *v = a->items[i];

				if (v->kind != HT_YNODE_MAP &&
				    !ht_ynode_is_str(v)) {
					expect_fail(ld, v, a->keys[i]->str,
						    "a field type (a mapping "
						    "with `class`, or a field "
						    "type alias name)");
				}
			}
		} else if (!ht_ynode_is_null(a)) {
			expect_fail(ld, a, "$field-type-aliases",
				    "a mapping of alias names to field types");
		}
	}
	ld->alias_state = calloc(ld->aliases ? ld->aliases->nr + 1 : 1, 1);
	if (!ld->alias_state) {
		ld->fatal = HT_ENOMEM;
		return;
	}

	features = ht_ynode_get(tt, "$features");
	resolve_ft_at(ld, features, "magic-field-type");
	resolve_ft_at(ld, features, "uuid-field-type");
	resolve_ft_at(ld, features, "data-stream-type-id-field-type");

	dsts = ht_ynode_get(tt, "data-stream-types");
	if (!dsts || dsts->kind != HT_YNODE_MAP) {
		return;
	}
	for (i = 0; i < dsts->nr && !ld->fatal; i++) {
		struct ht_ynode *dst = dsts->items[i], *erts, *x;

		if (dst->kind != HT_YNODE_MAP) {
			continue;
		}
		features = ht_ynode_get(dst, "$features");
		x = ht_ynode_get(features, "packet");
		for (j = 0; pkt_features_keys[j]; j++) {
			resolve_ft_at(ld, x, pkt_features_keys[j]);
		}
		x = ht_ynode_get(features, "event-record");
		resolve_ft_at(ld, x, "type-id-field-type");
		resolve_ft_at(ld, x, "timestamp-field-type");
		x = ht_ynode_get(dst,
				 "packet-context-field-type-extra-members");
		if (x) {
			resolve_members(ld, x);
		}
		resolve_ft_at(ld, dst,
			      "event-record-common-context-field-type");
		erts = ht_ynode_get(dst, "event-record-types");
		if (!erts || erts->kind != HT_YNODE_MAP) {
			continue;
		}
		for (j = 0; j < erts->nr; j++) {
			resolve_ft_at(ld, erts->items[j],
				      "specific-context-field-type");
			resolve_ft_at(ld, erts->items[j], "payload-field-type");
		}
	}
}

/* Replaces `log-level: NAME` with the alias's value. */
static void sub_log_levels(struct loader *ld, struct ht_ynode *tt)
{
	const struct ht_ynode *aliases =
	    get_map(ld, tt, "$log-level-aliases",
		    "a mapping of log level names to integers");
	struct ht_ynode *dsts = ht_ynode_get(tt, "data-stream-types");
	size_t i, j;
	uint64_t v;

	if (aliases) {
		check_dup_names(ld, aliases, "log level alias");
		for (i = 0; i < aliases->nr; i++) {
			if (!is_absent(aliases->items[i])) {
				want_uint(ld, aliases->items[i],
					  aliases->keys[i]->str, 0, INT64_MAX,
					  &v);
			}
		}
	}
	if (!dsts || dsts->kind != HT_YNODE_MAP) {
		return;
	}
	for (i = 0; i < dsts->nr; i++) {
		struct ht_ynode *erts =
		    ht_ynode_get(dsts->items[i], "event-record-types");

		if (!erts || erts->kind != HT_YNODE_MAP) {
			continue;
		}
		for (j = 0; j < erts->nr; j++) {
			struct ht_ynode *ert = erts->items[j], *copy;
			const struct ht_ynode *target;
			long k = ht_ynode_find(ert, "log-level");

			if (k < 0 || !ht_ynode_is_str(ert->items[k])) {
				continue;
			}
			target = ht_ynode_get(aliases, ert->items[k]->str);
			if (!target) {
				const char *names[256];
				size_t nr = 0, a;
				char sugg[128] = "";

				for (a = 0;
				     aliases && a < aliases->nr && nr < 256;
				     a++) {
					if (aliases->keys[a]->kind ==
					    HT_YNODE_SCALAR) {
						names[nr++] =
						    aliases->keys[a]->str;
					}
				}
				suggestion(sugg, sizeof(sugg),
					   ert->items[k]->str, names, nr);
				diag(ld, &ert->items[k]->loc,
				     "unknown log level alias `%s`%s",
				     ert->items[k]->str, sugg);
				mark_error(ld, ert->items[k]);
				continue;
			}
			copy = ht_ynode_copy(target);
			if (!copy) {
				ld->fatal = HT_ENOMEM;
				return;
			}
			ht_ynode_replace(ert, (size_t)k, copy);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Field types                                                         */

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

	if (is_absent(v)) {
		return true;
	}
	if (!want_uint(ld, v, key, 1, UINT64_MAX, &a)) {
		return false;
	}
	if (a & (a - 1)) {
		diag(ld, &v->loc, "`%s`: expected a power of two, got %s", key,
		     v->str);
		return false;
	}
	if (a > (1u << 30)) {
		diag(ld, &v->loc, "`%s`: alignment %s is too large", key,
		     v->str);
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
			diag(ld, &v->loc,
			     "enumeration value %s is out of range: it does "
			     "not fit %u bits (%s)",
			     v->str, ft->size_bits,
			     is_signed ? "signed" : "unsigned");
		} else {
			expect_fail(ld, v, NULL,
				    "an integer or a [lower, upper] range");
		}
		return false;
	}
	if (!is_signed) {
		umax = ft->size_bits == 64 ? UINT64_MAX
					   : (UINT64_C(1) << ft->size_bits) - 1;
		if ((neg && mag) || mag > umax) {
			diag(ld, &v->loc,
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
		diag(ld, &v->loc,
		     "enumeration value %s is out of range: %u-bit signed "
		     "integers hold %lld to %lld",
		     v->str, ft->size_bits, (long long)smin, (long long)smax);
		return false;
	}
	*s = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return true;
}

static bool parse_mappings(struct loader *ld, struct ht_ft *ft,
			   const struct ht_ynode *node)
{
	const struct ht_ynode *maps = ht_ynode_get(node, "mappings");
	bool ok = true;
	size_t i, j;

	if (!maps) {
		diag(ld, &node->loc,
		     "missing `mappings` in enumeration field type");
		return false;
	}
	if (maps->kind == HT_YNODE_MAP && maps->nr == 0) {
		diag(ld, &maps->loc,
		     "`mappings`: expected at least one mapping");
		return false;
	}
	if (maps->kind != HT_YNODE_MAP) {
		expect_fail(ld, maps, "mappings",
			    "a non-empty mapping of labels to sequences of "
			    "values and ranges");
		return false;
	}
	check_dup_names(ld, maps, "enumeration mapping");
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
			expect_fail(ld, vals, label->str,
				    "a non-empty sequence of values and "
				    "[lower, upper] ranges");
			ok = false;
			continue;
		}
		m->label = xstrdup(ld, label->str);
		m->loc = label->loc;
		m->ranges = calloc(vals->nr, sizeof(*m->ranges));
		ft->nr_mappings++;
		if (!m->label || !m->ranges) {
			ld->fatal = HT_ENOMEM;
			return false;
		}
		for (j = 0; j < vals->nr; j++) {
			const struct ht_ynode *v = vals->items[j];
			struct ht_enum_range *r = &m->ranges[m->nr_ranges];
			bool good;

			if (v->kind == HT_YNODE_SEQ) {
				if (v->nr != 2) {
					expect_fail(ld, v, NULL,
						    "a [lower, upper] range of "
						    "two integers");
					ok = false;
					continue;
				}
				good = enum_value(ld, ft, v->items[0],
						  &r->lower.s, &r->lower.u);
				good = enum_value(ld, ft, v->items[1],
						  &r->upper.s, &r->upper.u) &&
				       good;
				if (good && (ft->kind == HT_FT_SENUM
						 ? r->lower.s > r->upper.s
						 : r->lower.u > r->upper.u)) {
					diag(ld, &v->loc,
					     "enumeration range [%s, %s]: the "
					     "lower bound is greater than the "
					     "upper bound",
					     v->items[0]->str,
					     v->items[1]->str);
					good = false;
				}
			} else {
				good = enum_value(ld, ft, v, &r->lower.s,
						  &r->lower.u);
				r->upper = r->lower;
			}
			if (!good) {
				ok = false;
				continue;
			}
			m->nr_ranges++;
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
		diag(ld, &node->loc, "missing `size` in %s field type",
		     ft->kind == HT_FT_REAL ? "real" : "integer");
		ok = false;
	} else if (ft->kind == HT_FT_REAL) {
		bool neg, of;

		if (!ht_yscalar_int(size, &neg, &bits, &of) || neg ||
		    (bits != 32 && bits != 64)) {
			if (ht_yscalar_type(size) == HT_YSCALAR_INT) {
				diag(ld, &size->loc,
				     "`size`: expected 32 or 64, got %s",
				     size->str);
			} else {
				expect_fail(ld, size, "size", "32 or 64");
			}
			ok = false;
		}
	} else if (!want_uint(ld, size, "size", 1, 64, &bits)) {
		ok = false;
	}
	ft->size_bits = (unsigned)bits;
	ft->align_bits = ft->kind == HT_FT_REAL ? 8 : (bits % 8 == 0 ? 8 : 1);
	ok = get_align(ld, node, "alignment", &ft->align_bits) && ok;
	ft->display_base = 10;
	if (ft->kind == HT_FT_REAL) {
		return ok;
	}
	if (!get_str(ld, node, "preferred-display-base", &base)) {
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
			diag(ld,
			     &ht_ynode_get(node, "preferred-display-base")->loc,
			     "`preferred-display-base`: expected `bin`, `oct`, "
			     "`dec` or `hex` (or `binary`, `octal`, `decimal`, "
			     "`hexadecimal`), got `%s`",
			     base);
			ok = false;
		}
	}
	if (!get_str(ld, node, "byte-order", &bo)) {
		ok = false;
	} else if (bo && !parse_byte_order(bo, &ft->byte_order)) {
		diag(ld, &ht_ynode_get(node, "byte-order")->loc,
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

static bool parse_members(struct loader *ld, struct ht_ft *ft,
			  const struct ht_ynode *members, const char *what)
{
	bool ok = true;
	size_t i, j;

	if (members->kind != HT_YNODE_SEQ) {
		expect_fail(ld, members, what,
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
		char len_name[300];
		bool dup = false;

		if (m->kind != HT_YNODE_MAP || m->nr != 1 ||
		    m->keys[0]->kind != HT_YNODE_SCALAR) {
			expect_fail(ld, m, NULL,
				    "a member (a mapping of one name to its "
				    "field type)");
			ok = false;
			continue;
		}
		name = m->keys[0];
		v = m->items[0];
		if (!check_iden(ld, name, "structure member name")) {
			ok = false;
		}
		for (j = 0; j < ft->nr_members; j++) {
			if (!strcmp(ft->members[j].name, name->str)) {
				diag(ld, &name->loc, "duplicate member `%s`",
				     name->str);
				dup = true;
				break;
			}
		}
		if (v->kind != HT_YNODE_MAP) {
			if (!is_error(v)) {
				expect_fail(ld, v, name->str,
					    "a field type alias name or a "
					    "mapping with `field-type`");
			}
			ok = false;
			continue;
		}
		check_keys(ld, v, (const char *const[]){"field-type", NULL},
			   "structure member");
		fnode = ht_ynode_get(v, "field-type");
		if (!fnode) {
			diag(ld, &v->loc, "missing `field-type` in member `%s`",
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
		/* A dynamic array's length member is named after it. */
		if (mft->kind == HT_FT_DYNAMIC_ARRAY) {
			snprintf(len_name, sizeof(len_name), "__%s_len",
				 name->str);
			for (j = 0; j < members->nr; j++) {
				const struct ht_ynode *o = members->items[j];

				if (o->kind == HT_YNODE_MAP && o->nr == 1 &&
				    o->keys[0]->kind == HT_YNODE_SCALAR &&
				    !strcmp(o->keys[0]->str, len_name)) {
					diag(ld, &o->keys[0]->loc,
					     "member `%s` clashes with the "
					     "length member of dynamic array "
					     "`%s`",
					     len_name, name->str);
					ok = false;
				}
			}
		}
		sm = &ft->members[ft->nr_members++];
		sm->ft = mft;
		sm->loc = name->loc;
		sm->name = xstrdup(ld, name->str);
		if (!sm->name) {
			return false;
		}
	}
	return ok;
}

/*
 * Builds a field type from an expanded field type node; reports every
 * problem and returns NULL when there is one.
 */
static struct ht_ft *parse_ft(struct loader *ld, const struct ht_ynode *node,
			      const char *key)
{
	const struct ht_ynode *cls, *x;
	const char *const *keys = NULL;
	struct ht_ft *ft;
	char sugg[128];
	bool ok = true;
	size_t i;

	if (is_error(node)) {
		return NULL;
	}
	if (node->kind != HT_YNODE_MAP) {
		expect_fail(ld, node, key,
			    "a field type (a mapping with `class`, or a field "
			    "type alias name)");
		return NULL;
	}
	cls = ht_ynode_get(node, "class");
	if (!cls) {
		diag(ld, &node->loc, "missing `class` in field type");
		return NULL;
	}
	if (!ht_ynode_is_str(cls)) {
		expect_fail(ld, cls, "class", "a field type class name");
		return NULL;
	}
	for (i = 0; class_names[i]; i++) {
		if (!strcmp(cls->str, class_names[i])) {
			break;
		}
	}
	if (!class_names[i]) {
		suggestion(sugg, sizeof(sugg), cls->str, class_names,
			   sizeof(class_kinds) / sizeof(class_kinds[0]));
		diag(ld, &cls->loc, "unknown field type class `%s`%s", cls->str,
		     sugg);
		return NULL;
	}
	ft = calloc(1, sizeof(*ft));
	if (!ft) {
		ld->fatal = HT_ENOMEM;
		return NULL;
	}
	ft->kind = class_kinds[i];
	ft->loc = node->loc;

	switch (ft->kind) {
	case HT_FT_UINT:
	case HT_FT_SINT:
		keys = int_keys;
		break;
	case HT_FT_UENUM:
	case HT_FT_SENUM:
		keys = enum_keys;
		break;
	case HT_FT_REAL:
		keys = real_keys;
		break;
	case HT_FT_STRING:
		keys = string_keys;
		break;
	case HT_FT_STATIC_ARRAY:
		keys = sarray_keys;
		break;
	case HT_FT_DYNAMIC_ARRAY:
		keys = darray_keys;
		break;
	case HT_FT_STRUCT:
		keys = struct_keys;
		break;
	}
	{
		char what[64];

		snprintf(what, sizeof(what), "`%s` field type", cls->str);
		check_keys(ld, node, keys, what);
	}

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
		if (ft->kind == HT_FT_STATIC_ARRAY) {
			x = ht_ynode_get(node, "length");
			if (!x) {
				diag(ld, &node->loc,
				     "missing `length` in static array field "
				     "type");
				ok = false;
			} else if (!want_uint(ld, x, "length", 0, UINT32_MAX,
					      &ft->length)) {
				ok = false;
			}
		}
		x = ht_ynode_get(node, "element-field-type");
		if (!x) {
			diag(
			    ld, &node->loc,
			    "missing `element-field-type` in array field type");
			ok = false;
			break;
		}
		ft->elem = parse_ft(ld, x, "element-field-type");
		if (!ft->elem) {
			ok = false;
			break;
		}
		if (ft->elem->kind == HT_FT_DYNAMIC_ARRAY) {
			diag(ld, &x->loc,
			     "`element-field-type`: arrays of dynamic arrays "
			     "are not supported");
			ok = false;
		} else if (ft->kind == HT_FT_DYNAMIC_ARRAY &&
			   ft->elem->kind == HT_FT_STRUCT) {
			diag(ld, &x->loc,
			     "`element-field-type`: dynamic arrays of "
			     "structures are not supported (static arrays of "
			     "structures are)");
			ok = false;
		}
		ft->align_bits = ht_ft_align(ft->elem);
		break;
	case HT_FT_STRUCT:
		ft->align_bits = 1;
		ok = get_align(ld, node, "minimum-alignment", &ft->align_bits);
		x = ht_ynode_get(node, "members");
		if (!is_absent(x)) {
			ok = parse_members(ld, ft, x, "members") && ok;
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
static bool get_struct_ft(struct loader *ld, const struct ht_ynode *map,
			  const char *key, struct ht_ft **out)
{
	const struct ht_ynode *v = ht_ynode_get(map, key);
	struct ht_ft *ft;

	*out = NULL;
	if (is_absent(v)) {
		return true;
	}
	ft = parse_ft(ld, v, key);
	if (!ft) {
		return false;
	}
	if (ft->kind != HT_FT_STRUCT) {
		diag(ld, &v->loc,
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

enum feature_rule {
	FEATURE_UINT,	      /* an unsigned integer (or enum) field type */
	FEATURE_UINT_NOFALSE, /* the same, but `false` is not allowed */
	FEATURE_MAGIC,	      /* 32-bit unsigned integer */
	FEATURE_UUID,	      /* static array of 16 uint8 */
};

static bool is_uint_kind(const struct ht_ft *ft)
{
	return ft->kind == HT_FT_UINT || ft->kind == HT_FT_UENUM;
}

static bool get_feature(struct loader *ld, const struct ht_ynode *map,
			const char *key, struct ht_feature *f, bool def,
			enum feature_rule rule)
{
	const struct ht_ynode *v = ht_ynode_get(map, key);
	bool b;

	f->enabled = def;
	f->ft = NULL;
	if (is_absent(v)) {
		return true;
	}
	f->loc = v->loc;
	if (ht_yscalar_bool(v, &b)) {
		if (!b && rule == FEATURE_UINT_NOFALSE) {
			diag(ld, &v->loc,
			     "`%s`: this feature cannot be disabled (expected "
			     "`true`, null or an unsigned integer field type)",
			     key);
			return false;
		}
		f->enabled = b;
		return true;
	}
	if (v->kind != HT_YNODE_MAP) {
		expect_fail(
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
			diag(ld, &v->loc,
			     "`%s`: expected a static array of 16 8-bit, "
			     "byte-aligned unsigned integers",
			     key);
			return false;
		}
		return true;
	case FEATURE_MAGIC:
		if (!is_uint_kind(f->ft) || f->ft->size_bits != 32) {
			diag(ld, &v->loc,
			     "`%s`: expected a 32-bit unsigned integer field "
			     "type",
			     key);
			return false;
		}
		return true;
	default:
		if (!is_uint_kind(f->ft)) {
			diag(ld, &v->loc,
			     "`%s`: expected an unsigned integer field type",
			     key);
			return false;
		}
		return true;
	}
}

/* ------------------------------------------------------------------ */
/* Configuration objects                                               */

static const char *const root_keys[] = {"options", "trace", NULL};
static const char *const options_keys[] = {"code-generation", "hetrace", NULL};
static const char *const codegen_keys[] = {"prefix", "header", NULL};
static const char *const prefix_keys[] = {"identifier", "file-name", NULL};
static const char *const header_keys[] = {
    "identifier-prefix-definition", "default-data-stream-type-name-definition",
    NULL};
static const char *const hetrace_keys[] = {"event-header", "core-id", NULL};
static const char *const trace_keys[] = {"type", "environment", NULL};
static const char *const tt_keys[] = {
    "native-byte-order",  "uuid",
    "$features",	  "clock-types",
    "data-stream-types",  "$field-type-aliases",
    "$log-level-aliases", NULL,
};
static const char *const tt_features_keys[] = {
    "magic-field-type", "uuid-field-type", "data-stream-type-id-field-type",
    NULL};
static const char *const clock_keys[] = {
    "uuid",   "description",	      "frequency", "precision",
    "offset", "origin-is-unix-epoch", "$c-type",   NULL,
};
static const char *const offset_keys[] = {"seconds", "cycles", NULL};
static const char *const dst_keys[] = {
    "$is-default",
    "$default-clock-type-name",
    "$features",
    "packet-context-field-type-extra-members",
    "event-record-common-context-field-type",
    "event-record-types",
    NULL,
};
static const char *const dst_features_keys[] = {"packet", "event-record", NULL};
/* pkt_features_keys: above expand_field_types(), which uses it too */
static const char *const er_features_keys[] = {"type-id-field-type",
					       "timestamp-field-type", NULL};
static const char *const ert_keys[] = {
    "log-level", "specific-context-field-type", "payload-field-type", NULL};

static const char *const reserved_pkt_ctx_names[] = {
    "packet_size",	"content_size",	  "timestamp_begin", "timestamp_end",
    "events_discarded", "packet_seq_num", "core_id",	     NULL,
};

static void load_options(struct loader *ld, const struct ht_ynode *root)
{
	struct ht_config *cfg = ld->cfg;
	const struct ht_ynode *opts, *cg, *prefix, *hdr, *ht, *v;
	const char *s = NULL;

	opts = get_map_strict(ld, root, "options", "a mapping");
	if (!opts) {
		return;
	}
	check_keys(ld, opts, options_keys, "`options`");
	cg = get_map_strict(ld, opts, "code-generation", "a mapping");
	if (cg) {
		check_keys(ld, cg, codegen_keys, "`code-generation` options");
		prefix = ht_ynode_get(cg, "prefix");
		if (!prefix) {
			/* barectf's defaults stay */
		} else if (ht_ynode_is_str(prefix)) {
			if (check_iden(ld, prefix, "prefix")) {
				size_t n = strlen(prefix->str) + 2;

				free(cfg->prefix_ident);
				free(cfg->prefix_file);
				cfg->prefix_ident = malloc(n);
				cfg->prefix_file = xstrdup(ld, prefix->str);
				if (!cfg->prefix_ident) {
					ld->fatal = HT_ENOMEM;
					return;
				}
				snprintf(cfg->prefix_ident, n, "%s_",
					 prefix->str);
			}
		} else if (prefix->kind == HT_YNODE_MAP) {
			const char *ident = NULL, *file = NULL;

			check_keys(ld, prefix, prefix_keys, "`prefix`");
			v = ht_ynode_get(prefix, "identifier");
			if (!v) {
				diag(ld, &prefix->loc,
				     "missing `identifier` in `prefix`");
			} else if (!ht_ynode_is_str(v)) {
				expect_fail(ld, v, "identifier", "a string");
			} else if (check_iden(ld, v, "identifier prefix")) {
				ident = v->str;
			}
			v = ht_ynode_get(prefix, "file-name");
			if (!v) {
				diag(ld, &prefix->loc,
				     "missing `file-name` in `prefix`");
			} else if (!ht_ynode_is_str(v)) {
				expect_fail(ld, v, "file-name", "a string");
			} else {
				file = v->str;
			}
			if (ident && file) {
				free(cfg->prefix_ident);
				free(cfg->prefix_file);
				cfg->prefix_ident = xstrdup(ld, ident);
				cfg->prefix_file = xstrdup(ld, file);
			}
		} else {
			expect_fail(ld, prefix, "prefix",
				    "a string or a mapping with `identifier` "
				    "and `file-name`");
		}
		hdr = get_map_strict(ld, cg, "header", "a mapping");
		if (hdr) {
			check_keys(ld, hdr, header_keys, "`header` options");
			get_bool(ld, hdr, "identifier-prefix-definition",
				 &cfg->header_ident_prefix_def, false);
			get_bool(ld, hdr,
				 "default-data-stream-type-name-definition",
				 &cfg->header_default_dst_def, false);
		}
	}
	ht = get_map_strict(ld, opts, "hetrace", "a mapping");
	if (ht) {
		check_keys(ld, ht, hetrace_keys, "`hetrace` options");
		if (get_str(ld, ht, "event-header", &s) && s) {
			if (!strcmp(s, "barectf")) {
				ld->barectf_header = true;
			} else if (strcmp(s, "compact")) {
				diag(ld, &ht_ynode_get(ht, "event-header")->loc,
				     "`event-header`: expected `compact` or "
				     "`barectf`, got `%s`",
				     s);
			}
		}
		{
			bool core_id = true;

			get_bool(ld, ht, "core-id", &core_id, false);
			cfg->no_core_id = !core_id;
		}
	}
}

static int cmp_clock(const void *a, const void *b)
{
	return strcmp(((const struct ht_clock_type *)a)->name,
		      ((const struct ht_clock_type *)b)->name);
}

static void load_clock(struct loader *ld, const struct ht_ynode *name,
		       const struct ht_ynode *node, struct ht_clock_type *ct)
{
	const struct ht_ynode *off;
	const char *s = NULL;
	uint64_t u;

	ct->name = xstrdup(ld, name->str);
	ct->loc = name->loc;
	ct->freq_hz = 1000000000;
	ct->c_type = xstrdup(ld, "uint32_t");
	check_iden(ld, name, "clock type name");
	if (node->kind != HT_YNODE_MAP) {
		expect_fail(ld, node, name->str, "a clock type (a mapping)");
		return;
	}
	check_keys(ld, node, clock_keys, "clock type");
	if (get_str(ld, node, "uuid", &s) && s) {
		if (!parse_uuid(s, ct->uuid)) {
			diag(ld, &ht_ynode_get(node, "uuid")->loc,
			     "`uuid`: expected a UUID "
			     "(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, lowercase "
			     "hexadecimal digits), got `%s`",
			     s);
		} else {
			ct->has_uuid = true;
		}
	}
	s = NULL;
	if (get_str(ld, node, "description", &s) && s) {
		ct->description = xstrdup(ld, s);
	}
	get_uint(ld, node, "frequency", 1, UINT64_MAX, &ct->freq_hz);
	get_uint(ld, node, "precision", 0, UINT64_MAX, &ct->precision);
	off = get_map(ld, node, "offset",
		      "a mapping with `seconds` and `cycles`");
	if (off) {
		check_keys(ld, off, offset_keys, "clock type offset");
		u = 0;
		if (get_uint(ld, off, "seconds", 0, INT64_MAX, &u)) {
			ct->offset_seconds = (int64_t)u;
		}
		get_uint(ld, off, "cycles", 0, UINT64_MAX, &ct->offset_cycles);
	}
	/* barectf 3.1 writes `absolute = false` unless told otherwise. */
	ct->origin_is_unix_epoch = false;
	get_bool(ld, node, "origin-is-unix-epoch", &ct->origin_is_unix_epoch,
		 true);
	s = NULL;
	if (get_str(ld, node, "$c-type", &s) && s) {
		free(ct->c_type);
		ct->c_type = xstrdup(ld, s);
	}
}

static int cmp_event(const void *a, const void *b)
{
	return strcmp(((const struct ht_event_type *)a)->name,
		      ((const struct ht_event_type *)b)->name);
}

/* The number of members a structure field type node lists. */
static size_t nr_members_node(const struct ht_ynode *ert, const char *key)
{
	const struct ht_ynode *ft = ht_ynode_get(ert, key);
	const struct ht_ynode *m = ht_ynode_get(ft, "members");

	return m && m->kind == HT_YNODE_SEQ ? m->nr : 0;
}

static void load_ert(struct loader *ld, const struct ht_ynode *name,
		     const struct ht_ynode *node, struct ht_event_type *et)
{
	const struct ht_ynode *ll;
	uint64_t u;

	et->name = xstrdup(ld, name->str);
	et->loc = name->loc;
	check_iden(ld, name, "event record type name");
	if (node->kind != HT_YNODE_MAP) {
		expect_fail(ld, node, name->str,
			    "an event record type (a mapping)");
		return;
	}
	check_keys(ld, node, ert_keys, "event record type");
	ll = ht_ynode_get(node, "log-level");
	if (!is_absent(ll) && !is_error(ll)) {
		if (want_uint(ld, ll, "log-level", 0, INT64_MAX, &u)) {
			et->has_log_level = true;
			et->log_level = (int64_t)u;
		}
	}
	get_struct_ft(ld, node, "specific-context-field-type", &et->spec_ctx);
	get_struct_ft(ld, node, "payload-field-type", &et->payload);
}

static struct ht_clock_type *find_clock(struct ht_config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->nr_clocks; i++) {
		if (!strcmp(cfg->clocks[i].name, name)) {
			return &cfg->clocks[i];
		}
	}
	return NULL;
}

static void load_dst(struct loader *ld, const struct ht_ynode *name,
		     const struct ht_ynode *node, struct ht_stream_type *st)
{
	struct ht_config *cfg = ld->cfg;
	const struct ht_ynode *v, *features, *pkt = NULL, *er = NULL, *erts;
	size_t i, j, base_members;
	bool has_clock;

	st->name = xstrdup(ld, name->str);
	st->loc = name->loc;
	check_iden(ld, name, "data stream type name");
	if (node->kind != HT_YNODE_MAP) {
		expect_fail(ld, node, name->str,
			    "a data stream type (a mapping)");
		return;
	}
	check_keys(ld, node, dst_keys, "data stream type");
	get_bool(ld, node, "$is-default", &st->is_default, true);

	v = ht_ynode_get(node, "$default-clock-type-name");
	if (!is_absent(v)) {
		if (!ht_ynode_is_str(v)) {
			expect_fail(ld, v, "$default-clock-type-name",
				    "a clock type name");
		} else if (check_iden(ld, v, "clock type name")) {
			st->default_clock = find_clock(cfg, v->str);
			if (!st->default_clock) {
				const char *names[64];
				char sugg[128];
				size_t nr = 0;

				for (i = 0; i < cfg->nr_clocks && nr < 64;
				     i++) {
					names[nr++] = cfg->clocks[i].name;
				}
				suggestion(sugg, sizeof(sugg), v->str, names,
					   nr);
				diag(ld, &v->loc, "unknown clock type `%s`%s",
				     v->str, sugg);
			}
		}
	}
	has_clock = st->default_clock != NULL;

	features = get_map(ld, node, "$features", "a mapping");
	if (features) {
		check_keys(ld, features, dst_features_keys,
			   "data stream type `$features`");
		pkt = get_map(ld, features, "packet", "a mapping");
		er = get_map(ld, features, "event-record", "a mapping");
		if (pkt) {
			check_keys(ld, pkt, pkt_features_keys,
				   "packet `$features`");
		}
		if (er) {
			check_keys(ld, er, er_features_keys,
				   "event record `$features`");
		}
	}
	get_feature(ld, pkt, "total-size-field-type", &st->pkt_total_size, true,
		    FEATURE_UINT_NOFALSE);
	get_feature(ld, pkt, "content-size-field-type", &st->pkt_content_size,
		    true, FEATURE_UINT_NOFALSE);
	get_feature(ld, pkt, "beginning-timestamp-field-type",
		    &st->pkt_ts_begin, has_clock, FEATURE_UINT);
	get_feature(ld, pkt, "end-timestamp-field-type", &st->pkt_ts_end,
		    has_clock, FEATURE_UINT);
	get_feature(ld, pkt,
		    "discarded-event-records-counter-snapshot-field-type",
		    &st->pkt_discarded, true, FEATURE_UINT);
	/* hetrace: the sequence number is on unless turned off. */
	get_feature(ld, pkt, "sequence-number-field-type", &st->pkt_seq_num,
		    true, FEATURE_UINT);
	get_feature(ld, er, "type-id-field-type", &st->ev_type_id, true,
		    FEATURE_UINT);
	get_feature(ld, er, "timestamp-field-type", &st->ev_timestamp,
		    has_clock, FEATURE_UINT);
	if (!has_clock) {
		struct ht_feature *ts[] = {&st->pkt_ts_begin, &st->pkt_ts_end,
					   &st->ev_timestamp};
		static const char *const names[] = {
		    "beginning-timestamp-field-type",
		    "end-timestamp-field-type", "timestamp-field-type"};

		for (i = 0; i < 3; i++) {
			if (ts[i]->enabled) {
				diag(ld, &ts[i]->loc,
				     "`%s`: a timestamp needs a default clock "
				     "type (`$default-clock-type-name`)",
				     names[i]);
			}
		}
	}
	/*
	 * The compact header holds the id and, with a clock, the
	 * timestamp; a configuration that sets either feature (a field
	 * type or `false`) gets barectf's layout, which honours it.
	 */
	st->compact_header = !ld->barectf_header && !st->ev_type_id.ft &&
			     !st->ev_timestamp.ft && st->ev_type_id.enabled &&
			     st->ev_timestamp.enabled == has_clock;

	v = ht_ynode_get(node, "packet-context-field-type-extra-members");
	if (!is_absent(v)) {
		st->pkt_ctx_extra = calloc(1, sizeof(*st->pkt_ctx_extra));
		if (!st->pkt_ctx_extra) {
			ld->fatal = HT_ENOMEM;
			return;
		}
		st->pkt_ctx_extra->kind = HT_FT_STRUCT;
		st->pkt_ctx_extra->loc = v->loc;
		st->pkt_ctx_extra->align_bits = 1;
		if (!parse_members(ld, st->pkt_ctx_extra, v,
				   "packet-context-field-type-extra-members")) {
			ht__ft_destroy(st->pkt_ctx_extra);
			st->pkt_ctx_extra = NULL;
		} else {
			for (i = 0; i < st->pkt_ctx_extra->nr_members; i++) {
				const struct ht_struct_member *m =
				    &st->pkt_ctx_extra->members[i];

				for (j = 0; reserved_pkt_ctx_names[j]; j++) {
					if (!strcmp(
						m->name,
						reserved_pkt_ctx_names[j])) {
						diag(ld, &m->loc,
						     "packet context member "
						     "name `%s` is reserved",
						     m->name);
					}
				}
			}
		}
	}
	get_struct_ft(ld, node, "event-record-common-context-field-type",
		      &st->ev_common_ctx);

	{
		char where[300];

		snprintf(where, sizeof(where), "data stream type `%s`",
			 name->str);
		erts = get_named_map(ld, node, "event-record-types", where,
				     "event record type");
	}
	if (!erts) {
		return;
	}
	st->events = calloc(erts->nr, sizeof(*st->events));
	if (!st->events) {
		ld->fatal = HT_ENOMEM;
		return;
	}
	base_members =
	    (st->ev_type_id.enabled ? 1 : 0) +
	    (st->ev_timestamp.enabled ? 1 : 0) +
	    nr_members_node(node, "event-record-common-context-field-type");
	for (i = 0; i < erts->nr && !ld->fatal; i++) {
		struct ht_event_type *et = &st->events[st->nr_events];

		if (erts->keys[i]->kind != HT_YNODE_SCALAR) {
			continue;
		}
		st->nr_events++;
		load_ert(ld, erts->keys[i], erts->items[i], et);
		if (erts->items[i]->kind == HT_YNODE_MAP &&
		    base_members +
			    nr_members_node(erts->items[i],
					    "specific-context-field-type") +
			    nr_members_node(erts->items[i],
					    "payload-field-type") ==
			0) {
			diag(ld, &erts->keys[i]->loc,
			     "event record type `%s` is empty (no members)",
			     erts->keys[i]->str);
		}
	}

	/* barectf numbers event record types in name order. */
	qsort(st->events, st->nr_events, sizeof(*st->events), cmp_event);
	for (i = 0; i < st->nr_events; i++) {
		st->events[i].id = i;
	}
	if (!st->ev_type_id.enabled && st->nr_events > 1) {
		diag(ld, &st->ev_type_id.loc,
		     "`type-id-field-type`: the event record type id is "
		     "needed: data stream type `%s` has %zu event record types",
		     st->name, st->nr_events);
	}
	if (st->ev_type_id.ft && st->ev_type_id.ft->size_bits < 64 &&
	    st->nr_events > (UINT64_C(1) << st->ev_type_id.ft->size_bits)) {
		diag(ld, &st->ev_type_id.loc,
		     "`type-id-field-type`: a %u-bit id cannot tell %zu event "
		     "record types apart",
		     st->ev_type_id.ft->size_bits, st->nr_events);
	}
}

static int cmp_stream(const void *a, const void *b)
{
	return strcmp(((const struct ht_stream_type *)a)->name,
		      ((const struct ht_stream_type *)b)->name);
}

static void load_trace_type(struct loader *ld, const struct ht_ynode *tt)
{
	struct ht_config *cfg = ld->cfg;
	const struct ht_ynode *v, *features, *clocks, *dsts;
	const struct ht_ynode *first_default = NULL;
	const char *s = NULL;
	size_t i;

	check_keys(ld, tt, tt_keys, "trace type");
	v = ht_ynode_get(tt, "native-byte-order");
	if (!v) {
		diag(ld, &tt->loc, "missing `native-byte-order` in trace type");
	} else if (!ht_ynode_is_str(v) ||
		   !parse_byte_order(v->str, &cfg->native_bo)) {
		expect_fail(ld, v, "native-byte-order",
			    "`le`, `little`, `little-endian`, `be`, `big` or "
			    "`big-endian`");
	}
	if (get_str(ld, tt, "uuid", &s) && s) {
		if (!strcmp(s, "auto")) {
			/* Filled from the content hash at the end. */
			cfg->has_uuid = true;
			ld->uuid_auto = true;
		} else if (!parse_uuid(s, cfg->uuid)) {
			diag(ld, &ht_ynode_get(tt, "uuid")->loc,
			     "`uuid`: expected `auto` or a UUID "
			     "(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, lowercase "
			     "hexadecimal digits), got `%s`",
			     s);
		} else {
			cfg->has_uuid = true;
		}
	}

	features = get_map(ld, tt, "$features", "a mapping");
	if (features) {
		check_keys(ld, features, tt_features_keys,
			   "trace type `$features`");
	}
	get_feature(ld, features, "magic-field-type", &cfg->magic, true,
		    FEATURE_MAGIC);
	get_feature(ld, features, "uuid-field-type", &cfg->uuid_field,
		    cfg->has_uuid, FEATURE_UUID);
	get_feature(ld, features, "data-stream-type-id-field-type",
		    &cfg->stream_id_field, true, FEATURE_UINT);
	if (cfg->uuid_field.enabled && !cfg->has_uuid) {
		diag(
		    ld, &cfg->uuid_field.loc,
		    "`uuid-field-type`: the trace type has no `uuid` to write");
	}

	clocks = get_map_strict(ld, tt, "clock-types",
				"a mapping of clock type names to clock types");
	if (clocks) {
		check_dup_names(ld, clocks, "clock type");
		cfg->clocks = calloc(clocks->nr + 1, sizeof(*cfg->clocks));
		if (!cfg->clocks) {
			ld->fatal = HT_ENOMEM;
			return;
		}
		for (i = 0; i < clocks->nr && !ld->fatal; i++) {
			if (clocks->keys[i]->kind != HT_YNODE_SCALAR) {
				continue;
			}
			load_clock(ld, clocks->keys[i], clocks->items[i],
				   &cfg->clocks[cfg->nr_clocks++]);
		}
		qsort(cfg->clocks, cfg->nr_clocks, sizeof(*cfg->clocks),
		      cmp_clock);
	}

	dsts = get_named_map(ld, tt, "data-stream-types", "trace type",
			     "data stream type");
	if (!dsts) {
		return;
	}
	cfg->streams = calloc(dsts->nr, sizeof(*cfg->streams));
	if (!cfg->streams) {
		ld->fatal = HT_ENOMEM;
		return;
	}
	for (i = 0; i < dsts->nr && !ld->fatal; i++) {
		struct ht_stream_type *st = &cfg->streams[cfg->nr_streams];

		if (dsts->keys[i]->kind != HT_YNODE_SCALAR) {
			continue;
		}
		cfg->nr_streams++;
		load_dst(ld, dsts->keys[i], dsts->items[i], st);
		if (st->is_default) {
			if (first_default) {
				diag(
				    ld,
				    &ht_ynode_get(dsts->items[i], "$is-default")
					 ->loc,
				    "more than one default data stream type "
				    "(`%s` is already the default)",
				    first_default->str);
			} else {
				first_default = dsts->keys[i];
			}
		}
	}
	qsort(cfg->streams, cfg->nr_streams, sizeof(*cfg->streams), cmp_stream);
	for (i = 0; i < cfg->nr_streams; i++) {
		cfg->streams[i].id = i;
	}
	if (!cfg->stream_id_field.enabled && cfg->nr_streams > 1) {
		diag(ld, &cfg->stream_id_field.loc,
		     "`data-stream-type-id-field-type`: the data stream type "
		     "id is needed: the trace type has %zu data stream types",
		     cfg->nr_streams);
	}
	if (cfg->stream_id_field.ft &&
	    cfg->stream_id_field.ft->size_bits < 64 &&
	    cfg->nr_streams >
		(UINT64_C(1) << cfg->stream_id_field.ft->size_bits)) {
		diag(ld, &cfg->stream_id_field.loc,
		     "`data-stream-type-id-field-type`: a %u-bit id cannot "
		     "tell %zu data stream types apart",
		     cfg->stream_id_field.ft->size_bits, cfg->nr_streams);
	}
}

static void load_env(struct loader *ld, const struct ht_ynode *trace)
{
	struct ht_config *cfg = ld->cfg;
	const struct ht_ynode *env;
	size_t i;

	env = get_map(ld, trace, "environment",
		      "a mapping of names to strings or integers");
	if (!env) {
		return;
	}
	check_dup_names(ld, env, "environment entry");
	cfg->env = calloc(env->nr + 1, sizeof(*cfg->env));
	if (!cfg->env) {
		ld->fatal = HT_ENOMEM;
		return;
	}
	for (i = 0; i < env->nr; i++) {
		const struct ht_ynode *k = env->keys[i], *v = env->items[i];
		struct ht_env_entry *e;
		bool neg, of;
		uint64_t mag;

		if (k->kind != HT_YNODE_SCALAR ||
		    !check_iden(ld, k, "environment entry name")) {
			continue;
		}
		e = &cfg->env[cfg->nr_env];
		if (ht_yscalar_int(v, &neg, &mag, &of) || of) {
			if (of || (!neg && mag > INT64_MAX) ||
			    (neg && mag > (uint64_t)INT64_MAX + 1)) {
				diag(ld, &v->loc,
				     "`%s`: integer %s does not fit 64 bits",
				     k->str, v->str);
				continue;
			}
			e->is_int = true;
			e->i = neg ? (int64_t)(0 - mag) : (int64_t)mag;
		} else if (ht_ynode_is_str(v)) {
			e->s = xstrdup(ld, v->str);
		} else {
			expect_fail(ld, v, k->str, "a string or an integer");
			continue;
		}
		e->key = xstrdup(ld, k->str);
		cfg->nr_env++;
	}
}

/* ------------------------------------------------------------------ */

static struct ht_ynode *load_main(struct loader *ld, const char *path)
{
	struct ht_src_loc loc = {path, 1, 1};
	unsigned char *text;
	struct ht_ynode *root;
	const char *name;
	size_t size;
	int ret;

	name = add_file(ld, path);
	if (!name) {
		return NULL;
	}
	loc.file = name;
	ret = read_whole_file(path, &text, &size);
	if (ret) {
		if (ret == HT_ENOMEM) {
			ld->fatal = ret;
		} else {
			diag(ld, &loc, "cannot read the configuration: %s",
			     ret == HT_ENOENT ? "no such file"
					      : ht_strerror(ret));
		}
		return NULL;
	}
	root = parse_text(ld, name, text, size);
	free(text);
	if (!root) {
		return NULL;
	}
	if (root->kind != HT_YNODE_MAP || !root->tag ||
	    strcmp(root->tag, CONFIG_TAG)) {
		diag(ld, &root->loc,
		     "expected a barectf 3 configuration: a mapping tagged "
		     "`--- !<" CONFIG_TAG ">`");
		ht_ynode_destroy(root);
		return NULL;
	}
	ld->stack[0].id = realpath(path, NULL);
	if (!ld->stack[0].id) {
		ld->stack[0].id = xstrdup(ld, path);
	}
	ld->stack[0].name = (char *)name;
	ld->depth = 1;
	return root;
}

static void finish_uuid(struct loader *ld)
{
	struct ht_config *cfg = ld->cfg;
	size_t i;

	if (!ld->uuid_auto) {
		return;
	}
	/*
	 * `uuid: auto`: barectf draws a random UUID; hetrace derives it
	 * from the content of every file read, so the output stays the
	 * same for the same configuration. RFC 9562 version 8 (custom).
	 */
	for (i = 0; i < 8; i++) {
		cfg->uuid[i] = (uint8_t)(ld->hash[0] >> (56 - 8 * i));
		cfg->uuid[8 + i] = (uint8_t)(ld->hash[1] >> (56 - 8 * i));
	}
	cfg->uuid[6] = (uint8_t)((cfg->uuid[6] & 0x0f) | 0x80);
	cfg->uuid[8] = (uint8_t)((cfg->uuid[8] & 0x3f) | 0x80);
}

int ht_config_load(const char *path, const char *const *include_dirs,
		   size_t nr_include_dirs, struct ht_config **cfgp,
		   struct ht_diags *diags)
{
	struct loader ld = {
	    .diags = diags,
	    .inc_dirs = include_dirs,
	    .nr_inc_dirs = nr_include_dirs,
	    .hash = {0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL},
	};
	struct ht_ynode *root, *trace, *tt;
	struct ht_config *cfg;
	long k;
	int ret;

	*cfgp = NULL;
	diags->msgs = NULL;
	diags->nr = 0;
	cfg = calloc(1, sizeof(*cfg));
	if (!cfg) {
		return HT_ENOMEM;
	}
	ld.cfg = cfg;
	cfg->prefix_ident = strdup("barectf_");
	cfg->prefix_file = strdup("barectf");
	cfg->native_bo = HT_BO_LE;
	if (!cfg->prefix_ident || !cfg->prefix_file) {
		ret = HT_ENOMEM;
		goto destroy_cfg;
	}

	root = load_main(&ld, path);
	if (!root) {
		goto unwind_includes;
	}
	check_keys(&ld, root, root_keys, "configuration");
	load_options(&ld, root);
	k = ht_ynode_find(root, "trace");
	if (k < 0) {
		diag(&ld, &root->loc, "missing `trace` in configuration");
		goto destroy_root;
	}
	root->items[k] = process_includes(&ld, root->items[k], LEVEL_TRACE);
	trace = root->items[k];
	if (ld.fatal) {
		goto destroy_root;
	}
	if (trace->kind != HT_YNODE_MAP) {
		expect_fail(&ld, trace, "trace", "a trace object (a mapping)");
		goto destroy_root;
	}
	check_keys(&ld, trace, trace_keys, "trace");
	tt = ht_ynode_get(trace, "type");
	if (!tt) {
		diag(&ld, &trace->loc, "missing `type` in trace");
	} else if (tt->kind != HT_YNODE_MAP) {
		expect_fail(&ld, tt, "type", "a trace type (a mapping)");
	} else {
		expand_field_types(&ld, tt);
		if (!ld.fatal) {
			sub_log_levels(&ld, tt);
		}
		if (!ld.fatal) {
			load_trace_type(&ld, tt);
		}
	}
	if (!ld.fatal) {
		load_env(&ld, trace);
	}
	if (!ld.fatal && cfg->header_default_dst_def &&
	    !ht_config_default_stream(cfg)) {
		const struct ht_ynode *cg = ht_ynode_get(
		    ht_ynode_get(root, "options"), "code-generation");
		const struct ht_ynode *v =
		    ht_ynode_get(ht_ynode_get(cg, "header"),
				 "default-data-stream-type-name-definition");

		diag(&ld, &v->loc,
		     "`default-data-stream-type-name-definition` needs a "
		     "default data stream type (`$is-default: true`)");
	}
	finish_uuid(&ld);

destroy_root:
	ht_ynode_destroy(root);
unwind_includes:
	while (ld.depth > 0) {
		pop_include(&ld);
	}
	free(ld.alias_state);
	sort_diags(&ld);
	if (ld.fatal) {
		ret = ld.fatal;
		goto destroy_cfg;
	}
	if (diags->nr) {
		ret = HT_ECONFIG;
		goto destroy_cfg;
	}
	*cfgp = cfg;
	return 0;

destroy_cfg:
	ht_config_destroy(cfg);
	return ret;
}
