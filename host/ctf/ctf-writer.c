/* SPDX-License-Identifier: MIT */
/*
 * The CTF 1.8 writer (ctf-writer.h): TSDL from the reader's type trees,
 * fields encoded back with the types they were decoded with.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf-writer.h"
#include "common/error.h"

#define CTF_MAGIC 0xc1fc1fc1u
#define DEFAULT_PACKET_BYTES (64u * 1024u)

/* Packet header and context layout (all byte-aligned, little-endian). */
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
	OFF_CPU_ID = 76, /* classes with a cpu_id only */
	HEADER_BYTES = 76,
	FIRST_EVENT_BYTES = 76, /* the event header is align(8): bits */
};

/* A growable string for the metadata. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

struct wevent_class {
	const struct ht_ctf_event_class *cls;
};

struct wstream_class {
	uint64_t id;
	const struct ht_ctf_type *event_context;
	struct wevent_class *classes;
	size_t nr_classes, cap_classes;
	bool has_cpu_id;
	size_t nr_streams;
};

struct ht_ctf_wstream {
	struct ht_ctf_writer *w;
	struct wstream_class *sc;
	char *path;
	int fd;
	uint32_t core_id;
	uint32_t cpu_id;
	uint8_t *buf;
	size_t cap_bytes;
	uint64_t pos_bits; /* write position in the packet */
	uint64_t nr_in_packet;
	uint64_t ts_begin, ts_end, last_ts;
	uint64_t discarded; /* cumulative, as written */
	uint64_t seq_num;   /* of the open packet */
	uint64_t nr_events;
	uint64_t nr_packets;
	bool pending_empty; /* a packet must be written even if empty */
};

struct env_entry {
	char *name;
	char *str; /* NULL: integer */
	int64_t i;
};

struct ht_ctf_writer {
	char *dir;
	size_t packet_bytes;
	char clock_name[128];
	char *clock_description;
	bool has_clock_uuid;
	uint8_t clock_uuid[16];
	uint8_t trace_uuid[16];
	int64_t clock_offset_s;
	int64_t clock_offset_cycles;
	uint64_t clock_precision;
	bool clock_absolute;
	struct env_entry *env;
	size_t nr_env, cap_env;
	struct wstream_class **scs;
	size_t nr_scs;
	struct ht_ctf_wstream **streams;
	size_t nr_streams;
	char err[512];
};

static int fail(struct ht_ctf_writer *w, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return ret;
}

const char *ht_ctf_writer_error(const struct ht_ctf_writer *w)
{
	return w ? w->err : "";
}

/* ------------------------------------------------------------------ */
/* Strings                                                             */

static void sb_grow(struct sbuf *b, size_t more)
{
	size_t n;
	char *s;

	if (b->oom || b->len + more + 1 <= b->cap) {
		return;
	}
	n = b->cap ? b->cap : 4096;
	while (n < b->len + more + 1) {
		n *= 2;
	}
	s = realloc(b->s, n);
	if (!s) {
		b->oom = true;
		return;
	}
	b->s = s;
	b->cap = n;
}

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	sb_grow(b, (size_t)n);
	if (b->oom) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static void sb_indent(struct sbuf *b, unsigned depth)
{
	unsigned i;

	for (i = 0; i < depth; i++) {
		sb_printf(b, "\t");
	}
}

/* A TSDL string literal: quotes, backslashes and control bytes escaped. */
static void sb_quoted(struct sbuf *b, const char *s)
{
	sb_printf(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			sb_printf(b, "\\%c", c);
		} else if (c == '\n') {
			sb_printf(b, "\\n");
		} else if (c < 0x20) {
			sb_printf(b, "\\x%02x", c);
		} else {
			sb_printf(b, "%c", c);
		}
	}
	sb_printf(b, "\"");
}

