/* SPDX-License-Identifier: MIT */
#ifndef HETRACE_PACKET_RING_H
#define HETRACE_PACKET_RING_H

/*
 * The packet ring: one per core, in memory the core shares with the
 * collector (POSIX shared memory, a shared file, a QEMU RAM backend).
 * One producer (the core's tracer) and one consumer (hetrace record).
 *
 * Layout of the region, from its first byte:
 *
 *   struct ht_ring   the header below (magic, version, size first)
 *   metadata         optional: the core's TSDL metadata text
 *   slots            nr_slots packet slots of slot_size bytes each,
 *                    slot 0 at slots_off (aligned to 64 bytes)
 *
 * Invariants (free-running 32-bit indices, compared by difference so
 * they may wrap):
 * - `head` counts packets the producer committed; only the producer
 *   writes it. Packet k (k = 0, 1, ...) is in slot k % nr_slots.
 * - `tail` counts packets the consumer released; only the consumer
 *   writes it.
 * - Discard mode: empty when head == tail; full when
 *   head - tail == nr_slots. The producer never writes a slot the
 *   consumer has not released: when the ring is full, is_full() is true
 *   and the tracer drops (and counts, in events_discarded) the events
 *   until a slot is free.
 * - Overwrite mode (flight recorder): the producer never waits; packet
 *   k overwrites packet k - nr_slots. The consumer reads after the stop
 *   (state HT_RING_STOPPED) the packets max(tail, head - nr_slots) ..
 *   head - 1. A consumer reading live copies packet k, then re-reads
 *   head: the copy is good when head - k < nr_slots (the producer had
 *   not started writing packet k + nr_slots over it).
 * - A slot holds exactly one CTF packet; the packet's own packet_size
 *   and content_size say how much of the slot is used.
 * - `state` goes RUNNING -> STOPPED once, after the last commit; a
 *   consumer that reads STOPPED (then head) has the final head.
 *
 * Barriers (HT_MEMORY_BARRIER, include/hetrace/port.h): each one is
 * commented where it stands. Producer: packet bytes -> head (commit),
 * head -> next slot's bytes (commit), tail load -> slot stores
 * (is_full), last head -> state (stop). Consumer (host/
 * packet-ring-reader.c): head load -> slot loads (acquire), slot loads
 * -> tail store (release), slot copy -> head re-read (overwrite).
 *
 * The producer fills the slot of packet `head` in place (zero copy):
 * the stream's open-packet callback points the stream at
 * ht_ring_slot(), its close-packet callback calls ht_ring_commit().
 *
 * Requires C99 and <stdint.h>, <stddef.h>, <string.h> only.
 */

#include <stddef.h>
#include <stdint.h>

#include "port.h"

#define HT_RING_MAGIC 0x47525448u /* "HTRG" in little-endian memory */
#define HT_RING_VERSION 1u
#define HT_RING_NAME_MAX 32u
#define HT_RING_SLOT_ALIGN 64u

enum ht_ring_mode {
	HT_RING_DISCARD = 0,   /* streaming: drop when full */
	HT_RING_OVERWRITE = 1, /* flight recorder: keep the newest */
};

enum ht_ring_state {
	HT_RING_EMPTY = 0,   /* not initialized yet */
	HT_RING_RUNNING = 1, /* the producer is tracing */
	HT_RING_STOPPED = 2, /* the producer committed its last packet */
};

/*
 * The header. Everything up to `state` is written once by
 * ht_ring_init() (magic last, after a barrier: a consumer that sees the
 * magic sees the rest). New fields go at the end; `size` says how many
 * bytes of header the producer knows.
 */
struct ht_ring {
	uint32_t magic;		/* HT_RING_MAGIC once initialized */
	uint32_t version;	/* HT_RING_VERSION */
	uint32_t size;		/* sizeof(struct ht_ring) of the producer */
	uint32_t total_size;	/* bytes of the whole region */
	uint32_t mode;		/* enum ht_ring_mode */
	uint32_t slot_size;	/* bytes per slot: the packet size */
	uint32_t nr_slots;	/* >= 2 */
	uint32_t slots_off;	/* offset of slot 0 from the header */
	uint32_t metadata_off;	/* offset of the metadata text; 0: none */
	uint32_t metadata_size; /* its length in bytes */
	uint32_t core_id;
	char core_name[HT_RING_NAME_MAX]; /* null-terminated */
	uint32_t reserved0[5];

