/* SPDX-License-Identifier: MIT */
#ifndef HT_CLI_OPTIONS_H
#define HT_CLI_OPTIONS_H

/*
 * The options of a subcommand, described once in a table that
 * ht_cli_parse() turns into getopt_long()'s: every subcommand gets -h
 * and --help, abbreviated long names and the same value checks and
 * messages (docs/cli.md). What an option means beyond storing its value
 * is the subcommand's: a callback, or a look at the values after
 * parsing. This file knows nothing of any one subcommand; of traces,
 * only what --begin/--end/--core need to be resolved (HT_CLI_RANGE).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/time-spec.h"
#include "host/ctf/ctf-reader.h"

enum ht_cli_opt_kind {
	HT_CLI_OPT_FLAG,       /* no value: *to.flag = true */
	HT_CLI_OPT_BITS,       /* no value: *to.bits |= bits */
	HT_CLI_OPT_STRING,     /* *to.str = the value */
	HT_CLI_OPT_UINT,       /* *to.uint = a whole number in [min, max] */
	HT_CLI_OPT_REAL,       /* *to.real = a number in [rmin, rmax] */
	HT_CLI_OPT_LIST,       /* repeatable: to.list[(*nr)++], at most max */
	HT_CLI_OPT_CALL,       /* call(opt, the value) */
	HT_CLI_OPT_CALL_NOARG, /* no value: call(opt, NULL) */
	HT_CLI_OPT_ALIAS,      /* another long name for the entry before */
};

struct ht_cli_opt;

/* What a callback returns: HT_CLI_GO_ON when the value is good, else
 * the exit status after a message (HT_EXIT_USAGE). */
typedef int (*ht_cli_opt_fn)(const struct ht_cli_opt *opt, const char *arg);

struct ht_cli_opt {
	char letter;	  /* the short option, 0: none */
	const char *name; /* the long name, also the one value messages say */
	enum ht_cli_opt_kind kind;
	union {
		bool *flag;
		unsigned *bits;
		const char **str;
		uint64_t *uint;
		double *real;
		const char **list;
		void *arg; /* the callback's */
	} to;
	unsigned bits;	    /* HT_CLI_OPT_BITS */
	uint64_t min, max;  /* HT_CLI_OPT_UINT; max: HT_CLI_OPT_LIST's room */
	size_t *nr;	    /* HT_CLI_OPT_LIST: how many are stored */
	double rmin, rmax;  /* HT_CLI_OPT_REAL */
	bool whole;	    /* HT_CLI_OPT_REAL: a whole number only */
	const char *what;   /* names the value in messages, or NULL */
	ht_cli_opt_fn call; /* HT_CLI_OPT_CALL*; HT_CLI_OPT_LIST: checks a
			       value before it is stored, or NULL */
};

/*
 * One entry of a table, by kind. The table ends with HT_CLI_OPT_END;
 * entries are in the order of the help text (getopt lists ambiguous
 * abbreviations in that order).
 */
#define HT_CLI_FLAG(l, n, p)                                                   \
	{                                                                      \
		.letter = (l), .name = (n), .kind = HT_CLI_OPT_FLAG,           \
		.to.flag = (p)                                                 \
	}
#define HT_CLI_BITS(l, n, p, b)                                                \
	{                                                                      \
		.letter = (l), .name = (n), .kind = HT_CLI_OPT_BITS,           \
		.to.bits = (p), .bits = (b)                                    \
	}
#define HT_CLI_STRING(l, n, p)                                                 \
	{                                                                      \
		.letter = (l), .name = (n), .kind = HT_CLI_OPT_STRING,         \
		.to.str = (p)                                                  \
	}
#define HT_CLI_UINT(l, n, p, lo, hi, w)                                        \
	{                                                                      \
		.letter = (l), .name = (n), .kind = HT_CLI_OPT_UINT,           \
		.to.uint = (p), .min = (lo), .max = (hi), .what = (w)          \
	}
#define HT_CLI_REAL(l, n, p, lo, hi, w)                                        \
	{                                                                      \
		.letter = (l), .name = (n), .kind = HT_CLI_OPT_REAL,           \
		.to.real = (p), .rmin = (lo), .rmax = (hi), .what = (w)        \
	}
