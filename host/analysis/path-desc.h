/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_PATH_DESC_H
#define HT_HOST_PATH_DESC_H

/*
 * A path description file (docs/paths.md): execution paths
 * (macro-activities, García Martínez et al.), each made of activities
 * with a precedence graph (sequence, AND fork/join, OR join), the event
 * that triggers an instance, the expected period and the deadline.
 *
 *	paths:
 *	  frame:
 *	    trigger: path_begin
 *	    period: 40 ms
 *	    deadline: 35 ms
 *	    activities:
 *	      alloc:
 *	      sobel_0: {after: alloc}
 *	      sobel_1: {after: alloc}
 *	      gather: {after: [sobel_0, sobel_1]}
 *	      show: {after-any: [gather, skip]}
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ht_path_join {
	HT_PATH_JOIN_AND, /* ready when all predecessors have ended */
	HT_PATH_JOIN_OR,  /* ready when the first predecessor has ended */
};

struct ht_path_activity {
	char *name;
	unsigned line, col; /* where it is declared */
	enum ht_path_join join;
	size_t *preds;	 /* indexes in the path's activities */
	size_t nr_preds; /* 0: ready at the trigger */
	bool is_final;	 /* no other activity comes after it */
};

struct ht_path {
	char *name;
	unsigned line, col;
	char *trigger; /* event name; default "path_begin" */
	bool has_period;
	uint64_t period_ns; /* expected firing every period_ns */
	bool has_deadline;
	uint64_t deadline_ns; /* from the (expected) firing time */
	struct ht_path_activity *activities; /* in file order */
	size_t nr_activities;
	size_t *order; /* activity indexes, predecessors first */
	/* activities by name (ht_path_find_activity()): slots holding an
	 * index + 1, 0 empty */
	size_t *act_index;
	size_t act_index_cap;
};

struct ht_path_desc {
	char *file;
	struct ht_path *paths; /* in file order */
	size_t nr_paths;
};

/*
 * Parses and validates the path description @text (@size bytes) read
 * from @file. On success sets *@desc and returns 0. On an invalid file
 * returns HT_ECONFIG (HT_ESYNTAX for bad YAML) and writes every problem
 * into @err, one "file:line:col: message" per line in file order.
 */
int ht_path_desc_parse(struct ht_path_desc **desc, const char *file,
		       const char *text, size_t size, char *err,
		       size_t err_len);

/* Reads @file and parses it as ht_path_desc_parse() does. */
int ht_path_desc_load(struct ht_path_desc **desc, const char *file, char *err,
		      size_t err_len);

/* Releases a description. NULL is allowed. */
void ht_path_desc_destroy(struct ht_path_desc *desc);

/* The path named @name, or NULL. */
const struct ht_path *ht_path_desc_find(const struct ht_path_desc *desc,
					const char *name);

/* The index of the activity named @name in @path, or -1 (a hash
 * lookup: paths may have tens of thousands of activities). */
long ht_path_find_activity(const struct ht_path *path, const char *name);

/*
 * Parses a duration: an integer (ns) or "<number> <unit>" with unit
 * ns, us, ms or s (e.g. "40 ms", "1.5ms"). Returns false when @s is no
 * duration or it does not fit 64 bits.
 */
bool ht_path_parse_duration(const char *s, uint64_t *ns);

#endif
