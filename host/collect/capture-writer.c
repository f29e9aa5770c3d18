/* SPDX-License-Identifier: MIT */
/*
 * The collector (host/collect/capture-writer.h): packet rings -> capture
 * directory.
 *
 * Each packet is located and checked from its header and context alone:
 * the ring's metadata is read once into its packet layout (the bit
 * positions of magic, stream_id, packet_size, content_size,
 * events_discarded and packet_seq_num: host/ctf/ctf-layout.h). Events
 * are never decoded.
 *
 * Copy, then check, then write the copy: the producer may change its
 * slots at any time, so each slot is copied out of shared memory once,
 * into the ring's batch buffer, the copy is checked there and the copy
 * is written; the shared bytes are never read again. The copy is the
 * write buffer: a discard ring's waiting slots are copied many at a
 * time (one pread() of the ring's file, as `cat` reads it, or one
 * guarded memcpy for a ring in memory), the packets found good are
 * gathered into one writev() per batch (up to BATCH packets, about
 * BATCH_BYTES), and the slots are released once copied. An overwrite
 * ring is copied slot by slot (the copy is what the re-check rule
 * validates) into the same buffer.
 *
 * A discard ring in a file whose packets fill their slots (barectf's
 * packet_size is the packet buffer's, the slot) goes faster, with a
 * single copy: the slots are copied in the kernel from the ring's file
 * straight into the stream file (copy_file_range(), as `cat` copies),
 * and what is checked is the stream file's copy, read back (the header
 * and context of each packet; events are never checked): once in the
 * file, the producer can no longer change it. From the first packet
 * that is not a good packet filling its slot, the file is cut back and
 * the copy above takes over; so the file holds exactly the packets
 * checked, in both ways. Memory-backed rings, and files the kernel
 * cannot copy between, always take the copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "capture-writer.h"
#include "host/ctf/ctf-layout.h"
#include "host/ctf/ctf-reader.h"
#include "common/path.h"
#include "common/error.h"
#include "common/message.h"
#include "hetrace/packet-ring.h"
#include "packet-ring-reader.h"

#define CTF_MAGIC 0xc1fc1fc1u
#define BATCH 256u	       /* packets per writev() (below IOV_MAX) */
#define BATCH_BYTES (1u << 20) /* the batch buffer, unless a slot is larger */
#define WARN_PER_RING 10u /* damaged-packet messages per ring, then a count */

struct ring {
	struct ht_ring_reader *rr;
	const struct ht_ring_info *info;
	bool own_reader;
	char *core_name, *stream_name, *core_dir, *stream_path;
	int fd;
	bool metadata_owner; /* wrote <core>/metadata */
	char *metadata;	     /* as written (for a second ring of the core) */
	size_t metadata_len;
	struct ht_ctf_packet_layout lay;
	/*
	 * The batch: slots copied into buf (used bytes of it), the good
	 * packets among them gathered in iov (adjacent ones merged), packet
	 * i of the batch ending ends[i] bytes into what the batch writes.
	 * At least one slot, at most BATCH packets.
	 */
	uint8_t *buf;
	size_t buf_size, used;
	struct iovec iov[BATCH];
	uint32_t nr_iov;
	uint32_t ends[BATCH];
	uint32_t nr_batched;
	/* Slots go from the ring's file straight into the stream file. */
	bool direct;
	/* The last batch of the copy held only packets filling their slots
	 * (the direct copy is worth trying again). */
	bool last_full;
	bool started;	       /* a packet was kept (the loss marker is done) */
	uint64_t seq_shift;    /* added to packet_seq_num (loss_marker()) */
	uint64_t loss_at_last; /* lost + damaged when the last was kept */
	char error[512];       /* why the ring was stopped */
	struct ht_capture_writer_stats st;
	uint32_t warned;
	uint64_t last_lost_warned;
	/* The header and context of the last packet written. */
	uint8_t *last_hc;
	const struct ht_ctf_packet_context_layout *last_cl;
};

struct ht_capture_writer {
	char *dir;
	struct ht_capture_writer_opts opts;
	struct ring **rings;
	size_t nr_rings;
	bool finished;
};

/* Names that become directory and file names and TSDL strings. */
static bool name_ok(const char *s)
{
	size_t i;

	if (!s || !*s || !strcmp(s, ".") || !strcmp(s, "..") ||
	    strlen(s) > 255) {
		return false;
	}
	for (i = 0; s[i]; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
		      ch == '.')) {
			return false;
		}
	}
	return true;
}

/* ---- packets ---- */

/*
 * Checks the packet at @p (a slot of @slot_size bytes). Returns its
 * size in bytes, or 0 with a reason in @why.
 */
