/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_PATHS_INTERNAL_H
#define HT_HOST_PATHS_INTERNAL_H

/* Shared between paths.c (pass 1, statistics), paths-blame.c (pass 2,
 * interference) and paths-out.c (text and JSON). */
#include "paths.h"

/* Adds a note (kept up to a limit, the rest counted). */
void ht__paths_note(struct ht_paths_result *res, const char *fmt, ...);

/* The index of core @name in res->cores, added when new (with @role,
 * which may be NULL, and the id when @has_id); or HT_ENOMEM. */
int ht__paths_core_index(struct ht_paths_result *res, const char *name,
			 const char *role, bool has_id, uint32_t id);

/* Puts res->cores in display order (ht_states_core_cmp()), renumbering
 * every run and per-core array. Returns 0 or HT_ENOMEM. */
int ht__paths_order_cores(struct ht_paths_result *res);

/* Pass 2: re-reads the traces through the states model and fills the
 * blame lists of every worst instance. */
int ht__paths_blame(struct ht_paths_result *res, const char *const *traces,
		    size_t nr_traces, char *err, size_t err_len);

#endif
