/* SPDX-License-Identifier: MIT */
/*
 * The decoder of one data stream file: packets, then events, each scope
 * decoded by its fast path (a fixed or flat scope, or a flat scope with
 * sequences, loaded into fields kept per stream) or by the general
 * interpreter (ctf-fields.c) into a reused field array.
 * The file is mapped once; pages of finished packets are given back to
 * the kernel so that the resident size does not grow with the file.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ctf-stream.h"
#include "common/error.h"

#define PKT_MAGIC 0xc1fc1fc1u

/*
 * The NUL-terminated string at *@pos, which moves up to a byte (packets
 * start on a byte: byte alignment in the packet is byte alignment in the
 * file): its first byte, *@nul set to its NUL, or NULL when it does not
 * end in the packet content.
 */
static inline const uint8_t *packet_string(const struct ht__stream *s,
					   uint64_t *pos, const uint8_t **nul)
{
	const uint8_t *q;

	*pos = (*pos + 7) & ~(uint64_t)7;
	if (*pos >= s->content_end) {
		return NULL;
	}
	q = s->map + (*pos >> 3);
	*nul = ht__find_nul(q, (s->content_end - *pos) / 8);
	return *nul ? q : NULL;
}

/*
 * Decodes flat scope @p (see struct ht__plan) at s->pos into the
 * stream's kept fields *@keep. Returns 0 with *@root set, 1 when a run
 * or a string does not fit in the packet content (nothing is
 * consumed), or a negative HT_E... code.
 */
static inline int decode_flat(struct ht__stream *s, const struct ht__plan *p,
			      struct ht_ctf_field **keep,
			      const struct ht_ctf_field **root)
{
	const struct ht__op *op = &p->ops[0];
	struct ht_ctf_field *f = *keep;
	uint64_t pos = s->pos;
	uint32_t k;

	if (!f) {
		f = malloc(p->flat_fields * sizeof(*f));
		if (!f) {
			return ht__stream_fail(s, HT_ENOMEM, pos,
					       "out of memory");
		}
		memcpy(f, p->flat_tmpl, p->flat_fields * sizeof(*f));
		*keep = f;
	}
	if (op->align_bits > 1) {
		pos = ht__align_in_packet(s, pos, op->align_bits);
	}
	for (k = 0; k < op->nr_runs; k++) {
		const struct ht__run *r = &op->runs[k];

		if (r->tmpl) {
			if (r->align_bits > 1) {
				pos =
				    ht__align_in_packet(s, pos, r->align_bits);
			}
			if (pos + r->size_bits > s->content_end) {
				return 1;
			}
			ht__run_load_leaves(s, r, pos, f + r->keep_off);
			pos += r->size_bits;
		} else {
			const uint8_t *q, *z;

			q = packet_string(s, &pos, &z);
			if (!q) {
				return 1;
			}
			f[r->keep_off].v.str = (const char *)q;
			f[r->keep_off].nr_children = z - q;
			pos += (uint64_t)(z - q + 1) * 8;
		}
	}
	s->pos = pos;
	*root = f;
	return 0;
}

/*
 * ht__run_load() for the runs of a flat scope with sequences, all
 * inline: their other leaves are mostly sequence lengths (a register)
 * and floats, one per run or two, which a call would cost more than.
 */
static inline __attribute__((always_inline)) void
flat_run_load(struct ht__stream *s, const uint8_t *map, const struct ht__run *r,
	      uint64_t pos, struct ht_ctf_field *f)
{
	const struct ht__leaf *l, *end;

	ht__run_load_plain(r, map, pos, f);
	if (r->nr_plain == r->nr_leaves) {
		return;
	}
	l = r->leaves + r->nr_plain;
	end = r->leaves + r->nr_leaves;
	for (; l < end; l++) {
		if (l->load == HT__LOAD_F32) {
			float x;

			memcpy(&x, map + ((pos + l->off_bits) >> 3), 4);
			f[l->field].v.d = x;
		} else {
			ht__leaf_load_side(s, map, l, pos, f);
		}
	}
}

/* Room for @n fields in @kv (at most HT__KEEP_VAR_FIELDS). */
static int keep_var_grow(struct ht__keep_var *kv, uint64_t n)
{
	uint32_t cap = kv->cap ? kv->cap : 64;
	struct ht_ctf_field *f;

	while (cap < n) {
		cap *= 2;
	}
	f = realloc(kv->f, cap * sizeof(*f));
	if (!f) {
		return HT_ENOMEM;
	}
	kv->f = f;
	kv->cap = cap;
	return 0;
}

/* @n fields of template @t into @f: a field or two (a length, an
 * element) copied inline, cheaper than a call. */
static inline __attribute__((always_inline)) void
lay_fields(struct ht_ctf_field *restrict f,
	   const struct ht_ctf_field *restrict t, uint32_t n)
{
	if (n <= 2) {
		f[0] = t[0];
		if (n == 2) {
			f[1] = t[1];
		}
		return;
	}
	memcpy(f, t, n * sizeof(*f));
}

/*
 * The elements of array or sequence @m (its element run @er, @len
 * elements) at *@pos into fields @f, laid out unless @laid (their
 * fields hold the element template already): as exec_run() and the
 * general path's byte loop (ctf-fields.c) make them. Returns 0, or 1
 * when they do not fit in the packet content.
 */
static inline int flat_var_elems(struct ht__stream *s, const struct ht__op *m,
				 const struct ht__run *er, uint64_t len,
				 bool laid, uint64_t *pos,
				 struct ht_ctf_field *f)
{
	const struct ht__op *el = m + 1;
	const uint64_t base = s->pkt_off * 8;
	uint64_t p = *pos, k;

	if (el->kind == HT__OP_INT && el->fast == HT__FAST_U8 && el->reg < 0 &&
	    !el->meaning && !el->clock) {
		/* bytes (text): as the general path's byte loop */
		const uint8_t *b;

		p = (p + 7) & ~(uint64_t)7;
		if (p + len * 8 > s->content_end) {
			return 1;
		}
		b = s->map + (p >> 3);
		for (k = 0; k < len; k++) {
			if (!laid) {
				f[k].type = el->type;
				f[k].name = NULL;
				f[k].next = 1;
				f[k].nr_children = 0;
			}
			f[k].v.u = el->is_signed
				       ? (uint64_t)(int64_t)(int8_t)b[k]
				       : b[k];
		}
		*pos = p + len * 8;
		return 0;
	}
	if (er->one_le) {
		/* integers back to back: aligned once, checked once */
		const struct ht__leaf *l = er->leaves;
		const uint32_t step = er->size_bits / 8;
		const uint8_t *b;

		p = ht__align_in_packet(s, p, er->align_bits);
		if (p + len * er->size_bits > s->content_end) {
			return 1;
		}
		b = s->map + (p >> 3) + l->off_bytes;
		for (k = 0; k < len; k++) {
			uint64_t w;

			if (!laid) {
				f[k] = er->tmpl[0];
			}
			memcpy(&w, b + k * step, 8);
			f[k].v.u =
			    ((ht__le64(w) & l->mask) ^ l->sign) - l->sign;
		}
		*pos = p + len * er->size_bits;
		return 0;
	}
	for (k = 0; k < len; k++) {
		if (er->align_bits > 1) {
			/* ht__align_in_packet() */
			const uint64_t a = er->align_bits;

			p = base + ((p - base + a - 1) & ~(a - 1));
		}
		if (p + er->size_bits > s->content_end) {
			return 1;
		}
		if (!laid) {
			lay_fields(f, er->tmpl, er->nr_fields);
		}
		ht__run_load_inline(s, er, p, f);
		f += er->nr_fields;
		p += er->size_bits;
	}
	*pos = p;
	return 0;
}

