/* SPDX-License-Identifier: MIT */
/*
 * The generic master (board-master.h): regions mapped, rings found and
 * attached, the doorbells opened, the sync daemon started, the capture
 * drained while the slaves are watched for missing ACKs, then
 * everything stopped and said (the result, CAPTURE/record.json).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "board-master.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/file.h"
#include "common/json-writer.h"
#include "common/path.h"
#include "hetrace/packet-ring.h"
#include "hetrace/ring-directory.h"
#include "master-ring-tracer.h"
#include "serial-line.h"

extern const unsigned char ht_master_events_metadata[];

/* The recorder's own ring: sync events only, a few per round. */
#define TRACER_RING_SIZE (1u << 20)
#define TRACER_SLOT_SIZE 4096u

struct region_map {
	void *map;
	size_t map_len;
	uint8_t *base; /* the region's first byte */
	/*
	 * A shared memory object or a plain file: kept open so that the
	 * collector reads its rings with pread()/copy_file_range() (no page
	 * fault per slot); -1 for /dev/mem and UIO (device memory: read
	 * through the mapping).
	 */
	int fd;
	uint64_t file_off; /* of base in the file */
};

struct slave {
	size_t core; /* index in the board */
	struct ht_sync_slave_mbox *mbox;
	uint32_t id;
	char doorbell[160]; /* described, for messages */
	/* the mechanism */
	enum ht_board_doorbell_kind kind;
	volatile void *reg;
	unsigned width;
	uint64_t value;
	int fd; /* serial, socket */
	int log_fd;
	bool fd_open; /* the log reader still polls it */
	uint8_t byte;
	pid_t pid;
	int signo;
	/* what the watch saw */
	bool seen_req;
	double first_req_s;
	uint32_t last_ack;
	uint32_t req_at_last_ack;
	bool answered;
	double last_ack_s;
	enum ht_board_sync_status status;
	double stopped_at_s;
};

struct rec {
	const struct ht_board *b;
	const struct ht_board_record_opts *o;
	char *err;
	size_t err_len;

	struct region_map *maps;
	/* per core */
	struct ht_ring **ring;
	size_t *ring_size;
	long *ring_index; /* in the collector, -1: none */
	struct ht_sync_slave_mbox **mbox;

	struct ht_capture_writer *cw;
	struct ht_sync_daemon *sd;
	struct slave *slaves;
	size_t nr_slaves;

	/* the recorder's own tracer */
	void *tr_mem;
	struct ht_ring *tr_ring;
	struct ht_master_ring_tracer tr;
	long tr_index;

	pthread_t log_thread;
	bool log_running;
	int wake[2];

	double t0;
	bool fatal; /* a slave never answered */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {(time_t)(ms / 1000u),
			      (long)(ms % 1000u) * 1000000L};

	nanosleep(&ts, NULL);
}

static void warn(struct rec *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void warn(struct rec *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->o->warn) {
		r->o->warn(r->o->warn_arg, msg);
	} else if (!r->o->quiet) {
		fprintf(stderr, "%swarning: %s\n",
			r->o->progress ? "\r\033[K" : "", msg);
	}
}

/* ---- Regions ---- */

/* The size of UIO map @map of @dev from sysfs, 0 when unknown. */
static uint64_t uio_sysfs(const char *dev, uint32_t map, const char *what)
{
	const char *name = strrchr(dev, '/');
	char path[512];
	unsigned long long v = 0;
	FILE *f;

	name = name ? name + 1 : dev;
	snprintf(path, sizeof(path), "/sys/class/uio/%s/maps/map%" PRIu32 "/%s",
		 name, map, what);
	f = fopen(path, "r");
	if (!f) {
		return 0;
	}
	if (fscanf(f, "%llx", &v) != 1) {
		v = 0;
	}
	fclose(f);
	return v;
}

static int map_region(struct rec *r, size_t i)
{
	const struct ht_board_region *g = &r->b->regions[i];
	struct region_map *m = &r->maps[i];
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t map_off = 0, delta = 0, in_map = 0;
	const char *kind = ht_board_region_kind_name(g->kind);
	struct stat st;
	int fd, ret = 0;

	switch (g->kind) {
	case HT_BOARD_REGION_SHM:
		fd = shm_open(g->path, O_RDWR, 0);
		break;
	case HT_BOARD_REGION_DEVMEM:
		fd = open(g->path, O_RDWR | O_SYNC | O_CLOEXEC);
		break;
	default:
		fd = open(g->path, O_RDWR | O_CLOEXEC);
		break;
	}
	if (fd < 0) {
		return ht_err_printf(r->err, r->err_len,
				     errno == ENOENT ? HT_ENOENT : HT_EIO,
				     "region '%s' (%s %s): cannot open: %s",
				     g->name, kind, g->path, strerror(errno));
	}
	if (fstat(fd, &st) != 0) {
		ret = ht_err_printf(r->err, r->err_len, HT_EIO,
				    "region '%s' (%s %s): %s", g->name, kind,
				    g->path, strerror(errno));
		goto close_fd;
	}
	switch (g->kind) {
	case HT_BOARD_REGION_SHM:
	case HT_BOARD_REGION_FILE:
		if (!S_ISREG(st.st_mode)) {
			ret = ht_err_printf(
			    r->err, r->err_len, HT_EIO,
			    "region '%s' (%s %s): not a regular file", g->name,
			    kind, g->path);
			goto close_fd;
		}
		if (g->offset > (uint64_t)st.st_size ||
		    g->size > (uint64_t)st.st_size - g->offset) {
			ret = ht_err_printf(
			    r->err, r->err_len, HT_ERANGE,
			    "region '%s' (%s %s): offset 0x%" PRIx64
			    " + size 0x%" PRIx64
			    " passes the end of the %s (%lld bytes)",
			    g->name, kind, g->path, g->offset, g->size,
			    g->kind == HT_BOARD_REGION_SHM ? "object" : "file",
			    (long long)st.st_size);
			goto close_fd;
		}
		map_off = g->offset & ~(page - 1u);
		delta = g->offset - map_off;
		break;
	case HT_BOARD_REGION_DEVMEM:
		map_off = g->offset & ~(page - 1u);
		delta = g->offset - map_off;
		break;
	case HT_BOARD_REGION_UIO: {
		/* UIO ABI: map N is at offset N * page size; the registers
		 * start `offset` bytes into the first page. */
		uint64_t have = uio_sysfs(g->path, g->map, "size");

		in_map = uio_sysfs(g->path, g->map, "offset");
		if (have && g->size > have) {
			ret = ht_err_printf(
			    r->err, r->err_len, HT_ERANGE,
			    "region '%s' (uio %s map %" PRIu32
			    "): size 0x%" PRIx64
			    " passes the end of the map (0x%" PRIx64 " bytes)",
			    g->name, g->path, g->map, g->size, have);
			goto close_fd;
		}
		map_off = (uint64_t)g->map * page;
		delta = in_map % page;
		break;
	}
	}
	if (g->size + delta > SIZE_MAX) {
		ret = ht_err_printf(r->err, r->err_len, HT_ERANGE,
				    "region '%s': too large to map", g->name);
		goto close_fd;
	}
	m->map_len = (size_t)(g->size + delta);
	m->map = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      (off_t)map_off);
	if (m->map == MAP_FAILED) {
		m->map = NULL;
		ret = ht_err_printf(
		    r->err, r->err_len, HT_EIO,
		    "region '%s' (%s %s): cannot map 0x%zx bytes at "
		    "offset 0x%" PRIx64 ": %s",
		    g->name, kind, g->path, m->map_len, map_off,
		    strerror(errno));
		goto close_fd;
	}
	m->base = (uint8_t *)m->map + delta;
	if (g->kind == HT_BOARD_REGION_SHM || g->kind == HT_BOARD_REGION_FILE) {
		m->fd = fd;
		m->file_off = g->offset;
		return 0;
	}