static uint32_t packet_check(struct ring *r, const uint8_t *p, char *why,
			     size_t why_len,
			     const struct ht_ctf_packet_context_layout **out_cl)
{
	const uint32_t slot = r->info->slot_size;
	const struct ht_ctf_packet_layout *lay = &r->lay;
	const struct ht_ctf_packet_context_layout *cl = &lay->ctx[0];
	uint64_t size, content;
	size_t i;

	if (lay->magic.set && ht_ctf_field_loc_within(&lay->magic, slot)) {
		uint64_t m = ht_ctf_field_loc_read(p, &lay->magic);

		if (m != CTF_MAGIC) {
			snprintf(why, why_len,
				 "packet magic 0x%08llx (expected 0x%08x)",
				 (unsigned long long)m, CTF_MAGIC);
			return 0;
		}
	}
	if (lay->stream_id.set &&
	    ht_ctf_field_loc_within(&lay->stream_id, slot)) {
		uint64_t id = ht_ctf_field_loc_read(p, &lay->stream_id);

		cl = NULL;
		for (i = 0; i < lay->nr_ctx; i++) {
			if (lay->ctx[i].id == id) {
				cl = &lay->ctx[i];
			}
		}
		if (!cl) {
			snprintf(why, why_len, "stream_id %llu not declared",
				 (unsigned long long)id);
			return 0;
		}
	}
	if (!ht_ctf_field_loc_within(&cl->packet_size, slot)) {
		snprintf(why, why_len, "packet_size past the slot");
		return 0;
	}
	size = ht_ctf_field_loc_read(p, &cl->packet_size);
	if (size == 0 || size % 8u || size > (uint64_t)slot * 8u ||
	    (cl->end_bits && size < cl->end_bits)) {
		snprintf(why, why_len,
			 "packet_size %llu bits: not a whole number of bytes "
			 "between the packet's header and context (%llu bits) "
			 "and the slot size (%u bytes)",
			 (unsigned long long)size,
			 (unsigned long long)cl->end_bits, slot);
		return 0;
	}
	if (cl->content_size.set &&
	    ht_ctf_field_loc_within(&cl->content_size, slot)) {
		content = ht_ctf_field_loc_read(p, &cl->content_size);
		if (content > size ||
		    (cl->end_bits && content < cl->end_bits)) {
			snprintf(why, why_len,
				 "content_size %llu bits outside %llu..%llu "
				 "(packet_size)",
				 (unsigned long long)content,
				 (unsigned long long)cl->end_bits,
				 (unsigned long long)size);
			return 0;
		}
	}
	if (cl->discarded.set &&
	    ht_ctf_field_loc_within(&cl->discarded, slot)) {
		r->st.events_discarded =
		    ht_ctf_field_loc_read(p, &cl->discarded);
	}
	*out_cl = cl;
	return (uint32_t)(size / 8u);
}

static void damaged(struct ht_capture_writer *c, struct ring *r, uint32_t k,
		    const char *why)
{
	r->st.damaged_packets++;
	if (r->warned < WARN_PER_RING) {
		r->warned++;
		ht_message_sendf(
		    c->opts.warn, c->opts.warn_arg,
		    "%s (core %s): packet %u (slot %u at offset %llu): %s: "
		    "skipped%s",
		    r->info->source, r->core_name, k, k % r->info->nr_slots,
		    (unsigned long long)(r->info->slots_off +
					 (uint64_t)(k % r->info->nr_slots) *
					     r->info->slot_size),
		    why,
		    r->warned == WARN_PER_RING
			? " (further damaged packets of this ring are "
			  "only counted)"
			: "");
	}
}

/* ---- the metadata and its env ---- */

/*
 * The offset just after the `{` of the top-level `env` block of TSDL
 * @text, or 0 when there is none. Skips comments and string literals.
 */
static size_t env_block(const char *text, size_t len)
{
	size_t i = 0, j;
	int depth = 0;

	while (i < len) {
		char ch = text[i];

		if (ch == '/' && i + 1 < len && text[i + 1] == '*') {
			const char *e = strstr(text + i + 2, "*/");

			i = e ? (size_t)(e - text) + 2 : len;
		} else if (ch == '/' && i + 1 < len && text[i + 1] == '/') {
			while (i < len && text[i] != '\n') {
				i++;
			}
		} else if (ch == '"' || ch == '\'') {
			for (i++; i < len && text[i] != ch; i++) {
				if (text[i] == '\\') {
					i++;
				}
			}
			i++;
		} else if (ch == '{') {
			depth++;
			i++;
		} else if (ch == '}') {
			depth--;
			i++;
		} else if (depth == 0 && !strncmp(text + i, "env", 3) &&
			   (i == 0 ||
			    !(text[i - 1] == '_' ||
			      (text[i - 1] >= 'a' && text[i - 1] <= 'z') ||
			      (text[i - 1] >= 'A' && text[i - 1] <= 'Z') ||
			      (text[i - 1] >= '0' && text[i - 1] <= '9')))) {
			for (j = i + 3;
			     j < len && (text[j] == ' ' || text[j] == '\t' ||
					 text[j] == '\n' || text[j] == '\r');
			     j++) {
			}
			if (j < len && text[j] == '{') {
				return j + 1;
			}
			i += 3;
		} else {
			i++;
		}
	}
	return 0;
}

/*
 * Adds to @text the env entries the core's identity needs and the
 * producer did not write. Returns the new text (malloc'ed) in *@out.
 */
static int env_complete(const struct ht_ctf_trace *t, const char *text,
			size_t len, const struct ring *r, const char *role,
			const char *master, char **out, size_t *out_len)
{
	char add[512];
	size_t n = 0, at;
	char *s;

	add[0] = '\0';
	if (!ht_ctf_trace_env(t, "core_name")) {
		n += (size_t)snprintf(add + n, sizeof(add) - n,
				      "\n\tcore_name = \"%s\";", r->core_name);
	}
	if (!ht_ctf_trace_env(t, "core_id")) {
		n += (size_t)snprintf(add + n, sizeof(add) - n,
				      "\n\tcore_id = %u;", r->info->core_id);
	}
	if (role && !ht_ctf_trace_env(t, "core_role")) {
		n += (size_t)snprintf(add + n, sizeof(add) - n,
				      "\n\tcore_role = \"%s\";", role);
	}
	if (master && !ht_ctf_trace_env(t, "core_master")) {
		n += (size_t)snprintf(add + n, sizeof(add) - n,
				      "\n\tcore_master = \"%s\";", master);
	}
	at = env_block(text, len);
	s = malloc(len + n + 16);
	if (!s) {
		return HT_ENOMEM;
	}
	if (at) {
		memcpy(s, text, at);
		memcpy(s + at, add, n);
		memcpy(s + at + n, text + at, len - at);
		*out_len = len + n;
	} else if (n) {
		memcpy(s, text, len);
		memcpy(s + len, "\nenv {", 6);
		memcpy(s + len + 6, add, n);
		memcpy(s + len + 6 + n, "\n};\n", 4);
		*out_len = len + n + 10;
	} else {
		memcpy(s, text, len);
		*out_len = len;
	}
	s[*out_len] = '\0';
	*out = s;
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR) {
				continue;
			}
			return HT_EIO;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* ---- collector ---- */

