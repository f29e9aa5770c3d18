/* SPDX-License-Identifier: MIT */
/* The Linux master's own tracer (master-tracer.h). */
#include "master-tracer.h"
#include "platforms/sim/clock-model.h"

void sim_master_tracer_start(struct sim_master_tracer *t, struct ht_ring *ring,
			     volatile uint64_t *events)
{
	t->events = events;
	pthread_mutex_init(&t->lock, NULL);
	t->started = true;
	pthread_mutex_lock(&t->lock);
	/* The master's clock is the reference: CLOCK_MONOTONIC_RAW in ns. */
	ht_master_ring_tracer_start(&t->rt, ring, 0, sim_ref_now_ns);
	pthread_mutex_unlock(&t->lock);
}

void sim_master_tracer_stop(struct sim_master_tracer *t)
{
	if (!t->started) {
		return;
	}
	pthread_mutex_lock(&t->lock);
	ht_master_ring_tracer_stop(&t->rt);
	pthread_mutex_unlock(&t->lock);
}

void sim_master_tracer_fini(struct sim_master_tracer *t)
{
	if (t->started) {
		pthread_mutex_destroy(&t->lock);
		t->started = false;
	}
}
