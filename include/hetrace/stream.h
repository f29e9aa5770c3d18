/* SPDX-License-Identifier: MIT */
#ifndef HETRACE_STREAM_H
#define HETRACE_STREAM_H

/*
 * The stream context: one per core (per data stream), in caller memory,
 * writing CTF packets into a caller-supplied buffer. Generated tracing
 * code (hetrace gen) is built on the primitives below: the fast path is
 * inline in the generated header, the slow path (packet switch, drops) is
 * a function in the generated source that expands ht_stream_make_room().
 *
 * Concurrency rules:
 * - A stream context belongs to one core. Several cores trace into
 *   several contexts; nothing here is shared between cores.
 * - Tracing section guard: a tracing call sets `busy` before it touches
 *   the packet and clears it when done. A call that finds `busy` set (an
 *   interrupt handler that traces while the code it interrupted was
 *   tracing, or a platform callback that traces) does not write: its
 *   event record is dropped and counted in `discarded_nested`, which only
 *   such nested calls write. The packet being written is never
 *   corrupted. The count reaches the packet context's events_discarded
 *   when the packet is closed.
 * - `off` (tracing disabled) and `busy` are plain ints that the fast path
 *   reads together; `off` is written only by ht_stream_set_enabled().
 *
 * Requires C99 and <stdint.h>, <stddef.h>, <string.h> only.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "port.h"

struct ht_stream {
	/* Fast path: read and written by every tracing call. */
	uint8_t *buf; /* the packet buffer */
	uint32_t at;  /* offset of the next event record, bytes */
	uint32_t end; /* packet size in bytes while a packet is open, else 0 */
	uint64_t
	    last_ts; /* timestamp of the previous record (or packet start) */
	volatile int busy; /* in a tracing section */
	volatile int off;  /* tracing disabled */

	/* Slow path. */
	uint32_t size;	      /* packet buffer size, bytes */
	uint32_t content_off; /* bytes taken by the packet header and context */
	/*
	 * Exact end, in bits, of the last record whose size is not a
	 * multiple of the record alignment (at is rounded up past its
	 * padding). The packet's content ends there if that record is the
	 * last one: a reader would take trailing padding for a record.
	 */
	uint32_t content_end_bits;
	int packet_open;
	uint32_t seq_num; /* sequence number of the open (or next) packet */
	uint32_t core_id;
	uint32_t discarded; /* dropped by the owner: no room, back end full */
	volatile uint32_t discarded_nested; /* dropped by nested calls */

	/*
	 * Timestamp of the event record that forced a packet switch: the
	 * packet callbacks close and open packets at that time.
	 */
	uint64_t pending_ts;
	int use_pending_ts;

	/* Last value of a narrow clock, extended to 64 bits. */
	uint64_t clock_last;

	/* Platform. */
	void *data;
	int (*is_backend_full)(void *data);
	void (*open_packet)(void *data);
	void (*close_packet)(void *data);
};

/*
 * Prepares a stream context: no packet open, tracing enabled. buf holds
 * size bytes (the packet size); it is not touched until a packet opens.
 */
static inline void ht_stream_init(struct ht_stream *s, uint8_t *buf,
				  uint32_t size, void *data,
				  int (*is_backend_full)(void *),
				  void (*open_packet)(void *),
				  void (*close_packet)(void *))
{
	memset(s, 0, sizeof(*s));
	s->buf = buf;
	s->size = size;
	s->data = data;
	s->is_backend_full = is_backend_full;
	s->open_packet = open_packet;
	s->close_packet = close_packet;
}

/* Events dropped so far: the value of the next events_discarded field. */
static inline uint32_t ht_stream_discarded(const struct ht_stream *s)
{
	return s->discarded + s->discarded_nested;
}

/*
 * Counts @n events the platform dropped before they reached a tracing
 * call (a function tracer that stopped writing when the buffer was
 * full): the next events_discarded includes them. Call it from the
 * stream's owner, outside any tracing call, before the last packet
 * closes.
 */
static inline void ht_stream_add_discarded(struct ht_stream *s, uint32_t n)
{
	s->discarded += n;
}

/*
 * The content size of the open packet in bits: s->at, less the padding
 * after the last record. rec_align is the record alignment in bytes;
 * every record is at least that long, so content_end_bits lies within
 * the last record only if that record set it.
 */
static inline uint64_t ht_stream_content_bits(const struct ht_stream *s,
					      uint32_t rec_align)
{
	uint64_t at_bits = (uint64_t)s->at * 8u;

	return s->content_end_bits + rec_align * 8u > at_bits
		   ? s->content_end_bits
		   : at_bits;
}

/* Enables or disables tracing at run time. */
static inline void ht_stream_set_enabled(struct ht_stream *s, int enable)
{
	s->off = !enable;
}

/*
 * A tracing call found the guard taken or tracing disabled. Disabled
 * tracing drops nothing (there is nothing to count); a nested call's
 * record is dropped and counted.
 */
static inline void ht_stream_blocked(struct ht_stream *s)
{
	if (!s->off) {
		s->discarded_nested++;
	}
}

/* Takes the tracing section guard; the caller checked it was free. */
static inline void ht_stream_enter(struct ht_stream *s)
{
	s->busy = 1;
	/* Orders the guard store before any packet access. */
	HT_COMPILER_BARRIER();
}

/* Releases the tracing section guard. */
static inline void ht_stream_leave(struct ht_stream *s)
{
	/* Every store of the record is done before the guard is free. */
	HT_COMPILER_BARRIER();
	s->busy = 0;
}

