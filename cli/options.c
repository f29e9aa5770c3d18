/* SPDX-License-Identifier: MIT */
/* The subcommands' option parser and value checks (options.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* getopt_long()'s answer for the option at opts[i] without a letter:
 * LONG_ONLY + i, past every letter. */
#define LONG_ONLY 256

int ht_cli_usage_error(void (*usage)(FILE *out), const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ht_cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage(stderr);
	return HT_EXIT_USAGE;
}

/* "expected [WHAT from ]MIN to MAX, got 'ARG'" for option --NAME. */
static bool bad_value(const char *name, const char *arg, const char *what,
		      const char *min, const char *max)
{
	fprintf(stderr, "%s: --%s: expected %s%s%s to %s, got '%s'\n",
		ht_cli_prog, name, what ? what : "", what ? " from " : "", min,
		max, arg);
	return false;
}

bool ht_cli_uint_value(const char *arg, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(arg, &end, 10);
	/* strtoull takes "-1" as ULLONG_MAX: refuse any sign here */
	if (*end || !*arg || strchr(arg, '-') || errno || n < min || n > max) {
		return false;
	}
	*v = n;
	return true;
}

/*
 * The value ARG of option --NAME into *V when it is a number in [MIN,
 * MAX]; anything else (empty, a sign, other characters, out of range,
 * too large) prints "hetrace <cmd>: --NAME: expected [WHAT from ]MIN to
 * MAX, got 'ARG'" and returns false. A whole number; MAX < UINT64_MAX.
 */
static bool uint_arg(const char *name, const char *arg, uint64_t min,
		     uint64_t max, const char *what, uint64_t *v)
{
	char lo[24], hi[24];

	if (!ht_cli_uint_value(arg, min, max, v)) {
		snprintf(lo, sizeof(lo), "%" PRIu64, min);
		snprintf(hi, sizeof(hi), "%" PRIu64, max);
		return bad_value(name, arg, what, lo, hi);
	}
	return true;
}

/* The same for a number as strtod() reads it (fractions, exponents), a
 * whole one when @whole. */
static bool real_arg(const char *name, const char *arg, double min, double max,
		     bool whole, const char *what, double *v)
{
	char lo[32], hi[32], *end;
	double x = strtod(arg, &end);

	/* written so that a NaN fails the range test */
	if (end == arg || *end || !(x >= min && x <= max) ||
	    (whole && x != (double)(uint64_t)x)) {
		snprintf(lo, sizeof(lo), "%.15g", min);
		snprintf(hi, sizeof(hi), "%.15g", max);
		return bad_value(name, arg, what, lo, hi);
	}
	*v = x;
	return true;
}

int ht_cli_elf_check(const struct ht_cli_opt *opt, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const char *path = eq && eq != arg ? eq + 1 : arg;

	if (!*path) {
		fprintf(stderr,
			"%s: --%s: expected [CORE=]FILE, got '%s' (no file "
			"name)\n",
			ht_cli_prog, opt->name, arg);
		return HT_EXIT_USAGE;
	}
	return HT_CLI_GO_ON;
}

static bool takes_value(const struct ht_cli_opt *o)
{
	return o->kind != HT_CLI_OPT_FLAG && o->kind != HT_CLI_OPT_BITS &&
	       o->kind != HT_CLI_OPT_CALL_NOARG;
}

/*
 * getopt_long()'s tables for the @n entries of @opts: @longopts has
 * room for n + 2 (--help and the end), @shortopts for 2 n + 3 (a ':'
 * first, "h" and the end). An alias has the answer of the entry it
 * names, so that getopt takes an abbreviation matching both as one.
 */