int ht_capture_writer_create(struct ht_capture_writer **out,
			     const char *capture_dir,
			     const struct ht_capture_writer_opts *opts,
			     char *err, size_t err_len)
{
	struct ht_capture_writer *c;

	if (ht_path_mkdirs(capture_dir)) {
		return ht_err_printf(err, err_len, HT_EIO,
				     "%s: cannot create: %s", capture_dir,
				     strerror(errno));
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->dir = strdup(capture_dir))) {
		free(c);
		return ht_err_printf(err, err_len, HT_ENOMEM, "out of memory");
	}
	if (opts) {
		c->opts = *opts;
	}
	*out = c;
	return 0;
}

static void ring_free(struct ring *r)
{
	if (!r) {
		return;
	}
	if (r->fd >= 0) {
		close(r->fd);
	}
	if (r->own_reader) {
		ht_ring_reader_close(r->rr);
	}
	free(r->core_name);
	free(r->stream_name);
	free(r->core_dir);
	free(r->stream_path);
	free(r->metadata);
	ht_ctf_packet_layout_fini(&r->lay);
	free(r->buf);
	free(r->last_hc);
	free(r);
}

/* The first ring already added for core @name, or NULL. */
static struct ring *core_ring(const struct ht_capture_writer *c,
			      const char *name)
{
	size_t i;

	for (i = 0; i < c->nr_rings; i++) {
		if (!strcmp(c->rings[i]->core_name, name)) {
			return c->rings[i];
		}
	}
	return NULL;
}

/* Reads the metadata text: the caller's file or the ring's area. */
static int metadata_text(const struct ring *r, const char *path, char **text,
			 size_t *len, char *err, size_t err_len)
{
	const struct ht_ring_info *in = r->info;
	size_t n;

	if (path) {
		return ht_ctf_metadata_read(path, text, len, err, err_len);
	}
	if (!in->metadata) {
		return ht_err_printf(
		    err, err_len, HT_ENOENT,
		    "%s: the ring carries no metadata: give a metadata "
		    "file",
		    in->source);
	}
	/* A private copy: the region is shared with the producer. */
	n = in->metadata_size;
	*text = malloc(n + 1);
	if (!*text) {
		return HT_ENOMEM;
	}
	if (ht_ring_reader_read(r->rr, *text, in->metadata, n)) {
		free(*text);
		return ht_err_printf(err, err_len, HT_EIO, "%s",
				     ht_ring_reader_fault_msg(r->rr));
	}
	while (n && (*text)[n - 1] == '\0') {
		n--;
	}
	(*text)[n] = '\0';
	if (strlen(*text) != n) {
		size_t at = strlen(*text);

		free(*text);
		return ht_err_printf(
		    err, err_len, HT_EFORMAT,
		    "%s: metadata area: a null byte at offset %zu of "
		    "%zu: not TSDL text",
		    in->source, at, n);
	}
	*len = n;
	return 0;
}

/* Checks the ring's names and makes its paths in the capture. */
static int ring_names(struct ht_capture_writer *c, struct ring *r,
		      const struct ht_capture_writer_ring_opts *o, char *err,
		      size_t err_len)
{
	const char *src = r->info->source;
	const char *name = o->core_name ? o->core_name : r->info->core_name;
	const char *stream = o->stream_name ? o->stream_name : "stream";

	if (!name_ok(name)) {
		return ht_err_printf(
		    err, err_len, HT_EINVAL,
		    "%s: core name `%s`: give a name of letters, "
		    "digits, `_`, `-` or `.`",
		    src, name);
	}
	if (!name_ok(stream) || !strcmp(stream, "metadata") ||
	    (o->core_role && !name_ok(o->core_role)) ||
	    (o->core_master && !name_ok(o->core_master))) {
		return ht_err_printf(
		    err, err_len, HT_EINVAL,
		    "%s: invalid stream name, core role or master", src);
	}
	r->core_name = strdup(name);
	r->stream_name = strdup(stream);
	r->core_dir = ht_path_join(c->dir, name);
	r->stream_path = r->core_dir ? ht_path_join(r->core_dir, stream) : NULL;
	if (!r->core_name || !r->stream_name || !r->stream_path) {
		return HT_ENOMEM;
	}
	return 0;
}

/*
 * Reads the ring's metadata: its packet layout, then the text to write
 * (with the env entries of the core's identity).
 */
static int ring_metadata(struct ring *r,
			 const struct ht_capture_writer_ring_opts *o, char *err,
			 size_t err_len)
{
	const char *src = r->info->source;
	char *text = NULL;
	size_t len;
	int ret;

	ret = metadata_text(r, o->metadata_path, &text, &len, err, err_len);
	if (ret) {
		return ret;
	}
	ret = ht_ctf_packet_layout_read(
	    &r->lay, o->metadata_path ? o->metadata_path : src, text, len, src,
	    err, err_len);
	if (!ret) {
		ret = env_complete(r->lay.trace, text, len, r, o->core_role,
				   o->core_master, &r->metadata,
				   &r->metadata_len);
	}
	if (!ret && r->metadata_len != len) {
		/* What is written must still parse. */
		ret = ht_ctf_metadata_check(src, r->metadata, r->metadata_len,
					    err, err_len);
	}
	free(text);
	return ret;
}

