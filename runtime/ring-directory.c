/* SPDX-License-Identifier: MIT */
/*
 * The ring directory's target side (include/hetrace/ring-directory.h
 * states who writes which word).
 */
#include <stddef.h>
#include <string.h>

#include "hetrace/ring-directory.h"

void ht_ring_directory_init(struct ht_ring_directory *d, uint32_t count)
{
	uint32_t i;

	d->magic = 0u;
	/* A reader that saw an old magic sees it gone before the rest. */
	HT_MEMORY_BARRIER();
	d->version = HT_RING_DIRECTORY_VERSION;
	d->size = (uint32_t)sizeof(*d);
	d->entry_size = (uint32_t)sizeof(struct ht_ring_directory_entry);
	d->count = count;
	memset(d->reserved, 0, sizeof(d->reserved));
	for (i = 0; i < count; i++) {
		memset(ht_ring_directory_entry(d, i), 0,
		       sizeof(struct ht_ring_directory_entry));
	}
	/* Every field and entry above before the magic that validates them. */
	HT_MEMORY_BARRIER();
	d->magic = HT_RING_DIRECTORY_MAGIC;
}

int ht_ring_directory_publish(struct ht_ring_directory *d, uint32_t index,
			      uint32_t core_id, const char *name,
			      uint64_t ring_offset, uint64_t ring_size,
			      uint64_t mbox_offset)
{
	struct ht_ring_directory_entry *e;
	uint32_t i;

	if (d->magic != HT_RING_DIRECTORY_MAGIC || index >= d->count) {
		return -1;
	}
	e = ht_ring_directory_entry(d, index);
	e->valid = 0u;
	HT_MEMORY_BARRIER();
	e->core_id = core_id;
	for (i = 0; i + 1u < HT_RING_DIRECTORY_NAME_MAX && name && name[i];
	     i++) {
		e->name[i] = name[i];
	}
	for (; i < HT_RING_DIRECTORY_NAME_MAX; i++) {
		e->name[i] = '\0';
	}
	e->ring_offset = ring_offset;
	e->ring_size = ring_size;
	e->mbox_offset = mbox_offset;
	/* The fields above before the valid word the master waits for. */
	HT_MEMORY_BARRIER();
	e->valid = HT_RING_DIRECTORY_VALID;
	return 0;
}