/* A whole number read the way HT_CLI_REAL reads one ("1e3" is 1000). */
#define HT_CLI_WHOLE(l, n, p, lo, hi, w)                                       \
	{                                                                      \
		.letter = (l), .name = (n), .kind = HT_CLI_OPT_REAL,           \
		.to.real = (p), .rmin = (lo), .rmax = (hi), .whole = true,     \
		.what = (w)                                                    \
	}
#define HT_CLI_LIST(l, n, v, pnr, room, w)                                     \
	{                                                                      \
		.letter = (l), .name = (n), .kind = HT_CLI_OPT_LIST,           \
		.to.list = (v), .nr = (pnr), .max = (room), .what = (w)        \
	}
#define HT_CLI_CALL(l, n, fn, a)                                               \
	{                                                                      \
		.letter = (l), .name = (n), .kind = HT_CLI_OPT_CALL,           \
		.to.arg = (a), .call = (fn)                                    \
	}
#define HT_CLI_CALL_NOARG(l, n, fn, a)                                         \
	{                                                                      \
		.letter = (l), .name = (n), .kind = HT_CLI_OPT_CALL_NOARG,     \
		.to.arg = (a), .call = (fn)                                    \
	}
/* A renamed option's old name, right after the entry it names. */
#define HT_CLI_ALIAS(n)                                                        \
	{                                                                      \
		.name = (n), .kind = HT_CLI_OPT_ALIAS                          \
	}
#define HT_CLI_OPT_END                                                         \
	{                                                                      \
		.name = NULL                                                   \
	}

/* What ht_cli_parse() checks of the arguments after the options, and
 * who words an unknown option. */
enum ht_cli_parse_flags {
	/* at least one, else "no trace given" */
	HT_CLI_WANT_TRACES = 1 << 0,
	/* none, else "unexpected argument 'ARG'" */
	HT_CLI_WANT_NO_ARGS = 1 << 1,
	/* an unknown option or a missing value is said by ht_cli_parse()
	 * ("unknown option 'ARG'", "option 'ARG' needs a value") before
	 * the usage, not by getopt */
	HT_CLI_OWN_MESSAGES = 1 << 2,
};

/* The arguments after the options. */
struct ht_cli_args {
	char **v;
	size_t nr;
};

/*
 * Parses the options of argv[1..argc) by @opts (HT_CLI_OPT_END last),
 * storing the values as each entry says, then checks the arguments
 * that follow by @flags (enum ht_cli_parse_flags) and sets @args to
 * them. -h, --help: @usage on stdout and HT_EXIT_OK. An unknown option
 * or a missing value: a message, @usage on stderr and HT_EXIT_USAGE; a
 * bad value: its message (a callback's may add the usage) and
 * HT_EXIT_USAGE. Returns HT_CLI_GO_ON when the command goes on, else
 * its exit status.
 */
int ht_cli_parse(int argc, char **argv, const struct ht_cli_opt *opts,
		 unsigned flags, void (*usage)(FILE *out),
		 struct ht_cli_args *args);

/*
 * When set (`hetrace --list-options COMMAND`, for the generated shell
 * completion and man pages: tools/gen-completion.sh), ht_cli_parse()
 * parses nothing: it prints one line per option of the table, "-l" or
 * "--name", then " 1" when it takes a value else " 0", -h and --help
 * included, and returns HT_EXIT_OK.
 */
extern bool ht_cli_list_options;

/* Says "hetrace <cmd>: " and the printf-like message, then the usage,
 * on stderr; returns HT_EXIT_USAGE. */
