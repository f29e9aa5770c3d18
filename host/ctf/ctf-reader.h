/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CTF_READER_H
#define HT_HOST_CTF_READER_H

/*
 * The CTF reader (CTF 1.8, and CTF 2 translated into the same model): a set of
 * traces (each a directory holding a `metadata` file and data stream files,
 * found recursively under the paths given, as babeltrace2 does), read as one
 * time-ordered sequence of messages: events, packet beginnings and ends,
 * discarded events and discarded (lost) packets, stream beginnings and ends.
 *
 * Streaming: stream files are mapped and released packet by packet;
 * memory does not grow with the size of the trace.
 *
 * Lifetimes: the metadata objects (traces, stream/event classes, clock
 * classes, field types) live until ht_ctf_set_close(). A message and
 * everything it points to that is decoded data (the field arrays,
 * string values) is valid until the next call to ht_ctf_set_next() or
 * ht_ctf_set_seek_ns() on the same set.
 *
 * All structs below are read-only views for the caller. New members may
 * be added at the end of a struct in later versions; existing members
 * keep their meaning (API changes are noted in the change log at the end
 * of this header).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct ht_ctf_set;    /* opaque: the set of traces being read */
struct ht_ctf_trace;  /* below */
struct ht_ctf_stream; /* below */
struct ht_ctf_type;   /* below */
struct ht_ctf_clock;  /* below */

enum ht_ctf_byte_order {
	HT_CTF_LE = 0,
	HT_CTF_BE = 1,
};

/* ------------------------------------------------------------------ */
/* Field types (from the metadata)                                     */

enum ht_ctf_type_kind {
	HT_CTF_INT,	 /* integer */
	HT_CTF_ENUM,	 /* enumeration; .container is its integer type */
	HT_CTF_FLOAT,	 /* floating_point */
	HT_CTF_STRING,	 /* null-terminated string */
	HT_CTF_STRUCT,	 /* structure */
	HT_CTF_ARRAY,	 /* static array: .length elements */
	HT_CTF_SEQUENCE, /* dynamic array: length in the field .length_ref */
	HT_CTF_VARIANT,	 /* variant selected by the enum field .tag_ref */
};

enum ht_ctf_encoding {
	HT_CTF_ENC_NONE = 0,
	HT_CTF_ENC_UTF8,
	HT_CTF_ENC_ASCII,
	/* CTF 2 strings (API 8): the field's .v.str is their text
	 * converted to UTF-8 */
	HT_CTF_ENC_UTF16BE,
	HT_CTF_ENC_UTF16LE,
	HT_CTF_ENC_UTF32BE,
	HT_CTF_ENC_UTF32LE,
};

/* How a CTF 2 string's length is known (API 8). */
enum ht_ctf_str_len {
	HT_CTF_STR_NUL = 0, /* null-terminated (the only kind in CTF 1.8) */
	HT_CTF_STR_STATIC,  /* .length bytes (ended early by a null) */
	HT_CTF_STR_DYNAMIC, /* the bytes in the field .length_ref */
};

/* One range of an enumeration mapping; lower <= upper. */
struct ht_ctf_enum_range {
	union {
		int64_t s;  /* signed container */
		uint64_t u; /* unsigned container */
	} lower, upper;
};

/* One label of an enumeration and the ranges that map to it. */
struct ht_ctf_enum_mapping {
	const char *label;
	const struct ht_ctf_enum_range *ranges;
	size_t nr_ranges;
};

/* A member of a structure, or an option of a variant. */
struct ht_ctf_member {
	const char *name; /* as written in TSDL (babeltrace2 shows it
			   * without one leading '_') */
	const struct ht_ctf_type *type;
};

/*
 * The roles of CTF 2 integers: what the reader takes from a field (CTF
 * 1.8 says the same by member names: magic, stream_id, packet_size...).
 */
