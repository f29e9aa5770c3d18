/* SPDX-License-Identifier: MIT */
#ifndef HT_SIM_BSP_H
#define HT_SIM_BSP_H

/*
 * The slave's board-support layer: what a bare-metal core of the
 * simulated board has and the rest of its code (slave.c: the
 * freestanding runtime, the generated tracer, the workload) uses.
 *
 * - A 32-bit cycle counter: the core's clock model (clock-model.h)
 *   applied to the reference clock.
 * - Two interrupts: SIGUSR1 is the sync interrupt (irq 1), SIGUSR2 the
 *   mailbox interrupt (irq 2). They do not nest: each handler runs with
 *   both masked, as on a core with one interrupt priority.
 * - Interrupt masking (the "disable interrupts" of a bare-metal core):
 *   the task code masks them around its tracing calls and its message
 *   queue accesses, so a handler never finds the tracer busy.
 */
#include <stdint.h>

#include "board.h"

/*
 * Sets the core up in the forked process: its clock, the handlers of its
 * two interrupts (called in interrupt context), interrupts masked.
 */
void sim_bsp_init(struct sim_shared *sh, uint32_t core_id,
		  void (*sync_isr)(void), void (*msg_isr)(void));

/* The core's 32-bit counter (the tracer's clock callback). */
uint32_t sim_bsp_counter(void *unused);

void sim_bsp_irq_disable(void);
void sim_bsp_irq_enable(void);

/*
 * Masks interrupts and returns 1 when they were unmasked, 0 when they
 * were masked already; sim_bsp_irq_restore() puts them back as they were
 * (for code called both with and without them masked).
 */
int sim_bsp_irq_save(void);
void sim_bsp_irq_restore(int were_on);

/*
 * With interrupts masked: waits until an interrupt was taken (its
 * handler ran); returns with interrupts masked again. The core's idle:
 * it first spins with interrupts unmasked for the board's idle_spin_ns
 * (board.h; a core polling in its idle loop, or in WFE, before it
 * sleeps in WFI), then sleeps. An interrupt raised while it spins is
 * taken at once, without the wake-up of a sleeping process; it is still
 * a signal, delivered by the kernel.
 */
void sim_bsp_wait_for_irq(void);

/*
 * Raises the mailbox interrupt of core @core_id (the master's: a
 * semaphore it waits on). Returns 0 or -1.
 */
int sim_bsp_raise_msg_irq(uint32_t core_id);

/* Busy-waits @us microseconds of reference time. */
void sim_bsp_delay_us(uint32_t us);

/* Leaves the program (the core halts). */
void sim_bsp_halt(int code) __attribute__((noreturn));

#endif
