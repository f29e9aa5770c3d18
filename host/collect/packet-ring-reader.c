/* SPDX-License-Identifier: MIT */
/*
 * The consumer side of the packet ring. The invariants and the
 * producer's barriers are in include/hetrace/packet-ring.h; the
 * consumer's are here, each next to the access it orders:
 *
 * - head is read with acquire semantics before a slot is read: the
 *   producer's barrier in ht_ring_commit() made the packet's bytes
 *   visible before the head that covers it, so everything read from
 *   the slot afterwards is the committed packet.
 * - tail is stored with release semantics after the slot's bytes were
 *   used (written out): the producer, which reads tail before writing
 *   a slot, cannot overwrite a packet still being read.
 * - Overwrite re-check: the slot is copied, then an acquire fence, then
 *   head is read again. The producer stores a new head and, after a
 *   barrier, starts writing the next slot; so if the second head still
 *   leaves packet k in the ring (head - k < nr_slots), no byte of the
 *   copy came from a newer packet.
 *
 * Every access to the region goes through a guard: a producer (or
 * QEMU) that truncates the file under the mapping turns the next
 * access into SIGBUS. A process-wide SIGBUS handler (installed once,
 * SA_NODEFER) jumps back into the guarded access of the faulting
 * thread; the reader is then dead (every later access fails at once)
 * with a message naming the region and the offset. A SIGBUS outside a
 * guarded access gets the handler that was there before.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "hetrace/packet-ring.h"
#include "packet-ring-reader.h"

struct ht_ring_reader {
	struct ht_ring *ring;
	void *map; /* what we mapped, or NULL */
	size_t map_size;
	int fd;		   /* the region's file (its size is checked), or -1 */
	uint64_t file_off; /* where the ring starts in the file */
	bool faulted;
	bool device;	     /* device memory: copies by aligned 32-bit loads */
	uint32_t last_state; /* the state before the fault */
	uint32_t total_size; /* the ring's, validated */
	char fault_msg[256];
	struct ht_ring_info info;
	uint32_t slots_off;
	uint32_t next;	  /* the next packet to read; the consumer's tail */
	uint64_t overrun; /* discard mode: packets past a full ring */
	char *source;
};

static uint32_t load_acquire(const volatile uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* ---- the SIGBUS guard ---- */

/*
 * The guarded access of this thread, and the address that faulted.
 * Volatile, and a signal fence on each side of the access: the
 * compiler must neither drop the store that arms the guard (the
 * disarming store follows) nor move the access out of the armed span.
 */
static _Thread_local sigjmp_buf *volatile guard_jmp;
static _Thread_local void *guard_addr;
static struct sigaction old_bus;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	if (guard_jmp) {
		sigjmp_buf *jb = guard_jmp;

		guard_jmp = NULL;
		guard_addr = si->si_addr;
		siglongjmp(*jb, 1);
	}
	/* Not a ring access: the previous disposition, then the faulting
	 * access runs again (or the signal is raised again when sent). */
	sigaction(SIGBUS, &old_bus, NULL);
	if (si->si_code <= 0) {
		raise(sig);
	}
	(void)uc;
}

static void bus_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	/* NODEFER: the jump out of the handler leaves SIGBUS unblocked
	 * without saving the signal mask at every guarded access. */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old_bus);
}

/* The reader after a SIGBUS at guard_addr: dead, with a message. */
static void fault_note(struct ht_ring_reader *rr)
{
	long long off =
	    (long long)((uint8_t *)guard_addr - (uint8_t *)rr->ring);
	struct stat st;
	char size[96] = "";

	if (rr->fd >= 0 && fstat(rr->fd, &st) == 0) {
		snprintf(size, sizeof(size),
			 ": the file has %lld bytes (truncated under the "
			 "collector?)",
			 (long long)st.st_size);
	}
	snprintf(rr->fault_msg, sizeof(rr->fault_msg),
		 "%s: offset %lld: bus error reading the ring%s", rr->source,
		 off, size);
	rr->faulted = true;
}

/*
 * The guarded accesses. Each arms this thread's guard around one load,
 * store or copy; sigsetjmp without the signal mask (the handler runs
 * with SA_NODEFER), so a guard costs a few registers saved.
 */