enum ht_ctf_role {
	HT_CTF_ROLE_NONE = 0,
	HT_CTF_ROLE_PACKET_MAGIC,	 /* packet-magic-number */
	HT_CTF_ROLE_STREAM_CLASS_ID,	 /* data-stream-class-id */
	HT_CTF_ROLE_STREAM_ID,		 /* data-stream-id */
	HT_CTF_ROLE_PACKET_TOTAL_LEN,	 /* packet-total-length */
	HT_CTF_ROLE_PACKET_CONTENT_LEN,	 /* packet-content-length */
	HT_CTF_ROLE_CLOCK_TS,		 /* default-clock-timestamp */
	HT_CTF_ROLE_PACKET_END_CLOCK_TS, /* packet-end-default-clock-... */
	HT_CTF_ROLE_DISCARDED_SNAPSHOT,	 /* discarded-event-record-... */
	HT_CTF_ROLE_PACKET_SEQ_NUM,	 /* packet-sequence-number */
	HT_CTF_ROLE_EVENT_CLASS_ID,	 /* event-record-class-id */
};

/* One range of selector values of a CTF 2 variant option. */
struct ht_ctf_variant_range {
	union {
		int64_t s;  /* signed selector */
		uint64_t u; /* unsigned selector */
	} lower, upper;
	size_t option; /* index in the variant's .members */
};

struct ht_ctf_type {
	enum ht_ctf_type_kind kind;
	unsigned align_bits; /* alignment in bits (1 = bit-packed) */

	/* HT_CTF_INT and the container of HT_CTF_ENUM */
	unsigned size_bits; /* 1..64 */
	bool is_signed;
	enum ht_ctf_byte_order byte_order;	 /* resolved: never "native" */
	unsigned base;				 /* 2, 8, 10 or 16 (display) */
	enum ht_ctf_encoding encoding;		 /* also for HT_CTF_STRING */
	const struct ht_ctf_clock *mapped_clock; /* map = clock.X.value */

	/* HT_CTF_FLOAT: size_bits = exp_dig + mant_dig */
	unsigned exp_dig;
	unsigned mant_dig; /* includes the implicit bit, as in TSDL */

	/* HT_CTF_ENUM */
	const struct ht_ctf_type *container; /* an HT_CTF_INT */
	const struct ht_ctf_enum_mapping *mappings;
	size_t nr_mappings;

	/* HT_CTF_STRUCT (members) and HT_CTF_VARIANT (options) */
	const struct ht_ctf_member *members;
	size_t nr_members;

	/* HT_CTF_ARRAY and HT_CTF_SEQUENCE */
	const struct ht_ctf_type *element;
	uint64_t length;	/* HT_CTF_ARRAY */
	const char *length_ref; /* HT_CTF_SEQUENCE: as written in TSDL */

	/* HT_CTF_VARIANT */
	const char *tag_ref; /* as written in TSDL */

	/* CTF 2 (API 7): what the metadata's roles make of an integer
	 * (in CTF 1.8 its name says it and this is HT_CTF_ROLE_NONE) */
	enum ht_ctf_role role;
	/* HT_CTF_VARIANT of CTF 2 (API 7): the selector values of each
	 * option (ranges of the tag integer's value); NULL in CTF 1.8,
	 * where the tag enumeration's labels name the options */
	const struct ht_ctf_variant_range *sel_ranges;
	size_t nr_sel_ranges;

	/* CTF 2 (API 8) */
	/* HT_CTF_INT (and an HT_CTF_ENUM's container): a variable-length
	 * integer (unsigned or signed LEB128, at most 10 bytes and 64
	 * bits); .size_bits is 64 */
	bool varint;
	/* HT_CTF_INT: a fixed-length boolean, printed as true (any value
	 * but 0) or false */
	bool is_bool;
	/* HT_CTF_VARIANT: an optional, whose one member (.members[0]) is
	 * there or not: its field has one child or none. The selector
	 * .tag_ref is a boolean (any value but 0 selects) when
	 * .sel_ranges is NULL, else an integer in .sel_ranges */
	bool optional;
	/* HT_CTF_STRING encoded in UTF-16 or UTF-32: how its length is
	 * known (.length, .length_ref); UTF-8 ones of a static or dynamic
	 * length are arrays and sequences of UTF-8 bytes */
	enum ht_ctf_str_len str_len;
};

/*
 * The labels of enumeration type @type whose ranges contain @value
 * (the raw integer: an int64_t stored in a uint64_t for a signed
 * container). Stores at most @max label pointers in @labels, in
 * metadata order, and returns how many labels match (which may exceed
 * @max). Returns 0 when no label matches.
 */
size_t ht_ctf_enum_labels(const struct ht_ctf_type *type, uint64_t value,
			  const char **labels, size_t max);