int ht_cli_usage_error(void (*usage)(FILE *out), const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Whether ARG is a decimal number in [MIN, MAX] (no sign, nothing
 * else), for a part of an option's value; then *V is that number. */
bool ht_cli_uint_value(const char *arg, uint64_t min, uint64_t max,
		       uint64_t *v);

/*
 * --elf [CORE=]FILE, repeatable, for every command that names functions
 * (print, profile, export, report): HT_CLI_ELF(&elfs) in the table. The
 * files are opened only once all the options are known to be right
 * (ht_cli_elf_open()).
 */
#define HT_CLI_MAX_ELFS 64

struct ht_cli_elfs {
	const char *spec[HT_CLI_MAX_ELFS]; /* the option values */
	size_t nr;
};

/* The check of one value: a file name after the optional "CORE=". */
int ht_cli_elf_check(const struct ht_cli_opt *opt, const char *arg);

#define HT_CLI_ELF(e)                                                          \
	{                                                                      \
		.letter = 'e', .name = "elf", .kind = HT_CLI_OPT_LIST,         \
		.to.list = (e)->spec, .nr = &(e)->nr, .max = HT_CLI_MAX_ELFS,  \
		.what = "ELF files", .call = ht_cli_elf_check                  \
	}

/*
 * --begin T, --end T, --timerange [B,E] and --core NAME[,NAME...] for
 * every command that reads a trace (print, info, export, report,
 * states, profile, paths): HT_CLI_RANGE(&range, letter of --core) in the
 * table, then ht_cli_range_prepare() before the traces are opened. Times
 * in common/time-spec.h's syntax (babeltrace2's, plus +NUMBER[UNIT]).
 */
#define HT_CLI_MAX_CORES 256

struct ht_cli_range {
	struct ht_time_spec begin, end;
	const char *cores[HT_CLI_MAX_CORES];
	size_t nr_cores;
	char names[4096]; /* the --core names, each NUL-terminated */
	size_t names_len;
	bool begin_given, end_given, timerange_given;
	const char *events[HT_CLI_MAX_CORES]; /* --event (print, export) */
	size_t nr_events;
	struct ht_ctf_select select; /* filled by ht_cli_range_prepare() */
};

/* --event GLOB, repeatable: HT_CLI_EVENTS(&range) in the table. */
#define HT_CLI_EVENTS(r)                                                       \
	HT_CLI_LIST(0, "event", (r)->events, &(r)->nr_events,                  \
		    HT_CLI_MAX_CORES, "event name patterns")
#define HT_CLI_EVENTS_HELP                                                     \
	"  --event GLOB       only the events whose name, or name after its\n" \
	"                     last ':', matches GLOB (fnmatch; repeatable)\n"

int ht_cli_range_opt(const struct ht_cli_opt *opt, const char *arg);
int ht_cli_core_opt(const struct ht_cli_opt *opt, const char *arg);

#define HT_CLI_RANGE(r, core_letter)                                           \
	HT_CLI_CALL(0, "begin", ht_cli_range_opt, (r)),                        \
	    HT_CLI_CALL(0, "end", ht_cli_range_opt, (r)),                      \
	    HT_CLI_CALL(0, "timerange", ht_cli_range_opt, (r)),                \
	    HT_CLI_CALL((core_letter), "core", ht_cli_core_opt, (r))

/* The lines of the help text for HT_CLI_RANGE(). */
#define HT_CLI_RANGE_HELP                                                      \
	"  --begin T          only from time T on: [YYYY-MM-DD "               \
	"]HH:MM[:SS[.NS]]\n"                                                   \
	"                     (local time, as babeltrace2), [-]SEC[.NS] "      \
	"from\n"                                                               \
	"                     the clock's origin, or +N[s|ms|us|ns] after "    \
	"the\n"                                                                \
	"                     trace's first time\n"                            \
	"  --end T            only up to time T (included); same forms\n"      \
	"  --timerange B,E    --begin B --end E ([B,E] too)\n"                 \
	"  --core NAME        only the streams of core NAME (a name or a "     \
	"core\n"                                                               \
	"                     id; repeatable, or NAME,NAME...)\n"

/*
 * Resolves the times of @r against the traces @paths (their first time,
 * for a time of day or a +N time; local time unless @gmt) and sets
 * @oo->select to @r's selection. Returns HT_CLI_GO_ON, or the exit
 * status after a message (HT_EXIT_USAGE: an end before the begin;
 * HT_EXIT_FAIL: the traces cannot be read).
 */
int ht_cli_range_prepare(struct ht_cli_range *r, char **paths, size_t n,
			 struct ht_ctf_open_opts *oo, bool gmt);

#endif
