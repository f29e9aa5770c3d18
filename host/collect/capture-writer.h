/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CAPTURE_WRITER_H
#define HT_HOST_CAPTURE_WRITER_H

/*
 * The collector: drains the packet rings of the cores
 * (include/hetrace/packet-ring.h) into a capture directory, one CTF
 * trace per core:
 *
 *   <capture>/<core_name>/metadata
 *   <capture>/<core_name>/<stream_name>     ("stream" by default)
 *
 * Only complete, committed packets are written, each as the core wrote
 * it (packet_size bytes, up to the slot size). Each slot is copied out
 * of shared memory once; the collector checks the packet header and
 * context of the copy (magic, stream_id, packet_size, content_size,
 * events_discarded, packet_seq_num) and writes the copy, never the
 * shared bytes again. It never decodes events.
 *
 * A ring that turns out damaged (a bad header, a packet whose size or
 * magic is wrong) is reported through the warn callback; a damaged
 * packet is skipped, the ring and the other rings go on.
 *
 * Losses reach the capture: packets lost before the first one kept
 * (overwritten, skipped) are announced by an empty loss-marker packet
 * whose packet_seq_num is that many below the first kept packet's
 * (readers report a jump of packet_seq_num as lost packets); losses
 * after it are jumps of the producer's own numbering, and those after
 * the last packet kept an empty packet at the end whose number jumps. When the
 * producer's numbering leaves no room below, the ring's packets are
 * written with packet_seq_num shifted up by the difference.
 *
 * Failures stop one ring and leave the others going: a region that
 * faults (SIGBUS: its file truncated) stops its ring with what was
 * copied so far written; a write error (ENOSPC, EFBIG, EIO) cuts the
 * stream file back to its last whole packet and stops the ring. The
 * statistics say what each file holds and why a ring stopped.
 *
 * Modes: a discard ring is drained live (each packet is written, then
 * its slot released). An overwrite ring (flight recorder) is read once
 * its producer stopped, or at ht_capture_writer_finish(): the newest
 * packets the ring holds, oldest first; with `overwrite_live` set it
 * is also read live, with the re-check rule of packet-ring.h (packets
 * overwritten before they were copied are counted as lost).
 *
 * Threads: a collector is used by one thread at a time (hetrace sim
 * runs create/add/drain/finish in its collector thread); the rings'
 * producers run anywhere (other processes, other cores).
 *
 * The core's identity in the metadata env (docs/events.md: core_name,
 * core_id, core_role, core_master): the producer's metadata is written
 * unchanged, except that the entries it lacks are added to its env
 * block (core_name and core_id from the options or the ring header,
 * core_role and core_master from the options when given). Entries the
 * producer wrote are never changed.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ht_capture_writer;

struct ht_capture_writer_opts {
	/* Called with a message for each damaged ring or packet, lost
	 * packets and other events worth a warning; may be NULL. */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	/* Read overwrite rings live too (default: only once stopped). */
	bool overwrite_live;
	/* Do not fsync the files at finish (benchmarks, tests on tmpfs). */
	bool no_fsync;
};

/* Per-ring options of ht_capture_writer_add_*(); NULL means all defaults. */
struct ht_capture_writer_ring_opts {
	const char *core_name;	   /* NULL: the ring header's core_name */
	const char *metadata_path; /* NULL: the ring's metadata area */
	const char *stream_name;   /* NULL: "stream" */
	const char *core_role;	   /* "master"/"slave" for the env, or NULL */
	const char *core_master;   /* the master's core_name, or NULL */
	/* ht_capture_writer_add_memory(): the ring is in device memory
	 * (ht_ring_reader_attach_device()). */
	bool device_memory;
};