enum guarded_op { G_LOAD, G_STORE, G_COPY };

/*
 * A copy out of device memory (/dev/mem or a UIO map: Device memory on
 * arm64, where an unaligned or paired load faults, and memcpy() uses
 * both): bytes up to a 4-byte boundary, aligned 32-bit loads, the
 * bytes left.
 */
__attribute__((noinline)) static void copy_device(void *dst, const void *src,
						  size_t n)
{
	const volatile uint8_t *s = src;
	uint8_t *d = dst;
	uint32_t w;

	for (; n && ((uintptr_t)s & 3u); n--) {
		*d++ = *s++;
	}
	for (; n >= 4u; n -= 4u, s += 4, d += 4) {
		w = *(const volatile uint32_t *)(const volatile void *)s;
		memcpy(d, &w, 4u);
	}
	for (; n; n--) {
		*d++ = *s++;
	}
}

/* One guarded access: a load into *v, a store of *v, or a copy of n
 * bytes from src to dst. */
static bool guarded(struct ht_ring_reader *rr, enum guarded_op op,
		    volatile uint32_t *p, uint32_t *v, void *dst,
		    const void *src, size_t n)
{
	sigjmp_buf jb;

	if (rr->faulted) {
		return false;
	}
	if (sigsetjmp(jb, 0)) {
		fault_note(rr);
		return false;
	}
	guard_jmp = &jb;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	switch (op) {
	case G_LOAD:
		*v = load_acquire(p);
		break;
	case G_STORE:
		__atomic_store_n(p, *v, __ATOMIC_RELEASE);
		break;
	case G_COPY:
		if (rr->device) {
			copy_device(dst, src, n);
		} else {
			memcpy(dst, src, n);
		}
		break;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	guard_jmp = NULL;
	return true;
}

static bool guarded_load(struct ht_ring_reader *rr, const volatile uint32_t *p,
			 uint32_t *v)
{
	return guarded(rr, G_LOAD, (volatile uint32_t *)p, v, NULL, NULL, 0);
}

static bool guarded_store(struct ht_ring_reader *rr, volatile uint32_t *p,
			  uint32_t v)
{
	return guarded(rr, G_STORE, p, &v, NULL, NULL, 0);
}

static bool guarded_copy(struct ht_ring_reader *rr, void *dst, const void *src,
			 size_t n)
{
	return guarded(rr, G_COPY, NULL, NULL, dst, src, n);
}

#define OFF(field) ((unsigned)offsetof(struct ht_ring, field))

/* The ring's geometry as read once from its header. */
struct geometry {
	uint32_t hsize, total, mode, slot, nr, soff, moff, msize;
};

/*
 * The header's identity and sizes against the @size bytes of the
 * region: magic, version, header and total size, mode. Reads each field
 * once (the producer may still be initializing: the magic is written
 * last, after a barrier, so the rest is valid once it is seen).
 */
static int check_header(const struct ht_ring *r, const char *what, size_t size,
			struct geometry *g, char *err, size_t err_len)
{
	uint32_t magic, version;

	if (size < sizeof(struct ht_ring)) {
		return ht_err_printf(
		    err, err_len, HT_ETRUNC,
		    "%s: %zu bytes: too small for a packet ring header "
		    "(%zu bytes)",
		    what, size, sizeof(struct ht_ring));
	}
	magic = load_acquire(&r->magic);
	if (magic != HT_RING_MAGIC) {
		return ht_err_printf(
		    err, err_len, HT_EFORMAT,
		    "%s: offset %u: magic 0x%08x%s: not a packet ring "
		    "(expected 0x%08x)",
		    what, OFF(magic), magic,
		    magic ? "" : " (not initialized yet?)", HT_RING_MAGIC);
	}
	version = r->version;
	if (version != HT_RING_VERSION) {
		return ht_err_printf(
		    err, err_len, HT_EUNSUPPORTED,
		    "%s: offset %u: ring version %u: this hetrace "
		    "reads version %u",
		    what, OFF(version), version, HT_RING_VERSION);
	}
	g->hsize = r->size;
	g->total = r->total_size;
	if (g->hsize < sizeof(struct ht_ring) || g->hsize % 4u) {
		return ht_err_printf(
		    err, err_len, HT_EFORMAT,
		    "%s: offset %u: header size %u: version %u headers "
		    "have at least %zu bytes",
		    what, OFF(size), g->hsize, version, sizeof(struct ht_ring));
	}
	if (g->total > size) {
		return ht_err_printf(
		    err, err_len, HT_ETRUNC,
		    "%s: offset %u: total_size %u but the region has "
		    "%zu bytes (truncated?)",
		    what, OFF(total_size), g->total, size);
	}
	if (g->hsize > g->total) {
		return ht_err_printf(
		    err, err_len, HT_EFORMAT,
		    "%s: offset %u: header size %u past total_size %u", what,
		    OFF(size), g->hsize, g->total);
	}
	g->mode = r->mode;
	if (g->mode != HT_RING_DISCARD && g->mode != HT_RING_OVERWRITE) {
		return ht_err_printf(
		    err, err_len, HT_EFORMAT,
		    "%s: offset %u: unknown mode %u (0 discard, "
		    "1 overwrite)",
		    what, OFF(mode), g->mode);
	}
	return 0;
}

/* The slots: their size, number and place, inside total_size. */
static int check_slots(const struct ht_ring *r, const char *what,
		       struct geometry *g, char *err, size_t err_len)
{
	uint64_t end;

	g->slot = r->slot_size;
	g->nr = r->nr_slots;
	g->soff = r->slots_off;
	if (g->slot == 0u || g->slot % 8u) {
		return ht_err_printf(
		    err, err_len, HT_EFORMAT,
		    "%s: offset %u: slot_size %u: not a positive "
		    "multiple of 8",
		    what, OFF(slot_size), g->slot);
	}
	if (g->nr < 2u) {
		return ht_err_printf(
		    err, err_len, HT_EFORMAT,
		    "%s: offset %u: nr_slots %u: a ring has at least "
		    "2 slots",
		    what, OFF(nr_slots), g->nr);
	}
	if (g->soff < g->hsize || g->soff % 8u) {
		return ht_err_printf(
		    err, err_len, HT_EFORMAT,
		    "%s: offset %u: slots_off %u: inside the header "
		    "(%u bytes) or not 8-byte aligned",
		    what, OFF(slots_off), g->soff, g->hsize);
	}
	end = (uint64_t)g->soff + (uint64_t)g->nr * g->slot;
	if (end > g->total) {
		return ht_err_printf(
		    err, err_len, HT_EFORMAT,
		    "%s: offset %u: slot geometry past the end: "
		    "slots_off %u + %u slots x %u bytes = %llu > "
		    "total_size %u",
		    what, OFF(nr_slots), g->soff, g->nr, g->slot,
		    (unsigned long long)end, g->total);
	}
	return 0;
}

/* The metadata, if any: between the header and the slots. */
static int check_metadata(const struct ht_ring *r, const char *what,
			  struct geometry *g, char *err, size_t err_len)
{
	g->moff = r->metadata_off;
	g->msize = r->metadata_size;
	if (g->moff == 0u) {
		if (g->msize) {
			return ht_err_printf(
			    err, err_len, HT_EFORMAT,
			    "%s: offset %u: metadata_size %u without "
			    "metadata_off",
			    what, OFF(metadata_size), g->msize);
		}
	} else if (g->moff < g->hsize ||
		   (uint64_t)g->moff + g->msize > g->soff) {
		return ht_err_printf(
		    err, err_len, HT_EFORMAT,
		    "%s: offset %u: metadata %u..%llu outside the "
		    "space between the header (%u bytes) and the "
		    "slots (%u)",
		    what, OFF(metadata_off), g->moff,
		    (unsigned long long)g->moff + g->msize, g->hsize, g->soff);
	}
	return 0;
}

/* Checks the header against the @size bytes of the region and fills
 * the reader's view of the ring from it. */
static int validate(struct ht_ring_reader *rr, size_t size, char *err,
		    size_t err_len)
{
	struct ht_ring hdr, *r = &hdr;
	struct geometry g = {0};
	uint32_t magic = 0;
	int ret;

	/*
	 * The header is checked on a copy (the producer may change it
	 * meanwhile): the magic first (acquire: the producer writes it
	 * last), then the rest.
	 */
	memset(&hdr, 0, sizeof(hdr));
	if (size >= sizeof(hdr) &&
	    (!guarded_load(rr, &rr->ring->magic, &magic) ||
	     !guarded_copy(rr, &hdr, rr->ring, sizeof(hdr)))) {
		return ht_err_printf(err, err_len, HT_EIO, "%s", rr->fault_msg);
	}
	hdr.magic = magic;
	ret = check_header(r, rr->source, size, &g, err, err_len);
	if (!ret) {
		ret = check_slots(r, rr->source, &g, err, err_len);
	}
	if (!ret) {
		ret = check_metadata(r, rr->source, &g, err, err_len);
	}
	if (ret) {
		return ret;
	}
	rr->info.mode = g.mode;
	rr->info.slot_size = g.slot;
	rr->info.nr_slots = g.nr;
	rr->info.slots_off = g.soff;
	rr->info.core_id = r->core_id;
	memcpy(rr->info.core_name, (const char *)r->core_name,
	       sizeof(rr->info.core_name) - 1u);
	rr->info.core_name[sizeof(rr->info.core_name) - 1u] = '\0';
	rr->info.metadata = g.moff ? (const char *)rr->ring + g.moff : NULL;
	rr->info.metadata_size = g.msize;
	rr->info.source = rr->source;
	rr->slots_off = g.soff;
	rr->last_state = r->state;
	rr->total_size = g.total;
	/* Start where a previous consumer left off. */
	rr->next = r->tail;
	return 0;
}

static int reader_new(struct ht_ring_reader **out, const char *what, char *err,
		      size_t err_len)
{
	struct ht_ring_reader *rr = calloc(1, sizeof(*rr));

	if (!rr || !(rr->source = strdup(what))) {
		free(rr);
		return ht_err_printf(err, err_len, HT_ENOMEM,
				     "%s: out of memory", what);
	}
	rr->fd = -1;
	pthread_once(&bus_once, bus_install);
	*out = rr;
	return 0;
}

static int attach_memory(struct ht_ring_reader **out, void *mem, size_t size,
			 bool device, const char *what, char *err,
			 size_t err_len)
{
	struct ht_ring_reader *rr;
	int ret;

	if (!what) {
		what = "memory";
	}
	if (!mem || (uintptr_t)mem % 8u) {
		return ht_err_printf(err, err_len, HT_EINVAL,
				     "%s: region not 8-byte aligned", what);
	}
	ret = reader_new(&rr, what, err, err_len);
	if (ret) {
		return ret;
	}
	rr->ring = mem;
	rr->device = device;
	ret = validate(rr, size, err, err_len);
	if (ret) {
		ht_ring_reader_close(rr);
		return ret;
	}
	*out = rr;
	return 0;
}

int ht_ring_reader_attach(struct ht_ring_reader **out, void *mem, size_t size,
			  const char *what, char *err, size_t err_len)
{
	return attach_memory(out, mem, size, false, what, err, err_len);
}

int ht_ring_reader_attach_device(struct ht_ring_reader **out, void *mem,
				 size_t size, const char *what, char *err,
				 size_t err_len)
{
	return attach_memory(out, mem, size, true, what, err, err_len);
}

int ht_ring_reader_attach_file(struct ht_ring_reader **out, void *mem,
			       size_t size, int fd, uint64_t file_off,
			       const char *what, char *err, size_t err_len)
{
	struct ht_ring_reader *rr = NULL;
	int ret, dfd;

	if (!what) {
		what = "memory";
	}
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0) {
		return ht_err_printf(err, err_len, HT_EIO, "%s: dup: %s", what,
				     strerror(errno));
	}
	ret = ht_ring_reader_attach(&rr, mem, size, what, err, err_len);
	if (ret) {
		close(dfd);
		return ret;
	}
	rr->fd = dfd;
	rr->file_off = file_off;
	*out = rr;
	return 0;
}