/* Writes <core>/metadata for the core's first ring. */
static int write_metadata(struct ring *r, char *err, size_t err_len)
{
	char *mpath = ht_path_join(r->core_dir, "metadata");
	int ret = 0, fd;

	if (!mpath) {
		return HT_ENOMEM;
	}
	fd = open(mpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0 || write_all(fd, r->metadata, r->metadata_len)) {
		ret =
		    ht_err_printf(err, err_len, HT_EIO, "%s: cannot write: %s",
				  mpath, strerror(errno));
	}
	if (fd >= 0) {
		close(fd);
	}
	if (!ret) {
		r->metadata_owner = true;
	}
	free(mpath);
	return ret;
}

/*
 * Creates the ring's stream file (and the core's metadata file for its
 * first ring). The stream file is open in r->fd on success.
 */
static int ring_files(struct ht_capture_writer *c, struct ring *r, char *err,
		      size_t err_len)
{
	const char *src = r->info->source;
	struct ring *first = core_ring(c, r->core_name);

	if (first && (first->metadata_len != r->metadata_len ||
		      memcmp(first->metadata, r->metadata, r->metadata_len))) {
		return ht_err_printf(
		    err, err_len, HT_EINVAL,
		    "%s: core %s: the metadata differs from the one "
		    "of its first ring (%s)",
		    src, r->core_name, first->info->source);
	}
	if (ht_path_mkdirs(r->core_dir)) {
		return ht_err_printf(err, err_len, HT_EIO,
				     "%s: cannot create: %s", r->core_dir,
				     strerror(errno));
	}
	r->fd =
	    open(r->stream_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (r->fd < 0) {
		return ht_err_printf(
		    err, err_len, errno == EEXIST ? HT_EEXIST : HT_EIO,
		    "%s: cannot create the stream file: %s%s", r->stream_path,
		    strerror(errno),
		    errno == EEXIST ? " (a capture is already there)" : "");
	}
	return first ? 0 : write_metadata(r, err, err_len);
}

/* The copies the ring's drain keeps. */
static int ring_buffers(struct ring *r)
{
	size_t i;

	if (r->lay.hc_bytes) {
		r->last_hc = malloc(r->lay.hc_bytes);
		if (!r->last_hc) {
			return HT_ENOMEM;
		}
	}
	r->buf_size =
	    r->info->slot_size > BATCH_BYTES ? r->info->slot_size : BATCH_BYTES;
	r->buf = malloc(r->buf_size);
	if (!r->buf) {
		return HT_ENOMEM;
	}
	/* The direct copy reads back a fixed header and context only. */
	r->direct = r->lay.hc_bytes > 0 && r->lay.nr_ctx > 0;
	for (i = 0; i < r->lay.nr_ctx; i++) {
		if (!r->lay.ctx[i].end_bits) {
			r->direct = false;
		}
	}
	r->last_full = true;
	return 0;
}

static int ring_setup(struct ht_capture_writer *c, struct ring *r,
		      const struct ht_capture_writer_ring_opts *o, char *err,
		      size_t err_len)
{
	int ret;

	ret = ring_names(c, r, o, err, err_len);
	if (!ret) {
		ret = ring_metadata(r, o, err, err_len);
	}
	if (!ret) {
		ret = ring_files(c, r, err, err_len);
	}
	if (!ret) {
		ret = ring_buffers(r);
	}
	if (ret) {
		if (r->fd >= 0) {
			close(r->fd);
			r->fd = -1;
			unlink(r->stream_path);
		}
		return ret;
	}
	r->st.core_name = r->core_name;
	r->st.stream_name = r->stream_name;
	r->st.source = r->info->source;
	r->st.core_id = r->info->core_id;
	r->st.mode = r->info->mode;
	return 0;
}

static int add_ring(struct ht_capture_writer *c, struct ht_ring_reader *rr,
		    const struct ht_capture_writer_ring_opts *opts, char *err,
		    size_t err_len)
{
	static const struct ht_capture_writer_ring_opts none;
	struct ring *r, **nr;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r) {
		ht_ring_reader_close(rr);
		return ht_err_printf(err, err_len, HT_ENOMEM, "out of memory");
	}
	r->fd = -1;
	r->rr = rr;
	r->own_reader = true;
	r->info = ht_ring_reader_info(rr);
	ret = ring_setup(c, r, opts ? opts : &none, err, err_len);
	if (ret == HT_ENOMEM) {
		ht_err_printf(err, err_len, ret, "%s: out of memory",
			      r->info->source);
	}
	if (ret) {
		goto free_ring;
	}
	nr = realloc(c->rings, (c->nr_rings + 1) * sizeof(*nr));
	if (!nr) {
		ret = ht_err_printf(err, err_len, HT_ENOMEM, "out of memory");
		goto free_ring;
	}
	c->rings = nr;
	c->rings[c->nr_rings++] = r;
	return 0;

free_ring:
	ring_free(r);
	return ret;
}

int ht_capture_writer_add_path(struct ht_capture_writer *c, const char *path,
			       const struct ht_capture_writer_ring_opts *opts,
			       char *err, size_t err_len)
{
	struct ht_ring_reader *rr;
	int ret;

	ret = ht_ring_reader_open(&rr, path, err, err_len);
	if (ret) {
		return ret;
	}
	return add_ring(c, rr, opts, err, err_len);
}

int ht_capture_writer_add_memory(struct ht_capture_writer *c, void *mem,
				 size_t size,
				 const struct ht_capture_writer_ring_opts *opts,
				 char *err, size_t err_len)
{
	struct ht_ring_reader *rr;
	const char *what = opts && opts->core_name ? opts->core_name : "memory";
	int ret;

	ret = opts && opts->device_memory
		  ? ht_ring_reader_attach_device(&rr, mem, size, what, err,
						 err_len)
		  : ht_ring_reader_attach(&rr, mem, size, what, err, err_len);
	if (ret) {
		return ret;
	}
	return add_ring(c, rr, opts, err, err_len);
}

