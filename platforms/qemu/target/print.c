/* SPDX-License-Identifier: MIT */
/* UART text output and the common fault report (bsp.h). */
#include <stdint.h>

#include "bsp-clock.h"
#include "bsp.h"

void bsp_puts(const char *s)
{
	while (*s) {
		bsp_uart_putc(*s++);
	}
}

void bsp_put_u32(uint32_t v)
{
	char buf[11];
	int i = 10;

	buf[i] = 0;
	do {
		buf[--i] = (char)('0' + v % 10u);
		v /= 10u;
	} while (v);
	bsp_puts(buf + i);
}

void bsp_put_hex(uint32_t v)
{
	static const char digits[] = "0123456789abcdef";
	char buf[11];
	int i;

	buf[0] = '0';
	buf[1] = 'x';
	for (i = 0; i < 8; i++) {
		buf[2 + i] = digits[(v >> (28 - 4 * i)) & 15u];
	}
	buf[10] = 0;
	bsp_puts(buf);
}

uint64_t (*bsp_fault_clock)(void);

void bsp_fault_report(const struct qb_fault *in)
{
	struct qb_block *b = bsp_block();
	struct qb_fault fr = *in;
	const struct qb_fault *f = &fr;
	uint64_t t;

	bsp_irq_disable();
	t = bsp_fault_clock ? bsp_fault_clock() : bsp_clock_read(NULL);
	fr.ticks_lo = (uint32_t)t;
	fr.ticks_hi = (uint32_t)(t >> 32);
	if (b->magic == QB_MAGIC) {
		b->fault = fr;
		/* The record before the state that announces it. */
		HT_MEMORY_BARRIER();
		b->state = QB_FAULT;
	}
	bsp_puts("\r\nhetrace fw ");
	bsp_puts(bsp_core_name);
	bsp_puts(": FAULT kind ");
	bsp_put_u32(f->kind);
	bsp_puts(" pc ");
	bsp_put_hex(f->pc);
	bsp_puts(" addr ");
	bsp_put_hex(f->addr);
	bsp_puts(" status ");
	bsp_put_hex(f->status);
	bsp_puts(" lr ");
	bsp_put_hex(f->lr);
	bsp_puts(" sp ");
	bsp_put_hex(f->sp);
	bsp_puts("\r\n");
	for (;;) {
		bsp_wait_for_irq();
	}
}