/*
 * Decodes flat scope with sequences @p (see struct ht__plan) at s->pos
 * into the stream's kept fields @kv, laid out as the general path lays
 * them out: the layout is written again only from the first sequence
 * whose length differs from the last record's. Returns 0 with *@root
 * set, 1 when something does not fit in the packet content or in
 * HT__KEEP_VAR_FIELDS (the general path then takes the scope, and says
 * what is wrong), or a negative HT_E... code.
 */
static int decode_flat_var(struct ht__stream *s, const struct ht__plan *p,
			   struct ht__keep_var *kv,
			   const struct ht_ctf_field **root)
{
	const struct ht__op *ops = p->ops, *op = &ops[0];
	const struct ht__run *r = op->runs, *rend = r + op->nr_runs;
	/* locals: the stores to the fields may alias the stream's */
	const uint64_t end = s->content_end, base = s->pkt_off * 8;
	const uint8_t *map = s->map;
	uint64_t pos = s->pos, need;
	bool laid = kv->laid;
	uint32_t n = 1, j = 0;
	struct ht_ctf_field *kf;

	if (!kv->lens) {
		kv->lens = calloc(p->nr_var, sizeof(*kv->lens));
		if (!kv->lens) {
			return ht__stream_fail(s, HT_ENOMEM, pos,
					       "out of memory");
		}
	}
	/* room for the fields without the elements: each sequence then
	 * checks for its elements and the fields that may follow */
	if (p->flat_fields > kv->cap) {
		if (p->flat_fields > HT__KEEP_VAR_FIELDS) {
			return 1;
		}
		if (keep_var_grow(kv, p->flat_fields)) {
			goto nomem;
		}
	}
	kf = kv->f;
	/* a record cut short leaves the layout half written */
	kv->laid = false;
	if (op->align_bits > 1) {
		pos = ht__align_in_packet(s, pos, op->align_bits);
	}
	for (; r < rend; r++) {
		const struct ht_ctf_field *tmpl = r->tmpl;
		struct ht_ctf_field *f = kf + n;

		if (tmpl) {
			const uint32_t nf = r->nr_fields;
			const uint64_t size = r->size_bits;

			if (r->flat_align_bits > 1) {
				/* ht__align_in_packet() */
				const uint64_t a = r->flat_align_bits;

				pos = base + ((pos - base + a - 1) & ~(a - 1));
			}
			if (pos + size > end) {
				return 1;
			}
			if (!laid) {
				lay_fields(f, tmpl, nf);
			}
			flat_run_load(s, map, r, pos, f);
			pos += size;
			n += nf;
			continue;
		}
		const struct ht__op *m = &ops[r->member_op];

		if (m->kind == HT__OP_STRING) {
			const uint8_t *q, *z;

			q = packet_string(s, &pos, &z);
			if (!q) {
				return 1;
			}
			if (!laid) {
				f->type = m->type;
				f->name = m->name;
				f->next = 1;
			}
			f->v.str = (const char *)q;
			f->nr_children = z - q;
			pos += (uint64_t)(z - q + 1) * 8;
			n++;
		} else {
			const struct ht__run *er = m->elem_run;
			uint64_t len;

			if (r->flat_align_bits > 1) {
				pos = ht__align_in_packet(s, pos,
							  r->flat_align_bits);
			}
			if (!ht__elems_fit(s, ops, r->member_op, pos, &len) ||
			    len > HT__KEEP_VAR_FIELDS) {
				return 1;
			}
			need = n + 1 + len * er->nr_fields;
			/* with the fields that may follow (a bound) */
			if (need + p->flat_fields > kv->cap) {
				if (need + p->flat_fields >
				    HT__KEEP_VAR_FIELDS) {
					return 1;
				}
				if (keep_var_grow(kv, need + p->flat_fields)) {
					goto nomem;
				}
				kf = kv->f;
				f = kf + n;
			}
			if (laid && kv->lens[j] != len) {
				laid = false;
			}
			kv->lens[j++] = len;
			if (!laid) {
				f->type = m->type;
				f->name = m->name;
				f->next = (uint32_t)(1 + len * er->nr_fields);
				f->nr_children = (uint32_t)len;
			}
			if (flat_var_elems(s, m, er, len, laid, &pos, f + 1)) {
				return 1;
			}
			n = (uint32_t)need;
		}
	}
	kf[0].type = op->type;
	kf[0].name = NULL; /* as the general path names a scope */
	kf[0].next = n;
	kf[0].nr_children = op->nr;
	kv->laid = true;
	s->pos = pos;
	*root = kf;
	return 0;
nomem:
	return ht__stream_fail(s, HT_ENOMEM, pos, "out of memory");
}

/*
 * Decodes scope @p at s->pos. A fixed scope that fits in the packet
 * content goes into the stream's kept fields *@keep (made from the
 * template on first use) and *@root points to them; anything else is
 * appended to @fb and *@idx is its root's index there. Both stay NULL
 * and -1 when the scope is absent.
 */
static inline int run_scope(struct ht__stream *s, const struct ht__plan *p,
			    struct ht_ctf_field **keep, struct ht__fieldbuf *fb,
			    const struct ht_ctf_field **root, int64_t *idx)
{
	const struct ht__run *r = p->root_run;

	*root = NULL;
	*idx = -1;
	if (!p->nr_ops) {
		return 0;
	}
	if (r) {
		uint64_t pos = s->pos;

		if (r->align_bits > 1) {
			pos = ht__align_in_packet(s, pos, r->align_bits);
		}
		if (pos + r->size_bits <= s->content_end) {
			struct ht_ctf_field *f = *keep;

			if (!f) {
				f = malloc(r->nr_fields * sizeof(*f));
				if (!f) {
					return ht__stream_fail(
					    s, HT_ENOMEM, pos, "out of memory");
				}
				memcpy(f, r->tmpl, r->nr_fields * sizeof(*f));
				*keep = f;
			}
			ht__run_load_inline(s, r, pos, f);
			s->pos = pos + r->size_bits;
			*root = f;
			return 0;
		}
	}
	if (p->flat_tmpl) {
		int ret = decode_flat(s, p, keep, root);

		if (ret <= 0) {
			return ret;
		}
		/* it does not fit: the general path says where */
	}
	*idx = fb->n;
	return ht__scope_decode(s, p->ops, 0, NULL, fb, 0);
}

static inline const struct ht_ctf_field *
scope_root(const struct ht__fieldbuf *fb, const struct ht_ctf_field *root,
	   int64_t idx)
{
	if (root) {
		return root;
	}
	return idx >= 0 ? &fb->f[idx] : NULL;
}

/*
 * run_scope() for an event scope, whose kept fields may be those of a
 * flat scope with sequences (@kv).
 */
static inline int
run_event_scope(struct ht__stream *s, const struct ht__plan *p,
		struct ht_ctf_field **keep, struct ht__keep_var *kv,
		struct ht__fieldbuf *fb, const struct ht_ctf_field **root,
		int64_t *idx)
{
	if (p->flat_var) {
		int ret = decode_flat_var(s, p, kv, root);

		*idx = -1;
		if (ret <= 0) {
			return ret;
		}
		/* it does not fit: the general path says where */
	}
	return run_scope(s, p, keep, fb, root, idx);
}

static bool has_m(const struct ht__stream *s, enum ht__meaning m)
{
	return s->mset & (1u << m);
}

static inline int64_t to_ns(const struct ht__stream *s, uint64_t cycles)
{
	if (cycles < s->ns_direct_end) {
		return s->ns_base + (int64_t)cycles;
	}
	return s->sc ? ht__stream_class_to_ns(s->sc, cycles) : 0;
}

/* The event just decoded becomes the pending message, at the clock. */
static inline __attribute__((always_inline)) void
event_pending(struct ht__stream *s)
{
	s->cur = &s->ev_msg;
	if (s->ev_msg.has_time) {
		s->ev_msg.cycles = s->clock;
		s->ev_msg.ns = to_ns(s, s->clock);
		s->key = s->ev_msg.ns;
	}
}

