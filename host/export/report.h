/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_REPORT_H
#define HT_HOST_REPORT_H

/*
 * The HTML report (docs/report.md): one self-contained file (inline
 * CSS, JS and data; no network) with the per-core Gantt (tasks,
 * interrupts, idle; zoom and pan), function rows per core (named from
 * ELF files), message arrows, utilization charts
 * and heat map, the macro-activity Gantt and path view (with a path
 * description), and the sync plots (with `hetrace sync --report`).
 *
 * Scale: the per-core timelines are embedded as a pyramid of levels,
 * each a run-length list of the state that ran most in each time bucket
 * (4 times finer from one level to the next), plus the exact slices
 * when they fit; the levels are chosen to fit a size budget, so the
 * file size is bounded whatever the trace size. The viewer draws from
 * the coarsest level that resolves a pixel.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ht_ctf_select;

struct ht_report_opts {
	const char *paths_file; /* path description, or NULL */
	const char *sync_file;	/* `hetrace sync --report` JSON, or NULL */
	size_t budget_bytes;	/* timeline data budget; 0: 14 MiB */
	size_t max_flows;	/* message arrows kept; 0: 20000 */
	const char *title;	/* NULL: the first trace path */
	/* ELF files naming the traced functions, "[CORE=]FILE" each
	 * (host/analysis/func-names.h: relocated images through func_base) */
	const char *const *elfs;
	size_t nr_elfs;
	/* told what the user should know (names not found...); may be
	 * NULL; the page's notes say it too */
	void (*warn)(void *arg, const char *text);
	void *warn_arg;
	/* the cores and the time range shown (host/ctf/ctf-reader.h);
	 * NULL: all */
	const struct ht_ctf_select *select;
};

/* What was written (for the CLI's summary line). */
struct ht_report_stats {
	uint64_t events;
	size_t nr_cores;
	unsigned nr_levels; /* pyramid levels embedded */
	int exact;	    /* the exact slices are embedded */
	int64_t finest_ns;  /* the finest level's bucket (1 if exact) */
	uint64_t flows, flows_kept;
	uint64_t reader_errors; /* damaged parts of the traces, skipped */
	uint64_t damaged_times; /* events with a damaged time (states.h),
				 * told and noted as damaged parts are */
};

/*
 * Reads the traces under @traces and writes the report to @out.
 * Returns 0, or a negative HT_E... code with a message naming the file
 * and position in @err (unreadable trace, bad path file, malformed
 * sync JSON, a trace without any event). A damaged part of a trace is
 * not an error: it is skipped (the rest is used), told to opts->warn
 * (file and offset), noted in the page and counted in
 * stats->reader_errors.
 */
int ht_report_write(const char *const *traces, size_t nr_traces,
		    const struct ht_report_opts *opts, FILE *out,
		    struct ht_report_stats *stats, char *err, size_t err_len);

#endif
