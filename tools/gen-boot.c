/* SPDX-License-Identifier: MIT */
/*
 * gen-boot: `hetrace gen` alone, built first so that the build can
 * generate the simulated board's tracepoints (the .yaml files in platforms/sim)
 * that the hetrace binary itself contains. Not installed.
 *   gen-boot gen CONFIG.yaml -o DIR [OPTIONS]
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

const char *ht_cli_prog = "hetrace gen";

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "gen") != 0) {
		fprintf(stderr,
			"usage: gen-boot gen CONFIG.yaml -o DIR [OPTIONS]\n");
		return HT_EXIT_USAGE;
	}
	return cmd_gen(argc - 1, argv + 1);
}
