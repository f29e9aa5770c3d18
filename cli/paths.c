/* SPDX-License-Identifier: MIT */
/* hetrace-command: 65 paths: execution paths: waiting/execution times, deadlines, interference */
/*
 * hetrace paths TRACE... --paths FILE.yaml: the path analysis of
 * host/analysis/paths.h, as text or JSON (docs/paths.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "common/error.h"
#include "host/analysis/path-desc.h"
#include "host/analysis/paths.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: %s --paths FILE.yaml [OPTIONS] TRACE...\n\n"
		"Execution paths (macro-activities) in the CTF traces under\n"
		"TRACE...: for every instance its start, end, response time\n"
		"and deadline; for every activity its waiting time (from the\n"
		"end of its predecessors to its begin) and execution time,\n"
		"min/mean/max/p99; for the worst instances, what else ran on\n"
		"their cores meanwhile. FILE.yaml describes the paths\n"
		"(docs/paths.md); the trace carries path_begin,\n"
		"activity_begin and activity_end events (docs/events.md).\n\n"
		"options:\n"
		"  -p, --paths FILE   the path description (required)\n"
		"  -a, --all          list every instance (default: the\n"
		"                     missed, incomplete and worst ones)\n"
		"  -n, --worst N      explain the N worst instances per path "
		"(default 3)\n"
		"  -j, --json         write the whole result as JSON\n"
		"  -o, --output FILE  write to FILE instead of stdout\n"
		"      --check        validate FILE.yaml only (no "
		"TRACE)\n" HT_CLI_RANGE_HELP
		"  -h, --help         this help\n\n"
		"exit status: 0 done, 1 a bad path file or trace, 2 usage\n",
		ht_cli_prog);
}

/* What the options ask for. */
struct paths_args {
	struct ht_paths_opts opts;
	const char *file, *output;
	bool all, json, check;
	struct ht_cli_args traces;
	struct ht_cli_range range;
};

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct paths_args *a)
{
	uint64_t worst = 0;
	const struct ht_cli_opt table[] = {
	    HT_CLI_STRING('p', "paths", &a->file),
	    HT_CLI_FLAG('a', "all", &a->all),
	    HT_CLI_UINT('n', "worst", &worst, 1, 100000,
			"a number of instances"),
	    HT_CLI_FLAG('j', "json", &a->json),
	    HT_CLI_STRING('o', "output", &a->output),
	    HT_CLI_FLAG(0, "check", &a->check),
	    HT_CLI_RANGE(&a->range, 0),
	    HT_CLI_OPT_END,
	};
	int ret;

	ret = ht_cli_parse(argc, argv, table, 0, usage, &a->traces);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	if (!a->file || (!a->traces.nr && !a->check)) {
		return ht_cli_usage_error(usage, "%s",
					  !a->file
					      ? "--paths FILE.yaml is required"
					      : "no trace given");
	}
	/* not given: 0, the analysis's default */
	a->opts.nr_worst = (size_t)worst;
	return HT_CLI_GO_ON;
}

/* The result as text or JSON, on stdout or into --output. Returns the
 * exit status. */
static int write_result(const struct paths_args *a,
			const struct ht_paths_result *res)
{
	FILE *out = stdout;
	int ret;

	if (a->output) {
		out = fopen(a->output, "w");
		if (!out) {
			perror(a->output);
			return HT_EXIT_FAIL;
		}
	}
	ret = a->json ? ht_paths_write_json(res, out)
		      : ht_paths_write_text(res, out, a->all);
	if (a->output && fclose(out)) {
		ret = HT_EIO;
	}
	if (ret) {
		fprintf(stderr, "%s: cannot write %s\n", ht_cli_prog,
			a->output ? a->output : "the output");
		return HT_EXIT_FAIL;
	}
	return HT_EXIT_OK;
}

int cmd_paths(int argc, char **argv)
{
	struct paths_args a = {0};
	struct ht_path_desc *desc = NULL;
	struct ht_paths_result *res = NULL;
	char err[8192];
	int ret, status;

	status = parse_options(argc, argv, &a);
	if (status != HT_CLI_GO_ON) {
		return status;
	}
	ret = ht_path_desc_load(&desc, a.file, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s\n", err[0] ? err : ht_strerror(ret));
		return HT_EXIT_FAIL;
	}
	if (a.check) {
		ht_path_desc_destroy(desc);
		return HT_EXIT_OK;
	}
	{
		struct ht_ctf_open_opts oo = {0};

		status = ht_cli_range_prepare(&a.range, a.traces.v, a.traces.nr,
					      &oo, false);
		if (status != HT_CLI_GO_ON) {
			ht_path_desc_destroy(desc);
			return status;
		}
		a.opts.select = oo.select;
	}
	ret = ht_paths_analyze(desc, (const char *const *)a.traces.v,
			       a.traces.nr, &a.opts, &res, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog,
			err[0] ? err : ht_strerror(ret));
		status = HT_EXIT_FAIL;
	} else {
		status = write_result(&a, res);
	}
	ht_paths_result_destroy(res);
	ht_path_desc_destroy(desc);
	return status;
}
