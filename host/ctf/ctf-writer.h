/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CTF_WRITER_H
#define HT_HOST_CTF_WRITER_H

/*
 * The CTF 1.8 writer: one trace directory (`metadata` + one file per
 * data stream) with one clock, built from the reader's type trees
 * (host/ctf/ctf-reader.h) and filled with decoded fields.
 *
 * The layout it writes (docs/merge.md):
 * - trace: little-endian, a UUID, packet header { magic, uuid,
 *   stream_id };
 * - per stream class: packet context { packet_size, content_size,
 *   timestamp_begin, timestamp_end, events_discarded, packet_seq_num,
 *   core_id }, event header { uint32 id; uint64 timestamp } on the one
 *   clock, the common event context and the event classes copied from
 *   the input (name, id, loglevel, model.emf.uri, context, payload);
 * - the env entries given, in order.
 *
 * Streaming: each stream holds one packet buffer; a packet is written
 * to its file when the next event does not fit. Memory is bounded by
 * (number of streams) x (packet size, or the largest event).
 *
 * Field values are given as the reader decodes them (struct
 * ht_ctf_field arrays in pre-order); they are encoded with the types
 * they were decoded with, so the output decodes to the same values.
 * A sequence or variant whose length/tag lives in a scope the writer
 * replaces (packet header or context, event header) is rejected with
 * HT_EUNSUPPORTED when its class is added.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf-reader.h"

struct ht_ctf_writer;
struct ht_ctf_wstream;

struct ht_ctf_writer_opts {
	const char *dir; /* created if missing; must not hold a
			  * `metadata` file unless .overwrite */
	bool overwrite;
	size_t packet_bytes; /* packet size target; 0: 64 KiB */
	/* the clock (frequency 1 GHz: timestamps are ns) */
	const char *clock_name;	       /* NULL: "monotonic" */
	const char *clock_description; /* NULL: none */
	const uint8_t *clock_uuid;     /* 16 bytes, NULL: none */
	int64_t clock_offset_s;	       /* origin of the timestamps */
	bool clock_absolute;
	const uint8_t *trace_uuid; /* 16 bytes, NULL: derived from the
				    * clock UUID, else all zero */
	/* TSDL `offset` of the clock, in ns (cycles), added to
	 * clock_offset_s; 0 for a whole-second origin */
	int64_t clock_offset_cycles;
	uint64_t clock_precision; /* cycles */
};

/*
 * Creates the writer and the output directory. On failure returns a
 * negative HT_E... code with a message in @err.
 */
int ht_ctf_writer_create(struct ht_ctf_writer **w,
			 const struct ht_ctf_writer_opts *opts, char *err,
			 size_t err_len);

/* Adds an env entry (written in the order of the calls). */
int ht_ctf_writer_env_str(struct ht_ctf_writer *w, const char *name,
			  const char *value);
int ht_ctf_writer_env_int(struct ht_ctf_writer *w, const char *name,
			  int64_t value);

/*
 * Adds a stream class with the common event context @event_context
 * (NULL when none) and returns its id (0, 1, ... in call order).
 */
int ht_ctf_writer_add_stream_class(struct ht_ctf_writer *w,
				   const struct ht_ctf_type *event_context,
				   uint64_t *id);

/*
 * The packet context of stream class @sc_id also holds `cpu_id`
 * (uint32, after core_id; LTTng's per-CPU streams). Call it before the
 * class has streams; each stream then sets its value with
 * ht_ctf_wstream_set_cpu_id() (0 otherwise).
 */
int ht_ctf_writer_stream_class_add_cpu_id(struct ht_ctf_writer *w,
					  uint64_t sc_id);

/*
 * The event header of stream class @sc_id aligned on @align_bits: 8
 * (the default: `struct { uint32 id; uint64 timestamp; } align(8)`),
 * 32 (the same header on 4 bytes) or 64 (the timestamp aligned on 8
 * bytes: a 16-byte header), so that a record's contexts and payload
 * begin on a multiple of 4 or 8 bytes from the packet's start. Call it
 * before the class has streams.
 */
