/* SPDX-License-Identifier: MIT */
/*
 * A barectf platform for tests (included by the drivers that
 * mktrace.sh writes): packets go to a file; the clock is a counter
 * advancing by a fixed step per read, so traces are deterministic.
 * plat->full > 0 makes the back end full for that many checks (barectf
 * then discards events); skip_next drops the next packet (a lost one).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct plat {
	FILE *f;
	uint8_t *buf;
	uint64_t clock, step;
	int full, skip_next;
	void *ctx;
};

static uint64_t plat_clock(void *d)
{
	struct plat *p = d;

	p->clock += p->step;
	return p->clock;
}

static int plat_full(void *d)
{
	struct plat *p = d;

	if (p->full > 0) {
		p->full--;
		return 1;
	}
	return 0;
}

static void plat_write(struct plat *p)
{
	if (p->skip_next) {
		p->skip_next = 0;
		return;
	}
	fwrite(bt_packet_buf(p->ctx), 1, bt_packet_buf_size(p->ctx), p->f);
}

static struct plat *plat_new(const char *dir, const char *name,
			     unsigned buf_size, uint64_t step, size_t ctx_size)
{
	struct plat *p = calloc(1, sizeof(*p));
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	p->f = fopen(path, "wb");
	p->buf = calloc(1, buf_size);
	p->ctx = calloc(1, ctx_size);
	p->step = step;
	p->clock = 1000;
	if (!p->f) {
		perror(path);
		exit(1);
	}
	return p;
}