static void build_tables(const struct ht_cli_opt *opts, size_t n,
			 unsigned flags, struct option *longopts,
			 char *shortopts)
{
	const struct ht_cli_opt *named = opts;
	size_t i;

	if (flags & HT_CLI_OWN_MESSAGES) {
		/* a missing value answers ':', getopt says nothing */
		*shortopts++ = ':';
	}
	for (i = 0; i < n; i++) {
		if (opts[i].kind != HT_CLI_OPT_ALIAS) {
			named = &opts[i];
		}
		longopts[i].name = opts[i].name;
		longopts[i].has_arg =
		    takes_value(named) ? required_argument : no_argument;
		longopts[i].flag = NULL;
		longopts[i].val = named->letter
				      ? named->letter
				      : LONG_ONLY + (int)(named - opts);
		if (named == &opts[i] && named->letter) {
			*shortopts++ = named->letter;
			if (takes_value(named)) {
				*shortopts++ = ':';
			}
		}
	}
	longopts[n] = (struct option){"help", no_argument, NULL, 'h'};
	longopts[n + 1] = (struct option){NULL, 0, NULL, 0};
	*shortopts++ = 'h';
	*shortopts = '\0';
}

/* The entry getopt_long() answered @c for, NULL for none ('?', ':'). */
static const struct ht_cli_opt *find_opt(const struct ht_cli_opt *opts,
					 size_t n, int c)
{
	size_t i;

	if (c >= LONG_ONLY) {
		return &opts[c - LONG_ONLY];
	}
	for (i = 0; i < n; i++) {
		if (opts[i].kind != HT_CLI_OPT_ALIAS && opts[i].letter == c) {
			return &opts[i];
		}
	}
	return NULL;
}

static int add_to_list(const struct ht_cli_opt *o, const char *arg)
{
	int ret;

	if (o->call) {
		ret = o->call(o, arg);
		if (ret != HT_CLI_GO_ON) {
			return ret;
		}
	}
	if (*o->nr == o->max) {
		fprintf(stderr, "%s: --%s: more than %" PRIu64 "%s%s\n",
			ht_cli_prog, o->name, o->max, o->what ? " " : "",
			o->what ? o->what : "");
		return HT_EXIT_USAGE;
	}
	o->to.list[(*o->nr)++] = arg;
	return HT_CLI_GO_ON;
}

/* Does what option @o says with its value @arg (NULL: none). */
static int take(const struct ht_cli_opt *o, const char *arg)
{
	switch (o->kind) {
	case HT_CLI_OPT_FLAG:
		*o->to.flag = true;
		break;
	case HT_CLI_OPT_BITS:
		*o->to.bits |= o->bits;
		break;
	case HT_CLI_OPT_STRING:
		*o->to.str = arg;
		break;
	case HT_CLI_OPT_UINT:
		if (!uint_arg(o->name, arg, o->min, o->max, o->what,
			      o->to.uint)) {
			return HT_EXIT_USAGE;
		}
		break;
	case HT_CLI_OPT_REAL:
		if (!real_arg(o->name, arg, o->rmin, o->rmax, o->whole, o->what,
			      o->to.real)) {
			return HT_EXIT_USAGE;
		}
		break;
	case HT_CLI_OPT_LIST:
		return add_to_list(o, arg);
	case HT_CLI_OPT_CALL:
	case HT_CLI_OPT_CALL_NOARG:
		return o->call(o, arg);
	case HT_CLI_OPT_ALIAS:
		/* find_opt() answers the entry an alias names */
		break;
	}
	return HT_CLI_GO_ON;
}

/* An unknown option or a missing value (getopt's answer @c). */
static int refuse(int c, char **argv, unsigned flags, void (*usage)(FILE *))
{
	if (!(flags & HT_CLI_OWN_MESSAGES)) {
		/* getopt has said what is wrong */
		usage(stderr);
		return HT_EXIT_USAGE;
	}
	if (c == ':') {
		return ht_cli_usage_error(usage, "option '%s' needs a value",
					  argv[optind - 1]);
	}
	return ht_cli_usage_error(usage, "unknown option '%s'",
				  argv[optind - 1]);
}

