/* SPDX-License-Identifier: MIT */
#ifndef HT_QEMU_BSP_H
#define HT_QEMU_BSP_H

/*
 * The board-support layer each QEMU port implements
 * (platforms/qemu/target/cortex-m/bsp.c, platforms/qemu/target/riscv/bsp.c):
 * what the common firmware (main.c) and the benchmarks need from the machine.
 * Freestanding C99; no libc.
 */
#include <stddef.h>
#include <stdint.h>

#include "qemu-board.h"

/* The port's name ("cm3", "rv32") and its board block. */
extern const char bsp_core_name[];
extern const uint32_t bsp_core_id;
/* An address whose load faults (QB_JOB_CRASH). */
extern const uintptr_t bsp_bad_address;
struct qb_block *bsp_block(void);

/* Clock: starts the counter. bsp_clock() is the raw 32-bit count. */
void bsp_clock_init(void);
uint32_t bsp_clock_hz(void);

/* UART: transmit (polled), receive interrupt on. */
void bsp_uart_init(void);
void bsp_uart_putc(char c);
/* Takes one received byte: 0..255, or -1 when the FIFO is empty. */
int bsp_uart_getc(void);
/*
 * Puts up to @n bytes into the transmitter without waiting: returns how
 * many it took (0 while the UART is full).
 */
uint32_t bsp_uart_put(const uint8_t *p, uint32_t n);

/*
 * Resets the core the way the machine's reset button does (QEMU resets
 * every device and restarts the image; RAM outside the image, the
 * .noinit section of link.ld, keeps its content). Never returns.
 */
void bsp_reset(void) __attribute__((noreturn));

/* Interrupts of the core: masked / unmasked; wait for one. */
void bsp_irq_enable(void);
void bsp_irq_disable(void);
void bsp_wait_for_irq(void);
/* Masks interrupts and returns whether they were on (for restore). */
uint32_t bsp_irq_save(void);
void bsp_irq_restore(uint32_t on);

/*
 * Raises the core's timer interrupt once, @ticks of the trace clock from
 * now (at most 0x00ffffff on the Cortex-M3, whose SysTick has 24 bits),
 * to wake bsp_wait_for_irq(); the handler only clears it.
 */
void bsp_timer_wake(uint32_t ticks);

/* Ends the run: semihosting exit when QEMU has it, else spins. */
void bsp_exit(int code) __attribute__((noreturn));

/* Called by the port's UART interrupt handler. */
void fw_uart_isr(void);

/* Writes a NUL-terminated string to the UART. */
void bsp_puts(const char *s);
void bsp_put_u32(uint32_t v);
void bsp_put_hex(uint32_t v);

/*
 * The fault path, shared by the ports: records @f in the block (state
 * QB_FAULT) and prints it on the UART. Never returns.
 */
void bsp_fault_report(const struct qb_fault *f) __attribute__((noreturn));

/* The clock the fault record is stamped with (the trace's extended
 * clock); NULL: the raw counter. */
extern uint64_t (*bsp_fault_clock)(void);

#endif
