/* SPDX-License-Identifier: MIT */
/*
 * The fixed packet layout (ctf-layout.h): the metadata parsed and
 * compiled like a trace's, then the header and context types walked
 * member by member while their sizes are fixed, the fields the packet
 * handlers need located on the way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf-layout.h"
#include "ctf-model.h"
#include "common/error.h"

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/*
 * The walk's bounds: metadata can come from the target, so neither the
 * nesting, nor the number of types visited, nor the size of a packet
 * header may grow without limit (an array is sized once, whatever its
 * length: `struct { } a[16384][16384]` costs two steps).
 */
#define WALK_MAX_DEPTH 32
#define WALK_MAX_STEPS 100000
#define WALK_MAX_BITS (UINT64_C(1) << 32)

/*
 * Advances @pos past a field of type @t; false when its size varies or
 * the walk goes past its bounds (*@steps: the types visited so far).
 */
static bool advance(const struct ht_ctf_type *t, uint64_t *pos, int depth,
		    unsigned *steps)
{
	uint64_t start, size, stride;
	size_t m;

	if (depth > WALK_MAX_DEPTH || ++*steps > WALK_MAX_STEPS ||
	    *pos > WALK_MAX_BITS) {
		return false;
	}
	*pos = align_up(*pos, t->align_bits);
	switch (t->kind) {
	case HT_CTF_INT:
	case HT_CTF_FLOAT:
		*pos += t->size_bits;
		return !t->varint; /* a CTF 2 LEB128 integer: its own size */
	case HT_CTF_ENUM:
		*pos += t->container->size_bits;
		return !t->container->varint;
	case HT_CTF_STRUCT:
		for (m = 0; m < t->nr_members; m++) {
			if (!advance(t->members[m].type, pos, depth + 1,
				     steps)) {
				return false;
			}
		}
		return *pos <= WALK_MAX_BITS;
	case HT_CTF_ARRAY:
		if (!t->length) {
			return true;
		}
		/* the first element from an aligned start: every element
		 * starts aligned, so they all have its size */
		start = align_up(*pos, t->element->align_bits);
		if (!advance(t->element, pos, depth + 1, steps)) {
			return false;
		}
		size = *pos - start;
		stride = align_up(size, t->element->align_bits);
		if (stride && t->length - 1 > (WALK_MAX_BITS - *pos) / stride) {
			return false;
		}
		*pos += (t->length - 1) * stride;
		return true;
	default:
		return false;
	}
}

static void locate(struct ht_ctf_field_loc *l, const struct ht_ctf_type *t,
		   uint64_t pos)
{
	const struct ht_ctf_type *it =
	    t->kind == HT_CTF_ENUM ? t->container : t;

	if (it->kind != HT_CTF_INT || it->varint || pos > UINT32_MAX) {
		return;
	}
	l->set = true;
	l->bo = (uint8_t)it->byte_order;
	l->size_bits = (uint16_t)it->size_bits;
	l->bit = (uint32_t)align_up(pos, it->align_bits);
}

/*
 * Walks the members of scope @t from @pos; locates the members named in
 * @names into @locs. Returns the end position, or 0 when a member of
 * variable size comes first (the members after it stay unlocated).
 */
static uint64_t walk_scope(const struct ht_ctf_type *t, uint64_t pos,
			   const char *const *names,
			   struct ht_ctf_field_loc *const *locs, size_t nr)
{
	unsigned steps = 0;
	size_t m, j;

	if (!t) {
		return pos;
	}
	if (t->kind != HT_CTF_STRUCT) {
		return 0;
	}
	pos = align_up(pos, t->align_bits);
	for (m = 0; m < t->nr_members; m++) {
		const char *name = t->members[m].name;
		const struct ht_ctf_type *mt = t->members[m].type;

		for (j = 0; j < nr; j++) {
			if (!strcmp(name, names[j])) {
				locate(locs[j], mt, pos);
			}
		}
		if (!advance(mt, &pos, 0, &steps)) {
			return 0;
		}
	}
	return pos;
}

