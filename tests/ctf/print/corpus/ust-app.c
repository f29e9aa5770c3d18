/* SPDX-License-Identifier: MIT */
/*
 * The traced application of the LTTng-UST print test: every field kind
 * LTTng-UST writes (integers in several bases and byte orders, strings,
 * floats, arrays, sequences, text, enums), from two threads.
 * usage: ust-app N_EVENTS
 */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include <pthread.h>
#include <stdlib.h>

#include "ust-tp.h"

static long n_events = 10;

static void *run(void *arg)
{
	/* no empty string: babeltrace2 2.0 prints a stale value for it */
	static const char *const s[] = {
	    "hello", "a\tb", "-", "xyzw", "quote\"", "\xc3\xa9t\xc3\xa9"};
	int arr[3] = {1, -2, 3};
	long base = (long)arg, i;

	for (i = 0; i < n_events; i++) {
		arr[0] = (int)(i * 7 + base);
		lttng_ust_tracepoint(hetrace_test, ev, (int)(i + base),
				     s[i % 6], (i - 5) / 3.0, (float)i * 1.5f,
				     arr, (size_t)(i % 4));
		lttng_ust_tracepoint(hetrace_test, simple, (int)i);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1) {
		n_events = atol(argv[1]);
	}
	pthread_create(&t, NULL, run, (void *)1000L);
	run(NULL);
	pthread_join(t, NULL);
	return 0;
}
