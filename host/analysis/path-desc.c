/* SPDX-License-Identifier: MIT */
/*
 * The path description loader: YAML (common/yaml-doc.h's located node
 * tree) -> struct ht_path_desc. Every problem is collected with its
 * position and all of them are reported, in file order; a file with a
 * problem yields no description.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "common/file.h"
#include "path-desc.h"
#include "common/yaml-doc.h"

#define MAX_FILE_BYTES (16u << 20)

struct diag {
	unsigned line, col;
	size_t seq;
	char *msg;
};

struct loader {
	const char *file;
	struct diag *diags;
	size_t nr_diags, cap_diags;
	bool nomem;
};

static void diag(struct loader *ld, const struct ht_src_loc *loc,
		 const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (ht_array_reserve((void **)&ld->diags, &ld->cap_diags,
			     ld->nr_diags + 1, sizeof(*ld->diags))) {
		ld->nomem = true;
		return;
	}
	ld->diags[ld->nr_diags].line = loc->line;
	ld->diags[ld->nr_diags].col = loc->col;
	ld->diags[ld->nr_diags].seq = ld->nr_diags;
	ld->diags[ld->nr_diags].msg = strdup(buf);
	if (!ld->diags[ld->nr_diags].msg) {
		ld->nomem = true;
		return;
	}
	ld->nr_diags++;
}

static int diag_cmp(const void *a, const void *b)
{
	const struct diag *x = a, *y = b;

	if (x->line != y->line) {
		return x->line < y->line ? -1 : 1;
	}
	if (x->col != y->col) {
		return x->col < y->col ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void diags_write(struct loader *ld, char *err, size_t err_len)
{
	size_t i, len = 0;

	if (!err_len) {
		return;
	}
	err[0] = '\0';
	qsort(ld->diags, ld->nr_diags, sizeof(*ld->diags), diag_cmp);
	for (i = 0; i < ld->nr_diags && len + 1 < err_len; i++) {
		int n = snprintf(err + len, err_len - len, "%s%s:%u:%u: %s",
				 i ? "\n" : "", ld->file, ld->diags[i].line,
				 ld->diags[i].col, ld->diags[i].msg);

		if (n < 0) {
			break;
		}
		len += (size_t)n;
	}
}

static void diags_free(struct loader *ld)
{
	size_t i;

	for (i = 0; i < ld->nr_diags; i++) {
		free(ld->diags[i].msg);
	}
	free(ld->diags);
}

/* ------------------------------------------------------------------ */
/* names by hash: a file may declare tens of thousands of activities,
 * so every lookup by name is O(1) (open addressing, FNV-1a) */

static size_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	}
	return (size_t)(h ^ (h >> 32));
}

/* A table of slots (index + 1, 0 empty) for @n names, at most half
 * full. Returns NULL when there is no memory. */
static size_t *index_new(size_t n, size_t *cap)
{
	size_t c = 16;

	while (c < 2 * n + 2) {
		c *= 2;
	}
	*cap = c;
	return calloc(c, sizeof(size_t));
}

/* The slot of @name in @slots (names[i - 1] for slot value i): its
 * entry, or the empty slot where it goes. */
static size_t *index_slot(size_t *slots, size_t cap, const char *name,
			  const char *(*name_of)(const void *, size_t),
			  const void *names)
{
	size_t i = name_hash(name) & (cap - 1);

	while (slots[i] && strcmp(name_of(names, slots[i] - 1), name)) {
		i = (i + 1) & (cap - 1);
	}
	return &slots[i];
}

static const char *key_name(const void *map, size_t i)
{
	return ((const struct ht_ynode *)map)->keys[i]->str;
}

static const char *activity_name(const void *path, size_t i)
{
	return ((const struct ht_path *)path)->activities[i].name;
}

