/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_EXPORT_H
#define HT_HOST_EXPORT_H

/*
 * Exporters: a trace set, through the states model (states.h), written
 * in a viewer's format (docs/views.md). One exporter per file
 * (export-<format>.c), an ops struct with begin and end callbacks and
 * one callback per kind of states item; ht_export_run() drives it.
 * Streaming: what an exporter keeps is per core or per distinct name,
 * never per event.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "host/ctf/ctf-reader.h"
#include "host/analysis/func-names.h"
#include "host/analysis/states.h"

/* What an export wrote (for the summary and the tests). */
struct ht_export_stats {
	uint64_t events;    /* trace events read */
	uint64_t cores;	    /* core tracks */
	uint64_t groups;    /* core type groups */
	uint64_t slices;    /* task, interrupt and function slices */
	uint64_t instants;  /* other events, with their fields */
	uint64_t flows;	    /* matched messages (send -> receive) */
	uint64_t counters;  /* utilization samples */
	uint64_t anomalies; /* reported by the states model */
	uint64_t bytes;	    /* bytes written */
	uint64_t reader_errors;
	uint64_t damaged_times; /* events with a damaged time (states.h) */
};

struct ht_export_opts {
	int64_t counter_window_ns; /* utilization sample period; 0: 1 ms */
	size_t max_pending_msgs;   /* states.h; 0: its default */
	/* function names from ELF files (host/analysis/func-names.h), or NULL.
	 * With ELF files the record classes of the set are scanned first
	 * (ht_func_names_plan()); a core whose load bias is not known
	 * before its first function record (func_base missing, or not
	 * first) makes the set read twice: a first pass finds each core's
	 * bias (func_base, else the traced addresses), then the set is
	 * rewound and exported. */
	struct ht_func_names *fnames;
	/* what the set was opened to read (its .events and .begin_ns: the
	 * set is rewound there after the names' scan), or NULL: all */
	const struct ht_ctf_select *select;
	/* called with each anomaly text and each reader error; may be NULL */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
};

/* The output: a buffer in front of a FILE (internal to exporters).
 * Exporters append to @buf (buf.h) and call ht__export_maybe_flush()
 * between records. */
struct ht__export_out {
	FILE *f;
	struct ht_buf buf;
	uint64_t bytes;
	bool failed;
	int err_no; /* errno of the write that failed */
};

/* The state an exporter gets: the output, the options, the stats, and
 * a pointer for its own data (set in begin, released in end). */
struct ht_export {
	struct ht__export_out out;
	const struct ht_export_opts *opts;
	struct ht_export_stats *stats;
	const struct ht_states *states;
	void *priv;
	/* the core type groups met, in order: ht__export_group() */
	struct ht_strv groups;
};

struct ht_export_ops {
	const char *name;	 /* the --format value */
	const char *description; /* one line */
	int (*begin)(struct ht_export *ex);
	/* one callback per kind of states item (states.h), NULL for the
	 * kinds the format does not show: a core appears (it->core), a
	 * slice begins or ends, another event, a utilization window ends,
	 * a matched message */
	int (*core)(struct ht_export *ex, const struct ht_states_item *it);
	int (*slice)(struct ht_export *ex, const struct ht_states_item *it);
	int (*event)(struct ht_export *ex, const struct ht_states_item *it);
	int (*window)(struct ht_export *ex, const struct ht_states_item *it);
	int (*flow)(struct ht_export *ex, const struct ht_states_item *it);
	/* the end of the trace; also called after a failure, to release
	 * priv (@ok false: nothing more needs to be written) */
	int (*end)(struct ht_export *ex, bool ok);
};

/* The exporters, NULL-terminated, and one by name (NULL if none). */
extern const struct ht_export_ops *const ht_export_formats[];
const struct ht_export_ops *ht_export_find(const char *name);

/*
 * Reads @set to its end and writes it to @out in @ops's format.
 * Damaged input is counted (stats->reader_errors, @opts->warn) and the
 * reading goes on. Returns 0, HT_EIO when writing failed (@err says
 * why: "cannot write: No space left on device"), HT_ENOMEM. Writing
 * to a file whole or not at all is the caller's: out-file.h.
 */
int ht_export_run(const struct ht_export_ops *ops, struct ht_ctf_set *set,
		  FILE *out, const struct ht_export_opts *opts,
		  struct ht_export_stats *stats, char *err, size_t err_len);

/*
 * The index of the core type group @name, groups being numbered in the
 * order the cores show them; a group met for the first time is added,
 * counted in stats->groups, and *@added is set (else cleared). Returns 0
 * or HT_ENOMEM.
 */
int ht__export_group(struct ht_export *ex, const char *name, size_t *index,
		     bool *added);

/*
 * The place of core @c in the display order of every view
 * (ht_states_core_cmp(): role rank, then core id), as one number,
 * smaller first: what Perfetto's sibling_order_rank and Chrome JSON's
 * sort_index take (both int32). Cores of other roles tie within their
 * rank (the order among roles' names is not kept).
 */
int32_t ht__export_core_rank(const struct ht_states_core *c);

/* Appends @n bytes of @s to the output. */
void ht__export_puts(struct ht__export_out *o, const char *s, size_t n);
/* Writes the output out when it is more than half full (exporters call
 * it between records). Returns 0, HT_EIO or HT_ENOMEM. */
int ht__export_maybe_flush(struct ht__export_out *o);

#endif
