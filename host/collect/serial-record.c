/* SPDX-License-Identifier: MIT */
/*
 * Recording over a serial line (serial-record.h). The target's packets
 * arrive as PACKET frames; each is put into a packet ring in the
 * host's memory, and the collector (capture-writer.h) drains that ring
 * as it drains any other: the same packet checks, the same env
 * completion, the same file handling (whole packets only, fsync, a
 * write error cuts the file back). The sync rounds are traced by the
 * master ring tracer into a second ring, stamped with the round's own
 * times (the tracer's clock returns the stamp set before each call).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture-writer.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/file.h"
#include "common/json-writer.h"
#include "common/path.h"
#include "hetrace/packet-ring.h"
#include "hetrace/serial-proto.h"
#include "master-ring-tracer.h"
#include "serial-record.h"

extern const unsigned char ht_master_events_metadata[];

/* The host copy of the target's packets: any packet a frame can hold. */
#define PKT_SLOT_SIZE HT_SP_PAYLOAD_MAX
#define PKT_SLOTS 32u
/* The host's sync events, a few per round. */
#define SYNC_RING_SIZE (256u * 1024u)
#define SYNC_SLOT_SIZE 4096u
#define SYNC_TIMEOUT_MS 1000
#define MAX_STREAMS 8

struct stream {
	void *mem;
	struct ht_ring *ring;
	size_t index;	/* in the collector */
	uint32_t *used; /* bytes of each slot last written */
};

struct rec {
	struct ht_serial *s;
	const struct ht_serial_record_opts *o;
	struct ht_serial_record_result *r;
	char *err;
	size_t err_len;

	struct ht_serial_hello hello;
	char *metadata;
	size_t metadata_len;
	struct ht_capture_writer *cw;

	/*
	 * PACKET frames that arrive while HELLO and the metadata are
	 * asked for (a target streams all the time): kept, each as a
	 * 32-bit length and its bytes, and written first once the stream
	 * exists. Bounded: beyond EARLY_MAX bytes they are counted lost.
	 */
	struct ht_buf early;
	uint64_t early_lost;

	struct stream streams[MAX_STREAMS];
	size_t nr_streams;
	uint64_t packets_since_hello;
	bool fatal;	 /* stop: the message is in err */
	bool sync_on;	 /* rounds are traced (until a reboot) */
	bool sync_any;	 /* a round was answered */
	bool sync_late;	 /* the last round timed out */
	uint32_t sync_n; /* the target's n of the last answer */

	void *tr_mem;
	struct ht_ring *tr_ring;
	struct ht_master_ring_tracer tr;
	size_t tr_index;
	bool tr_started;
};

/* The tracer's clock: the stamp of the event being traced. */
static _Thread_local uint64_t stamp_ns;

static uint64_t stamp_clock(void)
{
	return stamp_ns;
}

static void warn(struct rec *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void warn(struct rec *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!r->o->warn) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->o->warn(r->o->warn_arg, msg);
}

static void cw_warn(void *arg, const char *msg)
{
	struct rec *r = arg;

	warn(r, "%s", msg);
}

/* A file name from the target's name: letters, digits, '-', '_', '.'. */
static void core_dir_name(const struct ht_serial_hello *h, char *out,
			  size_t len)
{
	size_t i, n = 0;

	for (i = 0; h->name[i] && n + 1 < len; i++) {
		char c = h->name[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		    (c == '.' && n)) {
			out[n++] = c;
		}
	}
	if (!n) {
		snprintf(out, len, "core%" PRIu32, h->core_id);
		return;
	}
	out[n] = '\0';
}

/* ---- The target's streams ---- */