int ht_capture_writer_add_file(struct ht_capture_writer *c, void *mem,
			       size_t size, int fd, uint64_t file_off,
			       const struct ht_capture_writer_ring_opts *opts,
			       char *err, size_t err_len)
{
	struct ht_ring_reader *rr;
	const char *what = opts && opts->core_name ? opts->core_name : "memory";
	int ret;

	ret = ht_ring_reader_attach_file(&rr, mem, size, fd, file_off, what,
					 err, err_len);
	if (ret) {
		return ret;
	}
	return add_ring(c, rr, opts, err, err_len);
}

/*
 * The stream file holds st.bytes of whole packets: anything past them
 * (a partial write) is cut off. Returns false when even that failed.
 */
static bool cut_back(struct ring *r)
{
	return ftruncate(r->fd, (off_t)r->st.bytes) == 0 &&
	       lseek(r->fd, (off_t)r->st.bytes, SEEK_SET) >= 0;
}

/* The ring is no longer read; @msg says why (kept for the summary). */
static void ring_stop(struct ht_capture_writer *c, struct ring *r,
		      const char *msg)
{
	snprintf(r->error, sizeof(r->error), "%s", msg);
	r->st.error = r->error;
	r->st.failed = true;
	ht_message_sendf(c->opts.warn, c->opts.warn_arg,
			 "%s: core %s is no longer collected: %s holds %llu "
			 "whole packets (%llu bytes)",
			 msg, r->core_name, r->stream_path,
			 (unsigned long long)r->st.packets,
			 (unsigned long long)r->st.bytes);
}

/*
 * A write error (ENOSPC, EFBIG, EIO...) on the stream file, with @err
 * the write's errno: the file is cut back to its whole packets and the
 * ring stopped.
 */
static int write_fail(struct ht_capture_writer *c, struct ring *r, int err)
{
	char msg[512];
	bool cut = cut_back(r);

	snprintf(msg, sizeof(msg), "%s: write error: %s%s", r->stream_path,
		 strerror(err),
		 cut ? "" : " (and the partial packet could not be cut off)");
	ring_stop(c, r, msg);
	return HT_EIO;
}

/*
 * Writes the batch: its @n packets (r->iov, packet i ending at
 * r->ends[i]), with writev() until all went out. On a write error the
 * whole packets that went out are kept and counted, the rest cut off.
 */
static int batch_flush(struct ht_capture_writer *c, struct ring *r, uint32_t n,
		       uint64_t *bytes)
{
	size_t total = n ? r->ends[n - 1] : 0, done = 0;
	struct iovec *iov = r->iov;
	uint32_t i, nr_iov = r->nr_iov;

	while (done < total) {
		ssize_t w = writev(r->fd, iov, (int)nr_iov);
		size_t adv;

		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w <= 0) {
			int e = w < 0 ? errno : ENOSPC;

			for (i = 0; i < n && r->ends[i] <= done; i++) {
			}
			r->st.packets += i;
			r->st.bytes += i ? r->ends[i - 1] : 0;
			*bytes += i ? r->ends[i - 1] : 0;
			return write_fail(c, r, e);
		}
		done += (size_t)w;
		/* A short write: on from the first byte not written. */
		for (adv = (size_t)w; nr_iov && adv >= iov->iov_len; iov++) {
			adv -= iov->iov_len;
			nr_iov--;
		}
		if (nr_iov) {
			iov->iov_base = (uint8_t *)iov->iov_base + adv;
			iov->iov_len -= adv;
		}
	}
	r->st.packets += n;
	r->st.bytes += total;
	*bytes += total;
	return 0;
}

/* Appends the packet of @size bytes at @p (in r->buf) to the batch. */
static void batch_add(struct ring *r, uint8_t *p, uint32_t size)
{
	struct iovec *last = r->nr_iov ? &r->iov[r->nr_iov - 1] : NULL;
	uint32_t end = r->nr_batched ? r->ends[r->nr_batched - 1] : 0;

	if (last && (uint8_t *)last->iov_base + last->iov_len == p) {
		last->iov_len += size;
	} else {
		r->iov[r->nr_iov].iov_base = p;
		r->iov[r->nr_iov].iov_len = size;
		r->nr_iov++;
	}
	r->ends[r->nr_batched++] = end + size;
}

/* Writes one packet of @size bytes at @p (outside a batch). */
static int write_packet(struct ht_capture_writer *c, struct ring *r,
			const uint8_t *p, size_t size, uint64_t *bytes)
{
	size_t done = 0;

	while (done < size) {
		ssize_t w = write(r->fd, p + done, size - done);

		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w <= 0) {
			return write_fail(c, r, w < 0 ? errno : ENOSPC);
		}
		done += (size_t)w;
	}
	r->st.packets++;
	r->st.bytes += size;
	*bytes += size;
	return 0;
}

/* Keeps the header and context of the packet being written. */
static void keep_last(struct ring *r, const uint8_t *p,
		      const struct ht_ctf_packet_context_layout *cl)
{
	if (r->last_hc && cl->end_bits) {
		memcpy(r->last_hc, p, (cl->end_bits + 7u) / 8u);
		r->last_cl = cl;
	}
}

static uint64_t field_mask(const struct ht_ctf_field_loc *l)
{
	return l->size_bits >= 64 ? UINT64_MAX
				  : ((uint64_t)1 << l->size_bits) - 1u;
}