bool ht_path_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *name;
		double mult;
	} units[] = {
	    {"ns", 1},
	    {"us", 1e3},
	    {"ms", 1e6},
	    {"s", 1e9},
	};
	const char *p = s;
	char *end;
	double v;
	size_t i;

	while (*p == ' ') {
		p++;
	}
	if (!(*p >= '0' && *p <= '9')) {
		return false;
	}
	errno = 0;
	v = strtod(p, &end);
	if (errno || end == p) {
		return false;
	}
	while (*end == ' ') {
		end++;
	}
	if (!*end) {
		/* a bare number is ns and must be an integer */
		if (v != floor(v)) {
			return false;
		}
	} else {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t n = strlen(units[i].name);

			if (!strncmp(end, units[i].name, n) &&
			    !end[n + strspn(end + n, " ")]) {
				v *= units[i].mult;
				break;
			}
		}
		if (i == sizeof(units) / sizeof(units[0])) {
			return false;
		}
	}
	if (!(v >= 0) || v >= 18446744073709551616.0) {
		return false;
	}
	*ns = (uint64_t)llround(v);
	return true;
}

static bool get_duration(struct loader *ld, const struct ht_ynode *node,
			 const char *key, uint64_t *ns)
{
	if (node->kind != HT_YNODE_SCALAR || ht_ynode_is_null(node) ||
	    !ht_path_parse_duration(node->str, ns)) {
		diag(ld, &node->loc,
		     "`%s`: expected a duration (e.g. `40 ms`; units ns, us, "
		     "ms, s; a bare integer is ns), got %s%s%s%s",
		     key, ht_ynode_describe(node),
		     node->kind == HT_YNODE_SCALAR ? " `" : "",
		     node->kind == HT_YNODE_SCALAR ? node->str : "",
		     node->kind == HT_YNODE_SCALAR ? "`" : "");
		return false;
	}
	return true;
}

/* Reports duplicate keys of a mapping (YAML parsers keep the last). */
static void check_dup_keys(struct loader *ld, const struct ht_ynode *map,
			   const char *what)
{
	size_t i, cap, *slots = index_new(map->nr, &cap), *slot;

	if (!slots) {
		ld->nomem = true;
		return;
	}
	for (i = 0; i < map->nr; i++) {
		slot = index_slot(slots, cap, map->keys[i]->str, key_name, map);
		if (*slot) {
			const struct ht_ynode *first = map->keys[*slot - 1];

			diag(ld, &map->keys[i]->loc,
			     "duplicate %s `%s` (first at line %u, column %u)",
			     what, map->keys[i]->str, first->loc.line,
			     first->loc.col);
		} else {
			*slot = i + 1;
		}
	}
	free(slots);
}

/* @map, the value of `@key`, must be a non-empty mapping of @what
 * names: else a diagnostic and false. Repeated names are diagnosed. */
static bool names_map(struct loader *ld, const struct ht_ynode *map,
		      const char *key, const char *what)
{
	if (map->kind != HT_YNODE_MAP || !map->nr) {
		diag(ld, &map->loc,
		     "`%s`: expected a non-empty mapping of %s names, got %s%s",
		     key, what, map->kind == HT_YNODE_MAP ? "an empty " : "",
		     map->kind == HT_YNODE_MAP ? "mapping"
					       : ht_ynode_describe(map));
		return false;
	}
	check_dup_keys(ld, map, what);
	return true;
}

static bool is_name(const struct ht_ynode *node)
{
	return node->kind == HT_YNODE_SCALAR && !ht_ynode_is_null(node) &&
	       node->str[0];
}

/* The predecessor names of an activity: a name or a sequence of names.
 * @mark (one entry per activity) says which activities the list named
 * already: mark[k] == the activity's index + 1. */
