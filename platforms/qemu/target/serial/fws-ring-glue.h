/* SPDX-License-Identifier: MIT */
#ifndef FWS_RING_GLUE_H
#define FWS_RING_GLUE_H

/*
 * The serial firmware's generated tracer (fws_, from trace-PORT.yaml)
 * on a ring stream (hetrace/ring-stream.h): the stream's untyped packet
 * callbacks (set_buf, is_open, is_empty, open, close) as calls of the
 * tracer's typed ones. Shared by the firmware (main.c) and its
 * benchmark (bench/qemu/serial-bench.c), so that the benchmark measures
 * the firmware's own path. Knows nothing of the ring or the transport.
 */

#include <stdint.h>

#include "fws-trace.h"

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

#endif
