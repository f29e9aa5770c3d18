/* SPDX-License-Identifier: MIT */
/*
 * The packet ring's set-up (include/hetrace/packet-ring.h states the
 * layout and the invariants); the producer's fast operations are inline
 * in the header.
 */
#include <string.h>

#include "hetrace/packet-ring.h"
/* Not used here: included so that every build of the runtime (and
 * tests/gen/test-cross.sh) compiles the ring binding for every target. */
#include "hetrace/ring-stream.h"

static uint32_t align_up(uint32_t v, uint32_t a)
{
	return (v + a - 1u) & ~(a - 1u);
}

struct ht_ring *ht_ring_init(void *mem, uint32_t total_size, uint32_t slot_size,
			     enum ht_ring_mode mode, uint32_t core_id,
			     const char *core_name, const char *metadata,
			     uint32_t metadata_size)
{
	struct ht_ring *r = (struct ht_ring *)mem;
	uint32_t meta_off = (uint32_t)sizeof(*r);
	uint32_t slots_off;
	uint32_t nr_slots;
	size_t n;

	if (!mem || slot_size == 0u || slot_size % 8u != 0u ||
	    (mode != HT_RING_DISCARD && mode != HT_RING_OVERWRITE) ||
	    total_size < meta_off) {
		return NULL;
	}
	if (!metadata) {
		metadata_size = 0u;
	}
	if (metadata_size > total_size - meta_off) {
		return NULL;
	}
	slots_off = align_up(meta_off + metadata_size, HT_RING_SLOT_ALIGN);
	if (slots_off < meta_off || slots_off > total_size) {
		return NULL;
	}
	nr_slots = (total_size - slots_off) / slot_size;
	if (nr_slots < 2u) {
		return NULL;
	}

	/* A consumer polling the region must not see a half-written header. */
	r->magic = 0u;
	HT_MEMORY_BARRIER();
	memset((uint8_t *)r + sizeof(r->magic), 0,
	       sizeof(*r) - sizeof(r->magic));
	r->version = HT_RING_VERSION;
	r->size = (uint32_t)sizeof(*r);
	r->total_size = total_size;
	r->mode = (uint32_t)mode;
	r->slot_size = slot_size;
	r->nr_slots = nr_slots;
	r->slots_off = slots_off;
	r->metadata_off = metadata_size ? meta_off : 0u;
	r->metadata_size = metadata_size;
	r->core_id = core_id;
	if (core_name) {
		for (n = 0; n + 1u < HT_RING_NAME_MAX && core_name[n]; n++) {
			r->core_name[n] = core_name[n];
		}
	}
	if (metadata_size) {
		memcpy((uint8_t *)r + meta_off, metadata, metadata_size);
	}
	r->state = HT_RING_RUNNING;
	/* Every field above before the magic that validates them. */
	HT_MEMORY_BARRIER();
	r->magic = HT_RING_MAGIC;
	return r;
}
