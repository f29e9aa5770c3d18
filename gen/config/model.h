/* SPDX-License-Identifier: MIT */
#ifndef HT_GEN_MODEL_H
#define HT_GEN_MODEL_H

/*
 * The configuration model: a barectf 3 configuration after loading,
 * with every `$include` merged, every field type alias expanded, every
 * `$inherit` applied and every log level alias replaced by its value.
 * The loader (config-load.c) builds it and checks it; the emitters
 * (emit-tsdl.c, emit-c.c) read it and never fail on a checked model.
 *
 * All memory hangs off struct ht_config and is released by
 * ht_config_destroy().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/yaml-doc.h"

enum ht_byte_order {
	HT_BO_NATIVE = 0, /* the trace type's native byte order */
	HT_BO_LE,
	HT_BO_BE,
};

enum ht_ft_kind {
	HT_FT_UINT,
	HT_FT_SINT,
	HT_FT_UENUM,
	HT_FT_SENUM,
	HT_FT_REAL,
	HT_FT_STRING,
	HT_FT_STATIC_ARRAY,
	HT_FT_DYNAMIC_ARRAY,
	HT_FT_STRUCT,
};

/* One mapping range of an enumeration; lower <= upper. */
struct ht_enum_range {
	/* Signed enumerations use .s, unsigned ones .u. */
	union {
		int64_t s;
		uint64_t u;
	} lower, upper;
};

struct ht_enum_mapping {
	char *label;
	struct ht_enum_range *ranges;
	size_t nr_ranges;
	struct ht_src_loc loc;
};

struct ht_ft;

struct ht_struct_member {
	char *name;
	struct ht_ft *ft;
	struct ht_src_loc loc;
};

struct ht_ft {
	enum ht_ft_kind kind;
	struct ht_src_loc loc;

	/*
	 * Alignment in bits (a power of two). For integers, enumerations
	 * and reals: the `alignment` property or its default (8 when the
	 * size is a multiple of 8, else 1). For structures: the
	 * `minimum-alignment` property (default 1); the effective
	 * alignment of a structure is the largest of this and its
	 * members' alignments (ht_ft_align()).
	 */
	unsigned align_bits;

	/* Integers, enumerations (size 1..64) and reals (32 or 64). */
	unsigned size_bits;
	enum ht_byte_order byte_order; /* hetrace extension; default native */
	unsigned display_base;	       /* 2, 8, 10 or 16 */

	/* Enumerations. */
	struct ht_enum_mapping *mappings;
	size_t nr_mappings;

	/* Static and dynamic arrays. */
	struct ht_ft *elem;
	uint64_t length; /* static arrays only */

	/* Structures. */
	struct ht_struct_member *members;
	size_t nr_members;
};

/* Clock type. */
struct ht_clock_type {
	char *name;
	struct ht_src_loc loc;
	uint64_t freq_hz;	   /* default 1000000000 */
	uint64_t precision;	   /* default 0 */
	int64_t offset_seconds;	   /* default 0 */
	uint64_t offset_cycles;	   /* default 0 */
	bool origin_is_unix_epoch; /* default false, as barectf 3.1 */
	bool has_uuid;
	uint8_t uuid[16];
	char *description; /* NULL if none */
	char *c_type;	   /* `$c-type`, default "uint32_t" */
};

/*
 * A feature field type: the config said `false` (absent), `true` or
 * nothing (the default type), or gave a field type.
 */
struct ht_feature {
	bool enabled;
	struct ht_ft *ft; /* NULL: the default type */
	struct ht_src_loc loc;
};

struct ht_event_type {
	char *name;
	struct ht_src_loc loc;
	uint64_t id; /* index in name order (barectf) */
	bool has_log_level;
	int64_t log_level;
	struct ht_ft *spec_ctx; /* structure or NULL */
	struct ht_ft *payload;	/* structure or NULL */
};

struct ht_stream_type {
	char *name;
	struct ht_src_loc loc;
	uint64_t id; /* index in name order (barectf) */
	bool is_default;
	struct ht_clock_type *default_clock; /* NULL if none */

	/* Packet features. */
	struct ht_feature pkt_total_size;
	struct ht_feature pkt_content_size;
	struct ht_feature pkt_ts_begin;
	struct ht_feature pkt_ts_end;
	struct ht_feature pkt_discarded;
	struct ht_feature pkt_seq_num;

	/* Event record features. */
	struct ht_feature ev_type_id;
	struct ht_feature ev_timestamp;

	/*
	 * Layout of the event record header: the compact hetrace header
	 * unless the config gave an event record feature field type or
	 * asked for barectf's layout.
	 */
	bool compact_header;

	/* `packet-context-field-type-extra-members`: a structure or NULL. */
	struct ht_ft *pkt_ctx_extra;
	/* `event-record-common-context-field-type`: a structure or NULL. */
	struct ht_ft *ev_common_ctx;

	struct ht_event_type *events; /* sorted by name: events[i].id == i */
	size_t nr_events;
};

struct ht_env_entry {
	char *key;
	bool is_int;
	int64_t i;
	char *s;
};

struct ht_config {
	/* Every file read, in order; [0] is the main configuration. */
	char **files;
	size_t nr_files;

	/* `options: code-generation:` */
	char *prefix_ident;	      /* default "barectf_" */
	char *prefix_file;	      /* default "barectf" */
	bool header_ident_prefix_def; /* default false */
	bool header_default_dst_def;  /* default false */

	/* Trace type. */
	enum ht_byte_order native_bo; /* HT_BO_LE or HT_BO_BE */
	bool has_uuid;
	uint8_t uuid[16];
	struct ht_feature magic;
	struct ht_feature uuid_field;
	struct ht_feature stream_id_field;

	struct ht_clock_type *clocks; /* sorted by name */
	size_t nr_clocks;

	struct ht_stream_type *streams; /* sorted by name: streams[i].id == i */
	size_t nr_streams;

	/*
	 * `options: hetrace: core-id: false` or `hetrace gen --no-core-id`:
	 * no core_id member in the packet context (a barectf drop-in then
	 * prints exactly as barectf's output does).
	 */
	bool no_core_id;

	struct ht_env_entry *env; /* `trace: environment:` */
	size_t nr_env;
};

/* The effective alignment of a field type, in bits. */
unsigned ht_ft_align(const struct ht_ft *ft);

/* The default stream type, or NULL when there is none. */
const struct ht_stream_type *
ht_config_default_stream(const struct ht_config *cfg);

void ht_config_destroy(struct ht_config *cfg);

#endif