static int stream_add(struct rec *r)
{
	struct ht_capture_writer_ring_opts ro = {
	    .core_name = r->r->core,
	    .core_role = "slave",
	    .core_master = r->r->master,
	};
	struct stream *st;
	uint32_t total;
	char name[32];
	int ret;

	if (r->nr_streams == MAX_STREAMS) {
		return ht_err_printf(
		    r->err, r->err_len, HT_ERANGE,
		    "%s: the target booted %zu times: no more streams",
		    ht_serial_name(r->s), r->nr_streams);
	}
	st = &r->streams[r->nr_streams];
	total = 4096u + (uint32_t)((r->metadata_len + 63u) & ~(size_t)63u) +
		PKT_SLOTS * PKT_SLOT_SIZE;
	st->used = calloc(PKT_SLOTS, sizeof(*st->used));
	if (!st->used || posix_memalign(&st->mem, 64, total)) {
		free(st->used);
		st->used = NULL;
		return ht_err_printf(r->err, r->err_len, HT_ENOMEM,
				     "out of memory");
	}
	memset(st->mem, 0, total);
	st->ring = ht_ring_init(st->mem, total, PKT_SLOT_SIZE, HT_RING_DISCARD,
				r->hello.core_id, r->r->core, r->metadata,
				(uint32_t)r->metadata_len);
	if (!st->ring) {
		free(st->mem);
		free(st->used);
		memset(st, 0, sizeof(*st));
		return ht_err_printf(r->err, r->err_len, HT_EINVAL,
				     "%s: cannot lay out the host ring",
				     ht_serial_name(r->s));
	}
	if (r->nr_streams) {
		snprintf(name, sizeof(name), "stream-boot%zu",
			 r->nr_streams + 1);
		ro.stream_name = name;
	}
	ret = ht_capture_writer_add_memory(r->cw, st->mem, total, &ro, r->err,
					   r->err_len);
	if (ret) {
		free(st->mem);
		free(st->used);
		memset(st, 0, sizeof(*st));
		return ret;
	}
	st->index = ht_capture_writer_nr_rings(r->cw) - 1;
	r->nr_streams++;
	r->r->streams = (uint32_t)r->nr_streams;
	return 0;
}

static int drain(struct rec *r)
{
	int ret = ht_capture_writer_drain(r->cw, NULL);

	if (ret && !r->fatal) {
		r->fatal = true;
		snprintf(r->err, r->err_len, "%s: cannot write the capture: %s",
			 r->o->capture, ht_strerror(ret));
	}
	return ret;
}

/* A PACKET frame: into the current stream's ring, verbatim. */
static void on_packet(void *arg, const uint8_t *p, uint32_t n)
{
	struct rec *r = arg;
	struct stream *st;
	uint8_t *slot;
	uint32_t k;

	if (r->fatal || !r->nr_streams) {
		return;
	}
	st = &r->streams[r->nr_streams - 1];
	if (ht_ring_is_full(st->ring)) {
		drain(r);
	}
	k = st->ring->head % st->ring->nr_slots;
	slot = ht_ring_slot(st->ring);
	memcpy(slot, p, n);
	/* A packet that claims more than its frame holds reads zeros,
	 * never the bytes of an older packet. */
	if (st->used[k] > n) {
		memset(slot + n, 0, st->used[k] - n);
	}
	st->used[k] = n;
	ht_ring_commit(st->ring);
	r->packets_since_hello++;
	r->r->packets++;
	r->r->bytes += n;
	if (st->ring->head - st->ring->tail >= st->ring->nr_slots / 2) {
		drain(r);
	}
}

#define EARLY_MAX (16u << 20)

static void on_packet_early(void *arg, const uint8_t *p, uint32_t n)
{
	struct rec *r = arg;
	uint8_t len[4];

	if (r->early.len + n + sizeof(len) > EARLY_MAX) {
		r->early_lost++;
		return;
	}
	ht_sp_put32(len, n);
	ht_buf_add(&r->early, len, sizeof(len));
	ht_buf_add(&r->early, p, n);
}