close_fd:
	close(fd);
	return ret;
}

/* ---- Rings, the directory, the mailboxes ---- */

/* Waits until *@word == @want or the attach timeout passes. */
static bool wait_word(struct rec *r, volatile uint32_t *word, uint32_t want)
{
	double limit =
	    r->o->directory_timeout_s > 0 ? r->o->directory_timeout_s : 5.0;
	double end = now_s() + limit;

	while (*word != want) {
		if (now_s() >= end || (r->o->stop && *r->o->stop)) {
			return false;
		}
		sleep_ms(2);
	}
	/* The word before the fields it validates. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return true;
}

static int find_in_directory(struct rec *r, size_t ci)
{
	const struct ht_board *b = r->b;
	const struct ht_board_core *c = &b->cores[ci];
	const struct ht_board_region *g = &b->regions[b->directory.region];
	struct ht_ring_directory *d =
	    (void *)(r->maps[b->directory.region].base + b->directory.offset);
	uint64_t room = g->size - b->directory.offset;
	double limit =
	    r->o->directory_timeout_s > 0 ? r->o->directory_timeout_s : 5.0;
	double end = now_s() + limit;
	uint32_t i;

	if (!wait_word(r, &d->magic, HT_RING_DIRECTORY_MAGIC)) {
		return ht_err_printf(
		    r->err, r->err_len, HT_ENOTFOUND,
		    "ring directory at %s+0x%" PRIx64
		    ": no directory (magic 0x%08" PRIx32 ") after %.1f s",
		    g->name, b->directory.offset, d->magic, limit);
	}
	if (d->version != HT_RING_DIRECTORY_VERSION || d->size < sizeof(*d) ||
	    d->entry_size < sizeof(struct ht_ring_directory_entry) ||
	    d->size + (uint64_t)d->count * d->entry_size > room) {
		return ht_err_printf(
		    r->err, r->err_len, HT_EFORMAT,
		    "ring directory at %s+0x%" PRIx64 ": version %" PRIu32
		    ", %" PRIu32 " entries of %" PRIu32
		    " bytes: not a directory this hetrace reads, or "
		    "larger than its region",
		    g->name, b->directory.offset, d->version, d->count,
		    d->entry_size);
	}
	for (;;) {
		for (i = 0; i < d->count; i++) {
			struct ht_ring_directory_entry *e =
			    ht_ring_directory_entry(d, i);
			char name[HT_RING_DIRECTORY_NAME_MAX + 1];
			size_t k;

			if (e->valid != HT_RING_DIRECTORY_VALID) {
				continue;
			}
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			/* byte loads: the directory may be device memory */
			for (k = 0; k < HT_RING_DIRECTORY_NAME_MAX; k++) {
				name[k] = ((const volatile char *)e->name)[k];
			}
			name[HT_RING_DIRECTORY_NAME_MAX] = '\0';
			if (c->has_id ? e->core_id != c->id
				      : strcmp(name, c->name)) {
				continue;
			}
			if (e->ring_offset > g->size ||
			    e->ring_size > g->size - e->ring_offset ||
			    e->ring_size < sizeof(struct ht_ring) ||
			    e->ring_size > UINT32_MAX) {
				return ht_err_printf(
				    r->err, r->err_len, HT_EFORMAT,
				    "core '%s': ring directory entry "
				    "%" PRIu32 ": ring at 0x%" PRIx64
				    " (%" PRIu64
				    " bytes) is outside region '%s'",
				    c->name, i, e->ring_offset, e->ring_size,
				    g->name);
			}
			r->ring[ci] =
			    (void *)(r->maps[b->directory.region].base +
				     e->ring_offset);
			r->ring_size[ci] = (size_t)e->ring_size;
			if (!c->has_mailbox &&
			    e->mbox_offset != HT_RING_DIRECTORY_NO_MBOX) {
				if (e->mbox_offset > g->size ||
				    sizeof(struct ht_sync_slave_mbox) >
					g->size - e->mbox_offset ||
				    e->mbox_offset % 8u) {
					return ht_err_printf(
					    r->err, r->err_len, HT_EFORMAT,
					    "core '%s': ring directory "
					    "entry %" PRIu32
					    ": mailbox at 0x%" PRIx64
					    " is outside region '%s' "
					    "or misaligned",
					    c->name, i, e->mbox_offset,
					    g->name);
				}
				r->mbox[ci] =
				    (void *)(r->maps[b->directory.region].base +
					     e->mbox_offset);
			}
			return 0;
		}
		if (now_s() >= end || (r->o->stop && *r->o->stop)) {
			break;
		}
		sleep_ms(2);
	}
	if (c->has_id) {
		return ht_err_printf(r->err, r->err_len, HT_ENOTFOUND,
				     "core '%s': no entry with core id %" PRIu32
				     " in the ring directory after %.1f s",
				     c->name, c->id, limit);
	}
	return ht_err_printf(
	    r->err, r->err_len, HT_ENOTFOUND,
	    "core '%s': no entry named '%s' in the ring directory "
	    "after %.1f s",
	    c->name, c->name, limit);
}

/* Where each core's ring and mailbox are; waits for the rings' magic. */
static int locate(struct rec *r)
{
	const struct ht_board *b = r->b;
	size_t i;
	int ret;

	for (i = 0; i < b->nr_cores; i++) {
		const struct ht_board_core *c = &b->cores[i];

		if (c->has_mailbox) {
			r->mbox[i] = (void *)(r->maps[c->mailbox.region].base +
					      c->mailbox.offset);
		}
		if (c->ring_kind == HT_BOARD_RING_PLACE) {
			r->ring[i] = (void *)(r->maps[c->ring.region].base +
					      c->ring.offset);
			r->ring_size[i] = (size_t)c->ring.size;
		} else if (c->ring_kind == HT_BOARD_RING_DIRECTORY) {
			ret = find_in_directory(r, i);
			if (ret) {
				return ret;
			}
		}
		if (r->ring[i] &&
		    !wait_word(r, (volatile uint32_t *)&r->ring[i]->magic,
			       HT_RING_MAGIC)) {
			return ht_err_printf(r->err, r->err_len, HT_ENOTFOUND,
					     "core '%s': no packet ring (magic "
					     "0x%08" PRIx32
					     ") at its place after "
					     "%.1f s",
					     c->name, r->ring[i]->magic,
					     r->o->directory_timeout_s > 0
						 ? r->o->directory_timeout_s
						 : 5.0);
		}
	}
	return 0;
}