int64_t ht__stream_to_ns(const struct ht__stream *s, uint64_t cycles)
{
	return to_ns(s, cycles);
}

/*
 * Releases the mapped pages more than 2 MiB before byte @upto (keeps
 * the resident size flat). Page cache folios are large (up to 2 MiB
 * here) and a fault maps a whole folio or a fault-around window:
 * released ranges end on a 2 MiB boundary at least 2 MiB behind the
 * current packet, else pages just released are mapped again (without
 * the margin `print` grew by 16 MiB per GiB read). A stream keeps at
 * most about 4 MiB plus its current packet mapped (bench/memory.sh and
 * tests/ctf/reader/test-memory.sh measure it, 16 streams at once too).
 */
#define RELEASE_ALIGN (UINT64_C(2) << 20)
#define RELEASE_MARGIN (UINT64_C(2) << 20)

void ht__stream_release(struct ht__stream *s, uint64_t upto)
{
	uint64_t to = upto > RELEASE_MARGIN
			  ? (upto - RELEASE_MARGIN) & ~(RELEASE_ALIGN - 1)
			  : 0;

	if (to > s->released) {
		madvise((void *)(s->map + s->released), to - s->released,
			MADV_DONTNEED);
		s->released = to;
	}
}

/* At the end of a stream: nothing of it stays mapped. */
void ht__stream_release_all(struct ht__stream *s)
{
	if (s->size > s->released) {
		madvise((void *)(s->map + s->released), s->size - s->released,
			MADV_DONTNEED);
		s->released = s->size;
	}
}

static void msg_init(struct ht__stream *s, struct ht_ctf_msg *m,
		     enum ht_ctf_msg_kind kind)
{
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->stream = &s->pub;
	m->packet = &s->pkt;
}

static void msg_time(struct ht__stream *s, struct ht_ctf_msg *m,
		     uint64_t cycles)
{
	m->has_time = true;
	m->cycles = cycles;
	m->ns = to_ns(s, cycles);
}

static int find_stream_class(struct ht__stream *s, uint64_t at)
{
	const struct ht_ctf_trace *t = &s->trace->pub;
	struct ht__stream_class *sc = NULL;
	size_t i;

	if (has_m(s, HT__M_STREAM_ID)) {
		uint64_t id = s->mval[HT__M_STREAM_ID];

		for (i = 0; i < t->nr_stream_classes; i++) {
			if (t->stream_classes[i]->id == id) {
				sc = (struct ht__stream_class *)
					 t->stream_classes[i];
			}
		}
		if (!sc) {
			return ht__stream_fail(
			    s, HT_EFORMAT, at,
			    "stream id %llu is not declared in the "
			    "metadata",
			    (unsigned long long)id);
		}
	} else if (t->nr_stream_classes == 1) {
		sc = (struct ht__stream_class *)t->stream_classes[0];
	} else {
		return ht__stream_fail(
		    s, HT_EFORMAT, at,
		    "the packet has no stream_id and the metadata "
		    "declares %zu streams",
		    t->nr_stream_classes);
	}
	if (s->sc && s->sc != sc) {
		return ht__stream_fail(
		    s, HT_EFORMAT, at,
		    "stream id %llu differs from the previous "
		    "packets' %llu",
		    (unsigned long long)sc->pub.id,
		    (unsigned long long)s->sc->pub.id);
	}
	if (!s->sc) {
		s->keep_ec = calloc(sc->pub.nr_event_classes * 2 + 1,
				    sizeof(*s->keep_ec));
		if (!s->keep_ec) {
			return ht__stream_fail(s, HT_ENOMEM, at,
					       "out of memory");
		}
		s->nr_keep_ec = sc->pub.nr_event_classes * 2;
		s->keep_var = calloc(s->nr_keep_ec + 1, sizeof(*s->keep_var));
		if (!s->keep_var) {
			return ht__stream_fail(s, HT_ENOMEM, at,
					       "out of memory");
		}
		s->sc = sc;
		s->pub.stream_class = &sc->pub;
		if (sc->pub.default_clock && sc->clock_is_ns && sc->base_ok) {
			/* ht__stream_class_to_ns()'s first case */
			s->ns_base = sc->base_ns;
			s->ns_direct_end =
			    sc->base_ns > 0
				? (uint64_t)(INT64_MAX - sc->base_ns) + 1
				: (uint64_t)INT64_MAX;
		}
		memset(&s->ev_msg, 0, sizeof(s->ev_msg));
		s->ev_msg.kind = HT_CTF_MSG_EVENT;
		s->ev_msg.stream = &s->pub;
		s->ev_msg.packet = &s->pkt;
		s->ev_msg.event = &s->ev;
		s->ev_msg.has_time = sc->pub.default_clock != NULL;
	}
	return 0;
}

void ht__stream_fini(struct ht__stream *s)
{
	size_t i;

	for (i = 0; i < HT__NR_KEEP; i++) {
		free(s->keep[i]);
	}
	for (i = 0; i < HT__HDR_OPTIONS; i++) {
		free(s->keep_hdr[i]);
	}
	for (i = 0; i < s->nr_keep_ec; i++) {
		free(s->keep_ec[i]);
	}
	free(s->keep_ec);
	for (i = 0; s->keep_var && i <= s->nr_keep_ec; i++) {
		free(s->keep_var[i].f);
		free(s->keep_var[i].lens);
	}
	free(s->keep_var);
	free(s->pf.f);
	free(s->ef.f);
	ht__utext_free(s);
}

/*
 * A packet scope for a scan without packet fields: only the integers
 * the reader needs are read; when anything is wrong the scope is
 * decoded again by run_scope(), which says what and where.
 */
static int scan_packet_scope(struct ht__stream *s, const struct ht__plan *p,
			     struct ht_ctf_field **keep,
			     struct ht__fieldbuf *fb,
			     const struct ht_ctf_field **root, int64_t *idx)
{
	uint64_t at = s->pos;
	uint32_t mset = s->mset;

	if (!ht__skip_scope(s, p)) {
		*root = NULL;
		*idx = -1;
		return 0;
	}
	s->pos = at;
	s->mset = mset;
	return run_scope(s, p, keep, fb, root, idx);
}

