/* SPDX-License-Identifier: MIT */
/* hetrace-command: 30 sync: synchronize the clocks, merge into one CTF trace */
/*
 * hetrace sync CAPTURE -o TRACE: messages from the handshake and the
 * application, the convex-hull fit per core, one merged trace on the
 * reference clock (host/sync/sync-run.h). docs/merge.md.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/error.h"
#include "common/time-format.h"
#include "host/sync/sync-run.h"

/* notes shown on stderr before "... more" */
#define MAX_SHOWN_NOTES 20

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: %s [OPTIONS] CAPTURE -o TRACE\n\n"
	    "Synchronizes the clocks of the cores of CAPTURE (one CTF\n"
	    "trace per core) from the sync handshake and the matched\n"
	    "application messages (convex-hull method), prints per core\n"
	    "the quality, drift, offset, bound half-width and pairs, and\n"
	    "writes one CTF trace on the reference core's clock (in ns)\n"
	    "with one stream per core.\n\n"
	    "options:\n"
	    "  -o, --output TRACE     the merged trace directory\n"
	    "  -r, --report FILE      write the fit as JSON (the sync plot)\n"
	    "      --reference CORE   the reference core (default: the\n"
	    "                         master that has no master)\n"
	    "      --allow-unsynced   merge cores without a fit (absent\n"
	    "                         or failed) on their own clock, and\n"
	    "                         leave out the cores that cannot be\n"
	    "                         read, marked in the env, the report\n"
	    "                         and on stdout\n"
	    "      --master-lttng DIR the master core is the LTTng-UST trace\n"
	    "                         under DIR (an LTTng session's output);\n"
	    "                         the result keeps its clock and events\n"
	    "                         (docs/lttng.md)\n"
	    "                         and/or the LTTng kernel trace of the\n"
	    "                         master's CPUs, merged on its clock as\n"
	    "                         cores <master>/cpu<N> (id 1000 + N)\n"
	    "      --lttng-core NAME  the core the LTTng trace stands for\n"
	    "                         (default: the capture's master)\n"
	    "      --max-pairs N      pairs per direction in the report\n"
	    "                         (default 2000, 0: all)\n"
	    "      --force            overwrite an existing TRACE\n"
	    "      --no-merge         fit and report only\n"
	    "  -h, --help             this help\n\n"
	    "Exit status: 0 success; 1 when the merged trace is missing\n"
	    "or wrong (a core absent or unreadable without\n"
	    "--allow-unsynced, a failed fit, damaged streams skipped,\n"
	    "damaged timestamps, times beyond 2^63 ns, a trace that\n"
	    "hetrace sync wrote already); 2 usage error.\n",
	    ht_cli_prog);
}

struct notes {
	unsigned shown;
	unsigned more;
};

static void note_cb(void *arg, const char *msg)
{
	struct notes *n = arg;

	if (n->shown < MAX_SHOWN_NOTES) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, msg);
		n->shown++;
	} else {
		n->more++;
	}
}

/* A signed duration (an offset, a bound), to the ns, in the form of
 * every text view (common/time-format.h); "-" when unknown. */
static void fmt_ns(char *buf, size_t len, double ns)
{
	double a = fabs(ns);
	char d[24]; /* "18446744073.709 s" at most */

	if (isnan(ns)) {
		snprintf(buf, len, "-");
		return;
	}
	ht_time_format_duration(d, sizeof(d),
				a >= 1.8e19 ? UINT64_MAX : (uint64_t)(a + 0.5));
	snprintf(buf, len, "%s%s", ns < 0 && a >= 0.5 ? "-" : "", d);
}

/*
 * The pieces of a core whose clock rate stepped, one line each under
 * its row: the same columns, and where the piece begins on the
 * reference clock (the step for the pieces after the first).
 */
