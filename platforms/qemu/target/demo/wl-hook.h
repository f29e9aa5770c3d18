/* SPDX-License-Identifier: MIT */
#ifndef HT_QEMU_WL_HOOK_H
#define HT_QEMU_WL_HOOK_H

/*
 * The workload's tracepoints in the demo firmware (main.c): the
 * firmware's own events (fw-events.yaml), from task context, with the
 * core's interrupts masked around each call so that the sync handler
 * never finds the tracer busy (its records are never dropped).
 */
#include "fw-trace-ctx.h"

static inline void wl_tp_hash(uint32_t index, uint32_t h0)
{
	bsp_irq_disable();
	fw_trace_sha_hash(&fw_ctx, index, h0);
	fw_count_event();
	bsp_irq_enable();
}

static inline void wl_tp_pisum(uint32_t rep, uint32_t sum_e9)
{
	bsp_irq_disable();
	fw_trace_pisum_rep(&fw_ctx, rep, sum_e9);
	fw_count_event();
	bsp_irq_enable();
}

static inline void wl_tp_qsort(uint32_t lo, uint32_t hi, uint32_t depth)
{
	bsp_irq_disable();
	fw_trace_qsort_call(&fw_ctx, lo, hi, depth);
	fw_count_event();
	bsp_irq_enable();
}

#endif
