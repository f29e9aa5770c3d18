/* SPDX-License-Identifier: MIT */
#ifndef HT_CLI_H
#define HT_CLI_H

/*
 * Every subcommand is one file in cli/ exposing cmd_<name>() and
 * carrying one comment line `hetrace-command: RANK NAME: summary`
 * (tools/cli-table.sh builds the table from those lines). Option
 * letters mean the same thing in every subcommand (docs/cli.md).
 * Exit codes: 0 success, 1 a failure the user caused (the message says
 * what and where), 2 a usage error.
 */
enum { HT_EXIT_OK = 0, HT_EXIT_FAIL = 1, HT_EXIT_USAGE = 2 };

/* What a subcommand's option parser returns when the options are good
 * and the command goes on (else it returns the exit status). */
enum { HT_CLI_GO_ON = -1 };

/* HT_CLI_COMMANDS(X): generated from the files in cli/ (tools/cli-table.sh). */
#include "cli-commands.h"

#define HT__CLI_DECLARE(name, help) int cmd_##name(int argc, char **argv);
HT_CLI_COMMANDS(HT__CLI_DECLARE)
#undef HT__CLI_DECLARE

/* The program name for messages: "hetrace <cmd>". */
extern const char *ht_cli_prog;

/* Helpers shared by the subcommands (cli/cli.c). */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "host/analysis/func-names.h"
#include "host/analysis/func-slices.h"
#include "host/ctf/ctf-reader.h"
#include "options.h"

/* A warning callback for the host library (the warn member of
 * ht_ctf_open_opts, ht_sim_opts, ...): prints
 * "hetrace <cmd>: warning: MSG" on stderr. */
void ht_cli_warn(void *arg, const char *msg);

/* The same for what the user should know but is not wrong:
 * "hetrace <cmd>: note: MSG". */
void ht_cli_note(void *arg, const char *msg);

/* Says "hetrace <cmd>: out of memory" and returns HT_EXIT_FAIL. */
int ht_cli_nomem(void);

/* Says how many damaged parts of the input were skipped, when any:
 * then returns HT_EXIT_FAIL (the output is incomplete), else HT_EXIT_OK. */
int ht_cli_tell_skipped(uint64_t damaged);

/*
 * Opens the traces under @paths (ht_ctf_set_open()). Returns HT_EXIT_OK,
 * or HT_EXIT_FAIL after a message naming what could not be read.
 */
int ht_cli_open_traces(struct ht_ctf_set **set, char **paths, size_t n,
		       const struct ht_ctf_open_opts *opts);

/*
 * Opens the ELF files of @e into *@fn. With @fo, *@fn always holds a
 * function tracker made with @fo (ht_func_names_create_tracker()); without,
 * it is a names-only one (ht_func_names_create()), NULL when @e is empty.
 * Returns HT_EXIT_OK, or HT_EXIT_FAIL after a message naming the file.
 */
int ht_cli_elf_open(struct ht_func_names **fn, const struct ht_cli_elfs *e,
		    const struct ht_func_slices_opts *fo);

/* Catches SIGINT, SIGTERM and SIGHUP (@on true) or restores their
 * default actions (@on false). Returns the flag a caught signal sets to
 * its number: long runs (record, sim, qemu) poll it to stop cleanly
 * with everything written. */
volatile sig_atomic_t *ht_cli_catch_stop(bool on);

#endif
