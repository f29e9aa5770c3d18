/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_PATHS_INTERNAL_H
#define HT_HOST_PATHS_INTERNAL_H

/* Shared between paths.c (pass 1, statistics), paths-blame.c (pass 2,
 * interference) and paths-out.c (text and JSON). */
#include "paths.h"

/* Adds a note (kept up to a limit, the rest counted). */
void ht__paths_note(struct ht_paths_result *res, const char *fmt, ...);

/* The index of core @name in res->cores, added when new; or HT_ENOMEM. */
int ht__paths_core_index(struct ht_paths_result *res, const char *name);

/* Pass 2: re-reads the traces through the states model and fills the
 * blame lists of every worst instance. */
int ht__paths_blame(struct ht_paths_result *res, const char *const *traces,
		    size_t nr_traces, char *err, size_t err_len);

#endif