static int load_preds(struct loader *ld, struct ht_path *path,
		      struct ht_path_activity *act, const struct ht_ynode *list,
		      const char *key, size_t *mark)
{
	size_t self = (size_t)(act - path->activities) + 1;
	const struct ht_ynode *const *items = &list;
	size_t i, n = 1;

	if (list->kind == HT_YNODE_SEQ) {
		items = (const struct ht_ynode *const *)list->items;
		n = list->nr;
		if (!n) {
			diag(ld, &list->loc,
			     "`%s`: expected at least one "
			     "activity name",
			     key);
			return 0;
		}
	}
	act->preds = calloc(n, sizeof(*act->preds));
	if (!act->preds) {
		return HT_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct ht_ynode *it = items[i];
		long k;

		if (!is_name(it)) {
			diag(ld, &it->loc,
			     "`%s`: expected an activity name or a sequence "
			     "of them, got %s",
			     key, ht_ynode_describe(it));
			continue;
		}
		k = ht_path_find_activity(path, it->str);
		if (k < 0) {
			diag(ld, &it->loc,
			     "unknown activity `%s` in `%s` of activity `%s` "
			     "(path `%s`)",
			     it->str, key, act->name, path->name);
			continue;
		}
		if (&path->activities[k] == act) {
			diag(ld, &it->loc,
			     "activity `%s` cannot come after itself",
			     act->name);
			continue;
		}
		if (mark[k] == self) {
			diag(ld, &it->loc, "activity `%s` is listed twice",
			     it->str);
			continue;
		}
		mark[k] = self;
		act->preds[act->nr_preds++] = (size_t)k;
	}
	return 0;
}

/* A min-heap of activity indexes: the ready activity first in file
 * order comes out first. */
static void heap_push(size_t *h, size_t *n, size_t v)
{
	size_t i = (*n)++;

	while (i && h[(i - 1) / 2] > v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static size_t heap_pop(size_t *h, size_t *n)
{
	size_t top = h[0], v = h[--*n], i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= *n) {
			break;
		}
		if (c + 1 < *n && h[c + 1] < h[c]) {
			c++;
		}
		if (h[c] >= v) {
			break;
		}
		h[i] = h[c];
		i = c;
	}
	if (*n) {
		h[i] = v;
	}
	return top;
}

/* The first predecessor of @i not ordered yet (left[] true), or
 * (size_t)-1. */
static size_t left_pred(const struct ht_path *path, const bool *left, size_t i)
{
	size_t j;

	for (j = 0; j < path->activities[i].nr_preds; j++) {
		if (left[path->activities[i].preds[j]]) {
			return path->activities[i].preds[j];
		}
	}
	return (size_t)-1;
}

/* Reports one precedence cycle among the activities left[]: from any of
 * them, following the first left-over predecessor must come back to
 * an activity already met; the message starts at the cycle's first
 * activity in file order. O(activities + predecessors). */
static void report_cycle(struct loader *ld, const struct ht_path *path,
			 const bool *left, size_t *seen,
			 const struct ht_src_loc *where)
{
	size_t n = path->nr_activities, i, cur = 0, start, len = 0;
	struct ht_src_loc loc = *where;
	char buf[400];

	for (i = 0; i < n; i++) {
		if (left[i]) {
			cur = i;
			break;
		}
	}
	/* seen[] was the in-degrees: reused as "met on this walk" */
	memset(seen, 0, n * sizeof(*seen));
	while (!seen[cur]) {
		seen[cur] = 1;
		cur = left_pred(path, left, cur);
	}
	start = cur;
	i = cur;
	do {
		if (i < start) {
			start = i;
		}
		i = left_pred(path, left, i);
	} while (i != cur);
	/* the walk follows predecessors; print it as "comes after"
	 * arrows: a -> b means a waits for b */
	buf[0] = '\0';
	i = start;
	do {
		int w = snprintf(buf + len, sizeof(buf) - len, "`%s` -> ",
				 path->activities[i].name);

		if (w > 0 && (size_t)w < sizeof(buf) - len) {
			len += (size_t)w;
		}
		i = left_pred(path, left, i);
	} while (i != start);
	snprintf(buf + len, sizeof(buf) - len, "`%s`",
		 path->activities[start].name);
	loc.line = path->activities[start].line;
	loc.col = path->activities[start].col;
	diag(ld, &loc,
	     "precedence cycle in path `%s`: %s (each waits for the next)",
	     path->name, buf);
}

/*
 * Topological order (Kahn's), the ready activity first in file order
 * taken first; on a cycle reports one cycle. O((activities +
 * predecessors) log activities): successor lists in one array.
 */