/* Reads the header and context of the packet at s->pkt_off. */
int ht__stream_read_packet(struct ht__stream *s, bool fields)
{
	int (*scope)(struct ht__stream *, const struct ht__plan *,
		     struct ht_ctf_field **, struct ht__fieldbuf *,
		     const struct ht_ctf_field **, int64_t *) =
	    fields ? run_scope : scan_packet_scope;
	uint64_t start = s->pkt_off * 8, end = s->size * 8;
	uint64_t psize, csize;
	const struct ht_ctf_field *hf, *cf;
	int64_t hroot, croot;
	int ret;

	s->next_known = false;
	s->pkt_index = s->pkts_read++;
	s->pos = start;
	s->content_end = end;
	/* the decoder's limits (ctf-stream.h) while the packet's size
	 * is not known */
	s->zero_left = s->fields_max =
	    (end - start < HT__PKT_SCOPES_BITS ? end - start
					       : HT__PKT_SCOPES_BITS) +
	    HT__ELEMS_SLACK;
	s->mset = 0;
	s->pf.n = 0;
	ret = scope(s, &s->trace->packet_header, &s->keep[HT__KEEP_PKT_HEADER],
		    &s->pf, &hf, &hroot);
	if (ret) {
		return ret;
	}
	if (has_m(s, HT__M_MAGIC) && s->mval[HT__M_MAGIC] != PKT_MAGIC) {
		return ht__stream_fail(s, HT_EFORMAT, start,
				       "wrong packet magic 0x%08llx (expected "
				       "0x%08x)",
				       (unsigned long long)s->mval[HT__M_MAGIC],
				       PKT_MAGIC);
	}
	ret = find_stream_class(s, start);
	if (ret) {
		return ret;
	}
	if (has_m(s, HT__M_STREAM_INSTANCE_ID)) {
		s->pub.has_instance_id = true;
		s->pub.instance_id = s->mval[HT__M_STREAM_INSTANCE_ID];
	}
	ret = scope(s, &s->sc->packet_context, &s->keep[HT__KEEP_PKT_CONTEXT],
		    &s->pf, &cf, &croot);
	if (ret) {
		return ret;
	}
	psize = has_m(s, HT__M_PACKET_SIZE) ? s->mval[HT__M_PACKET_SIZE]
					    : end - start;
	csize =
	    has_m(s, HT__M_CONTENT_SIZE) ? s->mval[HT__M_CONTENT_SIZE] : psize;
	if (!has_m(s, HT__M_PACKET_SIZE) && has_m(s, HT__M_CONTENT_SIZE)) {
		psize = csize; /* babeltrace2 does the same */
		psize = (psize + 7) & ~(uint64_t)7;
	}
	if (psize % 8 || psize == 0) {
		return ht__stream_fail(
		    s, HT_EFORMAT, start,
		    "packet_size %llu bits is not a positive "
		    "multiple of 8",
		    (unsigned long long)psize);
	}
	if (psize > end - start) {
		return ht__stream_fail(
		    s, HT_ETRUNC, start,
		    "packet_size %llu bytes goes past the end of "
		    "the file (%llu bytes left)",
		    (unsigned long long)(psize / 8),
		    (unsigned long long)((end - start) / 8));
	}
	s->next_pkt = s->pkt_off + psize / 8;
	s->next_known = true;
	s->last_psize = psize / 8;
	if (csize > psize) {
		return ht__stream_fail(s, HT_EFORMAT, start,
				       "content_size %llu bits is larger than "
				       "packet_size %llu bits",
				       (unsigned long long)csize,
				       (unsigned long long)psize);
	}
	if (s->pos > start + csize) {
		return ht__stream_fail(
		    s, HT_EFORMAT, start,
		    "the packet header and context (%llu bits) do "
		    "not fit in content_size %llu bits",
		    (unsigned long long)(s->pos - start),
		    (unsigned long long)csize);
	}
	s->content_end = start + csize;
	s->zero_left = s->fields_max = csize + HT__ELEMS_SLACK;

	memset(&s->pkt, 0, sizeof(s->pkt));
	s->pkt.offset_bytes = s->pkt_off;
	s->pkt.size_bits = psize;
	s->pkt.content_bits = csize;
	s->pkt.has_begin = has_m(s, HT__M_TS_BEGIN);
	s->pkt.begin_cycles = s->mval[HT__M_TS_BEGIN];
	s->pkt.has_end = has_m(s, HT__M_TS_END);
	s->pkt.end_cycles = s->mval[HT__M_TS_END];
	s->pkt.has_seq_num = has_m(s, HT__M_SEQ_NUM);
	s->pkt.seq_num = s->mval[HT__M_SEQ_NUM];
	s->pkt.has_discarded = has_m(s, HT__M_DISCARDED);
	s->pkt.discarded_snapshot = s->mval[HT__M_DISCARDED];
	s->pkt.header = scope_root(&s->pf, hf, hroot);
	s->pkt.context = scope_root(&s->pf, cf, croot);
	s->ev.scope[HT_CTF_SCOPE_PACKET_HEADER] = s->pkt.header;
	s->ev.scope[HT_CTF_SCOPE_PACKET_CONTEXT] = s->pkt.context;
	if (s->pkt.has_begin) {
		/* timestamp_begin set the clock if it is mapped; else */
		s->clock = s->pkt.begin_cycles;
	}
	return 0;
}

/* ---- time going backwards ---- */

/* The time the stream has reached (see struct ht__stream). */
static inline uint64_t reached_value(const struct ht__stream *s)
{
	return s->reached == UINT64_MAX ? s->reached_true : s->reached;
}

/* The stream has reached time @t (keeping a mark to clear). */
static inline void reach(struct ht__stream *s, uint64_t t)
{
	if (s->reached != UINT64_MAX) {
		s->reached = t;
	}
	/* a @t of UINT64_MAX reads as a mark: .reached_true keeps it */
	s->reached_true = t;
}

/*
 * The event just read takes event_time(): it is before the stream's
 * time, or a mark is set, or it is at UINT64_MAX itself (as .reached
 * that value would be taken for a mark with a stale .reached_true).
 */
static inline bool event_time_due(const struct ht__stream *s)
{
	return s->clock < s->reached || s->clock == UINT64_MAX;
}

void ht__stream_reached(struct ht__stream *s, uint64_t t)
{
	reach(s, t);
}

/* "S.NNNNNNNNN" seconds of @ns into @buf. */
static const char *fmt_ns(char buf[32], int64_t ns)
{
	uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;

	snprintf(buf, 32, "%s%llu.%09llu", ns < 0 ? "-" : "",
		 (unsigned long long)(a / 1000000000u),
		 (unsigned long long)(a % 1000000000u));
	return buf;
}

int ht__stream_time_back(struct ht__stream *s, uint64_t at_bits,
			 const char *what, uint64_t t, uint64_t before)
{
	char a[32], b[32];

	if (s->err_len) {
		snprintf(s->err, s->err_len,
			 "time goes backwards: file=%s packet=%llu "
			 "offset=%llu: %s at %llu cycles (%s s) is before the "
			 "stream's time so far, %llu cycles (%s s)",
			 s->pub.path, (unsigned long long)s->pkt_index,
			 (unsigned long long)(at_bits / 8), what,
			 (unsigned long long)t, fmt_ns(a, to_ns(s, t)),
			 (unsigned long long)before,
			 fmt_ns(b, to_ns(s, before)));
	}
	return HT_ERANGE;
}

/*
 * A packet whose times (its end, else its beginning) are past the last
 * value of the clock with a time in 64-bit ns: reported once per
 * stream, as babeltrace2 refuses such a time; the stream ends there,
 * or with HT_CTF_KEEP_GOING goes on with those times at INT64_MAX.
 */
static int __attribute__((noinline)) packet_range(struct ht__stream *s)
{
	const struct ht_ctf_clock *c = s->sc->pub.default_clock;
	uint64_t t = s->pkt.has_end ? s->pkt.end_cycles : s->pkt.begin_cycles;

	if (s->range_told) {
		return 0;
	}
	s->range_told = true;
	if (s->err_len) {
		snprintf(s->err, s->err_len,
			 "time out of range: file=%s packet=%llu offset=%llu: "
			 "the packet's %s at %llu cycles is past the last "
			 "time clock '%s' gives in 64-bit ns (%llu cycles)",
			 s->pub.path, (unsigned long long)s->pkt_index,
			 (unsigned long long)s->pkt_off,
			 s->pkt.has_end ? "timestamp_end" : "timestamp_begin",
			 (unsigned long long)t, c->name ? c->name : "",
			 (unsigned long long)s->sc->max_cycles);
	}
	if (!(s->flags & HT_CTF_KEEP_GOING)) {
		s->state = HT__S_END;
	}
	return HT_ERANGE;
}

int ht__stream_packet_time(struct ht__stream *s)
{
	uint64_t r = reached_value(s), t = s->pkt.begin_cycles;
	int ret;

	if (!s->pkt.has_begin || !s->sc->pub.default_clock) {
		return 0;
	}
	if (t >= r) {
		reach(s, t);
		/* (after the time's step back, if any, is reported: one
		 * error a call, the stream's time kept as without it) */
		if ((s->pkt.has_end ? s->pkt.end_cycles : t) >
		    s->sc->max_cycles) {
			return packet_range(s);
		}
		return 0;
	}
	ret = ht__stream_time_back(s, s->pkt_off * 8,
				   "the packet's timestamp_begin", t, r);
	if (!(s->flags & HT_CTF_KEEP_GOING)) {
		s->state = HT__S_END;
		return ret;
	}
	/* the packet's next event carries the mark */
	s->back_pending = r - t;
	s->reached_true = t;
	s->reached = UINT64_MAX;
	return ret;
}

