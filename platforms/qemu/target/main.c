/* SPDX-License-Identifier: MIT */
/*
 * The firmware of a QEMU core (docs/qemu.md), common to the ports:
 * lays out the board block and the packet ring in the RAM shared with
 * the host, traces with the generated tracer into the ring, answers the
 * sync handshake and takes the master's jobs in the UART interrupt, and
 * runs the jobs (the paper's workload) in its main loop.
 *
 * Interrupts: one, the UART's receive interrupt, raised by a byte the
 * master writes to QEMU's serial socket. Its handler answers a pending
 * sync request (runtime/sync-slave.c) and takes the queued messages. Task
 * code masks interrupts around its tracing calls and queue accesses, so
 * the handler never finds the tracer busy.
 *
 * No C library: libc-min.c has the four string functions the runtime
 * uses.
 */
#include <stddef.h>
#include <stdint.h>

#include "fw-trace-ctx.h"
#include "hetrace/ring-stream.h"
#include "hetrace/sync-slave.h"
#include "workload.h"

#define MAX_JOBS 16u
#define IRQ_UART 1u /* isr_enter/isr_exit `irq` */
#define TID_IDLE 0u
#define TID_WORKER 1u
#define PRIO_WORKER 5u

extern const unsigned char fw_metadata[];

struct fw_core_ctx fw_ctx;

static struct {
	struct qb_block *b;
	struct ht_ring *ring;
	struct ht_ring_stream rs;
	uint64_t next_msg_id;

	/* Filled by the interrupt handler, taken with interrupts masked. */
	struct qb_msg jobs[MAX_JOBS];
	volatile uint32_t job_head, job_tail;
} S;

/* ---- The tracer's platform callbacks ---- */

static uint32_t clock_cb(void *data)
{
	return (uint32_t)bsp_clock_read(data);
}

static void set_buf(void *ctx, uint8_t *buf, uint32_t size)
{
	fw_packet_set_buf(ctx, buf, size);
}

static int is_open(const void *ctx)
{
	return fw_packet_is_open(ctx);
}

static int is_empty(const void *ctx)
{
	return fw_packet_is_empty(ctx);
}

static void open_core(void *ctx)
{
	fw_core_open_packet(ctx);
}

static void close_core(void *ctx)
{
	fw_core_close_packet(ctx);
}

/* ---- The UART interrupt: sync handshake and messages ---- */

static void trace_ack(void *arg, uint32_t seq)
{
	(void)arg;
	fw_trace_sync_ack(&fw_ctx, seq);
	fw_count_event();
}

static void trace_notify(void *arg, uint32_t seq)
{
	(void)arg;
	fw_trace_sync_notify(&fw_ctx, seq);
	fw_count_event();
}

void fw_uart_isr(void)
{
	static const struct ht_sync_slave_ops ops = {trace_ack, trace_notify,
						     NULL};
	struct qb_msg m;

	S.b->irqs = S.b->irqs + 1u;
	/* The bytes only say "look": the words in shared memory tell what. */
	while (bsp_uart_getc() >= 0) {
	}
	/*
	 * The handshake first, without an isr_enter record before it: the
	 * sync_ack stamp is the receive time of the master's request.
	 */
	ht_sync_slave_handle(&S.b->mbox, &ops);
	fw_trace_isr_enter(&fw_ctx, IRQ_UART);
	fw_count_event();
	while (qb_queue_pop(&S.b->down, &m)) {
		/* msg_recv is stamped after the message was taken. */
		fw_trace_msg_recv(&fw_ctx, m.id, 0, m.size);
		fw_count_event();
		if (S.job_head - S.job_tail < MAX_JOBS) {
			S.jobs[S.job_head % MAX_JOBS] = m;
			S.job_head = S.job_head + 1u;
		}
	}
	fw_trace_isr_exit(&fw_ctx, IRQ_UART);
	fw_count_event();
}

/* ---- Task context ---- */

#define TASK_TRACE(call)                                                       \
	do {                                                                   \
		bsp_irq_disable();                                             \
		call;                                                          \
		fw_count_event();                                              \
		bsp_irq_enable();                                              \
	} while (0)

/* Answers job @job: msg_send stamped before the reply is visible. */
static void reply(const struct qb_msg *job, uint64_t result, uint64_t ticks)
{
	struct qb_msg m = {0};

	m.id = ++S.next_msg_id;
	m.type = job->type;
	m.job = (uint32_t)job->id;
	m.size = (uint32_t)sizeof(m);
	m.result = result;
	m.ticks = ticks;
	bsp_irq_disable();
	fw_trace_msg_send(&fw_ctx, m.id, 0, m.size);
	fw_count_event();
	while (!qb_queue_push(&S.b->up, &m)) {
		/* The master is behind: let the handler run meanwhile. */
		bsp_irq_enable();
		bsp_irq_disable();
	}
	bsp_irq_enable();
}

