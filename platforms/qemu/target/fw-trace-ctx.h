/* SPDX-License-Identifier: MIT */
#ifndef HT_QEMU_FW_TRACE_CTX_H
#define HT_QEMU_FW_TRACE_CTX_H

/*
 * The demo firmware's tracer (generated from the port's trace.yaml by
 * hetrace gen) with the port's clock read inline (bsp-clock.h), and
 * the one stream context of the core.
 */
#include "bsp-clock.h"
#define HT_CLOCK_CNT_FN bsp_clock_read
#include "bsp.h"
#include "fw-trace.h"

extern struct fw_core_ctx fw_ctx;

/* Counts a tracing call in the board block (the host's summary). */
static inline void fw_count_event(void)
{
	struct qb_block *b = bsp_block();

	b->events = b->events + 1u;
}

#endif
