/* SPDX-License-Identifier: MIT */
#ifndef HT_CLI_H
#define HT_CLI_H

/*
 * Every subcommand is one file in cli/ exposing cmd_<name>() and
 * carrying one comment line `hetrace-command: RANK NAME: summary`
 * (scripts/cli-table.sh builds the table from those lines).
 * Exit codes: 0 success, 1 a failure the user caused (the message says
 * what and where), 2 a usage error.
 */
enum { HT_EXIT_OK = 0, HT_EXIT_FAIL = 1, HT_EXIT_USAGE = 2 };

/* HT_CLI_COMMANDS(X): generated from the files in cli/ (scripts/cli-table.sh). */
#include "cli-commands.h"

#define HT__CLI_DECLARE(name, help) int cmd_##name(int argc, char **argv);
HT_CLI_COMMANDS(HT__CLI_DECLARE)
#undef HT__CLI_DECLARE

/* The program name for messages: "hetrace <cmd>". */
extern const char *ht_cli_prog;

#endif
