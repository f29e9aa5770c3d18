/* SPDX-License-Identifier: MIT */
/*
 * Field type aliases and `$inherit`: every field type written as an
 * alias name becomes a copy of the alias's (expanded) field type, and
 * a field type with `$inherit` becomes its base updated with its own
 * properties; cycles, unknown names and runaway expansion are
 * reported. Then `log-level: NAME` is replaced with the log level
 * alias's value.
 *
 * It rewrites the node tree only; whether the resulting field types are
 * valid is checked when they are built (config-ft.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "config-internal.h"

#define MAX_EXPANDED_NODES 1000000

static void resolve_ft(struct loader *ld, struct ht_ynode *parent, size_t i);

static size_t count_nodes(const struct ht_ynode *node)
{
	size_t n = 1, i;

	for (i = 0; i < node->nr; i++) {
		n += count_nodes(node->items[i]) + (node->keys ? 1 : 0);
	}
	return n;
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
		char sugg[128];

		ht__cfg_suggest_key(sugg, sizeof(sugg), use->str, ld->aliases);
		ht__cfg_diag(ld, &use->loc, "unknown field type alias `%s`%s",
			     use->str, sugg);
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
		ht__cfg_diag(ld, &use->loc, "field type alias cycle: %s`%s`",
			     chain, use->str);
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
		ht__cfg_diag(ld, &use->loc,
			     "field type aliases nested too deeply");
		return NULL;
	}
	ld->alias_state[i] = 1;
	ld->resolving[ld->nr_resolving++] = (size_t)i;
	resolve_ft(ld, ld->aliases, (size_t)i);
	ld->nr_resolving--;
	if (ld->alias_state[i] == 1) {
		ld->alias_state[i] =
		    ht__cfg_is_error(ld->aliases->items[i]) ? 3 : 2;
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

/* An alias name at parent->items[i] becomes a copy of the alias. */
static void expand_alias_use(struct loader *ld, struct ht_ynode *parent,
			     size_t i)
{
	struct ht_ynode *node = parent->items[i];
	const struct ht_ynode *target = resolve_alias(ld, node);
	struct ht_ynode *copy;

	if (ld->fatal) {
		return;
	}
	if (!target) {
		ht__cfg_mark_error(ld, node);
		return;
	}
	/* Aliases of aliases can multiply nodes: bound the total. */
	ld->nr_expanded += count_nodes(target);
	if (ld->nr_expanded > MAX_EXPANDED_NODES) {
		ht__cfg_diag(ld, &node->loc,
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
}

/*
 * Expands the alias that node's `$inherit` (node->items[k]) names;
 * false, with node marked, when node cannot inherit from it.
 */
static bool resolve_inherit_base(struct loader *ld, struct ht_ynode *node,
				 long k)
{
	struct ht_ynode *v = node->items[k];

	if (ht_ynode_find(node, "class") >= 0) {
		/* barectf: a field type inherits or has a class. */
		ht__cfg_diag(ld, &node->keys[ht_ynode_find(node, "class")]->loc,
			     "`class` and `$inherit` exclude each other");
		ht__cfg_mark_error(ld, node);
		return false;
	}
	if (v->kind != HT_YNODE_SCALAR ||
	    ht_yscalar_type(v) != HT_YSCALAR_STR) {
		ht__cfg_expect_fail(ld, v, "$inherit",
				    "a field type alias name");
		ht__cfg_mark_error(ld, node);
		return false;
	}
	resolve_ft(ld, node, (size_t)k);
	if (ht__cfg_is_error(node->items[k])) {
		ht__cfg_mark_error(ld, node);
		return false;
	}
	return true;
}

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

	if (ld->fatal || ht__cfg_is_error(node)) {
		return;
	}
	if (node->kind == HT_YNODE_SCALAR &&
	    ht_yscalar_type(node) == HT_YSCALAR_STR) {
		expand_alias_use(ld, parent, i);
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
	if (k >= 0 && !resolve_inherit_base(ld, node, k)) {
		return;
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
		ht__cfg_expect_fail(
		    ld, base, "$inherit",
		    "the name of an alias of a field type object");
		ht__cfg_mark_error(ld, node);
		return;
	}
	/* Take the base out of node, then lay node over it. */
	node->items[k] = NULL;
	ht_ynode_remove(node, (size_t)k);
	if (ht__cfg_update_node(ld, base, node)) {
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
 * here (aliases, inheritance), checked as its keys by config-model.c. */
const char *const ht__cfg_pkt_features_keys[] = {
    "total-size-field-type",
    "content-size-field-type",
    "beginning-timestamp-field-type",
    "end-timestamp-field-type",
    "discarded-event-records-counter-snapshot-field-type",
    "sequence-number-field-type",
    NULL,
};

/* `$field-type-aliases`: the map the aliases are resolved from. */
static void load_alias_map(struct loader *ld, struct ht_ynode *tt)
{
	size_t i;
	long k;

	k = ht_ynode_find(tt, "$field-type-aliases");
	if (k >= 0) {
		struct ht_ynode *a = tt->items[k];

		if (a->kind == HT_YNODE_MAP) {
			ld->aliases = a;
			ht__cfg_check_dup_names(ld, a, "field type alias");
			for (i = 0; i < a->nr; i++) {
				const struct ht_ynode *v = a->items[i];

				if (v->kind != HT_YNODE_MAP &&
				    !ht_ynode_is_str(v)) {
					ht__cfg_expect_fail(
					    ld, v, a->keys[i]->str,
					    "a field type (a mapping "
					    "with `class`, or a field "
					    "type alias name)");
				}
			}
		} else if (!ht_ynode_is_null(a)) {
			ht__cfg_expect_fail(
			    ld, a, "$field-type-aliases",
			    "a mapping of alias names to field types");
		}
	}
	ld->alias_state = calloc(ld->aliases ? ld->aliases->nr + 1 : 1, 1);
	if (!ld->alias_state) {
		ld->fatal = HT_ENOMEM;
		return;
	}
}

void ht__cfg_expand_field_types(struct loader *ld, struct ht_ynode *tt)
{
	struct ht_ynode *features, *dsts;
	size_t i, j;

	load_alias_map(ld, tt);
	if (ld->fatal) {
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
		for (j = 0; ht__cfg_pkt_features_keys[j]; j++) {
			resolve_ft_at(ld, x, ht__cfg_pkt_features_keys[j]);
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
void ht__cfg_sub_log_levels(struct loader *ld, struct ht_ynode *tt)
{
	const struct ht_ynode *aliases =
	    ht__cfg_get_map(ld, tt, "$log-level-aliases",
			    "a mapping of log level names to integers", true);
	struct ht_ynode *dsts = ht_ynode_get(tt, "data-stream-types");
	size_t i, j;
	uint64_t v;

	if (aliases) {
		ht__cfg_check_dup_names(ld, aliases, "log level alias");
		for (i = 0; i < aliases->nr; i++) {
			if (!ht__cfg_is_absent(aliases->items[i])) {
				ht__cfg_want_uint(ld, aliases->items[i],
						  aliases->keys[i]->str, 0,
						  INT64_MAX, &v);
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
				char sugg[128];

				ht__cfg_suggest_key(sugg, sizeof(sugg),
						    ert->items[k]->str,
						    aliases);
				ht__cfg_diag(ld, &ert->items[k]->loc,
					     "unknown log level alias `%s`%s",
					     ert->items[k]->str, sugg);
				ht__cfg_mark_error(ld, ert->items[k]);
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
