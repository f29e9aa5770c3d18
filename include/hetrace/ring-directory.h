/* SPDX-License-Identifier: MIT */
#ifndef HETRACE_RING_DIRECTORY_H
#define HETRACE_RING_DIRECTORY_H

/*
 * The ring directory: a small table at a known place in shared memory
 * where the cores of a board say where their packet ring and sync
 * mailbox are, so that a firmware can place them where its linker
 * wants and the master (hetrace record --board, docs/board.md) finds
 * them by core id or name.
 *
 * Layout: the header, then `count` entries of `entry_size` bytes.
 * Offsets are from the first byte of the region the directory sits in
 * (the board file's `ring-directory: {region: ...}`).
 *
 * Who writes what:
 * - One party (the first core to boot, or the program that creates the
 *   shared memory) lays out the directory with ht_ring_directory_init():
 *   everything else first, the magic last.
 * - Each core publishes its own entry (an index it knows, e.g. its
 *   core id) with ht_ring_directory_publish(): the fields first, the
 *   entry's `valid` word last. No two cores write the same entry.
 * - The master only reads: it waits for the magic, then for the valid
 *   word of the entries it needs, and reads the fields after it.
 *
 * Requires C99 and <stdint.h> only; no allocation.
 */

#include <stdint.h>

#include "port.h"

#define HT_RING_DIRECTORY_MAGIC 0x52445448u /* "HTDR" in little-endian */
#define HT_RING_DIRECTORY_VERSION 1u
#define HT_RING_DIRECTORY_VALID 0x56445448u /* "HTDV": entry filled in */
#define HT_RING_DIRECTORY_NAME_MAX 32u
#define HT_RING_DIRECTORY_NO_MBOX 0xffffffffffffffffull

/* One core's entry (64 bytes). New fields only at the end. */
struct ht_ring_directory_entry {
	volatile uint32_t valid; /* HT_RING_DIRECTORY_VALID, written last */
	uint32_t core_id;
	char name[HT_RING_DIRECTORY_NAME_MAX]; /* NUL-terminated core name */
	uint64_t ring_offset;		       /* struct ht_ring */
	uint64_t ring_size;		       /* bytes */
	uint64_t mbox_offset; /* struct ht_sync_slave_mbox, or NO_MBOX */
};

/* The header (32 bytes), magic, version and size first. */
struct ht_ring_directory {
	volatile uint32_t magic; /* HT_RING_DIRECTORY_MAGIC, written last */
	uint32_t version;	 /* HT_RING_DIRECTORY_VERSION */
	uint32_t size;		 /* sizeof(struct ht_ring_directory) */
	uint32_t entry_size;	 /* sizeof(struct ht_ring_directory_entry) */
	uint32_t count;		 /* entries that follow */
	uint32_t reserved[3];
	/* struct ht_ring_directory_entry entries[count] follows. */
};

/* The bytes a directory of @count entries takes. */
static inline uint64_t ht_ring_directory_bytes(uint32_t count)
{
	return (uint64_t)sizeof(struct ht_ring_directory) +
	       (uint64_t)count * sizeof(struct ht_ring_directory_entry);
}

/* Entry @i of @d (no bounds check; i < d->count). */
static inline struct ht_ring_directory_entry *
ht_ring_directory_entry(struct ht_ring_directory *d, uint32_t i)
{
	return (struct ht_ring_directory_entry *)((uint8_t *)d + d->size +
						  (uint64_t)i * d->entry_size);
}

/*
 * Lays out an empty directory of @count entries at @d (8-byte aligned,
 * ht_ring_directory_bytes(count) bytes): every entry invalid, then the
 * magic.
 */
void ht_ring_directory_init(struct ht_ring_directory *d, uint32_t count);

/*
 * Publishes entry @index: core @core_id named @name (cut to 31 bytes),
 * its ring at @ring_offset (@ring_size bytes) and its mailbox at
 * @mbox_offset (HT_RING_DIRECTORY_NO_MBOX: none), valid word last.
 * Returns 0, or -1 when the directory is not laid out or @index is
 * past its count.
 */
int ht_ring_directory_publish(struct ht_ring_directory *d, uint32_t index,
			      uint32_t core_id, const char *name,
			      uint64_t ring_offset, uint64_t ring_size,
			      uint64_t mbox_offset);

#endif