static char *metadata_path(const struct ht_board *b, const char *m);

/* ---- The recorder's own tracer ---- */

static uint64_t tracer_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The id of event @name in TSDL @text, or -1. */
static long event_id(const char *text, const char *name)
{
	char pat[96];
	const char *at, *id;

	snprintf(pat, sizeof(pat), "\n\tname = \"%s\";", name);
	at = strstr(text, pat);
	if (!at) {
		return -1;
	}
	/* `id = N;` is the line before the name in an event block. */
	for (id = at; id > text && strncmp(id, "\n\tid = ", 7); id--) {
		if (at - id > 64) {
			return -1;
		}
	}
	return strncmp(id, "\n\tid = ", 7) ? -1 : strtol(id + 7, NULL, 10);
}

/* A random version 4 UUID in text. */
static void make_uuid(char out[37])
{
	uint8_t u[16] = {0};
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	unsigned i, n = 0;

	if (fd < 0 || read(fd, u, sizeof(u)) != (ssize_t)sizeof(u)) {
		uint64_t t = tracer_clock() ^ ((uint64_t)getpid() << 32);

		memcpy(u, &t, sizeof(t));
	}
	if (fd >= 0) {
		close(fd);
	}
	u[6] = (uint8_t)((u[6] & 0x0fu) | 0x40u);
	u[8] = (uint8_t)((u[8] & 0x3fu) | 0x80u);
	for (i = 0; i < 16; i++) {
		n += (unsigned)snprintf(
		    out + n, 37 - n, "%02x%s", u[i],
		    i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
	}
}

/*
 * The recorder's metadata when the master has no ring: the generated
 * text with a clock UUID and the board's name in the env (the collector
 * adds the core's identity).
 */
static char *own_metadata(const struct ht_board *b)
{
	const char *t = (const char *)ht_master_events_metadata;
	const char *env = strstr(t, "\nenv {\n");
	const char *clk = strstr(t, "\nclock {\n\tname = ns;\n");
	struct ht_buf buf = {0};
	char uuid[37];

	if (!env || !clk || clk < env) {
		return strdup(t);
	}
	env += strlen("\nenv {\n");
	clk += strlen("\nclock {\n\tname = ns;\n");
	make_uuid(uuid);
	ht_buf_add(&buf, t, (size_t)(env - t));
	if (b->name) {
		char esc[HT_JSON_ESCAPED_MAX(256) + 1];
		size_t n = strlen(b->name) > 256 ? 256 : strlen(b->name);

		esc[ht_json_escape(esc, b->name, n, 0)] = '\0';
		ht_buf_printf(&buf, "\tboard = \"%s\";\n", esc);
	}
	ht_buf_add(&buf, env, (size_t)(clk - env));
	ht_buf_printf(&buf, "\tuuid = \"%s\";\n", uuid);
	ht_buf_puts(&buf, clk);
	return ht_buf_steal(&buf, NULL);
}

/*
 * The metadata of the master's ring, when it has one in memory (the
 * caller checked the header's magic), or NULL.
 */
static char *ring_metadata(const struct ht_ring *ring, size_t size)
{
	char *text;

	if (!ring->metadata_off || !ring->metadata_size ||
	    ring->metadata_off > size ||
	    ring->metadata_size > size - ring->metadata_off) {
		return NULL;
	}
	text = malloc((size_t)ring->metadata_size + 1);
	if (text) {
		memcpy(text, (const char *)ring + ring->metadata_off,
		       ring->metadata_size);
		text[ring->metadata_size] = '\0';
		text[strnlen(text, ring->metadata_size)] = '\0';
	}
	return text;
}

static int tracer_start(struct rec *r)
{
	const struct ht_board *b = r->b;
	const struct ht_board_core *mc = &b->cores[b->master];
	const char *mine = (const char *)ht_master_events_metadata;
	uint32_t id = mc->has_id ? mc->id : 0;
	char *meta = NULL;
	int ret;

	if (r->ring[b->master]) {
		/* One trace per core: the master application's metadata,
		 * when it declares the sync events as the recorder writes
		 * them. */
		if (mc->metadata) {
			char *path = metadata_path(b, mc->metadata), ferr[256];
			size_t len;

			if (!path || ht_file_read(path, 16u << 20, &meta, &len,
						  ferr, sizeof(ferr))) {
				meta = NULL;
			}
			free(path);
		} else {
			meta = ring_metadata(r->ring[b->master],
					     r->ring_size[b->master]);
		}
		if (!mc->has_id) {
			id = r->ring[b->master]->core_id;
		}
		if (!meta ||
		    event_id(meta, "sync_req") != event_id(mine, "sync_req") ||
		    event_id(meta, "sync_recv") !=
			event_id(mine, "sync_recv")) {
			free(meta);
			return ht_err_printf(
			    r->err, r->err_len, HT_EFORMAT,
			    "core '%s': its ring's metadata does not "
			    "declare sync_req and sync_recv as the "
			    "recorder writes them (ids %ld and %ld): "
			    "generate the master's tracer from "
			    "host/collect/master-events.yaml, or give "
			    "the master no ring",
			    mc->name, event_id(mine, "sync_req"),
			    event_id(mine, "sync_recv"));
		}
	} else {
		meta = own_metadata(b);
	}
	if (!meta) {
		return ht_err_printf(r->err, r->err_len, HT_ENOMEM,
				     "out of memory");
	}
	ret = ht_master_ring_alloc(TRACER_RING_SIZE, TRACER_SLOT_SIZE, id,
				   mc->output, meta, &r->tr_mem, &r->tr_ring);
	free(meta);
	if (ret == HT_ENOMEM) {
		return ht_err_printf(r->err, r->err_len, ret, "out of memory");
	}
	if (ret) {
		return ht_err_printf(r->err, r->err_len, ret,
				     "core '%s': its metadata does not fit the "
				     "recorder's ring",
				     mc->name);
	}
	ht_master_ring_tracer_start(&r->tr, r->tr_ring, id, tracer_clock);
	return 0;
}

/* The daemon's hooks: on its thread only, so no lock. */
static void trace_req(void *arg, uint32_t seq, uint32_t slave)
{
	struct rec *r = arg;

	hetrace_master_trace_sync_req(&r->tr.ctx, seq, slave);
	if (r->o->lttng) {
		r->o->lttng->sync_req(seq, slave);
	}
}

static void trace_recv(void *arg, uint32_t seq, uint32_t slave)
{
	struct rec *r = arg;

	hetrace_master_trace_sync_recv(&r->tr.ctx, seq, slave);
	if (r->o->lttng) {
		r->o->lttng->sync_recv(seq, slave);
	}
}

/* ---- Doorbells ---- */

static int raise_irq(void *arg)
{
	struct slave *s = arg;
	ssize_t n;

	switch (s->kind) {
	case HT_BOARD_DOORBELL_MMIO:
		/* The mailbox's request before the register write that
		 * interrupts the slave. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		switch (s->width) {
		case 8:
			*(volatile uint8_t *)s->reg = (uint8_t)s->value;
			break;
		case 16:
			*(volatile uint16_t *)s->reg = (uint16_t)s->value;
			break;
		case 64:
			*(volatile uint64_t *)s->reg = s->value;
			break;
		default:
			*(volatile uint32_t *)s->reg = (uint32_t)s->value;
			break;
		}
		return 0;
	case HT_BOARD_DOORBELL_SIGNAL:
		return kill(s->pid, s->signo) == 0 ? 0 : HT_EIO;
	case HT_BOARD_DOORBELL_SOCKET:
		n = send(s->fd, &s->byte, 1, MSG_NOSIGNAL);
		return n == 1 ? 0 : HT_EIO;
	case HT_BOARD_DOORBELL_SERIAL:
		n = write(s->fd, &s->byte, 1);
		return n == 1 ? 0 : HT_EIO;
	default:
		return HT_EINVAL;
	}
}

/*
 * Around a burst: the slave process runs on another CPU than the
 * daemon, as a DSP is another core than the master's; woken on the
 * daemon's CPU, its ACK would wait for the daemon to be scheduled.
 */
static void pin_away(void *arg)
{
	struct slave *s = arg;
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0 || sched_getaffinity(0, sizeof(set), &set) != 0 ||
	    CPU_COUNT(&set) < 2) {
		return;
	}
	CPU_CLR(cpu, &set);
	(void)sched_setaffinity(s->pid, sizeof(set), &set);
}

static void pin_any(void *arg)
{
	struct slave *s = arg;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		(void)sched_setaffinity(s->pid, sizeof(set), &set);
	}
}

/* The line openers are serial-line.c's; the doorbell writes block. */
static int doorbell_fd(struct rec *r, struct slave *s, int ret,
		       const char *kind, const char *e)
{
	if (ret) {
		return ht_err_printf(r->err, r->err_len, ret,
				     "core '%s': doorbell %s %s",
				     r->b->cores[s->core].name, kind, e);
	}
	(void)fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) & ~O_NONBLOCK);
	return 0;
}

