/* SPDX-License-Identifier: MIT */
/*
 * The serial firmware's cost on target (bench/qemu-serial.sh), under
 * -icount shift=0 (the port's clock counts instructions: 40 per tick
 * on the Cortex-M3, 100 on RISC-V). Built twice from the serial
 * firmware's tracer (platforms/qemu/target/serial/trace-PORT.yaml, the
 * compile-time clock):
 * - BENCH_SERIAL undefined ("plain"): one 4 KiB packet reused, never
 *   full, the function hooks' records written as they come: the
 *   configuration of the QEMU firmware and bench/qemu.sh today;
 * - BENCH_SERIAL ("serial"): the serial firmware's: a packet ring of
 *   512-byte slots (BENCH_SLOT: "serial4k" has 4 KiB, the packet size
 *   of "plain", so that only the transport differs) bound to the stream
 * (ring-stream.h), drained by the serial target (runtime/serial-target.c)
 * between batches, and the hooks' records written with the receive interrupt
 * masked (main.c's emit_*). Its frames are discarded (put() takes them): the
 * UART carries this program's text. Prints, then exits QEMU: tp TICKS EMPTY N
 * N one-uint32 events (sync_ack) in batches fn TICKS EMPTY N    N calls of an
 * instrumented leaf (entry + exit records), EMPTY: the same calls
 * uninstrumented
 */
#include <stdint.h>

#include "bsp-clock.h"
#define HT_CLOCK_CNT_FN bsp_clock_read
#include "bsp.h"
#include "fws-trace.h"
#include "platforms/qemu/target/serial/fws-ring-glue.h"
#include "hetrace/instrument.h"
#include "hetrace/ring-stream.h"
#include "hetrace/serial-target.h"

#define N 64000u
#define BATCH 32u /* records per timed batch: well under one packet */

uint32_t bench_leaf(uint32_t v);
uint32_t bench_leaf_plain(uint32_t v) __attribute__((noinline));
uint32_t bench_leaf_plain(uint32_t v)
{
	return v * 3u + 1u;
}

extern const unsigned char fws_metadata[];
static struct fws_core_ctx ctx;
static struct ht_instr instr;
static struct ht_instr_frame stack[16];
static struct ht_instr_func funcs[16];
static volatile uint32_t sink;

void fw_uart_isr(void)
{
}

static uint32_t clock_cb(void *data)
{
	return (uint32_t)bsp_clock_read(data);
}

#ifdef BENCH_SERIAL
#ifndef BENCH_SLOT
#define BENCH_SLOT 512u
#endif
#define RING_SIZE (132u * 1024u)
static uint8_t ring_mem[RING_SIZE] __attribute__((aligned(64)));
static struct ht_ring_stream rs;
static struct ht_serial_target tgt;
#define MASK() uint32_t on_ = bsp_irq_save()
#define UNMASK() bsp_irq_restore(on_)

static uint32_t put(void *arg, const uint8_t *p, uint32_t n)
{
	(void)arg;
	(void)p;
	return n;
}
static uint64_t clock64(void *arg)
{
	static uint64_t last;

	(void)arg;
	return ht_clock_extend(&last, bsp_clock_read(NULL), 32);
}
static const struct ht_serial_target_ops target_ops = {.put = put,
						       .clock = clock64};

static void backend_init(void)
{
	struct fws_platform_callbacks cbs = {clock_cb, ht_ring_stream_is_full,
					     ht_ring_stream_open,
					     ht_ring_stream_close};
	struct ht_serial_target_config sc = {0};
	struct ht_ring *ring =
	    ht_ring_init(ring_mem, RING_SIZE, BENCH_SLOT, HT_RING_DISCARD, 1u,
			 bsp_core_name, 0, 0);

	fws_glue_bind(&rs, ring, &ctx, cbs);
	ht_ring_stream_start(&rs);
	sc.ops = &target_ops;
	sc.ring = ring;
	sc.instr = &instr;
	sc.name = bsp_core_name;
	sc.clock_hz = bsp_clock_hz();
	ht_serial_target_init(&tgt, &sc);
}

