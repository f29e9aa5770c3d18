/* SPDX-License-Identifier: MIT */
/*
 * The CTF 1.8 writer object (ctf-writer.h): options, env, stream and
 * event classes, and closing the trace with its `metadata`. The data
 * streams are in ctf-writer-stream.c, the metadata text in
 * ctf-writer-metadata.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/path.h"
#include "common/error.h"
#include "ctf-writer-internal.h"

#define DEFAULT_PACKET_BYTES (64u * 1024u)

int ht__ctf_writer_fail(struct ht_ctf_writer *w, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return ret;
}

const char *ht_ctf_writer_last_error(const struct ht_ctf_writer *w)
{
	return w ? w->err : "";
}

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_ident(const char *s)
{
	if (!is_ident_start(*s)) {
		return false;
	}
	for (; *s; s++) {
		if (!is_ident_char(*s)) {
			return false;
		}
	}
	return true;
}

/* TSDL's map = clock.NAME.value needs an identifier: the other bytes of
 * @name become '_'. */
static void set_clock_name(struct ht_ctf_writer *w, const char *name)
{
	char *n = w->clock_name;
	size_t i;

	snprintf(n, sizeof(w->clock_name), "%s", name);
	if (is_ident(n)) {
		return;
	}
	for (i = 0; n[i]; i++) {
		if (!is_ident_char(n[i])) {
			n[i] = '_';
		}
	}
	if (n[0] >= '0' && n[0] <= '9') {
		n[0] = '_';
	}
}

/*
 * A version 4 UUID hashed (FNV-1a) from @clock_uuid (NULL: none), so
 * that the same input gives the same bytes.
 */
static void derive_trace_uuid(uint8_t uuid[16], const uint8_t *clock_uuid)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t n = clock_uuid ? 16 : 0;
	size_t i, j;

	for (i = 0; i < 16; i++) {
		for (j = 0; j < n; j++) {
			h = (h ^ clock_uuid[j]) * 0x100000001b3ull;
		}
		h = (h ^ (0x5a + i)) * 0x100000001b3ull;
		uuid[i] = (uint8_t)(h >> 32);
	}
	uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x40);
	uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);
}

/* Creates @dir; refuses one that holds a trace unless @overwrite. */
static int prepare_dir(const char *dir, bool overwrite, char *err,
		       size_t err_len)
{
	char path[4096];
	struct stat st;
	int ret = ht_path_mkdirs(dir);

	if (ret) {
		snprintf(err, err_len, "cannot create directory %s: %s", dir,
			 strerror(errno));
		return ret;
	}
	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (!overwrite && !stat(path, &st)) {
		snprintf(err, err_len,
			 "%s already holds a trace (%s exists); remove it or "
			 "choose another output",
			 dir, path);
		return HT_EEXIST;
	}
	return 0;
}

