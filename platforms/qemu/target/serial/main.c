/* SPDX-License-Identifier: MIT */
/*
 * The serial firmware of a QEMU core (docs/serial.md, "The QEMU
 * firmware on a serial line"), common to the ports: the workload
 * (jobs.c, workload.c) is traced by -finstrument-functions into a packet
 * ring in RAM, and the serial target (runtime/serial-target.c) sends
 * the ring's packets on the UART and takes the host's commands and sync
 * requests from it. Nothing is shared with the host but the line.
 *
 * Contexts:
 * - The UART receive interrupt feeds every byte to ht_serial_target_rx():
 *   a sync request is stamped and traced (sync_ack, sync_notify) there,
 *   a command is decoded there and run by the next poll.
 * - The main loop runs job_run() once per period and, between the
 *   steps and while idle, ht_serial_target_poll(): the pending command,
 *   then the frames (SYNC, REPLY, LOG, PACKETs) as the UART takes them.
 *   When there is nothing to send it sleeps in WFI until the next
 *   period (the core's timer) or a received byte.
 *
 * The interrupt and the function hooks write into the same stream. The
 * hooks' records are written with the interrupt masked (emit_*): two
 * instructions per record on either port, and the handler never finds
 * the stream busy, so no sync_ack / sync_notify is ever dropped by the
 * stream's nesting guard. The interrupt never runs instrumented code, so
 * the hooks' own state (struct ht_instr) is task context only.
 *
 * Printing goes through LOG frames (fws_log()): raw text on the UART
 * would be garbage to the host's frame decoder.
 *
 * This file, the runtime and the generated tracer are built without
 * -finstrument-functions (firmware.mk).
 */
#include <stddef.h>
#include <stdint.h>

#include "bsp-clock.h"
#define HT_CLOCK_CNT_FN bsp_clock_read
#include "bsp.h"
#include "fws-trace.h"
#include "fws-ring-glue.h"
#include "hetrace/instrument.h"
#include "hetrace/ring-stream.h"
#include "hetrace/serial-target.h"
#include "hetrace/sync-slave.h"
#include "jobs.h"

/* 256 packets of 512 bytes: some 25,000 function records of backlog. */
#define RING_SIZE (132u * 1024u)
#define SLOT_SIZE 512u
#define STACK_DEPTH 64u
#define NR_FUNCS 64u
/* One job_run() per period; a packet open longer than FLUSH is sent. */
#define PERIODS_PER_S 50u
#define FLUSHES_PER_S 20u

extern const unsigned char fws_metadata[];
/* The GNU build id note and the image's first byte (link.ld). */
extern const uint8_t __build_id_start[], __build_id_end[];
extern const uint8_t __image_start[];

static struct fws_core_ctx ctx;
static struct ht_ring_stream rs;
static struct ht_ring *ring;
static uint8_t ring_mem[RING_SIZE] __attribute__((aligned(64)));
static struct ht_instr instr;
static struct ht_instr_frame stack[STACK_DEPTH];
static struct ht_instr_func funcs[NR_FUNCS];
static struct ht_serial_target tgt;
/* Trigger, stopper, enabled and the boot count, kept across a reset. */
static struct ht_serial_retained retained __attribute__((section(".noinit")));

static uint64_t events;	   /* records written (counts op) */
static uint64_t clk_last;  /* the serial target's clock extension */
static uint64_t prof_last; /* the profile clock's (task context only) */

/* ---- The tracer's platform callbacks ---- */

static uint32_t clock_cb(void *data)
{
	return (uint32_t)bsp_clock_read(data);
}

/* ---- The function tracer's records (task context) ---- */

static void emit_entry(void *c, uintptr_t fn, uintptr_t site, uint32_t task)
{
	uint32_t on = bsp_irq_save();

	(void)task;
	fws_trace_func_entry(c, (uint32_t)fn, (uint32_t)site);
	events++;
	bsp_irq_restore(on);
}

static void emit_exit(void *c, uintptr_t fn, uint32_t task)
{
	uint32_t on = bsp_irq_save();

	(void)task;
	fws_trace_func_exit(c, (uint32_t)fn);
	events++;
	bsp_irq_restore(on);
}

static void emit_base(void *c, uintptr_t base)
{
	uint32_t on = bsp_irq_save();

	fws_trace_func_base(c, (uint32_t)base);
	events++;
	bsp_irq_restore(on);
}

