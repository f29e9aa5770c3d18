/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_PACKET_RING_READER_H
#define HT_HOST_PACKET_RING_READER_H

/*
 * The consumer side of a packet ring (include/hetrace/packet-ring.h):
 * attaches to a region, validates its header once, then reads
 * committed packets. The geometry (mode, slot size, number of slots,
 * offsets) is copied at attach time and never read again from shared
 * memory, so a producer that scribbles over its header cannot make the
 * reader access memory outside the region.
 *
 * Discard rings: ht_ring_reader_avail() counts the committed packets,
 * ht_ring_reader_copy_slot() copies one out of the shared slot (the
 * caller validates and writes the copy, never the shared bytes, which
 * a hostile producer may change meanwhile); ht_ring_reader_release()
 * frees their slots for the producer.
 *
 * Overwrite rings: ht_ring_reader_copy() copies the oldest packet the
 * ring still holds into a buffer and checks afterwards that the
 * producer did not overwrite it meanwhile (the re-check rule); packets
 * overwritten before they could be read are counted as lost.
 *
 * Faults: every access to the region is guarded against SIGBUS (a file
 * truncated under the mapping). After a fault the reader is dead:
 * ht_ring_reader_faulted() is true, every access fails at once, and
 * ht_ring_reader_fault_msg() names the region and the offset. The
 * guard installs a process-wide SIGBUS handler at the first attach; a
 * SIGBUS elsewhere goes to the handler that was there before.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ht_ring_reader;

/*
 * Attaches to the ring in @path: an existing file (mapped shared), or
 * else a POSIX shared memory object ("/NAME" or "NAME", no other
 * slash). Returns 0 or a negative HT_E... code with a message naming
 * the region and the offending header field in @err.
 */
int ht_ring_reader_open(struct ht_ring_reader **rr, const char *path, char *err,
			size_t err_len);

/*
 * Attaches to the ring at @mem (@size bytes, mapped by the caller for
 * the reader's lifetime). @what names the region in messages.
 */
int ht_ring_reader_attach(struct ht_ring_reader **rr, void *mem, size_t size,
			  const char *what, char *err, size_t err_len);

/*
 * The same for a ring in device memory (/dev/mem, a UIO map), which
 * faults on unaligned and paired loads on arm64: every copy out of it
 * is made of aligned 32-bit loads.
 */
int ht_ring_reader_attach_device(struct ht_ring_reader **rr, void *mem,
				 size_t size, const char *what, char *err,
				 size_t err_len);

/*
 * The same for a ring at @mem that the caller mapped from the file
 * @fd, @file_off bytes into it (a shared memory object or a plain
 * file): the reader keeps a duplicate of @fd, reads the slots with
 * pread() (ht_ring_reader_copy_slots()) and checks the file's size
 * (ht_ring_reader_check_size()). The caller keeps @mem mapped.
 */
int ht_ring_reader_attach_file(struct ht_ring_reader **rr, void *mem,
			       size_t size, int fd, uint64_t file_off,
			       const char *what, char *err, size_t err_len);

/* Unmaps (when the reader mapped it) and frees. NULL is allowed. */
void ht_ring_reader_close(struct ht_ring_reader *rr);

/* The validated geometry and identity, copied at attach time. */
struct ht_ring_info {
	uint32_t mode;	    /* enum ht_ring_mode */
	uint32_t slot_size; /* bytes */
	uint32_t nr_slots;
	uint32_t slots_off; /* offset of slot 0 in the region */
	uint32_t core_id;
	char core_name[32];   /* null-terminated (may be empty) */
	const char *metadata; /* in the region; NULL when none */
	uint32_t metadata_size;
	const char *source; /* the path or @what given at attach */
};

const struct ht_ring_info *ht_ring_reader_info(const struct ht_ring_reader *rr);

/* The producer's state (enum ht_ring_state) and full_count, now (after
 * a fault: the last state seen, and 0). */
uint32_t ht_ring_reader_state(const struct ht_ring_reader *rr);
uint32_t ht_ring_reader_full_count(const struct ht_ring_reader *rr);

/* The producer's final events_discarded (ring header; 0 until it stops). */
uint32_t ht_ring_reader_final_discarded(const struct ht_ring_reader *rr);

/* Packets committed and not read yet (may exceed nr_slots in overwrite
 * mode, where the oldest are gone). */