static void print_pieces(const struct ht_sync_run_core *r)
{
	size_t k;

	for (k = 0; k < r->nr_pieces; k++) {
		const struct ht_sync_run_piece *pc = &r->pieces[k];
		char name[32], drift[32], off[32], w[32], at[32];

		snprintf(name, sizeof(name), "  piece %zu", k + 1);
		snprintf(drift, sizeof(drift), "%+.3f", pc->drift_ppm);
		fmt_ns(off, sizeof(off), pc->offset_ns);
		if (pc->half_width_ns < 0) {
			snprintf(w, sizeof(w), "unbounded");
		} else {
			fmt_ns(w, sizeof(w), pc->half_width_ns);
		}
		if (isnan(pc->start_ns) || fabs(pc->start_ns) >= 9.2e18) {
			snprintf(at, sizeof(at), "- s");
		} else {
			ht_time_format_timestamp(at, sizeof(at) - 2,
						 (int64_t)pc->start_ns);
			strcat(at, " s");
		}
		printf("%-12s %-12s %12s %14s %12s %8zu  %s %s\n", name, "",
		       drift, off, w, pc->pairs, k ? "step at" : "from", at);
	}
}

static void print_cores(const struct ht_sync_run *run)
{
	size_t i, p;

	printf("%-12s %-12s %12s %14s %12s %8s %8s\n", "core", "quality",
	       "drift ppm", "offset", "half-width", "pairs", "rejected");
	for (i = 0; i < run->nr_cores; i++) {
		const struct ht_sync_run_core *r = &run->cores[i];
		char off[32], w[32], drift[32];

		fmt_ns(off, sizeof(off), r->offset_ns);
		if (r->half_width_ns < 0) {
			snprintf(w, sizeof(w), "%s",
				 r->unsynced ? "-" : "unbounded");
		} else {
			fmt_ns(w, sizeof(w), r->half_width_ns);
		}
		if (r->unsynced || r->quality == HT_FIT_REFERENCE) {
			snprintf(drift, sizeof(drift), "-");
		} else {
			snprintf(drift, sizeof(drift), "%+.3f", r->drift_ppm);
		}
		printf("%-12s %-12s %12s %14s %12s %8zu %8zu%s\n",
		       r->core->name, ht_fit_quality_name(r->quality), drift,
		       r->quality == HT_FIT_REFERENCE ? "0" : off, w,
		       r->pairs_used, r->pairs_rejected,
		       r->unsynced ? "  UNSYNCHRONIZED" : "");
		print_pieces(r);
	}
	for (i = 0; i < run->nr_cores; i++) {
		const struct ht_sync_run_core *r = &run->cores[i];
		const struct ht_capture_core *c = r->core;

		for (p = 0; p < HT_CAPTURE_NR_PROBLEMS; p++) {
			if (c->problems[p]) {
				printf("%s: %" PRIu64 " x %s\n", c->name,
				       c->problems[p],
				       ht_capture_problem_name(p));
			}
		}
		if (r->order_violations) {
			printf("%s: %" PRIu64 " message(s) still received "
			       "before sent after sync (\"too fast\")\n",
			       c->name, r->order_violations);
		}
		if (r->saturated) {
			printf("%s: %" PRIu64 " event time(s) beyond 2^63 ns "
			       "on clock %s, saturated\n",
			       c->name, r->saturated, c->clock->name);
		}
		if (c->discarded_events || c->lost_packets) {
			printf("%s: %" PRIu64 " discarded event(s), %" PRIu64
			       " lost packet(s) (carried into the trace)\n",
			       c->name, c->discarded_events, c->lost_packets);
		}
	}
}

/* The cores left out because they cannot be read (--allow-unsynced). */
static void missing_lines(const struct ht_sync_run *run)
{
	size_t i, n = ht_capture_reader_nr_missing(run->cap);
	uint64_t more = ht_capture_reader_nr_missing_dropped(run->cap);

	for (i = 0; i < n; i++) {
		const struct ht_capture_missing *m =
		    ht_capture_reader_missing(run->cap, i);

		printf("%s: MISSING, left out: %s: %s\n", m->name, m->file,
		       m->why);
		fprintf(stderr,
			"%s: warning: core %s cannot be read and is left "
			"out (--allow-unsynced): %s: %s\n",
			ht_cli_prog, m->name, m->file, m->why);
	}
	if (more) {
		printf("... and %" PRIu64 " more missing core(s)\n", more);
	}
}

