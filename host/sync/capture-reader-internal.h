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
#include <stddef.h>
#include <stdint.h>

#include "capture-reader.h"
#include "common/buf.h"

/* the scan's state (capture-scan.c) */
struct ht__side;
struct ht__seq_state;
struct ht__cls_kind;
struct ht__stream_time;

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
	/* the message being scanned and its core (where a receive is:
	 * struct ht_capture_pair) */
	const struct ht_ctf_msg *cur_msg;
	size_t cur_core;
	struct ht_strv notes;
	uint64_t notes_dropped;
	/* cores that cannot be read (capture-layout.c) */
	struct ht_capture_missing *missing;
	size_t nr_missing, cap_missing;
	uint64_t missing_dropped;
	char *lttng_name; /* the LTTng core's name, when there is one */
	/* the LTTng kernel trace (env tracer_name = "lttng-modules") */
	const struct ht_ctf_trace *kernel;
};

/* capture-notes.c */

/* Adds a note (printf-formatted); counted as dropped when there are
 * too many already or memory is short. */
void ht__capture_reader_note(struct ht_capture_reader *cap, const char *fmt,
			     ...) __attribute__((format(printf, 2, 3)));

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

/* capture-scan.c */

/* Allocates the scan's state for the cores of @cap (opened). Returns 0
 * or HT_ENOMEM. */
int ht__capture_reader_scan_init(struct ht_capture_reader *cap);

/* Frees the scan's state and the links it made (any part may be
 * missing). */
void ht__capture_reader_scan_fini(struct ht_capture_reader *cap);

#endif