/* "/NAME" or "NAME" with no other slash: a POSIX shared memory name. */
static bool is_shm_name(const char *path)
{
	const char *p = path[0] == '/' ? path + 1 : path;

	return *p && !strchr(p, '/');
}

/*
 * Parses the OFFSET of "FILE@OFFSET": terms joined by '+', each a
 * decimal or 0x-hexadecimal number with an optional binary suffix k, M
 * or G (8M+64K = 0x810000). Returns false when @s is not that.
 */
static bool parse_offset(const char *s, uint64_t *off)
{
	uint64_t sum = 0, v, mul;
	const char *p = s;
	int base, d;

	do {
		base = 10;
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			base = 16;
			p += 2;
		}
		v = 0;
		for (d = 0;; p++, d++) {
			unsigned dig;

			if (*p >= '0' && *p <= '9') {
				dig = (unsigned)(*p - '0');
			} else if (base == 16 && *p >= 'a' && *p <= 'f') {
				dig = (unsigned)(*p - 'a' + 10);
			} else if (base == 16 && *p >= 'A' && *p <= 'F') {
				dig = (unsigned)(*p - 'A' + 10);
			} else {
				break;
			}
			if (v > (UINT64_MAX - dig) / (unsigned)base) {
				return false;
			}
			v = v * (unsigned)base + dig;
		}
		if (d == 0) {
			return false;
		}
		mul = 1;
		if (*p == 'k' || *p == 'K') {
			mul = 1u << 10;
		} else if (*p == 'm' || *p == 'M') {
			mul = 1u << 20;
		} else if (*p == 'g' || *p == 'G') {
			mul = 1u << 30;
		}
		if (mul > 1u) {
			p++;
		}
		/* Offsets stay below 2^62: no sum or product wraps. */
		if (v >= ((uint64_t)1 << 62) / mul) {
			return false;
		}
		sum += v * mul;
		if (sum >= ((uint64_t)1 << 62)) {
			return false;
		}
	} while (*p++ == '+');
	if (p[-1] != '\0') {
		return false;
	}
	*off = sum;
	return true;
}

