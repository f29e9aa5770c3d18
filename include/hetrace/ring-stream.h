/* SPDX-License-Identifier: MIT */
#ifndef HETRACE_RING_STREAM_H
#define HETRACE_RING_STREAM_H

/*
 * Binds a generated stream (hetrace gen) to a packet ring: the
 * platform callbacks is_backend_full, open_packet and close_packet of
 * the generated code, written once for every board. The stream writes
 * its packets in place in the ring's slots (zero copy).
 *
 *	static void open_main(void *ctx)
 *	{
 *		barectf_main_open_packet(ctx);
 *	}
 *	static void close_main(void *ctx)
 *	{
 *		barectf_main_close_packet(ctx);
 *	}
 *	...
 *	struct ht_ring_stream rs = {
 *		.ring = ring, .ctx = &ctx,
 *		.set_buf = barectf_packet_set_buf,
 *		.is_open = barectf_packet_is_open,
 *		.is_empty = barectf_packet_is_empty,
 *		.open = open_main, .close = close_main,
 *	};
 *	struct barectf_platform_callbacks cbs = {
 *		clock, ht_ring_stream_is_full, ht_ring_stream_open,
 *		ht_ring_stream_close,
 *	};
 *	barectf_init(&ctx, ht_ring_slot(ring), ring->slot_size, cbs, &rs);
 *	ht_ring_stream_start(&rs);
 *	... trace ...
 *	ht_ring_stream_stop(&rs);
 *
 * The packet buffer given to <prefix>init() is only a placeholder: each
 * packet opens in the slot of the ring's next packet. The ring's slot
 * size is the packet size.
 *
 * Requires C99 and <stdint.h>, <stddef.h>, <string.h> only.
 */

#include "packet-ring.h"
#include "stream.h"

struct ht_ring_stream {
	struct ht_ring *ring;
	/* The generated stream context; it starts with a struct ht_stream. */
	void *ctx;
	/* <prefix>packet_set_buf, <prefix>packet_is_open,
	 * <prefix>packet_is_empty of the generated code. */
	void (*set_buf)(void *ctx, uint8_t *buf, uint32_t size);
	int (*is_open)(const void *ctx);
	int (*is_empty)(const void *ctx);
	/* Call <prefix><stream>_open_packet / _close_packet on ctx. */
	void (*open)(void *ctx);
	void (*close)(void *ctx);
};

/*
 * is_backend_full callback (data: the struct ht_ring_stream): true when
 * the ring has no free slot for the next packet (discard mode); the
 * attempt is counted in the ring's full_count.
 */
static inline int ht_ring_stream_is_full(void *data)
{
	struct ht_ring_stream *rs = (struct ht_ring_stream *)data;

	if (ht_ring_is_full(rs->ring)) {
		ht_ring_note_full(rs->ring);
		return 1;
	}
	return 0;
}

/* open_packet callback: the next packet opens in the next slot. */
static inline void ht_ring_stream_open(void *data)
{
	struct ht_ring_stream *rs = (struct ht_ring_stream *)data;

	rs->set_buf(rs->ctx, ht_ring_slot(rs->ring), rs->ring->slot_size);
	rs->open(rs->ctx);
}

/* close_packet callback: closes the packet and publishes its slot. */
static inline void ht_ring_stream_close(void *data)
{
	struct ht_ring_stream *rs = (struct ht_ring_stream *)data;

	rs->close(rs->ctx);
	ht_ring_commit(rs->ring);
}

/* Opens the first packet (barectf's convention: the platform does). */
static inline void ht_ring_stream_start(struct ht_ring_stream *rs)
{
	if (!ht_ring_is_full(rs->ring)) {
		ht_ring_stream_open(rs);
	}
}

/*
 * Ends tracing into the ring: commits the open packet when it holds
 * records, or, when records were dropped and a slot is free, an empty
 * packet whose events_discarded carries the final count; stores that
 * count in the ring header (for the collector, when no slot was free);
 * then marks the ring stopped. Call it with no tracing call in progress on the
 * stream.
 */
static inline void ht_ring_stream_stop(struct ht_ring_stream *rs)
{
	const struct ht_stream *s = (const struct ht_stream *)rs->ctx;

	if (rs->is_open(rs->ctx)) {
		if (!rs->is_empty(rs->ctx) || ht_stream_discarded(s) != 0u) {
			ht_ring_stream_close(rs);
		}
	} else if (ht_stream_discarded(s) != 0u && !ht_ring_is_full(rs->ring)) {
		ht_ring_stream_open(rs);
		ht_ring_stream_close(rs);
	}
	ht_ring_set_discarded(rs->ring, ht_stream_discarded(s));
	ht_ring_stop(rs->ring);
}

#endif
