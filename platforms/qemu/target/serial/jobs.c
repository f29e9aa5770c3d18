/* SPDX-License-Identifier: MIT */
/*
 * The serial firmware's workload (jobs.h), compiled with
 * -finstrument-functions: each function here and in workload.c
 * (SHA-256 over the permutations of "barectf", pisum, the recursive
 * quicksort) writes func_entry / func_exit. firmware.mk leaves out the
 * small helpers called thousands of times per job (ror,
 * next_permutation, wl_sha256_short): one SHA-256 job is then one call
 * instead of three million, and the line keeps up.
 */
#include <stdint.h>

#include "jobs.h"
#include "workload.h"

/* The sizes are small: a step takes a few milliseconds of the period. */
#define QSORT_N 256u
#define PISUM_REPS 1u

uint32_t job_sha(void)
{
	return wl_sha_permutations(0);
}

uint32_t job_pisum(void)
{
	return wl_pisum(PISUM_REPS, 0);
}

uint32_t job_qsort(void)
{
	return wl_quicksort(QSORT_N, 0);
}

/* A cheap leaf: the sum of the digits of @v (a distinct name to trace). */
uint32_t job_digits(uint32_t v)
{
	uint32_t s = 0;

	while (v) {
		s += v % 10u;
		v /= 10u;
	}
	return s;
}

uint32_t job_run(uint32_t step)
{
	uint32_t r;

	switch (step % 4u) {
	case 0:
		/* The heavy one, every 8 steps only. */
		r = step % 8u ? job_digits(step) : job_sha();
		break;
	case 1:
		r = job_pisum();
		break;
	case 2:
		r = job_qsort();
		break;
	default:
		r = job_digits(step);
		break;
	}
	if (step % 256u == 0u) {
		fws_log("jobs: 256 steps\n");
	}
	return r;
}
