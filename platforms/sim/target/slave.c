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
 * (runtime/sync-slave.c); the mailbox handler receives messages into the job
 * list. The task code masks interrupts around its tracing calls and its
 * queue accesses (bsp.h), so the handlers' records are never dropped by
 * the tracer's nesting guard.
 *
 * Function tracing: the Sobel filter (sobel.c) is compiled with
 * -finstrument-functions; the hooks (runtime/instrument.c) write
 * func_entry/func_exit through the ops below, which mask interrupts
 * like every other tracing call of the task code, and keep the
 * on-target profile, dumped into the stream when the core stops.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "board-slave.h"
#include "platforms/sim/board.h"
#include "platforms/sim/bsp.h"
#include "hetrace/instrument.h"
#include "hetrace/packet-ring.h"
#include "hetrace/ring-stream.h"
#include "hetrace/sync-slave.h"
#include "sobel.h"

#define MAX_JOBS 16u
#define INSTR_STACK 32u	 /* shadow stack frames: the filter is 2 deep */
#define SIM_OBJ_MSG 0u	 /* task_block kind: a message */
#define SIM_OBJ_QUEUE 2u /* task_block kind: a queue */
#define SIM_OBJ_OTHER 3u /* task_block kind: another object */
#define INSTR_FUNCS 16u	 /* profile table (a power of two) */

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
	struct ht_ring_stream rs; /* binds ctx to ring */
	uint8_t placeholder[64];  /* the packet buffer before the first slot */
	uint64_t next_msg_id;

	/* Written by the mailbox handler, read by tasks with interrupts masked.
	 */
	struct job jobs[MAX_JOBS];
	volatile uint32_t job_head, job_tail;
	/* the count hiprio is blocked on (wait_count()), or NULL: the
	 * mailbox handler traces its task_wake */
	volatile uint32_t *volatile waiting;
	/* the tids blocked on the job queue (bit tid), waiting for work:
	 * the mailbox handler traces their task_wake */
	volatile uint32_t queue_blocked;
	/* hiprio waits for its next event (set between two events) */
	uint32_t hiprio_blocked;
	volatile uint32_t pings; /* PING messages received */
	volatile uint32_t pongs; /* PONG messages received */

	/* bufmgr (dsp0): which frame buffers are taken. */
	int buf_taken[SIM_NBUF];

	/* Function tracing and the on-target profile of the Sobel filter. */
	struct ht_instr instr;
	struct ht_instr_frame instr_stack[INSTR_STACK];
	struct ht_instr_func instr_funcs[INSTR_FUNCS];
	uint32_t cnt_last; /* the profile clock: the counter extended */
	uint64_t cnt_high;
} S;

/* Tracing from task context: interrupts masked around the call. */
#define TASK_TRACE(call)                                                       \
	do {                                                                   \
		sim_bsp_irq_disable();                                         \
		call;                                                          \
		(*sim_events(S.sh, S.id))++;                                   \
		sim_bsp_irq_enable();                                          \
	} while (0)

/* Tracing from interrupt context. */
#define ISR_TRACE(call)                                                        \
	do {                                                                   \
		call;                                                          \
		(*sim_events(S.sh, S.id))++;                                   \
	} while (0)

/*
 * The stream's packets are written in place in the ring's slots
 * (ring-stream.h: full slots are counted, the final drop count reaches
 * the trace at the stop).
 */
static void stream_open(void *ctx)
{
	sim_slave_core_open_packet(ctx);
}

static void stream_close(void *ctx)
{
	sim_slave_core_close_packet(ctx);
}

/*
 * The instrumentation's records. The hooks run in task context (the
 * filter is task code): interrupts are masked around each record, and
 * left as they were (the dump runs with them masked).
 */
static void emit_entry(void *ctx, uintptr_t fn, uintptr_t site, uint32_t task)
{
	int on = sim_bsp_irq_save();

	(void)task;
	sim_slave_trace_func_entry(ctx, fn, site);
	(*sim_events(S.sh, S.id))++;
	sim_bsp_irq_restore(on);
}

static void emit_exit(void *ctx, uintptr_t fn, uint32_t task)
{
	int on = sim_bsp_irq_save();

	(void)task;
	sim_slave_trace_func_exit(ctx, fn);
	(*sim_events(S.sh, S.id))++;
	sim_bsp_irq_restore(on);
}

static void emit_base(void *ctx, uintptr_t base)
{
	int on = sim_bsp_irq_save();

	sim_slave_trace_func_base(ctx, base);
	(*sim_events(S.sh, S.id))++;
	sim_bsp_irq_restore(on);
}

static void emit_profile(void *ctx, const struct ht_instr_func *f)
{
	int on = sim_bsp_irq_save();

	sim_slave_trace_func_profile(ctx, f->addr, f->calls, f->incl, f->excl,
				     f->max);
	(*sim_events(S.sh, S.id))++;
	sim_bsp_irq_restore(on);
}

