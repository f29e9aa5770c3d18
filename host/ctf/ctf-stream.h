/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_CTF_STREAM_H
#define HT_HOST_CTF_STREAM_H

/*
 * One data stream file being read: its mapping, the position in it, the
 * current packet and record, the registers and meanings its integers
 * saved, the fields kept per stream; and the bit readers that load
 * integers from the mapped bytes. This layer runs the plans of the
 * model (ctf-model.h) over a file: ctf-decode.c reads packets and
 * records and delivers messages, ctf-fields.c decodes any scope into
 * fields, ctf-skip.c skips a scope without fields, ctf-scan.c scans
 * records for their class and time only. It does not know TSDL text,
 * and it does not merge streams (the trace set, ctf-set.c, does).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ctf-model.h"
#include "ctf-reader.h"

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
	HT__S_HOLD, /* the pending message comes on the next call (time
		     * went back: reported first) */
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

/*
 * The kept fields of a flat scope with sequences (struct ht__plan
 * .flat_var): as many as its sequences' lengths make, at most
 * HT__KEEP_VAR_FIELDS (a longer record goes through the general path).
 * .lens are the lengths the fields are laid out for, when .laid.
 */
#define HT__KEEP_VAR_FIELDS 1024

struct ht__keep_var {
	struct ht_ctf_field *f;
	uint32_t cap;
	bool laid;
	uint64_t *lens; /* .nr_var of the plan */
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
	/* times of a default clock at 1 GHz: below .ns_direct_end cycles,
	 * a time is .ns_base + cycles (0: see ht__stream_class_to_ns()) */
	uint64_t ns_direct_end;
	int64_t ns_base;

	uint64_t pkt_off;     /* bytes: the current packet's start */
	uint64_t next_pkt;    /* bytes: the next packet's start */
	bool next_known;      /* next_pkt is usable after an error */
	uint64_t last_psize;  /* bytes: the last valid packet_size, or 0 */
	uint64_t pos;	      /* bits from the file start */
	uint64_t content_end; /* bits from the file start */
	uint64_t clock;	      /* the default clock, extended to 64 bits */
	uint64_t ev_start;    /* bits: the current event record's start */
	/* the decoder's limits in the current packet (see
	 * HT__ELEMS_SLACK): elements of zero minimum size it may still
	 * walk, fields one decode may hold */
	uint64_t zero_left;
	uint64_t fields_max;

	/*
	 * The time the stream has reached (default clock cycles: the
	 * latest event, packet beginning or end), for time going
	 * backwards; UINT64_MAX makes the next event take the slow
	 * check (a mark to clear or to carry, or a time of UINT64_MAX),
	 * .reached_true is then the value. .back_pending: how far back
	 * a packet boundary went, carried to the packet's next event.
	 */
	uint64_t reached, reached_true, back_pending;
	bool has_reached;
	bool range_told; /* a time past the clock's range was reported */
	enum ht__stream_state hold_state; /* HT__S_HOLD: then this */
	uint64_t pkt_index;		  /* the current packet, 0-based */
	uint64_t pkts_read;

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
	/* the same for flat scopes with sequences, and the stream's event
	 * context's at [2 * nr_event_classes] */
	struct ht__keep_var *keep_var;

	struct ht_ctf_msg msg;	      /* the pending message, unless EVENT */
	struct ht_ctf_msg ev_msg;     /* the pending EVENT message */
	const struct ht_ctf_msg *cur; /* &msg or &ev_msg */
	int64_t key;		      /* its time for merging */
	/* what babeltrace2's muxer knows the stream by, for messages of
	 * equal times (ctf-set.c): its trace's name and its stream id */
	const char *mux_trace_name;
	uint64_t mux_stream_id;
	bool seeking;
	int64_t seek_ns;

	char *err; /* the set's error buffer */
	size_t err_len;
	/* the UTF-8 text of CTF 2 UTF-16/UTF-32 strings (ctf2-fields.c),
	 * NULL until one is read */
	struct ht__utext *utext;
};

/*
 * Makes @s's next message pending in s->msg / s->key. Returns 0,
 * HT_EEOF when the stream is done, or a negative HT_E... code with a
 * message in s->err.
 */
int ht__stream_advance(struct ht__stream *s);

/* Back to the start of the stream (for seeking). */
void ht__stream_rewind(struct ht__stream *s);