static int open_serial(struct rec *r, struct slave *s,
		       const struct ht_board_doorbell *d)
{
	char e[512];

	return doorbell_fd(
	    r, s, ht_serial_open_tty(d->device, d->baud, &s->fd, e, sizeof(e)),
	    "serial", e);
}

static int open_socket(struct rec *r, struct slave *s,
		       const struct ht_board_doorbell *d)
{
	char e[512];

	return doorbell_fd(
	    r, s,
	    ht_serial_connect(d->path, d->host, d->port, &s->fd, e, sizeof(e)),
	    "socket", e);
}

/*
 * Reads what the targets send on their serial lines and sockets (a
 * UART's console) into each one's log, so that they never block on a
 * full line either.
 */
static void *log_thread(void *arg)
{
	struct rec *r = arg;
	struct pollfd *pfd;
	size_t *who, n, i;
	char buf[4096];

	pfd = calloc(r->nr_slaves + 1, sizeof(*pfd));
	who = calloc(r->nr_slaves + 1, sizeof(*who));
	if (!pfd || !who) {
		free(pfd);
		free(who);
		return NULL;
	}
	for (;;) {
		n = 0;
		pfd[n].fd = r->wake[0];
		pfd[n++].events = POLLIN;
		for (i = 0; i < r->nr_slaves; i++) {
			if (r->slaves[i].fd_open) {
				who[n] = i;
				pfd[n].fd = r->slaves[i].fd;
				pfd[n++].events = POLLIN;
			}
		}
		if (poll(pfd, n, -1) < 0 && errno != EINTR) {
			break;
		}
		if (pfd[0].revents) {
			break;
		}
		for (i = 1; i < n; i++) {
			struct slave *s = &r->slaves[who[i]];
			ssize_t got;

			if (!pfd[i].revents) {
				continue;
			}
			got = read(s->fd, buf, sizeof(buf));
			if (got <= 0) {
				/* The target closed its end: its doorbell
				 * fails from now on and the watch says so. */
				s->fd_open = false;
				continue;
			}
			if (s->log_fd >= 0 &&
			    write(s->log_fd, buf, (size_t)got) != got) {
				close(s->log_fd);
				s->log_fd = -1;
			}
		}
	}
	free(pfd);
	free(who);
	return NULL;
}

static int open_doorbells(struct rec *r)
{
	const struct ht_board *b = r->b;
	size_t i, n = 0;
	bool any_fd = false;
	int ret;

	r->slaves = calloc(b->nr_cores, sizeof(*r->slaves));
	if (!r->slaves) {
		return ht_err_printf(r->err, r->err_len, HT_ENOMEM,
				     "out of memory");
	}
	for (i = 0; i < b->nr_cores; i++) {
		const struct ht_board_core *c = &b->cores[i];
		const struct ht_board_doorbell *d = &c->doorbell;
		struct slave *s;

		if (c->role != HT_BOARD_SLAVE ||
		    d->kind == HT_BOARD_DOORBELL_NONE) {
			continue;
		}
		s = &r->slaves[n++];
		r->nr_slaves = n;
		s->core = i;
		s->fd = -1;
		s->log_fd = -1;
		s->kind = d->kind;
		s->last_ack_s = -1;
		ht_board_doorbell_describe(b, i, s->doorbell,
					   sizeof(s->doorbell));
		if (!r->mbox[i]) {
			return ht_err_printf(
			    r->err, r->err_len, HT_ENOTFOUND,
			    "core '%s': no mailbox (neither in the "
			    "board file nor in its directory entry)",
			    c->name);
		}
		if (!wait_word(r, &r->mbox[i]->magic, HT_SYNC_SLAVE_MAGIC) ||
		    !ht_sync_slave_mbox_is_valid(r->mbox[i])) {
			return ht_err_printf(
			    r->err, r->err_len, HT_ENOTFOUND,
			    "core '%s': the mailbox is not initialized "
			    "(magic 0x%08" PRIx32 ", version %" PRIu32 ")",
			    c->name, r->mbox[i]->magic, r->mbox[i]->version);
		}
		s->mbox = r->mbox[i];
		s->id = c->has_id ? c->id
				  : (r->ring[i] ? r->ring[i]->core_id
						: s->mbox->slave_id);
		s->last_ack = s->mbox->ack;
		switch (d->kind) {
		case HT_BOARD_DOORBELL_MMIO:
			s->reg = r->maps[d->reg.region].base + d->reg.offset;
			s->width = d->width;
			s->value = d->value;
			break;
		case HT_BOARD_DOORBELL_SIGNAL:
			s->pid = (pid_t)d->pid;
			s->signo = d->signo;
			if (kill(s->pid, 0) != 0) {
				return ht_err_printf(
				    r->err, r->err_len, HT_EIO,
				    "core '%s': doorbell %s: %s", c->name,
				    s->doorbell, strerror(errno));
			}
			break;
		case HT_BOARD_DOORBELL_SERIAL:
		case HT_BOARD_DOORBELL_SOCKET:
			s->byte = d->byte;
			ret = d->kind == HT_BOARD_DOORBELL_SERIAL
				  ? open_serial(r, s, d)
				  : open_socket(r, s, d);
			if (ret) {
				return ret;
			}
			s->fd_open = true;
			any_fd = true;
			if (d->log) {
				s->log_fd = open(d->log,
						 O_WRONLY | O_CREAT | O_APPEND |
						     O_CLOEXEC,
						 0644);
				if (s->log_fd < 0) {
					return ht_err_printf(
					    r->err, r->err_len, HT_EIO,
					    "core '%s': log %s: %s", c->name,
					    d->log, strerror(errno));
				}
			}
			break;
		default:
			break;
		}
	}
	if (any_fd) {
		if (pipe2(r->wake, O_CLOEXEC) != 0) {
			return ht_err_printf(r->err, r->err_len, HT_EIO,
					     "pipe: %s", strerror(errno));
		}
		if (pthread_create(&r->log_thread, NULL, log_thread, r) != 0) {
			return ht_err_printf(r->err, r->err_len, HT_ENOMEM,
					     "cannot start the log reader");
		}
		r->log_running = true;
	}
	return 0;
}