static void emit_stats(void *ctx, const struct ht_instr_stats *st)
{
	int on = sim_bsp_irq_save();

	sim_slave_trace_func_profile_stats(ctx, st->lost_calls, st->deep_calls,
					   st->unbalanced, st->nested);
	(*sim_events(S.sh, S.id))++;
	sim_bsp_irq_restore(on);
}

/*
 * The profile's clock: the 32-bit counter extended to 64 bits. Read
 * only by the hooks (task context, one at a time), at least once per
 * stripe: a wrap is seen as the counter going back.
 */
static uint64_t counter64(void *ctx)
{
	uint32_t now = sim_bsp_counter(ctx);

	if (now < S.cnt_last) {
		S.cnt_high += 1ull << 32;
	}
	S.cnt_last = now;
	return S.cnt_high | now;
}

/* The image's first byte at run time (GNU ld defines it): func_base. */
extern char __executable_start;

static void instr_start(void)
{
	static const struct ht_instr_ops ops = {
	    .entry = emit_entry,
	    .exit = emit_exit,
	    .base = emit_base,
	    .profile = emit_profile,
	    .stats = emit_stats,
	};
	struct ht_instr_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.flags = HT_INSTR_TRACE | HT_INSTR_PROFILE;
	cfg.ops = &ops;
	cfg.ctx = &S.ctx;
	cfg.clock = counter64;
	cfg.stack = S.instr_stack;
	cfg.stack_depth = INSTR_STACK;
	cfg.funcs = S.instr_funcs;
	cfg.nr_funcs = INSTR_FUNCS;
	cfg.image_base = (uintptr_t)&__executable_start;
	S.cnt_last = sim_bsp_counter(NULL);
	if (ht_instr_init(&S.instr, &cfg) == 0) {
		ht_instr_start(&S.instr);
	}
}

/* The handshake's events, for runtime/sync-slave.c (interrupt context). */
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
	ht_sync_slave_handle(sim_mbox(S.sh, S.id), &ops);
	ISR_TRACE(sim_slave_trace_isr_exit(&S.ctx, SIM_IRQ_SYNC));
}

/* Interrupt context: hiprio, blocked on @count, is ready to run. */
static void wake(volatile uint32_t *count)
{
	if (S.waiting == count) {
		S.waiting = 0;
		ISR_TRACE(sim_slave_trace_task_wake(&S.ctx, SIM_TID_HIPRIO,
						    (uintptr_t)count));
	}
}

/* The task that runs job @m. */
static uint32_t job_tid(const struct sim_msg *m)
{
	return m->type == SIM_MSG_ALLOC_REQ ? SIM_TID_BUFMGR : SIM_TID_SOBEL;
}

