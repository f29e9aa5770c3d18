/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_REPORT_TIMELINE_H
#define HT_HOST_REPORT_TIMELINE_H

/*
 * The HTML report's data, built from the traces (internal to
 * report.c). Pass 1 runs the states model to count each row's segments
 * (the innermost slice running on a core: an interrupt over a task, a
 * task, idle; and per core the function rows) and to learn the cores
 * and the span; the levels of the timeline pyramid are chosen from
 * those counts to fit the budget. Pass 2 runs the model again and
 * encodes every segment into every level, keeps the message flows
 * (evenly thinned to the limit) and the utilization per bucket. It
 * knows nothing of HTML: report.c writes what is built here.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "host/analysis/func-names.h"
#include "host/analysis/paths.h"
#include "host/analysis/states.h"
#include "host/ctf/pretty.h"

#define UTIL_BUCKETS 1024
#define MAX_LEVELS 12
#define STACK_MAX 80
/* function rows per core: depth 0, 1, 2, then the innermost call at
 * depth 3 or more (a flame lane cut at a fixed height) */
#define FUNC_ROWS 4

struct state {
	enum ht_states_kind kind;
	char *name;
	bool task_state; /* a state of the task rows (running, ready...) */
};

struct acc {
	uint32_t state;
	uint64_t ns;
};

/* One level of one row: runs (bucket delta, state id) as varint pairs
 * while encoded; ht__report_finish() packs them (docs/report.md, "The
 * data"): a palette of the row's states, then one varint per run,
 * bucket delta << b | palette index (b bits: the palette's size). */
struct enc {
	/* what every segment reads first, together */
	int64_t cur; /* bucket being accumulated, -1 none */
	/* bucket in_k holds the positions [in_lo, in_hi) (-1: none);
	 * found once a second segment in a row lies in one bucket
	 * (seen_k: the bucket of the last such segment) */
	int64_t in_k, seen_k;
	uint64_t in_lo, in_hi;
	struct acc *acc; /* the states of bucket cur and their ns */
	size_t nr_acc, cap_acc;
	int64_t next;	  /* first bucket not yet covered by a run */
	int64_t last_run; /* bucket of the last run emitted */
	uint32_t last_state;
	struct ht_buf out;
	uint64_t runs;
};

/* One row of the timeline: its segments encoded in every level. */
struct trow {
	uint64_t segs;	  /* pass 1: segments counted */
	struct enc *lv;	  /* per level */
	struct enc exact; /* unit 1 ns */
};

struct core {
	struct trow row; /* what ran: tasks, interrupts, idle */
	uint32_t stack[STACK_MAX];
	unsigned depth;
	int64_t last_ns;
	uint64_t *busy;	 /* per util bucket, ns busy (task + isr) */
	uint64_t *known; /* per util bucket, ns known */
	/* function calls: the state of each open call by depth, and the
	 * function rows (index into report.frows + 1, 0: none yet) */
	uint32_t fstack[STACK_MAX];
	size_t frow[FUNC_ROWS];
};

/* A task row (the process Gantt): one task of one core, its states
 * (running, ready, blocked, interrupted: states.h's TASK_STATE items). */
struct taskrow {
	struct trow row;
	unsigned core;
	uint64_t tid;
	char *name;
	int64_t last_end; /* the end of its last interval encoded */
};

/* A task row in report.task_hash: row index + 1, 0 empty. */
struct task_slot {
	uint64_t tid;
	uint32_t core, row;
};

/* the task rows' states, in r->ts_state */
enum { TS_RUNNING, TS_READY, TS_BLOCKED, TS_INTERRUPTED, TS_NR };

/* A function row: the call at one depth of one core. */
struct frow {
	struct trow row;
	unsigned core, depth;
	uint32_t state; /* running now (0: none) */
	int64_t since;
};

