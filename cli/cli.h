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

/* A warning callback for the host library (the warn member of
 * ht_ctf_open_opts, ht_sim_opts, ...): prints
 * "hetrace <cmd>: warning: MSG" on stderr. */
void ht_cli_warn(void *arg, const char *msg);

/* The same for what the user should know but is not wrong:
 * "hetrace <cmd>: note: MSG". */
void ht_cli_note(void *arg, const char *msg);

/* Says "hetrace <cmd>: out of memory" and returns HT_EXIT_FAIL. */
int ht_cli_nomem(void);

/*
 * The end of every option switch (getopt_long()'s answer @c): for -h
 * the help on stdout (HT_EXIT_OK), for what getopt did not know the
 * usage on stderr (HT_EXIT_USAGE).
 */
int ht_cli_help_or_usage(int c, void (*usage)(FILE *out));

/* Says "hetrace <cmd>: " and the printf-like message, then the usage,
 * on stderr; returns HT_EXIT_USAGE. */
int ht_cli_usage_error(void (*usage)(FILE *out), const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * After the options (getopt's optind): HT_CLI_GO_ON when TRACE
 * arguments follow, else "no trace given" and the usage
 * (HT_EXIT_USAGE).
 */
int ht_cli_want_traces(int argc, void (*usage)(FILE *out));

/* The same for a command that takes no argument: "unexpected argument". */
int ht_cli_want_no_args(int argc, char **argv, void (*usage)(FILE *out));

/*
 * Opens the traces under @paths (ht_ctf_set_open()). Returns HT_EXIT_OK,
 * or HT_EXIT_FAIL after a message naming what could not be read.
 */
int ht_cli_open_traces(struct ht_ctf_set **set, char **paths, size_t n,
		       const struct ht_ctf_open_opts *opts);

/*
 * Numeric option values. Each takes the value ARG of option --NAME into
 * *V when it is a decimal number in [MIN, MAX]; anything else (empty, a
 * sign, other characters, out of range, too large) prints
 * "hetrace <cmd>: --NAME: expected [WHAT from ]MIN to MAX, got 'ARG'"
 * and returns false: the caller exits with HT_EXIT_USAGE.
 */

/* A whole number; MAX < UINT64_MAX. */
bool ht_cli_uint_arg(const char *name, const char *arg, uint64_t min,
		     uint64_t max, const char *what, uint64_t *v);

/* The same check without a message, for a part of a value. */
bool ht_cli_uint_value(const char *arg, uint64_t min, uint64_t max,
		       uint64_t *v);

/* A number as strtod() reads it (fractions, exponents), a whole one
 * when @whole. */
bool ht_cli_real_arg(const char *name, const char *arg, double min, double max,
		     bool whole, const char *what, double *v);

/*
 * --elf [CORE=]FILE, repeatable, for every command that names functions
 * (print, profile, export, report). The files are opened only once all
 * the options are known to be right.
 */
#define HT_CLI_MAX_ELFS 64

struct ht_cli_elfs {
	const char *spec[HT_CLI_MAX_ELFS]; /* the option values */
	size_t nr;
};

/* Adds ARG to @e; a value without a file name or one --elf too many
 * prints why and returns false: the caller exits with HT_EXIT_USAGE. */
bool ht_cli_elf_arg(struct ht_cli_elfs *e, const char *arg);

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
