/* SPDX-License-Identifier: MIT */
/* Helpers shared by the subcommands (cli.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void ht_cli_warn(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "%s: warning: %s\n", ht_cli_prog, msg);
}

bool ht_cli_uint_arg(const char *name, const char *arg, uint64_t min,
		     uint64_t max, const char *hint, uint64_t *v)
{
	char *end;
	unsigned long long n = strtoull(arg, &end, 10);

	/* strtoull takes "-1" as ULLONG_MAX: refuse any sign here */
	if (*end || !*arg || arg[0] == '-' || n < min || n > max) {
		fprintf(stderr, "%s: bad --%s value '%s'%s%s%s\n", ht_cli_prog,
			name, arg, hint ? " (" : "", hint ? hint : "",
			hint ? ")" : "");
		return false;
	}
	*v = n;
	return true;
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
