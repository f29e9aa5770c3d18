/* SPDX-License-Identifier: MIT */
#ifndef HT_QEMU_SERIAL_WL_HOOK_H
#define HT_QEMU_SERIAL_WL_HOOK_H

/*
 * The workload's tracepoints in the serial firmware: none. Its
 * functions are traced by -finstrument-functions (jobs.c calls them with
 * their tracepoints off); these keep workload.c building.
 */
#include <stdint.h>

static inline void wl_tp_hash(uint32_t index, uint32_t h0)
{
	(void)index;
	(void)h0;
}

static inline void wl_tp_pisum(uint32_t rep, uint32_t sum_e9)
{
	(void)rep;
	(void)sum_e9;
}

static inline void wl_tp_qsort(uint32_t lo, uint32_t hi, uint32_t depth)
{
	(void)lo;
	(void)hi;
	(void)depth;
}

#endif
