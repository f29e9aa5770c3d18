/* SPDX-License-Identifier: MIT */
#ifndef HT_QEMU_CM3_BSP_CLOCK_H
#define HT_QEMU_CM3_BSP_CLOCK_H

/*
 * The trace clock of the Cortex-M3 port: the CMSDK APB timer 0 of
 * mps2-an385 (0x40000000), a 32-bit down counter on the 25 MHz system
 * clock, reloaded at 0xffffffff (bsp.c), read inverted so that it
 * counts up. It wraps every 171.8 s; the generated tracer extends it to
 * 64 bits. (The M3 in QEMU has no DWT cycle counter; SysTick is only 24
 * bits.) Under -icount shift=0 it ticks once per 40 instructions.
 */
/* Harmless in assembly sources (bench/qemu.sh force-includes it). */
#ifndef __ASSEMBLER__
#include <stdint.h>

#define CM3_TIMER0_VALUE (*(volatile uint32_t *)0x40000004u)

static inline uint64_t bsp_clock_read(void *data)
{
	(void)data;
	return (uint32_t)~CM3_TIMER0_VALUE;
}

#endif

#endif
