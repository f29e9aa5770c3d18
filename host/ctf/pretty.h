/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_PRETTY_H
#define HT_HOST_PRETTY_H

/*
 * The text formatter behind `hetrace print`: turns reader messages into
 * the lines babeltrace2's default pretty output (sink.text.pretty,
 * without colors) prints, byte for byte.
 *
 * Events are formatted into an internal buffer that grows as needed; the
 * caller takes the bytes (ht_pretty_data()) and writes them wherever it
 * wants, then calls ht_pretty_consume(). The library never writes to a
 * file on its own.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf-reader.h"

enum ht_pretty_clock {
	HT_PRETTY_CLOCK_TIME = 0, /* [HH:MM:SS.nnnnnnnnn] */
	HT_PRETTY_CLOCK_SECONDS,  /* [s.nnnnnnnnn] */
	HT_PRETTY_CLOCK_CYCLES,	  /* [cycles, 20 digits] */
};

/* What --names shows (babeltrace2's default: context and payload). */
enum ht_pretty_names {
	HT_PRETTY_NAME_HEADER = 1u << 0,  /* timestamp = ..., name = ... */
	HT_PRETTY_NAME_CONTEXT = 1u << 1, /* field names in the contexts */
	HT_PRETTY_NAME_PAYLOAD = 1u << 2, /* field names in the payload */
	HT_PRETTY_NAME_SCOPE = 1u << 3,	  /* stream.packet.context = ... */
	HT_PRETTY_NAME_DEFAULT =
	    HT_PRETTY_NAME_CONTEXT | HT_PRETTY_NAME_PAYLOAD,
	HT_PRETTY_NAME_ALL = 0xf,
};

/* What --fields shows (babeltrace2's default: hostname, procname, vpid). */
enum ht_pretty_fields {
	HT_PRETTY_FIELD_TRACE = 1u << 0,
	HT_PRETTY_FIELD_HOSTNAME = 1u << 1,
	HT_PRETTY_FIELD_DOMAIN = 1u << 2,
	HT_PRETTY_FIELD_PROCNAME = 1u << 3,
	HT_PRETTY_FIELD_VPID = 1u << 4,
	HT_PRETTY_FIELD_LOGLEVEL = 1u << 5,
	HT_PRETTY_FIELD_EMF = 1u << 6,
	HT_PRETTY_FIELD_CALLSITE = 1u << 7,
	HT_PRETTY_FIELD_DEFAULT = HT_PRETTY_FIELD_HOSTNAME |
				  HT_PRETTY_FIELD_PROCNAME |
				  HT_PRETTY_FIELD_VPID,
	HT_PRETTY_FIELD_ALL = 0xff,
};

struct ht_pretty_opts {
	enum ht_pretty_clock clock;
	bool clock_date; /* [YYYY-MM-DD HH:MM:SS.nnnnnnnnn] */
	bool clock_gmt;	 /* UTC instead of the local time zone */
	bool no_delta;
	unsigned names;	 /* enum ht_pretty_names */
	unsigned fields; /* enum ht_pretty_fields */
	/* not babeltrace2's: every event's line names its trace,
	 * "<NAME> " before the event name (traces whose clocks cannot
	 * be compared, printed all the same) */
	bool mark_trace;
};

struct ht_pretty;

/* Creates a formatter with @opts (NULL: babeltrace2's defaults). */
int ht_pretty_create(struct ht_pretty **pretty,
		     const struct ht_pretty_opts *opts);

/* Releases @pretty; NULL is allowed. */
void ht_pretty_destroy(struct ht_pretty *pretty);

/*
 * Appends the line of an EVENT message. The trace names (babeltrace2's
 * "trace" field) come from ht_pretty_set_trace_name(). Returns 0 or
 * HT_ENOMEM.
 */
int ht_pretty_event(struct ht_pretty *pretty, const struct ht_ctf_msg *msg);

/*
 * Formats the warning babeltrace2 prints on stderr for a
 * DISCARDED_EVENTS or DISCARDED_PACKETS message into @buf (a complete
 * line, truncated to @len bytes). @stream_path is the absolute path of
 * the stream file, @stream_id babeltrace2's stream ID. Returns the
 * length of the line.
 */
size_t ht_pretty_discarded(struct ht_pretty *pretty,
			   const struct ht_ctf_msg *msg,
			   const char *stream_path, uint64_t stream_id,
			   char *buf, size_t len);

/*
 * Sets the name babeltrace2 gives @trace (env hostname, then the trace
 * directory relative to the path given on the command line, joined by
 * '/'). Used by the "trace" field and the discarded warnings. The name
 * is copied.
 */
int ht_pretty_set_trace_name(struct ht_pretty *pretty,
			     const struct ht_ctf_trace *trace,
			     const char *name);

/*
 * True once after the first negative timestamp was formatted in a
 * time-of-day mode: babeltrace2 then warns on stderr
 * ("[warning] Fallback to [sec.ns] to print negative time value. Use
 * --clock-seconds.").
 */
bool ht_pretty_take_warning(struct ht_pretty *pretty);

/* The formatted bytes not consumed yet. */
const char *ht_pretty_data(const struct ht_pretty *pretty, size_t *len);

/* Forgets the formatted bytes (after the caller wrote them). */
void ht_pretty_consume(struct ht_pretty *pretty);

/*
 * Notes after integer values (function names after addresses, for
 * `hetrace print --elf`): for the events whose class @wants (asked once
 * per class), every integer field goes through @note, and a non-NULL
 * result is printed right after the value as " <note>". Those events
 * are no longer babeltrace2's text; the others are. Set it before the
 * first event; NULL members: no notes.
 */
struct ht_pretty_note {
	bool (*wants)(void *arg, const struct ht_ctf_event_class *cls);
	const char *(*note)(void *arg, const struct ht_ctf_msg *msg,
			    const struct ht_ctf_field *field);
	void *arg;
};

void ht_pretty_set_note(struct ht_pretty *pretty,
			const struct ht_pretty_note *note);

#endif
