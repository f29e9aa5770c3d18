/* SPDX-License-Identifier: MIT */
#ifndef HT_SIM_BOARD_H
#define HT_SIM_BOARD_H

/*
 * The simulated board's shared memory (one region the master creates
 * before it forks the slaves; docs/sim.md), laid out from the number of
 * cores N by sim_layout():
 *
 *   struct sim_shared   control words, the offsets below
 *   pid[N], events[N]   per core: its process, its tracing calls
 *   mbox[N]             per slave: its sync mailbox ([0] unused)
 *   clock[N]            per slave: its clock model ([0] unused)
 *   q[N][N]             message queues, one per ordered pair of cores
 *   image, edges        SIM_NBUF frame buffer pairs
 *   rings               one packet ring per core (packet-ring.h),
 *                       SIM_RING_SIZE bytes each, core 0 (the master)
 *                       first, at a 64 KiB boundary
 *
 * Cores: core_id 0 is the master (arm0), core_id k (1..N-1) the slave
 * dsp<k-1>. Message queues are single producer, single consumer, one
 * per ordered pair of cores (q[src][dst]): 1.6 KiB each, 7 MiB for 65
 * cores against 65 MiB of rings, so the whole table is kept and any
 * core may message any other.
 */
#include <semaphore.h>
#include <stdint.h>
#include <sys/types.h>

#include "clock-model.h"
#include "hetrace/sync-slave.h"

#define SIM_MAX_SLAVES 128u
#define SIM_MAX_CORES (SIM_MAX_SLAVES + 1u)
#define SIM_QLEN 32u
#define SIM_WIDTH 320u
#define SIM_HEIGHT 240u
#define SIM_NBUF 4u
#define SIM_RING_SIZE (1u << 20)
#define SIM_SLOT_SIZE 4096u

#define SIM_SHARED_MAGIC 0x4d495348u /* "HSIM" */
#define SIM_SHARED_VERSION 3u

/* Interrupt numbers, as traced in isr_enter/isr_exit. */
enum { SIM_IRQ_SYNC = 1, SIM_IRQ_MSG = 2 };

/* Tasks of a slave (task_switch: tid 0 is idle). */
enum {
	SIM_TID_IDLE = 0,
	SIM_TID_SOBEL = 1,
	SIM_TID_BUFMGR = 2,
	SIM_TID_HIPRIO = 3,
};
enum { SIM_PRIO_SOBEL = 5, SIM_PRIO_BUFMGR = 7, SIM_PRIO_HIPRIO = 10 };

enum sim_msg_type {
	SIM_MSG_ALLOC_REQ = 1, /* master -> dsp0: buffers for `frame` */
	SIM_MSG_ALLOC_REPLY,   /* dsp0 -> master: `buf` */
	SIM_MSG_STRIPE, /* master -> slave: rows [row0, row0 + rows) of `buf` */
	SIM_MSG_STRIPE_DONE, /* slave -> master: `edges` */
	SIM_MSG_FREE,	     /* master -> dsp0: `buf` is free again */
	SIM_MSG_PING, /* high-priority task of the initiator -> its peer */
	SIM_MSG_PONG, /* the peer's answer */
};

/* A stripe's high-priority event (SIM_MSG_STRIPE `hiprio`). */
enum { SIM_HIPRIO_NONE = 0, SIM_HIPRIO_INITIATOR, SIM_HIPRIO_RESPONDER };

struct sim_msg {
	uint64_t id; /* unique per sender (msg_send/msg_recv `id`) */
	uint32_t type;
	uint32_t size; /* bytes the message stands for (msg_send `size`) */
	uint32_t frame;
	uint32_t buf;
	uint32_t row0;
	uint32_t rows;
	uint32_t edges;
	/*
	 * Stripes only: a high-priority event fires in the middle of the
	 * stripe; the task it wakes preempts sobel, exchanges a message
	 * with core `peer` and keeps the core busy `hiprio_us`.
	 */
	uint32_t hiprio;
	uint32_t peer;
	uint32_t hiprio_us;
};

/*
 * head: written by the producer only (messages pushed); tail: by the
 * consumer only (messages popped). Free-running, compared by difference.
 */
struct sim_msgq {
	volatile uint32_t head;
	uint32_t pad0[15];
	volatile uint32_t tail;
	uint32_t pad1[15];
	struct sim_msg slot[SIM_QLEN];
};

