/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CTF_INTERNAL_H
#define HT_HOST_CTF_INTERNAL_H

/*
 * Internals of the CTF reader shared by its files: the arena that owns
 * a trace's metadata, the metadata model after parsing, and the decode
 * plans (flat op arrays) compiled from it.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ctf-reader.h"

/* ---- arena: every metadata object of a trace, freed at once ---- */
struct ht__arena_chunk;
struct ht__arena {
	struct ht__arena_chunk *head;
};

void *ht__arena_alloc(struct ht__arena *a, size_t size);
char *ht__arena_strdup(struct ht__arena *a, const char *s);
char *ht__arena_strndup(struct ht__arena *a, const char *s, size_t n);
void ht__arena_fini(struct ht__arena *a);

/* ---- decode plans ---- */
enum ht__op_kind {
	HT__OP_INT,
	HT__OP_FLOAT,
	HT__OP_STRING,
	HT__OP_STRUCT,
	HT__OP_ARRAY,
	HT__OP_SEQ,
	HT__OP_VARIANT,
};

/* What a field means to the decoder (babeltrace2's special fields). */
enum ht__meaning {
	HT__M_NONE = 0,
	HT__M_MAGIC,
	HT__M_UUID,
	HT__M_STREAM_ID,
	HT__M_STREAM_INSTANCE_ID,
	HT__M_PACKET_SIZE,
	HT__M_CONTENT_SIZE,
	HT__M_TS_BEGIN,
	HT__M_TS_END,
	HT__M_DISCARDED,
	HT__M_SEQ_NUM,
	HT__M_EVENT_ID,
	HT__M_COUNT,
};

/* Fast integer paths: byte-aligned, host byte order, whole bytes. */
enum ht__fast {
	HT__FAST_NONE = 0,
	HT__FAST_U8,
	HT__FAST_U16,
	HT__FAST_U32,
	HT__FAST_U64,
};

/*
 * How one leaf (integer or float) of a fixed run is loaded: whole bytes
 * in the host's order are one load; anything else goes through shifts.
 */
enum ht__load {
	HT__LOAD_LE,  /* integer: one 8-byte load, shift, mask */
	HT__LOAD_BE,  /* the same, byte-swapped */
	HT__LOAD_F32, /* byte-aligned floats in the host's order */
	HT__LOAD_F64,
	HT__LOAD_SLOW,	/* a wide integer that may span 9 bytes */
	HT__LOAD_FSLOW, /* other floats */
};

struct ht__op;

struct ht__leaf {
	uint32_t off_bits; /* from the run's aligned start */
	uint32_t field;	   /* its field's index in the run's template */
	uint8_t load;	   /* enum ht__load */
	uint8_t size_bits;
	uint8_t bo;	 /* enum ht_ctf_byte_order */
	uint8_t side;	 /* it saves a register, a meaning or a clock */
	uint8_t meaning; /* enum ht__meaning */
	uint8_t clock;	 /* updates the stream's default clock */
	int32_t reg;	 /* saves its value in this register, or -1 */
	uint64_t mask;	 /* HT__LOAD_LE: the value's bits */
	uint64_t sign;	 /* sign-extension mask (1 << (size - 1)), or 0 */
};

/*
 * A run: consecutive members of a structure (or one element of an array
 * or a sequence, or a whole scope) whose layout is fixed once the run's
 * start is aligned to .align_bits: every field is at a constant offset
 * from there. One bounds check and one capacity check cover the run;
 * its fields are a copy of .tmpl with the values filled in. A run with
 * no template is one member decoded by the general interpreter.
 */
struct ht__run {
	uint32_t member_op; /* first member: op index from the parent op */
	uint32_t nr_members;
	uint32_t align_bits;
	uint32_t size_bits;
	uint32_t nr_fields;
	uint32_t nr_leaves;
	const struct ht_ctf_field *tmpl; /* NULL: general member */
	const struct ht__leaf *leaves;
	/* the first .nr_plain leaves are integers (or host-order doubles)
	 * with no side effect, loaded as HT__LOAD_LE or HT__LOAD_BE */
	uint32_t nr_plain;
	/* in a flat scope (struct ht__plan): where this run's fields (or
	 * its string member's field) start in the scope's fields */
	uint32_t keep_off;
	/* some leaf saves a register, a meaning or a clock (the scan
	 * loads those, skips the others): the .nr_side leaves after the
	 * plain ones */
	bool side;
	uint32_t nr_side;
};

