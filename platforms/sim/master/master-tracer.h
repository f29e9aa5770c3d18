/* SPDX-License-Identifier: MIT */
#ifndef HT_SIM_MASTER_TRACER_H
#define HT_SIM_MASTER_TRACER_H

/*
 * The Linux master's application tracer on the boards hetrace runs
 * itself (the simulated board, and the QEMU board's master): the
 * tracepoints of the generic master's events
 * (host/collect/master-events.yaml, hetrace_master_*) written into a
 * packet ring of the board's shared memory. The recorder
 * (host/collect/board-master.h) traces the sync handshake into a ring
 * of its own with the same metadata and drains both into
 * CAPTURE/<master>/. Several threads may trace, so every tracepoint
 * runs under the tracer's lock, through SIM_MT().
 *
 * It knows the ring and the generated tracer, not the board: the caller
 * lays out the ring (with the core's metadata) and says where events
 * are counted.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "hetrace/packet-ring.h"
#include "host/collect/master-ring-tracer.h"

struct sim_master_tracer {
	struct ht_master_ring_tracer rt;
	pthread_mutex_t lock;
	volatile uint64_t *events; /* bumped once per traced event */
	bool started;
};

/* One tracepoint call under the lock, counted: SIM_MT(t, call). */
#define SIM_MT(t, call)                                                        \
	do {                                                                   \
		pthread_mutex_lock(&(t)->lock);                                \
		call;                                                          \
		(*(t)->events)++;                                              \
		pthread_mutex_unlock(&(t)->lock);                              \
	} while (0)

/*
 * Starts tracing core 0 into @ring (laid out by ht_ring_init()) and opens
 * the first packet; each event bumps *@events.
 */
void sim_master_tracer_start(struct sim_master_tracer *t, struct ht_ring *ring,
			     volatile uint64_t *events);

/*
 * Closes the open packet when it holds events, records the events the
 * tracer discarded in the ring and stops the ring: the collector's last
 * drain sees everything. Does nothing when not started.
 */
void sim_master_tracer_stop(struct sim_master_tracer *t);

/* Releases the lock; after stop (or when never started). */
void sim_master_tracer_fini(struct sim_master_tracer *t);

#endif
