/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_LTTNG_UST_H
#define HT_HOST_LTTNG_UST_H

/*
 * Loading hetrace's LTTng-UST provider (platforms/linux/master,
 * docs/lttng.md) at run time, so that hetrace itself never links
 * lttng-ust: a master that traces through LTTng-UST calls
 * ht_lttng_load() once and then the functions of the table.
 *
 * The shared object is looked up as: $HETRACE_LTTNG_PROVIDER when set
 * (a path), else libhetrace-lttng.so next to the running executable,
 * else libhetrace-lttng.so in the dynamic linker's search path.
 */
#include <stddef.h>

#include "host/collect/lttng-provider.h"

/*
 * Loads the provider (once per process; later calls return the same
 * table). lttng-ust starts its threads and registers with a session
 * daemon when one runs, so call it after any fork() of the process
 * that must not inherit them. Returns 0 or a negative HT_E... code
 * with a message in @err (HT_ENOENT: not built or not found, the
 * message says where it looked; HT_EFORMAT: not hetrace's provider or
 * another version).
 */
int ht_lttng_load(const struct ht_lttng_ops **ops, char *err, size_t err_len);

#endif
