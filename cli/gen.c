/* SPDX-License-Identifier: MIT */
/* hetrace gen: barectf 3 configuration -> C tracepoints + CTF metadata. */
/* hetrace-command: 10 gen: generate C tracepoints and CTF metadata from a barectf 3 config */
#include <getopt.h>
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

static void usage(FILE *out)
{
	fprintf(out, usage_text, ht_cli_prog);
}

int cmd_gen(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"include-dir", required_argument, NULL, 'I'},
	    {"header-only", no_argument, NULL, 'H'},
	    {"metadata-only", no_argument, NULL, 'M'},
	    {"no-runtime", no_argument, NULL, 'R'},
	    {"no-core-id", no_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct ht_gen_opts opts = {0};
	const char **inc_dirs = NULL;
	struct ht_diags diags = {0};
	char msg[1024];
	size_t i;
	int opt, ret, status = HT_EXIT_USAGE;

	optind = 1;
	inc_dirs = calloc((size_t)argc + 1, sizeof(*inc_dirs));
	if (!inc_dirs) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog,
			ht_strerror(HT_ENOMEM));
		return HT_EXIT_FAIL;
	}
	while ((opt = getopt_long(argc, argv, "o:I:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			opts.out_dir = optarg;
			break;
		case 'I':
			inc_dirs[opts.nr_include_dirs++] = optarg;
			break;
		case 'H':
			opts.header_only = true;
			break;
		case 'M':
			opts.metadata_only = true;
			break;
		case 'R':
			opts.no_runtime = true;
			break;
		case 'C':
			opts.no_core_id = true;
			break;
		case 'h':
			usage(stdout);
			status = HT_EXIT_OK;
			goto free_dirs;
		default:
			fprintf(stderr, "Try '%s --help'.\n", ht_cli_prog);
			goto free_dirs;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog,
			optind >= argc ? "missing CONFIG.yaml"
				       : "expected exactly one CONFIG.yaml");
		fprintf(stderr, "Try '%s --help'.\n", ht_cli_prog);
		goto free_dirs;
	}
	if (!opts.out_dir) {
		fprintf(stderr, "%s: missing -o DIR\n", ht_cli_prog);
		fprintf(stderr, "Try '%s --help'.\n", ht_cli_prog);
		goto free_dirs;
	}
	if (opts.header_only && opts.metadata_only) {
		fprintf(stderr,
			"%s: --header-only and --metadata-only exclude each "
			"other\n",
			ht_cli_prog);
		goto free_dirs;
	}

	opts.config = argv[optind];
	opts.include_dirs = inc_dirs;
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
