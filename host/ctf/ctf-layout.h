/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CTF_LAYOUT_H
#define HT_HOST_CTF_LAYOUT_H

/*
 * The fixed layout of a trace's packets, for code that handles whole
 * packets without decoding them (the collector): from metadata text,
 * where the packet header's magic and stream_id and, per stream class,
 * the packet context's packet_size, content_size, events_discarded,
 * packet_seq_num, timestamp_begin and timestamp_end sit, as bit
 * positions from the packet's start. A field is located when every
 * member before it has a fixed size (as in every layout hetrace and
 * barectf write). This knows nothing of events or of data stream files.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf-reader.h"

/* Where an integer field sits in a packet. */
struct ht_ctf_field_loc {
	bool set;   /* located: the other members are valid */
	uint8_t bo; /* enum ht_ctf_byte_order */
	uint16_t size_bits;
	uint32_t bit; /* from the packet's first bit */
};

/* The packet context of one stream class. */
struct ht_ctf_packet_context_layout {
	uint64_t id;	   /* the stream class's id */
	uint64_t end_bits; /* header + context, when fixed; else 0 */
	struct ht_ctf_field_loc packet_size, content_size, discarded, seq_num;
	struct ht_ctf_field_loc ts_begin, ts_end;
};

struct ht_ctf_packet_layout {
	struct ht_ctf_field_loc magic, stream_id;
	struct ht_ctf_packet_context_layout *ctx; /* by stream class */
	size_t nr_ctx;
	uint32_t hc_bytes; /* the largest fixed header + context, bytes */
	/* the parsed metadata (its env, for instance) */
	const struct ht_ctf_trace *trace;
};

/*
 * Reads the packet layout of TSDL @text (@len bytes) into @lay: parse
 * errors name @path, layout errors @what. Every stream class must have
 * a packet_size at a fixed place, and a stream_id must tell several
 * apart. Returns 0 or a negative HT_E... code with a message in @err;
 * on success @lay is freed with ht_ctf_packet_layout_fini().
 */
int ht_ctf_packet_layout_read(struct ht_ctf_packet_layout *lay,
			      const char *path, const char *text, size_t len,
			      const char *what, char *err, size_t err_len);

/* Frees what @lay holds (it may be zeroed or already finished). */
void ht_ctf_packet_layout_fini(struct ht_ctf_packet_layout *lay);

/*
 * Checks that TSDL @text (@len bytes) parses into a readable trace,
 * errors naming @path. Returns 0 or a negative HT_E... code with a
 * message in @err.
 */
int ht_ctf_metadata_check(const char *path, const char *text, size_t len,
			  char *err, size_t err_len);

/* The value of located field @l of the packet at @buf. */
uint64_t ht_ctf_field_loc_read(const uint8_t *buf,
			       const struct ht_ctf_field_loc *l);

/* Sets located field @l of the packet at @buf to @v. */
void ht_ctf_field_loc_write(uint8_t *buf, const struct ht_ctf_field_loc *l,
			    uint64_t v);

/* Whether located field @l lies within the first @size bytes. */
static inline bool ht_ctf_field_loc_within(const struct ht_ctf_field_loc *l,
					   uint64_t size)
{
	return (uint64_t)l->bit + l->size_bits <= size * 8u;
}

#endif