static int order_activities(struct loader *ld, struct ht_path *path,
			    const struct ht_src_loc *where)
{
	size_t n = path->nr_activities, i, j, done = 0, nr_heap = 0, e = 0;
	size_t *indeg = calloc(n + 1, sizeof(*indeg));
	size_t *first = calloc(n + 1, sizeof(*first));
	size_t *heap = calloc(n + 1, sizeof(*heap));
	bool *left = calloc(n + 1, sizeof(*left));
	size_t *succ = NULL;
	int ret = 0;

	for (i = 0; i < n; i++) {
		e += path->activities[i].nr_preds;
	}
	succ = calloc(e + 1, sizeof(*succ));
	path->order = calloc(n + 1, sizeof(*path->order));
	if (!indeg || !first || !heap || !left || !succ || !path->order) {
		ret = HT_ENOMEM;
		goto out;
	}
	/* first[k] .. first[k + 1]: the successors of k in succ[] */
	for (i = 0; i < n; i++) {
		const struct ht_path_activity *a = &path->activities[i];

		indeg[i] = a->nr_preds;
		for (j = 0; j < a->nr_preds; j++) {
			first[a->preds[j] + 1]++;
		}
	}
	for (i = 0; i < n; i++) {
		path->activities[i].is_final = first[i + 1] == 0;
		first[i + 1] += first[i];
	}
	for (i = 0; i < n; i++) {
		const struct ht_path_activity *a = &path->activities[i];

		for (j = 0; j < a->nr_preds; j++) {
			/* heap[] counts the successors placed so far */
			succ[first[a->preds[j]] + heap[a->preds[j]]++] = i;
		}
	}
	for (i = 0; i < n; i++) {
		heap[i] = 0;
		left[i] = true;
	}
	for (i = 0; i < n; i++) {
		if (!indeg[i]) {
			heap_push(heap, &nr_heap, i);
		}
	}
	while (nr_heap) {
		i = heap_pop(heap, &nr_heap);
		left[i] = false;
		path->order[done++] = i;
		for (j = first[i]; j < first[i + 1]; j++) {
			if (!--indeg[succ[j]]) {
				heap_push(heap, &nr_heap, succ[j]);
			}
		}
	}
	if (done < n) {
		report_cycle(ld, path, left, indeg, where);
	}
out:
	free(indeg);
	free(first);
	free(heap);
	free(left);
	free(succ);
	return ret;
}

/* The name index of @path's activities (ht_path_find_activity()); a
 * repeated name (diagnosed with the keys) keeps its first activity. */
static int index_activities(struct ht_path *path)
{
	size_t i, *slot;

	path->act_index = index_new(path->nr_activities, &path->act_index_cap);
	if (!path->act_index) {
		return HT_ENOMEM;
	}
	for (i = 0; i < path->nr_activities; i++) {
		slot =
		    index_slot(path->act_index, path->act_index_cap,
			       path->activities[i].name, activity_name, path);
		if (!*slot) {
			*slot = i + 1;
		}
	}
	return 0;
}