static int open_region(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && is_shm_name(path)) {
		fd = shm_open(path, O_RDWR, 0);
	}
	return fd;
}

/*
 * Opens the region @path, or FILE@OFFSET: the ring lies OFFSET bytes
 * into FILE (a QEMU RAM file holds the firmware before it). Only when
 * PATH itself does not exist, so a name with an '@' in it still opens
 * as is. Returns the descriptor (*@file: FILE when split off, to free;
 * *@off: the offset) or a negative HT_E... code.
 */
static int open_at(const char *path, char **file, uint64_t *off, char *err,
		   size_t err_len)
{
	const char *at = strrchr(path, '@');
	int fd = open_region(path);

	*file = NULL;
	*off = 0;
	if (fd < 0 && errno == ENOENT && at && at != path) {
		if (!parse_offset(at + 1, off)) {
			return ht_err_printf(
			    err, err_len, HT_EINVAL,
			    "%s: no such file, and '%s' after the '@' "
			    "is not an offset (FILE@OFFSET: bytes, "
			    "0x hex, k/M/G suffixes, terms joined by "
			    "'+', e.g. ram@8M+64K)",
			    path, at + 1);
		}
		*file = strndup(path, (size_t)(at - path));
		if (!*file) {
			return ht_err_printf(err, err_len, HT_ENOMEM,
					     "%s: out of memory", path);
		}
		fd = open_region(*file);
	}
	if (fd < 0) {
		return ht_err_printf(err, err_len,
				     errno == ENOENT ? HT_ENOENT : HT_EIO,
				     "%s: cannot open the ring (file or shared "
				     "memory): %s",
				     *file ? *file : path, strerror(errno));
	}
	return fd;
}