int ht__stream_end_time(struct ht__stream *s)
{
	uint64_t r = s->clock, t = s->pkt.end_cycles;
	int ret;

	if (!s->pkt.has_end || !s->sc->pub.default_clock) {
		reach(s, r);
		return 0;
	}
	reach(s, t);
	if (t >= r) {
		return 0;
	}
	ret = ht__stream_time_back(s, s->pkt_off * 8,
				   "the packet's timestamp_end", t, r);
	if (!(s->flags & HT_CTF_KEEP_GOING)) {
		s->state = HT__S_END;
	}
	return ret;
}

/*
 * The event just read is before the time its stream reached, or a
 * mark is to be cleared or carried (s->reached is UINT64_MAX): the
 * event's mark is set or cleared; time going back is reported, the
 * event then comes on the next call with HT_CTF_KEEP_GOING, else the
 * stream ends.
 */
static int event_time(struct ht__stream *s)
{
	uint64_t r = reached_value(s), back;
	char what[300];
	int ret;

	s->ev_msg.back_cycles = 0;
	s->reached = s->reached_true = s->clock;
	if (!s->sc->pub.default_clock) {
		return 0;
	}
	back = s->clock < r ? r - s->clock : 0;
	if (!back && !s->back_pending) {
		return 0;
	}
	s->ev_msg.back_cycles = back > s->back_pending ? back : s->back_pending;
	s->back_pending = 0;
	/* the next event clears the mark */
	s->reached_true = s->clock;
	s->reached = UINT64_MAX;
	if (!back) {
		/* its packet's beginning went back: reported already */
		return 0;
	}
	snprintf(what, sizeof(what), "event '%s'", s->ev.cls->name);
	ret = ht__stream_time_back(s, s->ev_start, what, s->clock, r);
	if (!(s->flags & HT_CTF_KEEP_GOING)) {
		s->state = HT__S_END;
		return ret;
	}
	s->hold_state = s->state;
	s->state = HT__S_HOLD;
	return ret;
}

void ht__stream_losses(struct ht__stream *s, uint64_t *discarded,
		       uint64_t *lost)
{
	const struct ht_ctf_packet *p = &s->pkt;

	*discarded = *lost = 0;
	/* each count is non-zero exactly when babeltrace2 reports it */
	if (p->has_discarded &&
	    (s->prev_valid && s->prev_has_disc
		 ? p->discarded_snapshot != s->prev_disc
		 : !s->prev_valid && p->discarded_snapshot != 0)) {
		*discarded =
		    p->discarded_snapshot - (s->prev_valid ? s->prev_disc : 0);
	}
	if (p->has_seq_num && s->prev_valid && s->prev_has_seq &&
	    p->seq_num != s->prev_seq + 1) {
		*lost = p->seq_num - s->prev_seq - 1;
	}
	/* packets 0 to N - 1 before a first packet numbered N: lost too
	 * (a ring in overwrite mode), which babeltrace2 does not say */
	if (p->has_seq_num && !s->prev_valid && s->pkt_index == 0) {
		*lost = p->seq_num;
	}
	s->prev_valid = true;
	s->prev_has_end = p->has_end;
	s->prev_end = p->end_cycles;
	s->prev_has_seq = p->has_seq_num;
	s->prev_seq = p->seq_num;
	s->prev_has_disc = p->has_discarded;
	s->prev_disc = p->discarded_snapshot;
}

/* Queues DISCARDED_EVENTS, DISCARDED_PACKETS and PACKET_BEGIN. */
static void queue_packet_msgs(struct ht__stream *s)
{
	struct ht_ctf_packet *p = &s->pkt;
	struct ht_ctf_msg *m;
	/* the previous packet, before ht__stream_losses() moves it */
	bool prev_valid = s->prev_valid, prev_has_end = s->prev_has_end;
	uint64_t prev_end = s->prev_end, disc, lost;

	ht__stream_losses(s, &disc, &lost);
	s->qn = s->qi = 0;
	if (disc) {
		m = &s->q[s->qn++];
		msg_init(s, m, HT_CTF_MSG_DISCARDED_EVENTS);
		m->count = disc;
		if (p->has_end && (prev_valid ? prev_has_end : p->has_begin)) {
			m->has_range = true;
			m->begin_cycles =
			    prev_valid ? prev_end : p->begin_cycles;
			m->end_cycles = p->end_cycles;
			m->begin_ns = to_ns(s, m->begin_cycles);
			m->end_ns = to_ns(s, m->end_cycles);
			msg_time(s, m, m->begin_cycles);
		}
	}
	if (lost) {
		m = &s->q[s->qn++];
		msg_init(s, m, HT_CTF_MSG_DISCARDED_PACKETS);
		m->count = lost;
		m->before_first = !prev_valid;
		if (!prev_valid && p->has_begin) {
			msg_time(s, m, p->begin_cycles);
		} else if (prev_has_end && p->has_begin) {
			m->has_range = true;
			m->begin_cycles = prev_end;
			m->end_cycles = p->begin_cycles;
			m->begin_ns = to_ns(s, m->begin_cycles);
			m->end_ns = to_ns(s, m->end_cycles);
			msg_time(s, m, m->begin_cycles);
		}
	}
	if (!(s->flags & HT_CTF_EVENTS_ONLY)) {
		m = &s->q[s->qn++];
		msg_init(s, m, HT_CTF_MSG_PACKET_BEGIN);
		if (p->has_begin) {
			msg_time(s, m, p->begin_cycles);
		}
	}
}

/*
 * A scope of the fast path: absent, fixed or flat, into the kept fields.
 * Returns 0 with *@root set, 1 when the scope does not fit in the packet
 * content or its fields are not made yet (the general path then takes
 * the record), or a negative HT_E... code.
 */
static inline int fast_scope(struct ht__stream *s, const struct ht__plan *p,
			     struct ht_ctf_field **keep,
			     struct ht__keep_var *kv,
			     const struct ht_ctf_field **root)
{
	const struct ht__run *r = p->root_run;

	if (!p->nr_ops) {
		*root = NULL;
		return 0;
	}
	if (p->flat_var) {
		return decode_flat_var(s, p, kv, root);
	}
	if (r) {
		uint64_t pos = s->pos;
		struct ht_ctf_field *f = *keep;

		if (r->align_bits > 1) {
			pos = ht__align_in_packet(s, pos, r->align_bits);
		}
		if (!f || pos + r->size_bits > s->content_end) {
			return 1;
		}
		ht__run_load(s, r, pos, f);
		s->pos = pos + r->size_bits;
		*root = f;
		return 0;
	}
	return decode_flat(s, p, keep, root);
}

/*
 * The scopes after the event header of a record of fast class @ec
 * (at s->pos; the record starts at @start, its header's fields are
 * @hf) into the kept fields, and the event made pending. Returns 0, 1
 * when the general path must take the record (a scope does not fit or
 * its fields are not made yet, or the record is empty), or a negative
 * HT_E... code. Inlined in both header paths of read_event(): as a
 * call it costs the fixed-header path 2% (callgrind).
 */
static inline __attribute__((always_inline)) int
fast_record(struct ht__stream *s, struct ht__event_class *ec, uint64_t start,
	    const struct ht_ctf_field *hf)
{
	struct ht__stream_class *sc = s->sc;
	struct ht_ctf_field **kec = &s->keep_ec[2 * ec->index];
	struct ht__keep_var *kv = &s->keep_var[2 * ec->index];
	const struct ht_ctf_field *r1, *r2, *r3;
	int ret;

	s->ev_start = start;
	ret = fast_scope(s, &sc->event_context, &s->keep[HT__KEEP_EV_CONTEXT],
			 &s->keep_var[s->nr_keep_ec], &r1);
	if (!ret) {
		ret = fast_scope(s, &ec->context, &kec[0], &kv[0], &r2);
	}
	if (!ret) {
		ret = fast_scope(s, &ec->payload, &kec[1], &kv[1], &r3);
	}
	if (ret) {
		return ret;
	}
	if (s->pos == start) {
		return 1;
	}
	s->ev.cls = &ec->pub;
	s->ev.offset_bits = start;
	s->ev.scope[2] = hf;
	s->ev.scope[3] = r1;
	s->ev.scope[4] = r2;
	s->ev.scope[5] = r3;
	event_pending(s);
	return 0;
}

