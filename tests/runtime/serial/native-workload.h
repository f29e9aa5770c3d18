/* SPDX-License-Identifier: MIT */
#ifndef NATIVE_WORKLOAD_H
#define NATIVE_WORKLOAD_H

#include <stdint.h>

unsigned work_fib(unsigned n);
void work_swap(uint32_t *a, uint32_t *b);
void work_sort(uint32_t *v, unsigned n);
/* One step: sorts 8 numbers, computes a small Fibonacci number. */
unsigned work_step(unsigned i);
/* Runs steps while between(arg) returns non-zero. */
unsigned work_loop(int (*between)(void *), void *arg);

#endif
