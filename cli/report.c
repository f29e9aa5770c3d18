/* SPDX-License-Identifier: MIT */
/* hetrace-command: 80 report: one self-contained HTML page: timelines, utilization, paths, sync */
/*
 * hetrace report TRACE... -o report.html [--paths FILE.yaml]
 * [--sync sync.json] [--elf [CORE=]FILE]...: host/export/report.h into a file
 * (docs/report.md).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "common/error.h"
#include "host/export/out-file.h"
#include "host/export/report.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s -o REPORT.html [OPTIONS] TRACE...\n\n"
		"Writes one self-contained HTML file (no network needed) for\n"
		"the CTF traces under TRACE...: per-core Gantt of tasks,\n"
		"interrupts and idle with zoom and pan, function rows,\n"
		"message arrows,\n"
		"utilization charts and heat map, the macro-activity Gantt\n"
		"and path view (--paths), the sync plots (--sync).\n\n"
		"options:\n"
		"  -o, --output FILE     the HTML file to write (required)\n"
		"  -p, --paths FILE      path description (docs/paths.md)\n"
		"      --sync FILE       `hetrace sync --report` JSON\n"
		"  -b, --budget MB       size budget of the timeline data "
		"(default 14)\n"
		"  -t, --title TEXT      the report's title\n"
		"  -e, --elf [CORE=]FILE name the traced functions from this "
		"ELF file\n"
		"                        (for CORE only, else every core "
		"without its\n"
		"                        own; repeatable)\n" HT_CLI_RANGE_HELP
		"  -h, --help            this help\n\n"
		"exit status: 0 done, 1 a bad trace or input file (a damaged\n"
		"part of a trace is skipped: the page is written), 2 usage\n",
		ht_cli_prog);
}

/* What the options ask for. */
struct report_args {
	struct ht_report_opts opts;
	struct ht_cli_elfs elfs;
	struct ht_cli_range range;
	const char *output;
	struct ht_cli_args traces;
};

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct report_args *a)
{
	struct ht_ctf_open_opts oo = {.flags = HT_CTF_KEEP_GOING};
	uint64_t budget_mb = 0;
	const struct ht_cli_opt table[] = {
	    HT_CLI_STRING('o', "output", &a->output),
	    HT_CLI_STRING('p', "paths", &a->opts.paths_file),
	    HT_CLI_STRING(0, "sync", &a->opts.sync_file),
	    HT_CLI_UINT('b', "budget", &budget_mb, 1, 4096, "a size in MB"),
	    HT_CLI_STRING('t', "title", &a->opts.title),
	    HT_CLI_ELF(&a->elfs),
	    HT_CLI_RANGE(&a->range, 'c'),
	    HT_CLI_OPT_END,
	};
	int ret;

	ret = ht_cli_parse(argc, argv, table, 0, usage, &a->traces);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	if (!a->output || !a->traces.nr) {
		return ht_cli_usage_error(usage, "%s",
					  !a->output
					      ? "-o REPORT.html is required"
					      : "no trace given");
	}
	/* not given: 0, the report's default */
	a->opts.budget_bytes = (size_t)budget_mb << 20;
	a->opts.warn = ht_cli_warn;
	a->opts.elfs = a->elfs.spec;
	a->opts.nr_elfs = a->elfs.nr;
	ret = ht_cli_range_prepare(&a->range, a->traces.v, a->traces.nr, &oo,
				   false);
	if (ret == HT_CLI_GO_ON &&
	    (a->range.nr_cores || a->range.select.begin_ns != INT64_MIN ||
	     a->range.select.end_ns != INT64_MAX)) {
		a->opts.select = &a->range.select;
	}
	return ret;
}

/* The page of the traces under @paths into @output, written whole or
 * not at all (host/export/out-file.h). Returns the exit status (a
 * message says what failed). */
static int write_report(const char *output, char **paths, size_t nr_paths,
			const struct ht_report_opts *opts,
			struct ht_report_stats *stats)
{
	struct ht_out_file out;
	char err[4096];
	int ret;

	err[0] = '\0';
	ret = ht_out_file_open(&out, output, err, sizeof(err));
	if (ret) {
		goto fail;
	}
	ret = ht_report_write((const char *const *)paths, nr_paths, opts, out.f,
			      stats, err, sizeof(err));
	if (ret) {
		ht_out_file_abort(&out);
		if (ret == HT_EIO) {
			/* about the output (other errors name their input) */
			fprintf(stderr, "%s: %s: %s\n", ht_cli_prog, output,
				err);
			return HT_EXIT_FAIL;
		}
		goto fail;
	}
	ret = ht_out_file_commit(&out, err, sizeof(err));
	if (ret) {
		goto fail;
	}
	return HT_EXIT_OK;
fail:
	fprintf(stderr, "%s: %s\n", ht_cli_prog,
		err[0] ? err : ht_strerror(ret));
	return HT_EXIT_FAIL;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = {0};
	struct ht_report_stats stats = {0};
	struct stat sb;
	int ret;

	ret = parse_options(argc, argv, &a);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	ret = write_report(a.output, a.traces.v, a.traces.nr, &a.opts, &stats);
	if (ret) {
		return ret;
	}
	if (!stat(a.output, &sb)) {
		fprintf(stdout,
			"%s: %s: %.1f MB, %" PRIu64 " events, %zu cores, "
			"%u levels, finest %s%" PRId64 " ns, %" PRIu64
			" of %" PRIu64 " message arrows\n",
			ht_cli_prog, a.output, (double)sb.st_size / 1e6,
			stats.events, stats.nr_cores, stats.nr_levels,
			stats.exact ? "exact, " : "", stats.finest_ns,
			stats.flows_kept, stats.flows);
	}
	ret = ht_cli_tell_skipped(stats.reader_errors);
	if (stats.damaged_times) {
		fprintf(stderr,
			"%s: %" PRIu64 " events with a damaged time (taken as "
			"their core's last time)\n",
			ht_cli_prog, stats.damaged_times);
		ret = HT_EXIT_FAIL;
	}
	return ret;
}