static void uuid_str(const uint8_t *u, char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* ------------------------------------------------------------------ */
/* TSDL from type trees                                                */

static void emit_type(struct sbuf *b, const struct ht_ctf_type *t,
		      unsigned depth);

static void emit_int(struct sbuf *b, const struct ht_ctf_type *t)
{
	sb_printf(b,
		  "integer { size = %u; align = %u; signed = %s; "
		  "byte_order = %s;",
		  t->size_bits, t->align_bits, t->is_signed ? "true" : "false",
		  t->byte_order == HT_CTF_BE ? "be" : "le");
	if (t->base && t->base != 10) {
		sb_printf(b, " base = %u;", t->base);
	}
	if (t->encoding == HT_CTF_ENC_UTF8) {
		sb_printf(b, " encoding = UTF8;");
	} else if (t->encoding == HT_CTF_ENC_ASCII) {
		sb_printf(b, " encoding = ASCII;");
	}
	sb_printf(b, " }");
}

static void emit_enum(struct sbuf *b, const struct ht_ctf_type *t,
		      unsigned depth)
{
	size_t i, j;
	bool s = t->container->is_signed;

	sb_printf(b, "enum : ");
	emit_int(b, t->container);
	sb_printf(b, " {\n");
	for (i = 0; i < t->nr_mappings; i++) {
		const struct ht_ctf_enum_mapping *m = &t->mappings[i];

		for (j = 0; j < m->nr_ranges; j++) {
			const struct ht_ctf_enum_range *r = &m->ranges[j];

			sb_indent(b, depth + 1);
			sb_quoted(b, m->label);
			if (s) {
				sb_printf(b, " = %" PRId64, r->lower.s);
				if (r->upper.s != r->lower.s) {
					sb_printf(b, " ... %" PRId64,
						  r->upper.s);
				}
			} else {
				sb_printf(b, " = %" PRIu64, r->lower.u);
				if (r->upper.u != r->lower.u) {
					sb_printf(b, " ... %" PRIu64,
						  r->upper.u);
				}
			}
			sb_printf(b, ",\n");
		}
	}
	sb_indent(b, depth);
	sb_printf(b, "}");
}

/* A member declaration: `type name[dims];`, arrays unfolded. */
static void emit_member(struct sbuf *b, const char *name,
			const struct ht_ctf_type *t, unsigned depth)
{
	const struct ht_ctf_type *base = t;

	while (base->kind == HT_CTF_ARRAY || base->kind == HT_CTF_SEQUENCE) {
		base = base->element;
	}
	sb_indent(b, depth);
	emit_type(b, base, depth);
	sb_printf(b, " %s", name);
	for (; t != base; t = t->element) {
		if (t->kind == HT_CTF_ARRAY) {
			sb_printf(b, "[%" PRIu64 "]", t->length);
		} else {
			sb_printf(b, "[%s]", t->length_ref);
		}
	}
	sb_printf(b, ";\n");
}

static void emit_type(struct sbuf *b, const struct ht_ctf_type *t,
		      unsigned depth)
{
	size_t i;

	switch (t->kind) {
	case HT_CTF_INT:
		emit_int(b, t);
		break;
	case HT_CTF_ENUM:
		emit_enum(b, t, depth);
		break;
	case HT_CTF_FLOAT:
		sb_printf(b,
			  "floating_point { exp_dig = %u; mant_dig = %u; "
			  "byte_order = %s; align = %u; }",
			  t->exp_dig, t->mant_dig,
			  t->byte_order == HT_CTF_BE ? "be" : "le",
			  t->align_bits);
		break;
	case HT_CTF_STRING:
		sb_printf(b, "string { encoding = %s; }",
			  t->encoding == HT_CTF_ENC_ASCII ? "ASCII" : "UTF8");
		break;
	case HT_CTF_STRUCT:
	case HT_CTF_VARIANT:
		if (t->kind == HT_CTF_STRUCT) {
			sb_printf(b, "struct {\n");
		} else {
			sb_printf(b, "variant <%s> {\n", t->tag_ref);
		}
		for (i = 0; i < t->nr_members; i++) {
			emit_member(b, t->members[i].name, t->members[i].type,
				    depth + 1);
		}
		sb_indent(b, depth);
		if (t->kind == HT_CTF_STRUCT && t->align_bits > 1) {
			sb_printf(b, "} align(%u)", t->align_bits);
		} else {
			sb_printf(b, "}");
		}
		break;
	case HT_CTF_ARRAY:
	case HT_CTF_SEQUENCE:
		/* only reached through emit_member */
		break;
	}
}

/*
 * A length or tag reference into a scope the writer replaces cannot be
 * carried over; every other reference is written as it was.
 */
static bool ref_is_replaced(const char *ref)
{
	return !strncmp(ref, "trace.packet.header", 19) ||
	       !strncmp(ref, "stream.packet.context", 21) ||
	       !strncmp(ref, "stream.event.header", 19);
}

static const char *check_refs(const struct ht_ctf_type *t)
{
	const char *bad;
	size_t i;

	if (!t) {
		return NULL;
	}
	switch (t->kind) {
	case HT_CTF_SEQUENCE:
		if (t->length_ref && ref_is_replaced(t->length_ref)) {
			return t->length_ref;
		}
		return check_refs(t->element);
	case HT_CTF_ARRAY:
		return check_refs(t->element);
	case HT_CTF_VARIANT:
		if (t->tag_ref && ref_is_replaced(t->tag_ref)) {
			return t->tag_ref;
		}
		/* fall through */
	case HT_CTF_STRUCT:
		for (i = 0; i < t->nr_members; i++) {
			bad = check_refs(t->members[i].type);
			if (bad) {
				return bad;
			}
		}
		return NULL;
	default:
		return NULL;
	}
}

/* ------------------------------------------------------------------ */
/* Writer                                                              */

static int mkdir_p(const char *dir)
{
	char *p, *s = strdup(dir);
	int ret = 0;

	if (!s) {
		return HT_ENOMEM;
	}
	for (p = s + 1;; p++) {
		if (*p == '/' || !*p) {
			char c = *p;

			*p = 0;
			if (mkdir(s, 0777) && errno != EEXIST) {
				ret = HT_EIO;
				break;
			}
			*p = c;
			if (!c) {
				break;
			}
		}
	}
	free(s);
	return ret;
}

static bool is_ident(const char *s)
{
	if (!*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		     *s == '_')) {
		return false;
	}
	for (; *s; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_')) {
			return false;
		}
	}
	return true;
}

