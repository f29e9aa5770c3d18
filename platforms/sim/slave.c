/* SPDX-License-Identifier: MIT */
/*
 * A slave core of the simulated board (docs/sim.md): bare-metal code on
 * the freestanding runtime, the generated tracer (board-slave.yaml) and
 * the board-support layer (bsp.h). No allocation, no stdio.
 *
 * Tasks: idle (tid 0), sobel (filters the stripes the master sends),
 * bufmgr (dsp0 only: hands out frame buffers), hiprio (the high-priority
 * task woken by an event in the middle of some stripes: it preempts
 * sobel, exchanges messages with a peer slave and keeps the core busy).
 * The scheduler is the main loop.
 *
 * Interrupts: the sync handler answers the master's handshake
 * (runtime/sync.c); the mailbox handler receives messages into the job
 * list. The task code masks interrupts around its tracing calls and its
 * queue accesses (bsp.h), so the handlers' records are never dropped by
 * the tracer's nesting guard.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "board-slave.h"
#include "board.h"
#include "bsp.h"
#include "hetrace/packet-ring.h"
#include "hetrace/sync.h"

#define MAX_JOBS 16u

struct job {
	struct sim_msg msg;
	uint32_t src;
};

static struct {
	struct sim_shared *sh;
	uint32_t id;	     /* core_id */
	char sobel_name[16]; /* activity "sobel_<k>" */
	struct ht_ring *ring;
	struct sim_slave_core_ctx ctx;
	uint64_t next_msg_id;

	/* Written by the mailbox handler, read by tasks with interrupts masked.
	 */
	struct job jobs[MAX_JOBS];
	volatile uint32_t job_head, job_tail;
	volatile uint32_t pings; /* PING messages received */
	volatile uint32_t pongs; /* PONG messages received */

	/* bufmgr (dsp0): which frame buffers are taken. */
	int buf_taken[SIM_NBUF];
} S;

/* Tracing from task context: interrupts masked around the call. */
#define TASK_TRACE(call)                                                       \
	do {                                                                   \
		sim_bsp_irq_disable();                                         \
		call;                                                          \
		S.sh->events[S.id]++;                                          \
		sim_bsp_irq_enable();                                          \
	} while (0)

/* Tracing from interrupt context. */
#define ISR_TRACE(call)                                                        \
	do {                                                                   \
		call;                                                          \
		S.sh->events[S.id]++;                                          \
	} while (0)

/* Packet ring platform callbacks: packets are written in place. */
static int ring_is_full(void *data)
{
	(void)data;
	return ht_ring_is_full(S.ring);
}

static void ring_open_packet(void *data)
{
	(void)data;
	sim_slave_packet_set_buf(&S.ctx, ht_ring_slot(S.ring),
				 S.ring->slot_size);
	sim_slave_core_open_packet(&S.ctx);
}

static void ring_close_packet(void *data)
{
	(void)data;
	sim_slave_core_close_packet(&S.ctx);
	ht_ring_commit(S.ring);
}

/* The handshake's events, for runtime/sync.c (interrupt context). */
static void trace_ack(void *arg, uint32_t seq)
{
	(void)arg;
	ISR_TRACE(sim_slave_trace_sync_ack(&S.ctx, seq));
}

static void trace_notify(void *arg, uint32_t seq)
{
	(void)arg;
	ISR_TRACE(sim_slave_trace_sync_notify(&S.ctx, seq));
}

static void sync_isr(void)
{
	static const struct ht_sync_slave_ops ops = {trace_ack, trace_notify,
						     NULL};

	ISR_TRACE(sim_slave_trace_isr_enter(&S.ctx, SIM_IRQ_SYNC));
	ht_sync_slave_handle(&S.sh->mbox[S.id], &ops);
	ISR_TRACE(sim_slave_trace_isr_exit(&S.ctx, SIM_IRQ_SYNC));
}

static void receive(uint32_t src, const struct sim_msg *m)
{
	switch (m->type) {
	case SIM_MSG_PING:
		S.pings = S.pings + 1u;
		break;
	case SIM_MSG_PONG:
		S.pongs = S.pongs + 1u;
		break;
	case SIM_MSG_FREE:
		if (m->buf < SIM_NBUF) {
			S.buf_taken[m->buf] = 0;
		}
		break;
	default:
		if (S.job_head - S.job_tail < MAX_JOBS) {
			S.jobs[S.job_head % MAX_JOBS].msg = *m;
			S.jobs[S.job_head % MAX_JOBS].src = src;
			S.job_head = S.job_head + 1u;
		}
		break;
	}
}

