/* SPDX-License-Identifier: MIT */
/*
 * Board support for QEMU mps2-an385 (Cortex-M3), bsp.h: the CMSDK
 * timer 0 as the trace clock, the CMSDK UART0 (its receive interrupt,
 * IRQ 0, is the core's only interrupt), PRIMASK masking, WFI, and the
 * exit through semihosting.
 */
#include <stdint.h>

#include "bsp-clock.h"
#include "bsp.h"

#define REG(a) (*(volatile uint32_t *)(a))

#define TIMER0 0x40000000u
#define TIMER_CTRL REG(TIMER0 + 0x0u)
#define TIMER_RELOAD REG(TIMER0 + 0x8u)

#define UART0 0x40004000u
#define UART_DATA REG(UART0 + 0x0u)
#define UART_STATE REG(UART0 + 0x4u) /* bit 0 TX full, bit 1 RX full */
#define UART_CTRL REG(UART0 + 0x8u)  /* TX en, RX en, TX int, RX int */
#define UART_INT REG(UART0 + 0xcu)   /* status / clear: bit 1 RX */
#define UART_BAUDDIV REG(UART0 + 0x10u)

#define NVIC_ISER0 REG(0xe000e100u)

const char bsp_core_name[] = "cm3";
const uint32_t bsp_core_id = 1;
/* Not decoded by the AN385's bus: a load there is a bus fault. */
const uintptr_t bsp_bad_address = 0x60000000u;

struct qb_block *bsp_block(void)
{
	/* The PSRAM QEMU backs with the shared file. */
	return (struct qb_block *)(0x21000000u + QB_BLOCK_OFF_MPS2);
}

void bsp_clock_init(void)
{
	TIMER_CTRL = 0;
	TIMER_RELOAD = 0xffffffffu;
	/* Writing VALUE restarts the count from the top. */
	CM3_TIMER0_VALUE = 0xffffffffu;
	TIMER_CTRL = 1u; /* enable, no interrupt */
}

uint32_t bsp_clock_hz(void)
{
	return 25000000u;
}

void bsp_uart_init(void)
{
	UART_BAUDDIV = 16u;
	UART_INT = 3u;
	UART_CTRL = 0x1u | 0x2u | 0x8u; /* TX, RX, RX interrupt */
	/*
	 * QEMU's CMSDK UART refuses input while its receiver is off and
	 * does not look at the socket again when it is switched on; a read
	 * of DATA makes it (accept_input), or a byte could wait for QEMU's
	 * next main-loop wake-up, up to a second later.
	 */
	(void)UART_DATA;
	NVIC_ISER0 = 1u << 0;
}

void bsp_uart_putc(char c)
{
	while (UART_STATE & 1u) {
	}
	UART_DATA = (uint8_t)c;
}

uint32_t bsp_uart_put(const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && !(UART_STATE & 1u); i++) {
		UART_DATA = p[i];
	}
	return i;
}

int bsp_uart_getc(void)
{
	if (!(UART_STATE & 2u)) {
		return -1;
	}
	return (int)(UART_DATA & 0xffu);
}

void bsp_irq_enable(void)
{
	__asm__ volatile("cpsie i" ::: "memory");
}

void bsp_irq_disable(void)
{
	__asm__ volatile("cpsid i" ::: "memory");
}

void bsp_wait_for_irq(void)
{
	__asm__ volatile("wfi" ::: "memory");
}

uint32_t bsp_irq_save(void)
{
	uint32_t primask;

	__asm__ volatile("mrs %0, primask\n"
			 "cpsid i"
			 : "=r"(primask)
			 :
			 : "memory");
	return !(primask & 1u);
}

void bsp_irq_restore(uint32_t on)
{
	if (on) {
		__asm__ volatile("cpsie i" ::: "memory");
	}
}

#define SYST_CSR REG(0xe000e010u)
#define SYST_RVR REG(0xe000e014u)
#define SYST_CVR REG(0xe000e018u)

void bsp_timer_wake(uint32_t ticks)
{
	/* SysTick on the 25 MHz processor clock: the trace clock's rate. */
	SYST_CSR = 0;
	SYST_RVR = ticks > 0x00ffffffu ? 0x00ffffffu : ticks ? ticks : 1u;
	SYST_CVR = 0;
	SYST_CSR = 0x7u; /* enable, interrupt, processor clock */
}

void cm3_systick(void);
void cm3_systick(void)
{
	/* One shot: the wake-up is all it is for. */
	SYST_CSR = 0;
}

void cm3_uart0_rx(void);
void cm3_uart0_rx(void)
{
	/*
	 * Clear first, then read: a byte arriving after the clear raises
	 * the interrupt again instead of being left unseen.
	 */
	UART_INT = 2u;
	fw_uart_isr();
}

#define SCB_AIRCR REG(0xe000ed0cu)

void bsp_reset(void)
{
	/* Every store before the reset request (the retained settings). */
	__asm__ volatile("dsb" ::: "memory");
	/* VECTKEY 0x05fa, SYSRESETREQ (bit 2): QEMU resets the machine. */
	SCB_AIRCR = 0x05fa0000u | (1u << 2);
	__asm__ volatile("dsb" ::: "memory");
	for (;;) {
	}
}

void bsp_exit(int code)
{
	/* Semihosting SYS_EXIT (needs -semihosting): ADP_Stopped_
	 * ApplicationExit, or RunTimeErrorUnknown on failure. */
	register uint32_t r0 __asm__("r0") = 0x18u;
	register uint32_t r1 __asm__("r1") = code ? 0x20023u : 0x20026u;

	__asm__ volatile("bkpt 0xab" : : "r"(r0), "r"(r1) : "memory");
	for (;;) {
		__asm__ volatile("wfi");
	}
}