uint32_t ht_ring_reader_pending(const struct ht_ring_reader *rr);

/*
 * Discard mode: the number of committed packets waiting, at most
 * nr_slots (a head further ahead than that breaks the discard
 * invariant: the excess is counted by ht_ring_reader_overrun()).
 */
uint32_t ht_ring_reader_avail(struct ht_ring_reader *rr);

/*
 * Discard mode: copies the slot (slot_size bytes) of the @i-th waiting
 * packet (i < the last ht_ring_reader_avail()) into @buf; its packet
 * index in *@k. False when the region faulted.
 */
bool ht_ring_reader_copy_slot(struct ht_ring_reader *rr, uint32_t i,
			      uint8_t *buf, uint32_t *k);

/*
 * Discard mode: copies the slots of up to @n waiting packets, from the
 * @i-th on (i < the last ht_ring_reader_avail()), into @buf (slot_size
 * bytes each, one after the other), stopping at the end of the ring
 * (the slots that follow in memory). Stores the first packet's index
 * in *@k and returns how many were copied; fewer when the region
 * faulted or shrank (then the reader is dead, with its message): 0, or
 * for a ring in a file the whole slots read before the file ended. A
 * ring in a file is read with pread(), as `cat` reads it: no page of
 * the slots is mapped into the collector, so none faults in or has to
 * be unmapped; a ring in memory is copied under the SIGBUS guard.
 */
uint32_t ht_ring_reader_copy_slots(struct ht_ring_reader *rr, uint32_t i,
				   uint32_t n, uint8_t *buf, uint32_t *k);

/*
 * Discard mode, a ring in a file: copies the slots of up to @n waiting
 * packets, from the @i-th on, straight into the file @out_fd at its
 * position (copy_file_range(): one copy, in the kernel, as `cat`
 * copies), stopping at the end of the ring. The caller checks what
 * @out_fd then holds, never the slots. Stores the first packet's index
 * in *@k and returns the bytes copied (whole slots unless it stopped
 * early); *@status says why it stopped early: 0 (it did not),
 * HT_EUNSUPPORTED (nothing copied: a ring in memory, or the kernel
 * cannot copy between these files; use ht_ring_reader_copy_slots()),
 * HT_EIO (writing @out_fd failed, with *@write_errno), HT_ETRUNC (the
 * ring's file shrank: the reader is dead, with its message).
 */
size_t ht_ring_reader_copy_slots_to_file(struct ht_ring_reader *rr, uint32_t i,
					 uint32_t n, int out_fd, uint32_t *k,
					 int *status, int *write_errno);

/*
 * Copies the @n bytes at @src, inside the region (the metadata area,
 * for instance), into @dst. Returns 0, or HT_EIO when the region
 * faulted.
 */
int ht_ring_reader_read(struct ht_ring_reader *rr, void *dst, const void *src,
			size_t n);

/*
 * A ring in a file: checks that the file still holds the whole ring
 * (fstat); when it shrank, the reader is dead as after a fault, with a
 * message naming the file and where it ends. True when the ring can
 * still be read (always for memory given to ht_ring_reader_attach()).
 */
bool ht_ring_reader_check_size(struct ht_ring_reader *rr);

/* True once an access faulted (SIGBUS); the reader is dead. */
bool ht_ring_reader_faulted(const struct ht_ring_reader *rr);

/* The message of the fault ("REGION: offset N: ..."), or NULL. */
const char *ht_ring_reader_fault_msg(const struct ht_ring_reader *rr);

/* Discard mode: gives the slots of the @n oldest waiting packets back
 * to the producer. */
void ht_ring_reader_release(struct ht_ring_reader *rr, uint32_t n);

/* Packets a discard-mode producer committed past a full ring. */
uint64_t ht_ring_reader_overrun(const struct ht_ring_reader *rr);

/*
 * Overwrite mode (works on a discard ring too): copies the oldest
 * packet still in the ring into @buf (slot_size bytes), stores its
 * index in *@k, adds the packets that were overwritten before they
 * could be read to *@lost, and returns true; false when nothing is
 * left. The copy is known good: the producer had not started to
 * overwrite the slot when the copy was done.
 */
bool ht_ring_reader_copy(struct ht_ring_reader *rr, uint8_t *buf, uint32_t *k,
			 uint64_t *lost);

#endif