/* A boot HELLO before ours: the packets kept were of the boot before. */
static void on_hello_early(void *arg, const struct ht_serial_hello *h)
{
	struct rec *r = arg;

	(void)h;
	ht_buf_clear(&r->early);
}

/* The packets kept while HELLO and the metadata were asked for. */
static void replay_early(struct rec *r)
{
	const uint8_t *p = (const uint8_t *)r->early.data;
	size_t off = 0;
	uint32_t n;

	while (off + 4u <= r->early.len) {
		n = ht_sp_get32(p + off);
		on_packet(r, p + off + 4u, n);
		off += 4u + n;
	}
	ht_buf_fini(&r->early);
}

static void on_log(void *arg, const char *text, uint32_t n)
{
	struct rec *r = arg;

	warn(r, "%s: target says: %.*s", ht_serial_name(r->s),
	     (int)(n && text[n - 1] == '\n' ? n - 1 : n), text);
}

/*
 * An unasked HELLO: the target booted. The boot HELLO queued before
 * our own (same boot count, no packet since) is not a reboot.
 */
static void on_hello(void *arg, const struct ht_serial_hello *h)
{
	struct rec *r = arg;
	struct stream *st;

	if (r->fatal || !r->nr_streams) {
		return;
	}
	if (!r->packets_since_hello && h->boot_count == r->hello.boot_count &&
	    r->nr_streams == 1 && !r->r->boots) {
		return;
	}
	if (h->metadata_crc != r->hello.metadata_crc ||
	    h->metadata_size != r->hello.metadata_size) {
		r->fatal = true;
		snprintf(r->err, r->err_len,
			 "%s: the target booted again (boot %" PRIu32
			 ") with other metadata (CRC-32 0x%08" PRIx32
			 ", was 0x%08" PRIx32 "): the capture ends here",
			 ht_serial_name(r->s), h->boot_count, h->metadata_crc,
			 r->hello.metadata_crc);
		return;
	}
	st = &r->streams[r->nr_streams - 1];
	drain(r);
	ht_ring_stop(st->ring);
	r->r->boots++;
	r->hello = *h;
	r->packets_since_hello = 0;
	if (stream_add(r)) {
		r->fatal = true;
		return;
	}
	if (r->sync_on) {
		r->sync_on = false;
		warn(r,
		     "%s: the target booted again (boot %" PRIu32
		     "): its packets go on in stream-boot%zu; a reset "
		     "may restart its clock, so sync rounds stop here (the "
		     "fit uses the first boot's)",
		     ht_serial_name(r->s), h->boot_count, r->nr_streams);
	} else {
		warn(r,
		     "%s: the target booted again (boot %" PRIu32
		     "): its packets go on in stream-boot%zu",
		     ht_serial_name(r->s), h->boot_count, r->nr_streams);
	}
}

/* ---- The host's sync events ---- */

/*
 * The recorder's metadata: the master events' text, its clock said to
 * be the line's (CLOCK_MONOTONIC) and given a UUID.
 */
static char *host_metadata(void)
{
	const char *t = (const char *)ht_master_events_metadata;
	const char *clk = strstr(t, "\nclock {\n\tname = ns;\n");
	const char *desc = strstr(t, "CLOCK_MONOTONIC_RAW");
	struct ht_buf buf = {0};
	uint64_t a = ht_serial_now_ns(), b = (uint64_t)getpid();

	if (!clk || !desc || desc < clk) {
		return strdup(t);
	}
	clk += strlen("\nclock {\n\tname = ns;\n");
	ht_buf_add(&buf, t, (size_t)(clk - t));
	/* Unique enough for a clock class: the time and the process. */
	a ^= (uint64_t)(uintptr_t)&buf;
	ht_buf_printf(&buf,
		      "\tuuid = \"%08" PRIx32 "-%04" PRIx32 "-4%03" PRIx32
		      "-8%03" PRIx32 "-%012" PRIx64 "\";\n",
		      (uint32_t)a, (uint32_t)(a >> 32) & 0xffffu,
		      (uint32_t)(a >> 48) & 0xfffu, (uint32_t)b & 0xfffu,
		      (uint64_t)((b >> 12 ^ a) & 0xffffffffffffu));
	ht_buf_add(&buf, clk, (size_t)(desc - clk));
	ht_buf_puts(&buf, "CLOCK_MONOTONIC");
	ht_buf_puts(&buf, desc + strlen("CLOCK_MONOTONIC_RAW"));
	return ht_buf_steal(&buf, NULL);
}