/* Between batches, untimed: the ring drained as the main loop does. */
static void between(void)
{
	while (ht_serial_target_poll(&tgt)) {
	}
}
#else
#define MASK() (void)0
#define UNMASK() (void)0
static uint8_t pkt[4096] __attribute__((aligned(8)));

static int never_full(void *data)
{
	(void)data;
	return 0;
}
/* A full packet is dropped and the buffer reused: no copy. */
static void open_cb(void *data)
{
	(void)data;
	fws_core_open_packet(&ctx);
}
static void close_cb(void *data)
{
	(void)data;
	fws_core_close_packet(&ctx);
}

static void backend_init(void)
{
	struct fws_platform_callbacks cbs = {clock_cb, never_full, open_cb,
					     close_cb};

	fws_init(&ctx, pkt, sizeof(pkt), cbs, 0);
	fws_core_open_packet(&ctx);
}

static void between(void)
{
}
#endif

static void emit_entry(void *c, uintptr_t fn, uintptr_t site, uint32_t task)
{
	MASK();
	(void)task;
	fws_trace_func_entry(c, (uint32_t)fn, (uint32_t)site);
	UNMASK();
}

static void emit_exit(void *c, uintptr_t fn, uint32_t task)
{
	MASK();
	(void)task;
	fws_trace_func_exit(c, (uint32_t)fn);
	UNMASK();
}

static const struct ht_instr_ops instr_ops = {.entry = emit_entry,
					      .exit = emit_exit};

static uint64_t prof_last;
static uint64_t prof_clock(void *c)
{
	(void)c;
	return ht_clock_extend(&prof_last, bsp_clock_read(NULL), 32);
}

static void put_line(const char *what, uint32_t a, uint32_t b, uint32_t n)
{
	bsp_puts(what);
	bsp_put_u32(a);
	bsp_puts(" ");
	bsp_put_u32(b);
	bsp_puts(" ");
	bsp_put_u32(n);
	bsp_puts("\r\n");
}

int main(void)
{
	struct ht_instr_config ic = {0};
	uint32_t i, k, t0, busy = 0, empty = 0;

	bsp_clock_init();
	bsp_uart_init();
	ic.flags = HT_INSTR_TRACE | HT_INSTR_PROFILE;
	ic.ops = &instr_ops;
	ic.ctx = &ctx;
	ic.clock = prof_clock;
	ic.stack = stack;
	ic.stack_depth = 16;
	ic.funcs = funcs;
	ic.nr_funcs = 16;
	(void)ht_instr_init(&instr, &ic);
	backend_init();
	ht_instr_start(&instr);

	for (i = 0; i < N; i += BATCH) {
		t0 = (uint32_t)bsp_clock_read(0);
		for (k = 0; k < BATCH; k++) {
			fws_trace_sync_ack(&ctx, i + k);
		}
		busy += (uint32_t)bsp_clock_read(0) - t0;
		t0 = (uint32_t)bsp_clock_read(0);
		for (k = 0; k < BATCH; k++) {
			sink = i + k;
		}
		empty += (uint32_t)bsp_clock_read(0) - t0;
		between();
	}
	put_line("tp ", busy, empty, N);

	busy = empty = 0;
	for (i = 0; i < N; i += BATCH) {
		t0 = (uint32_t)bsp_clock_read(0);
		for (k = 0; k < BATCH; k++) {
			sink = bench_leaf(k);
		}
		busy += (uint32_t)bsp_clock_read(0) - t0;
		t0 = (uint32_t)bsp_clock_read(0);
		for (k = 0; k < BATCH; k++) {
			sink = bench_leaf_plain(k);
		}
		empty += (uint32_t)bsp_clock_read(0) - t0;
		between();
	}
	put_line("fn ", busy, empty, N);
	bsp_puts("done\r\n");
	bsp_exit(0);
}