struct report {
	int pass;
	const struct ht_ctf_select *select; /* what is read; NULL: all */
	struct state *states;
	size_t nr_states, cap_states;
	struct core *cores; /* by states core index */
	size_t nr_cores, cap_cores;
	/* the time axis: [t0, t1], span = t1 - t0 >= 1 (unsigned: any two
	 * times); positions on it are ht__report_rel() */
	int64_t t0, t1;
	uint64_t span;
	unsigned nr_levels;
	int64_t level_n[MAX_LEVELS];  /* buckets per level */
	double level_per[MAX_LEVELS]; /* buckets per ns */
	/* pass 2: the runs' bytes may reach enc_cap (projected from the
	 * time read, now_ns, to the end: enc_project); past it the finest
	 * level (the exact one first) is dropped, checked every
	 * CHECK_SEGS segments */
	size_t enc_cap, enc_project;
	uint64_t enc_segs;
	int64_t now_ns;
	bool exact;
	unsigned nr_kept; /* levels written */
	bool exact_kept;
	uint64_t flows, flows_kept, flow_stride;
	struct ht_buf flow_json;
	struct frow *frows; /* in order of creation (the same both passes) */
	size_t nr_frows, cap_frows;
	uint32_t *state_hash; /* state ids by (kind, name); 0 empty */
	size_t hash_cap;
	size_t nr_core_rows; /* rows before the function rows */
	/* task rows, after the function rows (made in pass 1), found by
	 * (core, tid) in task_hash (the keys there: a lookup reads no
	 * row) */
	struct taskrow *trows;
	size_t nr_trows, cap_trows;
	struct task_slot *task_hash;
	size_t task_hash_cap;
	uint32_t ts_state[TS_NR]; /* state ids, 0 not made yet */
	struct ht_buf notes;	  /* JSON strings, comma-separated */
	/* the event table (pass 2): every ev_stride-th event as JSON
	 * arrays [core, time, "name", "fields"], one a line; past
	 * ev_bytes, every other row is dropped and the stride doubled */
	uint64_t ev_max, ev_stride, ev_seen, ev_kept;
	size_t ev_bytes;
	struct ht_buf ev_json;
	struct ht_pretty *pretty;
	/* the core of each stream (index + 1, 0 unknown), learnt from the
	 * items the model delivers while a message is fed */
	unsigned *stream_core;
	size_t nr_stream_core, cap_stream_core;
	bool feeding;
	unsigned feed_core; /* index + 1 of the first core item, 0 none */
	/* pass 2 feeds the path analysis' interference pass too (NULL:
	 * none, or it reads on its own) */
	struct ht_paths_interference *interference;
	/* pass 1 feeds the path analysis' instance pass (NULL: none) */
	struct ht_paths_reader *paths_reader;
	uint64_t reader_errors;
	uint64_t damaged_times; /* events with a damaged time (states.h) */
	void (*on_damage)(void *arg, const char *text);
	void *on_damage_arg;
	bool nomem;
};

/* The position of time @t on the report's axis, in ns from t0 (0 for
 * a time before t0). */
static inline uint64_t ht__report_rel(const struct report *r, int64_t t)
{
	return t > r->t0 ? (uint64_t)t - (uint64_t)r->t0 : 0;
}

/* Row @i of the page: the cores' rows, the function rows, then the
 * task rows. */
static inline struct trow *ht__report_row(struct report *r, size_t i)
{
	if (i < r->nr_core_rows) {
		return &r->cores[i].row;
	}
	i -= r->nr_core_rows;
	return i < r->nr_frows ? &r->frows[i].row
			       : &r->trows[i - r->nr_frows].row;
}

static inline size_t ht__report_nr_rows(const struct report *r)
{
	return r->nr_core_rows + r->nr_frows + r->nr_trows;
}

/* The core of states index @index, made (zeroed) when new; NULL (and
 * r->nomem) when there is no memory. */
struct core *ht__report_core(struct report *r, unsigned index);

/* One pass over the traces through the states model (r->pass says
 * which); pass 1 also feeds @fnames (the load bias of each core), pass
 * 2 names with it. *@stp is the model, for its totals. */
int ht__report_pass(struct report *r, const char *const *traces,
		    size_t nr_traces, struct ht_func_names *fnames,
		    struct ht_states **stp, char *err, size_t err_len);

/* After pass 1: the levels to encode for a page of @budget bytes
 * (those whose worst case is within 16 times @budget; pass 2 drops the
 * finest while the runs pass 3 times @budget), and the memory of pass
 * 2. Returns 0 or HT_ENOMEM. */
int ht__report_plan(struct report *r, size_t budget);

/* After pass 2: ends every row's runs and packs them, then keeps the
 * levels that fit
 * @budget with the event table, which is thinned (to a sixteenth of
 * @budget at least) while a smaller one lets a finer level in. Returns
 * 0 or HT_ENOMEM. */
int ht__report_finish(struct report *r, size_t budget);

/* Frees what @r holds. */
void ht__report_fini(struct report *r);

#endif
