/* SPDX-License-Identifier: MIT */
#ifndef HT_QEMU_BOARD_H
#define HT_QEMU_BOARD_H

/*
 * The memory a QEMU core shares with the Linux master (docs/qemu.md):
 * the board block, at a fixed offset in the guest RAM that QEMU backs
 * with a file (memory-backend-file, share=on), written by the firmware
 * at boot and read by the host through its own mapping of that file.
 *
 *   struct qb_block       identity, state, fault record, sync mailbox,
 *                         the two message queues (master -> core,
 *                         core -> master)
 *   block + ring_off      the core's packet ring (packet-ring.h),
 *                         ring_size bytes, its metadata in its header
 *
 * Who writes what: everything is written by the firmware except the
 * mailbox's `req` word (include/hetrace/sync-slave.h), the `down` queue's
 * head and slots and the `up` queue's tail (the master). The firmware
 * clears the block at boot and writes the magic last; the host waits
 * for the magic and the state QB_READY before it touches anything.
 *
 * Both sides compile this header: C99, <stdint.h> only, fixed-size
 * fields with explicit padding (the same layout on Cortex-M3, RV32 and
 * x86-64; the host checks sizeof at build time).
 */
#include <stdint.h>

#include "hetrace/port.h"
#include "hetrace/sync-slave.h"

#define QB_MAGIC 0x42515448u /* "HTQB" in little-endian memory */
#define QB_VERSION 1u
#define QB_QLEN 64u
#define QB_RING_OFF 0x10000u   /* ring offset from the block */
#define QB_RING_SIZE 0x300000u /* 3 MiB of ring */
#define QB_SLOT_SIZE 4096u     /* packet size */

/* Offsets of the block in each machine's RAM file (= guest RAM). */
#define QB_BLOCK_OFF_MPS2 0x0u	    /* mps2-an385: PSRAM 0x21000000 */
#define QB_BLOCK_OFF_VIRT 0x800000u /* RISC-V virt: 0x80800000 */

enum qb_state {
	QB_BOOTING = 0, /* block not valid yet */
	QB_READY = 1,	/* tracing, taking jobs */
	QB_DONE = 2,	/* stopped on request: ring stopped, idle */
	QB_FAULT = 3,	/* a fault handler ran: see `fault` */
};

/* The UART byte the master writes to interrupt a core. */
#define QB_IRQ_BYTE 0x21u

/* Jobs (struct qb_msg.type), master -> core, answered core -> master. */
enum qb_job {
	QB_JOB_SHA = 1,	  /* arg: a tracepoint every arg hashes (0: none) */
	QB_JOB_PISUM = 2, /* arg: repetitions of the 10,000-term sum */
	QB_JOB_QSORT = 3, /* arg: number of ints (<= QB_QSORT_MAX) */
	QB_JOB_CRASH = 4, /* load from an address the board does not decode */
	QB_JOB_HANG = 5,  /* spin forever with interrupts masked */
	QB_JOB_STOP = 6,  /* stop tracing (ring STOPPED), then idle */
};
#define QB_QSORT_MAX 10000u

struct qb_msg {
	uint64_t id;   /* unique per sender: msg_send/msg_recv `id` */
	uint32_t type; /* enum qb_job */
	uint32_t arg;
	uint32_t size;	 /* bytes the message stands for */
	uint32_t job;	 /* replies: the id of the job answered */
	uint64_t result; /* replies: the job's result */
	uint64_t ticks;	 /* replies: the job's duration, clock ticks */
	uint32_t pad[2];
};

/*
 * A single-producer single-consumer queue: head written by the
 * producer only, tail by the consumer only, free-running.
 */
struct qb_queue {
	volatile uint32_t head;
	uint32_t pad0[15];
	volatile uint32_t tail;
	uint32_t pad1[15];
	struct qb_msg slot[QB_QLEN];
};

/* What a fault handler saw (state QB_FAULT). */
struct qb_fault {
	uint32_t kind;	 /* exception number (M3) or mcause (RISC-V) */
	uint32_t pc;	 /* faulting instruction */
	uint32_t addr;	 /* BFAR/MMFAR (M3), mtval (RISC-V), or 0 */
	uint32_t status; /* CFSR (M3), mstatus (RISC-V) */
	uint32_t lr;	 /* return address register at the fault */
	uint32_t sp;
	uint32_t ticks_lo; /* the core's clock at the fault, 64-bit */
	uint32_t ticks_hi;
};

struct qb_block {
	uint32_t magic;	  /* QB_MAGIC once valid (written last) */
	uint32_t version; /* QB_VERSION */
	uint32_t size;	  /* sizeof(struct qb_block) */
	uint32_t core_id;
	char core_name[16];
	uint32_t clock_hz;  /* the trace clock's nominal frequency */
	uint32_t ring_off;  /* from the block's first byte */
	uint32_t ring_size; /* bytes */
	uint32_t reserved0[5];

	/* Firmware's line. */
	volatile uint32_t state;  /* enum qb_state */
	volatile uint32_t events; /* tracing calls so far */
	volatile uint32_t jobs_done;
	volatile uint32_t irqs; /* UART interrupts taken */
	uint32_t reserved1[12];

	struct qb_fault fault;
	uint32_t reserved2[8];

	struct ht_sync_slave_mbox mbox;
	struct qb_queue down; /* master -> core */
	struct qb_queue up;   /* core -> master */
};

static inline int qb_queue_push(struct qb_queue *q, const struct qb_msg *m)
{
	uint32_t h = q->head;

	if (h - q->tail >= QB_QLEN) {
		return 0;
	}
	q->slot[h % QB_QLEN] = *m;
	/* The message's bytes before the head that publishes them. */
	HT_MEMORY_BARRIER();
	q->head = h + 1u;
	return 1;
}

static inline int qb_queue_pop(struct qb_queue *q, struct qb_msg *m)
{
	uint32_t t = q->tail;

	if (q->head == t) {
		return 0;
	}
	/* The head's load before the message's bytes. */
	HT_MEMORY_BARRIER();
	*m = q->slot[t % QB_QLEN];
	/* The copy is done before the slot is released. */
	HT_MEMORY_BARRIER();
	q->tail = t + 1u;
	return 1;
}

#endif