static inline const struct ht_ctf_field *hdr_var_fast(struct ht__stream *s);
static inline __attribute__((always_inline)) const struct ht_ctf_field *
hdr_var_word(struct ht__stream *s);

/*
 * Decodes the event record at s->pos into s->ev / s->ev_msg. The fast
 * path: a fast event header (see struct ht__stream_class), fixed or
 * LTTng's variant one, and an event class whose scopes are all fixed or
 * flat, decoded into the kept fields; anything else (and a record that
 * does not fit, which needs a message saying where) goes through
 * ht__stream_read_event().
 */
static inline int read_event(struct ht__stream *s)
{
	struct ht__stream_class *sc = s->sc;
	const struct ht__run *hr = sc->hdr_fast;
	struct ht_ctf_field *hf = s->keep[HT__KEEP_EV_HEADER];
	uint64_t start = s->pos, pos = start;
	int ret;

	if (hr && hf) {
		if (hr->align_bits > 1) {
			pos = ht__align_in_packet(s, pos, hr->align_bits);
		}
	}
	if (hr && hf && pos + hr->size_bits <= s->content_end) {
		struct ht__event_class *ec;

		ht__leaf_load_plain(hr->leaves, hr->leaves + hr->nr_leaves,
				    s->map, pos, hf);
		if (sc->hdr_ts >= 0) {
			ht__clock_update(s, hf[sc->hdr_ts].v.u,
					 sc->hdr_ts_bits);
		}
		if (sc->hdr_id >= 0) {
			uint64_t id = hf[sc->hdr_id].v.u;

			ec = id < sc->nr_by_id ? sc->by_id[id] : NULL;
		} else {
			ec = sc->pub.nr_event_classes == 1
				 ? (struct ht__event_class *)
				       sc->pub.event_classes[0]
				 : NULL;
		}
		if (ec && ec->fast) {
			s->pos = pos + hr->size_bits;
			ret = fast_record(s, ec, start, hf);
			if (ret <= 0) {
				return ret;
			}
			/* the general path decodes it again (the clock
			 * update gives the same value twice) */
			s->pos = start;
		}
	} else if (sc->hdr_var.nr) {
		const struct ht_ctf_field *vf;

		s->mset &= ~(1u << HT__M_EVENT_ID);
		vf = hdr_var_word(s);
		if (!vf) {
			vf = hdr_var_fast(s);
		}
		if (vf && has_m(s, HT__M_EVENT_ID)) {
			uint64_t id = s->mval[HT__M_EVENT_ID];
			struct ht__event_class *ec =
			    id < sc->nr_by_id ? sc->by_id[id] : NULL;

			if (ec && ec->fast) {
				ret = fast_record(s, ec, start, vf);
				if (ret <= 0) {
					return ret;
				}
			}
		}
		/* the same */
		s->pos = start;
	}
	return ht__stream_read_event(s);
}

/* The tag of variant event header @hv, @tag, into its field of the
 * option's kept fields @f, and what it saves (a register, the id). */
static inline __attribute__((always_inline)) void
hdr_var_tag(struct ht__stream *s, const struct ht__hdr_var *hv,
	    struct ht_ctf_field *f, uint64_t tag)
{
	f[1 + hv->tag.field].v.u = tag;
	s->regs[hv->tag.reg] = tag;
	s->mval[HT__M_EVENT_ID] = tag;
	s->mset |= 1u << HT__M_EVENT_ID;
}

/*
 * hdr_var_fast() for a header whose tag and timestamp are one word
 * (.tag_word, an .in_word option: LTTng's compact header), inline: one
 * load, no call. NULL for any other record, which hdr_var_fast() takes.
 */
static inline __attribute__((always_inline)) const struct ht_ctf_field *
hdr_var_word(struct ht__stream *s)
{
	const struct ht__hdr_var *hv = &s->sc->hdr_var;
	const struct ht__hdr_option *o;
	struct ht_ctf_field *f;
	uint64_t pos = s->pos, w, tag, ts;

	if (!hv->tag_word) {
		return NULL;
	}
	if (hv->align_bits > 1) {
		pos = ht__align_in_packet(s, pos, hv->align_bits);
	}
	if (pos + hv->tag_bits > s->content_end) {
		return NULL;
	}
	memcpy(&w, s->map + (pos >> 3), 8);
	w = ht__le64(w);
	tag = w & hv->tag.mask;
	o = ht__hdr_option(hv, tag);
	if (!o || !o->in_word || !(f = s->keep_hdr[o->index]) ||
	    pos + hv->tag_bits + o->size_bits > s->content_end) {
		return NULL;
	}
	ts = (w >> hv->tag_bits) & o->ts.mask;
	hdr_var_tag(s, hv, f, tag);
	f[o->field_base + o->ts.field].v.u = ts;
	ht__clock_update(s, ts, o->ts.size_bits);
	s->pos = pos + hv->tag_bits + o->size_bits;
	return f;
}

/*
 * An LTTng-style variant event header (.hdr_var) at s->pos, for an
 * option already seen in this stream: the tag's run and the option's
 * run are loaded into the option's kept fields, with their side
 * effects (the id, the clock). Returns the header's fields, or NULL
 * when the general path must decode it (a first or damaged record).
 */
static inline const struct ht_ctf_field *hdr_var_fast(struct ht__stream *s)
{
	const struct ht__hdr_var *hv = &s->sc->hdr_var;
	const struct ht__hdr_option *o;
	const struct ht__run *r;
	struct ht_ctf_field *f;
	uint64_t pos = s->pos, p2, tag;

	if (hv->align_bits > 1) {
		pos = ht__align_in_packet(s, pos, hv->align_bits);
	}
	if (pos + hv->tag_bits > s->content_end) {
		return NULL;
	}
	tag = ht__leaf_value(s->map, pos, &hv->tag);
	o = ht__hdr_option(hv, tag);
	if (!o || !(f = s->keep_hdr[o->index])) {
		return NULL;
	}
	p2 = pos + hv->tag_bits;
	if (o->align_bits > 1) {
		p2 = ht__align_in_packet(s, p2, o->align_bits);
	}
	if (p2 + o->size_bits > s->content_end) {
		return NULL;
	}
	/* the runs' plain leaves, then the ones that save something (the
	 * tag, the option's id and timestamp: see plan_hdr_variant()), in
	 * the runs' order */
	r = hv->tag_run;
	if (r->nr_plain) {
		ht__run_load_plain(r, s->map, pos, f + 1);
	}
	hdr_var_tag(s, hv, f, tag);
	r = o->run;
	if (r->nr_plain) {
		ht__run_load_plain(r, s->map, p2, f + o->field_base);
	}
	if (o->has_id) {
		uint64_t id = ht__leaf_value(s->map, p2, &o->id);

		f[o->field_base + o->id.field].v.u = id;
		s->mval[HT__M_EVENT_ID] = id;
	}
	if (o->has_ts) {
		uint64_t ts = ht__leaf_value(s->map, p2, &o->ts);

		f[o->field_base + o->ts.field].v.u = ts;
		ht__clock_update(s, ts, o->ts.size_bits);
	}
	s->pos = p2 + o->size_bits;
	return f;
}

/*
 * Keeps the fields of a variant event header the general path just
 * decoded at the start of s->ef (from record start @at), when they
 * are laid out as hdr_var_fast() expects.
 */
