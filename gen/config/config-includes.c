/* SPDX-License-Identifier: MIT */
/*
 * `$include` processing: finds an included file (the including file's
 * directory, the -I directories, the current directory, then hetrace's
 * standard includes), parses it, and merges the included objects into
 * the including one as barectf does (mappings merge, sequences append,
 * structure members merge by name, the including object's own
 * properties last). Cycles and excessive nesting are reported.
 *
 * It does not look inside field types: aliases and `$inherit` are the
 * next stage (config-aliases.c).
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/embedded.h"
#include "common/error.h"
#include "common/path.h"
#include "config-internal.h"

#define STD_INCLUDE_PREFIX "include/3/"

/*
 * What all the `$include`s of one configuration may cost. A file that
 * includes the next one twice, thirty times over, asks for 2^30 files
 * and, as sequences append, as many copies of the last one: the number
 * of files read and the bytes read, parsed and merged (a node counting
 * as NODE_COST bytes) are bounded, far above what real configurations
 * use (barectf's standard includes are a few kilobytes each).
 */
#define MAX_INCLUDES 4096
#define MAX_INCLUDE_WORK ((size_t)128 << 20)
#define NODE_COST 64

/* @name as found from @dir: itself when absolute or @dir is ".". */
static char *join_path(const char *dir, const char *name)
{
	if (name[0] == '/' || !dir || !strcmp(dir, ".")) {
		return strdup(name);
	}
	return ht_path_join(dir, name);
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

/* Sets *found to dir/name when that is a regular file. */
static int try_path(const char *dir, const char *name, char **found)
{
	char *path = join_path(dir, name);

	if (!path) {
		return HT_ENOMEM;
	}
	if (is_regular_file(path)) {
		*found = path;
	} else {
		free(path);
	}
	return 0;
}

/*
 * Finds the file an `$include` item names: in the including file's
 * directory, the -I directories, the current directory (barectf looks
 * there too, after -I), then hetrace's standard includes (*emb set).
 * Sets *found (as shown in messages) and *id (the real path or the
 * embedded name), both NULL when there is no such file. Returns 0 or
 * HT_ENOMEM.
 */
static int find_include(const struct loader *ld, const struct ht_ynode *item,
			char **found, char **id,
			const struct ht_embedded_file **emb)
{
	char *dir = dir_of(item->loc.file);
	size_t i;
	int ret;

	*found = NULL;
	*id = NULL;
	*emb = NULL;
	if (!dir) {
		return HT_ENOMEM;
	}
	ret = ld->std_includes_only ? 0 : try_path(dir, item->str, found);
	free(dir);
	for (i = 0; !ret && !*found && i < ld->nr_inc_dirs; i++) {
		ret = try_path(ld->inc_dirs[i], item->str, found);
	}
	if (!ret && !*found && !ld->std_includes_only) {
		ret = try_path(".", item->str, found);
	}
	if (ret) {
		return ret;
	}
	if (*found) {
		*id = realpath(*found, NULL);
		if (!*id) {
			*id = strdup(*found);
		}
	} else if (!strchr(item->str, '/')) {
		char emb_name[256];

		snprintf(emb_name, sizeof(emb_name), STD_INCLUDE_PREFIX "%s",
			 item->str);
		*emb = ht_embedded_find(emb_name);
		if (*emb) {
			*found = strdup(emb_name);
			*id = strdup(emb_name);
		}
	}
	if ((*found || *emb) && (!*found || !*id)) {
		free(*found);
		free(*id);
		*found = NULL;
		*id = NULL;
		return HT_ENOMEM;
	}
	return 0;
}

/* Bytes a tree takes: NODE_COST per node and its strings. */
static size_t tree_cost(const struct ht_ynode *node)
{
	size_t i, cost = NODE_COST;

	if (node->str) {
		cost += strlen(node->str);
	}
	for (i = 0; i < node->nr; i++) {
		if (node->keys) {
			cost += tree_cost(node->keys[i]);
		}
		cost += tree_cost(node->items[i]);
	}
	return cost;
}

/*
 * Adds cost to the work of the `$include`s; past the limit, reports it
 * at item (the `$include` that goes over) and stops the loader: what
 * follows could only repeat the message. Returns false then.
 */
static bool spend(struct loader *ld, const struct ht_ynode *item, size_t cost)
{
	if (ld->include_work <= MAX_INCLUDE_WORK &&
	    cost <= MAX_INCLUDE_WORK - ld->include_work) {
		ld->include_work += cost;
		return true;
	}
	ht__cfg_diag(ld, &item->loc,
		     "`$include` of `%s`: the includes of this configuration "
		     "read and merge more than %zu MiB (does a file include "
		     "another many times?)",
		     item->str, MAX_INCLUDE_WORK >> 20);
	ld->fatal = HT_ECONFIG;
	return false;
}

/* Reports, and returns true, when id is already being included. */
static bool is_cyclic(struct loader *ld, const struct ht_ynode *item,
		      const char *id, const char *found)
{
	char chain[1024];
	size_t i, j, len = 0;

	for (i = 0; i < ld->depth; i++) {
		if (!strcmp(ld->stack[i].id, id)) {
			break;
		}
	}
	if (i == ld->depth) {
		return false;
	}
	chain[0] = '\0';
	for (j = i; j < ld->depth; j++) {
		len += (size_t)snprintf(
		    chain + len, len < sizeof(chain) ? sizeof(chain) - len : 0,
		    "`%s` -> ", ld->stack[j].name);
		if (len >= sizeof(chain)) {
			len = sizeof(chain) - 1;
		}
	}
	ht__cfg_diag(ld, &item->loc, "cyclic `$include`: %s`%s`", chain, found);
	return true;
}

/*
 * Finds, loads and parses the file an `$include` item names, pushing it
 * on the include stack. Returns NULL (reported) when it cannot.
 */
static struct ht_ynode *load_include(struct loader *ld,
				     const struct ht_ynode *item)
{
	const struct ht_embedded_file *emb;
	char *found, *id;
	const char *name;
	struct ht_ynode *root = NULL;
	unsigned char *text = NULL;
	size_t size = 0;
	int ret;

	if (item->kind != HT_YNODE_SCALAR ||
	    ht_yscalar_type(item) != HT_YSCALAR_STR || !item->str[0]) {
		ht__cfg_expect_fail(ld, item, "$include", "a file name");
		return NULL;
	}
	ret = find_include(ld, item, &found, &id, &emb);
	if (ret) {
		ld->fatal = ret;
		return NULL;
	}
	if (!found) {
		ht__cfg_diag(
		    ld, &item->loc,
		    "cannot find `$include` file `%s` (looked in the "
		    "including file's directory, the -I directories, the "
		    "current directory and hetrace's standard includes)",
		    item->str);
		return NULL;
	}
	if (is_cyclic(ld, item, id, found)) {
		goto free_paths;
	}
	if (ld->depth == MAX_INCLUDE_DEPTH) {
		ht__cfg_diag(ld, &item->loc, "`$include` nested too deeply");
		goto free_paths;
	}
	if (++ld->nr_includes > MAX_INCLUDES) {
		ht__cfg_diag(ld, &item->loc,
			     "`$include` of `%s`: more than %d files included "
			     "in all (does a file include another many "
			     "times?)",
			     item->str, MAX_INCLUDES);
		ld->fatal = HT_ECONFIG;
		goto free_paths;
	}

	name = ht__cfg_add_file(ld, found);
	if (!name) {
		goto free_paths;
	}
	if (emb) {
		root = ht__cfg_parse_text(ld, name, emb->data, emb->size);
	} else {
		ret = ht__cfg_read_file(found, &text, &size);
		if (ret) {
			ht__cfg_diag(ld, &item->loc,
				     "cannot read `$include` file `%s`: %s",
				     found, ht_strerror(ret));
			goto free_paths;
		}
		root = ht__cfg_parse_text(ld, name, text, size);
		free(text);
	}
	if (!root) {
		goto free_paths;
	}
	if (!spend(ld, item, (emb ? emb->size : size) + tree_cost(root))) {
		ht_ynode_destroy(root);
		root = NULL;
		goto free_paths;
	}
	if (root->kind != HT_YNODE_MAP) {
		ht__cfg_diag(
		    ld, &root->loc,
		    "expected a mapping at the top of an included file, got %s",
		    ht_ynode_describe(root));
		ht_ynode_destroy(root);
		root = NULL;
		goto free_paths;
	}
	ld->stack[ld->depth].id = id;
	ld->stack[ld->depth].name = (char *)name;
	ld->depth++;
	free(found);
	return root;

free_paths:
	free(id);
	free(found);
	return NULL;
}

void ht__cfg_pop_include(struct loader *ld)
{
	ld->depth--;
	free(ld->stack[ld->depth].id);
}

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
					if (ht__cfg_update_node(ld, bi, oi)) {
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
int ht__cfg_update_node(struct loader *ld, struct ht_ynode *base,
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
				if (ht__cfg_update_node(ld, bv, ov)) {
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

static void process_children_map(struct loader *ld, struct ht_ynode *parent,
				 const char *key, enum level level)
{
	struct ht_ynode *map = ht_ynode_get(parent, key);
	size_t i;

	if (!map || map->kind != HT_YNODE_MAP) {
		return;
	}
	for (i = 0; i < map->nr && !ld->fatal; i++) {
		map->items[i] =
		    ht__cfg_process_includes(ld, map->items[i], level);
	}
}

/*
 * Returns the effective node for node (which it consumes): node's
 * children first, then the files node's `$include` names, in order,
 * each updated by the next, and node's own properties last.
 */
/* The objects under node that may hold `$include` themselves. */
static void process_children(struct loader *ld, struct ht_ynode *node,
			     enum level level)
{
	switch (level) {
	case LEVEL_TRACE: {
		long t = ht_ynode_find(node, "type");

		if (t >= 0) {
			node->items[t] = ht__cfg_process_includes(
			    ld, node->items[t], LEVEL_TRACE_TYPE);
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
}

/* How many file names `$include` (inc) lists; 0 (reported) if wrong. */
static size_t nr_include_paths(struct loader *ld, const struct ht_ynode *inc)
{
	if (inc->kind == HT_YNODE_SCALAR &&
	    ht_yscalar_type(inc) == HT_YSCALAR_STR) {
		return 1;
	}
	if (inc->kind != HT_YNODE_SEQ) {
		ht__cfg_expect_fail(ld, inc, "$include",
				    "a file name or a sequence of file names");
		return 0;
	}
	if (inc->nr == 0) {
		ht__cfg_expect_fail(ld, inc, "$include",
				    "a file name or a non-empty sequence of "
				    "file names");
	}
	return inc->nr;
}

struct ht_ynode *ht__cfg_process_includes(struct loader *ld,
					  struct ht_ynode *node,
					  enum level level)
{
	struct ht_ynode *inc, *base = NULL;
	long at;
	size_t i, nr_paths;

	if (node->kind != HT_YNODE_MAP) {
		return node;
	}
	process_children(ld, node, level);
	at = ht_ynode_find(node, "$include");
	if (at < 0 || ld->fatal) {
		return node;
	}
	inc = node->items[at];
	nr_paths = nr_include_paths(ld, inc);
	for (i = 0; i < nr_paths && !ld->fatal; i++) {
		const struct ht_ynode *item =
		    inc->kind == HT_YNODE_SEQ ? inc->items[i] : inc;
		struct ht_ynode *overlay = load_include(ld, item);

		if (!overlay) {
			continue;
		}
		overlay = ht__cfg_process_includes(ld, overlay, level);
		ht__cfg_pop_include(ld);
		if (!base) {
			base = overlay;
			continue;
		}
		/* Merging copies the overlay into the base. */
		if (!ld->fatal && spend(ld, item, tree_cost(overlay)) &&
		    ht__cfg_update_node(ld, base, overlay)) {
			ld->fatal = HT_ENOMEM;
		}
		ht_ynode_destroy(overlay);
	}
	/* The including object's own properties are copied last. */
	if (base && !ld->fatal) {
		spend(ld, inc->kind == HT_YNODE_SEQ ? inc->items[0] : inc,
		      tree_cost(node));
	}
	ht_ynode_remove(node, (size_t)at);
	if (!base) {
		return node;
	}
	if (!ld->fatal && ht__cfg_update_node(ld, base, node)) {
		ld->fatal = HT_ENOMEM;
	}
	/* The effective object is written where the including one was. */
	base->loc = node->loc;
	ht_ynode_destroy(node);
	return base;
}