struct ht__variant_sel {
	int64_t lo, hi;	 /* tag value range (compared as the tag's sign) */
	uint32_t option; /* index of the option */
};

struct ht__op {
	uint8_t kind; /* enum ht__op_kind */
	uint8_t fast; /* enum ht__fast */
	uint8_t is_signed;
	uint8_t bo;	 /* enum ht_ctf_byte_order */
	uint8_t meaning; /* enum ht__meaning */
	uint8_t clock;	 /* updates the stream's default clock */
	uint8_t side;	 /* INT: has a register, a meaning or a clock */
	uint8_t fixed;	 /* the subtree's layout and shape are constant */
	uint16_t size_bits;
	uint32_t align_bits;
	int32_t reg;	 /* saves its value in this register, or -1 */
	int32_t src_reg; /* SEQ: length register; VARIANT: tag register */
	uint32_t span;	 /* ops in this subtree, itself included */
	uint32_t nr;	 /* STRUCT: members; ARRAY: length; VARIANT: options */
	uint64_t min_bits;	       /* lower bound of the encoded size */
	uint64_t fx_bits;	       /* fixed: size from its aligned start */
	uint32_t fx_fields, fx_leaves; /* fixed: fields and leaves */
	const struct ht__run *runs;    /* STRUCT: its members as runs */
	uint32_t nr_runs;
	const struct ht__run *elem_run; /* ARRAY/SEQ: a fixed element */
	const struct ht_ctf_type *type;
	const char *name;
	const struct ht__variant_sel *sel; /* VARIANT */
	uint32_t nr_sel;
	bool tag_signed;
	const uint32_t *option_op; /* VARIANT: op index of each option */
};

struct ht__plan {
	struct ht__op *ops;
	uint32_t nr_ops;
	const struct ht__run *root_run; /* the whole scope is fixed */
	/*
	 * A flat scope: a structure whose members are fixed runs and
	 * strings. Its fields have a constant shape (.flat_tmpl, with
	 * .flat_fields fields): they are kept per stream like a fixed
	 * scope's, only the positions vary with the strings' lengths.
	 */
	const struct ht_ctf_field *flat_tmpl;
	uint32_t flat_fields;
};

/*
 * One step of the scan of an event record after its header (the event
 * contexts and the payload, ctf-scan.c): the scopes' runs in order,
 * fixed runs with nothing to save merged when their relative alignment
 * makes the padding between them constant.
 */
enum ht__skip_kind {
	HT__SKIP_FIXED,	 /* align to .align_bits, then .size_bits */
	HT__SKIP_STRING, /* a null-terminated string */
	HT__SKIP_RUN,	 /* fixed run .run: some leaves save something */
	HT__SKIP_LEN,	 /* fixed run .run of .size_bits whose one saving
			  * leaf .leaf only saves a register (a length) */
	HT__SKIP_OP,	 /* op .op of .ops, walked */
	HT__SKIP_SEQ,	 /* sequence op .op of .ops: elements of .size_bits
			  * one after the other, nothing to save */
};

struct ht__skip {
	uint32_t kind; /* enum ht__skip_kind */
	uint32_t align_bits;
	uint64_t size_bits;
	const struct ht__run *run;
	const struct ht__leaf *leaf;
	const struct ht__op *ops;
	uint32_t op;
};

/*
 * A step of the scan that takes no walking, by value: HT__SKIP_FIXED,
 * HT__SKIP_STRING, HT__SKIP_LEN (.leaf a copy) or HT__SKIP_SEQ (length
 * in register .leaf.reg, elements of .size_bits > 0).
 */
struct ht__quick_step {
	uint32_t kind;
	uint32_t align_bits;
	uint64_t size_bits;
	struct ht__leaf leaf;
};

#define HT__QUICK_STEPS 4