static int load_path(struct loader *ld, struct ht_path *path,
		     const struct ht_ynode *key, const struct ht_ynode *node)
{
	static const char *const keys[] = {"trigger", "period", "deadline",
					   "activities", "description"};
	const struct ht_ynode *acts = NULL;
	size_t i, j, *mark;
	int ret;

	path->name = strdup(key->str);
	if (!path->name) {
		return HT_ENOMEM;
	}
	path->line = key->loc.line;
	path->col = key->loc.col;
	if (node->kind != HT_YNODE_MAP) {
		diag(ld, &node->loc, "path `%s`: expected a mapping, got %s",
		     path->name, ht_ynode_describe(node));
		return 0;
	}
	check_dup_keys(ld, node, "key");
	for (i = 0; i < node->nr; i++) {
		const char *k = node->keys[i]->str;
		const struct ht_ynode *v = node->items[i];

		for (j = 0; j < sizeof(keys) / sizeof(keys[0]); j++) {
			if (!strcmp(k, keys[j])) {
				break;
			}
		}
		if (j == sizeof(keys) / sizeof(keys[0])) {
			diag(ld, &node->keys[i]->loc,
			     "unknown key `%s` in path `%s` (expected "
			     "trigger, period, deadline, activities or "
			     "description)",
			     k, path->name);
		} else if (!strcmp(k, "trigger")) {
			if (!is_name(v)) {
				diag(ld, &v->loc,
				     "`trigger`: expected an event name, got "
				     "%s",
				     ht_ynode_describe(v));
			} else if (!path->trigger) {
				path->trigger = strdup(v->str);
				if (!path->trigger) {
					return HT_ENOMEM;
				}
			}
		} else if (!strcmp(k, "period")) {
			path->has_period =
			    get_duration(ld, v, k, &path->period_ns);
			if (path->has_period && !path->period_ns) {
				diag(ld, &v->loc, "`period` must not be 0");
				path->has_period = false;
			}
		} else if (!strcmp(k, "deadline")) {
			path->has_deadline =
			    get_duration(ld, v, k, &path->deadline_ns);
		} else if (!strcmp(k, "activities")) {
			acts = v;
		}
	}
	if (!path->trigger) {
		path->trigger = strdup("path_begin");
		if (!path->trigger) {
			return HT_ENOMEM;
		}
	}
	if (!acts) {
		diag(ld, &key->loc, "path `%s` has no `activities`",
		     path->name);
		return 0;
	}
	if (!names_map(ld, acts, "activities", "activity")) {
		return 0;
	}
	path->activities = calloc(acts->nr, sizeof(*path->activities));
	if (!path->activities) {
		return HT_ENOMEM;
	}
	/* names first, so that `after` may name a later activity */
	for (i = 0; i < acts->nr; i++) {
		struct ht_path_activity *a = &path->activities[i];

		a->name = strdup(acts->keys[i]->str);
		if (!a->name) {
			return HT_ENOMEM;
		}
		a->line = acts->keys[i]->loc.line;
		a->col = acts->keys[i]->loc.col;
		path->nr_activities++;
	}
	ret = index_activities(path);
	if (ret) {
		return ret;
	}
	mark = calloc(acts->nr, sizeof(*mark));
	if (!mark) {
		return HT_ENOMEM;
	}
	for (i = 0; i < acts->nr; i++) {
		struct ht_path_activity *a = &path->activities[i];
		const struct ht_ynode *v = acts->items[i];
		const struct ht_ynode *and_list = NULL, *or_list = NULL;

		if (ht_ynode_is_null(v)) {
			continue;
		}
		if (v->kind != HT_YNODE_MAP) {
			diag(ld, &v->loc,
			     "activity `%s`: expected a mapping (`after`, "
			     "`after-any`) or nothing, got %s",
			     a->name, ht_ynode_describe(v));
			continue;
		}
		check_dup_keys(ld, v, "key");
		for (j = 0; j < v->nr; j++) {
			const char *k = v->keys[j]->str;

			if (!strcmp(k, "after")) {
				and_list = and_list ? and_list : v->items[j];
			} else if (!strcmp(k, "after-any")) {
				or_list = or_list ? or_list : v->items[j];
			} else if (strcmp(k, "description")) {
				diag(ld, &v->keys[j]->loc,
				     "unknown key `%s` in activity `%s` "
				     "(expected after, after-any or "
				     "description)",
				     k, a->name);
			}
		}
		if (and_list && or_list) {
			diag(ld, &v->loc,
			     "activity `%s`: `after` (all of) and `after-any` "
			     "(the first of) exclude each other",
			     a->name);
			continue;
		}
		if (or_list) {
			a->join = HT_PATH_JOIN_OR;
			ret =
			    load_preds(ld, path, a, or_list, "after-any", mark);
		} else if (and_list) {
			ret = load_preds(ld, path, a, and_list, "after", mark);
		} else {
			ret = 0;
		}
		if (ret) {
			free(mark);
			return ret;
		}
	}
	free(mark);
	return order_activities(ld, path, &acts->loc);
}