/* ------------------------------------------------------------------ */
/* Decoded fields                                                      */

/*
 * A decoded scope is a flat array of fields in pre-order: a compound
 * field (struct, array, sequence, variant) is followed by its
 * children, each child by its own children. Walk it with:
 *
 *	const struct ht_ctf_field *c = ht_ctf_field_first_child(f);
 *	for (i = 0; i < f->nr_children; i++, c = ht_ctf_field_next(c))
 *		...
 *
 * A variant has exactly one child: the selected option (its .name is
 * the option's name); an optional (.type->optional) has its field or
 * none. A string has no children; .v.str points to its
 * bytes (null-terminated, .nr_children is its length in bytes without
 * the terminator).
 */
struct ht_ctf_field {
	const struct ht_ctf_type *type;
	const char *name;     /* member/option name; NULL for elements */
	uint32_t next;	      /* distance to the next sibling (>= 1) */
	uint32_t nr_children; /* see above */
	union {
		uint64_t u;	 /* HT_CTF_INT/ENUM unsigned */
		int64_t s;	 /* HT_CTF_INT/ENUM signed (sign-extended) */
		double d;	 /* HT_CTF_FLOAT (32-bit floats widened) */
		const char *str; /* HT_CTF_STRING */
	} v;
};

static inline const struct ht_ctf_field *
ht_ctf_field_first_child(const struct ht_ctf_field *f)
{
	return f + 1;
}

static inline const struct ht_ctf_field *
ht_ctf_field_next(const struct ht_ctf_field *f)
{
	return f + f->next;
}

/* The member named @name of struct field @f, or NULL. */
const struct ht_ctf_field *ht_ctf_field_member(const struct ht_ctf_field *f,
					       const char *name);

/* The scopes of a packet or an event, in decoding order. */
enum ht_ctf_scope {
	HT_CTF_SCOPE_PACKET_HEADER = 0,
	HT_CTF_SCOPE_PACKET_CONTEXT,
	HT_CTF_SCOPE_EVENT_HEADER,
	HT_CTF_SCOPE_EVENT_COMMON_CONTEXT,   /* stream { event.context } */
	HT_CTF_SCOPE_EVENT_SPECIFIC_CONTEXT, /* event { context } */
	HT_CTF_SCOPE_EVENT_PAYLOAD,	     /* event { fields } */
	HT_CTF_NR_SCOPES,
};

/* ------------------------------------------------------------------ */
/* Metadata objects                                                    */

struct ht_ctf_clock {
	const char *name;
	const char *description; /* NULL when not given */
	uint64_t freq_hz;	 /* default 1000000000 */
	uint64_t precision;	 /* cycles; default 0 */
	int64_t offset_s;	 /* default 0 */
	int64_t offset_cycles;	 /* TSDL `offset`; default 0 */
	bool absolute;		 /* default false */
	bool has_uuid;
	uint8_t uuid[16];
};

/*
 * Converts a value of clock @clk (in cycles) to nanoseconds from the
 * clock's origin, taking offset_s and offset into account, the way
 * babeltrace2 does. Returns 0 or HT_ERANGE on overflow.
 */
int ht_ctf_clock_cycles_to_ns(const struct ht_ctf_clock *clk, uint64_t cycles,
			      int64_t *ns_from_origin);

struct ht_ctf_env_entry {
	const char *name;
	bool is_string;
	const char *str; /* is_string */
	int64_t i;	 /* !is_string */
};

struct ht_ctf_event_class {
	const char *name;
	uint64_t id;
	bool has_loglevel;
	int64_t loglevel;
	const char *emf_uri; /* NULL when absent */
	const struct ht_ctf_stream_class *stream_class;
	const struct ht_ctf_type *context; /* NULL when absent */
	const struct ht_ctf_type *payload; /* NULL when absent */
};

/*
 * An event class name without its LTTng-UST provider prefix
 * ("hetrace:msg_send" -> "msg_send"; a name without ':' is returned as
 * it is), so that the events hetrace's analyses know match from both
 * kinds of traces.
 */
static inline const char *ht_ctf_event_short_name(const char *name)
{
	const char *colon = strrchr(name, ':');

	return colon ? colon + 1 : name;
}

