/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "master-ring-tracer.h"

int ht_master_ring_alloc(uint32_t size, uint32_t slot, uint32_t core_id,
			 const char *name, const char *meta, void **mem,
			 struct ht_ring **ring)
{
	*ring = NULL;
	if (posix_memalign(mem, 64, size)) {
		*mem = NULL;
		return HT_ENOMEM;
	}
	memset(*mem, 0, size);
	*ring = ht_ring_init(*mem, size, slot, HT_RING_DISCARD, core_id, name,
			     meta, (uint32_t)strlen(meta));
	if (!*ring) {
		free(*mem);
		*mem = NULL;
		return HT_EINVAL;
	}
	return 0;
}

static uint64_t tracer_clock(void *data)
{
	struct ht_master_ring_tracer *t = data;

	return t->clock();
}

static int tracer_ring_full(void *data)
{
	struct ht_master_ring_tracer *t = data;

	return ht_ring_is_full(t->ring);
}

static void tracer_open_packet(void *data)
{
	struct ht_master_ring_tracer *t = data;

	hetrace_master_packet_set_buf(&t->ctx, ht_ring_slot(t->ring),
				      t->ring->slot_size);
	hetrace_master_core_open_packet(&t->ctx);
}

static void tracer_close_packet(void *data)
{
	struct ht_master_ring_tracer *t = data;

	hetrace_master_core_close_packet(&t->ctx);
	ht_ring_commit(t->ring);
}

void ht_master_ring_tracer_start(struct ht_master_ring_tracer *t,
				 struct ht_ring *ring, uint32_t core_id,
				 uint64_t (*clock)(void))
{
	struct hetrace_master_platform_callbacks cbs = {
	    tracer_clock, tracer_ring_full, tracer_open_packet,
	    tracer_close_packet};

	t->ring = ring;
	t->clock = clock;
	hetrace_master_init(&t->ctx, ht_ring_slot(ring), ring->slot_size, cbs,
			    t);
	hetrace_master_set_core_id(&t->ctx, core_id);
	tracer_open_packet(t);
	t->on = 1;
}

void ht_master_ring_tracer_stop(struct ht_master_ring_tracer *t)
{
	if (!t->on) {
		return;
	}
	if (hetrace_master_packet_is_open(&t->ctx) &&
	    !hetrace_master_packet_is_empty(&t->ctx)) {
		tracer_close_packet(t);
	}
	ht_ring_set_discarded(t->ring,
			      hetrace_master_packet_events_discarded(&t->ctx));
	ht_ring_stop(t->ring);
	t->on = 0;
}
