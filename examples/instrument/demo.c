/* SPDX-License-Identifier: MIT */
/*
 * A small program traced with -finstrument-functions (build.sh,
 * docs/instrument.md): a recursive Fibonacci, a quicksort and a
 * checksum. Every function of this file is instrumented except swap()
 * (-finstrument-functions-exclude-function-list=swap); the functions of
 * util.c are not (-finstrument-functions-exclude-file-list=util.c).
 *
 *   demo STREAM_FILE [N]
 */
#include <stdio.h>
#include <stdlib.h>

#include "trace-glue.h"
#include "util.h"

unsigned long fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* Excluded by name: too small to be worth two records per call. */
void swap(int *a, int *b)
{
	int t = *a;

	*a = *b;
	*b = t;
}

void quicksort(int *v, int n)
{
	int i, last = 0;

	if (n < 2) {
		return;
	}
	swap(&v[0], &v[n / 2]);
	for (i = 1; i < n; i++) {
		if (v[i] < v[0]) {
			swap(&v[++last], &v[i]);
		}
	}
	swap(&v[0], &v[last]);
	quicksort(v, last);
	quicksort(v + last + 1, n - last - 1);
}

int main(int argc, char **argv)
{
	struct glue_opts o = {0};
	struct glue *g;
	int v[256], i, n = argc > 2 ? atoi(argv[2]) : 20;

	if (argc < 2) {
		fprintf(stderr, "usage: demo STREAM_FILE [N]\n");
		return 2;
	}
	o.path = argv[1];
	o.flags = HT_INSTR_TRACE | HT_INSTR_PROFILE;
	g = glue_start(&o);
	if (!g) {
		return 1;
	}
	for (i = 0; i < 256; i++) {
		v[i] = (int)util_rand();
	}
	quicksort(v, 256);
	printf("fib(%d) = %lu, checksum %08x\n", n, fib((unsigned)n),
	       util_checksum(v, 256));
	return glue_finish(g) ? 1 : 0;
}
