/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_SYNC_KERNEL_H
#define HT_HOST_SYNC_KERNEL_H

/*
 * The master's Linux CPUs: an LTTng kernel trace (lttng-modules,
 * docs/lttng.md) recorded on the master is on the master's clock, so
 * it needs no fit of its own: its times go through the master's
 * mapping. This layer finds which core is that master and checks that
 * the two clocks are one (name, frequency, offset); the merge
 * (merge.h, per_cpu) then writes one core per CPU. It knows nothing of
 * the kernel's events: they are merged as they are.
 */
#include <stddef.h>

#include "sync-run.h"

/* Kernel CPU N is core HT_SYNC_KERNEL_CORE_ID + N (docs/events.md). */
#define HT_SYNC_KERNEL_CORE_ID 1000u

/*
 * The index in run->cores of the master the kernel trace @kernel
 * belongs to: the LTTng-UST core, else the core named @core_name
 * (--lttng-core), else the capture's only master. Returns 0, or a
 * negative HT_E... code with a message in @err naming the trace when
 * there is no such master or its clock is not the kernel trace's.
 */
int ht_sync_kernel_master(const struct ht_sync_run *run,
			  const struct ht_ctf_trace *kernel,
			  const char *core_name, size_t *master, char *err,
			  size_t err_len);

#endif
