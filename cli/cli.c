/* SPDX-License-Identifier: MIT */
/* Helpers shared by the subcommands (cli.h). */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
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

int ht_cli_tell_skipped(uint64_t damaged)
{
	if (!damaged) {
		return HT_EXIT_OK;
	}
	fprintf(stderr, "%s: %" PRIu64 " damaged parts of the input skipped\n",
		ht_cli_prog, damaged);
	return HT_EXIT_FAIL;
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