static int tracer_start(struct rec *r)
{
	struct ht_capture_writer_ring_opts ro = {
	    .core_name = r->r->master,
	    .stream_name = "sync",
	    .core_role = "master",
	};
	/* The host's core id: any but the target's. */
	uint32_t id = r->hello.core_id ? 0 : 1;
	char *meta = host_metadata();
	int ret;

	if (!meta) {
		return ht_err_printf(r->err, r->err_len, HT_ENOMEM,
				     "out of memory");
	}
	ret = ht_master_ring_alloc(SYNC_RING_SIZE, SYNC_SLOT_SIZE, id,
				   r->r->master, meta, &r->tr_mem, &r->tr_ring);
	free(meta);
	if (ret == HT_ENOMEM) {
		return ht_err_printf(r->err, r->err_len, ret, "out of memory");
	}
	if (ret) {
		return ht_err_printf(r->err, r->err_len, ret,
				     "the host's ring: cannot lay it out");
	}
	ret = ht_capture_writer_add_memory(r->cw, r->tr_mem, SYNC_RING_SIZE,
					   &ro, r->err, r->err_len);
	if (ret) {
		return ret;
	}
	r->tr_index = ht_capture_writer_nr_rings(r->cw) - 1;
	stamp_ns = ht_serial_now_ns();
	ht_master_ring_tracer_start(&r->tr, r->tr_ring, id, stamp_clock);
	r->tr_started = true;
	return 0;
}

/* One round; a timeout is counted, a lost line returned. */
static int sync_round(struct rec *r)
{
	uint64_t t_send, t_recv, t_target;
	uint32_t n;
	char e[256];
	int ret;

	ret = ht_serial_sync(r->s, &t_send, &t_recv, &n, &t_target,
			     SYNC_TIMEOUT_MS, e, sizeof(e));
	if (ret == HT_ETIMEDOUT) {
		r->sync_late = true;
		r->r->sync_timeouts++;
		if (r->r->sync_timeouts == 1) {
			warn(r, "%s", e);
		}
		return 0;
	}
	if (ret) {
		snprintf(r->err, r->err_len, "%s", e);
		return ret;
	}
	if (!r->sync_on) {
		return 0;
	}
	/*
	 * After a timeout, the answer numbered next may be the late one of
	 * the round given up (sent earlier than this round's request:
	 * pairing it with this request would break causality) or this
	 * round's when that request never arrived. Neither is known, so it
	 * is not used.
	 */
	if (r->sync_late && r->sync_any && n == r->sync_n + 2u) {
		r->sync_n = n;
		r->sync_late = false;
		r->r->sync_unused++;
		return 0;
	}
	r->sync_late = false;
	r->sync_any = true;
	r->sync_n = n;
	r->r->sync_rounds++;
	if (!r->r->min_rtt_ns || t_recv - t_send < r->r->min_rtt_ns) {
		r->r->min_rtt_ns = t_recv - t_send;
	}
	stamp_ns = t_send;
	hetrace_master_trace_sync_req(&r->tr.ctx, n, r->hello.core_id);
	stamp_ns = t_recv;
	hetrace_master_trace_sync_recv(&r->tr.ctx, n + 1u, r->hello.core_id);
	return 0;
}

/* ---- The run ---- */

static double now_s(void)
{
	return (double)ht_serial_now_ns() / 1e9;
}

