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
	fprintf(out, "\n'hetrace help COMMAND' or 'hetrace COMMAND --help' "
		     "describes a command.\n");
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(name, commands[i].name)) {
			return &commands[i];
		}
	}
	return NULL;
}

static int run(const struct command *cmd, int argc, char **argv)
{
	static char prog[64];

	snprintf(prog, sizeof(prog), "hetrace %s", cmd->name);
	ht_cli_prog = prog;
	return cmd->run(argc, argv);
}

/* hetrace help [COMMAND]: the general help, or COMMAND's. */
static int help(int argc, char **argv)
{
	const struct command *cmd;
	char *args[3];

	if (argc < 3 || (argc == 3 && (!strcmp(argv[2], "help") ||
				       !strcmp(argv[2], "--help") ||
				       !strcmp(argv[2], "-h")))) {
		usage(stdout);
		return HT_EXIT_OK;
	}
	cmd = find_command(argv[2]);
	if (!cmd || argc > 3) {
		fprintf(stderr, "hetrace help: %s '%s'\n\n",
			cmd ? "one command expected, got also"
			    : "unknown command",
			argv[cmd ? 3 : 2]);
		usage(stderr);
		return HT_EXIT_USAGE;
	}
	args[0] = argv[2];
	args[1] = "--help";
	args[2] = NULL;
	return run(cmd, 2, args);
}

/* hetrace --list-options COMMAND: COMMAND's options, from its table
 * (ht_cli_list_options), for tools/gen-completion.sh. */
static int list_options(int argc, char **argv)
{
	const struct command *cmd = argc == 3 ? find_command(argv[2]) : NULL;
	char *args[2];

	if (!cmd) {
		fprintf(stderr, "usage: hetrace --list-options COMMAND\n");
		return HT_EXIT_USAGE;
	}
	ht_cli_list_options = true;
	args[0] = argv[2];
	args[1] = NULL;
	return run(cmd, 1, args);
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		usage(stderr);
		return HT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return HT_EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		return help(argc, argv);
	}
	if (!strcmp(argv[1], "--list-options")) {
		return list_options(argc, argv);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hetrace 0.1\n");
		return HT_EXIT_OK;
	}
	cmd = find_command(argv[1]);
	if (cmd) {
		return run(cmd, argc - 1, argv + 1);
	}
	fprintf(stderr, "hetrace: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return HT_EXIT_USAGE;
}
