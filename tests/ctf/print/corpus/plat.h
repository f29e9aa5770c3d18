/* SPDX-License-Identifier: MIT */
/*
 * A file-backed barectf platform for the print test corpus: every closed
 * packet is appended to a stream file, except the packets listed in
 * PLAT_DROP (lost packets: packet_seq_num gaps); plat.full makes the back
 * end report "full" so barectf discards events and counts them.
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
	void (*open)(void *ctx);
	void (*close)(void *ctx);
	uint8_t *(*packet_buf)(const void *ctx);
	uint32_t (*packet_size)(const void *ctx);
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
		fwrite(p->packet_buf(p->ctx), 1, p->packet_size(p->ctx) / 8,
		       p->out);
	}
	p->packet_index++;
}

static void plat_close(void *data)
{
	struct plat *p = data;

	p->close(p->ctx);
	plat_write(p);
}

#endif