static int load_root(struct loader *ld, struct ht_path_desc *desc,
		     const struct ht_ynode *root)
{
	const struct ht_ynode *paths;
	size_t i;
	int ret;

	if (root->kind != HT_YNODE_MAP) {
		diag(ld, &root->loc, "expected a mapping with `paths`, got %s",
		     ht_ynode_describe(root));
		return 0;
	}
	check_dup_keys(ld, root, "key");
	for (i = 0; i < root->nr; i++) {
		if (strcmp(root->keys[i]->str, "paths")) {
			diag(ld, &root->keys[i]->loc,
			     "unknown key `%s` (expected `paths`)",
			     root->keys[i]->str);
		}
	}
	paths = ht_ynode_get(root, "paths");
	if (!paths) {
		diag(ld, &root->loc, "no `paths` mapping");
		return 0;
	}
	if (!names_map(ld, paths, "paths", "path")) {
		return 0;
	}
	desc->paths = calloc(paths->nr, sizeof(*desc->paths));
	if (!desc->paths) {
		return HT_ENOMEM;
	}
	for (i = 0; i < paths->nr; i++) {
		desc->nr_paths++;
		ret = load_path(ld, &desc->paths[i], paths->keys[i],
				paths->items[i]);
		if (ret) {
			return ret;
		}
	}
	return 0;
}

int ht_path_desc_parse(struct ht_path_desc **desc, const char *file,
		       const char *text, size_t size, char *err, size_t err_len)
{
	struct loader ld = {.file = file};
	struct ht_path_desc *d;
	struct ht_ynode *root = NULL;
	char msg[256];
	unsigned line = 0, col = 0;
	int ret;

	*desc = NULL;
	if (err_len) {
		err[0] = '\0';
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		return HT_ENOMEM;
	}
	d->file = strdup(file);
	if (!d->file) {
		ret = HT_ENOMEM;
		goto fail;
	}
	ret = ht_ydoc_parse(file, (const unsigned char *)text, size, &root, msg,
			    sizeof(msg), &line, &col);
	if (ret == HT_ESYNTAX) {
		if (err_len) {
			snprintf(err, err_len, "%s:%u:%u: %s", file, line, col,
				 msg);
		}
		goto fail;
	}
	if (ret) {
		goto fail;
	}
	ret = load_root(&ld, d, root);
	if (!ret && ld.nomem) {
		ret = HT_ENOMEM;
	}
	if (!ret && ld.nr_diags) {
		diags_write(&ld, err, err_len);
		ret = HT_ECONFIG;
	}
	ht_ynode_destroy(root);
	diags_free(&ld);
	if (ret) {
		goto fail;
	}
	*desc = d;
	return 0;

fail:
	ht_path_desc_destroy(d);
	return ret;
}

int ht_path_desc_load(struct ht_path_desc **desc, const char *file, char *err,
		      size_t err_len)
{
	char *text;
	size_t n;
	int ret;

	*desc = NULL;
	ret = ht_file_read(file, MAX_FILE_BYTES, &text, &n, err, err_len);
	if (ret) {
		return ret;
	}
	ret = ht_path_desc_parse(desc, file, text, n, err, err_len);
	free(text);
	return ret;
}

void ht_path_desc_destroy(struct ht_path_desc *desc)
{
	size_t i, j;

	if (!desc) {
		return;
	}
	for (i = 0; i < desc->nr_paths; i++) {
		struct ht_path *p = &desc->paths[i];

		for (j = 0; j < p->nr_activities; j++) {
			free(p->activities[j].name);
			free(p->activities[j].preds);
		}
		free(p->activities);
		free(p->act_index);
		free(p->order);
		free(p->name);
		free(p->trigger);
	}
	free(desc->paths);
	free(desc->file);
	free(desc);
}

const struct ht_path *ht_path_desc_find(const struct ht_path_desc *desc,
					const char *name)
{
	size_t i;

	for (i = 0; i < desc->nr_paths; i++) {
		if (!strcmp(desc->paths[i].name, name)) {
			return &desc->paths[i];
		}
	}
	return NULL;
}

long ht_path_find_activity(const struct ht_path *path, const char *name)
{
	size_t *slot;

	if (!path->act_index) {
		return -1;
	}
	slot = index_slot(path->act_index, path->act_index_cap, name,
			  activity_name, path);
	return *slot ? (long)(*slot - 1) : -1;
}
