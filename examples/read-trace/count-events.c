/* SPDX-License-Identifier: MIT */
/*
 * A host program on hetrace's library: reads CTF traces with the CTF
 * reader (host/ctf/ctf-reader.h) and prints, per event name, how many
 * events there are, then the events lost. Built against an installed
 * hetrace with pkg-config:
 *
 *   cc count-events.c $(pkg-config --cflags --libs hetrace) -o count-events
 *   ./count-events TRACE...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "host/ctf/ctf-reader.h"

#define MAX_NAMES 256

struct count {
	const char *name; /* the event class's: lives until the set closes */
	uint64_t n;
};

static struct count counts[MAX_NAMES];
static size_t nr_counts;

static void count_event(const char *name)
{
	size_t i;

	for (i = 0; i < nr_counts; i++) {
		if (!strcmp(counts[i].name, name)) {
			counts[i].n++;
			return;
		}
	}
	if (nr_counts < MAX_NAMES) {
		counts[nr_counts].name = name;
		counts[nr_counts++].n = 1;
	}
}

int main(int argc, char **argv)
{
	struct ht_ctf_open_opts opts = {.flags = HT_CTF_EVENTS_ONLY};
	struct ht_ctf_set *set;
	struct ht_ctf_msg msg;
	uint64_t lost = 0;
	char err[512];
	size_t i;
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: count-events TRACE...\n");
		return 2;
	}
	ret = ht_ctf_set_open(&set, (const char *const *)argv + 1,
			      (size_t)argc - 1, &opts, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "count-events: %s\n", err);
		return 1;
	}
	while ((ret = ht_ctf_set_next(set, &msg)) != HT_EEOF) {
		if (ret) {
			fprintf(stderr, "count-events: %s: %s\n",
				ht_strerror(ret), ht_ctf_set_last_error(set));
			ht_ctf_set_close(set);
			return 1;
		}
		if (msg.kind == HT_CTF_MSG_EVENT) {
			count_event(msg.event->cls->name);
		} else if (msg.kind == HT_CTF_MSG_DISCARDED_EVENTS) {
			lost += msg.count;
		}
	}
	for (i = 0; i < nr_counts; i++) {
		printf("%-24s %llu\n", counts[i].name,
		       (unsigned long long)counts[i].n);
	}
	printf("%-24s %llu\n", "(lost)", (unsigned long long)lost);
	ht_ctf_set_close(set);
	return 0;
}
