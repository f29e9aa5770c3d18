/* SPDX-License-Identifier: MIT */
#ifndef HT_SIM_BOARD_H
#define HT_SIM_BOARD_H

/*
 * The simulated board's shared memory (one memfd mapping the master
 * creates before it forks the slaves; docs/sim.md):
 *
 *   struct sim_shared   control words, sync mailboxes, clock models,
 *                       message queues, frame buffers
 *   rings               one packet ring per core (packet-ring.h),
 *                       SIM_RING_SIZE bytes each, core 0 (the master)
 *                       first
 *
 * Cores: core_id 0 is the master (arm0), core_id k (1..8) the slave
 * dsp<k-1>. Message queues are single producer, single consumer, one
 * per ordered pair of cores (q[src][dst]).
 */
#include <semaphore.h>
#include <stdint.h>
#include <sys/types.h>

#include "clock-model.h"
#include "hetrace/sync-slave.h"

#define SIM_MAX_SLAVES 8u
#define SIM_MAX_CORES (SIM_MAX_SLAVES + 1u)
#define SIM_QLEN 32u
#define SIM_WIDTH 320u
#define SIM_HEIGHT 240u
#define SIM_NBUF 4u
#define SIM_RING_SIZE (1u << 20)
#define SIM_SLOT_SIZE 4096u

#define SIM_SHARED_MAGIC 0x4d495348u /* "HSIM" */
#define SIM_SHARED_VERSION 2u

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
	volatile pid_t pid[SIM_MAX_CORES];
	volatile uint64_t events[SIM_MAX_CORES]; /* tracing calls per core */
	sem_t master_irq; /* a slave posts it after queueing a message for the
			     master */
	struct ht_sync_slave_mbox
	    mbox[SIM_MAX_CORES]; /* [slave core_id]; [0] unused */
	struct sim_clock_model clock[SIM_MAX_CORES];
	struct sim_msgq q[SIM_MAX_CORES][SIM_MAX_CORES]; /* [src][dst] */
	uint8_t image[SIM_NBUF][SIM_HEIGHT][SIM_WIDTH];
	uint8_t edges[SIM_NBUF][SIM_HEIGHT][SIM_WIDTH];
	/* Version 2. How long an idle slave spins before it sleeps (bsp.h). */
	uint32_t idle_spin_ns;
};

/* Bytes before the first ring, a multiple of the page size. */
#define SIM_RINGS_OFF ((sizeof(struct sim_shared) + 65535u) & ~(size_t)65535u)

static inline void *sim_ring_mem(struct sim_shared *sh, uint32_t core_id)
{
	return (uint8_t *)sh + SIM_RINGS_OFF + (size_t)core_id * SIM_RING_SIZE;
}

/* Runs slave @core_id in this (forked) process; never returns. */
void ht__sim_slave_main(struct sim_shared *sh, uint32_t core_id)
    __attribute__((noreturn));

#endif
