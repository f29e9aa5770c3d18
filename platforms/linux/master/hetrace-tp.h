/* SPDX-License-Identifier: MIT */
/*
 * hetrace's LTTng-UST tracepoint provider (docs/lttng.md): the master
 * side of the sync handshake and the messages between cores, with the
 * names and fields of docs/events.md. An LTTng event `hetrace:sync_req`
 * is what `hetrace sync` reads as `sync_req`.
 *
 * This is the one file written in LTTng-UST 2.13's macro style (the
 * provider's required form: lttng-ust expands it twice, once for the
 * probes and once for the callers). Code outside the provider calls
 * the plain functions of lttng-provider.h instead.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER hetrace

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./hetrace-tp.h"

#if !defined(HT_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define HT_LTTNG_TP_H

#include <stdint.h>

#include <lttng/tracepoint.h>

/* Round n, step 1: stamped before the slave's interrupt is raised. */
LTTNG_UST_TRACEPOINT_EVENT(
    hetrace, sync_req, LTTNG_UST_TP_ARGS(uint32_t, seq, uint32_t, slave),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint32_t, seq, seq)
			    lttng_ust_field_integer(uint32_t, slave, slave)))

/* Round n, step 4 (seq n + 1): stamped after the slave's ACK was seen. */
LTTNG_UST_TRACEPOINT_EVENT(
    hetrace, sync_recv, LTTNG_UST_TP_ARGS(uint32_t, seq, uint32_t, slave),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint32_t, seq, seq)
			    lttng_ust_field_integer(uint32_t, slave, slave)))

/* Stamped before the message becomes visible to its receiver. */
LTTNG_UST_TRACEPOINT_EVENT(
    hetrace, msg_send,
    LTTNG_UST_TP_ARGS(uint64_t, id, uint32_t, dst, uint32_t, size),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, id, id)
			    lttng_ust_field_integer(uint32_t, dst, dst)
				lttng_ust_field_integer(uint32_t, size, size)))

/* Stamped after the message was taken. */
LTTNG_UST_TRACEPOINT_EVENT(
    hetrace, msg_recv,
    LTTNG_UST_TP_ARGS(uint64_t, id, uint32_t, src, uint32_t, size),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, id, id)
			    lttng_ust_field_integer(uint32_t, src, src)
				lttng_ust_field_integer(uint32_t, size, size)))

#endif

#include <lttng/tracepoint-event.h>
