/* SPDX-License-Identifier: MIT */
/*
 * A file-backed barectf platform for the print test corpus: every closed
 * packet is appended to a stream file, except the packets listed in
 * PLAT_DROP (lost packets: packet_seq_num gaps); plat.full makes the back
 * end report "full" so barectf discards events and counts them.
 * Include the generated "barectf.h" (prefix barectf_) first.
 */
#ifndef PLAT_H
#define PLAT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct plat {
	FILE *out;
	uint64_t clock;
	int full;
	unsigned long packet_index;
	const char *drop; /* ",3,7," */
	uint8_t *buf;
	uint32_t buf_size;
	void *ctx;
	void (*open)(void *ctx);  /* calls barectf_<dst>_open_packet() */
	void (*close)(void *ctx); /* calls barectf_<dst>_close_packet() */
};

static uint64_t plat_clock(void *data)
{
	return ((struct plat *)data)->clock;
}

static int plat_is_full(void *data)
{
	return ((struct plat *)data)->full;
}

static void plat_open(void *data)
{
	struct plat *p = data;

	p->open(p->ctx);
}

static void plat_write(struct plat *p)
{
	char key[32];

	snprintf(key, sizeof(key), ",%lu,", p->packet_index);
	if (!p->drop || !strstr(p->drop, key)) {
		fwrite(barectf_packet_buf(p->ctx), 1,
		       barectf_packet_size(p->ctx) / 8, p->out);
	}
	p->packet_index++;
}

static void plat_close(void *data)
{
	struct plat *p = data;

	p->close(p->ctx);
	plat_write(p);
}

/* Creates the stream file @path (exits on failure) and ties @p to the
 * generated context @ctx with a @size-byte packet buffer; barectf_init()
 * and the first packet are left to the caller. */
static void plat_start(struct plat *p, const char *path, uint32_t size,
		       void *ctx, void (*open)(void *), void (*close)(void *))
{
	p->out = fopen(path, "wb");
	if (!p->out) {
		perror(path);
		exit(1);
	}
	p->buf_size = size;
	p->buf = calloc(1, size);
	p->ctx = ctx;
	p->open = open;
	p->close = close;
}

/* Writes the last packet if it holds anything; closes the file. */
static void plat_finish(struct plat *p)
{
	if (barectf_packet_is_open(p->ctx) &&
	    !barectf_packet_is_empty(p->ctx)) {
		plat_close(p);
	}
	fclose(p->out);
	free(p->buf);
}

#endif