int ht_ctf_writer_create(struct ht_ctf_writer **out,
			 const struct ht_ctf_writer_opts *o, char *err,
			 size_t err_len)
{
	struct ht_ctf_writer *w;
	char path[4096];
	struct stat st;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;
	int ret;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		return HT_ENOMEM;
	}
	w->dir = strdup(o->dir);
	w->packet_bytes =
	    o->packet_bytes ? o->packet_bytes : DEFAULT_PACKET_BYTES;
	if (w->packet_bytes < 256) {
		w->packet_bytes = 256;
	}
	snprintf(w->clock_name, sizeof(w->clock_name), "%s",
		 o->clock_name ? o->clock_name : "monotonic");
	if (!is_ident(w->clock_name)) {
		/* TSDL's map = clock.NAME.value needs an identifier */
		for (i = 0; w->clock_name[i]; i++) {
			char c = w->clock_name[i];

			if (!((c >= 'a' && c <= 'z') ||
			      (c >= 'A' && c <= 'Z') ||
			      (c >= '0' && c <= '9'))) {
				w->clock_name[i] = '_';
			}
		}
		if (w->clock_name[0] >= '0' && w->clock_name[0] <= '9') {
			w->clock_name[0] = '_';
		}
	}
	if (o->clock_description) {
		w->clock_description = strdup(o->clock_description);
	}
	if (o->clock_uuid) {
		w->has_clock_uuid = true;
		memcpy(w->clock_uuid, o->clock_uuid, 16);
	}
	if (o->trace_uuid) {
		memcpy(w->trace_uuid, o->trace_uuid, 16);
	} else {
		/* derived, so the same input gives the same bytes */
		const uint8_t *src =
		    o->clock_uuid ? o->clock_uuid : (const uint8_t *)"";
		size_t n = o->clock_uuid ? 16 : 0;

		for (i = 0; i < 16; i++) {
			size_t j;

			for (j = 0; j < n; j++) {
				h = (h ^ src[j]) * 0x100000001b3ull;
			}
			h = (h ^ (0x5a + i)) * 0x100000001b3ull;
			w->trace_uuid[i] = (uint8_t)(h >> 32);
		}
		w->trace_uuid[6] = (uint8_t)((w->trace_uuid[6] & 0x0f) | 0x40);
		w->trace_uuid[8] = (uint8_t)((w->trace_uuid[8] & 0x3f) | 0x80);
	}
	w->clock_offset_s = o->clock_offset_s;
	w->clock_offset_cycles = o->clock_offset_cycles;
	w->clock_precision = o->clock_precision;
	w->clock_absolute = o->clock_absolute;
	if (!w->dir || (o->clock_description && !w->clock_description)) {
		ret = HT_ENOMEM;
		goto free_writer;
	}
	ret = mkdir_p(w->dir);
	if (ret) {
		snprintf(err, err_len, "cannot create directory %s: %s", w->dir,
			 strerror(errno));
		goto free_writer;
	}
	snprintf(path, sizeof(path), "%s/metadata", w->dir);
	if (!o->overwrite && !stat(path, &st)) {
		snprintf(err, err_len,
			 "%s already holds a trace (%s exists); remove it or "
			 "choose another output",
			 w->dir, path);
		ret = HT_EEXIST;
		goto free_writer;
	}
	*out = w;
	return 0;