/*
 * Packets were lost before the first one kept (an overwrite ring read
 * late, or a producer past a full ring): readers report lost packets
 * from a jump of packet_seq_num between two packets, never before the
 * first. So an empty packet goes first: the first kept packet's header
 * and context, no events, both timestamps its beginning, and a
 * sequence number @lost + 1 below it. When the producer's numbering
 * leaves no room for that (it numbers its first packet 0, so the first
 * kept one is @lost), every packet of the ring is written with
 * packet_seq_num + (@lost + 1 - first), r->seq_shift.
 */
static int loss_marker(struct ht_capture_writer *c, struct ring *r,
		       const uint8_t *first,
		       const struct ht_ctf_packet_context_layout *cl,
		       uint64_t lost, uint64_t *bytes)
{
	uint64_t seq = ht_ctf_field_loc_read(first, &cl->seq_num);
	uint32_t size = (uint32_t)((cl->end_bits + 7u) / 8u);
	uint8_t *m = r->last_hc;

	if (!m || !cl->end_bits) {
		return 0;
	}
	if (seq < lost + 1u) {
		r->seq_shift = lost + 1u - seq;
		seq = 0;
	} else {
		seq -= lost + 1u;
	}
	memcpy(m, first, size);
	ht_ctf_field_loc_write(m, &cl->packet_size, (uint64_t)size * 8u);
	if (cl->content_size.set) {
		ht_ctf_field_loc_write(m, &cl->content_size, cl->end_bits);
	}
	if (cl->ts_begin.set && cl->ts_end.set) {
		ht_ctf_field_loc_write(m, &cl->ts_end,
				       ht_ctf_field_loc_read(m, &cl->ts_begin));
	}
	ht_ctf_field_loc_write(m, &cl->seq_num, seq & field_mask(&cl->seq_num));
	r->st.loss_markers++;
	return write_packet(c, r, m, size, bytes);
}

/*
 * Takes the slot copied at @p, in r->buf (packet index @k): checks the
 * copy, writes the loss marker before the first packet kept when
 * packets were lost before it, shifts its sequence number, and appends
 * it to the batch; its size in *@kept (0: skipped). Only the copy is
 * ever looked at or written.
 */
static int take_packet(struct ht_capture_writer *c, struct ring *r, uint8_t *p,
		       uint32_t k, uint32_t *kept, uint64_t *bytes)
{
	const struct ht_ctf_packet_context_layout *cl;
	char why[256];
	uint32_t size;
	int ret;

	*kept = 0;
	size = packet_check(r, p, why, sizeof(why), &cl);
	if (!size) {
		damaged(c, r, k, why);
		return 0;
	}
	if (!r->started) {
		uint64_t lost = r->st.lost_packets + r->st.damaged_packets;

		r->started = true;
		/* Nothing is batched before the first packet kept. */
		if (lost && cl->seq_num.set &&
		    ht_ctf_field_loc_within(&cl->seq_num, size)) {
			ret = loss_marker(c, r, p, cl, lost, bytes);
			if (ret) {
				return ret;
			}
		}
	}
	if (r->seq_shift && cl->seq_num.set &&
	    ht_ctf_field_loc_within(&cl->seq_num, size)) {
		ht_ctf_field_loc_write(
		    p, &cl->seq_num,
		    (ht_ctf_field_loc_read(p, &cl->seq_num) + r->seq_shift) &
			field_mask(&cl->seq_num));
	}
	keep_last(r, p, cl);
	r->loss_at_last = r->st.lost_packets + r->st.damaged_packets;
	batch_add(r, p, size);
	*kept = size;
	return 0;
}

/* Writes the batch out and empties it. */
static int batch_end(struct ht_capture_writer *c, struct ring *r,
		     uint64_t *bytes)
{
	int ret = batch_flush(c, r, r->nr_batched, bytes);

	r->used = 0;
	r->nr_iov = 0;
	r->nr_batched = 0;
	return ret;
}

/* Room in the batch for one more slot. */
static bool batch_full(const struct ring *r)
{
	return r->nr_batched == BATCH ||
	       r->buf_size - r->used < r->info->slot_size;
}

/* The region faulted: what was copied is written, the ring stopped. */
static int ring_faulted(struct ht_capture_writer *c, struct ring *r,
			uint64_t *bytes)
{
	int ret = batch_end(c, r, bytes);

	if (!r->st.failed) {
		ring_stop(c, r, ht_ring_reader_fault_msg(r->rr));
	}
	return ret;
}

/*
 * The direct copy (see the top of the file) of up to @n waiting slots
 * from the @i-th on: copied into the stream file, then each packet's
 * header and context read back from the file and checked. The good
 * packets filling their slots stay, the file is cut back after them,
 * and *@done says how many they are (0: the @i-th needs the copy, or
 * the ring cannot be copied this way any more: r->direct is false).
 */
static int direct_copy(struct ht_capture_writer *c, struct ring *r, uint32_t i,
		       uint32_t n, uint32_t *done, uint64_t *bytes)
{
	const uint32_t slot = r->info->slot_size;
	const size_t hc = r->lay.hc_bytes < slot ? r->lay.hc_bytes : slot;
	const struct ht_ctf_packet_context_layout *cl;
	uint64_t discarded = r->st.events_discarded;
	uint64_t base = r->st.bytes;
	uint32_t k, j, whole, max = (uint32_t)(r->buf_size / slot);
	int status, werr;
	size_t copied;
	char why[256];

	*done = 0;
	copied = ht_ring_reader_copy_slots_to_file(r->rr, i, n < max ? n : max,
						   r->fd, &k, &status, &werr);
	if (status == HT_EUNSUPPORTED) {
		r->direct = false;
		return 0;
	}
	whole = (uint32_t)(copied / slot);
	for (j = 0; j < whole; j++) {
		/* The header and context as the file holds them. */
		if (pread(r->fd, r->buf, hc,
			  (off_t)(base + (uint64_t)j * slot)) != (ssize_t)hc ||
		    packet_check(r, r->buf, why, sizeof(why), &cl) != slot) {
			break;
		}
		discarded = r->st.events_discarded;
		keep_last(r, r->buf, cl);
		r->loss_at_last = r->st.lost_packets + r->st.damaged_packets;
	}
	/* packet_check() of a packet that is not kept counts nothing. */
	r->st.events_discarded = discarded;
	if (j < whole) {
		/* Packet j needs the copy: a direct copy from it would be
		 * cut back at once. */
		r->last_full = false;
	}
	r->st.packets += j;
	r->st.bytes += (uint64_t)j * slot;
	*bytes += (uint64_t)j * slot;
	*done = j;
	if (status == HT_EIO) {
		return write_fail(c, r, werr);
	}
	if (copied != (size_t)j * slot && !cut_back(r)) {
		return write_fail(c, r, errno);
	}
	return 0;
}