/* The open region @fd (@st) can hold a ring header at @off. */
static int check_region(const char *path, int fd, uint64_t off, struct stat *st,
			char *err, size_t err_len)
{
	if (fstat(fd, st) < 0) {
		return ht_err_printf(err, err_len, HT_EIO, "%s: %s", path,
				     strerror(errno));
	}
	if (!S_ISREG(st->st_mode)) {
		return ht_err_printf(
		    err, err_len, HT_EINVAL,
		    "%s: not a regular file or shared memory object", path);
	}
	if (off % 8u) {
		return ht_err_printf(
		    err, err_len, HT_EINVAL,
		    "%s: offset %llu (0x%llx) is not 8-byte aligned: "
		    "a ring starts on an 8-byte boundary",
		    path, (unsigned long long)off, (unsigned long long)off);
	}
	if (off >= (uint64_t)st->st_size ||
	    (uint64_t)st->st_size - off < sizeof(struct ht_ring)) {
		return ht_err_printf(
		    err, err_len, HT_ETRUNC,
		    "%s: %lld bytes%s: too small for a packet ring "
		    "header (%zu bytes)%s",
		    path, (long long)st->st_size, off ? " in the file" : "",
		    sizeof(struct ht_ring),
		    off >= (uint64_t)st->st_size
			? ": the offset is past the end"
			: " at the offset");
	}
	return 0;
}

