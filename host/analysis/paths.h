/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_PATHS_H
#define HT_HOST_PATHS_H

/*
 * Execution-path analysis (García Martínez et al.; docs/paths.md):
 * a path description (host/analysis/path-desc.h) + the path events of a trace
 * (docs/events.md: the trigger, `activity_begin`, `activity_end`) ->
 * per instance its start, end, response time and deadline; per
 * activity its waiting time (from the moment its predecessors finished:
 * the last of them for `after`, the first for `after-any`, the trigger
 * for an activity with none) and its execution time (begin to end),
 * with min / mean / max / p99 over instances; for the worst instances,
 * what else ran on the cores of their activities meanwhile (the
 * interference), from the states model (host/analysis/states.h).
 *
 * Unmatched begins and ends, repeated triggers and activities that
 * start before their predecessors ended are counted and noted (with
 * file and offset), never turned into negative durations.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "host/ctf/ctf-reader.h"
#include "path-desc.h"

/* One activity in one instance. */
enum {
	HT_PATHS_RUN_BEGIN = 1u << 0, /* begin_ns is set */
	HT_PATHS_RUN_END = 1u << 1,   /* end_ns is set (after a begin) */
	HT_PATHS_RUN_READY = 1u << 2, /* ready_ns is set */
	HT_PATHS_RUN_EARLY = 1u << 3, /* began before it was ready: no
				       * waiting time */
};

struct ht_paths_run {
	int64_t ready_ns, begin_ns, end_ns;
	int32_t core;	/* index in the result's cores, -1 unknown */
	uint32_t flags; /* HT_PATHS_RUN_... */
};

struct ht_paths_stat {
	uint64_t count;
	uint64_t min_ns, max_ns, p99_ns; /* p99: nearest rank */
	double mean_ns;
};

enum ht_paths_deadline {
	HT_PATHS_DL_NONE, /* the path has no deadline */
	HT_PATHS_DL_MET,
	HT_PATHS_DL_MISSED,
	HT_PATHS_DL_UNKNOWN, /* the instance is incomplete */
};

struct ht_paths_instance {
	uint64_t number;
	bool has_trigger;
	int64_t trigger_ns;
	bool has_firing;      /* the path has a period */
	int64_t firing_ns;    /* expected firing time */
	bool complete;	      /* every activity that began also ended, and
			       * at least one ran */
	int64_t start_ns;     /* trigger, else the first activity begin */
	int64_t end_ns;	      /* the last activity end (complete only) */
	uint64_t response_ns; /* end - start (complete only) */
	enum ht_paths_deadline deadline;
	int64_t lateness_ns;	   /* end - (firing or start) - deadline:
				    * > 0 missed, <= 0 the slack */
	struct ht_paths_run *runs; /* one per activity of the path */
};

struct ht_paths_activity_stats {
	struct ht_paths_stat wait, exec;
	uint64_t not_run; /* instances where it never began */
	uint64_t early;	  /* began before its predecessors ended */
};

/* Something that ran on a core of a worst instance meanwhile. */
struct ht_paths_blame {
	char *who;	   /* task name or "irq N" */
	bool is_isr;	   /* interrupted, else preempted (the activity's task
			    * was ready, or its state is not known) */
	uint64_t total_ns; /* over all its cores */
	uint64_t *core_ns; /* per core of the result (0: not there) */
	uint64_t during;   /* activities overlapped (bit i: activity i,
			    * the first 64) */
};

/* What the task of an activity of a worst instance was blocked on
 * meanwhile (task_block .. task_wake, host/analysis/states.h): time
 * waiting, not interference; the tasks that ran on its core then are
 * not charged for it. */
struct ht_paths_blocked {
	char *task;		 /* the blocked task's name */
	uint64_t object;	 /* task_block's object */
	const char *object_kind; /* "msg", "sem", "queue" or "other" */
	uint64_t total_ns;	 /* over all its cores */
	uint64_t *core_ns;	 /* per core of the result */
	uint64_t during;	 /* activities (bit i: activity i) */
};

struct ht_paths_worst {
	size_t instance; /* index in instances[] */
	/* what ran on its cores while the activities' tasks were not
	 * blocked (preempted by a task, interrupted by an irq), by
	 * total_ns, largest first */
	struct ht_paths_blame *blame;
	size_t nr_blame, cap_blame;
	/* what they were blocked on, by total_ns, largest first */
	struct ht_paths_blocked *blocked;
	size_t nr_blocked, cap_blocked;
	/* the task states of its windows were too many to follow: blame
	 * holds everything that ran, blocked time included */
	bool states_dropped;
};

struct ht_paths_path_result {
	const struct ht_path *path;
	struct ht_paths_instance *instances; /* by start time */
	size_t nr_instances;
	struct ht_paths_stat response;
	struct ht_paths_stat jitter;	      /* trigger - expected firing */
	struct ht_paths_activity_stats *acts; /* per activity */
	uint64_t met, missed, incomplete, no_trigger;
	struct ht_paths_worst *worst; /* worst first */
	size_t nr_worst;
};