/*
 * Rewinds @s and, when its packets can be found by bisection (all of
 * one size, 64-bit timestamp_begin/end in order), moves it to the
 * first packet that ends at or after @ns, in the state a walk from the
 * start would leave it in. Only packet headers are read. Returns 0.
 */
int ht__stream_seek_packet(struct ht__stream *s, int64_t ns);

/* Frees what the reader allocated for @s (not @s itself). */
void ht__stream_fini(struct ht__stream *s);

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

/*
 * Time going backwards in the stream (CTF requires every stream's
 * messages in time order; babeltrace2 refuses a trace that is not):
 * fills s->err with "time goes backwards: file=... packet=N
 * offset=...: @what at T cycles (s) is before the stream's time so
 * far, T' cycles (s)", @at_bits giving the offset, @t the new time,
 * @before the stream's. Returns HT_ERANGE.
 */
int ht__stream_time_back(struct ht__stream *s, uint64_t at_bits,
			 const char *what, uint64_t t, uint64_t before);

/*
 * The stream has reached time @t: its last event read before damage
 * (the scan says it as the decoder does when it delivers the event).
 */
void ht__stream_reached(struct ht__stream *s, uint64_t t);

/*
 * The packet just read against the stream's time so far: 0, or its
 * timestamp_begin is before it (ht__stream_time_back()). Then, with
 * HT_CTF_KEEP_GOING, the stream goes on (its next event carries the
 * mark), else it ends.
 */
int ht__stream_packet_time(struct ht__stream *s);

/*
 * The end of the packet's records (s->clock the last one's time)
 * against its timestamp_end: 0, or the end is before them (reported,
 * the stream ends without HT_CTF_KEEP_GOING). The stream's time
 * becomes the end.
 */
int ht__stream_end_time(struct ht__stream *s);

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

/*
 * What the packet content limits in arrays and sequences, where their
 * length is read (never per element):
 * - an array or sequence holds at most as many elements as the packet
 *   content left can hold at their minimum size; elements that may be
 *   of zero bits (an empty structure, a variant with an empty option)
 *   count one bit each, plus HT__ELEMS_SLACK;
 * - the decoder walks at most one such element per bit of the packet
 *   content, plus HT__ELEMS_SLACK, in a packet (nesting multiplies
 *   them: `struct { } a[16384][16384]` is 2^28 elements);
 * - one decode (an event record's scopes, a packet's header and
 *   context) holds at most one field per bit of the packet content,
 *   plus HT__ELEMS_SLACK (about 256 bytes of memory per byte of
 *   packet). The header and context are decoded before the packet's
 *   size is known: for them the content is the rest of the file, at
 *   most HT__PKT_SCOPES_BITS.
 * The scan (ctf-skip.c, ctf-scan.c) stores no field: a record with
 * elements that may be of zero bits goes through the decoder, so that
 * the limits are the same.
 */
#define HT__ELEMS_SLACK (UINT64_C(1) << 16)
#define HT__PKT_SCOPES_BITS (UINT64_C(1) << 24)

/*
 * The length *@len of array or sequence op @i of @ops at bit @pos, and
 * whether it can fit in the packet content left (see above).
 */
static inline bool ht__elems_fit(const struct ht__stream *s,
				 const struct ht__op *ops, uint32_t i,
				 uint64_t pos, uint64_t *len)
{
	const struct ht__op *op = &ops[i], *el = &ops[i + 1];
	uint64_t room = s->content_end > pos ? s->content_end - pos : 0;
	uint64_t need;

	*len = op->kind == HT__OP_ARRAY ? op->nr : s->regs[op->src_reg];
	/* len <= room / min_bits, without a division */
	return el->min_bits
		   ? !__builtin_mul_overflow(*len, el->min_bits, &need) &&
			 need <= room
		   : *len <= room + HT__ELEMS_SLACK;
}

/* ---- decoding into fields (ctf-fields.c) ---- */

/*
 * Fills s->err with "cannot decode packet: file=... offset=...: " and
 * the message, the offset being @at_bits in bytes. Returns @code.
 */