/* What follows a record's fixed header, for the scan's dispatch. */
enum ht__shape {
	HT__SHAPE_NONE,	  /* nothing: .head_bits is the whole record */
	HT__SHAPE_FIXED,  /* .q[0], a fixed run */
	HT__SHAPE_STRING, /* .q[0], a string */
	HT__SHAPE_QUICK,  /* .q[0 ... .nr_skip - 1] */
	HT__SHAPE_STEPS,  /* .skip[], walked */
};

/*
 * What the scan needs of an event class with a fixed event header, in
 * a table by id: the next record's position depends on it, so it is one
 * load away from the id. When the record's steps are at most
 * HT__QUICK_STEPS quick ones, they are copied in: no second load.
 */
struct ht__scan_entry {
	uint64_t head_bits;	    /* see struct ht__event_class */
	struct ht__event_class *ec; /* NULL: no class has this id */
	const struct ht__skip *skip;
	uint32_t nr_skip;
	uint32_t index; /* ec's index in its stream class */
	uint32_t shape; /* enum ht__shape */
	struct ht__quick_step q[HT__QUICK_STEPS];
};

/*
 * An event header made of a fixed run holding the event id, which is
 * also the tag of a variant whose options are each one fixed run, with
 * maybe another id and a timestamp: LTTng's compact and extended
 * headers. The option whose [lo, hi] holds the tag follows the first
 * run (aligned to .align); its id, if any, replaces the tag's.
 */
#define HT__HDR_OPTIONS 4

struct ht__hdr_option {
	int64_t lo, hi;
	uint32_t align_bits;
	uint64_t size_bits;
	bool has_id, has_ts;
	struct ht__leaf id, ts; /* copies */
	const struct ht__run *run;
	/* where .run's fields start in the header's fields: after the
	 * root, the first run's, the variant's and the option's own */
	uint32_t field_base;
};

struct ht__hdr_var {
	uint32_t nr; /* options; 0: the header is not one of these */
	uint32_t align_bits;
	uint64_t tag_bits; /* the first run's size */
	struct ht__leaf tag;
	const struct ht__run *tag_run; /* the first run (fields from 1) */
	struct ht__hdr_option opt[HT__HDR_OPTIONS];
};

/* The option of @hv whose range holds @tag, or NULL. */
static inline const struct ht__hdr_option *
ht__hdr_option(const struct ht__hdr_var *hv, uint64_t tag)
{
	const struct ht__hdr_option *o = hv->opt, *end = o + hv->nr;

	for (; o < end; o++) {
		if (tag >= (uint64_t)o->lo && tag <= (uint64_t)o->hi) {
			return o;
		}
	}
	return NULL;
}

/* ---- metadata model (private parts) ---- */
struct ht__event_class {
	struct ht_ctf_event_class pub;
	struct ht__plan context, payload;
	uint32_t index; /* in its stream class's event_classes */
	/* its scopes and the stream's event context are absent, fixed or
	 * flat: the fast path of the decoder takes the whole record */
	bool fast;
	/* the scan of its records after the event header; with a fixed
	 * event header (.hdr_fast of its stream class), .head_bits is the
	 * size of the header and of a first fixed step merged with it */
	const struct ht__skip *skip;
	uint32_t nr_skip;
	uint64_t head_bits;
};

struct ht__stream_class {
	struct ht_ctf_stream_class pub;
	struct ht__plan packet_context, event_header, event_context;
	/* event classes by id: a dense table when ids are small */
	struct ht__event_class **by_id;
	uint64_t nr_by_id;
	/*
	 * The event header, when it is fixed and its integers have no
	 * side effect but the event id and one clock update: its leaves
	 * are all loaded as plain ones, then the id is read from field
	 * .hdr_id (-1: none) and the clock updated from field .hdr_ts
	 * (-1: none) of .hdr_ts_bits bits.
	 */
	const struct ht__run *hdr_fast;
	int32_t hdr_id, hdr_ts;
	unsigned hdr_ts_bits;
	/* the same as leaf indices in .hdr_fast (-1: none) */
	int32_t hdr_id_leaf, hdr_ts_leaf;
	/*
	 * The id and the timestamp (if any) are unsigned little-endian
	 * leaves that one 8-byte load at the header's first byte holds:
	 * shifted right by the header's bit in that byte, each is
	 * (w >> shift) & mask.
	 */
	bool hdr_one_load;
	uint32_t hdr_id_shift, hdr_ts_shift;
	uint64_t hdr_id_mask, hdr_ts_mask;
	/* else the event header as LTTng's compact/extended one, when it
	 * is one (.hdr_var.nr > 0) */
	struct ht__hdr_var hdr_var;
	/* with .hdr_fast: the scan's entries by id (.nr_by_id of them) */
	struct ht__scan_entry *scan_by_id;
	bool clock_is_ns; /* default clock at 1 GHz: ns = base + cycles */
	bool base_ok;	  /* base_ns is valid */
	int64_t base_ns;  /* the default clock's offset in ns */
	double freq_d;	  /* its frequency */
};

