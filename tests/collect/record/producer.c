/*
 * The producer of tests/collect/record and bench/record.sh: CORES cores, each
 * tracing EVENTS events `tick { n, core }` into its own packet ring
 * through include/hetrace/ring-stream.h, in a region of its own (a file
 * PREFIX<i>, or a POSIX shared memory object when PREFIX starts with
 * '/' and has no other slash). Each core's clock is a counter: a read
 * returns the next integer, so timestamps are exact.
 *
 *   producer [OPTIONS] MODE PREFIX CORES EVENTS
 *     MODE  discard    drop when the ring is full
 *           wait       spin until the collector frees a slot (nothing lost)
 *           overwrite  flight recorder
 *   -s BYTES   slot size (default 4096)     -n SLOTS  slots (default 8)
 *   -r FILE    created once every ring is initialized
 *   -p USEC    sleep USEC after every 1000 events of every core
 *   -M         no metadata in the rings (the collector is given a file)
 *   -k         keep the rings running (no stop) at the end
 *   -w INDEX   start the rings' head and tail at INDEX (0xffffff00:
 *              the free-running indices wrap after 256 packets)
 *   -g FILE    wait for FILE to exist before tracing (the collector
 *              attached)
 *   -T EVENTS  after EVENTS events, truncate the last core's region to
 *              4096 bytes (a producer shrinking its ring file under the
 *              collector) and stop tracing that core
 *
 * Prints "core I traced N committed P" for each core at the end (P:
 * the packets committed into its ring).
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "barectf.h"
#include "hetrace/ring-stream.h"
#include "tests/collect/read-file.h"

#ifndef METADATA_PATH
#error "build with -DMETADATA_PATH=\"...\""
#endif

struct core {
	struct ht_ring_stream rs; /* first: the callbacks' data */
	struct barectf_main_ctx ctx;
	uint64_t clock;
	int wait;
	uint8_t placeholder[8];
};

static uint64_t clock_read(void *data)
{
	return ++((struct core *)data)->clock;
}

static int full_or_wait(void *data)
{
	struct core *c = data;

	time_t t0 = time(NULL);

	/* Waits at most 20 s for the collector, then drops. */
	while (c->wait && ht_ring_is_full(c->rs.ring)) {
		if (time(NULL) - t0 > 20) {
			c->wait = 0;
		}
		sched_yield();
	}
	return ht_ring_stream_is_full(data);
}

static void open_main(void *ctx)
{
	barectf_main_open_packet(ctx);
}

static void close_main(void *ctx)
{
	barectf_main_close_packet(ctx);
}

static void region_path(char *path, size_t len, const char *prefix, unsigned i)
{
	snprintf(path, len, "%s%u", prefix, i);
}

/* A POSIX shared memory object cut to 4096 bytes. */
static int shm_truncate(const char *name)
{
	int fd = shm_open(name, O_RDWR, 0), ret;

	if (fd < 0) {
		return -1;
	}
	ret = ftruncate(fd, 4096);
	close(fd);
	return ret;
}

static void *region(const char *prefix, unsigned i, size_t size)
{
	char path[512];
	void *mem;
	int fd;

	region_path(path, sizeof(path), prefix, i);
	if (prefix[0] == '/' && !strchr(prefix + 1, '/')) {
		shm_unlink(path);
		fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	} else {
		unlink(path);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	}
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		perror(path);
		exit(1);
	}
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	close(fd);
	return mem;
}

