/* SPDX-License-Identifier: MIT */
/*
 * gen-boot: the generator alone, built before the hetrace binary so
 * that the build can generate the simulated board's tracepoints (the
 * .yaml files in platforms/sim) that the binary itself contains. It
 * calls the gen library (gen/emit/gen-write.h) directly and writes
 * what `hetrace gen` writes for the same arguments. Not installed.
 *   gen-boot gen CONFIG.yaml -o DIR [-I DIR]... [--no-runtime]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "gen/emit/gen-write.h"

static int usage(void)
{
	fprintf(stderr, "usage: gen-boot gen CONFIG.yaml -o DIR [-I DIR]... "
			"[--no-runtime]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct ht_gen_opts opts = {0};
	struct ht_diags diags = {0};
	const char **inc_dirs;
	char msg[1024];
	size_t k;
	int i, ret;

	if (argc < 2 || strcmp(argv[1], "gen") != 0) {
		return usage();
	}
	inc_dirs = calloc((size_t)argc, sizeof(*inc_dirs));
	if (!inc_dirs) {
		fprintf(stderr, "gen-boot: %s\n", ht_strerror(HT_ENOMEM));
		return 1;
	}
	opts.include_dirs = inc_dirs;
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			opts.out_dir = argv[++i];
		} else if (!strcmp(argv[i], "-I") && i + 1 < argc) {
			inc_dirs[opts.nr_include_dirs++] = argv[++i];
		} else if (!strcmp(argv[i], "--no-runtime")) {
			opts.no_runtime = true;
		} else if (argv[i][0] != '-' && !opts.config) {
			opts.config = argv[i];
		} else {
			free(inc_dirs);
			return usage();
		}
	}
	if (!opts.config || !opts.out_dir) {
		free(inc_dirs);
		return usage();
	}

	ret = ht_gen_write(&opts, &diags, msg, sizeof(msg));
	for (k = 0; k < diags.nr; k++) {
		fprintf(stderr, "%s\n", diags.msgs[k]);
	}
	ht_diags_fini(&diags);
	if (ret && ret != HT_ECONFIG) {
		fprintf(stderr, "gen-boot: %s\n", msg);
	}
	free(inc_dirs);
	return ret ? 1 : 0;
}