/*
 * Discard ring: every committed packet, each slot copied out once, as
 * many at a time as the batch buffer holds; the slots are released as
 * soon as they are copied, and the good packets of the copies written
 * in one writev() per batch.
 */
static int drain_discard(struct ht_capture_writer *c, struct ring *r,
			 uint64_t *bytes)
{
	const uint32_t slot = r->info->slot_size;
	uint32_t avail = ht_ring_reader_avail(r->rr), i = 0, released = 0;
	uint32_t n, j, k, kept;
	bool full = true;
	int ret;

	r->st.lost_packets = ht_ring_reader_overrun(r->rr);
	while (i < avail) {
		/* The first packet (a loss marker may go before it) and
		 * renumbered ones take the copy. */
		if (r->direct && r->last_full && r->started && !r->seq_shift &&
		    !r->nr_batched) {
			ret = direct_copy(c, r, i - released, avail - i, &n,
					  bytes);
			i += n;
			if (n) {
				ht_ring_reader_release(r->rr, i - released);
				released = i;
			}
			if (ret) {
				return ret;
			}
			if (ht_ring_reader_faulted(r->rr)) {
				return ring_faulted(c, r, bytes);
			}
			if (n) {
				continue;
			}
		}
		/* Room for one slot at least: a fuller batch was written. */
		n = (uint32_t)((r->buf_size - r->used) / slot);
		if (n > BATCH - r->nr_batched) {
			n = BATCH - r->nr_batched;
		}
		if (n > avail - i) {
			n = avail - i;
		}
		n = ht_ring_reader_copy_slots(r->rr, i - released, n,
					      r->buf + r->used, &k);
		if (!n) {
			return ring_faulted(c, r, bytes);
		}
		for (j = 0; j < n; j++) {
			ret = take_packet(c, r,
					  r->buf + r->used + (size_t)j * slot,
					  k + j, &kept, bytes);
			if (ret) {
				return ret;
			}
			full = full && kept == slot;
		}
		r->used += (size_t)n * slot;
		i += n;
		if (batch_full(r) || i == avail) {
			ht_ring_reader_release(r->rr, i - released);
			released = i;
			r->last_full = full;
			full = true;
			ret = batch_end(c, r, bytes);
			if (ret) {
				return ret;
			}
		}
	}
	if (ht_ring_reader_faulted(r->rr)) {
		return ring_faulted(c, r, bytes);
	}
	return 0;
}

/* Overwrite ring: the packets still in the ring, oldest first. */
static int drain_overwrite(struct ht_capture_writer *c, struct ring *r,
			   uint64_t *bytes)
{
	uint32_t k, kept;
	int ret;

	while (ht_ring_reader_copy(r->rr, r->buf + r->used, &k,
				   &r->st.lost_packets)) {
		ret = take_packet(c, r, r->buf + r->used, k, &kept, bytes);
		if (ret) {
			return ret;
		}
		/* The next copy packs against this one (one iov). */
		r->used += kept;
		if (batch_full(r)) {
			ret = batch_end(c, r, bytes);
			if (ret) {
				return ret;
			}
		}
	}
	if (ht_ring_reader_faulted(r->rr)) {
		return ring_faulted(c, r, bytes);
	}
	return batch_end(c, r, bytes);
}

/*
 * What no packet carries at the end gets an empty packet after the
 * last one: drops after it (the producer's ring was full at the stop:
 * the final events_discarded), and packets lost or skipped after it
 * (its sequence number jumps by that many). It copies the last
 * packet's header and context: content and packet size are the header
 * and context, both timestamps the last packet's end.
 */
static int final_packet(struct ht_capture_writer *c, struct ring *r,
			uint64_t *bytes)
{
	uint32_t final = ht_ring_reader_final_discarded(r->rr);
	const struct ht_ctf_packet_context_layout *cl = r->last_cl;
	uint64_t trailing =
	    r->st.lost_packets + r->st.damaged_packets - r->loss_at_last;
	bool drops, losses;
	uint32_t size;

	if (!cl) {
		return 0;
	}
	drops = cl->discarded.set && final > r->st.events_discarded;
	losses = cl->seq_num.set && trailing > 0;
	if (!drops && !losses) {
		return 0;
	}
	size = (uint32_t)((cl->end_bits + 7u) / 8u);
	ht_ctf_field_loc_write(r->last_hc, &cl->packet_size,
			       (uint64_t)size * 8u);
	if (cl->content_size.set) {
		ht_ctf_field_loc_write(r->last_hc, &cl->content_size,
				       cl->end_bits);
	}
	if (cl->ts_begin.set && cl->ts_end.set) {
		ht_ctf_field_loc_write(
		    r->last_hc, &cl->ts_begin,
		    ht_ctf_field_loc_read(r->last_hc, &cl->ts_end));
	}
	if (cl->seq_num.set) {
		ht_ctf_field_loc_write(
		    r->last_hc, &cl->seq_num,
		    (ht_ctf_field_loc_read(r->last_hc, &cl->seq_num) + 1u +
		     trailing) &
			field_mask(&cl->seq_num));
	}
	if (drops) {
		ht_ctf_field_loc_write(r->last_hc, &cl->discarded, final);
	}
	if (write_packet(c, r, r->last_hc, size, bytes)) {
		return HT_EIO;
	}
	r->st.loss_markers++;
	if (drops) {
		ht_message_sendf(
		    c->opts.warn, c->opts.warn_arg,
		    "%s (core %s): %llu events dropped after the last "
		    "packet: written in an empty packet",
		    r->info->source, r->core_name,
		    (unsigned long long)(final - r->st.events_discarded));
		r->st.events_discarded = final;
	}
	return 0;
}