/* The arguments after the options, checked by @flags. */
static int take_args(int argc, char **argv, unsigned flags,
		     void (*usage)(FILE *), struct ht_cli_args *args)
{
	args->v = argv + optind;
	args->nr = (size_t)(argc - optind);
	if ((flags & HT_CLI_WANT_TRACES) && !args->nr) {
		return ht_cli_usage_error(usage, "no trace given");
	}
	if ((flags & HT_CLI_WANT_NO_ARGS) && args->nr) {
		return ht_cli_usage_error(usage, "unexpected argument '%s'",
					  args->v[0]);
	}
	return HT_CLI_GO_ON;
}

bool ht_cli_list_options;

/* The table's options for completion (ht_cli_list_options); old names
 * (aliases) are left out: they are not offered. */
static int list_options(const struct ht_cli_opt *opts)
{
	size_t i;

	for (i = 0; opts[i].name; i++) {
		if (opts[i].kind == HT_CLI_OPT_ALIAS) {
			continue;
		}
		if (opts[i].letter) {
			printf("-%c %d\n", opts[i].letter,
			       takes_value(&opts[i]));
		}
		printf("--%s %d\n", opts[i].name, takes_value(&opts[i]));
	}
	printf("-h 0\n--help 0\n");
	return HT_EXIT_OK;
}

int ht_cli_parse(int argc, char **argv, const struct ht_cli_opt *opts,
		 unsigned flags, void (*usage)(FILE *out),
		 struct ht_cli_args *args)
{
	if (ht_cli_list_options) {
		return list_options(opts);
	}

	struct option *longopts;
	char *shortopts;
	size_t n = 0;
	int c, ret = HT_CLI_GO_ON;

	while (opts[n].name) {
		n++;
	}
	longopts = calloc(n + 2, sizeof(*longopts));
	shortopts = malloc(2 * n + 3);
	if (!longopts || !shortopts) {
		ret = ht_cli_nomem();
		goto free_tables;
	}
	build_tables(opts, n, flags, longopts, shortopts);

	/* 0: a new scan from argv[1] (glibc), also for demo's steps */
	optind = 0;
	opterr = !(flags & HT_CLI_OWN_MESSAGES);
	while (ret == HT_CLI_GO_ON &&
	       (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct ht_cli_opt *o = find_opt(opts, n, c);

		if (c == 'h') {
			usage(stdout);
			ret = HT_EXIT_OK;
		} else if (!o) {
			ret = refuse(c, argv, flags, usage);
		} else {
			ret = take(o, optarg);
		}
	}
	if (ret == HT_CLI_GO_ON) {
		ret = take_args(argc, argv, flags, usage, args);
	}
free_tables:
	free(longopts);
	free(shortopts);
	return ret;
}

/* ---- --begin, --end, --timerange, --core ---- */

/* "hetrace CMD: --NAME 'ARG': column N: WHY" */
static int bad_time(const struct ht_cli_opt *opt, const char *arg, size_t at,
		    const char *why)
{
	fprintf(stderr, "%s: --%s '%s': column %zu: %s\n", ht_cli_prog,
		opt->name, arg, at + 1, why);
	return HT_EXIT_USAGE;
}

int ht_cli_range_opt(const struct ht_cli_opt *opt, const char *arg)
{
	struct ht_cli_range *r = opt->to.arg;
	const char *why;
	size_t at;

	if (!strcmp(opt->name, "timerange")) {
		if (r->begin_given || r->end_given) {
			fprintf(stderr,
				"%s: --timerange cannot be used with --begin "
				"or --end\n",
				ht_cli_prog);
			return HT_EXIT_USAGE;
		}
		if (ht_time_spec_parse_range(arg, &r->begin, &r->end, &at,
					     &why)) {
			return bad_time(opt, arg, at, why);
		}
		r->timerange_given = true;
		return HT_CLI_GO_ON;
	}
	if (r->timerange_given) {
		fprintf(stderr, "%s: --%s cannot be used with --timerange\n",
			ht_cli_prog, opt->name);
		return HT_EXIT_USAGE;
	}
	if (ht_time_spec_parse(
		arg, !strcmp(opt->name, "begin") ? &r->begin : &r->end, &at,
		&why)) {
		return bad_time(opt, arg, at, why);
	}
	*(!strcmp(opt->name, "begin") ? &r->begin_given : &r->end_given) = true;
	return HT_CLI_GO_ON;
}

int ht_cli_core_opt(const struct ht_cli_opt *opt, const char *arg)
{
	struct ht_cli_range *r = opt->to.arg;
	const char *p = arg;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (!len) {
			fprintf(stderr,
				"%s: --%s '%s': column %zu: expected a core "
				"name or id\n",
				ht_cli_prog, opt->name, arg,
				(size_t)(p - arg) + 1);
			return HT_EXIT_USAGE;
		}
		if (r->nr_cores == HT_CLI_MAX_CORES ||
		    r->names_len + len + 1 > sizeof(r->names)) {
			fprintf(stderr, "%s: --%s: too many cores\n",
				ht_cli_prog, opt->name);
			return HT_EXIT_USAGE;
		}
		memcpy(r->names + r->names_len, p, len);
		r->names[r->names_len + len] = '\0';
		r->cores[r->nr_cores++] = r->names + r->names_len;
		r->names_len += len + 1;
		if (!comma) {
			return HT_CLI_GO_ON;
		}
		p = comma + 1;
	}
}

