/* SPDX-License-Identifier: MIT */
/* The instrumented leaf of bench/qemu/serial-bench.c (compiled with
 * -finstrument-functions): one func_entry and one func_exit per call. */
#include <stdint.h>

uint32_t bench_leaf(uint32_t v);

uint32_t bench_leaf(uint32_t v)
{
	return v * 3u + 1u;
}
