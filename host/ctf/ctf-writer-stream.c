/* SPDX-License-Identifier: MIT */
/*
 * The data streams of the CTF writer (ctf-writer-internal.h): one
 * packet buffer per stream, fields encoded back with the types they were
 * decoded with, a packet written to the stream's file when the next
 * event does not fit.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "common/path.h"
#include "ctf-writer-internal.h"

#define CTF_MAGIC 0xc1fc1fc1u

/*
 * Packet header and context layout (all byte-aligned, little-endian),
 * as ctf-writer-metadata.c declares it.
 */
enum {
	OFF_MAGIC = 0,
	OFF_UUID = 4,
	OFF_STREAM_ID = 20,
	OFF_PACKET_SIZE = 24,
	OFF_CONTENT_SIZE = 32,
	OFF_TS_BEGIN = 40,
	OFF_TS_END = 48,
	OFF_DISCARDED = 56,
	OFF_SEQ_NUM = 64,
	OFF_CORE_ID = 72,
	OFF_CPU_ID = 76,	/* classes with a cpu_id only */
	FIRST_EVENT_BYTES = 76, /* the event header is align(8): bits */
	RAW_HEADER_BYTES = 12,	/* the event header: uint32 id, uint64 ts */
};

/* (one store on a little-endian host: compilers do not always merge
 * the byte stores) */
static inline void put_le32(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint32_t x = (uint32_t)v;

	memcpy(p, &x, 4);
#else
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
#endif
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 8);
#else
	put_le32(p, v);
	put_le32(p + 4, v >> 32);
#endif
}

static void put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
	if (bytes == 8) {
		put_le64(p, v);
	} else {
		put_le32(p, v);
	}
}

static void packet_open(struct ht_ctf_wstream *s)
{
	memset(s->buf, 0,
	       s->dirty_bytes < s->cap_bytes ? s->dirty_bytes : s->cap_bytes);
	s->dirty_bytes = 0;
	s->pos_bits = 8 * (FIRST_EVENT_BYTES + (s->sc->has_cpu_id ? 4 : 0));
	s->nr_in_packet = 0;
}

int ht_ctf_writer_add_stream(struct ht_ctf_writer *w, uint64_t sc_id,
			     const char *file_name, uint32_t core_id,
			     struct ht_ctf_wstream **out)
{
	struct ht_ctf_wstream *s;
	int ret;

