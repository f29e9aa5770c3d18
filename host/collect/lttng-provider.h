/* SPDX-License-Identifier: MIT */
#ifndef HT_LTTNG_PROVIDER_H
#define HT_LTTNG_PROVIDER_H

/*
 * The plain C face of hetrace's LTTng-UST provider (hetrace-tp.h,
 * docs/lttng.md), built as the shared object libhetrace-lttng.so when
 * liblttng-ust-dev is installed. A program that traces its master side
 * through LTTng-UST loads it with dlopen() (host/collect/lttng-ust.h does) and
 * calls the functions of the table; nothing else of lttng-ust is seen
 * by the caller, and a program that never loads it does not depend on
 * lttng-ust at all.
 *
 * Each function fires one tracepoint of the provider `hetrace` when an
 * LTTng session has it enabled; otherwise it costs a load and a branch.
 * They are thread-safe (lttng-ust's per-CPU buffers).
 */
#include <stdint.h>

#define HT_LTTNG_OPS_MAGIC 0x48544c54u /* "HTLT" */
#define HT_LTTNG_OPS_VERSION 1u

struct ht_lttng_ops {
	uint32_t magic;	  /* HT_LTTNG_OPS_MAGIC */
	uint32_t version; /* HT_LTTNG_OPS_VERSION; new members at the end */
	uint32_t size;	  /* sizeof(struct ht_lttng_ops) */
	void (*sync_req)(uint32_t seq, uint32_t slave);
	void (*sync_recv)(uint32_t seq, uint32_t slave);
	void (*msg_send)(uint64_t id, uint32_t dst, uint32_t size);
	void (*msg_recv)(uint64_t id, uint32_t src, uint32_t size);
};

/* The symbol looked up in the shared object. */
#define HT_LTTNG_OPS_SYMBOL "ht_lttng_provider_ops"

/* The provider's table (static storage). */
const struct ht_lttng_ops *ht_lttng_provider_ops(void);

#endif