int ht_ctf_writer_create(struct ht_ctf_writer **out,
			 const struct ht_ctf_writer_opts *o, char *err,
			 size_t err_len)
{
	struct ht_ctf_writer *w;
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
	set_clock_name(w, o->clock_name ? o->clock_name : "monotonic");
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
		derive_trace_uuid(w->trace_uuid, o->clock_uuid);
	}
	w->clock_offset_s = o->clock_offset_s;
	w->clock_offset_cycles = o->clock_offset_cycles;
	w->clock_precision = o->clock_precision;
	w->clock_absolute = o->clock_absolute;
	if (!w->dir || (o->clock_description && !w->clock_description)) {
		ret = HT_ENOMEM;
		goto free_writer;
	}
	ret = prepare_dir(w->dir, o->overwrite, err, err_len);
	if (ret) {
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

	if (ht_array_reserve((void **)&w->env, &w->cap_env, w->nr_env + 1,
			     sizeof(*w->env))) {
		return HT_ENOMEM;
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
		return ht__ctf_writer_fail(
		    w, HT_EINVAL, "env name '%s' is not an identifier", name);
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
	struct wstream_class *sc;
	const char *bad = ht__ctf_writer_check_refs(event_context);

	if (bad) {
		return ht__ctf_writer_fail(
		    w, HT_EUNSUPPORTED,
		    "event context refers to %s, which the merged "
		    "trace does not keep",
		    bad);
	}
	if (ht_array_reserve((void **)&w->scs, &w->cap_scs, w->nr_scs + 1,
			     sizeof(*w->scs))) {
		return HT_ENOMEM;
	}
	sc = calloc(1, sizeof(*sc));
	if (!sc) {
		return HT_ENOMEM;
	}
	sc->id = w->nr_scs;
	sc->event_context = event_context;
	sc->hdr_align_bits = 8;
	w->scs[w->nr_scs++] = sc;
	*id = sc->id;
	return 0;
}

int ht_ctf_writer_stream_class_add_cpu_id(struct ht_ctf_writer *w,
					  uint64_t sc_id)
{
	if (sc_id >= w->nr_scs || w->scs[sc_id]->nr_streams) {
		return ht__ctf_writer_fail(
		    w, HT_EINVAL,
		    "cpu_id added to stream class %" PRIu64
		    " too late or to no class",
		    sc_id);
	}
	w->scs[sc_id]->has_cpu_id = true;
	return 0;
}

int ht_ctf_writer_stream_class_header_align(struct ht_ctf_writer *w,
					    uint64_t sc_id, unsigned align_bits)
{
	if (sc_id >= w->nr_scs || w->scs[sc_id]->nr_streams ||
	    (align_bits != 8 && align_bits != 32 && align_bits != 64)) {
		return ht__ctf_writer_fail(
		    w, HT_EINVAL,
		    "event header alignment %u of stream class %" PRIu64
		    ": not 8, 32 or 64, or set too late",
		    align_bits, sc_id);
	}
	w->scs[sc_id]->hdr_align_bits = align_bits;
	return 0;
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
		return ht__ctf_writer_fail(w, HT_EUNSUPPORTED,
					   "event class '%s': id %" PRIu64
					   " does not fit in "
					   "32 bits",
					   cls->name, cls->id);
	}
	bad = ht__ctf_writer_check_refs(cls->context);
	if (!bad) {
		bad = ht__ctf_writer_check_refs(cls->payload);
	}
	if (bad) {
		return ht__ctf_writer_fail(
		    w, HT_EUNSUPPORTED,
		    "event class '%s' refers to %s, which the merged "
		    "trace does not keep",
		    cls->name, bad);
	}
	for (i = 0; i < sc->nr_classes; i++) {
		if (sc->classes[i]->id == cls->id) {
			return ht__ctf_writer_fail(
			    w, HT_EEXIST,
			    "event class id %" PRIu64 " added twice", cls->id);
		}
	}
	if (ht_array_reserve((void **)&sc->classes, &sc->cap_classes,
			     sc->nr_classes + 1, sizeof(*sc->classes))) {
		return HT_ENOMEM;
	}
	sc->classes[sc->nr_classes++] = cls;
	return 0;
}

static void free_writer(struct ht_ctf_writer *w)
{
	size_t i;

	for (i = 0; i < w->nr_streams; i++) {
		ht__ctf_wstream_free(w->streams[i]);
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
	struct ht_buf b = {0};
	char path[4096];
	size_t i;
	FILE *f;
	int ret = 0;

	if (!w) {
		return 0;
	}
	for (i = 0; !ret && i < w->nr_streams; i++) {
		ret = ht__ctf_wstream_finish(w->streams[i]);
	}
	if (ret) {
		goto out;
	}
	ht__ctf_writer_metadata(w, &b);
	if (b.nomem) {
		ret = HT_ENOMEM;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/metadata", w->dir);
	f = fopen(path, "w");
	if (!f) {
		ret = ht__ctf_writer_fail(w, HT_EIO, "cannot create %s: %s",
					  path, strerror(errno));
		goto out;
	}
	if (fwrite(b.data, 1, b.len, f) != b.len) {
		ret = ht__ctf_writer_fail(w, HT_EIO, "cannot write %s: %s",
					  path, strerror(errno));
	}
	if (fclose(f) && !ret) {
		ret = ht__ctf_writer_fail(w, HT_EIO, "cannot write %s: %s",
					  path, strerror(errno));
	}
out:
	if (ret && err_len) {
		snprintf(err, err_len, "%s",
			 w->err[0] ? w->err : ht_strerror(ret));
	}
	ht_buf_fini(&b);
	free_writer(w);
	return ret;
}