/*
 * Extends a clock counter of `bits` bits (1..63) to 64 bits. Correct as
 * long as the counter is read at least once per wrap period: a value
 * lower than the previous one is taken as one wrap.
 */
static inline uint64_t ht_clock_extend(uint64_t *last, uint64_t raw,
				       unsigned bits)
{
	const uint64_t span = (uint64_t)1 << bits;
	uint64_t v = (*last & ~(span - 1)) | (raw & (span - 1));

	if (v < *last) {
		v += span;
	}
	*last = v;
	return v;
}

/*
 * The slow path's common part, expanded in the generated source: makes
 * room for `need` bytes at s->at, switching packets through the platform
 * callbacks as barectf does. Returns 1 when there is room in an open
 * packet, 0 when the record is dropped (counted). ts is the record's
 * timestamp: packets closed or opened here are stamped with it.
 */
static inline int ht_stream_make_room(struct ht_stream *s, uint32_t need,
				      uint64_t ts)
{
	if (need > s->size - s->content_off) {
		/* Would not fit even in an empty packet. */
		goto drop;
	}
	s->pending_ts = ts;
	s->use_pending_ts = 1;
	if (!s->packet_open) {
		if (s->is_backend_full(s->data)) {
			goto drop;
		}
		s->open_packet(s->data);
	}
	if (s->packet_open && s->at + need > s->end) {
		s->close_packet(s->data);
		if (s->is_backend_full(s->data)) {
			goto drop;
		}
		s->open_packet(s->data);
	}
	s->use_pending_ts = 0;
	if (!s->packet_open || s->at + need > s->end) {
		/* The platform did not open a packet, or a smaller one. */
		s->discarded++;
		return 0;
	}
	return 1;

drop:
	s->use_pending_ts = 0;
	s->discarded++;
	return 0;
}

/*
 * Stores of whole fields at byte offsets, in the target's byte order or
 * in the other one. memcpy of a constant size compiles to one store (or
 * a few byte stores where unaligned words trap), but a freestanding
 * build (-ffreestanding implies -fno-builtin: firmware) calls the
 * library's memcpy instead, some 30 instructions per field on a
 * Cortex-M3; GCC's and clang's builtin keeps it inline there too.
 */
#if defined(__GNUC__) || defined(__clang__)
#define HT_STORE_COPY(d, s, n) __builtin_memcpy((d), (s), (n))
#else
#define HT_STORE_COPY(d, s, n) memcpy((d), (s), (n))
#endif

static inline void ht_store_u8(uint8_t *p, uint8_t v)
{
	*p = v;
}

static inline void ht_store_u16(uint8_t *p, uint16_t v)
{
	HT_STORE_COPY(p, &v, sizeof(v));
}

static inline void ht_store_u32(uint8_t *p, uint32_t v)
{
	HT_STORE_COPY(p, &v, sizeof(v));
}

static inline void ht_store_u64(uint8_t *p, uint64_t v)
{
	HT_STORE_COPY(p, &v, sizeof(v));
}

static inline uint16_t ht_swap16(uint16_t v)
{
	return (uint16_t)((v >> 8) | (v << 8));
}

static inline uint32_t ht_swap32(uint32_t v)
{
	return ((v >> 24) & 0xffu) | ((v >> 8) & 0xff00u) |
	       ((v << 8) & 0xff0000u) | ((v << 24) & 0xff000000u);
}

static inline uint64_t ht_swap64(uint64_t v)
{
	return ((uint64_t)ht_swap32((uint32_t)v) << 32) |
	       ht_swap32((uint32_t)(v >> 32));
}

static inline uint32_t ht_float_bits(float f)
{
	uint32_t u;

	HT_STORE_COPY(&u, &f, sizeof(u));
	return u;
}

static inline uint64_t ht_double_bits(double d)
{
	uint64_t u;

	HT_STORE_COPY(&u, &d, sizeof(u));
	return u;
}

/*
 * Writes the low n bits (1..64) of v at bit offset `bit` of buf, in
 * CTF's little-endian bit order: the value's least significant bit
 * first, filling each byte from its least significant bit. Bits around
 * the field are kept.
 */
static inline void ht_bits_write_le(uint8_t *buf, uint32_t bit, unsigned n,
				    uint64_t v)
{
	uint8_t *p = buf + (bit >> 3);
	unsigned shift = bit & 7;

	while (n) {
		unsigned take = 8 - shift < n ? 8 - shift : n;
		unsigned mask = ((1u << take) - 1) << shift;

		*p = (uint8_t)((*p & ~mask) | (((unsigned)v << shift) & mask));
		v >>= take;
		n -= take;
		shift = 0;
		p++;
	}
}

/*
 * The same in CTF's big-endian bit order: the value's most significant
 * bit first, filling each byte from its most significant bit.
 */
static inline void ht_bits_write_be(uint8_t *buf, uint32_t bit, unsigned n,
				    uint64_t v)
{
	uint8_t *p = buf + (bit >> 3);
	unsigned used = bit & 7;

	while (n) {
		unsigned room = 8 - used;
		unsigned take = room < n ? room : n;
		unsigned chunk =
		    (unsigned)(v >> (n - take)) & ((1u << take) - 1);
		unsigned pos = room - take;
		unsigned mask = ((1u << take) - 1) << pos;

		*p = (uint8_t)((*p & ~mask) | ((chunk << pos) & mask));
		n -= take;
		used = 0;
		p++;
	}
}

/* Rounds a bit offset up to a power-of-two alignment. */
static inline uint32_t ht_align_bits(uint32_t bit, uint32_t align)
{
	return (bit + align - 1) & ~(align - 1);
}

#endif
