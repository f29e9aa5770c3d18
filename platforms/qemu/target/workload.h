/* SPDX-License-Identifier: MIT */
#ifndef HT_QEMU_WORKLOAD_H
#define HT_QEMU_WORKLOAD_H

/*
 * The paper's benchmark workload (Bertauld & Dagenais, EURASIP 2017):
 * SHA-256 over the 5,040 permutations of "barectf", pisum, and a
 * quicksort of 10,000 ints. Each function calls the tracepoints of
 * "wl-hook.h" (the including build chooses them: the demo firmware's
 * events or the benchmark's one_u32), so the same code runs
 * uninstrumented (every = 0) and instrumented.
 */
#include <stdint.h>

#define WL_PERMUTATIONS 5040u
#define QB_QSORT_MAX_N 10000u

/*
 * Hashes every permutation of "barectf" (lexicographic order); a
 * tracepoint every @every hashes (0: none). Returns the XOR of the first
 * word of every digest.
 */
uint32_t wl_sha_permutations(uint32_t every);

/* SHA-256 of @len bytes (len < 56: one block) into @h. */
void wl_sha256_short(const uint8_t *msg, uint32_t len, uint32_t h[8]);

/*
 * @reps times the sum of 1/k^2 for k = 1..10000 (double); a tracepoint
 * per repetition when @trace. Returns the last sum times 1e9.
 */
uint32_t wl_pisum(uint32_t reps, int trace);

/*
 * Sorts @n (<= 10,000) pseudo-random ints with a recursive quicksort; a
 * tracepoint per call when @trace. Returns the number of calls, or
 * 0xffffffff when the result is not sorted.
 */
uint32_t wl_quicksort(uint32_t n, int trace);

#endif
