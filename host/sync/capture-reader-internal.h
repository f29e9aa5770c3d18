/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CAPTURE_READER_INTERNAL_H
#define HT_HOST_CAPTURE_READER_INTERNAL_H

/*
 * What the files of a capture share (internal to host/sync): the
 * capture itself and the functions each file gives the others.
 * capture-reader.c opens a capture and checks its cores; capture-scan.c reads
 * the events and joins the halves of the messages into pairs;
 * capture-notes.c keeps the notes on what was wrong.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture-reader.h"
#include "common/buf.h"

/* the scan's state (capture-scan.c) */
struct ht__side;
struct ht__seq_state;
struct ht__cls_kind;
struct ht__stream_time;
struct ht__scan_ev;

struct ht_capture_reader {
	char *dir;
	struct ht_ctf_set *set;
	struct ht_capture_core *cores;
	size_t nr_cores;
	/* stream index in the set -> core index */
	long *core_of_stream;
	size_t nr_streams;
	/* links, dense by from * nr_cores + to (allocated on use) */
	struct ht_capture_link **links;
	struct ht_capture_link **used; /* the non-empty ones, sorted */
	size_t nr_used;
	/* handshake halves by from * nr_cores + to; message halves by
	 * sender */
	struct ht__side *sync;
	struct ht__side *msg;
	/* per (core, kind index 0..5, peer): sequence order */
	struct ht__seq_state *seqs;
	/* event class -> kind cache, open addressing on the pointer */
	struct ht__cls_kind *kinds;
	size_t kinds_cap, kinds_len;
	/* per stream index in the set: its time order (capture-scan.c) */
	struct ht__stream_time *times;
	struct ht__stream_time *cur_time; /* the event being scanned */
	/* the event being taken as a half and its core (where a receive
	 * is: struct ht_capture_pair) */
	const struct ht__scan_ev *cur_ev;
	size_t cur_core;
	/* the per-stream scan: one core's handshake and message events,
	 * put in time order before they are taken as halves */
	struct ht__scan_ev *evs;
	size_t nr_evs, cap_evs;
	/* what the scan's notes are ordered by (capture-notes.c): the
	 * time the stream at hand had reached (a good timestamp, key_has
	 * false before the first) and the position there (keyed: the
	 * per-stream scan; else the order they are made in) */
	bool keyed, key_has;
	const struct ht_ctf_stream *key_stream;
	uint64_t key_cycles, key_offset_bits;
	struct ht_strv notes;
	uint64_t notes_dropped;
	/* the scan's notes, the earliest kept until the scan ends
	 * (capture-notes.c) */
	struct ht__capture_scan_note *scan_notes;
	size_t nr_scan_notes, cap_scan_notes;
	uint64_t scan_notes_seq;
	/* cores that cannot be read (capture-layout.c) */
	struct ht_capture_missing *missing;
	size_t nr_missing, cap_missing;
	uint64_t missing_dropped;
	char *lttng_name; /* the LTTng core's name, when there is one */
	/* the LTTng kernel trace (env tracer_name = "lttng-modules") */
	const struct ht_ctf_trace *kernel;
};

/* capture-notes.c */

/* A note of the scan: the time its stream had reached (ns on its
 * core's clock), its stream (index in the set), the position there and
 * its rank among the scan's notes. */
struct ht__capture_scan_note {
	int64_t ns;
	uint32_t stream;
	uint64_t offset_bits;
	uint64_t seq;
	char *text;
};

/* Adds a note (printf-formatted); counted as dropped when there are
 * too many already or memory is short. */
void ht__capture_reader_note(struct ht_capture_reader *cap, const char *fmt,
			     ...) __attribute__((format(printf, 2, 3)));

/*
 * A note of the scan on stream @stream at @offset_bits, where the
 * stream's time had reached @ns: the notes of the scan are kept in the
 * order of (time, stream, position, order made), the earliest ones
 * only (as many as the notes kept in all), and added to the notes by
 * ht__capture_reader_notes_flush().
 */
void ht__capture_reader_note_at(struct ht_capture_reader *cap, int64_t ns,
				uint32_t stream, uint64_t offset_bits,
				const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Adds the scan's notes to the notes, in their order. */
void ht__capture_reader_notes_flush(struct ht_capture_reader *cap);

/* Frees the notes. */
void ht__capture_reader_notes_fini(struct ht_capture_reader *cap);

/* capture-layout.c */

/*
 * The trace directories of the capture @dir into @traces (each a
 * directory holding `metadata`, found as ht_ctf_set_open() finds them),
 * leaving out and listing as missing the directories that hold files
 * but no trace, and the traces with a stream entry that cannot be read.
 * Returns 0, HT_ENOMEM or HT_EIO (@dir unreadable, message in @err).
 */
int ht__capture_layout_find(struct ht_capture_reader *cap, const char *dir,
			    struct ht_strv *traces, char *err, size_t err_len);

/* Lists a missing core (copies of the strings). Returns 0 or
 * HT_ENOMEM. */
int ht__capture_missing_add(struct ht_capture_reader *cap, const char *name,
			    const char *file, const char *why);

/* Frees the list. */
void ht__capture_missing_fini(struct ht_capture_reader *cap);

/* capture-fields.c */

/* A record in its file's bytes: where its packet starts, where its
 * contexts and payload begin and where it ends (bits from the file's
 * start), and the types of its stream event context, event context
 * and payload (NULL when absent). */
struct ht__capture_raw {
	const uint8_t *bytes;
	uint64_t base, body, end;
	const struct ht_ctf_type *scope[3];
};

/* Whether ht__capture_raw_uint() steps over and reads fields of @t
 * (and the merge's copy lays them out again): integers, enumerations,
 * floats, strings, structures and arrays of them (NULL too). */
bool ht__capture_walkable(const struct ht_ctf_type *t);

/* The largest alignment in @t, its own or any member's or element's (1
 * when NULL). */
unsigned ht__type_max_align(const struct ht_ctf_type *t);

/* The unsigned integer member @name (or "_@name") of @r's payload, as
 * ht__capture_payload_uint() reads it from the decoded event. */
bool ht__capture_raw_uint(const struct ht__capture_raw *r, const char *name,
			  uint64_t *v);

/* capture-scan.c */

/* Allocates the scan's state for the cores of @cap (opened). Returns 0
 * or HT_ENOMEM. */
int ht__capture_reader_scan_init(struct ht_capture_reader *cap);

/* Frees the scan's state and the links it made (any part may be
 * missing). */
void ht__capture_reader_scan_fini(struct ht_capture_reader *cap);

#endif