	/* Producer's cache line. */
	volatile uint32_t head;	 /* packets committed */
	volatile uint32_t state; /* enum ht_ring_state */
	volatile uint32_t
	    full_count; /* times a packet switch found no free slot */
	/*
	 * The stream's events_discarded when it stopped (written before
	 * state becomes STOPPED; 0 while running): when the ring was
	 * full at the stop, the last drops reached no packet, and the
	 * collector writes an empty packet that carries this count.
	 */
	volatile uint32_t events_discarded;
	uint32_t reserved1[12];

	/* Consumer's cache line. */
	volatile uint32_t tail; /* packets released */
	uint32_t reserved2[15];
};

/*
 * Lays out a ring in the @total_size bytes at @mem (aligned to 8 bytes
 * at least), with slots of @slot_size bytes (a multiple of 8) and a copy
 * of @metadata_size bytes of @metadata (may be NULL) after the header.
 * Takes as many slots as fit. Returns the ring, or NULL when fewer than
 * two slots fit or an argument is invalid.
 */
struct ht_ring *ht_ring_init(void *mem, uint32_t total_size, uint32_t slot_size,
			     enum ht_ring_mode mode, uint32_t core_id,
			     const char *core_name, const char *metadata,
			     uint32_t metadata_size);

/* The first byte of the slot of packet @k. */
static inline uint8_t *ht_ring_slot_of(struct ht_ring *r, uint32_t k)
{
	return (uint8_t *)r + r->slots_off +
	       (size_t)(k % r->nr_slots) * r->slot_size;
}

/* Producer: the slot the next packet is written into. */
static inline uint8_t *ht_ring_slot(struct ht_ring *r)
{
	return ht_ring_slot_of(r, r->head);
}

/*
 * Producer: true when the next packet has no free slot (discard mode
 * only; an overwrite ring is never full).
 */
static inline int ht_ring_is_full(const struct ht_ring *r)
{
	int full;

	if (r->mode != HT_RING_DISCARD) {
		return 0;
	}
	full = (uint32_t)(r->head - r->tail) >= r->nr_slots;
	/*
	 * The tail load before any store into the slot it frees: the
	 * consumer reads that slot until it stores tail (release), so
	 * the producer's writes must not be seen before that load.
	 */
	HT_MEMORY_BARRIER();
	return full;
}

/*
 * Producer: publishes the packet written in ht_ring_slot(). The first
 * barrier orders the packet's bytes before the new head: a consumer
 * that sees the head sees the whole packet. The second orders the new
 * head before any store into the next packet's slot: in overwrite mode
 * that slot still holds packet head - nr_slots, and a consumer copying
 * it live re-reads head afterwards; if it saw a byte of the new packet
 * it must see the head that invalidates its copy.
 */
static inline void ht_ring_commit(struct ht_ring *r)
{
	HT_MEMORY_BARRIER();
	r->head = r->head + 1u;
	HT_MEMORY_BARRIER();
}

/* Producer: counts a packet switch that found the ring full. */
static inline void ht_ring_note_full(struct ht_ring *r)
{
	r->full_count = r->full_count + 1u;
}

/* Producer: the stream's final discarded-event count, before the stop. */
static inline void ht_ring_set_discarded(struct ht_ring *r, uint32_t count)
{
	r->events_discarded = count;
}

/*
 * Producer: marks the end of tracing, after the last commit (the
 * barrier orders that commit, and the final discarded count, before
 * the state).
 */
static inline void ht_ring_stop(struct ht_ring *r)
{
	HT_MEMORY_BARRIER();
	r->state = HT_RING_STOPPED;
}

#endif
