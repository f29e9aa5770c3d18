/* SPDX-License-Identifier: MIT */
/* hetrace-command: 65 paths: execution paths: waiting/execution times, deadlines, interference */
/*
 * hetrace paths TRACE... --paths FILE.yaml: the path analysis of
 * host/analysis/paths.h, as text or JSON (docs/paths.md).
 */
#include <getopt.h>
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
		"      --check        validate FILE.yaml only (no TRACE)\n"
		"  -h, --help         this help\n\n"
		"exit status: 0 done, 1 a bad path file or trace, 2 usage\n",
		ht_cli_prog);
}

/* What the options ask for. */
struct paths_args {
	struct ht_paths_opts opts;
	const char *file, *output;
	bool all, json, check;
};

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct paths_args *a)
{
	enum { OPT_CHECK = 256 };
	static const struct option longopts[] = {
	    {"paths", required_argument, NULL, 'p'},
	    {"all", no_argument, NULL, 'a'},
	    {"worst", required_argument, NULL, 'n'},
	    {"json", no_argument, NULL, 'j'},
	    {"output", required_argument, NULL, 'o'},
	    {"check", no_argument, NULL, OPT_CHECK},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:an:jo:h", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'p':
			a->file = optarg;
			break;
		case 'a':
			a->all = true;
			break;
		case 'n': {
			uint64_t v;

			if (!ht_cli_uint_arg("worst", optarg, 1, 100000,
					     "a number of instances", &v)) {
				return HT_EXIT_USAGE;
			}
			a->opts.nr_worst = v;
			break;
		}
		case 'j':
			a->json = true;
			break;
		case 'o':
			a->output = optarg;
			break;
		case OPT_CHECK:
			a->check = true;
			break;
		default:
			return ht_cli_help_or_usage(c, usage);
		}
	}
	if (!a->file || (optind >= argc && !a->check)) {
		return ht_cli_usage_error(usage, "%s",
					  !a->file
					      ? "--paths FILE.yaml is required"
					      : "no trace given");
	}
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
	ret = ht_paths_analyze(desc, (const char *const *)argv + optind,
			       (size_t)(argc - optind), &a.opts, &res, err,
			       sizeof(err));
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