static void emit_profile(void *c, const struct ht_instr_func *f)
{
	uint32_t on = bsp_irq_save();

	fws_trace_func_profile(c, (uint32_t)f->addr, f->calls, f->incl, f->excl,
			       f->max);
	events++;
	bsp_irq_restore(on);
}

static void emit_stats(void *c, const struct ht_instr_stats *st)
{
	uint32_t on = bsp_irq_save();

	fws_trace_func_profile_stats(c, st->lost_calls, st->deep_calls,
				     st->unbalanced, st->nested);
	events++;
	bsp_irq_restore(on);
}

static const struct ht_instr_ops instr_ops = {
    .entry = emit_entry,
    .exit = emit_exit,
    .base = emit_base,
    .profile = emit_profile,
    .stats = emit_stats,
};

/* The profile's clock: the trace clock, extended by the hooks alone. */
static uint64_t prof_clock(void *c)
{
	(void)c;
	return ht_clock_extend(&prof_last, bsp_clock_read(NULL), 32);
}

/* ---- The sync handshake's records (the receive interrupt) ---- */

static void trace_ack(void *arg, uint32_t seq)
{
	(void)arg;
	fws_trace_sync_ack(&ctx, seq);
	events++;
}

static void trace_notify(void *arg, uint32_t seq)
{
	(void)arg;
	fws_trace_sync_notify(&ctx, seq);
	events++;
}

static const struct ht_sync_slave_ops sync_ops = {trace_ack, trace_notify,
						  NULL};

/* ---- The serial target's port ---- */

static uint32_t put(void *arg, const uint8_t *p, uint32_t n)
{
	(void)arg;
	return bsp_uart_put(p, n);
}

/* The trace clock extended to 64 bits, from either context. */
static uint64_t clock64(void *arg)
{
	uint32_t on = bsp_irq_save();
	uint64_t t = ht_clock_extend(&clk_last, bsp_clock_read(NULL), 32);

	(void)arg;
	bsp_irq_restore(on);
	return t;
}

/* Commits the open packet when it holds records (the next opens lazily). */
static void flush(void *arg)
{
	uint32_t on = bsp_irq_save();

	(void)arg;
	if (fws_packet_is_open(&ctx) && !fws_packet_is_empty(&ctx)) {
		ht_ring_stream_close(&rs);
	}
	bsp_irq_restore(on);
}

static void reboot(void *arg)
{
	(void)arg;
	bsp_reset();
}

static void counts(void *arg, uint64_t *written, uint64_t *discarded)
{
	uint32_t on = bsp_irq_save();

	(void)arg;
	*written = events;
	*discarded = (uint64_t)ht_stream_discarded(&ctx.parent.s) +
		     ht_instr_discarded(&instr);
	bsp_irq_restore(on);
}

static const struct ht_serial_target_ops target_ops = {
    .put = put,
    .clock = clock64,
    .flush = flush,
    .reboot = reboot,
    .counts = counts,
    .arg = NULL,
};

void fw_uart_isr(void)
{
	int c;

	while ((c = bsp_uart_getc()) >= 0) {
		ht_serial_target_rx(&tgt, (uint8_t)c);
	}
}

static uint32_t str_len(const char *s)
{
	uint32_t n = 0;

	while (s[n]) {
		n++;
	}
	return n;
}

void fws_log(const char *s)
{
	ht_serial_target_log(&tgt, s, str_len(s));
}

/* The descriptor of the GNU build id note: 20 bytes of SHA-1. */
static const uint8_t *build_id(uint32_t *len)
{
	const uint8_t *p = __build_id_start;
	uint32_t namesz, descsz;

	*len = 0;
	if (__build_id_end - p < 16) {
		return NULL;
	}
	/* Elf_Nhdr: namesz, descsz, type, then the name padded to 4. */
	namesz = *(const uint32_t *)p;
	descsz = *(const uint32_t *)(p + 4);
	p += 12u + ((namesz + 3u) & ~3u);
	if (descsz > 20u || __build_id_end - p < (ptrdiff_t)descsz) {
		return NULL;
	}
	*len = descsz;
	return p;
}

/* ---- Faults: the report as a LOG frame, then the core stops ---- */

static char *put_text(char *d, const char *s)
{
	while (*s) {
		*d++ = *s++;
	}
	return d;
}