struct ht__trace {
	struct ht_ctf_trace pub;
	struct ht__arena arena;
	struct ht__plan packet_header;
	unsigned nr_regs;
	char *metadata_path;
};

/*
 * Parses TSDL metadata @text (@len bytes) of the trace whose directory
 * is @dir into @trace (already zeroed, arena ready), compiles its
 * decode plans. Warnings go to @opts->warn. Returns 0 or a negative
 * HT_E... code with "path:line:col: message" in @err.
 */
int ht__tsdl_parse(struct ht__trace *trace, const char *path, const char *text,
		   size_t len, const struct ht_ctf_open_opts *opts, char *err,
		   size_t err_len);

/*
 * Reads the metadata file @path (plain text or packetized, as LTTng
 * writes it) into a malloc'ed, null-terminated text. Returns 0 or a
 * negative HT_E... code with a message in @err.
 */
int ht__metadata_read(const char *path, char **text, size_t *len, char *err,
		      size_t err_len);

/* ---- one data stream file being read ---- */
struct ht__fieldbuf {
	struct ht_ctf_field *f;
	uint32_t n, cap;
};

enum ht__stream_state {
	HT__S_BEGIN,  /* STREAM_BEGIN not yet delivered */
	HT__S_PACKET, /* at a packet boundary */
	HT__S_QUEUE,  /* delivering the messages queued at a packet start */
	HT__S_EVENTS, /* inside a packet */
	HT__S_END,    /* STREAM_END not yet delivered */
	HT__S_DONE,
};

/*
 * Fields of the scopes whose layout is fixed (a plan with a root run),
 * kept per stream: the template is copied once, then every record only
 * overwrites the values.
 */
enum ht__keep {
	HT__KEEP_PKT_HEADER,
	HT__KEEP_PKT_CONTEXT,
	HT__KEEP_EV_HEADER,
	HT__KEEP_EV_CONTEXT,
	HT__NR_KEEP,
};

struct ht__stream {
	struct ht_ctf_stream pub;
	struct ht__trace *trace;
	unsigned flags; /* enum ht_ctf_open_flags */
	int fd;
	const uint8_t *map; /* the file, then at least 8 readable bytes */
	size_t map_len;	    /* the whole mapping */
	uint64_t size;	    /* file size in bytes */
	uint64_t released;  /* bytes given back to the kernel so far */
	/* ht__stream_scan() with .tally: its counts by class index */
	uint64_t *tally;
	size_t nr_tally;
	uint64_t tally_n, tally_first, tally_last;
	uint64_t *regs;
	enum ht__stream_state state;
	struct ht__stream_class *sc;

	uint64_t pkt_off;     /* bytes: the current packet's start */
	uint64_t next_pkt;    /* bytes: the next packet's start */
	bool next_known;      /* next_pkt is usable after an error */
	uint64_t last_psize;  /* bytes: the last valid packet_size, or 0 */
	uint64_t pos;	      /* bits from the file start */
	uint64_t content_end; /* bits from the file start */
	uint64_t clock;	      /* the default clock, extended to 64 bits */
	uint64_t ev_start;    /* bits: the current event record's start */

	uint64_t mval[HT__M_COUNT];
	uint32_t mset; /* bit (1 << meaning) when mval[meaning] is set */

	struct ht_ctf_packet pkt;
	struct ht__fieldbuf pf; /* packet header + context */
	struct ht__fieldbuf ef; /* event scopes */
	struct ht_ctf_event ev;