static void receive(uint32_t src, const struct sim_msg *m)
{
	switch (m->type) {
	case SIM_MSG_PING:
		S.pings = S.pings + 1u;
		wake(&S.pings);
		break;
	case SIM_MSG_PONG:
		S.pongs = S.pongs + 1u;
		wake(&S.pongs);
		break;
	case SIM_MSG_FREE:
		if (m->buf < SIM_NBUF) {
			S.buf_taken[m->buf] = 0;
		}
		break;
	default:
		if (S.job_head - S.job_tail < MAX_JOBS) {
			uint32_t tid = job_tid(m);

			S.jobs[S.job_head % MAX_JOBS].msg = *m;
			S.jobs[S.job_head % MAX_JOBS].src = src;
			S.job_head = S.job_head + 1u;
			if (S.queue_blocked & (1u << tid)) {
				S.queue_blocked &= ~(1u << tid);
				ISR_TRACE(sim_slave_trace_task_wake(
				    &S.ctx, tid, (uintptr_t)S.jobs));
			}
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
		while (src != S.id &&
		       sim_msgq_pop(sim_q(S.sh, src, S.id), &m)) {
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
	(*sim_events(S.sh, S.id))++;
	while (!sim_msgq_push(sim_q(S.sh, S.id, dst), m)) {
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

/*
 * Task context, the job done: @tid waits for its next job on the queue
 * when none is there (task_block, the object is the queue), and idle
 * runs.
 */
static void job_done(uint32_t tid, const char *name)
{
	uint32_t k;

	sim_bsp_irq_disable();
	for (k = S.job_tail; k != S.job_head; k++) {
		if (job_tid(&S.jobs[k % MAX_JOBS].msg) == tid) {
			break;
		}
	}
	if (k == S.job_head) {
		S.queue_blocked |= 1u << tid;
		ISR_TRACE(sim_slave_trace_task_block(&S.ctx, (uintptr_t)S.jobs,
						     SIM_OBJ_QUEUE));
	}
	sim_bsp_irq_enable();
	task_switch(tid, name, SIM_TID_IDLE, "idle", 0);
}

/* hiprio's context: sleeps until *@count (set by the mailbox handler) is
 * non-zero, then takes one. While it sleeps hiprio is blocked on the
 * message (task_block, the object is the count's address) and idle
 * runs; the handler traces task_wake (wake()), hiprio runs again. */
static void wait_count(volatile uint32_t *count)
{
	int blocked = 0;

	sim_bsp_irq_disable();
	if (!*count && !S.sh->stop) {
		blocked = 1;
		S.waiting = count;
		ISR_TRACE(sim_slave_trace_task_block(&S.ctx, (uintptr_t)count,
						     SIM_OBJ_MSG));
		ISR_TRACE(sim_slave_trace_task_switch(
		    &S.ctx, SIM_TID_HIPRIO, "hiprio", SIM_TID_IDLE, "idle", 0));
	}
	while (!*count && !S.sh->stop) {
		sim_bsp_wait_for_irq();
	}
	S.waiting = 0;
	if (blocked) {
		ISR_TRACE(sim_slave_trace_task_switch(
		    &S.ctx, SIM_TID_IDLE, "idle", SIM_TID_HIPRIO, "hiprio",
		    SIM_PRIO_HIPRIO));
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

	if (S.hiprio_blocked) {
		S.hiprio_blocked = 0;
		TASK_TRACE(sim_slave_trace_task_wake(
		    &S.ctx, SIM_TID_HIPRIO, (uintptr_t)&S.hiprio_blocked));
	}
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
	/* done: hiprio waits for its next event */
	S.hiprio_blocked = 1;
	TASK_TRACE(sim_slave_trace_task_block(
	    &S.ctx, (uintptr_t)&S.hiprio_blocked, SIM_OBJ_OTHER));
	task_switch(SIM_TID_HIPRIO, "hiprio", SIM_TID_SOBEL, "sobel",
		    SIM_PRIO_SOBEL);
}

/* The high-priority event in the middle of a stripe (sobel.h at_row). */
static void hiprio_event(void *arg)
{
	run_hiprio(arg);
}

static void run_sobel(const struct job *j)
{
	const struct sim_msg *in = &j->msg;
	struct sim_sobel_stripe st;
	struct sim_msg m;
	uint32_t edges;

	task_switch(SIM_TID_IDLE, "idle", SIM_TID_SOBEL, "sobel",
		    SIM_PRIO_SOBEL);
	TASK_TRACE(sim_slave_trace_activity_begin(&S.ctx, "frame", S.sobel_name,
						  in->frame));
	memset(&st, 0, sizeof(st));
	st.img =
	    (const uint8_t(*)[SIM_WIDTH]) * sim_image(S.sh, in->buf % SIM_NBUF);
	st.out = *sim_edges(S.sh, in->buf % SIM_NBUF);
	st.row0 = in->row0;
	st.rows = in->rows;
	if (in->hiprio != SIM_HIPRIO_NONE && in->peer < S.sh->nr_cores) {
		st.at_row = hiprio_event;
		st.at_row_y = in->row0 + in->rows / 2u;
		st.arg = (void *)in;
	}
	edges = sim_sobel_stripe(&st);
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
	job_done(SIM_TID_SOBEL, "sobel");
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
	job_done(SIM_TID_BUFMGR, "bufmgr");
}

/*
 * Interrupts masked: the on-target profile into the stream, then the
 * last packet, and the drop count (also of records dropped after the
 * last packet), into the ring.
 */
static void stop(void)
{
	sim_bsp_irq_disable();
	ht_instr_profile_dump(&S.instr);
	ht_instr_stop(&S.instr);
	ht_ring_stream_stop(&S.rs);
	sim_bsp_halt(0);
}

/* @out = "sobel_<k>", k in decimal (no stdio here). */
static void sobel_name(char out[16], uint32_t k)
{
	char digits[10];
	unsigned n = 0, i = 6;

	memcpy(out, "sobel_", 6);
	do {
		digits[n++] = (char)('0' + k % 10u);
		k /= 10u;
	} while (k);
	while (n) {
		out[i++] = digits[--n];
	}
	out[i] = 0;
}

void ht__sim_slave_main(struct sim_shared *sh, uint32_t core_id)
{
	struct sim_slave_platform_callbacks cbs = {
	    sim_bsp_counter, ht_ring_stream_is_full, ht_ring_stream_open,
	    ht_ring_stream_close};
	struct job j;
	uint32_t k = core_id - 1u;

	memset(&S, 0, sizeof(S));
	S.sh = sh;
	S.id = core_id;
	sobel_name(S.sobel_name, k);
	S.ring = (struct ht_ring *)sim_ring_mem(sh, core_id);
	sim_bsp_init(sh, core_id, sync_isr, msg_isr);
	S.rs.ring = S.ring;
	S.rs.ctx = &S.ctx;
	S.rs.set_buf = sim_slave_packet_set_buf;
	S.rs.is_open = sim_slave_packet_is_open;
	S.rs.is_empty = sim_slave_packet_is_empty;
	S.rs.open = stream_open;
	S.rs.close = stream_close;
	sim_slave_init(&S.ctx, S.placeholder, sizeof(S.placeholder), cbs,
		       &S.rs);
	sim_slave_set_core_id(&S.ctx, core_id);
	ht_ring_stream_start(&S.rs);
	/* Interrupts are masked: func_base is the stream's first record. */
	instr_start();

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