/* The extended clock, interrupts masked (the tracer's last value moves). */
static uint64_t now(void)
{
	return ht_clock_extend(&fw_ctx.parent.s.clock_last,
			       bsp_clock_read(NULL), 32);
}

static void stop_tracing(void)
{
	bsp_irq_disable();
	ht_ring_stream_stop(&S.rs);
	fw_enable_tracing(&fw_ctx, 0);
	HT_MEMORY_BARRIER();
	S.b->state = QB_DONE;
	bsp_irq_enable();
}

static void run_job(const struct qb_msg *job)
{
	uint32_t id = (uint32_t)job->id;
	uint64_t t0, t1;
	uint32_t result = 0;

	TASK_TRACE(fw_trace_task_switch(&fw_ctx, TID_IDLE, "idle", TID_WORKER,
					"worker", PRIO_WORKER));
	bsp_irq_disable();
	fw_trace_job_begin(&fw_ctx, id, job->type, job->arg);
	fw_count_event();
	t0 = now();
	bsp_irq_enable();
	switch (job->type) {
	case QB_JOB_SHA:
		result = wl_sha_permutations(job->arg);
		break;
	case QB_JOB_PISUM:
		result = wl_pisum(job->arg, 1);
		break;
	case QB_JOB_QSORT:
		result = wl_quicksort(job->arg, 1);
		break;
	case QB_JOB_CRASH:
		/* An address the board does not decode: a bus fault. */
		result = *(volatile uint32_t *)bsp_bad_address;
		break;
	case QB_JOB_HANG:
		bsp_irq_disable();
		for (;;) {
		}
	default:
		break;
	}
	bsp_irq_disable();
	t1 = now();
	fw_trace_job_end(&fw_ctx, id, job->type, result, t1 - t0);
	fw_count_event();
	bsp_irq_enable();
	reply(job, result, t1 - t0);
	S.b->jobs_done = S.b->jobs_done + 1u;
	if (job->type == QB_JOB_STOP) {
		stop_tracing();
		return;
	}
	TASK_TRACE(fw_trace_task_switch(&fw_ctx, TID_WORKER, "worker", TID_IDLE,
					"idle", 0));
}

static void init_block(void)
{
	struct qb_block *b = bsp_block();
	const char *meta = (const char *)fw_metadata;
	uint32_t meta_len = 0, i;
	struct fw_platform_callbacks cbs = {clock_cb, ht_ring_stream_is_full,
					    ht_ring_stream_open,
					    ht_ring_stream_close};

	S.b = b;
	memset(b, 0, sizeof(*b));
	b->version = QB_VERSION;
	b->size = (uint32_t)sizeof(*b);
	b->core_id = bsp_core_id;
	for (i = 0; i + 1u < sizeof(b->core_name) && bsp_core_name[i]; i++) {
		b->core_name[i] = bsp_core_name[i];
	}
	b->clock_hz = bsp_clock_hz();
	b->ring_off = QB_RING_OFF;
	b->ring_size = QB_RING_SIZE;
	ht_sync_slave_mbox_init(&b->mbox, bsp_core_id);

	while (meta[meta_len]) {
		meta_len++;
	}
	S.ring = ht_ring_init((uint8_t *)b + QB_RING_OFF, QB_RING_SIZE,
			      QB_SLOT_SIZE, HT_RING_DISCARD, bsp_core_id,
			      bsp_core_name, meta, meta_len);
	S.rs.ring = S.ring;
	S.rs.ctx = &fw_ctx;
	S.rs.set_buf = set_buf;
	S.rs.is_open = is_open;
	S.rs.is_empty = is_empty;
	S.rs.open = open_core;
	S.rs.close = close_core;
	fw_init(&fw_ctx, ht_ring_slot(S.ring), S.ring->slot_size, cbs, &S.rs);
	fw_set_core_id(&fw_ctx, bsp_core_id);
	ht_ring_stream_start(&S.rs);

	b->state = QB_READY;
	/* Every field above before the magic that validates them. */
	HT_MEMORY_BARRIER();
	b->magic = QB_MAGIC;
}

int main(void)
{
	struct qb_msg job;

	bsp_irq_disable();
	bsp_clock_init();
	/*
	 * The UART takes bytes before the block says "ready": QEMU's CMSDK
	 * UART refuses input while its receiver is off, and only looks at
	 * the socket again much later.
	 */
	bsp_uart_init();
	init_block();
	bsp_fault_clock = now;
	bsp_puts("hetrace fw ");
	bsp_puts(bsp_core_name);
	bsp_puts(": ready\r\n");
	bsp_irq_enable();

	for (;;) {
		bsp_irq_disable();
		while (S.job_head == S.job_tail) {
			/* Wakes on a pending interrupt even while masked. */
			bsp_wait_for_irq();
			bsp_irq_enable();
			bsp_irq_disable();
		}
		job = S.jobs[S.job_tail % MAX_JOBS];
		S.job_tail = S.job_tail + 1u;
		bsp_irq_enable();
		run_job(&job);
	}
}
