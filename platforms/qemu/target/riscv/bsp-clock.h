/* SPDX-License-Identifier: MIT */
#ifndef HT_QEMU_RV_BSP_CLOCK_H
#define HT_QEMU_RV_BSP_CLOCK_H

/*
 * The trace clock of the RISC-V port: the low word of the ACLINT
 * machine timer (mtime, 0x0200bff8 on virt), 10 MHz. One load; the
 * generated tracer extends it to 64 bits (it wraps every 429 s). Under
 * -icount shift=0 it ticks once per 100 instructions.
 */
/* Harmless in assembly sources (bench/qemu.sh force-includes it). */
#ifndef __ASSEMBLER__
#include <stdint.h>

#define RV_MTIME_LO (*(volatile uint32_t *)0x0200bff8u)

static inline uint64_t bsp_clock_read(void *data)
{
	(void)data;
	return RV_MTIME_LO;
}

#endif

#endif