/* The LTTng-UST master: what it is, and when it holds no pair. */
static void lttng_lines(const struct ht_sync_run *run)
{
	size_t i, k, pairs = 0;
	long lt = -1;

	for (i = 0; i < run->nr_cores; i++) {
		if (run->cores[i].core->is_lttng) {
			lt = (long)i;
		}
	}
	if (lt < 0) {
		return;
	}
	printf("%s: LTTng-UST trace %s%s\n", run->cores[lt].core->name,
	       run->cores[lt].core->trace->path,
	       (size_t)lt == run->reference
		   ? " (its clock, events and timestamps are kept)"
		   : "");
	for (k = 0; k < ht_capture_reader_nr_links(run->cap); k++) {
		const struct ht_capture_link *l =
		    ht_capture_reader_link_at(run->cap, k);

		if (l->from == (size_t)lt || l->to == (size_t)lt) {
			pairs += l->nr_pairs;
		}
	}
	if (!pairs) {
		fprintf(stderr,
			"%s: %s: no pairs: the LTTng-UST trace %s has %s "
			"(hetrace:sync_req, hetrace:sync_recv, "
			"hetrace:msg_send, hetrace:msg_recv; docs/lttng.md)\n",
			ht_cli_prog, run->cores[lt].core->name,
			run->cores[lt].core->trace->path,
			run->cores[lt].core->nr_sync_events
			    ? "no event matching the other cores'"
			    : "no event of hetrace's provider");
	}
}

/* What the options ask for. */
struct sync_args {
	struct ht_sync_run_opts o;
	const char *report;
	uint64_t max_pairs;
	bool no_merge;
};

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct sync_args *a)
{
	const struct ht_cli_opt table[] = {
	    HT_CLI_STRING('o', "output", &a->o.out_dir),
	    HT_CLI_STRING('r', "report", &a->report),
	    HT_CLI_STRING(0, "reference", &a->o.reference),
	    HT_CLI_FLAG(0, "allow-unsynced", &a->o.allow_unsynced),
	    HT_CLI_UINT(0, "max-pairs", &a->max_pairs, 0, UINT32_MAX,
			"a number of pairs"),
	    HT_CLI_STRING(0, "master-lttng", &a->o.lttng_dir),
	    HT_CLI_STRING(0, "lttng-core", &a->o.lttng_core),
	    HT_CLI_FLAG(0, "force", &a->o.overwrite),
	    HT_CLI_FLAG(0, "no-merge", &a->no_merge),
	    HT_CLI_OPT_END,
	};
	struct ht_cli_args args;
	int ret;

	ret = ht_cli_parse(argc, argv, table, 0, usage, &args);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	if (args.nr != 1 || (!a->o.out_dir && !a->no_merge)) {
		return ht_cli_usage_error(
		    usage, "%s",
		    args.nr != 1 ? "one CAPTURE directory expected"
				 : "-o TRACE is required (or --no-merge)");
	}
	if (a->no_merge) {
		a->o.out_dir = NULL;
	}
	a->o.capture = args.v[0];
	return HT_CLI_GO_ON;
}

/* What came out: what went wrong, per core and overall, on stderr, the
 * merged trace on stdout. Returns the exit status it makes. */