int ht__stream_fail(struct ht__stream *s, int code, uint64_t at_bits,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Runs op @i of @ops at s->pos, appending its fields to @fb (@name: the
 * field's name, @depth: its nesting). Returns 0 or a negative HT_E...
 * code with a message.
 */
int ht__scope_decode(struct ht__stream *s, const struct ht__op *ops, uint32_t i,
		     const char *name, struct ht__fieldbuf *fb, unsigned depth);

/* Loads leaf @l, a float or an integer that may span 9 bytes, at bit
 * @p (@w: the 8 bytes there) into field @f. */
void ht__leaf_load_other(struct ht__stream *s, const struct ht__leaf *l,
			 uint64_t p, uint64_t w, struct ht_ctf_field *f);

/*
 * Loads plain leaves [@l, @end) of a run starting at @pos into fields
 * @f: a load, a shift, a mask and a sign extension each.
 */
static inline void ht__leaf_load_plain(const struct ht__leaf *restrict l,
				       const struct ht__leaf *end,
				       const uint8_t *restrict map,
				       uint64_t pos,
				       struct ht_ctf_field *restrict f)
{
	for (; l < end; l++) {
		f[l->field].v.u = ht__leaf_value(map, pos, l);
	}
}

/*
 * The plain leaves of run @r starting at @pos into fields @f. On a
 * byte (.bytes): a load and a mask or a byte swap and a shift each,
 * the little-endian ones first, with no branch per leaf.
 */
static inline void ht__run_load_plain(const struct ht__run *r,
				      const uint8_t *restrict map, uint64_t pos,
				      struct ht_ctf_field *restrict f)
{
	const struct ht__leaf *restrict l = r->leaves;
	const struct ht__leaf *le = r->le_end, *end = r->plain_end;
	const uint8_t *b;

	if (!r->bytes) {
		ht__leaf_load_plain(l, end, map, pos, f);
		return;
	}
	b = map + (pos >> 3);
	for (; l < le; l++) {
		uint64_t w;

		memcpy(&w, b + l->off_bytes, 8);
		f[l->field].v.u = ((ht__le64(w) & l->mask) ^ l->sign) - l->sign;
	}
	for (; l < end; l++) {
		uint64_t w, v;

		memcpy(&w, b + l->off_bytes, 8);
		v = ht__be64(w) >> (64 - l->size_bits);
		f[l->field].v.u = (v ^ l->sign) - l->sign;
	}
}

/*
 * Loads leaf @l, not a plain one, of the run at @pos into its field of
 * @f: a little- or big-endian integer, then what it saves; anything
 * else through ht__leaf_load_other().
 */
static inline __attribute__((always_inline)) void
ht__leaf_load_side(struct ht__stream *s, const uint8_t *map,
		   const struct ht__leaf *l, uint64_t pos,
		   struct ht_ctf_field *f)
{
	const uint64_t p = pos + l->off_bits;
	const unsigned load = l->load;
	uint64_t v, w;

	memcpy(&w, map + (p >> 3), 8);
	if (load == HT__LOAD_LE) {
		v = (ht__le64(w) >> (p & 7)) & l->mask;
	} else if (load == HT__LOAD_BE) {
		v = (ht__be64(w) << (p & 7)) >> (64 - l->size_bits);
	} else {
		ht__leaf_load_other(s, l, p, w, &f[l->field]);
		return;
	}
	v = (v ^ l->sign) - l->sign;
	f[l->field].v.u = v;
	if (l->side) {
		ht__int_side(s, l->reg, l->meaning, l->clock, v, l->size_bits);
	}
}

/*
 * Loads the leaves of run @r starting at @pos into fields @f: integers
 * are one 8-byte load, a shift and a mask (the file mapping has
 * padding for the last load).
 */
static inline void ht__run_load_leaves(struct ht__stream *restrict s,
				       const struct ht__run *r, uint64_t pos,
				       struct ht_ctf_field *restrict f)
{
	const struct ht__leaf *restrict l = r->leaves;
	const struct ht__leaf *plain = l + r->nr_plain;
	const struct ht__leaf *end = l + r->nr_leaves;
	const uint8_t *restrict map = s->map;

	ht__run_load_plain(r, map, pos, f);
	for (l = plain; l < end; l++) {
		ht__leaf_load_side(s, map, l, pos, f);
	}
}

/*
 * Loads the leaves of run @r after its plain ones (integers that save
 * something, floats, wide integers) starting at @pos into fields @f
 * (ctf-fields.c).
 */
void ht__run_load_rest(struct ht__stream *s, const struct ht__run *r,
		       uint64_t pos, struct ht_ctf_field *f);

/*
 * ht__run_load_leaves() as a call (ctf-fields.c), for the fixed scopes
 * of the fast paths: its plain loop needs no saved register, the other
 * leaves are a tail call to ht__run_load_rest().
 */
void ht__run_load(struct ht__stream *s, const struct ht__run *r, uint64_t pos,
		  struct ht_ctf_field *f);

/*
 * ht__run_load() with the plain leaves loaded inline, for the loops
 * that load many short runs (the flat scopes with sequences): most of
 * their runs have no other leaf.
 */
static inline __attribute__((always_inline)) void
ht__run_load_inline(struct ht__stream *s, const struct ht__run *r, uint64_t pos,
		    struct ht_ctf_field *f)
{
	ht__run_load_plain(r, s->map, pos, f);
	if (r->nr_plain < r->nr_leaves) {
		ht__run_load_rest(s, r, pos, f);
	}
}

/* ---- skipping without fields (ctf-skip.c) ---- */

/* The leaves of run @r at @pos that save something: loaded, applied. */
void ht__skip_side_leaves(struct ht__stream *s, const struct ht__run *r,
			  uint64_t pos);

/*
 * Skips op @i of @ops at s->pos, applying what its integers save.
 * Returns 0, or 1 when anything is wrong (nothing said: the full
 * decoder says what).
 */
int ht__skip_op(struct ht__stream *s, const struct ht__op *ops, uint32_t i);

/*
 * ---- CTF 2 field classes without a CTF 1.8 layout (ctf2-fields.c) ----
 * Each decodes op @op (@i of @ops) at bit @pos, aligned, into the field
 * just appended to @fb (at @fi, or @f), or skips it; decoders return 0
 * or a negative HT_E... code with the message, skippers 0 or 1.
 */
int ht__varint_decode(struct ht__stream *s, const struct ht__op *op,
		      struct ht_ctf_field *f, uint64_t pos);
int ht__varint_skip(struct ht__stream *s, const struct ht__op *op,
		    uint64_t pos);
int ht__ustring_decode(struct ht__stream *s, const struct ht__op *op,
		       struct ht__fieldbuf *fb, uint32_t fi, uint64_t pos);
int ht__ustring_skip(struct ht__stream *s, const struct ht__op *op,
		     uint64_t pos);
int ht__optional_decode(struct ht__stream *s, const struct ht__op *ops,
			uint32_t i, struct ht__fieldbuf *fb, uint32_t fi,
			uint64_t pos, unsigned depth);
int ht__optional_skip(struct ht__stream *s, const struct ht__op *ops,
		      uint32_t i, uint64_t pos);
/* Frees the converted strings' text of @s. */
void ht__utext_free(struct ht__stream *s);

/* Skips scope @p at s->pos the same way. */
int ht__skip_scope(struct ht__stream *s, const struct ht__plan *p);

/* Skips fixed run @r at s->pos. Returns 0, or 1 when it does not fit. */
static inline int ht__skip_run(struct ht__stream *s, const struct ht__run *r)
{
	uint64_t pos = s->pos;

	if (r->align_bits > 1) {
		pos = ht__align_in_packet(s, pos, r->align_bits);
	}
	if (pos + r->size_bits > s->content_end) {
		return 1;
	}
	if (r->side) {
		ht__skip_side_leaves(s, r, pos);
	}
	s->pos = pos + r->size_bits;
	return 0;
}

/*
 * The position after the string at @pos (aligned to a byte first), or
 * UINT64_MAX when it is not terminated before @ce; may be past @ce
 * when its terminator is (the caller checks). Most strings end in
 * their first 8 bytes: one load.
 */
static inline uint64_t ht__skip_string(const uint8_t *map, uint64_t pos,
				       uint64_t ce)
{
	const uint8_t *p, *z;
	uint64_t w, m;

	/* packets start on a byte */
	pos = (pos + 7) & ~(uint64_t)7;
	if (pos >= ce) {
		return UINT64_MAX;
	}
	p = map + (pos >> 3);
	/* the mapping has 8 readable bytes past the file's end */
	memcpy(&w, p, 8);
	w = ht__le64(w);
	m = (w - UINT64_C(0x0101010101010101)) & ~w &
	    UINT64_C(0x8080808080808080);
	if (m) {
		/* the lowest flag is the first zero byte */
		return pos + ((uint64_t)__builtin_ctzll(m) / 8 + 1) * 8;
	}
	z = ht__find_nul(p, (ce - pos) / 8);
	return z ? pos + (uint64_t)(z - p + 1) * 8 : UINT64_MAX;
}

#endif
