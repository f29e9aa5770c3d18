/* SPDX-License-Identifier: MIT */
#ifndef HETRACE_SYNC_SLAVE_H
#define HETRACE_SYNC_SLAVE_H

/*
 * The sync handshake's mailbox and its slave side (docs/sync.md,
 * "Synchronization"; docs/events.md gives the events and their
 * timestamping rules). One mailbox per slave, in memory the slave shares
 * with its master.
 *
 * Round n (n even) between master M and slave S:
 *   M: trace sync_req(n, S)          before the interrupt is raised
 *   M: writes req = n, raises S's interrupt
 *   S: (interrupt handler) trace sync_ack(n), trace sync_notify(n + 1)
 *   S: writes ack = n + 1            after a barrier
 *   M: sees ack == n + 1, trace sync_recv(n + 1, S)
 *
 * Who writes what:
 * - `req` is written only by the master: the sequence number of the
 *   latest request, HT_SYNC_SLAVE_IDLE before the first.
 * - `ack` is written only by the slave: n + 1 once request n is answered.
 * - A request n is pending while req == n and ack != n + 1. The slave's
 *   handler answers the pending request once and does nothing when there
 *   is none, so a spurious or repeated interrupt is harmless.
 *
 * Requires C99 and <stdint.h> only; no allocation.
 */

#include <stdint.h>

#include "port.h"

#define HT_SYNC_SLAVE_MAGIC 0x4d535448u /* "HTSM" in little-endian memory */
#define HT_SYNC_SLAVE_VERSION 1u
#define HT_SYNC_SLAVE_IDLE 0xffffffffu /* `req` before the first request */

/*
 * The mailbox. magic, version and size first (set once by
 * ht_sync_slave_mbox_init(), magic last); the master's and the slave's words
 * on their own cache lines. New fields only at the end.
 */
struct ht_sync_slave_mbox {
	uint32_t magic;	  /* HT_SYNC_SLAVE_MAGIC once initialized */
	uint32_t version; /* HT_SYNC_SLAVE_VERSION */
	uint32_t
	    size; /* sizeof(struct ht_sync_slave_mbox) of the initializer */
	uint32_t slave_id; /* the slave's core_id */
	uint32_t reserved0[12];

	/* Master's cache line. */
	volatile uint32_t req; /* latest request n, or HT_SYNC_SLAVE_IDLE */
	uint32_t reserved1[15];

	/* Slave's cache line. */
	volatile uint32_t ack;	   /* n + 1 once request n is answered */
	volatile uint32_t answers; /* rounds answered by the slave */
	uint32_t reserved2[14];
};

/*
 * The slave's tracing of the handshake, for any generated tracer: the
 * caller's functions call its own `<prefix>trace_sync_ack` and
 * `<prefix>trace_sync_notify`. Each is called once per answered round.
 */
struct ht_sync_slave_ops {
	void (*trace_ack)(void *arg, uint32_t seq);
	void (*trace_notify)(void *arg, uint32_t seq);
	void *arg;
};

/*
 * Lays out a mailbox at @mem (aligned to 4 bytes at least) for the slave
 * @slave_id: no request, no answer. Called by whoever creates the
 * shared memory, before the other side looks at it.
 */
void ht_sync_slave_mbox_init(struct ht_sync_slave_mbox *m, uint32_t slave_id);

/* True when @m looks like a mailbox this runtime understands. */
int ht_sync_slave_mbox_is_valid(const struct ht_sync_slave_mbox *m);

/*
 * The slave's interrupt handler body: when a request n is pending,
 * traces sync_ack(n) and sync_notify(n + 1) through @ops, then (after a
 * barrier) writes ack = n + 1. Returns 1 when it answered a request, 0
 * when none was pending. Call it with the slave's tracing not already
 * in progress on this core (from the interrupt handler, which the core
 * does not nest with its own tracing calls), or the two events are
 * dropped by the tracer's nesting guard.
 */
int ht_sync_slave_handle(struct ht_sync_slave_mbox *m,
			 const struct ht_sync_slave_ops *ops);

/*
 * Master side, the two stores of a round (the host's sync daemon uses
 * them; a master without the host library may too).
 */

/*
 * Posts request @seq. Call it after tracing sync_req(seq) and before
 * raising the slave's interrupt.
 */
static inline void ht_sync_slave_mbox_post(struct ht_sync_slave_mbox *m,
					   uint32_t seq)
{
	/*
	 * Orders the sync_req record (and its clock read) before the
	 * request is visible: the slave cannot answer a request whose
	 * send time is later than its receive time.
	 */
	HT_MEMORY_BARRIER();
	m->req = seq;
	/* The request is visible before the interrupt that announces it. */
	HT_MEMORY_BARRIER();
}

/*
 * True when request @seq has been answered. After it returns true, the
 * barrier orders the ACK's load before the caller's next clock read
 * (sync_recv is stamped after the ACK was seen).
 */
static inline int
ht_sync_slave_mbox_answered(const struct ht_sync_slave_mbox *m, uint32_t seq)
{
	if (m->ack != seq + 1u) {
		return 0;
	}
	HT_MEMORY_BARRIER();
	return 1;
}

#endif
