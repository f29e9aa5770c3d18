/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_MERGE_INTERNAL_H
#define HT_HOST_MERGE_INTERNAL_H

/*
 * What the two paths of the merge share (merge.h): the merge and its
 * inputs (merge.c: set-up, env, the decoding path) and the placing of
 * an event on the output clock; the copying path is merge-copy.c.
 */
#include "host/ctf/ctf-writer.h"
#include "merge.h"

struct input {
	const struct ht_merge_core *core;
	struct ht_ctf_set *set;
	const struct ht_ctf_trace *trace;
	uint64_t *sc_out;	     /* output class of each input class */
	struct ht_ctf_wstream **out; /* by input stream index */
	size_t nr_out;
	struct ht_ctf_msg msg; /* the decoding path's current message */
	int64_t key;	       /* the mapped time of the current event */
	int64_t last_key;
	bool copy; /* every class's records can be copied as bytes */
	/* per_cpu: the CPUs met, whose env entries are written */
	uint32_t *cpus;
	size_t nr_cpus, cap_cpus;
};

/* An event mapped before the origin of a kept clock: the merge fails
 * on the earliest one (the one a time-ordered merge meets first). */
struct too_early {
	bool found;
	int64_t key;
	char msg[512];
};

struct merge {
	const struct ht_merge_opts *o;
	struct ht_ctf_writer *w;
	struct input *in;
	size_t nr_in;
	int64_t origin_ns;
	struct ht_merge_stats *st;
	struct too_early early;
	char *err;
	size_t err_len;
};

/* Returned by the per-input paths when the input stops at an event
 * placed before the kept clock's origin (m->early holds it). */
#define HT__MERGE_TOO_EARLY 1

/* The cpu_id member of a packet context: present, an integer, value. */
struct ht__merge_cpu {
	bool has, is_int;
	uint64_t value;
};

/*
 * The output stream of input stream @is of @in, made the first time;
 * @cpu is the cpu_id of the packet at hand (the CPU of a per-CPU input,
 * the output's cpu_id).
 */
int ht__merge_stream(struct merge *m, struct input *in,
		     const struct ht_ctf_stream *is,
		     const struct ht__merge_cpu *cpu,
		     struct ht_ctf_wstream **ws);

/*
 * The output time of an event of @in mapped to @key, and the
 * statistics; HT__MERGE_TOO_EARLY (m->early set) for an event before a
 * kept clock's origin. @ev_name / @path / @offset_bits name the event.
 */
int ht__merge_place(struct merge *m, struct input *in, int64_t key,
		    const char *ev_name, const char *path, uint64_t offset_bits,
		    uint64_t *ts);

/* Reference ns -> output timestamp (ns from the output clock's origin). */
uint64_t ht__merge_out_ts(struct merge *m, int64_t ns);

/*
 * Records @count events (@events) or packets lost before the packet
 * at hand in output stream @ws, at the packet's end (@end_cycles,
 * when @has_range).
 */
int ht__merge_loss(struct merge *m, struct input *in, struct ht_ctf_wstream *ws,
		   bool events, uint64_t count, bool has_range,
		   uint64_t end_cycles);

/* The mapped time of event @ev of @in, kept at or after the core's
 * previous one. */
int64_t ht__merge_key(struct input *in, const struct ht_merge_event *ev);

/* ht__merge_key() of @ev whose time maps to @ns (map() or map_many()). */
int64_t ht__merge_key_at(struct input *in, const struct ht_merge_event *ev,
			 int64_t ns);

/* The shape of an input event header (merge-header.c). */
#define HT__MERGE_HDR_OPTIONS 8

struct ht__merge_hdr_option {
	uint64_t lo, hi; /* the tag values that select it */
	unsigned align;
	uint64_t size;
};

struct ht__merge_header {
	unsigned align;	     /* the header's */
	uint64_t fixed_bits; /* the members before the variant (or all) */
	bool has_var;
	uint64_t tag_off; /* the variant's tag, from the header's start */
	unsigned tag_bits;
	bool tag_be;
	size_t nr_opt;
	struct ht__merge_hdr_option opt[HT__MERGE_HDR_OPTIONS];
	/* every record's contexts and payload begin on a multiple of
	 * this from the packet's start */
	unsigned body_align;
};

/* The shape of event header type @t, or false when it is not one the
 * copying path takes. */
bool ht__merge_header_shape(const struct ht_ctf_type *t,
			    struct ht__merge_header *h);

/*
 * Where the contexts and payload of the record at @start_bits (before
 * its header's alignment) of the packet at @packet_bits begin, in the
 * file whose bytes are @bytes; UINT64_MAX when its tag selects no
 * option.
 */
uint64_t ht__merge_header_body(const struct ht__merge_header *h,
			       const uint8_t *bytes, uint64_t packet_bits,
			       uint64_t start_bits);

/*
 * Whether the records of stream class @sc can be copied as bytes
 * (merge-copy.c): the alignment of the output's event header that
 * keeps their contexts and payload in place (8, 32 or 64), or 0.
 */
unsigned ht__merge_copy_align(const struct ht_ctf_stream_class *sc);

/* Merges the events of @in by copying their records (merge-copy.c). */
int ht__merge_copy_input(struct merge *m, struct input *in);

#endif