	if (sc_id >= w->nr_scs || strchr(file_name, '/') ||
	    !strcmp(file_name, "metadata")) {
		return ht__ctf_writer_fail(
		    w, HT_EINVAL, "bad stream file name '%s'", file_name);
	}
	if (ht_array_reserve((void **)&w->streams, &w->cap_streams,
			     w->nr_streams + 1, sizeof(*w->streams))) {
		return HT_ENOMEM;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		return HT_ENOMEM;
	}
	s->fd = -1;
	s->path = ht_path_join(w->dir, file_name);
	s->cap_bytes = w->packet_bytes;
	s->buf = malloc(s->cap_bytes);
	if (!s->path || !s->buf) {
		ret = HT_ENOMEM;
		goto free_stream;
	}
	s->dirty_bytes = s->cap_bytes;
	/* a file left by an earlier run is removed, not truncated (a
	 * truncated file written again is flushed at its close by ext4) */
	if (unlink(s->path) && errno != ENOENT) {
		ret = ht__ctf_writer_fail(w, HT_EIO, "cannot replace %s/%s: %s",
					  w->dir, file_name, strerror(errno));
		goto free_stream;
	}
	s->fd = open(s->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (s->fd < 0) {
		ret = ht__ctf_writer_fail(w, HT_EIO, "cannot create %s/%s: %s",
					  w->dir, file_name, strerror(errno));
		goto free_stream;
	}
	s->w = w;
	s->sc = w->scs[sc_id];
	s->core_id = core_id;
	s->sc->nr_streams++;
	packet_open(s);
	w->streams[w->nr_streams++] = s;
	*out = s;
	return 0;
free_stream:
	ht__ctf_wstream_free(s);
	return ret;
}

void ht_ctf_wstream_set_cpu_id(struct ht_ctf_wstream *s, uint32_t cpu_id)
{
	s->cpu_id = cpu_id;
}

static int write_all(struct ht_ctf_wstream *s, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(s->fd, p, n);

		if (k < 0) {
			if (errno == EINTR) {
				continue;
			}
			return ht__ctf_writer_fail(s->w, HT_EIO,
						   "cannot write %s: %s",
						   s->path, strerror(errno));
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Writes the open packet (its content up to @content_bits). */
static int packet_close(struct ht_ctf_wstream *s, uint64_t content_bits)
{
	uint64_t size_bytes = (content_bits + 7) / 8;
	uint8_t *p = s->buf;
	int ret;

	put_le(p + OFF_MAGIC, CTF_MAGIC, 4);
	memcpy(p + OFF_UUID, s->w->trace_uuid, 16);
	put_le(p + OFF_STREAM_ID, s->sc->id, 4);
	put_le(p + OFF_PACKET_SIZE, size_bytes * 8, 8);
	put_le(p + OFF_CONTENT_SIZE, content_bits, 8);
	put_le(p + OFF_TS_BEGIN, s->ts_begin, 8);
	put_le(p + OFF_TS_END, s->ts_end, 8);
	put_le(p + OFF_DISCARDED, s->discarded, 8);
	put_le(p + OFF_SEQ_NUM, s->seq_num, 8);
	put_le(p + OFF_CORE_ID, s->core_id, 4);
	if (s->sc->has_cpu_id) {
		put_le(p + OFF_CPU_ID, s->cpu_id, 4);
	}
	ret = write_all(s, p, size_bytes);
	if (ret) {
		return ret;
	}
	s->nr_packets++;
	s->seq_num++;
	s->pending_empty = false;
	return 0;
}

/* Writes the open packet if it holds events (or must be written). */
static int flush_packet(struct ht_ctf_wstream *s, uint64_t ts)
{
	int ret;

	if (!s->nr_in_packet && !s->pending_empty) {
		return 0;
	}
	if (!s->nr_in_packet) {
		s->ts_begin = s->ts_end = ts;
	}
	ret = packet_close(s, s->pos_bits);
	if (ret) {
		return ret;
	}
	packet_open(s);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Field encoding                                                      */

/* Returned by the encoder when the packet buffer is too small. */
#define NEED_ROOM 1

struct enc {
	uint8_t *buf;
	uint64_t cap_bits;
	uint64_t pos;
};

static int enc_align(struct enc *e, unsigned align)
{
	if (align > 1) {
		e->pos = (e->pos + align - 1) / align * align;
	}
	return e->pos > e->cap_bits ? NEED_ROOM : 0;
}

static int enc_int(struct enc *e, uint64_t v, unsigned size, unsigned align,
		   enum ht_ctf_byte_order bo)
{
	uint64_t pos;
	unsigned i;

	if (enc_align(e, align) || e->pos + size > e->cap_bits) {
		return NEED_ROOM;
	}
	pos = e->pos;
	if (!(pos & 7) && !(size & 7)) {
		uint8_t *p = e->buf + pos / 8;
		unsigned n = size / 8;

		for (i = 0; i < n; i++) {
			unsigned sh = bo == HT_CTF_LE ? 8 * i : 8 * (n - 1 - i);

			p[i] = (uint8_t)(v >> sh);
		}
	} else if (bo == HT_CTF_LE) {
		/* bit i of the value at stream bit pos + i, LSB first */
		for (i = 0; i < size; i++) {
			uint64_t k = pos + i;

			if ((v >> i) & 1) {
				e->buf[k / 8] |= (uint8_t)(1u << (k % 8));
			}
		}
	} else {
		/* big-endian: the value's MSB first, bytes filled MSB first */
		for (i = 0; i < size; i++) {
			uint64_t k = pos + i;

			if ((v >> (size - 1 - i)) & 1) {
				e->buf[k / 8] |= (uint8_t)(0x80u >> (k % 8));
			}
		}
	}
	e->pos += size;
	return 0;
}

static int enc_field(struct enc *e, const struct ht_ctf_field *f)
{
	const struct ht_ctf_type *t = f->type;
	const struct ht_ctf_field *c;
	uint32_t i;
	int ret;

	switch (t->kind) {
	case HT_CTF_INT:
		return enc_int(e, f->v.u, t->size_bits, t->align_bits,
			       t->byte_order);
	case HT_CTF_ENUM:
		return enc_int(e, f->v.u, t->container->size_bits,
			       t->container->align_bits,
			       t->container->byte_order);
	case HT_CTF_FLOAT:
		if (t->size_bits == 32) {
			float x = (float)f->v.d;
			uint32_t u;

			memcpy(&u, &x, 4);
			return enc_int(e, u, 32, t->align_bits, t->byte_order);
		} else {
			uint64_t u;

			memcpy(&u, &f->v.d, 8);
			return enc_int(e, u, 64, t->align_bits, t->byte_order);
		}
	case HT_CTF_STRING: {
		uint64_t n = (uint64_t)f->nr_children + 1;

		if (enc_align(e, 8) || e->pos + 8 * n > e->cap_bits) {
			return NEED_ROOM;
		}
		memcpy(e->buf + e->pos / 8, f->v.str, n - 1);
		e->buf[e->pos / 8 + n - 1] = 0;
		e->pos += 8 * n;
		return 0;
	}
	case HT_CTF_STRUCT:
	case HT_CTF_ARRAY:
	case HT_CTF_SEQUENCE:
	case HT_CTF_VARIANT:
		if (t->kind != HT_CTF_VARIANT && enc_align(e, t->align_bits)) {
			return NEED_ROOM;
		}
		c = ht_ctf_field_first_child(f);
		for (i = 0; i < f->nr_children; i++, c = ht_ctf_field_next(c)) {
			ret = enc_field(e, c);
			if (ret) {
				return ret;
			}
		}
		return 0;
	}
	return HT_EINVAL;
}

static bool class_known_slow(const struct wstream_class *sc, uint64_t id)
{
	size_t i;

	for (i = 0; i < sc->nr_classes; i++) {
		if (sc->classes[i]->id == id) {
			return true;
		}
	}
	return false;
}

static inline bool class_known(const struct wstream_class *sc, uint64_t id)
{
	/* classes are usually dense and added in id order */
	if (id < sc->nr_classes && sc->classes[id]->id == id) {
		return true;
	}
	return class_known_slow(sc, id);
}

/*
 * The event header and the non-NULL @scopes at the write position of
 * the open packet, into @e; NEED_ROOM when the packet buffer ends first.
 */
static int encode_record(struct ht_ctf_wstream *s, struct enc *e,
			 uint64_t cls_id, uint64_t ts_ns,
			 const struct ht_ctf_field *const scopes[3])
{
	unsigned k;
	int ret;

	e->buf = s->buf;
	e->cap_bits = 8 * (uint64_t)s->cap_bytes;
	e->pos = s->pos_bits;
	ret = enc_int(e, cls_id, 32, s->sc->hdr_align_bits, HT_CTF_LE);
	if (!ret) {
		ret = enc_int(e, ts_ns, 64,
			      s->sc->hdr_align_bits == 64 ? 64 : 8, HT_CTF_LE);
	}
	for (k = 0; !ret && k < 3; k++) {
		if (scopes[k]) {
			ret = enc_field(e, scopes[k]);
		}
	}
	return ret;
}

/*
 * After a record did not fit: undoes the partial record, then starts a
 * new packet, or doubles the buffer for an event larger than a packet.
 * Rare: kept out of ht_ctf_wstream_event(), whose registers it would
 * otherwise cost on every event.
 */
static __attribute__((noinline)) int make_room(struct ht_ctf_wstream *s,
					       uint64_t ts_ns)
{
	size_t old_cap = s->cap_bytes;

	memset(s->buf + s->pos_bits / 8, 0, s->cap_bytes - s->pos_bits / 8);
	if (s->nr_in_packet) {
		return flush_packet(s, ts_ns);
	}
	if (ht_array_reserve((void **)&s->buf, &s->cap_bytes, 2 * old_cap, 1)) {
		return HT_ENOMEM;
	}
	memset(s->buf + old_cap, 0, s->cap_bytes - old_cap);
	return 0;
}

/* 0 when an event of class @cls_id at @ts_ns may be written to @s: its
 * class was added and its time is not before the last event's. */
static inline int check_event(struct ht_ctf_wstream *s, uint64_t cls_id,
			      uint64_t ts_ns)
{
	if (!class_known(s->sc, cls_id)) {
		return ht__ctf_writer_fail(s->w, HT_EINVAL,
					   "%s: event class %" PRIu64
					   " was not added",
					   s->path, cls_id);
	}
	if (ts_ns < s->last_ts) {
		return ht__ctf_writer_fail(s->w, HT_EINVAL,
					   "%s: timestamp %" PRIu64
					   " before %" PRIu64,
					   s->path, ts_ns, s->last_ts);
	}
	return 0;
}

/* Counts an event at @ts_ns written to @s's packet. */
static inline void count_event(struct ht_ctf_wstream *s, uint64_t ts_ns)
{
	if (!s->nr_in_packet) {
		s->ts_begin = ts_ns;
	}
	s->ts_end = ts_ns;
	s->last_ts = ts_ns;
	s->nr_in_packet++;
	s->nr_events++;
}

int ht_ctf_wstream_event(struct ht_ctf_wstream *s, uint64_t cls_id,
			 uint64_t ts_ns, const struct ht_ctf_field *common_ctx,
			 const struct ht_ctf_field *specific_ctx,
			 const struct ht_ctf_field *payload)
{
	const struct ht_ctf_field *const scopes[3] = {common_ctx, specific_ctx,
						      payload};
	struct enc e;
	int ret;

	ret = check_event(s, cls_id, ts_ns);
	if (ret) {
		return ret;
	}
	s->dirty_bytes = s->cap_bytes;
	for (;;) {
		ret = encode_record(s, &e, cls_id, ts_ns, scopes);
		if (ret < 0) {
			return ret;
		}
		if (!ret) {
			break;
		}
		ret = make_room(s, ts_ns);
		if (ret) {
			return ret;
		}
	}
	count_event(s, ts_ns);
	/* the next record starts on a byte boundary (header align(8)) */
	s->pos_bits = (e.pos + 7) / 8 * 8;
	return 0;
}

/*
 * Makes room for a record of @bytes bytes at the write position: a new
 * packet when the open one has records, else a buffer large enough.
 */
static __attribute__((noinline)) int raw_room(struct ht_ctf_wstream *s,
					      uint64_t ts_ns, size_t bytes)
{
	if (s->nr_in_packet) {
		/* (the caller measures the record again in the new packet) */
		return flush_packet(s, ts_ns);
	}
	while (s->pos_bits / 8 + bytes > s->cap_bytes) {
		size_t old_cap = s->cap_bytes;

		if (ht_array_reserve((void **)&s->buf, &s->cap_bytes,
				     2 * old_cap, 1)) {
			return HT_ENOMEM;
		}
		memset(s->buf + old_cap, 0, s->cap_bytes - old_cap);
	}
	return 0;
}

/* @n bytes from @src to @dst: the short bodies most records have
 * without a call */
static inline void copy_body(uint8_t *dst, const uint8_t *src, size_t n)
{
	if (n >= 8 && n <= 16) {
		/* (two copies that may overlap) */
		memcpy(dst, src, 8);
		memcpy(dst + n - 8, src + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(dst, src, 4);
		memcpy(dst + n - 4, src + n - 4, 4);
	} else {
		memcpy(dst, src, n);
	}
}

static inline int raw_event(struct ht_ctf_wstream *s, uint64_t cls_id,
			    uint64_t ts_ns, const uint8_t *body,
			    size_t body_bytes)
{
	/* (1, 4 or 8 bytes) */
	const size_t a = s->sc->hdr_align_bits / 8;
	const size_t hdr = a == 8 ? 16 : RAW_HEADER_BYTES;
	size_t pad, bytes, k;
	uint8_t *p;
	int ret;

	ret = check_event(s, cls_id, ts_ns);
	if (ret) {
		return ret;
	}
	/* (the padding before the header: zeros of packet_open()) */
	for (;;) {
		pad = (size_t)(0 - s->pos_bits / 8) & (a - 1);
		bytes = pad + hdr + body_bytes;
		if (s->pos_bits / 8 + bytes <= s->cap_bytes) {
			break;
		}
		ret = raw_room(s, ts_ns, bytes);
		if (ret) {
			return ret;
		}
	}
	p = s->buf + s->pos_bits / 8 + pad;
	/* (the padding written here: raw records need no cleared buffer) */
	for (k = 1; k <= pad; k++) {
		p[-(ptrdiff_t)k] = 0;
	}
	put_le32(p, cls_id);
	if (hdr == 16) {
		put_le32(p + 4, 0);
	}
	put_le64(p + hdr - 8, ts_ns);
	copy_body(p + hdr, body, body_bytes);
	count_event(s, ts_ns);
	s->pos_bits += 8 * (uint64_t)bytes;
	return 0;
}

int ht_ctf_wstream_raw_event(struct ht_ctf_wstream *s, uint64_t cls_id,
			     uint64_t ts_ns, const uint8_t *body,
			     size_t body_bytes)
{
	return raw_event(s, cls_id, ts_ns, body, body_bytes);
}

/*
 * The events of @ev from @i on that fit in the open packet as they are
 * (a header on one byte: no padding; a known class; times in order),
 * with the stream's counters updated once. Returns where it stopped.
 */
static size_t raw_run(struct ht_ctf_wstream *s,
		      const struct ht_ctf_raw_event *ev, size_t i, size_t n)
{
	uint8_t *const buf = s->buf;
	const size_t cap = s->cap_bytes;
	size_t pos = (size_t)(s->pos_bits / 8), from = i;
	uint64_t last = s->last_ts, known = UINT64_MAX;

	for (; i < n; i++) {
		const size_t bytes = RAW_HEADER_BYTES + ev[i].body_bytes;
		uint8_t *p = buf + pos;

		if (pos + bytes > cap || ev[i].ts_ns < last) {
			break;
		}
		if (ev[i].cls_id != known) {
			if (!class_known(s->sc, ev[i].cls_id)) {
				break;
			}
			known = ev[i].cls_id;
		}
		put_le32(p, ev[i].cls_id);
		put_le64(p + 4, ev[i].ts_ns);
		copy_body(p + RAW_HEADER_BYTES, ev[i].body, ev[i].body_bytes);
		pos += bytes;
		last = ev[i].ts_ns;
	}
	if (i > from) {
		if (!s->nr_in_packet) {
			s->ts_begin = ev[from].ts_ns;
		}
		s->ts_end = s->last_ts = last;
		s->nr_in_packet += i - from;
		s->nr_events += i - from;
		s->pos_bits = 8 * (uint64_t)pos;
	}
	return i;
}

int ht_ctf_wstream_raw_events(struct ht_ctf_wstream *s,
			      const struct ht_ctf_raw_event *ev, size_t n)
{
	const bool byte = s->sc->hdr_align_bits == 8;
	size_t i = 0;
	int ret;

	while (i < n) {
		if (byte) {
			i = raw_run(s, ev, i, n);
			if (i == n) {
				break;
			}
		}
		/* (a new packet, an error, or a header on 4 or 8 bytes) */
		ret = raw_event(s, ev[i].cls_id, ev[i].ts_ns, ev[i].body,
				ev[i].body_bytes);
		if (ret) {
			return ret;
		}
		i++;
	}
	return 0;
}

/*
 * Adds @count to the loss counter @lost (events_discarded, or
 * packet_seq_num for a gap) at @ts_ns: the open packet ends there (no
 * earlier than the last record) and a packet follows, even an empty
 * one, to carry the loss, which no event may follow.
 */
static int record_loss(struct ht_ctf_wstream *s, uint64_t *lost, uint64_t count,
		       uint64_t ts_ns)
{
	int ret;

	if (!count) {
		return 0;
	}
	ret = flush_packet(s, ts_ns < s->last_ts ? s->last_ts : ts_ns);
	if (ret) {
		return ret;
	}
	s->pending_empty = true;
	*lost += count;
	return 0;
}

int ht_ctf_wstream_discarded(struct ht_ctf_wstream *s, uint64_t count,
			     uint64_t ts_ns)
{
	return record_loss(s, &s->discarded, count, ts_ns);
}

int ht_ctf_wstream_lost_packets(struct ht_ctf_wstream *s, uint64_t count,
				uint64_t ts_ns)
{
	return record_loss(s, &s->seq_num, count, ts_ns);
}

uint64_t ht_ctf_wstream_nr_events(const struct ht_ctf_wstream *s)
{
	return s->nr_events;
}

int ht__ctf_wstream_finish(struct ht_ctf_wstream *s)
{
	/* no fsync: a merged trace is made again from its capture */
	int ret = flush_packet(s, s->last_ts);

	if (!ret && close(s->fd)) {
		ret = ht__ctf_writer_fail(s->w, HT_EIO, "cannot write %s: %s",
					  s->path, strerror(errno));
	}
	s->fd = -1;
	return ret;
}

void ht__ctf_wstream_free(struct ht_ctf_wstream *s)
{
	if (s->fd >= 0) {
		close(s->fd);
	}
	free(s->path);
	free(s->buf);
	free(s);
}
