/* SPDX-License-Identifier: MIT */
/* Helpers excluded from instrumentation by file (build.sh). */
#include "util.h"

static unsigned state = 12345;

unsigned util_rand(void)
{
	state = state * 1103515245u + 12345u;
	return (state >> 16) & 0x7fffu;
}

unsigned util_checksum(const int *v, int n)
{
	unsigned h = 2166136261u;
	int i;

	for (i = 0; i < n; i++) {
		h = (h ^ (unsigned)v[i]) * 16777619u;
	}
	return h;
}
