/* SPDX-License-Identifier: MIT */
/*
 * A file platform for test programs that drive code `hetrace gen` made
 * from a config whose data stream type is `core` with a core_id
 * (tests/export/board.c, tests/analysis/paths/mktrace.c): one stream file
 * per core, each packet written when it closes, the clock read from
 * core_clock_ns (set by the program before each event, so the trace
 * holds exactly its times), the back end never full.
 * Include "barectf.h" first and define CORE_PACKET_SIZE (bytes) and
 * CORE_MAX (cores) before including this file.
 */
#ifndef HT_TESTS_CORE_STREAMS_H
#define HT_TESTS_CORE_STREAMS_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct core {
	struct barectf_core_ctx ctx;
	uint8_t buf[CORE_PACKET_SIZE];
	int fd;
	bool used;
};

static struct core cores[CORE_MAX];
static uint64_t core_clock_ns;

static uint64_t core_clock_cb(void *data)
{
	(void)data;
	return core_clock_ns;
}

static int core_full_cb(void *data)
{
	(void)data;
	return 0;
}

static void core_open_cb(void *data)
{
	barectf_core_open_packet(&((struct core *)data)->ctx);
}

static void core_close_cb(void *data)
{
	struct core *c = data;

	barectf_core_close_packet(&c->ctx);
	if (write(c->fd, c->buf, CORE_PACKET_SIZE) != CORE_PACKET_SIZE) {
		perror("write");
		exit(1);
	}
}

/* Core @id (below CORE_MAX): at its first use, its stream file
 * DIR/PREFIX<id> is created and its first packet opened. */
static struct core *core_stream(unsigned id, const char *dir,
				const char *prefix)
{
	struct barectf_platform_callbacks cbs = {
	    .clk_clock_get_value = core_clock_cb,
	    .is_backend_full = core_full_cb,
	    .open_packet = core_open_cb,
	    .close_packet = core_close_cb,
	};
	struct core *c = &cores[id];
	char path[4096];

	if (c->used) {
		return c;
	}
	snprintf(path, sizeof(path), "%s/%s%u", dir, prefix, id);
	c->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (c->fd < 0) {
		perror(path);
		exit(1);
	}
	barectf_init(&c->ctx, c->buf, CORE_PACKET_SIZE, cbs, c);
	barectf_set_core_id(&c->ctx, id);
	core_open_cb(c);
	c->used = true;
	return c;
}

/* Writes every core's last packet if it holds anything; closes the
 * files. */
static void core_streams_close(void)
{
	unsigned i;

	for (i = 0; i < CORE_MAX; i++) {
		struct core *c = &cores[i];

		if (!c->used) {
			continue;
		}
		if (barectf_packet_is_open(&c->ctx) &&
		    !barectf_packet_is_empty(&c->ctx)) {
			core_close_cb(c);
		}
		close(c->fd);
	}
}

#endif
