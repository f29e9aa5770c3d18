/* SPDX-License-Identifier: MIT */
/* hetrace-command: 75 export: write a trace for Perfetto (protobuf) or as Chrome trace JSON */
/*
 * hetrace export TRACE... --format FORMAT -o FILE: the exporters of
 * host/export/export.h; prints what was written (tracks, slices, instants,
 * flows, counters) on stderr.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "host/ctf/ctf-reader.h"
#include "common/error.h"
#include "host/export/export.h"
#include "host/export/out-file.h"

#define MAX_WARNINGS_SHOWN 20

static uint64_t nr_warnings;

static void usage(FILE *out)
{
	size_t i;

	fprintf(
	    out,
	    "usage: %s [OPTIONS] TRACE... -o FILE\n\n"
	    "Writes the CTF traces under TRACE... (a synchronized trace or\n"
	    "a capture) for a trace viewer: one track per core, grouped by\n"
	    "core type; task, interrupt and function slices; the other\n"
	    "events as instants with their fields; message flows; a CPU\n"
	    "utilization counter per core.\n\n"
	    "options:\n"
	    "  -f, --format F     output format (default perfetto):\n",
	    ht_cli_prog);
	for (i = 0; ht_export_formats[i]; i++) {
		fprintf(out, "                       %-12s %s\n",
			ht_export_formats[i]->name,
			ht_export_formats[i]->description);
	}
	fprintf(out,
		"  -o, --output FILE  the file to write ('-': stdout)\n"
		"  -w, --window NS    utilization counter period (default "
		"1000000)\n"
		"  -e, --elf [CORE=]FILE  name functions from this ELF "
		"file's symbols\n"
		"                     (for CORE only, or every core without "
		"its own;\n"
		"                     repeatable; relocated images: the load "
		"base from\n"
		"                     the trace's func_base record)\n"
		"  -q, --quiet        no summary on stderr\n" HT_CLI_RANGE_HELP
		    HT_CLI_EVENTS_HELP "  -h, --help         this help\n");
}

static void warn_cb(void *arg, const char *msg)
{
	(void)arg;
	if (nr_warnings++ < MAX_WARNINGS_SHOWN) {
		fprintf(stderr, "%s: warning: %s\n", ht_cli_prog, msg);
	}
}

/* What the options ask for. */
struct export_args {
	struct ht_export_opts eopts;
	const struct ht_export_ops *ops;
	const char *output;
	struct ht_cli_elfs elfs;
	bool quiet;
	struct ht_cli_args traces;
	struct ht_cli_range range;
};

/* --format F. */
static int format_opt(const struct ht_cli_opt *opt, const char *arg)
{
	const struct ht_export_ops **ops = opt->to.arg;

	*ops = ht_export_find(arg);
	if (!*ops) {
		return ht_cli_usage_error(usage, "unknown format '%s'", arg);
	}
	return HT_CLI_GO_ON;
}

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct export_args *a)
{
	uint64_t window_ns = 0;
	const struct ht_cli_opt table[] = {
	    HT_CLI_CALL('f', "format", format_opt, &a->ops),
	    HT_CLI_STRING('o', "output", &a->output),
	    HT_CLI_UINT('w', "window", &window_ns, 1, INT64_MAX,
			"a period in ns"),
	    /* opened once the options are known to be right */
	    HT_CLI_ELF(&a->elfs),
	    HT_CLI_FLAG('q', "quiet", &a->quiet),
	    HT_CLI_RANGE(&a->range, 'c'),
	    HT_CLI_EVENTS(&a->range),
	    HT_CLI_OPT_END,
	};
	int ret;

	ret = ht_cli_parse(argc, argv, table, 0, usage, &a->traces);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	if (!a->traces.nr || !a->output) {
		return ht_cli_usage_error(usage, "%s",
					  !a->output ? "-o FILE is required"
						     : "no trace given");
	}
	/* not given: 0, the exporter's default */
	a->eopts.counter_window_ns = (int64_t)window_ns;
	return HT_CLI_GO_ON;
}

/* What was written, on stderr. Returns the exit status it makes. */
static int tell_stats(const struct export_args *a,
		      const struct ht_export_stats *stats)
{
	int status;

	if (nr_warnings > MAX_WARNINGS_SHOWN) {
		fprintf(stderr, "%s: %" PRIu64 " warnings (%d shown)\n",
			ht_cli_prog, nr_warnings, MAX_WARNINGS_SHOWN);
	}
	status = ht_cli_tell_skipped(stats->reader_errors);
	if (stats->damaged_times) {
		fprintf(stderr,
			"%s: %" PRIu64 " events with a damaged time (taken as "
			"their core's last time)\n",
			ht_cli_prog, stats->damaged_times);
		status = HT_EXIT_FAIL;
	}
	if (!a->quiet) {
		fprintf(
		    stderr,
		    "%s: %s: %" PRIu64 " events: %" PRIu64 " groups, %" PRIu64
		    " cores, %" PRIu64 " slices, %" PRIu64 " instants, %" PRIu64
		    " flows, %" PRIu64 " counter samples, %" PRIu64
		    " anomalies, %" PRIu64 " bytes\n",
		    ht_cli_prog, a->ops->name, stats->events, stats->groups,
		    stats->cores, stats->slices, stats->instants, stats->flows,
		    stats->counters, stats->anomalies, stats->bytes);
	}
	return status;
}

int cmd_export(int argc, char **argv)
{
	struct export_args a = {
	    .eopts = {.warn = warn_cb},
	    .ops = ht_export_find("perfetto"),
	};
	struct ht_ctf_open_opts opts = {
	    .flags = HT_CTF_KEEP_GOING | HT_CTF_EVENTS_ONLY,
	    .warn = warn_cb,
	};
	struct ht_export_stats stats;
	struct ht_ctf_set *set = NULL;
	struct ht_func_names *fnames = NULL;
	struct ht_out_file out;
	char err[1024];
	int ret, status;

	nr_warnings = 0;
	status = parse_options(argc, argv, &a);
	if (status != HT_CLI_GO_ON) {
		return status;
	}
	if (ht_cli_elf_open(&fnames, &a.elfs, NULL)) {
		return HT_EXIT_FAIL;
	}
	a.eopts.fnames = fnames;
	status = ht_cli_range_prepare(&a.range, a.traces.v, a.traces.nr, &opts,
				      false);
	if (status == HT_CLI_GO_ON) {
		a.eopts.select = opts.select;
		status =
		    ht_cli_open_traces(&set, a.traces.v, a.traces.nr, &opts);
	}
	if (status) {
		goto destroy_fnames;
	}
	/* written whole or not at all: a failure leaves no truncated
	 * file that looks like an export, and the previous one in place */
	if (ht_out_file_open(&out, a.output, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		status = HT_EXIT_FAIL;
		goto close_set;
	}
	ret = ht_export_run(a.ops, set, out.f, &a.eopts, &stats, err,
			    sizeof(err));
	if (ret) {
		ht_out_file_abort(&out);
		fprintf(stderr, "%s: %s: %s\n", ht_cli_prog, a.output, err);
		status = HT_EXIT_FAIL;
		goto close_set;
	}
	if (ht_out_file_commit(&out, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		status = HT_EXIT_FAIL;
		goto close_set;
	}
	status = tell_stats(&a, &stats);
close_set:
	ht_ctf_set_close(set);
destroy_fnames:
	ht_func_names_destroy(fnames);
	return status;
}
