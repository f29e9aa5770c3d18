/* SPDX-License-Identifier: MIT */
/*
 * Board support for QEMU RISC-V virt (RV32, M-mode), bsp.h: mtime as
 * the trace clock, the ns16550a UART (its receive interrupt, PLIC
 * source 10, is the core's only interrupt), mstatus.MIE masking, WFI,
 * the trap handler (external interrupts; every exception is a fault,
 * recorded and printed), the exit through the virt test device.
 */
#include <stdint.h>

#include "bsp-clock.h"
#include "bsp.h"

#define REG8(a) (*(volatile uint8_t *)(a))
#define REG32(a) (*(volatile uint32_t *)(a))

#define UART 0x10000000u
#define UART_RBR REG8(UART + 0u) /* THR on write */
#define UART_IER REG8(UART + 1u)
#define UART_FCR REG8(UART + 2u)
#define UART_LCR REG8(UART + 3u)
#define UART_LSR REG8(UART + 5u) /* bit 0 data ready, bit 5 THR empty */
#define UART_IRQ 10u

#define PLIC 0x0c000000u
#define PLIC_PRIO(n) REG32(PLIC + 4u * (n))
#define PLIC_ENABLE0 REG32(PLIC + 0x2000u) /* hart 0, M-mode */
#define PLIC_THRESHOLD REG32(PLIC + 0x200000u)
#define PLIC_CLAIM REG32(PLIC + 0x200004u)

#define VIRT_TEST REG32(0x00100000u)

const char bsp_core_name[] = "rv32";
const uint32_t bsp_core_id = 2;
/* Between virt's debug area and its boot ROM, nothing is mapped: a
 * load access fault. */
const uintptr_t bsp_bad_address = 0x00000800u;

struct qb_block *bsp_block(void)
{
	return (struct qb_block *)(0x80000000u + QB_BLOCK_OFF_VIRT);
}

void bsp_clock_init(void)
{
	/* mtime runs from reset. */
}

uint32_t bsp_clock_hz(void)
{
	return 10000000u;
}

void bsp_uart_init(void)
{
	UART_LCR = 0x03u; /* 8N1 */
	UART_FCR = 0x01u; /* FIFO on */
	UART_IER = 0x01u; /* receive data available */
	PLIC_PRIO(UART_IRQ) = 1u;
	PLIC_THRESHOLD = 0u;
	PLIC_ENABLE0 = 1u << UART_IRQ;
	/* Machine external interrupts (mie.MEIE). */
	__asm__ volatile("csrs mie, %0" : : "r"(1u << 11));
}

void bsp_uart_putc(char c)
{
	while (!(UART_LSR & 0x20u)) {
	}
	UART_RBR = (uint8_t)c;
}

uint32_t bsp_uart_put(const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && (UART_LSR & 0x20u); i++) {
		UART_RBR = p[i];
	}
	return i;
}

int bsp_uart_getc(void)
{
	if (!(UART_LSR & 0x01u)) {
		return -1;
	}
	return UART_RBR;
}

void bsp_irq_enable(void)
{
	__asm__ volatile("csrsi mstatus, 8" ::: "memory");
}

void bsp_irq_disable(void)
{
	__asm__ volatile("csrci mstatus, 8" ::: "memory");
}

void bsp_wait_for_irq(void)
{
	__asm__ volatile("wfi" ::: "memory");
}

uint32_t bsp_irq_save(void)
{
	uint32_t st;

	__asm__ volatile("csrrci %0, mstatus, 8" : "=r"(st) : : "memory");
	return (st >> 3) & 1u;
}

void bsp_irq_restore(uint32_t on)
{
	if (on) {
		__asm__ volatile("csrsi mstatus, 8" ::: "memory");
	}
}

#define MTIMECMP_LO REG32(0x02004000u)
#define MTIMECMP_HI REG32(0x02004004u)
#define MTIME_HI REG32(0x0200bffcu)

void bsp_timer_wake(uint32_t ticks)
{
	uint32_t hi, lo;

	do {
		hi = MTIME_HI;
		lo = RV_MTIME_LO;
	} while (hi != MTIME_HI);
	if (lo + ticks < lo) {
		hi++;
	}
	/* High word to the maximum first: no early interrupt in between. */
	MTIMECMP_HI = 0xffffffffu;
	MTIMECMP_LO = lo + ticks;
	MTIMECMP_HI = hi;
	/* Machine timer interrupts (mie.MTIE). */
	__asm__ volatile("csrs mie, %0" : : "r"(1u << 7));
}

void bsp_exit(int code)
{
	/* The virt test device: 0x5555 passes, (code << 16) | 0x3333 fails. */
	VIRT_TEST = code ? ((uint32_t)code << 16) | 0x3333u : 0x5555u;
	for (;;) {
		__asm__ volatile("wfi");
	}
}

void bsp_reset(void)
{
	/* Every store before the reset request (the retained settings). */
	__asm__ volatile("fence" ::: "memory");
	/* The virt test device: 0x7777 resets the machine. */
	VIRT_TEST = 0x7777u;
	for (;;) {
		__asm__ volatile("wfi");
	}
}

void rv_trap(void) __attribute__((interrupt("machine"), aligned(4)));

void rv_trap(void)
{
	uint32_t cause, epc, tval, status, sp;
	struct qb_fault f = {0};

	__asm__ volatile("csrr %0, mcause" : "=r"(cause));
	if (cause & 0x80000000u) {
		if ((cause & 0x7fffffffu) == 11u) {
			uint32_t src = PLIC_CLAIM;

			if (src == UART_IRQ) {
				fw_uart_isr();
			}
			if (src) {
				PLIC_CLAIM = src;
			}
		} else if ((cause & 0x7fffffffu) == 7u) {
			/* bsp_timer_wake(): one shot, the wake-up is all. */
			__asm__ volatile("csrc mie, %0" : : "r"(1u << 7));
		}
		return;
	}
	__asm__ volatile("csrr %0, mepc" : "=r"(epc));
	__asm__ volatile("csrr %0, mtval" : "=r"(tval));
	__asm__ volatile("csrr %0, mstatus" : "=r"(status));
	__asm__ volatile("mv %0, sp" : "=r"(sp));
	f.kind = cause;
	f.pc = epc;
	f.addr = tval;
	f.status = status;
	f.sp = sp;
	bsp_fault_report(&f);
}