/* A core's place in the display order (ht_states_core_cmp()). */
struct ht_paths_core {
	char *role; /* core_<id>_role / core_role, or NULL */
	bool has_id;
	uint32_t id;
};

struct ht_paths_result {
	const struct ht_path_desc *desc;
	/* core names, by index, in display order (ht_states_core_cmp():
	 * role, then core id, then name); core_info parallel */
	char **cores;
	struct ht_paths_core *core_info;
	size_t nr_cores, cap_cores, cap_core_info;
	struct ht_paths_path_result *paths; /* as desc->paths */
	uint64_t events, path_events;
	uint64_t unmatched_begin, unmatched_end, repeated_trigger;
	uint64_t unknown_path, unknown_activity; /* events not described */
	uint64_t read_errors;
	bool has_states; /* the trace had task_switch or isr events */
	char **notes;	 /* the first anomalies, "file=... offset=...: ..." */
	size_t nr_notes;
	uint64_t nr_notes_dropped;
};

struct ht_paths_opts {
	size_t nr_worst;      /* instances explained per path; 0: 3 */
	bool no_interference; /* skip the second pass */
	/* the cores and the range read (host/ctf/ctf-reader.h); NULL:
	 * all (the interference pass reads every core of the range) */
	const struct ht_ctf_select *select;
};

/*
 * Analyzes the traces under @traces against @desc (which must outlive
 * the result). Damaged packets are skipped and counted (read_errors,
 * with a note). Returns 0, or a negative HT_E... code with a message
 * in @err (an unreadable trace, no memory).
 */
int ht_paths_analyze(const struct ht_path_desc *desc, const char *const *traces,
		     size_t nr_traces, const struct ht_paths_opts *opts,
		     struct ht_paths_result **res, char *err, size_t err_len);

void ht_paths_result_destroy(struct ht_paths_result *res);

/*
 * ht_paths_analyze() with the instances read from the caller's own
 * pass over the traces (a caller that reads them anyway saves a pass):
 * ht_paths_reader_create(), ht_paths_reader_feed() with every message
 * read (opts->select's range and cores), ht_paths_reader_skipped()
 * for each damaged part, then ht_paths_reader_finish() (the
 * statistics, and the interference pass unless opts->no_interference;
 * @traces are read for it), ht_paths_reader_destroy(). Each returns 0
 * or a negative HT_E... code (a message in @err).
 */
struct ht_paths_reader;
int ht_paths_reader_create(const struct ht_path_desc *desc,
			   const struct ht_paths_opts *opts,
			   struct ht_paths_reader **out);
int ht_paths_reader_feed(struct ht_paths_reader *rd,
			 const struct ht_ctf_msg *msg, char *err,
			 size_t err_len);
void ht_paths_reader_skipped(struct ht_paths_reader *rd, const char *text);
int ht_paths_reader_finish(struct ht_paths_reader *rd,
			   const char *const *traces, size_t nr_traces,
			   struct ht_paths_result **res, char *err,
			   size_t err_len);
void ht_paths_reader_destroy(struct ht_paths_reader *rd);

/*
 * The interference pass fed by the caller's own states model (a caller
 * that runs one over the traces anyway saves a pass): @res from
 * ht_paths_analyze() with no_interference; the model made with
 * no_events, fed every message of the traces, every core, the whole
 * time (no select). ht_paths_interference_create() (*@out NULL:
 * nothing to explain), ht_paths_interference_item() with each item of
 * the model, ht_paths_interference_finish() after ht_states_finish(),
 * then ht_paths_result_reorder(). Each returns 0 or a negative HT_E...
 * code.
 */
struct ht_paths_interference;
struct ht_states_item;
int ht_paths_interference_create(struct ht_paths_result *res,
				 struct ht_paths_interference **out);
int ht_paths_interference_item(struct ht_paths_interference *pi,
			       const struct ht_states_item *it);
int ht_paths_interference_finish(struct ht_paths_interference *pi);
void ht_paths_interference_destroy(struct ht_paths_interference *pi);
/* Puts the result's cores in display order again (after a pass that
 * met new cores). Returns 0 or HT_ENOMEM. */
int ht_paths_result_reorder(struct ht_paths_result *res);

/* The report as text: summary, per-activity table, instances (all of
 * them when @all_instances, else the missed and worst ones), the
 * worst instances explained. Returns 0 or HT_EIO. */
int ht_paths_write_text(const struct ht_paths_result *res, FILE *out,
			bool all_instances);

/* The whole result as one JSON object (docs/paths.md). Returns 0 or
 * HT_EIO. */
int ht_paths_write_json(const struct ht_paths_result *res, FILE *out);

/* The same with at most about @max_instances instances per path (evenly
 * thinned; the worst ones always kept). */
int ht_paths_write_json_max(const struct ht_paths_result *res, FILE *out,
			    size_t max_instances);

/* "204.000 ms", "12.500 us", "850 ns" into @buf. */
const char *ht_paths_format_ns(char *buf, size_t len, uint64_t ns);

#endif