/* What the collector knows of one ring. */
struct ht_capture_writer_stats {
	const char *core_name;
	const char *stream_name;
	const char *source;  /* the region: path, shm name or "memory" */
	uint32_t core_id;    /* from the ring header */
	uint32_t mode;	     /* enum ht_ring_mode */
	uint32_t state;	     /* enum ht_ring_state, as last seen */
	uint32_t full_count; /* producer's packet switches on a full ring */
	uint64_t packets;    /* whole packets in the stream file */
	uint64_t bytes;	     /* bytes of the stream file (whole packets) */
	/* Of the packets: empty ones the collector wrote before the first
	 * packet kept and after the last (losses and drops they announce). */
	uint64_t loss_markers;
	uint64_t events_discarded; /* last events_discarded written */
	uint64_t lost_packets;	   /* committed but overwritten before read */
	uint64_t damaged_packets;  /* skipped: failed validation */
	bool failed;	   /* the ring is no longer read (fatal error) */
	const char *error; /* why (write error, bus error), or NULL */
};

/*
 * Creates a collector writing into @capture_dir (created if needed;
 * the per-core directories must not hold a stream file yet). @opts may
 * be NULL. Returns 0 or a negative HT_E... code with a message in @err.
 */
int ht_capture_writer_create(struct ht_capture_writer **c,
			     const char *capture_dir,
			     const struct ht_capture_writer_opts *opts,
			     char *err, size_t err_len);

/*
 * Adds the ring in the region @path: "/NAME" or "NAME" without a slash
 * is POSIX shared memory (shm_open), anything else a file (mapped
 * shared). The header is validated (magic, version, size, slot
 * geometry within total_size, metadata range); the metadata parsed;
 * the core's directory, metadata and stream file created. @opts may be
 * NULL. Returns 0 or a negative HT_E... code with a message naming the
 * region in @err; the collector is unchanged then.
 */
int ht_capture_writer_add_path(struct ht_capture_writer *c, const char *path,
			       const struct ht_capture_writer_ring_opts *opts,
			       char *err, size_t err_len);

/*
 * The same for a ring at @mem, @size bytes, mapped by the caller (who
 * keeps it mapped until ht_capture_writer_destroy()).
 */
int ht_capture_writer_add_memory(struct ht_capture_writer *c, void *mem,
				 size_t size,
				 const struct ht_capture_writer_ring_opts *opts,
				 char *err, size_t err_len);

/*
 * The same for a ring at @mem that the caller mapped from the file @fd
 * (a shared memory object or a plain file), @file_off bytes into it:
 * the slots are read from @fd with pread() (no page fault on the
 * slots, as fast as `cat`), the file's size is checked before each
 * drain. The collector keeps a duplicate of @fd; the caller keeps @mem
 * mapped until ht_capture_writer_destroy().
 */
int ht_capture_writer_add_file(struct ht_capture_writer *c, void *mem,
			       size_t size, int fd, uint64_t file_off,
			       const struct ht_capture_writer_ring_opts *opts,
			       char *err, size_t err_len);

/*
 * Writes every committed packet of every ring (see the modes above)
 * and returns at once (never waits for a producer). Adds the bytes
 * written to *@bytes when @bytes is not NULL. Returns 0, or a negative
 * HT_E... code for a failure of the capture itself (a write error);
 * damaged rings are warned about and do not fail the drain.
 */
int ht_capture_writer_drain(struct ht_capture_writer *c, uint64_t *bytes);

/* True when every ring's producer has stopped and nothing is left. */
bool ht_capture_writer_all_stopped(const struct ht_capture_writer *c);

/* Number of rings added. */
size_t ht_capture_writer_nr_rings(const struct ht_capture_writer *c);

/* Statistics of ring @i (0-based, in the order added). */
void ht_capture_writer_stats(const struct ht_capture_writer *c, size_t i,
			     struct ht_capture_writer_stats *st);

/*
 * Final drain, the overwrite rings' read-out, fsync of every file and
 * directory (unless no_fsync), files closed. Returns 0 or a negative
 * HT_E... code with a message in @err. The statistics stay readable.
 */
int ht_capture_writer_finish(struct ht_capture_writer *c, char *err,
			     size_t err_len);

/* Unmaps what the collector mapped and frees it. NULL is allowed. */
void ht_capture_writer_destroy(struct ht_capture_writer *c);

#endif
