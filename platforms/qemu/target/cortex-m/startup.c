/* SPDX-License-Identifier: MIT */
/*
 * Cortex-M3 start-up for QEMU mps2-an385: the vector table, the reset
 * handler (data copied, bss cleared, main called) and the fault
 * handlers, which record what they saw in the board block and print it
 * on the UART (bsp_fault_report()) instead of spinning silently.
 */
#include <stdint.h>

#include "bsp.h"

extern uint32_t _data_start[], _data_end[], _data_load[];
extern uint32_t _bss_start[], _bss_end[], _stack_top[];
int main(void);
void cm3_reset(void);
void cm3_fault(void);
void cm3_uart0_rx(void);
void cm3_systick(void);
void cm3_fault_c(const uint32_t *frame, uint32_t exc_return);

static void unexpected(void)
{
	for (;;) {
	}
}

/* System exceptions 1..15, then the 32 external interrupts of the AN385. */
__attribute__((section(".vectors"),
	       used)) static void (*const vectors[48])(void) = {
    (void (*)(void))_stack_top,
    cm3_reset,
    cm3_fault, /* NMI */
    cm3_fault, /* HardFault */
    cm3_fault, /* MemManage */
    cm3_fault, /* BusFault */
    cm3_fault, /* UsageFault */
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected, /* SVCall */
    unexpected,
    unexpected,
    unexpected,	  /* PendSV */
    cm3_systick,  /* SysTick (bsp_timer_wake) */
    cm3_uart0_rx, /* IRQ 0: UART0 receive */
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
    unexpected,
};

void cm3_reset(void)
{
	uint32_t *s = _data_load, *d = _data_start;

	__asm__ volatile("cpsid i");
	while (d < _data_end) {
		*d++ = *s++;
	}
	for (d = _bss_start; d < _bss_end; d++) {
		*d = 0;
	}
	main();
	bsp_exit(1);
}

/*
 * Every fault: the stacked frame (r0-r3, r12, lr, pc, xpsr) is on the
 * stack the faulting code used (EXC_RETURN bit 2: process stack).
 */
__attribute__((naked)) void cm3_fault(void)
{
	__asm__ volatile("tst lr, #4\n"
			 "ite eq\n"
			 "mrseq r0, msp\n"
			 "mrsne r0, psp\n"
			 "mov r1, lr\n"
			 "b cm3_fault_c\n");
}

#define SCB_CFSR (*(volatile uint32_t *)0xe000ed28u)
#define SCB_MMFAR (*(volatile uint32_t *)0xe000ed34u)
#define SCB_BFAR (*(volatile uint32_t *)0xe000ed38u)

void cm3_fault_c(const uint32_t *frame, uint32_t exc_return)
{
	struct qb_fault f = {0};
	uint32_t ipsr, cfsr = SCB_CFSR;

	(void)exc_return;
	__asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
	f.kind = ipsr & 0x1ffu;
	f.pc = frame[6];
	f.lr = frame[5];
	f.sp = (uint32_t)(uintptr_t)(frame + 8);
	f.status = cfsr;
	/* BFARVALID (bit 15), MMARVALID (bit 7). */
	f.addr = (cfsr & 0x8000u) ? SCB_BFAR : (cfsr & 0x80u) ? SCB_MMFAR : 0u;
	bsp_fault_report(&f);
}