free_writer:
	free(w->dir);
	free(w->clock_description);
	free(w);
	return ret;
}

static int env_add(struct ht_ctf_writer *w, const char *name, const char *s,
		   int64_t i)
{
	struct env_entry *e;

	if (w->nr_env == w->cap_env) {
		size_t n = w->cap_env ? 2 * w->cap_env : 16;

		e = realloc(w->env, n * sizeof(*e));
		if (!e) {
			return HT_ENOMEM;
		}
		w->env = e;
		w->cap_env = n;
	}
	e = &w->env[w->nr_env];
	e->name = strdup(name);
	e->str = s ? strdup(s) : NULL;
	e->i = i;
	if (!e->name || (s && !e->str)) {
		free(e->name);
		free(e->str);
		return HT_ENOMEM;
	}
	if (!is_ident(name)) {
		free(e->name);
		free(e->str);
		return fail(w, HT_EINVAL, "env name '%s' is not an identifier",
			    name);
	}
	w->nr_env++;
	return 0;
}

int ht_ctf_writer_env_str(struct ht_ctf_writer *w, const char *name,
			  const char *value)
{
	return env_add(w, name, value, 0);
}

int ht_ctf_writer_env_int(struct ht_ctf_writer *w, const char *name,
			  int64_t value)
{
	return env_add(w, name, NULL, value);
}

int ht_ctf_writer_add_stream_class(struct ht_ctf_writer *w,
				   const struct ht_ctf_type *event_context,
				   uint64_t *id)
{
	struct wstream_class **scs, *sc;
	const char *bad = check_refs(event_context);

	if (bad) {
		return fail(w, HT_EUNSUPPORTED,
			    "event context refers to %s, which the merged "
			    "trace does not keep",
			    bad);
	}
	scs = realloc(w->scs, (w->nr_scs + 1) * sizeof(*scs));
	if (!scs) {
		return HT_ENOMEM;
	}
	w->scs = scs;
	sc = calloc(1, sizeof(*sc));
	if (!sc) {
		return HT_ENOMEM;
	}
	sc->id = w->nr_scs;
	sc->event_context = event_context;
	w->scs[w->nr_scs++] = sc;
	*id = sc->id;
	return 0;
}

int ht_ctf_writer_stream_class_add_cpu_id(struct ht_ctf_writer *w,
					  uint64_t sc_id)
{
	if (sc_id >= w->nr_scs || w->scs[sc_id]->nr_streams) {
		return fail(w, HT_EINVAL,
			    "cpu_id added to stream class %" PRIu64
			    " too late or to no class",
			    sc_id);
	}
	w->scs[sc_id]->has_cpu_id = true;
	return 0;
}

