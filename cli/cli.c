/* SPDX-License-Identifier: MIT */
/* Helpers shared by the subcommands (cli.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/error.h"

void ht_cli_warn(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "%s: warning: %s\n", ht_cli_prog, msg);
}

void ht_cli_note(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "%s: note: %s\n", ht_cli_prog, msg);
}

int ht_cli_nomem(void)
{
	fprintf(stderr, "%s: %s\n", ht_cli_prog, ht_strerror(HT_ENOMEM));
	return HT_EXIT_FAIL;
}

int ht_cli_help_or_usage(int c, void (*usage)(FILE *out))
{
	if (c == 'h') {
		usage(stdout);
		return HT_EXIT_OK;
	}
	usage(stderr);
	return HT_EXIT_USAGE;
}

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

int ht_cli_want_traces(int argc, void (*usage)(FILE *out))
{
	if (optind >= argc) {
		return ht_cli_usage_error(usage, "no trace given");
	}
	return HT_CLI_GO_ON;
}

int ht_cli_want_no_args(int argc, char **argv, void (*usage)(FILE *out))
{
	if (optind < argc) {
		return ht_cli_usage_error(usage, "unexpected argument '%s'",
					  argv[optind]);
	}
	return HT_CLI_GO_ON;
}

int ht_cli_open_traces(struct ht_ctf_set **set, char **paths, size_t n,
		       const struct ht_ctf_open_opts *opts)
{
	char err[1024];
	int ret;

	err[0] = '\0';
	ret = ht_ctf_set_open(set, (const char *const *)paths, n, opts, err,
			      sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog,
			err[0] ? err : ht_strerror(ret));
		return HT_EXIT_FAIL;
	}
	return HT_EXIT_OK;
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

bool ht_cli_uint_arg(const char *name, const char *arg, uint64_t min,
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

bool ht_cli_real_arg(const char *name, const char *arg, double min, double max,
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

bool ht_cli_elf_arg(struct ht_cli_elfs *e, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const char *path = eq && eq != arg ? eq + 1 : arg;

	if (!*path) {
		fprintf(stderr,
			"%s: --elf: expected [CORE=]FILE, got '%s' (no file "
			"name)\n",
			ht_cli_prog, arg);
		return false;
	}
	if (e->nr == HT_CLI_MAX_ELFS) {
		fprintf(stderr, "%s: --elf: more than %d ELF files\n",
			ht_cli_prog, HT_CLI_MAX_ELFS);
		return false;
	}
	e->spec[e->nr++] = arg;
	return true;
}

int ht_cli_elf_open(struct ht_func_names **fn, const struct ht_cli_elfs *e,
		    const struct ht_func_slices_opts *fo)
{
	char err[1024];
	size_t i;
	int ret;

	*fn = NULL;
	if (!e->nr && !fo) {
		return HT_EXIT_OK;
	}
	ret = fo ? ht_func_names_create_tracker(fn, fo)
		 : ht_func_names_create(fn);
	if (ret) {
		return ht_cli_nomem();
	}
	for (i = 0; i < e->nr; i++) {
		ret = ht_func_names_add(*fn, e->spec[i], err, sizeof(err));
		if (ret) {
			fprintf(stderr, "%s: %s\n", ht_cli_prog,
				ret == HT_ENOMEM ? ht_strerror(ret) : err);
			ht_func_names_destroy(*fn);
			*fn = NULL;
			return HT_EXIT_FAIL;
		}
	}
	return HT_EXIT_OK;
}

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

volatile sig_atomic_t *ht_cli_catch_stop(bool on)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on ? on_stop : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], &sa, NULL);
	}
	return &stop_signal;
}