static int start_daemon(struct rec *r)
{
	const struct ht_board_sync *sy = &r->b->sync;
	struct ht_sync_daemon_opts dopts = {
	    .period_ns = sy->period_ns,
	    .timeout_ns = sy->timeout_ns,
	    .burst = sy->burst,
	    .trace_req = trace_req,
	    .trace_recv = trace_recv,
	    .trace_arg = r,
	};
	struct ht_sync_daemon_slave *ds;
	size_t i;
	int ret;

	if (!r->nr_slaves) {
		return 0;
	}
	ds = calloc(r->nr_slaves, sizeof(*ds));
	if (!ds) {
		return ht_err_printf(r->err, r->err_len, HT_ENOMEM,
				     "out of memory");
	}
	for (i = 0; i < r->nr_slaves; i++) {
		struct slave *s = &r->slaves[i];

		ds[i].mbox = s->mbox;
		ds[i].core_id = s->id;
		ds[i].raise_irq = raise_irq;
		ds[i].raise_arg = s;
		if (s->kind == HT_BOARD_DOORBELL_SIGNAL &&
		    r->b->cores[s->core].doorbell.pin_away) {
			ds[i].burst_begin = pin_away;
			ds[i].burst_end = pin_any;
		}
	}
	ret = ht_sync_daemon_create(&r->sd, &dopts, ds, r->nr_slaves);
	free(ds);
	if (!ret) {
		ret = ht_sync_daemon_start(r->sd);
	}
	return ret ? ht_err_printf(r->err, r->err_len, ret,
				   "cannot start the sync daemon: %s",
				   ht_strerror(ret))
		   : 0;
}

/* ---- The run ---- */

/*
 * Looks at each slave's mailbox: a first request left unanswered for
 * `stall` ends the run (the doorbell does not reach the slave); a
 * slave that answered and then nothing for `stall` is reported stopped
 * and the run goes on.
 */
static void watch(struct rec *r, double t)
{
	double stall = (double)r->b->sync.stall_ns / 1e9;
	size_t i;

	for (i = 0; i < r->nr_slaves; i++) {
		struct slave *s = &r->slaves[i];
		const char *name = r->b->cores[s->core].name;
		uint32_t req = s->mbox->req, ack = s->mbox->ack;

		if (!s->seen_req && req != HT_SYNC_SLAVE_IDLE) {
			s->seen_req = true;
			s->first_req_s = t;
		}
		if (ack != s->last_ack) {
			s->last_ack = ack;
			s->req_at_last_ack = req;
			s->answered = true;
			s->last_ack_s = t;
			if (s->status == HT_BOARD_SYNC_STOPPED) {
				warn(r, "%s: answering again at %.1f s", name,
				     t);
			}
			s->status = HT_BOARD_SYNC_OK;
			continue;
		}
		if (!s->seen_req || (s->status != HT_BOARD_SYNC_NONE &&
				     s->status != HT_BOARD_SYNC_OK)) {
			continue;
		}
		/* A slave whose ring has stopped ended on purpose. */
		if (r->ring[s->core] &&
		    r->ring[s->core]->state == HT_RING_STOPPED) {
			continue;
		}
		if (!s->answered && t - s->first_req_s >= stall) {
			s->status = HT_BOARD_SYNC_NO_ACK;
			if (!r->fatal) {
				ht_err_printf(
				    r->err, r->err_len, HT_EIO,
				    "%s: no ACK to %" PRIu32
				    " sync requests in %.1f s (doorbell: %s)",
				    name, req / 2u + 1u, t - s->first_req_s,
				    s->doorbell);
			}
			r->fatal = true;
		} else if (s->answered && t - s->last_ack_s >= stall &&
			   req != s->req_at_last_ack) {
			s->status = HT_BOARD_SYNC_STOPPED;
			s->stopped_at_s = s->last_ack_s;
			warn(r,
			     "%s: stopped answering at %.1f s: no ACK to "
			     "%" PRIu32 " sync requests since (doorbell: %s)",
			     name, s->last_ack_s,
			     (req - s->req_at_last_ack) / 2u, s->doorbell);
		}
	}
}

/* True when every core's ring has stopped (and there is one). */
static bool cores_stopped(struct rec *r)
{
	struct ht_capture_writer_stats st;
	size_t i, n = 0;

	for (i = 0; i < r->b->nr_cores; i++) {
		if (r->ring_index[i] < 0) {
			continue;
		}
		ht_capture_writer_stats(r->cw, (size_t)r->ring_index[i], &st);
		if (st.state != HT_RING_STOPPED && !st.failed) {
			return false;
		}
		n++;
	}
	return n > 0;
}