struct ht_ctf_stream_class {
	uint64_t id;
	const struct ht_ctf_trace *trace;
	const struct ht_ctf_type *packet_context; /* NULL when absent */
	const struct ht_ctf_type *event_header;	  /* NULL when absent */
	const struct ht_ctf_type *event_context;  /* NULL when absent */
	/* the default clock: the clock of the event header's timestamp,
	 * else of the packet context's timestamp_begin; NULL when none */
	const struct ht_ctf_clock *default_clock;
	const struct ht_ctf_event_class *const *event_classes;
	size_t nr_event_classes;
};

struct ht_ctf_trace {
	const char *path; /* the directory holding `metadata` */
	const char *name; /* babeltrace2's name: env trace_name, or the
			   * path relative to the common prefix */
	enum ht_ctf_byte_order byte_order;
	unsigned major, minor;
	bool has_uuid;
	uint8_t uuid[16];
	const struct ht_ctf_type *packet_header; /* NULL when absent */
	const struct ht_ctf_env_entry *env;
	size_t nr_env;
	const struct ht_ctf_clock *const *clocks;
	size_t nr_clocks;
	const struct ht_ctf_stream_class *const *stream_classes;
	size_t nr_stream_classes;
	const struct ht_ctf_stream *const *streams; /* data stream files */
	size_t nr_streams;
};

/*
 * Reads the metadata file @path (plain text or packetized, as LTTng
 * writes it) into a malloc'ed, null-terminated text. Returns 0 or a
 * negative HT_E... code with a message in @err.
 */
int ht_ctf_metadata_read(const char *path, char **text, size_t *len, char *err,
			 size_t err_len);

/* The env entry named @name of @trace, or NULL. */
const struct ht_ctf_env_entry *
ht_ctf_trace_env(const struct ht_ctf_trace *trace, const char *name);

/* One data stream file of a trace. */
struct ht_ctf_stream {
	const char *path;      /* the file */
	const char *file_name; /* its name relative to the trace directory */
	uint64_t file_size;
	const struct ht_ctf_trace *trace;
	/* known once the first packet is read (NULL before) */
	const struct ht_ctf_stream_class *stream_class;
	bool has_instance_id;
	uint64_t instance_id; /* packet header stream_instance_id */
	unsigned index;	      /* position in the set, 0-based */
};

/* ------------------------------------------------------------------ */
/* Messages                                                            */

/* What a packet says about itself, from its header and context. */
struct ht_ctf_packet {
	uint64_t offset_bytes; /* where it starts in the file */
	uint64_t size_bits;    /* packet_size (file rest when absent) */
	uint64_t content_bits; /* content_size (size_bits when absent) */
	bool has_begin, has_end;
	uint64_t begin_cycles, end_cycles; /* timestamp_begin/end */
	bool has_seq_num;
	uint64_t seq_num;
	bool has_discarded;
	uint64_t discarded_snapshot; /* events_discarded as written */
	/* the decoded packet header and context (NULL when absent) */
	const struct ht_ctf_field *header;
	const struct ht_ctf_field *context;
};

struct ht_ctf_event {
	const struct ht_ctf_event_class *cls;
	uint64_t offset_bits; /* where the record starts in the file */
	/* the root struct field of each scope, NULL when absent; the
	 * packet scopes point to the current packet's fields */
	const struct ht_ctf_field *scope[HT_CTF_NR_SCOPES];
};

enum ht_ctf_msg_kind {
	HT_CTF_MSG_STREAM_BEGIN,
	HT_CTF_MSG_PACKET_BEGIN,
	HT_CTF_MSG_EVENT,
	HT_CTF_MSG_DISCARDED_EVENTS,
	HT_CTF_MSG_DISCARDED_PACKETS,
	HT_CTF_MSG_PACKET_END,
	HT_CTF_MSG_STREAM_END,
};

/*
 * One message. Times are the stream's default clock value extended to
 * 64 bits (cycles) and converted to ns from the clock's origin.
 *
 * - PACKET_BEGIN: at the packet's timestamp_begin; PACKET_END: at its
 *   timestamp_end (when the packet context has them).
 * - EVENT: at the event's timestamp.
 * - DISCARDED_EVENTS: .count events lost, between .begin (the previous
 *   packet's end) and .end (this packet's end), as babeltrace2 reports
 *   them; comes right before the PACKET_BEGIN of the packet whose
 *   events_discarded snapshot grew.
 * - DISCARDED_PACKETS: .count packets lost (a packet_seq_num gap),
 *   between .begin (the previous packet's end) and .end (this packet's
 *   beginning); comes right before that PACKET_BEGIN. The first packet
 *   of a stream whose packet_seq_num is N > 0 comes after N packets
 *   lost (.before_first).
 */