static int tell_result(const struct ht_sync_run *run,
		       const struct ht_sync_run_opts *o)
{
	int status = HT_EXIT_OK;
	size_t i;

	for (i = 0; i < run->nr_cores; i++) {
		const struct ht_sync_run_core *r = &run->cores[i];

		if (r->quality == HT_FIT_FAIL) {
			fprintf(stderr,
				"%s: core %s: no clock transform fits its "
				"messages (fail)%s%s\n",
				ht_cli_prog, r->core->name,
				run->merged ? "; merged on its own clock" : "",
				run->cores[run->reference].core->is_lttng
				    ? " (was the LTTng-UST trace recorded "
				      "during this capture, on its master?)"
				    : "");
			status = HT_EXIT_FAIL;
		} else if (r->unsynced) {
			fprintf(stderr,
				"%s: core %s: %s (no sync messages link it to "
				"%s)%s\n",
				ht_cli_prog, r->core->name,
				ht_fit_quality_name(r->quality),
				run->cores[run->reference].core->name,
				run->merged ? "; merged UNSYNCHRONIZED on its "
					      "own clock"
					    : "");
			if (!o->allow_unsynced && o->out_dir) {
				status = HT_EXIT_FAIL;
			}
		}
	}
	if (o->out_dir && !run->merged) {
		fprintf(stderr,
			"%s: no trace written: %zu core(s) cannot be "
			"synchronized; --allow-unsynced merges them on their "
			"own clock\n",
			ht_cli_prog, run->nr_unsynced);
		status = HT_EXIT_FAIL;
	}
	if (run->merged) {
		printf("merged: %" PRIu64 " events, %zu streams -> %s\n",
		       run->merge.events, run->merge.streams, o->out_dir);
	}
	if (run->damaged) {
		fprintf(stderr,
			"%s: %" PRIu64 " damaged packet(s) skipped: the "
			"result is incomplete\n",
			ht_cli_prog, run->damaged);
		status = HT_EXIT_FAIL;
	}
	if (run->bad_times) {
		fprintf(stderr,
			"%s: %" PRIu64 " event(s) with a damaged timestamp "
			"(notes above: file and offset), placed at the time "
			"of the event before them: the result is wrong there\n",
			ht_cli_prog, run->bad_times);
		status = HT_EXIT_FAIL;
	}
	if (run->saturated) {
		fprintf(stderr,
			"%s: %" PRIu64 " event time(s) beyond 2^63 ns "
			"(a clock offset or frequency out of range), "
			"saturated: the result is wrong there\n",
			ht_cli_prog, run->saturated);
		status = HT_EXIT_FAIL;
	}
	return status;
}

int cmd_sync(int argc, char **argv)
{
	struct sync_args a = {.max_pairs = 2000};
	struct notes notes = {0};
	struct ht_sync_run *run;
	int ret, status = HT_EXIT_OK;
	char err[1024] = "";
	size_t i;

	ret = parse_options(argc, argv, &a);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	ret = ht_sync_run(&a.o, &run, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog,
			err[0] ? err : ht_strerror(ret));
		return HT_EXIT_FAIL;
	}
	for (i = 0; i < ht_capture_reader_nr_notes(run->cap); i++) {
		note_cb(&notes, ht_capture_reader_note(run->cap, i));
	}
	if (notes.more || ht_capture_reader_nr_notes_dropped(run->cap)) {
		fprintf(stderr, "%s: ... and %" PRIu64 " more\n", ht_cli_prog,
			notes.more +
			    ht_capture_reader_nr_notes_dropped(run->cap));
	}
	printf("reference: %s (clock %s, %" PRIu64 " Hz)\n",
	       run->cores[run->reference].core->name,
	       run->cores[run->reference].core->clock->name,
	       run->cores[run->reference].core->clock->freq_hz);
	lttng_lines(run);
	if (run->kernel) {
		printf("%s/cpu*: LTTng kernel trace %s (on %s's clock, core "
		       "ids 1000 + CPU)\n",
		       run->cores[run->kernel_master].core->name,
		       run->kernel->path,
		       run->cores[run->kernel_master].core->name);
	}
	print_cores(run);
	missing_lines(run);
	if (a.report) {
		FILE *f = fopen(a.report, "w");

		if (!f || ht_sync_run_write_json(run, f, (size_t)a.max_pairs) ||
		    fclose(f)) {
			fprintf(stderr, "%s: cannot write the report %s\n",
				ht_cli_prog, a.report);
			status = HT_EXIT_FAIL;
		}
	}
	if (tell_result(run, &a.o)) {
		status = HT_EXIT_FAIL;
	}
	ht_sync_run_free(run);
	return status;
}