void ht_ctf_wstream_set_cpu_id(struct ht_ctf_wstream *s, uint32_t cpu_id)
{
	s->cpu_id = cpu_id;
}

int ht_ctf_writer_add_event_class(struct ht_ctf_writer *w, uint64_t sc_id,
				  const struct ht_ctf_event_class *cls)
{
	struct wstream_class *sc;
	const char *bad;
	size_t i;

	if (sc_id >= w->nr_scs) {
		return HT_EINVAL;
	}
	sc = w->scs[sc_id];
	if (cls->id > UINT32_MAX) {
		return fail(w, HT_EUNSUPPORTED,
			    "event class '%s': id %" PRIu64 " does not fit in "
			    "32 bits",
			    cls->name, cls->id);
	}
	bad = check_refs(cls->context);
	if (!bad) {
		bad = check_refs(cls->payload);
	}
	if (bad) {
		return fail(w, HT_EUNSUPPORTED,
			    "event class '%s' refers to %s, which the merged "
			    "trace does not keep",
			    cls->name, bad);
	}
	for (i = 0; i < sc->nr_classes; i++) {
		if (sc->classes[i].cls->id == cls->id) {
			return fail(w, HT_EEXIST,
				    "event class id %" PRIu64 " added twice",
				    cls->id);
		}
	}
	if (sc->nr_classes == sc->cap_classes) {
		size_t n = sc->cap_classes ? 2 * sc->cap_classes : 16;
		struct wevent_class *c = realloc(sc->classes, n * sizeof(*c));

		if (!c) {
			return HT_ENOMEM;
		}
		sc->classes = c;
		sc->cap_classes = n;
	}
	sc->classes[sc->nr_classes++].cls = cls;
	return 0;
}