static void msg_isr(void)
{
	struct sim_msg m;
	uint32_t src;

	ISR_TRACE(sim_slave_trace_isr_enter(&S.ctx, SIM_IRQ_MSG));
	for (src = 0; src < S.sh->nr_cores; src++) {
		/* msg_recv is stamped after the message was taken. */
		while (src != S.id && sim_msgq_pop(&S.sh->q[src][S.id], &m)) {
			ISR_TRACE(sim_slave_trace_msg_recv(&S.ctx, m.id, src,
							   m.size));
			receive(src, &m);
		}
	}
	ISR_TRACE(sim_slave_trace_isr_exit(&S.ctx, SIM_IRQ_MSG));
}

/*
 * Task context: sends @m to @dst. msg_send is stamped before the message
 * is visible to the receiver.
 */
static void send(uint32_t dst, struct sim_msg *m)
{
	m->id = ++S.next_msg_id;
	sim_bsp_irq_disable();
	sim_slave_trace_msg_send(&S.ctx, m->id, dst, m->size);
	S.sh->events[S.id]++;
	while (!sim_msgq_push(&S.sh->q[S.id][dst], m)) {
		/* The queue is full: the receiver is behind; let it run. */
		sim_bsp_irq_enable();
		sim_bsp_delay_us(10);
		sim_bsp_irq_disable();
	}
	sim_bsp_irq_enable();
	sim_bsp_raise_msg_irq(dst);
}

static void task_switch(uint32_t prev, const char *prev_name, uint32_t next,
			const char *next_name, uint8_t prio)
{
	TASK_TRACE(sim_slave_trace_task_switch(&S.ctx, prev, prev_name, next,
					       next_name, prio));
}

/* Task context: sleeps until *@count (set by the mailbox handler) is non-zero,
 * then takes one. */
static void wait_count(volatile uint32_t *count)
{
	sim_bsp_irq_disable();
	while (!*count && !S.sh->stop) {
		sim_bsp_wait_for_irq();
	}
	if (*count) {
		*count = *count - 1u;
	}
	sim_bsp_irq_enable();
}

/*
 * The high-priority task, woken in the middle of a stripe: preempts
 * sobel. The initiator pings its peer, works, and waits for the peer's
 * answer; the peer waits for the ping, works and answers.
 */
static void run_hiprio(const struct sim_msg *stripe)
{
	struct sim_msg m;

	task_switch(SIM_TID_SOBEL, "sobel", SIM_TID_HIPRIO, "hiprio",
		    SIM_PRIO_HIPRIO);
	memset(&m, 0, sizeof(m));
	m.frame = stripe->frame;
	m.size = 64;
	if (stripe->hiprio == SIM_HIPRIO_INITIATOR) {
		m.type = SIM_MSG_PING;
		send(stripe->peer, &m);
		sim_bsp_delay_us(stripe->hiprio_us);
		wait_count(&S.pongs);
	} else {
		wait_count(&S.pings);
		if (S.sh->stop) {
			/* The board stops: the initiator may be gone. */
			return;
		}
		sim_bsp_delay_us(stripe->hiprio_us);
		m.type = SIM_MSG_PONG;
		send(stripe->peer, &m);
	}
	task_switch(SIM_TID_HIPRIO, "hiprio", SIM_TID_SOBEL, "sobel",
		    SIM_PRIO_SOBEL);
}

/* Sobel gradient magnitude of one row; returns the strong edges. */
static uint32_t sobel_row(uint32_t buf, uint32_t y)
{
	const uint8_t(*img)[SIM_WIDTH] = S.sh->image[buf];
	uint8_t *out = S.sh->edges[buf][y];
	uint32_t x, n = 0;

	if (y == 0 || y + 1 >= SIM_HEIGHT) {
		memset(out, 0, SIM_WIDTH);
		return 0;
	}
	out[0] = out[SIM_WIDTH - 1] = 0;
	for (x = 1; x + 1 < SIM_WIDTH; x++) {
		int gx = img[y - 1][x + 1] + 2 * img[y][x + 1] +
			 img[y + 1][x + 1] - img[y - 1][x - 1] -
			 2 * img[y][x - 1] - img[y + 1][x - 1];
		int gy = img[y + 1][x - 1] + 2 * img[y + 1][x] +
			 img[y + 1][x + 1] - img[y - 1][x - 1] -
			 2 * img[y - 1][x] - img[y - 1][x + 1];
		int g = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);

		out[x] = (uint8_t)(g > 255 ? 255 : g);
		n += g > 128;
	}
	return n;
}

