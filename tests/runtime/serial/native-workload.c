/* SPDX-License-Identifier: MIT */
/*
 * The native test target's workload (native-target.c), compiled with
 * -finstrument-functions: functions with distinct names whose calls the
 * tests count (work_fib, work_sort, work_swap, work_step, work_loop).
 */
#include <stdint.h>

#include "native-workload.h"

unsigned work_fib(unsigned n)
{
	return n < 2u ? n : work_fib(n - 1u) + work_fib(n - 2u);
}

void work_swap(uint32_t *a, uint32_t *b)
{
	uint32_t t = *a;

	*a = *b;
	*b = t;
}

/* Insertion sort: a few calls of work_swap per element. */
void work_sort(uint32_t *v, unsigned n)
{
	unsigned i, j;

	for (i = 1; i < n; i++) {
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			work_swap(&v[j - 1], &v[j]);
		}
	}
}

unsigned work_step(unsigned i)
{
	uint32_t v[8];
	unsigned k;

	for (k = 0; k < 8u; k++) {
		v[k] = (i * 2654435761u + k * 40503u) >> 7;
	}
	work_sort(v, 8);
	return work_fib(6u + i % 3u) + v[0];
}

unsigned work_loop(int (*between)(void *), void *arg)
{
	unsigned i = 0, sum = 0;

	while (between(arg)) {
		sum += work_step(i++);
	}
	return sum;
}
