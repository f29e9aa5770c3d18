/* SPDX-License-Identifier: MIT */
/*
 * The QEMU benchmark firmware (bench/qemu.sh): run under -icount
 * shift=0, where the port's clock counts guest instructions (1 ns each:
 * 40 per tick of the Cortex-M3's 25 MHz timer, 100 per tick of RISC-V's
 * 10 MHz mtime). Prints on the UART, then exits QEMU:
 *   tp LOOP_TICKS EMPTY_TICKS N         the one-uint32 event N times
 *   wl NAME UNTRACED_TICKS TRACED_TICKS TRACEPOINTS
 * Built once with hetrace's and once with barectf's generated code for
 * bench/tracepoint/config.yaml (the same API), and with hetrace's
 * compile-time clock (HT_CLOCK_DEFAULT_FN=bsp_clock_read: no callback).
 */
#include <stdint.h>

#include "bsp-clock.h"
#include "barectf.h"
#include "bsp.h"
#include "workload.h"

#define TP_N 100000u
#define PKT 4096u

struct barectf_default_ctx bench_ctx;
static uint8_t pkt[PKT] __attribute__((aligned(8)));

/* The interrupt path is not used here. */
void fw_uart_isr(void)
{
}

static uint64_t clock_cb(void *data)
{
	return bsp_clock_read(data);
}

static int never_full(void *data)
{
	(void)data;
	return 0;
}

/* A full packet is dropped and the buffer reused: no copy. */
static void open_cb(void *data)
{
	(void)data;
	barectf_default_open_packet(&bench_ctx);
}

static void close_cb(void *data)
{
	(void)data;
	barectf_default_close_packet(&bench_ctx);
}

static void put(const char *s, uint32_t v)
{
	bsp_puts(s);
	bsp_put_u32(v);
}

static volatile uint32_t sink;

static void tp_loop(void)
{
	uint32_t i, t0, t1, t2;

	t0 = (uint32_t)bsp_clock_read(0);
	for (i = 0; i < TP_N; i++) {
		barectf_trace_one_u32(&bench_ctx, i);
	}
	t1 = (uint32_t)bsp_clock_read(0);
	for (i = 0; i < TP_N; i++) {
		sink = i;
	}
	t2 = (uint32_t)bsp_clock_read(0);
	put("tp ", t1 - t0);
	put(" ", t2 - t1);
	put(" ", TP_N);
	bsp_puts("\r\n");
}

static uint32_t calls;

static void wl(const char *name, uint32_t every)
{
	uint32_t t0, t1, t2, n = 0;

	t0 = (uint32_t)bsp_clock_read(0);
	if (name[0] == 's') {
		(void)wl_sha_permutations(0);
	} else if (name[0] == 'p') {
		(void)wl_pisum(4, 0);
	} else {
		(void)wl_quicksort(10000, 0);
	}
	t1 = (uint32_t)bsp_clock_read(0);
	if (name[0] == 's') {
		(void)wl_sha_permutations(every);
		n = 5040u / every;
	} else if (name[0] == 'p') {
		(void)wl_pisum(4, 1);
		n = 4;
	} else {
		n = calls = wl_quicksort(10000, 1);
	}
	t2 = (uint32_t)bsp_clock_read(0);
	bsp_puts("wl ");
	bsp_puts(name);
	put(" ", t1 - t0);
	put(" ", t2 - t1);
	put(" ", n);
	bsp_puts("\r\n");
}

int main(void)
{
	struct barectf_platform_callbacks cbs = {clock_cb, never_full, open_cb,
						 close_cb};

	bsp_clock_init();
	bsp_uart_init();
	barectf_init(&bench_ctx, pkt, PKT, cbs, 0);
	barectf_default_open_packet(&bench_ctx);
	tp_loop();
	wl("sha/1", 1);
	wl("sha/5", 5);
	wl("sha/10", 10);
	wl("sha/100", 100);
	wl("pisum", 0);
	wl("qsort", 0);
	bsp_puts("done\r\n");
	bsp_exit(0);
}