static void run_sobel(const struct job *j)
{
	const struct sim_msg *in = &j->msg;
	struct sim_msg m;
	uint32_t y, edges = 0;

	task_switch(SIM_TID_IDLE, "idle", SIM_TID_SOBEL, "sobel",
		    SIM_PRIO_SOBEL);
	TASK_TRACE(sim_slave_trace_activity_begin(&S.ctx, "frame", S.sobel_name,
						  in->frame));
	for (y = in->row0; y < in->row0 + in->rows && y < SIM_HEIGHT; y++) {
		if (y == in->row0 + in->rows / 2u &&
		    in->hiprio != SIM_HIPRIO_NONE &&
		    in->peer < S.sh->nr_cores) {
			run_hiprio(in);
		}
		edges += sobel_row(in->buf % SIM_NBUF, y);
	}
	TASK_TRACE(sim_slave_trace_activity_end(&S.ctx, "frame", S.sobel_name,
						in->frame));
	TASK_TRACE(
	    sim_slave_trace_stripe_done(&S.ctx, in->frame, in->rows, edges));
	memset(&m, 0, sizeof(m));
	m.type = SIM_MSG_STRIPE_DONE;
	m.frame = in->frame;
	m.buf = in->buf;
	m.row0 = in->row0;
	m.rows = in->rows;
	m.edges = edges;
	m.size = in->rows * SIM_WIDTH;
	send(j->src, &m);
	task_switch(SIM_TID_SOBEL, "sobel", SIM_TID_IDLE, "idle", 0);
}

static void run_alloc(const struct job *j)
{
	struct sim_msg m;
	uint32_t b;

	task_switch(SIM_TID_IDLE, "idle", SIM_TID_BUFMGR, "bufmgr",
		    SIM_PRIO_BUFMGR);
	TASK_TRACE(sim_slave_trace_activity_begin(&S.ctx, "frame", "alloc",
						  j->msg.frame));
	sim_bsp_irq_disable();
	for (b = 0; b < SIM_NBUF && S.buf_taken[b]; b++) {
	}
	if (b == SIM_NBUF) {
		/* Every buffer is taken: the oldest frame lost its own. */
		b = j->msg.frame % SIM_NBUF;
	}
	S.buf_taken[b] = 1;
	sim_bsp_irq_enable();
	TASK_TRACE(sim_slave_trace_activity_end(&S.ctx, "frame", "alloc",
						j->msg.frame));
	memset(&m, 0, sizeof(m));
	m.type = SIM_MSG_ALLOC_REPLY;
	m.frame = j->msg.frame;
	m.buf = b;
	m.size = 2u * SIM_WIDTH * SIM_HEIGHT;
	send(j->src, &m);
	task_switch(SIM_TID_BUFMGR, "bufmgr", SIM_TID_IDLE, "idle", 0);
}

static void stop(void)
{
	sim_bsp_irq_disable();
	if (sim_slave_packet_is_open(&S.ctx) &&
	    !sim_slave_packet_is_empty(&S.ctx)) {
		ring_close_packet(NULL);
	}
	ht_ring_stop(S.ring);
	sim_bsp_halt(0);
}

void ht__sim_slave_main(struct sim_shared *sh, uint32_t core_id)
{
	struct sim_slave_platform_callbacks cbs = {
	    sim_bsp_counter, ring_is_full, ring_open_packet, ring_close_packet};
	struct job j;
	uint32_t k = core_id - 1u;

	memset(&S, 0, sizeof(S));
	S.sh = sh;
	S.id = core_id;
	memcpy(S.sobel_name, "sobel_", 6);
	S.sobel_name[6] = (char)('0' + k % 10u);
	S.ring = (struct ht_ring *)sim_ring_mem(sh, core_id);
	sim_bsp_init(sh, core_id, sync_isr, msg_isr);
	sim_slave_init(&S.ctx, ht_ring_slot(S.ring), S.ring->slot_size, cbs,
		       NULL);
	sim_slave_set_core_id(&S.ctx, core_id);
	ring_open_packet(NULL);

	/* Interrupts are masked here: wait for the master's go. */
	while (!sh->go && !sh->stop) {
		sim_bsp_wait_for_irq();
	}
	for (;;) {
		while (S.job_head == S.job_tail && !sh->stop) {
			sim_bsp_wait_for_irq();
		}
		if (sh->stop) {
			stop();
		}
		j = S.jobs[S.job_tail % MAX_JOBS];
		S.job_tail = S.job_tail + 1u;
		sim_bsp_irq_enable();
		if (j.msg.type == SIM_MSG_ALLOC_REQ) {
			run_alloc(&j);
		} else if (j.msg.type == SIM_MSG_STRIPE) {
			run_sobel(&j);
		}
		sim_bsp_irq_disable();
	}
}