static inline int sim_msgq_push(struct sim_msgq *q, const struct sim_msg *m)
{
	uint32_t h = q->head;

	if (h - q->tail >= SIM_QLEN) {
		return 0;
	}
	q->slot[h % SIM_QLEN] = *m;
	/* The message's bytes before the head that publishes them. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	q->head = h + 1u;
	return 1;
}

static inline int sim_msgq_pop(struct sim_msgq *q, struct sim_msg *m)
{
	uint32_t t = q->tail;

	if (q->head == t) {
		return 0;
	}
	/* The head's load before the message's bytes. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*m = q->slot[t % SIM_QLEN];
	/* The copy is done before the slot is released. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	q->tail = t + 1u;
	return 1;
}

struct sim_shared {
	uint32_t magic;
	uint32_t version;
	uint32_t size;
	uint32_t nr_cores;	/* master + slaves */
	volatile uint32_t go;	/* master: the slaves may start */
	volatile uint32_t stop; /* master: the slaves must stop */
	/* How long an idle slave spins before it sleeps (bsp.h). */
	uint32_t idle_spin_ns;
	uint32_t pad;
	sem_t master_irq; /* a slave posts it after queueing a message for the
			     master */
	/* Byte offsets from the start of the region (sim_layout()). */
	uint64_t pid_off, events_off, mbox_off, clock_off, q_off;
	uint64_t image_off, edges_off, rings_off;
	uint64_t total_size; /* the whole region, rings included */
};

#define SIM_ALIGN_UP(x, a) (((x) + (a)-1u) & ~(uint64_t)((a)-1u))

/*
 * Fills the offsets and total_size of @sh for @nr_cores cores (at most
 * SIM_MAX_CORES). The layout depends on @nr_cores only.
 */
static inline void sim_layout(struct sim_shared *sh, uint32_t nr_cores)
{
	uint64_t at = SIM_ALIGN_UP(sizeof(struct sim_shared), 64u);

	sh->nr_cores = nr_cores;
	sh->pid_off = at;
	at = SIM_ALIGN_UP(at + nr_cores * sizeof(pid_t), 64u);
	sh->events_off = at;
	at = SIM_ALIGN_UP(at + nr_cores * sizeof(uint64_t), 64u);
	sh->mbox_off = at;
	at = SIM_ALIGN_UP(at + nr_cores * sizeof(struct ht_sync_slave_mbox),
			  64u);
	sh->clock_off = at;
	at = SIM_ALIGN_UP(at + nr_cores * sizeof(struct sim_clock_model), 64u);
	sh->q_off = at;
	at = SIM_ALIGN_UP(
	    at + (uint64_t)nr_cores * nr_cores * sizeof(struct sim_msgq), 64u);
	sh->image_off = at;
	at += (uint64_t)SIM_NBUF * SIM_HEIGHT * SIM_WIDTH;
	sh->edges_off = at;
	at += (uint64_t)SIM_NBUF * SIM_HEIGHT * SIM_WIDTH;
	/* The rings start on a page, whatever the page size up to 64 KiB. */
	sh->rings_off = SIM_ALIGN_UP(at, 65536u);
	sh->total_size = sh->rings_off + (uint64_t)nr_cores * SIM_RING_SIZE;
}

static inline void *sim_at(struct sim_shared *sh, uint64_t off)
{
	return (uint8_t *)sh + off;
}

static inline volatile pid_t *sim_pid(struct sim_shared *sh, uint32_t core_id)
{
	return (volatile pid_t *)sim_at(sh, sh->pid_off) + core_id;
}

/* Tracing calls of core @core_id, for the summary. */
static inline volatile uint64_t *sim_events(struct sim_shared *sh,
					    uint32_t core_id)
{
	return (volatile uint64_t *)sim_at(sh, sh->events_off) + core_id;
}

static inline struct ht_sync_slave_mbox *sim_mbox(struct sim_shared *sh,
						  uint32_t core_id)
{
	return (struct ht_sync_slave_mbox *)sim_at(sh, sh->mbox_off) + core_id;
}

static inline struct sim_clock_model *sim_clock(struct sim_shared *sh,
						uint32_t core_id)
{
	return (struct sim_clock_model *)sim_at(sh, sh->clock_off) + core_id;
}

/* The queue of the messages from core @src to core @dst. */
static inline struct sim_msgq *sim_q(struct sim_shared *sh, uint32_t src,
				     uint32_t dst)
{
	return (struct sim_msgq *)sim_at(sh, sh->q_off) +
	       (size_t)src * sh->nr_cores + dst;
}

typedef uint8_t sim_frame_t[SIM_HEIGHT][SIM_WIDTH];

/* Frame buffer @buf (< SIM_NBUF): the input image and its edges. */
static inline sim_frame_t *sim_image(struct sim_shared *sh, uint32_t buf)
{
	return (sim_frame_t *)sim_at(sh, sh->image_off) + buf;
}

static inline sim_frame_t *sim_edges(struct sim_shared *sh, uint32_t buf)
{
	return (sim_frame_t *)sim_at(sh, sh->edges_off) + buf;
}

static inline void *sim_ring_mem(struct sim_shared *sh, uint32_t core_id)
{
	return sim_at(sh, sh->rings_off + (uint64_t)core_id * SIM_RING_SIZE);
}

/* Runs slave @core_id in this (forked) process; never returns. */
void ht__sim_slave_main(struct sim_shared *sh, uint32_t core_id)
    __attribute__((noreturn));

#endif