static void put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
	unsigned i;

	for (i = 0; i < bytes; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

static void packet_open(struct ht_ctf_wstream *s)
{
	memset(s->buf, 0, s->cap_bytes);
	s->pos_bits = 8 * (FIRST_EVENT_BYTES + (s->sc->has_cpu_id ? 4 : 0));
	s->nr_in_packet = 0;
}

int ht_ctf_writer_add_stream(struct ht_ctf_writer *w, uint64_t sc_id,
			     const char *file_name, uint32_t core_id,
			     struct ht_ctf_wstream **out)
{
	struct ht_ctf_wstream *s, **ss;
	size_t n;

	if (sc_id >= w->nr_scs || strchr(file_name, '/') ||
	    !strcmp(file_name, "metadata")) {
		return fail(w, HT_EINVAL, "bad stream file name '%s'",
			    file_name);
	}
	ss = realloc(w->streams, (w->nr_streams + 1) * sizeof(*ss));
	if (!ss) {
		return HT_ENOMEM;
	}
	w->streams = ss;
	s = calloc(1, sizeof(*s));
	if (!s) {
		return HT_ENOMEM;
	}
	n = strlen(w->dir) + strlen(file_name) + 2;
	s->path = malloc(n);
	s->cap_bytes = w->packet_bytes;
	s->buf = malloc(s->cap_bytes);
	if (!s->path || !s->buf) {
		free(s->path);
		free(s->buf);
		free(s);
		return HT_ENOMEM;
	}
	snprintf(s->path, n, "%s/%s", w->dir, file_name);
	s->fd = open(s->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (s->fd < 0) {
		int e = errno;

		free(s->path);
		free(s->buf);
		free(s);
		return fail(w, HT_EIO, "cannot create %s/%s: %s", w->dir,
			    file_name, strerror(e));
	}
	s->w = w;
	s->sc = w->scs[sc_id];
	s->core_id = core_id;
	s->sc->nr_streams++;
	packet_open(s);
	w->streams[w->nr_streams++] = s;
	*out = s;
	return 0;
}

static int write_all(struct ht_ctf_wstream *s, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(s->fd, p, n);

		if (k < 0) {
			if (errno == EINTR) {
				continue;
			}
			return fail(s->w, HT_EIO, "cannot write %s: %s",
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

static bool class_known(const struct wstream_class *sc, uint64_t id)
{
	size_t i;

	/* classes are usually dense and added in id order */
	if (id < sc->nr_classes && sc->classes[id].cls->id == id) {
		return true;
	}
	for (i = 0; i < sc->nr_classes; i++) {
		if (sc->classes[i].cls->id == id) {
			return true;
		}
	}
	return false;
}

int ht_ctf_wstream_event(struct ht_ctf_wstream *s, uint64_t cls_id,
			 uint64_t ts_ns, const struct ht_ctf_field *common_ctx,
			 const struct ht_ctf_field *specific_ctx,
			 const struct ht_ctf_field *payload)
{
	const struct ht_ctf_field *scopes[3] = {common_ctx, specific_ctx,
						payload};
	struct enc e;
	unsigned k;
	int ret;

	if (!class_known(s->sc, cls_id)) {
		return fail(s->w, HT_EINVAL,
			    "%s: event class %" PRIu64 " was not added",
			    s->path, cls_id);
	}
	if (ts_ns < s->last_ts) {
		return fail(s->w, HT_EINVAL,
			    "%s: timestamp %" PRIu64 " before %" PRIu64,
			    s->path, ts_ns, s->last_ts);
	}
	for (;;) {
		e.buf = s->buf;
		e.cap_bits = 8 * (uint64_t)s->cap_bytes;
		e.pos = s->pos_bits;
		ret = enc_int(&e, cls_id, 32, 8, HT_CTF_LE);
		if (!ret) {
			ret = enc_int(&e, ts_ns, 64, 8, HT_CTF_LE);
		}
		for (k = 0; !ret && k < 3; k++) {
			if (scopes[k]) {
				ret = enc_field(&e, scopes[k]);
			}
		}
		if (ret < 0) {
			return ret;
		}
		if (!ret) {
			break;
		}
		/* no room: undo the partial record, then a new packet, or
		 * a bigger buffer for an event larger than a packet */
		memset(s->buf + s->pos_bits / 8, 0,
		       s->cap_bytes - s->pos_bits / 8);
		if (s->nr_in_packet) {
			ret = flush_packet(s, ts_ns);
			if (ret) {
				return ret;
			}
		} else {
			size_t n = 2 * s->cap_bytes;
			uint8_t *b = realloc(s->buf, n);

			if (!b) {
				return HT_ENOMEM;
			}
			memset(b + s->cap_bytes, 0, n - s->cap_bytes);
			s->buf = b;
			s->cap_bytes = n;
		}
	}
	if (!s->nr_in_packet) {
		s->ts_begin = ts_ns;
	}
	s->ts_end = ts_ns;
	s->last_ts = ts_ns;
	s->nr_in_packet++;
	s->nr_events++;
	/* the next record starts on a byte boundary (header align(8)) */
	s->pos_bits = (e.pos + 7) / 8 * 8;
	return 0;
}

/*
 * Ends the open packet at @ts_ns (no earlier than the last record) and
 * makes sure a packet follows, even an empty one: it carries a loss
 * (events_discarded, a packet_seq_num gap) that no event may follow.
 */
static int close_for_loss(struct ht_ctf_wstream *s, uint64_t ts_ns)
{
	int ret = flush_packet(s, ts_ns < s->last_ts ? s->last_ts : ts_ns);

	if (!ret) {
		s->pending_empty = true;
	}
	return ret;
}

int ht_ctf_wstream_discarded(struct ht_ctf_wstream *s, uint64_t count,
			     uint64_t ts_ns)
{
	int ret;

	if (!count) {
		return 0;
	}
	ret = close_for_loss(s, ts_ns);
	if (!ret) {
		s->discarded += count;
	}
	return ret;
}

int ht_ctf_wstream_lost_packets(struct ht_ctf_wstream *s, uint64_t count,
				uint64_t ts_ns)
{
	int ret;

	if (!count) {
		return 0;
	}
	ret = close_for_loss(s, ts_ns);
	if (!ret) {
		s->seq_num += count;
	}
	return ret;
}

uint64_t ht_ctf_wstream_nr_events(const struct ht_ctf_wstream *s)
{
	return s->nr_events;
}

/* ------------------------------------------------------------------ */
/* Metadata                                                            */

static void emit_event_class(struct sbuf *b, const struct wstream_class *sc,
			     const struct ht_ctf_event_class *c)
{
	sb_printf(b, "event {\n\tname = ");
	sb_quoted(b, c->name);
	sb_printf(b, ";\n\tid = %" PRIu64 ";\n\tstream_id = %" PRIu64 ";\n",
		  c->id, sc->id);
	if (c->has_loglevel) {
		sb_printf(b, "\tloglevel = %" PRId64 ";\n", c->loglevel);
	}
	if (c->emf_uri) {
		sb_printf(b, "\tmodel.emf.uri = ");
		sb_quoted(b, c->emf_uri);
		sb_printf(b, ";\n");
	}
	if (c->context) {
		sb_printf(b, "\tcontext := ");
		emit_type(b, c->context, 1);
		sb_printf(b, ";\n");
	}
	if (c->payload) {
		sb_printf(b, "\tfields := ");
		emit_type(b, c->payload, 1);
		sb_printf(b, ";\n");
	}
	sb_printf(b, "};\n\n");
}

static void emit_metadata(struct ht_ctf_writer *w, struct sbuf *b)
{
	const char *u64 = "integer { size = 64; align = 8; signed = false; "
			  "byte_order = le; }";
	char u[37];
	size_t i, j;

	uuid_str(w->trace_uuid, u);
	sb_printf(b,
		  "/* CTF 1.8 */\n\n"
		  "/* Written by hetrace (docs/merge.md). */\n\n"
		  "trace {\n"
		  "\tmajor = 1;\n"
		  "\tminor = 8;\n"
		  "\tuuid = \"%s\";\n"
		  "\tbyte_order = le;\n"
		  "\tpacket.header := struct {\n"
		  "\t\tinteger { size = 32; align = 8; signed = false; "
		  "byte_order = le; base = 16; } magic;\n"
		  "\t\tinteger { size = 8; align = 8; signed = false; "
		  "byte_order = le; } uuid[16];\n"
		  "\t\tinteger { size = 32; align = 8; signed = false; "
		  "byte_order = le; } stream_id;\n"
		  "\t} align(8);\n"
		  "};\n\n",
		  u);
	sb_printf(b, "env {\n");
	for (i = 0; i < w->nr_env; i++) {
		sb_printf(b, "\t%s = ", w->env[i].name);
		if (w->env[i].str) {
			sb_quoted(b, w->env[i].str);
		} else {
			sb_printf(b, "%" PRId64, w->env[i].i);
		}
		sb_printf(b, ";\n");
	}
	sb_printf(b, "};\n\n");
	sb_printf(b, "clock {\n\tname = %s;\n", w->clock_name);
	if (w->has_clock_uuid) {
		uuid_str(w->clock_uuid, u);
		sb_printf(b, "\tuuid = \"%s\";\n", u);
	}
	if (w->clock_description) {
		sb_printf(b, "\tdescription = ");
		sb_quoted(b, w->clock_description);
		sb_printf(b, ";\n");
	}
	sb_printf(b,
		  "\tfreq = 1000000000;\n"
		  "\tprecision = %" PRIu64 ";\n"
		  "\toffset_s = %" PRId64 ";\n"
		  "\toffset = %" PRId64 ";\n"
		  "\tabsolute = %s;\n"
		  "};\n\n",
		  w->clock_precision, w->clock_offset_s, w->clock_offset_cycles,
		  w->clock_absolute ? "true" : "false");
	for (i = 0; i < w->nr_scs; i++) {
		const struct wstream_class *sc = w->scs[i];

		sb_printf(
		    b,
		    "stream {\n"
		    "\tid = %" PRIu64 ";\n"
		    "\tpacket.context := struct {\n"
		    "\t\t%s packet_size;\n"
		    "\t\t%s content_size;\n"
		    "\t\tinteger { size = 64; align = 8; signed = false; "
		    "byte_order = le; map = clock.%s.value; } "
		    "timestamp_begin;\n"
		    "\t\tinteger { size = 64; align = 8; signed = false; "
		    "byte_order = le; map = clock.%s.value; } "
		    "timestamp_end;\n"
		    "\t\t%s events_discarded;\n"
		    "\t\t%s packet_seq_num;\n"
		    "\t\tinteger { size = 32; align = 8; signed = false; "
		    "byte_order = le; } core_id;\n"
		    "%s"
		    "\t} align(8);\n"
		    "\tevent.header := struct {\n"
		    "\t\tinteger { size = 32; align = 8; signed = false; "
		    "byte_order = le; } id;\n"
		    "\t\tinteger { size = 64; align = 8; signed = false; "
		    "byte_order = le; map = clock.%s.value; } timestamp;\n"
		    "\t} align(8);\n",
		    sc->id, u64, u64, w->clock_name, w->clock_name, u64, u64,
		    sc->has_cpu_id ? "\t\tinteger { size = 32; align = 8; "
				     "signed = false; byte_order = le; } "
				     "cpu_id;\n"
				   : "",
		    w->clock_name);
		if (sc->event_context) {
			sb_printf(b, "\tevent.context := ");
			emit_type(b, sc->event_context, 1);
			sb_printf(b, ";\n");
		}
		sb_printf(b, "};\n\n");
		for (j = 0; j < sc->nr_classes; j++) {
			emit_event_class(b, sc, sc->classes[j].cls);
		}
	}
}

static void free_writer(struct ht_ctf_writer *w)
{
	size_t i;

	for (i = 0; i < w->nr_streams; i++) {
		struct ht_ctf_wstream *s = w->streams[i];

		if (s->fd >= 0) {
			close(s->fd);
		}
		free(s->path);
		free(s->buf);
		free(s);
	}
	for (i = 0; i < w->nr_scs; i++) {
		free(w->scs[i]->classes);
		free(w->scs[i]);
	}
	for (i = 0; i < w->nr_env; i++) {
		free(w->env[i].name);
		free(w->env[i].str);
	}
	free(w->streams);
	free(w->scs);
	free(w->env);
	free(w->dir);
	free(w->clock_description);
	free(w);
}

void ht_ctf_writer_abort(struct ht_ctf_writer *w)
{
	if (w) {
		free_writer(w);
	}
}

int ht_ctf_writer_close(struct ht_ctf_writer *w, char *err, size_t err_len)
{
	struct sbuf b = {0};
	char path[4096];
	size_t i;
	FILE *f;
	int ret = 0;

	if (!w) {
		return 0;
	}
	for (i = 0; !ret && i < w->nr_streams; i++) {
		struct ht_ctf_wstream *s = w->streams[i];

		/* no fsync: a merged trace is made again from its capture */
		ret = flush_packet(s, s->last_ts);
		if (!ret && close(s->fd)) {
			ret = fail(w, HT_EIO, "cannot write %s: %s", s->path,
				   strerror(errno));
		}
		s->fd = -1;
	}
	if (ret) {
		goto out;
	}
	emit_metadata(w, &b);
	if (b.oom) {
		ret = HT_ENOMEM;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/metadata", w->dir);
	f = fopen(path, "w");
	if (!f) {
		ret = fail(w, HT_EIO, "cannot create %s: %s", path,
			   strerror(errno));
		goto out;
	}
	if (fwrite(b.s, 1, b.len, f) != b.len) {
		ret = fail(w, HT_EIO, "cannot write %s: %s", path,
			   strerror(errno));
	}
	if (fclose(f) && !ret) {
		ret = fail(w, HT_EIO, "cannot write %s: %s", path,
			   strerror(errno));
	}
out:
	if (ret && err_len) {
		snprintf(err, err_len, "%s",
			 w->err[0] ? w->err : ht_strerror(ret));
	}
	free(b.s);
	free_writer(w);
	return ret;
}
