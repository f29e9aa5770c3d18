/* SPDX-License-Identifier: MIT */
#ifndef HT_QEMU_BENCH_WL_HOOK_H
#define HT_QEMU_BENCH_WL_HOOK_H

/*
 * The workload's tracepoints in the benchmark firmware (bench-main.c):
 * every one is the one-uint32 event of bench/tracepoint/config.yaml, the
 * same call for hetrace's and barectf's generated code.
 */
/* The port's clock first: hetrace's compile-time clock may use it. */
#include "bsp-clock.h"
#include "barectf.h"

extern struct barectf_default_ctx bench_ctx;

static inline void wl_tp_hash(uint32_t index, uint32_t h0)
{
	(void)h0;
	barectf_trace_one_u32(&bench_ctx, index);
}

static inline void wl_tp_pisum(uint32_t rep, uint32_t sum_e9)
{
	(void)rep;
	barectf_trace_one_u32(&bench_ctx, sum_e9);
}

static inline void wl_tp_qsort(uint32_t lo, uint32_t hi, uint32_t depth)
{
	(void)hi;
	(void)depth;
	barectf_trace_one_u32(&bench_ctx, lo);
}

#endif