int ht_ring_reader_open(struct ht_ring_reader **out, const char *path,
			char *err, size_t err_len)
{
	struct ht_ring_reader *rr;
	char *file = NULL;
	uint64_t off, map_off;
	long page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
	struct stat st;
	int fd, ret;

	fd = open_at(path, &file, &off, err, err_len);
	if (fd < 0) {
		ret = fd;
		goto free_file;
	}
	ret = check_region(path, fd, off, &st, err, err_len);
	if (ret) {
		goto close_fd;
	}
	ret = reader_new(&rr, path, err, err_len);
	if (ret) {
		goto close_fd;
	}
	/* mmap takes page-aligned offsets: map from the page below. */
	map_off = off - off % (uint64_t)page;
	rr->map_size = (size_t)((uint64_t)st.st_size - map_off);
	rr->map = mmap(NULL, rr->map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, (off_t)map_off);
	if (rr->map == MAP_FAILED) {
		rr->map = NULL;
		ret = ht_err_printf(err, err_len, HT_EIO, "%s: mmap: %s", path,
				    strerror(errno));
		goto free_reader;
	}
	rr->ring = (struct ht_ring *)((uint8_t *)rr->map + (off - map_off));
	rr->fd = fd;
	rr->file_off = off;
	ret = validate(rr, (size_t)((uint64_t)st.st_size - off), err, err_len);
	if (ret) {
		goto free_reader;
	}
	free(file);
	*out = rr;
	return 0;

free_reader:
	/* The reader closes fd when it holds it. */
	if (rr->fd == fd) {
		fd = -1;
	}
	ht_ring_reader_close(rr);
close_fd:
	if (fd >= 0) {
		close(fd);
	}
free_file:
	free(file);
	return ret;
}

void ht_ring_reader_close(struct ht_ring_reader *rr)
{
	if (!rr) {
		return;
	}
	if (rr->map) {
		munmap(rr->map, rr->map_size);
	}
	if (rr->fd >= 0) {
		close(rr->fd);
	}
	free(rr->source);
	free(rr);
}

const struct ht_ring_info *ht_ring_reader_info(const struct ht_ring_reader *rr)
{
	return &rr->info;
}

bool ht_ring_reader_check_size(struct ht_ring_reader *rr)
{
	uint64_t need = rr->file_off + rr->total_size;
	struct stat st;

	if (rr->faulted || rr->fd < 0) {
		return !rr->faulted;
	}
	if (fstat(rr->fd, &st) == 0 && (uint64_t)st.st_size < need) {
		long long end = (long long)st.st_size - (long long)rr->file_off;

		snprintf(rr->fault_msg, sizeof(rr->fault_msg),
			 "%s: offset %lld: the file ends there (%lld bytes), "
			 "the ring needs %u bytes: truncated under the "
			 "collector",
			 rr->source, end < 0 ? 0 : end, (long long)st.st_size,
			 rr->total_size);
		rr->faulted = true;
	}
	return !rr->faulted;
}

bool ht_ring_reader_faulted(const struct ht_ring_reader *rr)
{
	return rr->faulted;
}

const char *ht_ring_reader_fault_msg(const struct ht_ring_reader *rr)
{
	return rr->faulted ? rr->fault_msg : NULL;
}

/* The header's words are read through the guard; a dead reader gives
 * what it saw last (state) or 0. */