struct ht_ctf_msg {
	enum ht_ctf_msg_kind kind;
	const struct ht_ctf_stream *stream;
	bool has_time;
	uint64_t cycles;
	int64_t ns;
	const struct ht_ctf_packet *packet; /* current packet, or NULL */
	const struct ht_ctf_event *event;   /* EVENT */
	/* DISCARDED_EVENTS / DISCARDED_PACKETS */
	uint64_t count;
	bool has_range;
	uint64_t begin_cycles, end_cycles;
	int64_t begin_ns, end_ns;
	/* EVENT read with HT_CTF_KEEP_GOING after time went backwards
	 * in its stream (ht_ctf_set_next() reported it first): how far
	 * back, in cycles, from the time the stream had reached (its
	 * latest event or packet boundary); 0 otherwise */
	uint64_t back_cycles;
	/* DISCARDED_PACKETS: packets lost before the stream's first
	 * packet, whose packet_seq_num is past 0 (.count of them; no
	 * range, .ns the first packet's beginning when known).
	 * babeltrace2 does not report these. */
	bool before_first;
};

/* ------------------------------------------------------------------ */
/* The trace set                                                       */

enum ht_ctf_open_flags {
	/* On a damaged packet, report it (ht_ctf_set_next() returns an
	 * error once) then skip to the next packet of the stream instead
	 * of ending the stream. The next packet is at the damaged one's
	 * packet_size when that is usable; else (a bad magic, a
	 * packet_size past the end of the file) at the previous packet's
	 * size if a packet magic is there, else at the next packet magic
	 * found at any byte offset; without one the stream ends. */
	HT_CTF_KEEP_GOING = 1u << 0,
	/* Deliver only EVENT messages and the DISCARDED_* ones; no stream
	 * or packet boundaries. */
	HT_CTF_EVENTS_ONLY = 1u << 1,
};

/* What to read of a set (API 6): ht_ctf_set_select_cores() and
 * ht_ctf_set_set_range() done by ht_ctf_set_open(). */
struct ht_ctf_select {
	const char *const *cores; /* core names or ids; NULL: all */
	size_t nr_cores;
	int64_t begin_ns, end_ns; /* INT64_MIN, INT64_MAX: open sides */
	/* EVENT messages only of the event classes whose name, or name
	 * after its last ':', matches one of these fnmatch(3) patterns;
	 * NULL: all */
	const char *const *events;
	size_t nr_events;
};

struct ht_ctf_open_opts {
	unsigned flags; /* enum ht_ctf_open_flags */
	/* Called for each warning (e.g. an unsupported TSDL construct
	 * skipped); may be NULL. */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	/* added to the offset of every clock, as babeltrace2's
	 * --clock-offset and --clock-offset-ns do (API 6) */
	int64_t clock_offset_s;
	int64_t clock_offset_ns;
	/* what to read (API 6); NULL: everything */
	const struct ht_ctf_select *select;
};

/*
 * Opens every CTF trace found under @paths (each a trace directory, a
 * directory searched recursively for `metadata` files, or a metadata
 * file). @opts may be NULL. On failure returns a negative HT_E... code
 * and writes a message naming the file and the position (byte offset,
 * or metadata line:column) into @err (when @err_len > 0).
 */
int ht_ctf_set_open(struct ht_ctf_set **set, const char *const *paths,
		    size_t nr_paths, const struct ht_ctf_open_opts *opts,
		    char *err, size_t err_len);

/* Releases the set and everything it owns. NULL is allowed. */
void ht_ctf_set_close(struct ht_ctf_set *set);

/* The traces of the set, in babeltrace2's order (sorted by path). */
size_t ht_ctf_set_nr_traces(const struct ht_ctf_set *set);
const struct ht_ctf_trace *ht_ctf_set_trace(const struct ht_ctf_set *set,
					    size_t i);