static void keep_hdr_var(struct ht__stream *s, uint64_t at)
{
	const struct ht__hdr_var *hv = &s->sc->hdr_var;
	const struct ht__hdr_option *o;
	struct ht_ctf_field **keep;
	uint64_t pos = at;
	uint32_t n;

	if (hv->align_bits > 1) {
		pos = ht__align_in_packet(s, pos, hv->align_bits);
	}
	o = ht__hdr_option(hv, ht__leaf_value(s->map, pos, &hv->tag));
	if (!o || *(keep = &s->keep_hdr[o - hv->opt])) {
		return;
	}
	n = s->ef.f[0].next;
	if (n != o->field_base + o->run->nr_fields || n > s->ef.n ||
	    s->ef.f[o->field_base - 2].type->kind != HT_CTF_VARIANT) {
		return;
	}
	*keep = malloc(n * sizeof(*s->ef.f));
	if (*keep) {
		memcpy(*keep, s->ef.f, n * sizeof(*s->ef.f));
	}
}

int ht__stream_read_event(struct ht__stream *s)
{
	struct ht__stream_class *sc = s->sc;
	struct ht__event_class *ec = NULL;
	const struct ht_ctf_field *root[4];
	struct ht_ctf_field **kec;
	struct ht__keep_var *kv;
	int64_t idx[4];
	uint64_t id;
	int ret;

	s->ev_start = s->pos;
	s->ef.n = 0;
	s->mset &= ~(1u << HT__M_EVENT_ID);
	root[0] = sc->hdr_var.nr ? hdr_var_fast(s) : NULL;
	idx[0] = -1;
	if (!root[0]) {
		ret = run_scope(s, &sc->event_header,
				&s->keep[HT__KEEP_EV_HEADER], &s->ef, &root[0],
				&idx[0]);
		if (ret) {
			return ret;
		}
		if (sc->hdr_var.nr && idx[0] == 0) {
			keep_hdr_var(s, s->ev_start);
		}
	}
	if (has_m(s, HT__M_EVENT_ID)) {
		id = s->mval[HT__M_EVENT_ID];
		if (id < sc->nr_by_id) {
			ec = sc->by_id[id];
		} else {
			size_t k;

			for (k = 0; k < sc->pub.nr_event_classes; k++) {
				if (sc->pub.event_classes[k]->id == id) {
					ec = (struct ht__event_class *)
						 sc->pub.event_classes[k];
				}
			}
		}
	} else if (sc->pub.nr_event_classes == 1) {
		ec = (struct ht__event_class *)sc->pub.event_classes[0];
		id = ec->pub.id;
	} else {
		return ht__stream_fail(
		    s, HT_EFORMAT, s->ev_start,
		    "the event header has no id and the stream "
		    "declares %zu events",
		    sc->pub.nr_event_classes);
	}
	if (!ec) {
		return ht__stream_fail(s, HT_EFORMAT, s->ev_start,
				       "event id %llu is not declared",
				       (unsigned long long)id);
	}
	kec = &s->keep_ec[2 * ec->index];
	kv = &s->keep_var[2 * ec->index];
	ret = run_event_scope(
	    s, &sc->event_context, &s->keep[HT__KEEP_EV_CONTEXT],
	    &s->keep_var[s->nr_keep_ec], &s->ef, &root[1], &idx[1]);
	if (!ret) {
		ret = run_event_scope(s, &ec->context, &kec[0], &kv[0], &s->ef,
				      &root[2], &idx[2]);
	}
	if (!ret) {
		ret = run_event_scope(s, &ec->payload, &kec[1], &kv[1], &s->ef,
				      &root[3], &idx[3]);
	}
	if (ret) {
		return ret;
	}
	if (s->pos == s->ev_start) {
		return ht__stream_fail(s, HT_EFORMAT, s->ev_start,
				       "event '%s' has a size of zero bits",
				       ec->pub.name);
	}
	/* the field arrays are final now: scope roots in s->ef are safe
	 * to point to */
	s->ev.cls = &ec->pub;
	s->ev.offset_bits = s->ev_start;
	s->ev.scope[2] = scope_root(&s->ef, root[0], idx[0]);
	s->ev.scope[3] = scope_root(&s->ef, root[1], idx[1]);
	s->ev.scope[4] = scope_root(&s->ef, root[2], idx[2]);
	s->ev.scope[5] = scope_root(&s->ef, root[3], idx[3]);
	event_pending(s);
	return 0;
}

void ht__stream_rewind(struct ht__stream *s)
{
	s->state = HT__S_BEGIN;
	s->pkt_off = 0;
	s->last_psize = 0;
	s->prev_valid = false;
	s->clock = 0;
	s->reached = s->reached_true = s->back_pending = 0;
	s->ev_msg.back_cycles = 0;
	s->pkts_read = s->pkt_index = 0;
	s->key = INT64_MIN;
	s->qn = s->qi = 0;
	s->released = 0;
}

static int deliver_queued(struct ht__stream *s)
{
	s->cur = &s->q[s->qi++];
	if (s->cur->has_time) {
		s->key = s->cur->ns;
	}
	if (s->qi == s->qn) {
		s->state = HT__S_EVENTS;
	}
	return 0;
}

void ht__stream_end_packet(struct ht__stream *s)
{
	s->pkt_off = s->next_pkt;
	s->state = HT__S_PACKET;
}

/*
 * Whether the packet header starts with a 32-bit magic field: then a
 * packet whose size is unknown can be skipped by looking for the next
 * magic.
 */
static bool magic_first(const struct ht__stream *s, uint8_t bytes[4])
{
	const struct ht__run *r = s->trace->packet_header.root_run;
	uint32_t m = PKT_MAGIC;
	uint32_t i;

	if (!r) {
		return false;
	}
	for (i = 0; i < r->nr_leaves; i++) {
		const struct ht__leaf *l = &r->leaves[i];

		if (l->meaning == HT__M_MAGIC && l->off_bits == 0 &&
		    l->size_bits == 32) {
			for (i = 0; i < 4; i++) {
				bytes[l->bo == HT_CTF_LE ? i : 3 - i] =
				    (uint8_t)(m >> (8 * i));
			}
			return true;
		}
	}
	return false;
}

/*
 * After damage in the packet at s->pkt_off whose size is unknown (bad
 * magic, a packet_size past the end of the file): the next packet is
 * taken at the previous packet's size when a magic is there (tracers
 * mostly write packets of one size), else at the next magic found at
 * any byte offset after the damaged packet's start. Returns false when
 * there is none: the stream ends.
 */
static bool resync(struct ht__stream *s)
{
	uint8_t magic[4];
	uint64_t at;
	const uint8_t *p;

	if (!magic_first(s, magic) || s->pkt_off + 1 >= s->size) {
		return false;
	}
	at = s->pkt_off + s->last_psize;
	if (s->last_psize && at + 4 <= s->size &&
	    !memcmp(s->map + at, magic, 4)) {
		s->next_pkt = at;
		return true;
	}
	p = memmem(s->map + s->pkt_off + 1, s->size - s->pkt_off - 1, magic, 4);
	if (!p) {
		return false;
	}
	s->next_pkt = p - s->map;
	return true;
}

int ht__stream_damaged(struct ht__stream *s, int ret)
{
	/* with keep-going the stream resumes at the next packet when
	 * its position is known or can be found again; else it ends */
	if ((s->flags & HT_CTF_KEEP_GOING) && (s->next_known || resync(s))) {
		ht__stream_end_packet(s);
	} else {
		s->state = HT__S_END;
	}
	return ret;
}

static int stream_advance_slow(struct ht__stream *s);

/* The current packet was passed by a seek, its records unread: the
 * state a read of it would leave (its end, sequence number and
 * discarded count, for the next packet's checks), and its end time. */