static char *put_hex(char *d, uint32_t v)
{
	static const char digits[] = "0123456789abcdef";
	int i;

	*d++ = '0';
	*d++ = 'x';
	for (i = 0; i < 8; i++) {
		*d++ = digits[(v >> (28 - 4 * i)) & 15u];
	}
	return d;
}

void bsp_fault_report(const struct qb_fault *f)
{
	char line[96], *d = line;

	bsp_irq_disable();
	d = put_text(d, "FAULT kind ");
	d = put_hex(d, f->kind);
	d = put_text(d, " pc ");
	d = put_hex(d, f->pc);
	d = put_text(d, " addr ");
	d = put_hex(d, f->addr);
	d = put_text(d, " lr ");
	d = put_hex(d, f->lr);
	*d++ = '\n';
	ht_serial_target_log(&tgt, line, (uint32_t)(d - line));
	while (ht_serial_target_poll(&tgt)) {
	}
	for (;;) {
		bsp_wait_for_irq();
	}
}

/* ---- Start-up and the main loop ---- */

static void init_tracing(void)
{
	struct fws_platform_callbacks cbs = {clock_cb, ht_ring_stream_is_full,
					     ht_ring_stream_open,
					     ht_ring_stream_close};
	struct ht_instr_config ic = {0};
	struct ht_serial_target_config sc = {0};

	ring = ht_ring_init(ring_mem, RING_SIZE, SLOT_SIZE, HT_RING_DISCARD,
			    bsp_core_id, bsp_core_name, NULL, 0);
	fws_glue_bind(&rs, ring, &ctx, cbs);
	fws_set_core_id(&ctx, bsp_core_id);
	ht_ring_stream_start(&rs);

	ic.flags = HT_INSTR_TRACE | HT_INSTR_PROFILE;
	ic.ops = &instr_ops;
	ic.ctx = &ctx;
	ic.clock = prof_clock;
	ic.stack = stack;
	ic.stack_depth = STACK_DEPTH;
	ic.funcs = funcs;
	ic.nr_funcs = NR_FUNCS;
	/* Linked where it runs: the bias the host finds is 0. */
	ic.image_base = (uintptr_t)__image_start;
	(void)ht_instr_init(&instr, &ic);

	sc.ops = &target_ops;
	sc.ring = ring;
	sc.instr = &instr;
	sc.sync = &sync_ops;
	sc.metadata = (const char *)fws_metadata;
	sc.metadata_size = str_len((const char *)fws_metadata);
	sc.build_id = build_id(&sc.build_id_len);
	sc.core_id = bsp_core_id;
	sc.name = bsp_core_name;
	sc.clock_hz = bsp_clock_hz();
	sc.retained = &retained;
	ht_serial_target_init(&tgt, &sc);
	ht_instr_start(&instr);
}

/* Sends what is pending until @deadline; sleeps when there is nothing. */
static void idle_until(uint64_t deadline, uint64_t *last_flush)
{
	const uint64_t flush_ticks = bsp_clock_hz() / FLUSHES_PER_S;
	uint64_t t;
	int more;

	for (;;) {
		more = ht_serial_target_poll(&tgt);
		t = clock64(NULL);
		if (t - *last_flush >= flush_ticks) {
			flush(NULL);
			*last_flush = t;
		}
		if ((int64_t)(deadline - t) <= 0) {
			return;
		}
		if (more) {
			continue;
		}
		/*
		 * A byte taken between the poll and here leaves its command
		 * for the poll after the wake-up: at most one period late.
		 */
		bsp_irq_disable();
		bsp_timer_wake((uint32_t)(deadline - t));
		bsp_wait_for_irq();
		bsp_irq_enable();
	}
}

int main(void)
{
	const uint64_t period = bsp_clock_hz() / PERIODS_PER_S;
	uint64_t next, last_flush;
	uint32_t step;

	bsp_irq_disable();
	bsp_clock_init();
	/* Before the first frame: QEMU's CMSDK UART takes input once on. */
	bsp_uart_init();
	init_tracing();
	fws_log("hetrace serial firmware: ready\n");
	bsp_irq_enable();

	next = last_flush = clock64(NULL);
	for (step = 0;; step++) {
		(void)job_run(step);
		next += period;
		/* Late (a long step): the next period starts now. */
		if ((int64_t)(clock64(NULL) - next) > (int64_t)period) {
			next = clock64(NULL);
		}
		idle_until(next, &last_flush);
	}
}