static void progress(struct rec *r, double t)
{
	const struct ht_serial_stats *ls = ht_serial_stats(r->s);

	fprintf(stderr,
		"\r%6.1f s  %" PRIu64 " packets  %.2f MB  %" PRIu64
		" sync rounds  lost frames %" PRIu32 "  bad frames %" PRIu32
		"\033[K",
		t, r->r->packets, (double)r->r->bytes / 1e6, r->r->sync_rounds,
		ls->lost,
		ls->crc_errs + ls->cobs_errs + ls->runts + ls->too_long);
}

/*
 * Drains and syncs until the time is up, a stop, a fault. Returns 0
 * or the line's HT_EIO (message in err).
 */
static int run(struct rec *r, double t0)
{
	const struct ht_serial_record_opts *o = r->o;
	double period = o->sync_period > 0 ? o->sync_period : 0.1;
	double next_sync = 0, last_progress = 0, t;
	char e[256];
	int ret, ms;

	for (;;) {
		t = now_s() - t0;
		if ((o->stop && *o->stop) || r->fatal ||
		    (o->seconds > 0 && t >= o->seconds)) {
			return 0;
		}
		if (t >= next_sync && r->sync_on) {
			ret = sync_round(r);
			if (ret) {
				return ret;
			}
			next_sync += period;
			if (next_sync < t) {
				next_sync = t + period;
			}
		}
		t = now_s() - t0;
		ms = (int)((next_sync - t) * 1e3);
		if (!r->sync_on || ms > 50) {
			ms = 50;
		}
		if (o->seconds > 0 && (o->seconds - t) * 1e3 < ms) {
			ms = (int)((o->seconds - t) * 1e3);
		}
		ret = ht_serial_pump(r->s, ms > 0 ? ms : 0, e, sizeof(e));
		if (ret) {
			snprintf(r->err, r->err_len, "%s", e);
			return ret;
		}
		drain(r);
		if (o->progress && t - last_progress >= 0.25) {
			progress(r, t);
			last_progress = t;
		}
	}
}

/*
 * The end of a run on a line still there: the target closes its open
 * packet (FLUSH) and what it sends is taken until the line is quiet.
 */
static void flush_target(struct rec *r)
{
	struct ht_serial_reply rep;
	uint64_t before, end;
	char e[256];

	if (ht_serial_command(r->s, HT_SPC_FLUSH, NULL, 0, &rep, 1000, e,
			      sizeof(e))) {
		return;
	}
	/* The closed packet follows the reply; a target that streams on
	 * is cut after a short while. */
	end = ht_serial_now_ns() + 300000000u;
	do {
		before = ht_serial_stats(r->s)->bytes;
		if (ht_serial_pump(r->s, 50, e, sizeof(e))) {
			return;
		}
	} while (ht_serial_stats(r->s)->bytes != before &&
		 ht_serial_now_ns() < end);
}

static void json_line(struct ht_json *j, const struct ht_serial_stats *l)
{
	ht_json_begin_object(j);
	ht_json_member_u64(j, "bytes", l->bytes);
	ht_json_member_u64(j, "frames", l->frames);
	ht_json_member_u64(j, "packet_frames", l->packets);
	ht_json_member_u64(j, "lost_frames", l->lost);
	ht_json_member_u64(j, "crc_errors", l->crc_errs);
	ht_json_member_u64(j, "cobs_errors", l->cobs_errs);
	ht_json_member_u64(j, "runts", l->runts);
	ht_json_member_u64(j, "too_long", l->too_long);
	ht_json_member_u64(j, "dropped_bytes", l->dropped_bytes);
	ht_json_member_u64(j, "unexpected_frames", l->unexpected);
	ht_json_end_object(j);
}

