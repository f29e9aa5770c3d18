/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CAPTURE_READER_H
#define HT_HOST_CAPTURE_READER_H

/*
 * A capture as the synchronization sees it: its cores (one CTF trace
 * each, named by the env block, docs/events.md) and the messages
 * between them, extracted from the handshake events (sync_req/sync_ack,
 * sync_notify/sync_recv) and the application messages
 * (msg_send/msg_recv matched by (sender, id)).
 *
 * A message is a pair (send time on the sender's clock, receive time
 * on the receiver's clock), both the 64-bit extended raw clock values
 * (cycles) of each core's own default clock.
 *
 * Problems are counted per core and described in notes (file and
 * position where there is one); the scan never stops on bad input:
 * damaged packets are skipped, the rest is used.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/ctf/ctf-reader.h"

struct ht_capture_reader;

/* What a message is. */
enum ht_capture_chan {
	HT_CAPTURE_DOWN = 1, /* handshake, master -> slave (req / ack) */
	HT_CAPTURE_UP,	     /* handshake, slave -> master (notify / recv) */
	HT_CAPTURE_MSG,	     /* application message (send / recv) */
};

struct ht_capture_pair {
	uint64_t send; /* sender's cycles */
	uint64_t recv; /* receiver's cycles */
	/* the receive's seq (handshake) or the message id: with chan, it
	 * names the receive event (sync_ack, sync_recv or msg_recv) */
	uint64_t num;
	uint8_t chan; /* enum ht_capture_chan */
	/* the receive event itself: its stream (index in its core's
	 * trace) and where its record starts in that file (bits) */
	uint32_t recv_stream;
	uint64_t recv_offset_bits;
};

/* The messages from one core to another, in the sender's time order. */
struct ht_capture_link {
	size_t from, to; /* core indexes */
	struct ht_capture_pair *pairs;
	size_t nr_pairs;
	size_t nr_sync; /* of which handshake messages */
	size_t nr_msg;	/* of which application messages */
};

enum ht_capture_problem {
	HT_CAPTURE_UNMATCHED_REQ,    /* sync_req without its sync_ack */
	HT_CAPTURE_UNMATCHED_ACK,    /* sync_ack without its sync_req */
	HT_CAPTURE_UNMATCHED_NOTIFY, /* sync_notify without its sync_recv */
	HT_CAPTURE_UNMATCHED_RECV,   /* sync_recv without its sync_notify */
	HT_CAPTURE_UNMATCHED_SEND,   /* msg_send without its msg_recv */
	HT_CAPTURE_UNMATCHED_MRECV,  /* msg_recv without its msg_send */
	HT_CAPTURE_DUP_SEQ,	     /* a sequence number or id seen again */
	HT_CAPTURE_BAD_SEQ,	     /* a sequence number going backwards,
				      * or not following the round's rule */
	HT_CAPTURE_BAD_FIELD,	     /* missing field, unknown core id,
				      * dst/src not matching */
	HT_CAPTURE_DAMAGED,	     /* damaged packets skipped */
	HT_CAPTURE_BAD_TIME,	     /* an event stamped out of its stream's
				      * order (a spike, a dip) or beyond
				      * 2^62 cycles: a damaged timestamp */
	HT_CAPTURE_NR_PROBLEMS,
};

/* An event whose timestamp is damaged (HT_CAPTURE_BAD_TIME): the index
 * of its stream among its trace's streams and its position. */
struct ht_capture_bad_time {
	uint64_t offset_bits;
	uint32_t stream;
	uint32_t pad;
};

struct ht_capture_core {
	const char *name; /* env core_name, else the directory */
	uint32_t id;	  /* env core_id, else its index */
	bool has_id;
	bool is_master;		 /* env core_role == "master" */
	const char *master_name; /* env core_master, NULL when none */
	long master;		 /* index of its master core, -1: none */
	const struct ht_ctf_trace *trace;
	const struct ht_ctf_clock *clock; /* the default clock, or NULL */
	/* the scan */
	uint64_t nr_events;
	uint64_t nr_sync_events; /* sync_* events on this core */
	bool has_time;
	uint64_t first_cycles, last_cycles;
	uint64_t discarded_events;
	uint64_t lost_packets;
	uint64_t problems[HT_CAPTURE_NR_PROBLEMS];
	/* an LTTng-UST trace standing for this core (docs/lttng.md) */
	bool is_lttng;
	/* its events with a damaged timestamp, by (stream, offset_bits);
	 * they are not used as halves of messages */
	struct ht_capture_bad_time *bad_times;
	size_t nr_bad_times, cap_bad_times;
};

