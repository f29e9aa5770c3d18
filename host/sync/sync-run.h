/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_SYNC_RUN_H
#define HT_HOST_SYNC_RUN_H

/*
 * `hetrace sync` as a library call: capture -> messages (capture-reader.h) ->
 * convex-hull fit (clock-fit.h) -> one merged CTF trace on the
 * reference clock (merge.h), plus the figures per core and the JSON
 * report the sync plot is drawn from. docs/merge.md.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "capture-reader.h"
#include "clock-fit.h"
#include "merge.h"

struct ht_sync_run_opts {
	const char *capture; /* the capture directory */
	const char *out_dir; /* the merged trace; NULL: fit only */
	bool overwrite;
	const char *reference; /* core name; NULL: the root master */
	/* merge absent/failed cores on their own clock (marked) */
	bool allow_unsynced;
	size_t packet_bytes; /* 0: the writer's default */
	/* an LTTng-UST trace as the master core (capture-reader.h,
	 * docs/lttng.md); NULL: none given */
	const char *lttng_dir;
	const char *lttng_core; /* its core name; NULL: the default */
};

/*
 * One piece of a core's piecewise fit (its clock rate stepped: DVFS),
 * with the same figures as the core's row.
 */
struct ht_sync_run_piece {
	/* where the piece begins on the reference clock, ns: the step
	 * (the fit's break) for the pieces after the first, the core's
	 * first event (else its first pair) for the first; NAN when it
	 * cannot be mapped */
	double start_ns;
	/* the piece's rate against the nominal one, like the core's */
	double drift_ppm;
	double offset_ns;     /* mapped minus own time at start_ns */
	double half_width_ns; /* at the piece's messages; -1 unbounded */
	size_t pairs;	      /* the pairs that define the piece */
};

/* The result for one core. */
struct ht_sync_run_core {
	const struct ht_capture_core *core;
	enum ht_fit_quality quality;
	long parent;   /* core index, -1 for none */
	bool unsynced; /* merged on its own clock */
	double drift_ppm;
	/* mapped minus own time at the core's first event, ns */
	double offset_ns;
	/* largest (hi - lo) / 2 at the times of the core's messages, ns;
	 * -1 when unbounded */
	double half_width_ns;
	size_t pairs_up, pairs_down, pairs_used, pairs_rejected;
	size_t nr_segments;
	/* one per piece when the fit has two or more, else none */
	struct ht_sync_run_piece *pieces;
	size_t nr_pieces;
	/* messages to or from this core that would still be received
	 * before they were sent after the mapping ("too fast") */
	uint64_t order_violations;
	/* receives on this core moved later within their clock tick so
	 * that they follow their send (coarse clocks) */
	uint64_t order_fixed;
	/* its event times beyond the int64 ns range (clock offset or
	 * frequency): saturated in the trace */
	uint64_t saturated;
	void *fixes; /* internal */
	size_t nr_fixes, cap_fixes;
};

struct ht_sync_run {
	struct ht_capture_reader *cap;
	struct ht_fit_set *sync;
	size_t reference; /* core index */
	struct ht_sync_run_core *cores;
	size_t nr_cores;
	bool merged; /* the trace was written */
	struct ht_merge_stats merge;
	/* the outcome: what made it fail, if anything */
	size_t nr_unsynced; /* absent or failed cores */
	uint64_t damaged;   /* damaged packets skipped */
	/* events with a damaged timestamp (capture-reader.h), placed at
	 * their predecessor's time */
	uint64_t bad_times;
	uint64_t saturated; /* event times saturated (all cores) */
	/* the LTTng kernel trace merged as the master's CPUs
	 * (sync-kernel.h), or NULL; kernel_master: that master's index */
	const struct ht_ctf_trace *kernel;
	size_t kernel_master;
};

/*
 * Runs the whole pipeline. On success *@run holds the result (free it
 * with ht_sync_run_free()), also when some cores are absent (then the
 * trace is written only with allow_unsynced; run->merged says). A core
 * the capture knows of and that cannot be read
 * (ht_capture_reader_missing()) is an error unless allow_unsynced,
 * which leaves it out (named in the env and the report). Returns a
 * negative HT_E... code with a message in @err when the capture cannot
 * be used or the output cannot be written.
 */
int ht_sync_run(const struct ht_sync_run_opts *opts, struct ht_sync_run **run,
		char *err, size_t err_len);

void ht_sync_run_free(struct ht_sync_run *run);

/*
 * Writes the JSON report (docs/merge.md): per core its figures, and
 * per non-reference core the fit: pairs (at most @max_pairs per
 * direction, evenly downsampled), the min/max lines, the estimate, the
 * segments and the bounds sampled over the trace.
 */
int ht_sync_run_write_json(const struct ht_sync_run *run, FILE *f,
			   size_t max_pairs);

#endif