static void json_ring(struct ht_json *j, const struct ht_capture_writer *cw,
		      size_t i)
{
	struct ht_capture_writer_stats st;

	ht_capture_writer_stats(cw, i, &st);
	ht_json_begin_object(j);
	ht_json_member_str(j, "stream", st.stream_name);
	ht_json_member_u64(j, "packets", st.packets);
	ht_json_member_u64(j, "bytes", st.bytes);
	ht_json_member_u64(j, "events_discarded", st.events_discarded);
	ht_json_member_u64(j, "damaged_packets", st.damaged_packets);
	ht_json_member_bool(j, "failed", st.failed);
	ht_json_key(j, "error");
	if (st.error) {
		ht_json_str(j, st.error);
	} else {
		ht_json_raw(j, "null");
	}
	ht_json_end_object(j);
}

/* CAPTURE/record.json (docs/serial.md). */
static int write_record_json(struct rec *r, const char *error)
{
	const struct ht_serial_record_result *res = r->r;
	char *path = ht_path_join(r->o->capture, "record.json");
	struct ht_json j = {0};
	char hex[41];
	size_t i;
	FILE *f;
	int ret = 0;

	if (!path) {
		return HT_ENOMEM;
	}
	f = fopen(path, "w");
	free(path);
	if (!f) {
		return HT_EIO;
	}
	for (i = 0; i < r->hello.build_id_len; i++) {
		snprintf(hex + 2 * i, 3, "%02x", r->hello.build_id[i]);
	}
	hex[2 * i] = '\0';
	j.f = f;
	ht_json_begin_object(&j);
	ht_json_member_u64(&j, "version", 1);
	ht_json_member_str(&j, "transport", "serial");
	ht_json_member_str(&j, "target", ht_serial_name(r->s));
	ht_json_key(&j, "seconds");
	ht_json_double(&j, res->seconds);
	ht_json_member_bool(&j, "complete", !error);
	ht_json_key(&j, "error");
	if (error) {
		ht_json_str(&j, error);
	} else {
		ht_json_raw(&j, "null");
	}
	ht_json_member_bool(&j, "line_lost", res->line_lost);
	ht_json_member_str(&j, "core", res->core);
	ht_json_member_str(&j, "master", res->master);
	ht_json_member_u64(&j, "core_id", r->hello.core_id);
	ht_json_key(&j, "protocol");
	ht_json_printf(&j, "\"%u.%u\"", r->hello.major, r->hello.minor);
	ht_json_member_u64(&j, "clock_hz", r->hello.clock_hz);
	ht_json_member_u64(&j, "boot_count", r->hello.boot_count);
	ht_json_member_u64(&j, "boots", res->boots);
	ht_json_member_str(&j, "build_id", hex);
	ht_json_member_u64(&j, "packets", res->packets);
	ht_json_member_u64(&j, "bytes", res->bytes);
	ht_json_key(&j, "line");
	json_line(&j, &res->line);
	ht_json_key(&j, "sync");
	ht_json_begin_object(&j);
	ht_json_member_u64(&j, "rounds", res->sync_rounds);
	ht_json_member_u64(&j, "timeouts", res->sync_timeouts);
	ht_json_member_u64(&j, "unused", res->sync_unused);
	ht_json_member_u64(&j, "min_rtt_ns", res->min_rtt_ns);
	ht_json_end_object(&j);
	ht_json_key(&j, "streams");
	ht_json_begin_array(&j);
	for (i = 0; r->cw && i < ht_capture_writer_nr_rings(r->cw); i++) {
		ht_json_item(&j);
		json_ring(&j, r->cw, i);
	}
	ht_json_end_array(&j);
	ht_json_end_object(&j);
	ht_json_raw(&j, "\n");
	if (ferror(f)) {
		ret = HT_EIO;
	}
	if (fclose(f) != 0) {
		ret = HT_EIO;
	}
	return ret;
}

