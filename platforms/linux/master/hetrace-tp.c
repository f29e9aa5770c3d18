/* SPDX-License-Identifier: MIT */
/*
 * libhetrace-lttng.so: hetrace's LTTng-UST provider (hetrace-tp.h) and
 * the plain functions that fire its tracepoints (lttng-provider.h).
 * The probes register with lttng-ust when the object is loaded.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "hetrace-tp.h"

#include "host/collect/lttng-provider.h"

#define HT_LTTNG_EXPORT __attribute__((visibility("default")))

static void tp_sync_req(uint32_t seq, uint32_t slave)
{
	lttng_ust_tracepoint(hetrace, sync_req, seq, slave);
}

static void tp_sync_recv(uint32_t seq, uint32_t slave)
{
	lttng_ust_tracepoint(hetrace, sync_recv, seq, slave);
}

static void tp_msg_send(uint64_t id, uint32_t dst, uint32_t size)
{
	lttng_ust_tracepoint(hetrace, msg_send, id, dst, size);
}

static void tp_msg_recv(uint64_t id, uint32_t src, uint32_t size)
{
	lttng_ust_tracepoint(hetrace, msg_recv, id, src, size);
}

static const struct ht_lttng_ops ops = {
    .magic = HT_LTTNG_OPS_MAGIC,
    .version = HT_LTTNG_OPS_VERSION,
    .size = sizeof(struct ht_lttng_ops),
    .sync_req = tp_sync_req,
    .sync_recv = tp_sync_recv,
    .msg_send = tp_msg_send,
    .msg_recv = tp_msg_recv,
};

HT_LTTNG_EXPORT const struct ht_lttng_ops *ht_lttng_provider_ops(void)
{
	return &ops;
}