/*
 * A core the capture knows of and that cannot be read: a directory of
 * the capture holding files but no metadata, a trace whose metadata or
 * a stream file cannot be read (such a core is left out of the cores),
 * or a core id that handshake or message events name and no trace of
 * the capture has (found by the scan).
 */
struct ht_capture_missing {
	const char *name; /* the directory's name, or "core_id N" */
	const char *file; /* the file or directory at fault */
	const char *why;  /* what is wrong, with the position if known */
};

/*
 * Opens the capture @dir (every CTF trace under it is a core) and
 * checks the cores' identities: unique names and ids, masters that
 * exist, one default clock per core. A core that cannot be read is
 * left out and listed (ht_capture_reader_missing(): the caller decides
 * whether to go on). A trace written by `hetrace sync` (env
 * sync_reference) is refused: it is synchronized already. Returns 0 or
 * a negative HT_E... code with a message in @err naming the file.
 */
int ht_capture_reader_open(struct ht_capture_reader **cap, const char *dir,
			   char *err, size_t err_len);

struct ht_capture_reader_opts {
	const char *dir; /* the capture */
	/*
	 * An LTTng session's output directory (or any directory holding
	 * one LTTng-UST trace): that trace is the master core of the
	 * capture; NULL: none given (an LTTng-UST trace found inside @dir
	 * plays that part too). docs/lttng.md.
	 */
	const char *lttng_dir;
	/*
	 * The core the LTTng-UST trace stands for (NULL: the capture's
	 * only master, else the master its slaves name, else "lttng").
	 * A capture trace of that name is replaced (a note says so); the
	 * LTTng core takes its core id (else 0).
	 */
	const char *lttng_core;
};

/* ht_capture_reader_open() with an LTTng-UST trace as a core. */
int ht_capture_reader_open_opts(struct ht_capture_reader **cap,
				const struct ht_capture_reader_opts *opts,
				char *err, size_t err_len);

void ht_capture_reader_close(struct ht_capture_reader *cap);

size_t ht_capture_reader_nr_cores(const struct ht_capture_reader *cap);
const struct ht_capture_core *
ht_capture_reader_core(const struct ht_capture_reader *cap, size_t i);

/* The core whose env core_name (or directory) is @name, or -1. */
long ht_capture_reader_find_core(const struct ht_capture_reader *cap,
				 const char *name);

/*
 * Reads every event once and extracts the messages. Returns 0, or a
 * negative HT_E... code for a failure that is not the input's (memory);
 * damaged input is counted and noted, not returned.
 */
int ht_capture_reader_scan(struct ht_capture_reader *cap);

/* The messages from core @from to core @to (NULL when none). */
const struct ht_capture_link *
ht_capture_reader_link(const struct ht_capture_reader *cap, size_t from,
		       size_t to);

/* All links with at least one message, in (from, to) order. */
/*
 * The LTTng kernel trace of the capture or of the LTTng directory (env
 * tracer_name = "lttng-modules"; one at most), or NULL. It is no core:
 * the merge adds its CPUs on the master's clock (sync-kernel.h).
 */
const struct ht_ctf_trace *
ht_capture_reader_kernel(const struct ht_capture_reader *cap);

size_t ht_capture_reader_nr_links(const struct ht_capture_reader *cap);
const struct ht_capture_link *
ht_capture_reader_link_at(const struct ht_capture_reader *cap, size_t i);

/* Notes on problems found (each names the core and, where known, the
 * file and position); at most a bounded number are kept. */
size_t ht_capture_reader_nr_notes(const struct ht_capture_reader *cap);
const char *ht_capture_reader_note(const struct ht_capture_reader *cap,
				   size_t i);
/* Notes not kept because there were too many. */
uint64_t
ht_capture_reader_nr_notes_dropped(const struct ht_capture_reader *cap);

/* The cores that cannot be read (after the open, then the scan). */
size_t ht_capture_reader_nr_missing(const struct ht_capture_reader *cap);
const struct ht_capture_missing *
ht_capture_reader_missing(const struct ht_capture_reader *cap, size_t i);
/* Missing core ids not listed because there were too many. */
uint64_t
ht_capture_reader_nr_missing_dropped(const struct ht_capture_reader *cap);

/* A short name for a problem ("unmatched sync_req", ...). */
const char *ht_capture_problem_name(enum ht_capture_problem p);

/* Internal to host/sync: the unsigned integer member @name of the
 * payload of event @msg (TSDL may write it with one leading '_') into
 * *@v. False when there is none. */
bool ht__capture_payload_uint(const struct ht_ctf_msg *msg, const char *name,
			      uint64_t *v);

#endif