int ht_ctf_writer_stream_class_header_align(struct ht_ctf_writer *w,
					    uint64_t sc_id,
					    unsigned align_bits);

/*
 * Adds a copy of event class @cls (its id, name, loglevel, emf_uri,
 * context and payload) to stream class @sc_id. Ids must be unique in
 * the stream class and below 2^32.
 */
int ht_ctf_writer_add_event_class(struct ht_ctf_writer *w, uint64_t sc_id,
				  const struct ht_ctf_event_class *cls);

/*
 * Adds a data stream of stream class @sc_id written to @file_name in
 * the trace directory, whose packets carry @core_id.
 */
int ht_ctf_writer_add_stream(struct ht_ctf_writer *w, uint64_t sc_id,
			     const char *file_name, uint32_t core_id,
			     struct ht_ctf_wstream **s);

/* The cpu_id of @s's packets (its class has one). */
void ht_ctf_wstream_set_cpu_id(struct ht_ctf_wstream *s, uint32_t cpu_id);

/*
 * Appends one event of class @cls_id at @ts_ns (non-decreasing within
 * a stream) with the decoded scopes of an input event: @common_ctx
 * (stream event context), @specific_ctx (event context) and @payload,
 * each the root struct field or NULL when the class has none.
 */
int ht_ctf_wstream_event(struct ht_ctf_wstream *s, uint64_t cls_id,
			 uint64_t ts_ns, const struct ht_ctf_field *common_ctx,
			 const struct ht_ctf_field *specific_ctx,
			 const struct ht_ctf_field *payload);

/*
 * Appends one event of class @cls_id at @ts_ns (non-decreasing within
 * a stream) whose common context, specific context and payload are
 * the @body_bytes bytes at @body, already encoded as this layout puts
 * them right after the event header (on a byte boundary, a multiple of
 * the header's alignment from the packet's start when it is 32 or 64:
 * the bytes of an input record whose fields need no more alignment
 * than that, copied; host/sync/merge-copy.c).
 */
int ht_ctf_wstream_raw_event(struct ht_ctf_wstream *s, uint64_t cls_id,
			     uint64_t ts_ns, const uint8_t *body,
			     size_t body_bytes);

/* An event of ht_ctf_wstream_raw_events(). */
struct ht_ctf_raw_event {
	uint64_t cls_id, ts_ns;
	const uint8_t *body;
	size_t body_bytes;
};

/*
 * ht_ctf_wstream_raw_event() of @ev[0], @ev[1]... (@n of them), with
 * no call per event. Returns 0, or the error of the first event that
 * could not be written (the ones before it are written).
 */
int ht_ctf_wstream_raw_events(struct ht_ctf_wstream *s,
			      const struct ht_ctf_raw_event *ev, size_t n);

/*
 * Records @count events lost at or before @ts_ns: the current packet is
 * closed and the next one's events_discarded grows by @count, so a
 * reader reports the loss between the two packets.
 */
int ht_ctf_wstream_discarded(struct ht_ctf_wstream *s, uint64_t count,
			     uint64_t ts_ns);

/* Records @count lost packets: a gap in packet_seq_num. */
int ht_ctf_wstream_lost_packets(struct ht_ctf_wstream *s, uint64_t count,
				uint64_t ts_ns);

/* Events written to a stream so far. */
uint64_t ht_ctf_wstream_nr_events(const struct ht_ctf_wstream *s);

/*
 * Flushes every stream, writes `metadata` and releases the writer.
 * Returns 0 or a negative HT_E... code (with a message in @err). NULL
 * is allowed.
 */
int ht_ctf_writer_close(struct ht_ctf_writer *w, char *err, size_t err_len);

/* Releases the writer without finishing the trace (after an error). */
void ht_ctf_writer_abort(struct ht_ctf_writer *w);

/* The last error message of @w ("" when none). */
const char *ht_ctf_writer_last_error(const struct ht_ctf_writer *w);

#endif