static int drain_ring(struct ht_capture_writer *c, struct ring *r, bool final,
		      uint64_t *bytes)
{
	int ret;

	if (r->st.failed) {
		return 0;
	}
	/* A file cut under the mapping: stopped before any access faults
	 * (the guard catches the accesses that race with the cut). */
	ht_ring_reader_check_size(r->rr);
	r->st.state = ht_ring_reader_state(r->rr);
	r->st.full_count = ht_ring_reader_full_count(r->rr);
	if (ht_ring_reader_faulted(r->rr)) {
		return ring_faulted(c, r, bytes);
	}
	if (r->info->mode == HT_RING_DISCARD) {
		return drain_discard(c, r, bytes);
	}
	if (!final && !c->opts.overwrite_live &&
	    r->st.state != HT_RING_STOPPED) {
		return 0;
	}
	ret = drain_overwrite(c, r, bytes);
	if (r->st.lost_packets > r->last_lost_warned &&
	    c->opts.overwrite_live) {
		ht_message_sendf(
		    c->opts.warn, c->opts.warn_arg,
		    "%s (core %s): %llu packets overwritten before they "
		    "could be read",
		    r->info->source, r->core_name,
		    (unsigned long long)(r->st.lost_packets -
					 r->last_lost_warned));
		r->last_lost_warned = r->st.lost_packets;
	}
	return ret;
}

int ht_capture_writer_drain(struct ht_capture_writer *c, uint64_t *bytes)
{
	uint64_t total = 0;
	size_t i;
	int ret = 0, r;

	for (i = 0; i < c->nr_rings; i++) {
		r = drain_ring(c, c->rings[i], false, &total);
		if (r && !ret) {
			ret = r;
		}
	}
	if (bytes) {
		*bytes += total;
	}
	return ret;
}

bool ht_capture_writer_all_stopped(const struct ht_capture_writer *c)
{
	size_t i;

	for (i = 0; i < c->nr_rings; i++) {
		const struct ring *r = c->rings[i];

		if (r->st.failed) {
			continue;
		}
		if (ht_ring_reader_state(r->rr) != HT_RING_STOPPED ||
		    ht_ring_reader_pending(r->rr) != 0) {
			return false;
		}
	}
	return true;
}

size_t ht_capture_writer_nr_rings(const struct ht_capture_writer *c)
{
	return c->nr_rings;
}

void ht_capture_writer_stats(const struct ht_capture_writer *c, size_t i,
			     struct ht_capture_writer_stats *st)
{
	const struct ring *r = c->rings[i];

	*st = r->st;
	if (!c->finished) {
		st->state = ht_ring_reader_state(r->rr);
		st->full_count = ht_ring_reader_full_count(r->rr);
	}
}

static int sync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0) {
		return HT_EIO;
	}
	if (fsync(fd) < 0 && errno != EINVAL) {
		ret = HT_EIO;
	}
	close(fd);
	return ret;
}

int ht_capture_writer_finish(struct ht_capture_writer *c, char *err,
			     size_t err_len)
{
	uint64_t total = 0;
	size_t i;
	int ret = 0;

	if (c->finished) {
		return 0;
	}
	for (i = 0; i < c->nr_rings; i++) {
		struct ring *r = c->rings[i];
		int e = drain_ring(c, r, true, &total);

		if (!e && !r->st.failed) {
			e = final_packet(c, r, &total);
		}

		if (e && !ret) {
			ret = ht_err_printf(err, err_len, e, "%s",
					    r->st.error ? r->st.error
							: "write error");
		}
	}
	for (i = 0; i < c->nr_rings; i++) {
		struct ring *r = c->rings[i];
		char *mpath;

		if (!c->opts.no_fsync) {
			if (fsync(r->fd) < 0 && !ret) {
				ret = ht_err_printf(
				    err, err_len, HT_EIO, "%s: fsync: %s",
				    r->stream_path, strerror(errno));
			}
			if (r->metadata_owner) {
				mpath = ht_path_join(r->core_dir, "metadata");
				if (mpath && sync_path(mpath) && !ret) {
					ret = ht_err_printf(
					    err, err_len, HT_EIO,
					    "%s: fsync failed", mpath);
				}
				free(mpath);
				sync_path(r->core_dir);
			}
		}
		if (close(r->fd) < 0 && !ret) {
			ret =
			    ht_err_printf(err, err_len, HT_EIO, "%s: close: %s",
					  r->stream_path, strerror(errno));
		}
		r->fd = -1;
	}
	if (!c->opts.no_fsync) {
		sync_path(c->dir);
	}
	c->finished = true;
	return ret;
}

void ht_capture_writer_destroy(struct ht_capture_writer *c)
{
	size_t i;

	if (!c) {
		return;
	}
	for (i = 0; i < c->nr_rings; i++) {
		ring_free(c->rings[i]);
	}
	free(c->rings);
	free(c->dir);
	free(c);
}