/* The metadata: --metadata FILE, or the target's. */
static int get_metadata(struct rec *r)
{
	char e[512];
	int ret;

	if (r->o->metadata_file) {
		ret = ht_file_read(r->o->metadata_file, 64u << 20, &r->metadata,
				   &r->metadata_len, e, sizeof(e));
		return ret ? ht_err_printf(r->err, r->err_len, ret, "%s", e)
			   : 0;
	}
	return ht_serial_metadata(r->s, &r->metadata, &r->metadata_len, r->err,
				  r->err_len);
}

/* Copies what the collector says of each stream into the result. */
static void fill_streams(struct rec *r)
{
	struct ht_capture_writer_stats st;
	size_t i, n;

	n = ht_capture_writer_nr_rings(r->cw);
	r->r->nr_rings = 0;
	for (i = 0; i < n && i < HT_SERIAL_RECORD_MAX_RINGS; i++) {
		struct ht_serial_record_ring *d = &r->r->rings[i];

		ht_capture_writer_stats(r->cw, i, &st);
		snprintf(d->name, sizeof(d->name), "%s/%s", st.core_name,
			 st.stream_name);
		d->packets = st.packets;
		d->bytes = st.bytes;
		d->events_discarded = st.events_discarded;
		d->damaged = st.damaged_packets;
		d->failed = st.failed;
		snprintf(d->error, sizeof(d->error), "%s",
			 st.error ? st.error : "");
		r->r->nr_rings++;
	}
}

int ht_serial_record(struct ht_serial *s, const struct ht_serial_record_opts *o,
		     struct ht_serial_record_result *res, char *err, size_t len)
{
	struct ht_capture_writer_opts co = {.no_fsync = o->no_fsync};
	struct ht_serial_sink sink = {on_packet, on_log, on_hello, NULL};
	struct ht_serial_sink early = {on_packet_early, on_log, on_hello_early,
				       NULL};
	struct rec r = {.s = s, .o = o, .r = res, .err = err, .err_len = len};
	char ferr[512];
	double t0 = now_s();
	size_t i;
	int ret, fret;

	memset(res, 0, sizeof(*res));
	snprintf(res->master, sizeof(res->master), "%s",
		 o->master ? o->master : "host");
	sink.arg = &r;
	early.arg = &r;
	co.warn = cw_warn;
	co.warn_arg = &r;

	ht_serial_set_sink(s, &early);
	ret = ht_serial_hello(s, &r.hello,
			      o->hello_timeout_ms ? o->hello_timeout_ms : 2000,
			      err, len);
	if (ret) {
		goto out;
	}
	if (!o->keep_early) {
		ht_buf_clear(&r.early);
		r.early_lost = 0;
	}
	if (o->core) {
		snprintf(res->core, sizeof(res->core), "%s", o->core);
	} else {
		core_dir_name(&r.hello, res->core, sizeof(res->core));
	}
	if (!strcmp(res->core, res->master)) {
		ret = ht_err_printf(
		    r.err, r.err_len, HT_EINVAL,
		    "the target's core and the master are both named "
		    "'%s' (--core or --master)",
		    res->core);
		goto out;
	}
	ret = get_metadata(&r);
	if (ret) {
		goto out;
	}
	ret = ht_capture_writer_create(&r.cw, o->capture, &co, err, len);
	if (ret) {
		goto out;
	}
	ret = stream_add(&r);
	if (!ret) {
		ret = tracer_start(&r);
	}
	if (ret) {
		goto destroy;
	}
	r.sync_on = true;
	ht_serial_set_sink(s, &sink);
	replay_early(&r);
	if (r.early_lost) {
		warn(&r,
		     "%s: %" PRIu64 " packets sent while the recording "
		     "started did not fit the %u MiB kept for them",
		     ht_serial_name(s), r.early_lost, EARLY_MAX >> 20);
	}
	t0 = now_s();
	ret = run(&r, t0);
	if (ret == HT_EIO) {
		res->line_lost = 1;
		snprintf(err + strlen(err), len - strlen(err),
			 "; the capture so far is kept in %s", o->capture);
	} else if (!ret && !r.fatal) {
		flush_target(&r);
	}
	ht_serial_set_sink(s, NULL);
	if (r.fatal && !ret) {
		ret = HT_EFORMAT;
	}
	for (i = 0; i < r.nr_streams; i++) {
		ht_ring_stop(r.streams[i].ring);
	}
	stamp_ns = ht_serial_now_ns();
	ht_master_ring_tracer_stop(&r.tr);
	fret = ht_capture_writer_finish(r.cw, ferr, sizeof(ferr));
	if (fret && !ret) {
		ret = ht_err_printf(r.err, r.err_len, fret, "%s", ferr);
	}
	res->seconds = now_s() - t0;
	res->line = *ht_serial_stats(s);
	fill_streams(&r);
	if (write_record_json(&r, ret ? err : NULL) && !ret) {
		ret = ht_err_printf(r.err, r.err_len, HT_EIO,
				    "%s/record.json: cannot write it",
				    o->capture);
	}

destroy:
	ht_capture_writer_destroy(r.cw);
	for (i = 0; i < r.nr_streams; i++) {
		free(r.streams[i].mem);
		free(r.streams[i].used);
	}
	free(r.tr_mem);
out:
	ht_serial_set_sink(s, NULL);
	ht_buf_fini(&r.early);
	free(r.metadata);
	res->line = *ht_serial_stats(s);
	if (ret == HT_EIO && !res->line_lost) {
		res->line_lost = ht_serial_fd(s) < 0;
	}
	return ret;
}

