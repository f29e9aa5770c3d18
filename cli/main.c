/* SPDX-License-Identifier: MIT */
/* hetrace: a table of subcommands (uftrace's cmds/ layout). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char *ht_cli_prog = "hetrace";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
#define HT__CLI_ENTRY(name, help) {#name, cmd_##name, help},
    HT_CLI_COMMANDS(HT__CLI_ENTRY)
#undef HT__CLI_ENTRY
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: hetrace COMMAND [OPTIONS] [ARGS]\n\n"
		     "Tracing for heterogeneous embedded systems.\n\n"
		     "commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		fprintf(out, "  %-10s %s\n", commands[i].name,
			commands[i].help);
	}
	fprintf(out, "\n'hetrace COMMAND --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	static char prog[64];
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return HT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return HT_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hetrace 0.1\n");
		return HT_EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			snprintf(prog, sizeof(prog), "hetrace %s",
				 commands[i].name);
			ht_cli_prog = prog;
			return commands[i].run(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "hetrace: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return HT_EXIT_USAGE;
}
