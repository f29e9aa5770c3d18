/* SPDX-License-Identifier: MIT */
#ifndef HT_QEMU_SERIAL_JOBS_H
#define HT_QEMU_SERIAL_JOBS_H

/*
 * The serial firmware's instrumented workload (jobs.c, built with
 * -finstrument-functions like workload.c): the main loop calls
 * job_run() once per period, so a trigger or a stopper on any of these
 * functions is hit again and again.
 */
#include <stdint.h>

/* Runs step @step of the cycle: SHA-256, pisum, quicksort, a check. */
uint32_t job_run(uint32_t step);

/* The steps (global: the host names them, e.g. `--trigger job_qsort`). */
uint32_t job_sha(void);	  /* wl_sha_permutations(0) */
uint32_t job_pisum(void); /* wl_pisum(1, 0) */
uint32_t job_qsort(void); /* wl_quicksort(256, 0): ~350 recursive calls */
uint32_t job_digits(uint32_t v);

/* Prints @s through the serial target's LOG frames (main.c). */
void fws_log(const char *s);

#endif
