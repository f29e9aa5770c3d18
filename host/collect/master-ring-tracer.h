/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_MASTER_RING_TRACER_H
#define HT_HOST_MASTER_RING_TRACER_H

/*
 * The master's events (host/collect/master-events.yaml, the generated
 * hetrace_master_* tracer) written into a packet ring in the master's
 * memory: the recorder's sync events (board-master.c) and the
 * application events of the boards hetrace runs itself (the simulated
 * and QEMU boards' master tracer). Not thread-safe: a caller with
 * several tracing threads serializes the calls.
 */
#include <stdint.h>

#include "hetrace/packet-ring.h"
#include "master-events.h"

struct ht_master_ring_tracer {
	struct ht_ring *ring;
	struct hetrace_master_core_ctx ctx;
	uint64_t (*clock)(void);
	int on;
};

/*
 * A ring in the master's memory for these events: @size bytes (64-byte
 * aligned, zeroed) in slots of @slot bytes, for core @core_id named
 * @name, carrying @meta. Returns 0 with *@mem (free() it) and *@ring,
 * HT_ENOMEM, or HT_EINVAL when the ring cannot be laid out (@meta too
 * large for @size); nothing is left allocated on failure.
 */
int ht_master_ring_alloc(uint32_t size, uint32_t slot, uint32_t core_id,
			 const char *name, const char *meta, void **mem,
			 struct ht_ring **ring);

/*
 * Starts tracing core @core_id into @ring (laid out by ht_ring_init())
 * and opens the first packet. @clock gives the trace clock's
 * nanoseconds.
 */
void ht_master_ring_tracer_start(struct ht_master_ring_tracer *t,
				 struct ht_ring *ring, uint32_t core_id,
				 uint64_t (*clock)(void));

/*
 * Closes the open packet when it holds events, records the events the
 * tracer discarded in the ring and stops the ring, so that the
 * collector's last drain sees everything. Does nothing when not
 * started.
 */
void ht_master_ring_tracer_stop(struct ht_master_ring_tracer *t);

#endif
