/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_FUNC_PROFILE_H
#define HT_HOST_FUNC_PROFILE_H

/*
 * The function profile of a trace (`hetrace profile`): per core, per
 * function calls, inclusive, exclusive, mean and max time, and the call
 * tree; built from the slices of host/analysis/func-slices.h.
 *
 *	ht_func_profile_create(&p);
 *	ht_func_profile_slices_opts(p, &opts);   (the tracker's callbacks)
 *	ht_func_slices_create(&f, &opts); ... feed ... ht_func_slices_finish(f);
 *	ht_func_profile_resolve(p, f);          (names)
 *
 * Rules:
 * - Inclusive time of a function counts only its outermost call when
 *   it recurses (the time is not counted twice); `max` is the longest
 *   single call, recursion included.
 * - Exclusive times of all functions of a core add up to `total_ns`,
 *   the time of its outermost calls.
 * - In the call tree a node is a path of calls from an outermost call;
 *   its inclusive time is its calls' time, so a node's inclusive time
 *   is at least the sum of its children's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "func-slices.h"

struct ht_func_profile; /* opaque */

struct ht_func_profile_func {
	uint64_t addr;
	const char *name; /* NULL: no name (shown as the address) */
	uint64_t calls;
	uint64_t incl_ns, excl_ns, max_ns;
	uint64_t forced; /* calls closed without their exit */
	uint32_t active; /* private: calls open now */
};

/* A node of the call tree; indexes into the core's nodes, 0 = none. */
struct ht_func_profile_node {
	uint64_t addr; /* 0 for the root (node 0) */
	const char *name;
	uint32_t parent, first_child, next_sibling;
	unsigned depth; /* root 0, outermost calls 1 */
	uint64_t calls;
	uint64_t incl_ns, excl_ns;
};

struct ht_func_profile_core {
	const struct ht_func_core *core; /* NULL for the all-cores sum */
	const char *name;
	struct ht_func_profile_func *funcs;
	size_t nr_funcs;
	struct ht_func_profile_node *nodes; /* nodes[0] is the root */
	size_t nr_nodes;
	uint64_t calls;
	uint64_t total_ns; /* outermost calls' time = sum of exclusive */
};

int ht_func_profile_create(struct ht_func_profile **p);
void ht_func_profile_destroy(struct ht_func_profile *p);

/* Fills @opts with the callbacks that feed @p (max_depth left 0). */
void ht_func_profile_slices_opts(struct ht_func_profile *p,
				 struct ht_func_slices_opts *opts);

/* Returns HT_ENOMEM if memory ran out while feeding, else 0. */
int ht_func_profile_status(const struct ht_func_profile *p);

/*
 * Names every function and node from @f's symbols, then builds the
 * sum over all cores (functions merged by name, or by address when
 * unnamed). Returns 0 or HT_ENOMEM.
 */
int ht_func_profile_resolve(struct ht_func_profile *p,
			    struct ht_func_slices *f);

size_t ht_func_profile_nr_cores(const struct ht_func_profile *p);
const struct ht_func_profile_core *
ht_func_profile_core(const struct ht_func_profile *p, size_t i);
/* The sum over every core (after ht_func_profile_resolve()). */
const struct ht_func_profile_core *
ht_func_profile_all(const struct ht_func_profile *p);

enum ht_func_profile_key {
	HT_FUNC_PROFILE_INCL,
	HT_FUNC_PROFILE_EXCL,
	HT_FUNC_PROFILE_CALLS,
	HT_FUNC_PROFILE_AVG,
	HT_FUNC_PROFILE_MAX,
};

/* Parses "incl", "excl", "calls", "avg", "max"; -1 if none. */
int ht_func_profile_key_parse(const char *s);

/*
 * Sorts @funcs (e.g. a copy of a core's) by @key, largest first; ties
 * by name then address.
 */
void ht_func_profile_sort(struct ht_func_profile_func *funcs, size_t n,
			  enum ht_func_profile_key key);

#endif
