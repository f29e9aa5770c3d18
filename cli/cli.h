/* SPDX-License-Identifier: MIT */
#ifndef HT_CLI_H
#define HT_CLI_H

/*
 * Every subcommand is one file in cli/ exposing cmd_<name>() and
 * carrying one comment line `hetrace-command: RANK NAME: summary`
 * (tools/cli-table.sh builds the table from those lines).
 * Exit codes: 0 success, 1 a failure the user caused (the message says
 * what and where), 2 a usage error.
 */
enum { HT_EXIT_OK = 0, HT_EXIT_FAIL = 1, HT_EXIT_USAGE = 2 };

/* HT_CLI_COMMANDS(X): generated from the files in cli/ (tools/cli-table.sh). */
#include "cli-commands.h"

#define HT__CLI_DECLARE(name, help) int cmd_##name(int argc, char **argv);
HT_CLI_COMMANDS(HT__CLI_DECLARE)
#undef HT__CLI_DECLARE

/* The program name for messages: "hetrace <cmd>". */
extern const char *ht_cli_prog;

/* Helpers shared by the subcommands (cli/cli.c). */
#include <stdbool.h>
#include <stdint.h>

/* A warning callback for the host library (the warn member of
 * ht_ctf_open_opts, ht_sim_opts, ...): prints
 * "hetrace <cmd>: warning: MSG" on stderr. */
void ht_cli_warn(void *arg, const char *msg);

/* The value ARG of option --NAME as a decimal integer in [MIN, MAX]
 * (MAX < UINT64_MAX) into *V. A bad value (empty, a sign, other
 * characters, out of range) prints "hetrace <cmd>: bad --NAME value
 * 'ARG'", followed by " (HINT)" when HINT is not NULL, and returns
 * false: the caller exits with HT_EXIT_USAGE. */
bool ht_cli_uint_arg(const char *name, const char *arg, uint64_t min,
		     uint64_t max, const char *hint, uint64_t *v);

#include <signal.h>

/* Catches SIGINT, SIGTERM and SIGHUP (@on true) or restores their
 * default actions (@on false). Returns the flag a caught signal sets to
 * its number: long runs (record, sim, qemu) poll it to stop cleanly
 * with everything written. */
volatile sig_atomic_t *ht_cli_catch_stop(bool on);

#endif