static uint32_t header_word(const struct ht_ring_reader *rr,
			    const volatile uint32_t *p, uint32_t dead)
{
	uint32_t v;

	return guarded_load((struct ht_ring_reader *)rr, p, &v) ? v : dead;
}

uint32_t ht_ring_reader_state(const struct ht_ring_reader *rr)
{
	struct ht_ring_reader *w = (struct ht_ring_reader *)rr;

	w->last_state = header_word(rr, &rr->ring->state, rr->last_state);
	return w->last_state;
}

uint32_t ht_ring_reader_full_count(const struct ht_ring_reader *rr)
{
	return header_word(rr, &rr->ring->full_count, 0);
}

uint32_t ht_ring_reader_final_discarded(const struct ht_ring_reader *rr)
{
	/* Written before the STOPPED state: read after it. */
	if (ht_ring_reader_state(rr) != HT_RING_STOPPED) {
		return 0;
	}
	return header_word(rr, &rr->ring->events_discarded, 0);
}

uint32_t ht_ring_reader_pending(const struct ht_ring_reader *rr)
{
	return header_word(rr, &rr->ring->head, rr->next) - rr->next;
}

int ht_ring_reader_read(struct ht_ring_reader *rr, void *dst, const void *src,
			size_t n)
{
	return guarded_copy(rr, dst, src, n) ? 0 : HT_EIO;
}

static const uint8_t *slot_of(const struct ht_ring_reader *rr, uint32_t k)
{
	return (const uint8_t *)rr->ring + rr->slots_off +
	       (size_t)(k % rr->info.nr_slots) * rr->info.slot_size;
}

uint32_t ht_ring_reader_avail(struct ht_ring_reader *rr)
{
	/* Acquire: the packets' bytes are read after the head covering them. */
	uint32_t head, n;

	if (!guarded_load(rr, &rr->ring->head, &head)) {
		return 0;
	}
	n = head - rr->next;
	if (n > rr->info.nr_slots) {
		/* Not a correct discard producer: the oldest are gone. */
		rr->overrun += n - rr->info.nr_slots;
		rr->next = head - rr->info.nr_slots;
		n = rr->info.nr_slots;
	}
	return n;
}

bool ht_ring_reader_copy_slot(struct ht_ring_reader *rr, uint32_t i,
			      uint8_t *buf, uint32_t *k)
{
	*k = rr->next + i;
	return guarded_copy(rr, buf, slot_of(rr, rr->next + i),
			    rr->info.slot_size);
}

/*
 * Reads @n bytes at @off (from the ring's start) of the ring's file
 * into @dst. Returns the bytes read: fewer than @n when the file ended
 * (cut under the collector: the size check says where) or a read
 * failed; either way the reader is then dead.
 */
static size_t file_read(struct ht_ring_reader *rr, void *dst, uint64_t off,
			size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t got = pread(rr->fd, (uint8_t *)dst + done, n - done,
				    (off_t)(rr->file_off + off + done));

		if (got < 0 && errno == EINTR) {
			continue;
		}
		if (got <= 0) {
			int e = got < 0 ? errno : 0;

			if (ht_ring_reader_check_size(rr)) {
				snprintf(rr->fault_msg, sizeof(rr->fault_msg),
					 "%s: offset %llu: read error: %s",
					 rr->source,
					 (unsigned long long)(off + done),
					 e ? strerror(e) : "end of file");
				rr->faulted = true;
			}
			return done;
		}
		done += (size_t)got;
	}
	return done;
}

uint32_t ht_ring_reader_copy_slots(struct ht_ring_reader *rr, uint32_t i,
				   uint32_t n, uint8_t *buf, uint32_t *k)
{
	const uint32_t nr = rr->info.nr_slots, slot = rr->info.slot_size;
	uint32_t first = (rr->next + i) % nr;
	size_t len;

	*k = rr->next + i;
	if (rr->faulted) {
		return 0;
	}
	if (n > nr - first) {
		n = nr - first;
	}
	len = (size_t)n * slot;
	/* The head was loaded with acquire (ht_ring_reader_avail()): the
	 * read's loads, in the kernel or here, come after it. */
	if (rr->fd >= 0) {
		/* Cut in the middle: the slots read before the cut are
		 * whole and go to the capture. */
		len = file_read(rr, buf, rr->slots_off + (uint64_t)first * slot,
				len);
		return (uint32_t)(len / slot);
	}
	return guarded_copy(rr, buf, slot_of(rr, *k), len) ? n : 0;
}

