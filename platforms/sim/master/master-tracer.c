/* SPDX-License-Identifier: MIT */
/* The Linux master's own tracer (master-tracer.h). */
#include "master-tracer.h"
#include "platforms/sim/clock-model.h"

/* The master's clock is the reference: CLOCK_MONOTONIC_RAW in ns. */
static uint64_t tracer_clock(void *data)
{
	(void)data;
	return sim_ref_now_ns();
}

static int tracer_ring_full(void *data)
{
	struct sim_master_tracer *t = data;

	return ht_ring_is_full(t->ring);
}

static void tracer_open_packet(void *data)
{
	struct sim_master_tracer *t = data;

	hetrace_master_packet_set_buf(&t->ctx, ht_ring_slot(t->ring),
				      t->ring->slot_size);
	hetrace_master_core_open_packet(&t->ctx);
}

static void tracer_close_packet(void *data)
{
	struct sim_master_tracer *t = data;

	hetrace_master_core_close_packet(&t->ctx);
	ht_ring_commit(t->ring);
}

void sim_master_tracer_start(struct sim_master_tracer *t, struct ht_ring *ring,
			     volatile uint64_t *events)
{
	struct hetrace_master_platform_callbacks cbs = {
	    tracer_clock, tracer_ring_full, tracer_open_packet,
	    tracer_close_packet};

	t->ring = ring;
	t->events = events;
	pthread_mutex_init(&t->lock, NULL);
	hetrace_master_init(&t->ctx, ht_ring_slot(ring), ring->slot_size, cbs,
			    t);
	hetrace_master_set_core_id(&t->ctx, 0);
	t->on = true;
	pthread_mutex_lock(&t->lock);
	tracer_open_packet(t);
	pthread_mutex_unlock(&t->lock);
}

void sim_master_tracer_stop(struct sim_master_tracer *t)
{
	if (!t->on) {
		return;
	}
	pthread_mutex_lock(&t->lock);
	if (hetrace_master_packet_is_open(&t->ctx) &&
	    !hetrace_master_packet_is_empty(&t->ctx)) {
		tracer_close_packet(t);
	}
	ht_ring_set_discarded(t->ring,
			      hetrace_master_packet_events_discarded(&t->ctx));
	ht_ring_stop(t->ring);
	t->on = false;
	pthread_mutex_unlock(&t->lock);
}

void sim_master_tracer_fini(struct sim_master_tracer *t)
{
	if (t->ring) {
		pthread_mutex_destroy(&t->lock);
		t->ring = NULL;
	}
}

void sim_master_tracer_sync_req(void *tracer, uint32_t seq, uint32_t slave)
{
	struct sim_master_tracer *t = tracer;

	SIM_MT(t, hetrace_master_trace_sync_req(&t->ctx, seq, slave));
}

void sim_master_tracer_sync_recv(void *tracer, uint32_t seq, uint32_t slave)
{
	struct sim_master_tracer *t = tracer;

	SIM_MT(t, hetrace_master_trace_sync_recv(&t->ctx, seq, slave));
}