/*
 * Whether the events of the set can be merged in time order: their
 * streams' default clocks must be comparable, the way babeltrace2's
 * muxer requires it. They are when they are all one clock, or all
 * have an origin at the Unix epoch (TSDL `absolute = true`), or all
 * have the same UUID and no origin at the Unix epoch; streams with a
 * clock and streams without one cannot be merged. (babeltrace2 2.0
 * also merges clocks that have no UUID and no Unix epoch origin;
 * later versions do not, nor does this.) Returns 0, or HT_EINVAL with
 * a message in @err naming two traces and their clocks that cannot be
 * compared (the cores of a capture, each on its own clock, before
 * `hetrace sync`).
 */
int ht_ctf_set_check_clocks(const struct ht_ctf_set *set, char *err,
			    size_t err_len);

/*
 * Fills @msg with the next message in time order (ties: stream order,
 * then message order within a stream). Returns 0, HT_EEOF at the end,
 * or a negative HT_E... code for damaged input: ht_ctf_set_last_error()
 * then says what and where ("file=... offset=...: ..."). After an
 * error the caller may call again: the damaged stream is ended (or,
 * with HT_CTF_KEEP_GOING, continues at its next packet) and the other
 * streams go on.
 */
int ht_ctf_set_next(struct ht_ctf_set *set, struct ht_ctf_msg *msg);

/* The message of the last error of ht_ctf_set_next()/seek. */
const char *ht_ctf_set_last_error(const struct ht_ctf_set *set);

/*
 * Positions the set so that the next EVENT message is the first one at
 * or after @ns (ns from origin). Other messages at or after @ns (packet
 * boundaries, discarded events) may come before it: from there on, the
 * messages are the ones a reading from the start would deliver, in the
 * same order. Returns 0 or a negative HT_E... code.
 */
int ht_ctf_set_seek_ns(struct ht_ctf_set *set, int64_t ns);

/* ------------------------------------------------------------------ */
/* Range and core selection (API 6)                                    */

/* The core a data stream records. */
struct ht_ctf_core {
	const char *name; /* never NULL */
	const char *role; /* env core_<id>_role or core_role, or NULL */
	bool has_id;
	uint64_t id;
};

/*
 * The core of stream @s whose packet context is @packet_context (may
 * be NULL), as docs/events.md says a tool finds it: the packet
 * context's core_id named by env core_<id>_name (role core_<id>_role),
 * else env core_name (role core_role, id env core_id or the packet's
 * core_id), else "TRACE/core<ID>" or "TRACE/FILE" written into @buf
 * (@len bytes). The names point into the trace's env or @buf.
 */
void ht_ctf_stream_core(const struct ht_ctf_stream *s,
			const struct ht_ctf_field *packet_context, char *buf,
			size_t len, struct ht_ctf_core *core);

/*
 * Reads only the streams of the cores named in @names (@nr of them,
 * each a core name or a core id in decimal; ht_ctf_stream_core()
 * names them from each stream's first packet; a stream whose core the
 * env does not name is named by its file name too). The others are not
 * read: ht_ctf_set_next() gives none of their messages and
 * ht_ctf_stream_scan() ends them at once. A name that no stream has
 * is an error: HT_ENOENT with "no core 'X' in the trace (cores: ...)"
 * in @err. Call before reading. Returns 0 or a negative HT_E... code.
 */
int ht_ctf_set_select_cores(struct ht_ctf_set *set, const char *const *names,
			    size_t nr, char *err, size_t err_len);

/* Whether stream @s is read (not left out by ht_ctf_set_select_cores()). */
bool ht_ctf_set_stream_selected(const struct ht_ctf_set *set,
				const struct ht_ctf_stream *s);

/*
 * The earliest time of the selected streams, in ns from the origin:
 * their first packets' timestamp_begin (or first event when a packet
 * has none). Reads packet headers only; call before reading. Returns
 * 0, or HT_EEOF when no stream has a time.
 */
int ht_ctf_set_first_ns(struct ht_ctf_set *set, int64_t *ns);

/*
 * Reads only [@begin_ns, @end_ns] (ns from the origin, both included;
 * INT64_MIN / INT64_MAX for an open side), as babeltrace2's trimmer
 * cuts: the set seeks @begin_ns (ht_ctf_set_seek_ns()) and
 * ht_ctf_set_next() ends (HT_EEOF) at the first message past
 * @end_ns. ht_ctf_stream_scan() reports the records of the range only
 * (its .packet callback the packets that overlap it). Call before
 * reading. Returns 0 or HT_EINVAL when @begin_ns > @end_ns.
 */