/* Whether the time @t needs the trace's first time. */
static bool needs_first(const struct ht_time_spec *t)
{
	return t->kind == HT_TIME_SPEC_DAY || t->kind == HT_TIME_SPEC_RELATIVE;
}

int ht_cli_range_prepare(struct ht_cli_range *r, char **paths, size_t n,
			 struct ht_ctf_open_opts *oo, bool gmt)
{
	struct ht_ctf_select *sel = &r->select;
	int64_t first = 0;

	sel->cores = r->nr_cores ? r->cores : NULL;
	sel->nr_cores = r->nr_cores;
	sel->events = NULL; /* the first time is of every event */
	sel->nr_events = 0;
	sel->begin_ns = INT64_MIN;
	sel->end_ns = INT64_MAX;
	if (needs_first(&r->begin) || needs_first(&r->end)) {
		struct ht_ctf_open_opts o = *oo;
		struct ht_ctf_set *set;
		int ret;

		o.select = sel; /* the first time of the cores selected */
		if (ht_cli_open_traces(&set, paths, n, &o)) {
			return HT_EXIT_FAIL;
		}
		ret = ht_ctf_set_first_ns(set, &first);
		ht_ctf_set_close(set);
		if (ret) {
			fprintf(stderr,
				"%s: the traces have no time: a time of day or "
				"a +N time cannot be placed\n",
				ht_cli_prog);
			return HT_EXIT_FAIL;
		}
	}
	if ((r->begin.kind &&
	     ht_time_spec_resolve(&r->begin, first, gmt, &sel->begin_ns)) ||
	    (r->end.kind &&
	     ht_time_spec_resolve(&r->end, first, gmt, &sel->end_ns))) {
		fprintf(stderr, "%s: --begin/--end: time out of range\n",
			ht_cli_prog);
		return HT_EXIT_USAGE;
	}
	if (sel->begin_ns > sel->end_ns) {
		fprintf(stderr,
			"%s: --begin is after --end (%lld > %lld ns from the "
			"origin)\n",
			ht_cli_prog, (long long)sel->begin_ns,
			(long long)sel->end_ns);
		return HT_EXIT_USAGE;
	}
	sel->events = r->nr_events ? r->events : NULL;
	sel->nr_events = r->nr_events;
	oo->select = sel;
	return HT_CLI_GO_ON;
}
