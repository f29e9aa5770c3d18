/* SPDX-License-Identifier: MIT */
#ifndef FWS_RING_GLUE_H
#define FWS_RING_GLUE_H

/*
 * The serial firmware's generated tracer (fws_, from trace-PORT.yaml)
 * bound to a packet ring through a ring stream (hetrace/ring-stream.h):
 * the stream's untyped packet callbacks (set_buf, is_open, is_empty,
 * open, close) as calls of the tracer's typed ones, and the binding.
 * Shared by the firmware (main.c) and its benchmark
 * (bench/qemu/serial-bench.c), so that the benchmark measures the
 * firmware's own path. Knows nothing of the transport that drains the
 * ring.
 */

#include <stdint.h>

#include "fws-trace.h"
#include "hetrace/packet-ring.h"
#include "hetrace/ring-stream.h"

static inline void fws_glue_set_buf(void *c, uint8_t *buf, uint32_t size)
{
	fws_packet_set_buf(c, buf, size);
}

static inline int fws_glue_is_open(const void *c)
{
	return fws_packet_is_open(c);
}

static inline int fws_glue_is_empty(const void *c)
{
	return fws_packet_is_empty(c);
}

static inline void fws_glue_open(void *c)
{
	fws_core_open_packet(c);
}

static inline void fws_glue_close(void *c)
{
	fws_core_close_packet(c);
}

/*
 * Binds the core context @ctx to @ring through @rs and initializes the
 * tracer with @cbs (the stream's is_full/open/close) on the ring's
 * first slot. ht_ring_stream_start() is left to the caller, which may
 * set more of the context (its core id) before the first packet opens.
 */
static inline void fws_glue_bind(struct ht_ring_stream *rs,
				 struct ht_ring *ring, struct fws_core_ctx *ctx,
				 struct fws_platform_callbacks cbs)
{
	rs->ring = ring;
	rs->ctx = ctx;
	rs->set_buf = fws_glue_set_buf;
	rs->is_open = fws_glue_is_open;
	rs->is_empty = fws_glue_is_empty;
	rs->open = fws_glue_open;
	rs->close = fws_glue_close;
	fws_init(ctx, ht_ring_slot(ring), ring->slot_size, cbs, rs);
}

#endif
