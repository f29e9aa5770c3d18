/*
 * A hostile producer for tests/collect/record/test-hostile.sh: one core
 * tracing EVENTS ticks (tests/collect/record/producer.yaml) into a
 * discard ring in the file PATH, waiting for free slots, and all the
 * while rewriting the packet_size and content_size of the packets it
 * has committed and the collector has not released: each in turn the
 * packet as written, the same slot as an empty packet of half the
 * size, and a packet_size past the slot. A collector that checks a
 * packet and then writes it from shared memory writes a misframed
 * packet; one that writes its checked copy writes whole packets.
 *
 *   hostile PATH EVENTS [READY-FILE [PERIOD-MS]]
 *
 * With PERIOD-MS, it scribbles only once the collector released its
 * first packets, and then only every other PERIOD-MS milliseconds:
 * in between, the collector sees packets that fill their slots and
 * takes them with the direct copy (copy_file_range() from the ring's
 * file), which the next scribbling period then races with.
 *
 * Layout (the generated tracer's): packet_size at byte 12, content_size
 * at byte 20, header and context 64 bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "barectf.h"
#include "hetrace/ring-stream.h"

#ifndef METADATA_PATH
#error "build with -DMETADATA_PATH=\"...\""
#endif

#define SLOT 1024u
#define NR 8u
#define HC_BITS 512u

struct core {
	struct ht_ring_stream rs; /* first: the callbacks' data */
	struct barectf_main_ctx ctx;
	uint64_t clock;
	uint64_t content[NR]; /* each slot's content_size as committed */
	unsigned turn;
	long period_ms; /* 0: scribble all the time */
	uint8_t placeholder[8];
};

static uint64_t clock_read(void *data)
{
	return ++((struct core *)data)->clock;
}

/* Rewrites the sizes of every committed, unreleased packet. */
static void scribble(struct core *c)
{
	struct ht_ring *r = c->rs.ring;
	struct timespec now;
	uint32_t k;

	if (c->period_ms) {
		/* The first batch is left alone: a first packet rejected
		 * would renumber the ring, which takes the copy only. */
		if (r->tail == 0) {
			return;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec * 1000L + now.tv_nsec / 1000000L) /
			c->period_ms % 2 ==
		    0) {
			return;
		}
	}
	for (k = r->tail; k != r->head; k++) {
		uint8_t *p = ht_ring_slot_of(r, k);
		uint64_t ps, cs;

		switch (c->turn++ % 3u) {
		case 0:
			ps = SLOT * 8u;
			cs = c->content[k % NR];
			break;
		case 1:
			ps = SLOT * 4u;
			cs = HC_BITS;
			break;
		default:
			ps = SLOT * 16u;
			memcpy(&cs, p + 20, 8);
			break;
		}
		/* Unaligned 8-byte stores (bytes 12 and 20): memcpy. */
		memcpy(p + 20, &cs, 8);
		memcpy(p + 12, &ps, 8);
	}
}

static int full_wait(void *data)
{
	struct core *c = data;
	long spins = 0;

	while (ht_ring_is_full(c->rs.ring) && spins++ < 200000000L) {
		scribble(c);
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

/* close_packet callback: commits, notes the content size, scribbles. */
static void close_hostile(void *data)
{
	struct core *c = data;
	struct ht_ring *r = c->rs.ring;
	uint64_t cs;

	ht_ring_stream_close(data);
	memcpy(&cs, ht_ring_slot_of(r, r->head - 1u) + 20, 8);
	c->content[(r->head - 1u) % NR] = cs;
	scribble(c);
}

int main(int argc, char **argv)
{
	static struct core core;
	struct core *c = &core;
	struct barectf_platform_callbacks cbs = {
	    clock_read, full_wait, ht_ring_stream_open, close_hostile};
	char meta[1 << 16];
	size_t meta_len, size;
	unsigned long events, j;
	FILE *f;
	void *mem;
	int fd;

	if (argc < 3) {
		fprintf(stderr,
			"usage: hostile PATH EVENTS [READY [PERIOD-MS]]\n");
		return 2;
	}
	events = strtoul(argv[2], NULL, 0);
	c->period_ms = argc > 4 ? strtol(argv[4], NULL, 0) : 0;
	f = fopen(METADATA_PATH, "rb");
	if (!f) {
		perror(METADATA_PATH);
		return 1;
	}
	meta_len = fread(meta, 1, sizeof(meta), f);
	fclose(f);
	size = ((sizeof(struct ht_ring) + meta_len + 63u) & ~(size_t)63u) +
	       (size_t)SLOT * NR;
	unlink(argv[1]);
	fd = open(argv[1], O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		perror(argv[1]);
		return 1;
	}
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	c->rs.ring = ht_ring_init(mem, (uint32_t)size, SLOT, HT_RING_DISCARD, 0,
				  "core0", meta, (uint32_t)meta_len);
	if (!c->rs.ring || c->rs.ring->nr_slots != NR) {
		fprintf(stderr, "ht_ring_init failed\n");
		return 1;
	}
	c->rs.ctx = &c->ctx;
	c->rs.set_buf = barectf_packet_set_buf;
	c->rs.is_open = barectf_packet_is_open;
	c->rs.is_empty = barectf_packet_is_empty;
	c->rs.open = open_main;
	c->rs.close = close_main;
	barectf_init(&c->ctx, c->placeholder, SLOT, cbs, &c->rs);
	ht_ring_stream_start(&c->rs);
	if (argc > 3 && *argv[3]) {
		fclose(fopen(argv[3], "w"));
	}
	for (j = 0; j < events; j++) {
		barectf_main_trace_tick(&c->ctx, (uint32_t)j, 0);
	}
	ht_ring_stream_stop(&c->rs);
	memcpy(&c->content[(c->rs.ring->head - 1u) % NR],
	       ht_ring_slot_of(c->rs.ring, c->rs.ring->head - 1u) + 20, 8);
	/* Until the collector has released everything: keep scribbling. */
	for (j = 0; j < 200000000UL && c->rs.ring->tail != c->rs.ring->head;
	     j++) {
		scribble(c);
		sched_yield();
	}
	printf("committed %u\n", c->rs.ring->head);
	return 0;
}