	/* the previous packet, for discarded events/packets */
	bool prev_valid, prev_has_end, prev_has_seq, prev_has_disc;
	uint64_t prev_end, prev_seq, prev_disc;

	struct ht_ctf_msg q[3];
	unsigned qn, qi;

	/* kept fields: stream scopes, then per event class of s->sc its
	 * context and payload at [2 * index] and [2 * index + 1] */
	struct ht_ctf_field *keep[HT__NR_KEEP];
	/* an event header that is a .hdr_var: its fields per option, kept
	 * from the option's first record */
	struct ht_ctf_field *keep_hdr[HT__HDR_OPTIONS];
	struct ht_ctf_field **keep_ec;
	size_t nr_keep_ec;

	struct ht_ctf_msg msg;	      /* the pending message, unless EVENT */
	struct ht_ctf_msg ev_msg;     /* the pending EVENT message */
	const struct ht_ctf_msg *cur; /* &msg or &ev_msg */
	int64_t key;		      /* its time for merging */
	bool seeking;
	int64_t seek_ns;

	char *err; /* the set's error buffer */
	size_t err_len;
};

/*
 * Makes @s's next message pending in s->msg / s->key. Returns 0,
 * HT_EEOF when the stream is done, or a negative HT_E... code with a
 * message in s->err.
 */
int ht__stream_advance(struct ht__stream *s);

/* Back to the start of the stream (for seeking). */
void ht__stream_rewind(struct ht__stream *s);

/* Frees what the decoder allocated for @s (not @s itself). */
void ht__stream_fini(struct ht__stream *s);

/* Compiles the decode plans of a parsed trace; called by the parser. */
int ht__plan_compile_trace(struct ht__trace *trace, char *err, size_t err_len);

/* ---- the decoders' shared parts (ctf-decode.c, ctf-scan.c) ---- */

/*
 * Reads the header and context of the packet at s->pkt_off: sets the
 * stream class, s->pkt, s->pos (the first record) and s->content_end.
 * Without @fields only the integers the reader needs are read and
 * s->pkt.header / .context are NULL. Returns 0 or a negative HT_E...
 * code with a message in s->err.
 */
int ht__stream_read_packet(struct ht__stream *s, bool fields);

/*
 * Skips scope @p at s->pos without fields (ctf-scan.c), applying what
 * its integers save. Returns 0, or 1 when anything is wrong (nothing
 * said: the full decoder says what).
 */
int ht__scan_scope(struct ht__stream *s, const struct ht__plan *p);

/*
 * The events lost before the packet just read (its events_discarded
 * grew) and the packets lost before it (a packet_seq_num gap), as
 * babeltrace2 counts them; 0 when none. Makes the packet the previous
 * one for the next call.
 */
void ht__stream_losses(struct ht__stream *s, uint64_t *discarded,
		       uint64_t *lost);

/*
 * Decodes the event record at s->pos with every field into s->ev (the
 * general path). Returns 0 or a negative HT_E... code with a message.
 */
int ht__stream_read_event(struct ht__stream *s);

/*
 * After damage (code @ret): with HT_CTF_KEEP_GOING the stream goes on
 * at its next packet when that can be found, else it ends. Returns
 * @ret.
 */
int ht__stream_damaged(struct ht__stream *s, int ret);

/* The end of the packet at s->pkt_off: the next one comes. */
void ht__stream_end_packet(struct ht__stream *s);

/* Gives back the mapped pages well before byte @upto; all of them. */
void ht__stream_release(struct ht__stream *s, uint64_t upto);
void ht__stream_release_all(struct ht__stream *s);

/* ht_ctf_stream_scan() on @s (ctf-scan.c). */
int ht__stream_scan(struct ht__stream *s, const struct ht_ctf_scan_ops *ops);

/* @cycles of the stream's default clock in ns from its origin. */
int64_t ht__stream_to_ns(const struct ht__stream *s, uint64_t cycles);

/* bits [pos, pos + size) of the file, CTF bit order, size <= 64 */
uint64_t ht__read_bits_slow(const uint8_t *map, uint64_t pos, unsigned size,
			    int bo);

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ht__le64(x) (x)
#define ht__be64(x) __builtin_bswap64(x)
#else
#define ht__le64(x) __builtin_bswap64(x)
#define ht__be64(x) (x)
#endif

