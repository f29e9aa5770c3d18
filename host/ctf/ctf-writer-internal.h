/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CTF_WRITER_INTERNAL_H
#define HT_HOST_CTF_WRITER_INTERNAL_H

/*
 * What the three parts of the CTF writer share: the writer object
 * (ctf-writer.c: options, env, classes, closing), its data streams
 * (ctf-writer-stream.c: packets and field encoding) and the metadata
 * text (ctf-writer-metadata.c: TSDL from the type trees).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "ctf-writer.h"

struct wstream_class {
	uint64_t id;
	const struct ht_ctf_type *event_context;
	const struct ht_ctf_event_class **classes;
	size_t nr_classes, cap_classes;
	bool has_cpu_id;
	/* the event header's alignment: 8 (12 bytes, the timestamp right
	 * after the id), 32 (the same, the header on 4 bytes) or 64 (16
	 * bytes, the timestamp on 8) */
	unsigned hdr_align_bits;
	size_t nr_streams;
};

struct ht_ctf_wstream {
	struct ht_ctf_writer *w;
	struct wstream_class *sc;
	char *path;
	int fd;
	uint32_t core_id;
	uint32_t cpu_id;
	uint8_t *buf;
	size_t cap_bytes;
	uint64_t pos_bits; /* write position in the packet */
	uint64_t nr_in_packet;
	uint64_t ts_begin, ts_end, last_ts;
	uint64_t discarded; /* cumulative, as written */
	uint64_t seq_num;   /* of the open packet */
	uint64_t nr_events;
	uint64_t nr_packets;
	bool pending_empty; /* a packet must be written even if empty */
	/* the buffer's bytes that packet_open() clears: none when the
	 * packet held raw records only (they write their padding), the
	 * whole buffer once a record was encoded (the encoder ORs bits
	 * into cleared bytes and may leave some past its end) */
	size_t dirty_bytes;
};

struct env_entry {
	char *name;
	char *str; /* NULL: integer */
	int64_t i;
};

struct ht_ctf_writer {
	char *dir;
	size_t packet_bytes;
	char clock_name[128];
	char *clock_description;
	bool has_clock_uuid;
	uint8_t clock_uuid[16];
	uint8_t trace_uuid[16];
	int64_t clock_offset_s;
	int64_t clock_offset_cycles;
	uint64_t clock_precision;
	bool clock_absolute;
	struct env_entry *env;
	size_t nr_env, cap_env;
	struct wstream_class **scs;
	size_t nr_scs, cap_scs;
	struct ht_ctf_wstream **streams;
	size_t nr_streams, cap_streams;
	char err[512];
};

/* Keeps the printf-formatted message in w->err; returns @ret. */
int ht__ctf_writer_fail(struct ht_ctf_writer *w, int ret, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * The first length or tag reference in @t (NULL allowed) into a scope
 * the writer replaces (packet header or context, event header), or NULL
 * when there is none: such a field cannot be carried over.
 */
const char *ht__ctf_writer_check_refs(const struct ht_ctf_type *t);

/* Appends the whole `metadata` text of @w to @b. */
void ht__ctf_writer_metadata(const struct ht_ctf_writer *w, struct ht_buf *b);

/* Writes the last packet of @s and closes its file. */
int ht__ctf_wstream_finish(struct ht_ctf_wstream *s);

/* Closes @s's file if open and frees @s. */
void ht__ctf_wstream_free(struct ht_ctf_wstream *s);

#endif