void ht_serial_record_print_summary(const struct ht_serial_record_result *res,
				    const char *capture, FILE *out)
{
	const struct ht_serial_stats *l = &res->line;
	size_t i;

	fprintf(out, "%-24s %10s %12s %10s %8s\n", "stream", "packets", "bytes",
		"discarded", "damaged");
	for (i = 0; i < res->nr_rings; i++) {
		const struct ht_serial_record_ring *d = &res->rings[i];

		fprintf(out,
			"%-24s %10" PRIu64 " %12" PRIu64 " %10" PRIu64
			" %8" PRIu64 "%s\n",
			d->name, d->packets, d->bytes, d->events_discarded,
			d->damaged, d->failed ? "  (failed)" : "");
		if (d->failed) {
			fprintf(out, "%s: stopped: %s\n", d->name, d->error);
		}
	}
	fprintf(out,
		"line: %" PRIu64 " bytes, %" PRIu64 " frames, %" PRIu32
		" lost frames, %" PRIu32 " CRC errors, %" PRIu32
		" COBS errors, %" PRIu32 " runts, %" PRIu32
		" too long, %" PRIu64 " bytes dropped%s\n",
		l->bytes, l->frames, l->lost, l->crc_errs, l->cobs_errs,
		l->runts, l->too_long, l->dropped_bytes,
		res->line_lost ? ", line lost" : "");
	fprintf(out, "%s: sync: %" PRIu64 " rounds, %" PRIu64 " timeouts",
		res->core, res->sync_rounds, res->sync_timeouts);
	if (res->sync_unused) {
		fprintf(out, ", %" PRIu64 " answers not used (after a timeout)",
			res->sync_unused);
	}
	if (res->min_rtt_ns) {
		fprintf(out, ", min RTT %.1f us",
			(double)res->min_rtt_ns / 1e3);
	}
	fputc('\n', out);
	if (res->boots) {
		fprintf(out,
			"%s: booted %" PRIu32 " time%s during the recording: "
			"%" PRIu32 " streams\n",
			res->core, res->boots, res->boots == 1 ? "" : "s",
			res->streams);
	}
	fprintf(out, "%" PRIu64 " packets, %.1f MB in %.2f s into %s\n",
		res->packets, (double)res->bytes / 1e6, res->seconds, capture);
}