static void passed_packet(struct ht__stream *s)
{
	s->prev_valid = true;
	s->prev_has_end = true;
	s->prev_end = s->pkt.end_cycles;
	s->prev_has_seq = s->pkt.has_seq_num;
	s->prev_seq = s->pkt.seq_num;
	s->prev_has_disc = s->pkt.has_discarded;
	s->prev_disc = s->pkt.discarded_snapshot;
	reach(s, s->pkt.end_cycles);
}

int ht__stream_advance(struct ht__stream *s)
{
	/* the usual case: the next event of the current packet */
	if (s->state == HT__S_EVENTS && s->pos < s->content_end &&
	    !s->seeking) {
		int ret = read_event(s);

		if (ret) {
			return ht__stream_damaged(s, ret);
		}
		if (event_time_due(s)) {
			return event_time(s);
		}
		s->reached = s->clock;
		return 0;
	}
	return stream_advance_slow(s);
}

static int stream_advance_slow(struct ht__stream *s)
{
	int ret;

	for (;;) {
		switch (s->state) {
		case HT__S_BEGIN:
			s->state = HT__S_PACKET;
			if (s->flags & HT_CTF_EVENTS_ONLY || s->seeking) {
				continue;
			}
			msg_init(s, &s->msg, HT_CTF_MSG_STREAM_BEGIN);
			s->msg.packet = NULL;
			s->cur = &s->msg;
			s->key = INT64_MIN;
			return 0;
		case HT__S_PACKET:
			ht__stream_release(s, s->pkt_off);
			if (s->pkt_off >= s->size) {
				s->state = HT__S_END;
				continue;
			}
			ret = ht__stream_read_packet(s, true);
			if (ret) {
				goto damaged;
			}
			if (s->seeking && s->pkt.has_end &&
			    to_ns(s, s->pkt.end_cycles) < s->seek_ns) {
				/* the whole packet is before the target */
				passed_packet(s);
				ht__stream_end_packet(s);
				continue;
			}
			queue_packet_msgs(s);
			s->state = s->qn ? HT__S_QUEUE : HT__S_EVENTS;
			ret = ht__stream_packet_time(s);
			if (ret) {
				return ret;
			}
			continue;
		case HT__S_QUEUE:
			/* a seek ends at the first message at or after its
			 * time, whatever its type: then the messages after
			 * it come in the same order as without the seek */
			deliver_queued(s);
			if (s->seeking) {
				if (!s->cur->has_time ||
				    s->cur->ns < s->seek_ns) {
					continue;
				}
				s->seeking = false;
			}
			return 0;
		case HT__S_EVENTS:
			if (s->pos >= s->content_end) {
				/* time going back at the end: reported
				 * first, the message held for the next call */
				int back = ht__stream_end_time(s);

				if (back && s->state == HT__S_END) {
					return back;
				}
				ht__stream_end_packet(s);
				if ((s->flags & HT_CTF_EVENTS_ONLY) ||
				    (s->seeking &&
				     (!s->pkt.has_end ||
				      to_ns(s, s->pkt.end_cycles) <
					  s->seek_ns))) {
					if (back) {
						return back;
					}
					continue;
				}
				s->seeking = false;
				msg_init(s, &s->msg, HT_CTF_MSG_PACKET_END);
				s->cur = &s->msg;
				if (s->pkt.has_end) {
					msg_time(s, &s->msg, s->pkt.end_cycles);
					s->key = s->msg.ns;
				}
				if (back) {
					s->hold_state = s->state;
					s->state = HT__S_HOLD;
				}
				return back;
			}
			ret = read_event(s);
			if (ret) {
				goto damaged;
			}
			if (event_time_due(s)) {
				ret = event_time(s);
				if (ret) {
					return ret;
				}
			} else {
				s->reached = s->clock;
			}
			if (s->seeking) {
				if (s->ev_msg.has_time &&
				    s->ev_msg.ns < s->seek_ns) {
					continue;
				}
				s->seeking = false;
			}
			return 0;
		case HT__S_END:
			ht__stream_release_all(s);
			s->state = HT__S_DONE;
			if (s->flags & HT_CTF_EVENTS_ONLY) {
				continue;
			}
			msg_init(s, &s->msg, HT_CTF_MSG_STREAM_END);
			s->msg.packet = NULL;
			s->cur = &s->msg;
			return 0;
		case HT__S_DONE:
			s->seeking = false;
			return HT_EEOF;
		case HT__S_HOLD:
			/* the message reported as going back in time */
			s->state = s->hold_state;
			return 0;
		}
	}
damaged:
	return ht__stream_damaged(s, ret);
}

/* ---- seeking a packet by time ---- */

/*
 * Whether the packet context of @s's class has 64-bit timestamp_begin
 * and timestamp_end at fixed places: then a packet's times are known
 * from its own header, without the packets before it (narrower ones
 * wrap, and only a walk from the start extends them).
 */
static bool ts_fixed64(const struct ht__stream *s)
{
	const struct ht__run *r = s->sc ? s->sc->packet_context.root_run : NULL;
	unsigned found = 0;
	uint32_t i;

	for (i = 0; r && i < r->nr_leaves; i++) {
		const struct ht__leaf *l = &r->leaves[i];

		if ((l->meaning == HT__M_TS_BEGIN ||
		     l->meaning == HT__M_TS_END) &&
		    l->size_bits == 64) {
			found++;
		}
	}
	return found == 2;
}

/*
 * Reads the header and context of packet @k (of @psize bytes each):
 * true when it is a whole packet of that size with both times in
 * order, between @lo_end and @hi_begin (the times of the packets
 * probed below and above it).
 */
static bool probe_packet(struct ht__stream *s, uint64_t k, uint64_t psize,
			 uint64_t lo_end, uint64_t hi_begin)
{
	s->pkt_off = k * psize;
	s->pkts_read = k;
	if (ht__stream_read_packet(s, false)) {
		return false;
	}
	return s->pkt.size_bits == psize * 8 && s->pkt.has_begin &&
	       s->pkt.has_end && s->pkt.begin_cycles <= s->pkt.end_cycles &&
	       s->pkt.begin_cycles >= lo_end && s->pkt.end_cycles <= hi_begin;
}

/*
 * Bisects the packets of @s, all of the first one's size, for the
 * first one that ends at or after @ns; returns its index, or 0 when
 * the stream cannot be bisected (then the caller walks from the
 * start). Every probed packet is checked (probe_packet()): any doubt
 * gives 0.
 */
static uint64_t bisect_packets(struct ht__stream *s, int64_t ns)
{
	uint64_t psize, n, lo = 0, hi, lo_end = 0, hi_begin = UINT64_MAX;

	s->pkt_off = 0;
	if (ht__stream_read_packet(s, false) || !s->pkt.has_begin ||
	    !s->pkt.has_end || !ts_fixed64(s)) {
		return 0;
	}
	psize = s->pkt.size_bits / 8;
	n = s->size / psize;
	if (n < 2 || to_ns(s, s->pkt.end_cycles) >= ns) {
		return 0;
	}
	lo_end = s->pkt.end_cycles;
	lo = 1;
	hi = n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (!probe_packet(s, mid, psize, lo_end, hi_begin)) {
			return 0;
		}
		if (to_ns(s, s->pkt.end_cycles) < ns) {
			lo = mid + 1;
			lo_end = s->pkt.end_cycles;
		} else {
			hi = mid;
			hi_begin = s->pkt.begin_cycles;
		}
	}
	/* packet lo - 1 ends before @ns: it becomes the previous one */
	if (!probe_packet(s, lo - 1, psize, 0, hi_begin)) {
		return 0;
	}
	return lo;
}

int ht__stream_seek_packet(struct ht__stream *s, int64_t ns)
{
	uint64_t k = bisect_packets(s, ns);

	if (!k) {
		ht__stream_rewind(s);
		return 0;
	}
	/* the state a walk from the start has after packet k - 1 (see
	 * the seeking case of stream_advance_slow()) */
	passed_packet(s);
	s->pkt_off = s->next_pkt;
	s->pkts_read = k;
	s->state = HT__S_PACKET;
	return 0;
}