/* The same with one 8-byte load when the window fits in it (the file
 * mapping is followed by readable padding: see add_stream()). */
static inline uint64_t ht__read_bits(const uint8_t *map, uint64_t pos,
				     unsigned size, int bo)
{
	unsigned shift = pos & 7;
	uint64_t w;

	if (shift + size > 64) {
		return ht__read_bits_slow(map, pos, size, bo);
	}
	memcpy(&w, map + (pos >> 3), 8);
	if (bo == HT_CTF_LE) {
		w = ht__le64(w) >> shift;
		return size < 64 ? w & ((UINT64_C(1) << size) - 1) : w;
	}
	w = ht__be64(w) << shift;
	return w >> (64 - size);
}

/*
 * The value of leaf @l of a run at bit @pos of @map, when it is a plain
 * integer load (HT__LOAD_LE or HT__LOAD_BE): one 8-byte load, shifted,
 * masked, sign-extended.
 */
static inline uint64_t ht__leaf_value(const uint8_t *map, uint64_t pos,
				      const struct ht__leaf *l)
{
	const uint64_t p = pos + l->off_bits;
	uint64_t w, v;

	memcpy(&w, map + (p >> 3), 8);
	if (l->load == HT__LOAD_LE) {
		v = (ht__le64(w) >> (p & 7)) & l->mask;
	} else {
		v = (ht__be64(w) << (p & 7)) >> (64 - l->size_bits);
	}
	return (v ^ l->sign) - l->sign;
}

/* Clock @clock once a field of its low @size bits says @v. */
static inline uint64_t ht__clock_next(uint64_t clock, uint64_t v, unsigned size)
{
	uint64_t mask, nv;

	if (size >= 64) {
		return v;
	}
	/* CTF: a value narrower than the clock gives its low bits; when
	 * it is below the current low bits the counter wrapped once */
	mask = (UINT64_C(1) << size) - 1;
	nv = (clock & ~mask) | v;
	if (v < (clock & mask)) {
		nv += mask + 1;
	}
	return nv;
}

static inline void ht__clock_update(struct ht__stream *s, uint64_t v,
				    unsigned size)
{
	s->clock = ht__clock_next(s->clock, v, size);
}

/*
 * What an integer the reader needs does besides its field: saved in a
 * register (a sequence length, a variant tag), as a meaning (packet
 * size, content size, event id...), as the default clock's new value.
 */
static inline void ht__int_side(struct ht__stream *s, int32_t reg,
				unsigned meaning, unsigned clock, uint64_t v,
				unsigned size_bits)
{
	if (reg >= 0) {
		s->regs[reg] = v;
	}
	if (meaning) {
		s->mval[meaning] = v;
		s->mset |= 1u << meaning;
	}
	if (clock) {
		ht__clock_update(s, v, size_bits);
	}
}

/*
 * Aligns a bit position: CTF alignment is relative to the beginning of
 * the packet, which may start at any byte of the file.
 */
static inline uint64_t ht__align_in_packet(const struct ht__stream *s,
					   uint64_t pos, uint32_t align_bits)
{
	uint64_t base = s->pkt_off * 8;

	return base +
	       ((pos - base + align_bits - 1) & ~(uint64_t)(align_bits - 1));
}

/*
 * The first null byte of p[0..avail), or NULL. Most strings in traces
 * are short: the first 32 bytes are searched 8 at a time (the file
 * mapping has padding for the last load).
 */
static inline const uint8_t *ht__find_nul(const uint8_t *p, uint64_t avail)
{
	uint64_t i;

	for (i = 0; i < 32 && i < avail; i += 8) {
		uint64_t w, z;

		memcpy(&w, p + i, 8);
		w = ht__le64(w);
		z = (w - UINT64_C(0x0101010101010101)) & ~w &
		    UINT64_C(0x8080808080808080);
		if (z) {
			i += (unsigned)__builtin_ctzll(z) / 8;
			return i < avail ? p + i : NULL;
		}
	}
	if (i >= avail) {
		return NULL;
	}
	return memchr(p + i, 0, avail - i);
}

#endif