static int drain(struct rec *r)
{
	const struct ht_board_record_opts *o = r->o;
	double last_progress = 0, last_watch = 0;
	uint64_t interval = o->interval_ms ? o->interval_ms : 1;
	int status = 0;

	while (!(o->stop && *o->stop)) {
		uint64_t bytes = 0;
		double t;
		int ret;

		ret = ht_capture_writer_drain(r->cw, &bytes);
		if (ret) {
			status = ret;
		}
		t = now_s() - r->t0;
		if (t - last_watch >= 0.01) {
			watch(r, t);
			last_watch = t;
		}
		if (o->progress && t - last_progress >= 0.25) {
			ht_board_print_progress(r->cw, t, stderr);
			last_progress = t;
		}
		if (r->fatal || cores_stopped(r) ||
		    (o->seconds > 0 && t >= o->seconds)) {
			break;
		}
		if (!bytes) {
			sleep_ms((unsigned)interval);
		}
	}
	return status;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* A copy of @src whose strings the result owns. */
static void stats_copy(struct ht_capture_writer_stats *dst,
		       const struct ht_capture_writer_stats *src)
{
	*dst = *src;
	dst->core_name = dup_or_null(src->core_name);
	dst->stream_name = dup_or_null(src->stream_name);
	dst->source = dup_or_null(src->source);
	dst->error = dup_or_null(src->error);
}

static void stats_free(struct ht_capture_writer_stats *st)
{
	free((char *)st->core_name);
	free((char *)st->stream_name);
	free((char *)st->source);
	free((char *)st->error);
}

static const char *sync_status_name(enum ht_board_sync_status s)
{
	static const char *const names[] = {"none", "ok", "no-ack", "stopped"};

	return (unsigned)s < 4 ? names[s] : "?";
}

static void json_ring(struct ht_json *j,
		      const struct ht_capture_writer_stats *st)
{
	static const char *const states[] = {"empty", "running", "stopped"};

	ht_json_begin_object(j);
	ht_json_member_str(j, "stream",
			   st->stream_name ? st->stream_name : "stream");
	ht_json_member_str(j, "state", st->state < 3 ? states[st->state] : "?");
	ht_json_member_str(
	    j, "mode", st->mode == HT_RING_OVERWRITE ? "overwrite" : "discard");
	ht_json_member_u64(j, "packets", st->packets);
	ht_json_member_u64(j, "bytes", st->bytes);
	ht_json_member_u64(j, "events_discarded", st->events_discarded);
	ht_json_member_u64(j, "lost_packets", st->lost_packets);
	ht_json_member_u64(j, "damaged_packets", st->damaged_packets);
	ht_json_member_u64(j, "loss_markers", st->loss_markers);
	ht_json_member_bool(j, "failed", st->failed);
	ht_json_key(j, "error");
	if (st->error) {
		ht_json_str(j, st->error);
	} else {
		ht_json_raw(j, "null");
	}
	ht_json_end_object(j);
}

/* CAPTURE/record.json (docs/board.md). */
static int write_record_json(struct rec *r,
			     const struct ht_board_record_result *res,
			     const char *error)
{
	const struct ht_board *b = r->b;
	char *path = ht_path_join(r->o->capture_dir, "record.json");
	struct ht_json j = {0};
	size_t i, k;
	FILE *f;
	int ret = 0;

	if (!path) {
		return HT_ENOMEM;
	}
	f = fopen(path, "w");
	if (!f) {
		free(path);
		return HT_EIO;
	}
	j.f = f;
	ht_json_begin_object(&j);
	ht_json_member_u64(&j, "version", 1);
	ht_json_key(&j, "board");
	if (b->name) {
		ht_json_str(&j, b->name);
	} else {
		ht_json_raw(&j, "null");
	}
	ht_json_member_str(&j, "board_file", b->path);
	ht_json_key(&j, "seconds");
	ht_json_double(&j, res->seconds);
	ht_json_member_bool(&j, "complete", res->complete);
	ht_json_key(&j, "error");
	if (error) {
		ht_json_str(&j, error);
	} else {
		ht_json_raw(&j, "null");
	}
	ht_json_key(&j, "cores");
	ht_json_begin_array(&j);
	for (i = 0; i < res->nr_cores; i++) {
		const struct ht_board_core_result *c = &res->cores[i];

		ht_json_item(&j);
		ht_json_begin_object(&j);
		ht_json_member_str(&j, "name", c->name);
		ht_json_member_str(&j, "output", b->cores[i].output);
		ht_json_member_str(
		    &j, "role",
		    b->cores[i].role == HT_BOARD_MASTER ? "master" : "slave");
		if (c->has_ring) {
			ht_json_member_u64(&j, "core_id", c->ring.core_id);
		} else if (i == b->master) {
			ht_json_member_u64(&j, "core_id",
					   res->sync_ring.core_id);
		}
		ht_json_key(&j, "ring");
		if (c->has_ring) {
			json_ring(&j, &c->ring);
		} else {
			ht_json_raw(&j, "null");
		}
		if (i == b->master) {
			ht_json_key(&j, "recorder_ring");
			json_ring(&j, &res->sync_ring);
		}
		ht_json_key(&j, "sync");
		ht_json_begin_object(&j);
		ht_json_member_str(&j, "status",
				   sync_status_name(c->sync_status));
		for (k = 0; k < r->nr_slaves && r->slaves[k].core != i; k++) {
		}
		if (k < r->nr_slaves) {
			ht_json_member_str(&j, "doorbell",
					   r->slaves[k].doorbell);
			ht_json_member_u64(&j, "slave_id", c->sync.core_id);
			ht_json_member_u64(&j, "rounds", c->sync.rounds);
			ht_json_member_u64(&j, "answered", c->sync.answered);
			ht_json_member_u64(&j, "timeouts", c->sync.timeouts);
			ht_json_member_u64(&j, "raise_errors",
					   c->sync.raise_errors);
			ht_json_member_u64(&j, "min_rtt_ns",
					   c->sync.min_rtt_ns);
			ht_json_key(&j, "last_ack_s");
			if (c->last_ack_s >= 0) {
				ht_json_double(&j, c->last_ack_s);
			} else {
				ht_json_raw(&j, "null");
			}
			ht_json_key(&j, "stopped_at_s");
			if (c->sync_status == HT_BOARD_SYNC_STOPPED) {
				ht_json_double(&j, c->stopped_at_s);
			} else {
				ht_json_raw(&j, "null");
			}
		}
		ht_json_end_object(&j);
		ht_json_end_object(&j);
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
	free(path);
	return ret;
}

/* CAPTURE/board.yaml: the board file as given. */
static int copy_board(struct rec *r)
{
	char *path = ht_path_join(r->o->capture_dir, "board.yaml");
	FILE *f;
	int ret = 0;

	if (!path) {
		return ht_err_printf(r->err, r->err_len, HT_ENOMEM,
				     "out of memory");
	}
	f = fopen(path, "w");
	if (!f || fwrite(r->b->text, 1, r->b->text_len, f) != r->b->text_len) {
		ret = ht_err_printf(r->err, r->err_len, HT_EIO, "%s: %s", path,
				    strerror(errno));
	}
	if (f && fclose(f) != 0 && !ret) {
		ret = ht_err_printf(r->err, r->err_len, HT_EIO, "%s: %s", path,
				    strerror(errno));
	}
	free(path);
	return ret;
}

/* The directory of the board file, for relative metadata paths. */
static char *metadata_path(const struct ht_board *b, const char *m)
{
	const char *slash = strrchr(b->path, '/');
	char *dir, *p;

	if (m[0] == '/' || !slash) {
		return strdup(m);
	}
	dir = strndup(b->path, (size_t)(slash - b->path));
	p = dir ? ht_path_join(dir, m) : NULL;
	free(dir);
	return p;
}

/* The mapped region core @i's ring lies in, or NULL when it has none. */
static const struct region_map *ring_region(const struct rec *r, size_t i)
{
	const struct ht_board_core *c = &r->b->cores[i];

	switch (c->ring_kind) {
	case HT_BOARD_RING_PLACE:
		return &r->maps[c->ring.region];
	case HT_BOARD_RING_DIRECTORY:
		return &r->maps[r->b->directory.region];
	default:
		return NULL;
	}
}

static int attach(struct rec *r)
{
	const struct ht_board *b = r->b;
	const char *master = b->cores[b->master].output;
	struct ht_capture_writer_opts copts = {
	    .warn = r->o->warn,
	    .warn_arg = r->o->warn_arg,
	    .overwrite_live = r->o->overwrite_live,
	    .no_fsync = r->o->no_fsync,
	};
	struct ht_capture_writer_ring_opts ro = {0};
	size_t i;
	int ret;

	ret = ht_capture_writer_create(&r->cw, r->o->capture_dir, &copts,
				       r->err, r->err_len);
	if (ret) {
		return ret;
	}
	for (i = 0; i < b->nr_cores; i++) {
		const struct ht_board_core *c = &b->cores[i];
		const struct region_map *m = NULL;
		char *mpath = NULL;

		if (!r->ring[i]) {
			continue;
		}
		if (c->metadata) {
			mpath = metadata_path(b, c->metadata);
			if (!mpath) {
				return ht_err_printf(r->err, r->err_len,
						     HT_ENOMEM,
						     "out of memory");
			}
		}
		ro.core_name = c->output;
		ro.metadata_path = mpath;
		ro.stream_name = NULL;
		ro.core_role = c->role == HT_BOARD_MASTER ? "master" : "slave";
		ro.core_master = c->role == HT_BOARD_MASTER ? NULL : master;
		m = ring_region(r, i);
		ro.device_memory = m && m->fd < 0;
		if (m && m->fd >= 0) {
			ret = ht_capture_writer_add_file(
			    r->cw, r->ring[i], r->ring_size[i], m->fd,
			    m->file_off +
				(uint64_t)((uint8_t *)r->ring[i] - m->base),
			    &ro, r->err, r->err_len);
		} else {
			ret = ht_capture_writer_add_memory(r->cw, r->ring[i],
							   r->ring_size[i], &ro,
							   r->err, r->err_len);
		}
		free(mpath);
		if (ret) {
			return ret;
		}
		r->ring_index[i] = (long)ht_capture_writer_nr_rings(r->cw) - 1;
	}
	ro.core_name = master;
	ro.metadata_path = NULL;
	ro.device_memory = false;
	ro.stream_name = "sync";
	ro.core_role = "master";
	ro.core_master = NULL;
	ret = ht_capture_writer_add_memory(r->cw, r->tr_mem, TRACER_RING_SIZE,
					   &ro, r->err, r->err_len);
	if (ret) {
		return ret;
	}
	r->tr_index = (long)ht_capture_writer_nr_rings(r->cw) - 1;
	/* Last: a capture that is refused (already there) keeps its file. */
	return copy_board(r);
}

static void fill_result(struct rec *r, struct ht_board_record_result *res)
{
	const struct ht_board *b = r->b;
	struct ht_capture_writer_stats st;
	size_t i;

	res->cores = calloc(b->nr_cores, sizeof(*res->cores));
	if (!res->cores) {
		return;
	}
	res->nr_cores = b->nr_cores;
	for (i = 0; i < b->nr_cores; i++) {
		struct ht_board_core_result *c = &res->cores[i];

		c->name = b->cores[i].name;
		c->last_ack_s = -1;
		if (r->cw && r->ring_index[i] >= 0) {
			ht_capture_writer_stats(r->cw, (size_t)r->ring_index[i],
						&st);
			stats_copy(&c->ring, &st);
			c->has_ring = true;
			res->bytes += st.bytes;
		}
	}
	for (i = 0; i < r->nr_slaves; i++) {
		struct slave *s = &r->slaves[i];
		struct ht_board_core_result *c = &res->cores[s->core];

		if (r->sd) {
			ht_sync_daemon_stats(r->sd, i, &c->sync);
		}
		c->sync_status =
		    s->status == HT_BOARD_SYNC_NONE
			? (s->answered ? HT_BOARD_SYNC_OK : HT_BOARD_SYNC_NONE)
			: s->status;
		c->last_ack_s = s->answered ? s->last_ack_s : -1;
		c->stopped_at_s = s->stopped_at_s;
	}
	if (r->cw && r->tr_index >= 0) {
		ht_capture_writer_stats(r->cw, (size_t)r->tr_index, &st);
		stats_copy(&res->sync_ring, &st);
		res->bytes += st.bytes;
	}
}

static void teardown(struct rec *r)
{
	size_t i;

	ht_sync_daemon_destroy(r->sd);
	r->sd = NULL;
	if (r->log_running) {
		if (write(r->wake[1], "x", 1) != 1) {
			/* The pipe is ours: a failed write means the
			 * thread is gone already. */
		}
		pthread_join(r->log_thread, NULL);
		r->log_running = false;
	}
	if (r->wake[0] > 0) {
		close(r->wake[0]);
		close(r->wake[1]);
	}
	for (i = 0; r->slaves && i < r->nr_slaves; i++) {
		if (r->slaves[i].fd >= 0) {
			close(r->slaves[i].fd);
		}
		if (r->slaves[i].log_fd >= 0) {
			close(r->slaves[i].log_fd);
		}
	}
	ht_capture_writer_destroy(r->cw);
	free(r->tr_mem);
	for (i = 0; r->maps && i < r->b->nr_regions; i++) {
		if (r->maps[i].map) {
			munmap(r->maps[i].map, r->maps[i].map_len);
		}
		if (r->maps[i].fd >= 0) {
			close(r->maps[i].fd);
		}
	}
	free(r->maps);
	free(r->ring);
	free(r->ring_size);
	free(r->ring_index);
	free(r->mbox);
	free(r->slaves);
}

int ht_board_record(const struct ht_board *board,
		    const struct ht_board_record_opts *opts,
		    struct ht_board_record_result *result, char *err,
		    size_t err_len)
{
	struct rec r = {.b = board, .o = opts, .err = err, .err_len = err_len};
	char fatal_msg[512] = "";
	size_t i, n = board->nr_cores;
	int ret, run_ret = 0;
	bool existed;

	memset(result, 0, sizeof(*result));
	if (err_len) {
		err[0] = '\0';
	}
	r.tr_index = -1;
	r.wake[0] = r.wake[1] = -1;
	r.maps = calloc(board->nr_regions, sizeof(*r.maps));
	for (i = 0; r.maps && i < board->nr_regions; i++) {
		r.maps[i].fd = -1;
	}
	r.ring = calloc(n, sizeof(*r.ring));
	r.ring_size = calloc(n, sizeof(*r.ring_size));
	r.ring_index = calloc(n, sizeof(*r.ring_index));
	r.mbox = calloc(n, sizeof(*r.mbox));
	if (!r.maps || !r.ring || !r.ring_size || !r.ring_index || !r.mbox) {
		ret =
		    ht_err_printf(r.err, r.err_len, HT_ENOMEM, "out of memory");
		goto teardown;
	}
	for (i = 0; i < n; i++) {
		r.ring_index[i] = -1;
	}
	/* Everything that can fail on the board's side before the capture
	 * directory exists. */
	for (i = 0; i < board->nr_regions; i++) {
		ret = map_region(&r, i);
		if (ret) {
			goto teardown;
		}
	}
	ret = locate(&r);
	if (!ret) {
		ret = open_doorbells(&r);
	}
	if (ret && opts->stop && *opts->stop) {
		ret = ht_err_printf(
		    r.err, r.err_len, HT_EIO,
		    "stopped before every ring and mailbox was found");
	}
	if (!ret) {
		ret = tracer_start(&r);
	}
	if (ret) {
		goto teardown;
	}
	existed = access(opts->capture_dir, F_OK) == 0;
	ret = attach(&r);
	if (ret) {
		/*
		 * A capture directory this run made says it is not complete;
		 * one that was there already (refused) is left as it was.
		 */
		if (r.cw && !existed) {
			fill_result(&r, result);
			write_record_json(&r, result, err);
		}
		goto teardown;
	}
	r.t0 = now_s();
	ret = start_daemon(&r);
	if (ret) {
		goto finish;
	}
	if (opts->started) {
		opts->started(opts->started_arg);
	}
	run_ret = drain(&r);
	if (r.fatal) {
		snprintf(fatal_msg, sizeof(fatal_msg), "%s", err);
	}

finish:
	if (r.sd) {
		ht_sync_daemon_stop(r.sd);
	}
	ht_master_ring_tracer_stop(&r.tr);
	if (opts->progress) {
		ht_board_print_progress(r.cw, now_s() - r.t0, stderr);
		fputc('\n', stderr);
	}
	{
		char ferr[512];
		int fret = ht_capture_writer_finish(r.cw, ferr, sizeof(ferr));

		result->seconds = now_s() - r.t0;
		fill_result(&r, result);
		if (fret && !ret) {
			ret = fret;
			snprintf(err, err_len, "%s", ferr);
		}
	}
	if (!ret && r.fatal) {
		ret = HT_EIO;
		snprintf(err, err_len, "%s", fatal_msg);
	}
	if (!ret && run_ret) {
		ret = ht_err_printf(r.err, r.err_len, run_ret,
				    "cannot write the capture: %s",
				    ht_strerror(run_ret));
	}
	if (!ret) {
		for (i = 0; i < result->nr_cores; i++) {
			const struct ht_board_core_result *c =
			    &result->cores[i];

			if (c->sync_status == HT_BOARD_SYNC_STOPPED) {
				ret = ht_err_printf(
				    r.err, r.err_len, HT_EIO,
				    "%s: stopped answering at %.1f s "
				    "(its packets so far are kept)",
				    c->name, c->stopped_at_s);
				break;
			}
			if (c->has_ring && c->ring.failed) {
				ret = ht_err_printf(
				    r.err, r.err_len, HT_EIO,
				    "%s: ring failed: %s", c->name,
				    c->ring.error ? c->ring.error : "?");
				break;
			}
		}
	}
	result->complete = !ret;
	if (write_record_json(&r, result, ret ? err : NULL) && !ret) {
		ret = ht_err_printf(r.err, r.err_len, HT_EIO,
				    "%s/record.json: cannot write it",
				    opts->capture_dir);
		result->complete = false;
	}

teardown:
	teardown(&r);
	return ret;
}

void ht_board_record_result_free(struct ht_board_record_result *result)
{
	size_t i;

	if (!result) {
		return;
	}
	for (i = 0; i < result->nr_cores; i++) {
		if (result->cores[i].has_ring) {
			stats_free(&result->cores[i].ring);
		}
	}
	free(result->cores);
	stats_free(&result->sync_ring);
	memset(result, 0, sizeof(*result));
}

void ht_board_print_progress(struct ht_capture_writer *c, double secs,
			     FILE *out)
{
	struct ht_capture_writer_stats st;
	uint64_t bytes = 0, packets = 0, disc = 0;
	char line[1024];
	size_t i, n = 0;

	if (!c) {
		return;
	}
	for (i = 0; i < ht_capture_writer_nr_rings(c); i++) {
		ht_capture_writer_stats(c, i, &st);
		bytes += st.bytes;
		packets += st.packets;
		disc += st.events_discarded;
	}
	n += (size_t)snprintf(line + n, sizeof(line) - n,
			      "%6.1f s  %" PRIu64 " packets  %.1f MB  %" PRIu64
			      " discarded",
			      secs, packets, (double)bytes / 1e6, disc);
	for (i = 0; i < ht_capture_writer_nr_rings(c) && n < 200; i++) {
		ht_capture_writer_stats(c, i, &st);
		n += (size_t)snprintf(
		    line + n, sizeof(line) - n, " | %s %.1f MB d%" PRIu64,
		    st.core_name, (double)st.bytes / 1e6, st.events_discarded);
	}
	fprintf(out, "\r%.*s\033[K", 200, line);
}

static void summary_row(FILE *out, const char *name,
			const struct ht_capture_writer_stats *st)
{
	static const char *const states[] = {"empty", "running", "stopped"};

	fprintf(out,
		"%-16s %-8s %-10s %10" PRIu64 " %12" PRIu64 " %10" PRIu64
		" %8u %8" PRIu64 " %8" PRIu64 "%s\n",
		name, st->state < 3 ? states[st->state] : "?",
		st->mode == HT_RING_OVERWRITE ? "overwrite" : "discard",
		st->packets, st->bytes, st->events_discarded, st->full_count,
		st->lost_packets, st->damaged_packets,
		st->failed ? "  (failed)" : "");
}

void ht_board_record_print_summary(const struct ht_board_record_result *res,
				   const char *capture_dir, FILE *out)
{
	char name[64];
	size_t i, rings = 0;

	fprintf(out, "%-16s %-8s %-10s %10s %12s %10s %8s %8s %8s\n", "core",
		"state", "mode", "packets", "bytes", "discarded", "full",
		"lost", "damaged");
	for (i = 0; i < res->nr_cores; i++) {
		if (res->cores[i].has_ring) {
			summary_row(out, res->cores[i].ring.core_name,
				    &res->cores[i].ring);
			rings++;
		}
	}
	if (res->sync_ring.core_name) {
		snprintf(name, sizeof(name), "%s/sync",
			 res->sync_ring.core_name);
		summary_row(out, name, &res->sync_ring);
		rings++;
	}
	for (i = 0; i < res->nr_cores; i++) {
		const struct ht_board_core_result *c = &res->cores[i];

		if (c->has_ring && c->ring.failed) {
			fprintf(out,
				"%s: stopped: %s; its stream holds %" PRIu64
				" whole packets, %" PRIu64 " bytes\n",
				c->ring.core_name,
				c->ring.error ? c->ring.error : "?",
				c->ring.packets, c->ring.bytes);
		}
		if (c->has_ring && c->ring.loss_markers) {
			fprintf(out,
				"%s: %" PRIu64 " of the %" PRIu64
				" packets are empty ones announcing the losses "
				"before the first packet or after the last\n",
				c->ring.core_name, c->ring.loss_markers,
				c->ring.packets);
		}
		if (c->sync.rounds) {
			fprintf(out,
				"%s: sync %s: %" PRIu64 " rounds, %" PRIu64
				" answered, %" PRIu64 " timeouts",
				c->name, sync_status_name(c->sync_status),
				c->sync.rounds, c->sync.answered,
				c->sync.timeouts);
			if (c->sync.min_rtt_ns) {
				fprintf(out, ", min RTT %.1f us",
					(double)c->sync.min_rtt_ns / 1e3);
			}
			if (c->sync_status == HT_BOARD_SYNC_STOPPED) {
				fprintf(out, ", stopped at %.1f s",
					c->stopped_at_s);
			}
			fputc('\n', out);
		}
	}
	fprintf(out, "%zu rings, %.1f MB in %.2f s into %s\n", rings,
		(double)res->bytes / 1e6, res->seconds, capture_dir);
}