int ht_ctf_set_set_range(struct ht_ctf_set *set, int64_t begin_ns,
			 int64_t end_ns);

/* ------------------------------------------------------------------ */
/* Per-stream scan (API 2)                                             */

/*
 * What ht_ctf_stream_scan() reports. Either callback may be NULL; one
 * that returns non-zero stops the scan, which returns that value (a
 * later call goes on after the packet or record reported).
 */
/* A record of ht_ctf_scan_ops.records_at. */
struct ht_ctf_scan_rec {
	const struct ht_ctf_event_class *cls;
	uint64_t cycles; /* as ht_ctf_scan_ops.record's */
	/* bits from the stream file's start: where the record starts
	 * (before its header's alignment) and where it ends */
	uint64_t start_bits, end_bits;
};

/* The most records of one ht_ctf_scan_ops.records_at call. */
#define HT_CTF_SCAN_BATCH 64

struct ht_ctf_scan_ops {
	/*
	 * A packet, once its header and context are read, before its
	 * records. @discarded: the events lost before it (its
	 * events_discarded snapshot grew); @lost: the packets lost before
	 * it (a packet_seq_num gap); as DISCARDED_EVENTS and
	 * DISCARDED_PACKETS messages count them, 0 when none. @pkt and
	 * the fields it points to are valid during the call.
	 */
	int (*packet)(void *arg, const struct ht_ctf_stream *stream,
		      const struct ht_ctf_packet *pkt, uint64_t discarded,
		      uint64_t lost);
	/*
	 * An event record: its class and its time, the stream's default
	 * clock extended to 64 bits, in cycles (the .cycles of its EVENT
	 * message; meaningless when the stream class has no default
	 * clock).
	 */
	int (*record)(void *arg, const struct ht_ctf_event_class *cls,
		      uint64_t cycles);
	/*
	 * Instead of .record (when not NULL): the records in batches,
	 * each of one packet, in order: @cls[i] and @cycles[i] for i <
	 * @n (valid during the call). Cheaper per record than .record.
	 */
	int (*records)(void *arg, const struct ht_ctf_event_class *const *cls,
		       const uint64_t *cycles, size_t n);
	/*
	 * Instead of .record and .records (when not NULL): the records in
	 * batches of at most HT_CTF_SCAN_BATCH, each of one packet, in
	 * order, with where each lies in the stream's file: @rec[i] for
	 * i < @n (valid during the call). For copying records as bytes
	 * (ht_ctf_stream_raw_bytes()) with no call per record.
	 */
	int (*records_at)(void *arg, const struct ht_ctf_scan_rec *rec,
			  size_t n);
	/*
	 * Instead of .record and .records (when not NULL): no record is
	 * reported, they are counted. Called once each time the scan
	 * returns (at the stream's end, before damage is reported, after
	 * a callback stopped it), with the totals since the stream's
	 * start: @counts[i] records of class
	 * stream->stream_class->event_classes[i] (@nr entries, 0 until
	 * the first packet's records are reached), @n
	 * records in all, the time of the first and of the last one (in
	 * cycles, as .record's; meaningless when @n is 0). The cheapest
	 * way to count a stream's records by class.
	 */
	int (*tally)(void *arg, const struct ht_ctf_stream *stream,
		     const uint64_t *counts, size_t nr, uint64_t n,
		     uint64_t first_cycles, uint64_t last_cycles);
	void *arg;
	/* decode every field of the packet headers and contexts into
	 * pkt->header and pkt->context; else those are NULL and only the
	 * fields the reader needs are read (faster) */
	bool packet_fields;
};

/*
 * Reads data stream @stream of @set from its start to its end, in file
 * order, without the time-ordered merge and without decoding fields:
 * for each packet ops->packet, for each event record ops->record (or
 * ops->records, in batches).
 * Payloads and contexts are skipped by their size when their layout is
 * fixed and walked (sequence lengths, string terminators, variant tags)
 * when it is not. Damaged input is found as ht_ctf_set_next() finds it,
 * with the same message: returns a negative HT_E... code and
 * ht_ctf_set_last_error() says what and where; everything before the damage
 * was reported. Calling again goes on: with HT_CTF_KEEP_GOING at the
 * stream's next packet, else the stream is ended. Returns 0 once the
 * stream is read (and on every later call).
 *
 * A stream is either scanned or read with ht_ctf_set_next(), not both
 * (ht_ctf_set_seek_ns() rewinds every stream for ht_ctf_set_next()).
 * @stream->stream_class is set once the first packet is read.
 */
