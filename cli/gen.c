/* SPDX-License-Identifier: MIT */
/* hetrace gen: barectf 3 configuration -> C tracepoints + CTF metadata. */
/* hetrace-command: 10 gen: generate C tracepoints and CTF metadata from a barectf 3 config */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "common/error.h"
#include "gen/emit/gen-write.h"

/* clang-format off */
static const char usage_text[] =
	"usage: %s CONFIG.yaml -o DIR [-I DIR]... [--header-only]\n"
	"       [--metadata-only] [--no-runtime] [--no-core-id]\n"
	"\n"
	"Reads a barectf 3 YAML configuration and writes into DIR:\n"
	"  <prefix>.h, <prefix>.c  the tracing functions (barectf 3.1's API)\n"
	"  metadata                the CTF 1.8 (TSDL) metadata of the trace\n"
	"  hetrace/*.h             the runtime headers the C code includes\n"
	"\n"
	"options:\n"
	"  -o, --output DIR     where to write (created if needed)\n"
	"  -I, --include-dir DIR\n"
	"                       search DIR for `$include` files: after the\n"
	"                       including file's directory, before the current\n"
	"                       directory and hetrace's standard includes;\n"
	"                       may be repeated\n"
	"      --header-only    one header holding everything, no .c file\n"
	"      --metadata-only  only the metadata\n"
	"      --no-runtime     do not copy the runtime headers\n"
	"      --no-core-id     no core_id in the packet context (barectf's\n"
	"                       packet context exactly)\n"
	"  -h, --help           this text\n"
	"\n"
	"An invalid configuration writes nothing: every problem is printed\n"
	"as file:line:column: message and the exit status is 1.\n";
/* clang-format on */

/* The whole text for --help; after a usage error, where to find it. */
static void usage(FILE *out)
{
	if (out == stderr) {
		fprintf(out, "Try '%s --help'.\n", ht_cli_prog);
		return;
	}
	fprintf(out, usage_text, ht_cli_prog);
}

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct ht_gen_opts *opts,
			 const char **inc_dirs)
{
	const struct ht_cli_opt table[] = {
	    HT_CLI_STRING('o', "output", &opts->out_dir),
	    HT_CLI_LIST('I', "include-dir", inc_dirs, &opts->nr_include_dirs,
			(size_t)argc, NULL),
	    HT_CLI_FLAG(0, "header-only", &opts->header_only),
	    HT_CLI_FLAG(0, "metadata-only", &opts->metadata_only),
	    HT_CLI_FLAG(0, "no-runtime", &opts->no_runtime),
	    HT_CLI_FLAG(0, "no-core-id", &opts->no_core_id),
	    HT_CLI_OPT_END,
	};
	struct ht_cli_args args;
	int ret;

	ret = ht_cli_parse(argc, argv, table, 0, usage, &args);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	if (args.nr != 1) {
		return ht_cli_usage_error(
		    usage, "%s",
		    !args.nr ? "missing CONFIG.yaml"
			     : "expected exactly one CONFIG.yaml");
	}
	if (!opts->out_dir) {
		return ht_cli_usage_error(usage, "missing -o DIR");
	}
	if (opts->header_only && opts->metadata_only) {
		fprintf(stderr,
			"%s: --header-only and --metadata-only exclude each "
			"other\n",
			ht_cli_prog);
		return HT_EXIT_USAGE;
	}
	opts->config = args.v[0];
	opts->include_dirs = inc_dirs;
	return HT_CLI_GO_ON;
}

int cmd_gen(int argc, char **argv)
{
	struct ht_gen_opts opts = {0};
	const char **inc_dirs;
	struct ht_diags diags = {0};
	char msg[1024];
	size_t i;
	int ret, status;

	/* room for every argument: -I is repeatable without a limit */
	inc_dirs = calloc((size_t)argc + 1, sizeof(*inc_dirs));
	if (!inc_dirs) {
		return ht_cli_nomem();
	}
	status = parse_options(argc, argv, &opts, inc_dirs);
	if (status != HT_CLI_GO_ON) {
		goto free_dirs;
	}
	ret = ht_gen_write(&opts, &diags, msg, sizeof(msg));
	for (i = 0; i < diags.nr; i++) {
		fprintf(stderr, "%s\n", diags.msgs[i]);
	}
	ht_diags_fini(&diags);
	if (ret && ret != HT_ECONFIG) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, msg);
	}
	status = ret ? HT_EXIT_FAIL : HT_EXIT_OK;

free_dirs:
	free(inc_dirs);
	return status;
}