int main(int argc, char **argv)
{
	uint32_t slot = 4096, nr = 8, meta_len = 0, start_index = 0;
	unsigned long truncate_at = 0;
	unsigned active;
	const char *ready = NULL, *go = NULL, *mode_s, *prefix;
	long pace_us = 0;
	int no_meta = 0, keep = 0, opt;
	unsigned cores, i;
	unsigned long events, j;
	enum ht_ring_mode mode;
	struct core *cs;
	char *meta;

	while ((opt = getopt(argc, argv, "s:n:r:p:Mkw:T:g:")) != -1) {
		switch (opt) {
		case 's':
			slot = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			nr = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			ready = optarg;
			break;
		case 'p':
			pace_us = strtol(optarg, NULL, 0);
			break;
		case 'M':
			no_meta = 1;
			break;
		case 'k':
			keep = 1;
			break;
		case 'w':
			start_index = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'g':
			go = optarg;
			break;
		case 'T':
			truncate_at = strtoul(optarg, NULL, 0);
			break;
		default:
			return 2;
		}
	}
	if (argc - optind != 4) {
		fprintf(stderr,
			"usage: producer [OPTIONS] MODE PREFIX CORES EVENTS\n");
		return 2;
	}
	mode_s = argv[optind];
	prefix = argv[optind + 1];
	cores = (unsigned)strtoul(argv[optind + 2], NULL, 0);
	events = strtoul(argv[optind + 3], NULL, 0);
	mode =
	    strcmp(mode_s, "overwrite") ? HT_RING_DISCARD : HT_RING_OVERWRITE;
	meta = read_file(METADATA_PATH, &meta_len);
	cs = calloc(cores, sizeof(*cs));
	for (i = 0; i < cores; i++) {
		struct core *c = &cs[i];
		size_t size =
		    ((sizeof(struct ht_ring) + (no_meta ? 0 : meta_len) + 63) &
		     ~(size_t)63) +
		    (size_t)slot * nr;
		struct barectf_platform_callbacks cbs = {
		    clock_read, full_or_wait, ht_ring_stream_open,
		    ht_ring_stream_close};
		char name[16];

		snprintf(name, sizeof(name), "core%u", i);
		c->wait = !strcmp(mode_s, "wait");
		c->rs.ring = ht_ring_init(region(prefix, i, size),
					  (uint32_t)size, slot, mode, i, name,
					  no_meta ? NULL : meta, meta_len);
		if (!c->rs.ring || c->rs.ring->nr_slots != nr) {
			fprintf(stderr, "ht_ring_init failed\n");
			return 1;
		}
		/* Any start is valid: the indices are compared by
		 * difference. Before the first packet opens. */
		c->rs.ring->head = start_index;
		c->rs.ring->tail = start_index;
		c->rs.ctx = &c->ctx;
		c->rs.set_buf = barectf_packet_set_buf;
		c->rs.is_open = barectf_packet_is_open;
		c->rs.is_empty = barectf_packet_is_empty;
		c->rs.open = open_main;
		c->rs.close = close_main;
		barectf_init(&c->ctx, c->placeholder, slot, cbs, &c->rs);
		barectf_set_core_id(&c->ctx, i);
		ht_ring_stream_start(&c->rs);
	}
	if (ready) {
		fclose(fopen(ready, "w"));
	}
	while (go && access(go, F_OK) != 0) {
		struct timespec ts = {0, 1000000};

		nanosleep(&ts, NULL);
	}
	active = cores;
	for (j = 0; j < events; j++) {
		if (truncate_at && j == truncate_at) {
			char path[512];

			region_path(path, sizeof(path), prefix, cores - 1);
			if ((prefix[0] == '/' && !strchr(prefix + 1, '/')
				 ? shm_truncate(path)
				 : truncate(path, 4096)) < 0) {
				perror(path);
				return 1;
			}
			active = cores - 1;
		}
		for (i = 0; i < active; i++) {
			barectf_main_trace_tick(&cs[i].ctx, (uint32_t)j,
						(uint8_t)i);
		}
		if (pace_us && j % 1000 == 999) {
			struct timespec ts = {0, pace_us * 1000};

			nanosleep(&ts, NULL);
		}
	}
	for (i = 0; i < active; i++) {
		if (!keep) {
			ht_ring_stream_stop(&cs[i].rs);
		}
		printf("core %u traced %lu committed %u\n", i, events,
		       cs[i].rs.ring->head - start_index);
	}
	free(cs);
	free(meta);
	return 0;
}