int ht_ctf_stream_scan(struct ht_ctf_set *set,
		       const struct ht_ctf_stream *stream,
		       const struct ht_ctf_scan_ops *ops);

/*
 * @cycles of @stream's default clock in ns from the clock's origin,
 * exactly as the .ns of its messages (0 when the stream has no default
 * clock or its class is not known yet).
 */
int64_t ht_ctf_stream_cycles_to_ns(const struct ht_ctf_stream *stream,
				   uint64_t cycles);

/*
 * Change log:
 * - 1: first version.
 * - 1 (same API): equal times are ordered as babeltrace2 2.0's muxer
 *   orders them; after a seek, packet and discarded-data messages at or
 *   after the time are delivered too (ht_ctf_set_seek_ns()).
 * - 1 (same API): HT_CTF_KEEP_GOING also skips packets whose size is
 *   unknown (found again by their magic); a stream file keeps at most
 *   about 4 MiB mapped besides its current packet, none at its end.
 * - 2: ht_ctf_stream_scan() and struct ht_ctf_scan_ops (a stream's
 *   packets and records in file order, classes and times only: what
 *   `hetrace info` needs), ht_ctf_stream_cycles_to_ns().
 * - 3: struct ht_ctf_scan_ops .tally (records counted by class, not
 *   reported one by one).
 * - 4: ht_ctf_event_short_name().
 * - 5: time going backwards in a stream is an error of
 *   ht_ctf_set_next() and ht_ctf_stream_scan() (with
 *   HT_CTF_KEEP_GOING reported once, then the stream goes on; an
 *   EVENT after it carries struct ht_ctf_msg .back_cycles);
 *   ht_ctf_set_check_clocks(); packets lost before a stream's first
 *   packet (its packet_seq_num past 0) are reported
 *   (DISCARDED_PACKETS .before_first, ht_ctf_scan_ops.packet @lost).
 * - 6: ht_ctf_set_set_range(), ht_ctf_set_select_cores(),
 *   ht_ctf_set_stream_selected(), ht_ctf_set_first_ns(),
 *   ht_ctf_stream_core(), struct ht_ctf_open_opts .clock_offset_s,
 *   .clock_offset_ns and .select (struct ht_ctf_select); ht_ctf_set_seek_ns()
 * bisects the packets of a stream whose packets are all of one size (64-bit
 * timestamps).
 * - 7: CTF 2 traces (JSON metadata) are read: struct ht_ctf_type .role,
 *   .sel_ranges and .nr_sel_ranges, enum ht_ctf_role, struct
 *   ht_ctf_variant_range.
 * - 8: CTF 2 variable-length integers (struct ht_ctf_type .varint),
 *   optionals (.optional: a variant of one child or none), UTF-16 and
 *   UTF-32 strings (HT_CTF_ENC_UTF16BE... and .str_len, enum
 *   ht_ctf_str_len; their fields hold UTF-8).
 * - 9: struct ht_ctf_scan_ops .records_at (records in batches with
 *   their positions, struct ht_ctf_scan_rec, HT_CTF_SCAN_BATCH).
 */
#define HT_CTF_READER_API 9

/* ------------------------------------------------------------------ */
/* Raw records (ctf-raw.c)                                             */

/*
 * Where the scan of @stream stands (bits from the file start): during
 * ht_ctf_scan_ops.record, the end of the record reported (the next
 * record starts there, before its header's alignment); during
 * ht_ctf_scan_ops.packet, the start of the packet's first record.
 */
uint64_t ht_ctf_stream_raw_pos(const struct ht_ctf_stream *stream);

/*
 * The bytes of @stream's file (*@size of them, and at least 8 readable
 * bytes after them), valid while its set is open: a record reported
 * by ht_ctf_stream_scan() lies between the positions above.
 */
const uint8_t *ht_ctf_stream_raw_bytes(const struct ht_ctf_stream *stream,
				       uint64_t *size);

#endif