size_t ht_ring_reader_copy_slots_to_file(struct ht_ring_reader *rr, uint32_t i,
					 uint32_t n, int out_fd, uint32_t *k,
					 int *status, int *write_errno)
{
	const uint32_t nr = rr->info.nr_slots, slot = rr->info.slot_size;
	uint32_t first = (rr->next + i) % nr;
	size_t len, done = 0;
	loff_t off;

	*k = rr->next + i;
	*status = 0;
	*write_errno = 0;
	if (rr->faulted) {
		*status = HT_ETRUNC;
		return 0;
	}
	if (rr->fd < 0) {
		*status = HT_EUNSUPPORTED;
		return 0;
	}
	if (n > nr - first) {
		n = nr - first;
	}
	len = (size_t)n * slot;
	off = (loff_t)(rr->file_off + rr->slots_off + (uint64_t)first * slot);
	/* As for a read: the head's acquire load came first. */
	while (done < len) {
		ssize_t got =
		    copy_file_range(rr->fd, &off, out_fd, NULL, len - done, 0);

		if (got < 0 && errno == EINTR) {
			continue;
		}
		if (got < 0 && done == 0 &&
		    (errno == EXDEV || errno == EINVAL || errno == EOPNOTSUPP ||
		     errno == ENOSYS || errno == EBADF)) {
			*status = HT_EUNSUPPORTED;
			return 0;
		}
		if (got < 0) {
			*status = HT_EIO;
			*write_errno = errno;
			return done;
		}
		if (got == 0) {
			/* The end of the ring's file: it shrank. */
			if (ht_ring_reader_check_size(rr)) {
				snprintf(rr->fault_msg, sizeof(rr->fault_msg),
					 "%s: offset %llu: read error: end of "
					 "file",
					 rr->source,
					 (unsigned long long)(rr->slots_off +
							      (uint64_t)first *
								  slot +
							      done));
				rr->faulted = true;
			}
			*status = HT_ETRUNC;
			return done;
		}
		done += (size_t)got;
	}
	return done;
}

void ht_ring_reader_release(struct ht_ring_reader *rr, uint32_t n)
{
	rr->next += n;
	/* Release: every read of the slots is done before the producer
	 * can see them free. */
	guarded_store(rr, &rr->ring->tail, rr->next);
}

uint64_t ht_ring_reader_overrun(const struct ht_ring_reader *rr)
{
	return rr->overrun;
}

bool ht_ring_reader_copy(struct ht_ring_reader *rr, uint8_t *buf, uint32_t *k,
			 uint64_t *lost)
{
	const uint32_t n = rr->info.nr_slots;
	uint32_t head, head2, state;

	for (;;) {
		/* The state before head: a STOPPED state means head is final
		 * (the producer's last commit precedes it). */
		if (!guarded_load(rr, &rr->ring->state, &state) ||
		    !guarded_load(rr, &rr->ring->head, &head)) {
			return false;
		}
		rr->last_state = state;
		if (head == rr->next) {
			return false;
		}
		if (head - rr->next > n) {
			/* The oldest packets are gone: overwritten. */
			*lost += head - n - rr->next;
			rr->next = head - n;
		}
		if (state != HT_RING_STOPPED && head - rr->next == n) {
			/* Packet head - n shares its slot with packet head,
			 * which a running producer is writing. */
			*lost += 1u;
			rr->next++;
			continue;
		}
		if (!guarded_copy(rr, buf, slot_of(rr, rr->next),
				  rr->info.slot_size)) {
			return false;
		}
		/* The copy's loads before the second head's load. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!guarded_load(rr, &rr->ring->head, &head2)) {
			return false;
		}
		if (state == HT_RING_STOPPED || head2 - rr->next < n) {
			break;
		}
		/* Overwritten while copying: try the oldest again. */
	}
	*k = rr->next;
	rr->next++;
	guarded_store(rr, &rr->ring->tail, rr->next);
	return true;
}