static int layout_build(struct ht_ctf_packet_layout *lay,
			const struct ht_ctf_trace *pt, const char *what,
			char *err, size_t err_len)
{
	const char *hnames[] = {"magic", "stream_id"};
	struct ht_ctf_field_loc *hlocs[] = {&lay->magic, &lay->stream_id};
	uint64_t hend;
	size_t i;

	if (pt->nr_stream_classes == 0) {
		snprintf(err, err_len, "%s: metadata: no stream class", what);
		return HT_EFORMAT;
	}
	hend = walk_scope(pt->packet_header, 0, hnames, hlocs, 2);
	if (!hend && pt->packet_header) {
		snprintf(err, err_len,
			 "%s: metadata: the packet header has a member of "
			 "variable size: packets cannot be located",
			 what);
		return HT_EUNSUPPORTED;
	}
	if (pt->nr_stream_classes > 1 && !lay->stream_id.set) {
		snprintf(err, err_len,
			 "%s: metadata: %zu stream classes but no "
			 "stream_id in the packet header",
			 what, pt->nr_stream_classes);
		return HT_EFORMAT;
	}
	lay->ctx = calloc(pt->nr_stream_classes, sizeof(*lay->ctx));
	if (!lay->ctx) {
		return HT_ENOMEM;
	}
	lay->nr_ctx = pt->nr_stream_classes;
	for (i = 0; i < lay->nr_ctx; i++) {
		const struct ht_ctf_stream_class *sc = pt->stream_classes[i];
		struct ht_ctf_packet_context_layout *cl = &lay->ctx[i];
		const char *names[] = {"packet_size",	   "content_size",
				       "events_discarded", "packet_seq_num",
				       "timestamp_begin",  "timestamp_end"};
		struct ht_ctf_field_loc *locs[] = {
		    &cl->packet_size, &cl->content_size, &cl->discarded,
		    &cl->seq_num,     &cl->ts_begin,	 &cl->ts_end};

		cl->id = sc->id;
		cl->end_bits =
		    walk_scope(sc->packet_context, hend, names, locs, 6);
		if (cl->end_bits > 8u * 4096u) {
			cl->end_bits = 0; /* too large to be kept as fixed */
		}
		if ((cl->end_bits + 7u) / 8u > lay->hc_bytes) {
			lay->hc_bytes = (uint32_t)((cl->end_bits + 7u) / 8u);
		}
		if (!cl->packet_size.set) {
			snprintf(err, err_len,
				 "%s: metadata: stream class %llu: no "
				 "packet_size at a fixed place in the packet "
				 "context: packets cannot be delimited",
				 what, (unsigned long long)sc->id);
			return HT_EUNSUPPORTED;
		}
	}
	return 0;
}

uint64_t ht_ctf_field_loc_read(const uint8_t *buf,
			       const struct ht_ctf_field_loc *l)
{
	uint64_t v = 0;
	unsigned i, n = l->size_bits;

	if (l->bit % 8u == 0 && n % 8u == 0) {
		const uint8_t *p = buf + l->bit / 8u;

		for (i = 0; i < n / 8u; i++) {
			if (l->bo == HT_CTF_LE) {
				v |= (uint64_t)p[i] << (8u * i);
			} else {
				v = (v << 8) | p[i];
			}
		}
		return v;
	}
	for (i = 0; i < n; i++) {
		uint32_t b = l->bit + i;
		unsigned bit;

		if (l->bo == HT_CTF_LE) {
			bit = (buf[b / 8u] >> (b % 8u)) & 1u;
			v |= (uint64_t)bit << i;
		} else {
			bit = (buf[b / 8u] >> (7u - b % 8u)) & 1u;
			v = (v << 1) | bit;
		}
	}
	return v;
}

void ht_ctf_field_loc_write(uint8_t *buf, const struct ht_ctf_field_loc *l,
			    uint64_t v)
{
	unsigned i, n = l->size_bits;

	for (i = 0; i < n; i++) {
		uint32_t b = l->bit + i;
		unsigned bit;

		if (l->bo == HT_CTF_LE) {
			bit = (unsigned)(v >> i) & 1u;
			buf[b / 8u] =
			    (uint8_t)((buf[b / 8u] & ~(1u << (b % 8u))) |
				      (bit << (b % 8u)));
		} else {
			bit = (unsigned)(v >> (n - 1u - i)) & 1u;
			buf[b / 8u] =
			    (uint8_t)((buf[b / 8u] & ~(0x80u >> (b % 8u))) |
				      (bit << (7u - b % 8u)));
		}
	}
}

static void trace_free(struct ht__trace *t)
{
	if (t) {
		free(t->metadata_path);
		ht__arena_fini(&t->arena);
		free(t);
	}
}

/* Loads TSDL @text into a new trace, freed with trace_free(). */
static int trace_load(const char *path, const char *text, size_t len,
		      struct ht__trace **out, char *err, size_t err_len)
{
	struct ht__trace *t = calloc(1, sizeof(*t));
	int ret;

	if (!t) {
		return HT_ENOMEM;
	}
	/* for the messages that name the file */
	t->metadata_path = strdup(path);
	if (!t->metadata_path) {
		free(t);
		return HT_ENOMEM;
	}
	ret = ht__trace_load(t, path, text, len, NULL, err, err_len);
	if (ret) {
		trace_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

int ht_ctf_packet_layout_read(struct ht_ctf_packet_layout *lay,
			      const char *path, const char *text, size_t len,
			      const char *what, char *err, size_t err_len)
{
	struct ht__trace *t;
	int ret;

	memset(lay, 0, sizeof(*lay));
	ret = trace_load(path, text, len, &t, err, err_len);
	if (ret) {
		return ret;
	}
	lay->trace = &t->pub;
	ret = layout_build(lay, &t->pub, what, err, err_len);
	if (ret) {
		ht_ctf_packet_layout_fini(lay);
	}
	return ret;
}

void ht_ctf_packet_layout_fini(struct ht_ctf_packet_layout *lay)
{
	/* the public trace is the first member of the private one */
	trace_free((struct ht__trace *)lay->trace);
	free(lay->ctx);
	memset(lay, 0, sizeof(*lay));
}

int ht_ctf_metadata_check(const char *path, const char *text, size_t len,
			  char *err, size_t err_len)
{
	struct ht__trace *t = NULL;
	int ret = trace_load(path, text, len, &t, err, err_len);

	trace_free(t);
	return ret;
}
