/* SPDX-License-Identifier: MIT */
#ifndef HT_TESTS_PLATFORM_FILE_H
#define HT_TESTS_PLATFORM_FILE_H

/*
 * A test platform for generated tracing code, barectf's or hetrace's:
 * packets go to a stream file, the clock is deterministic (it advances
 * by a fixed step at every read, or jumps when the test says so), and
 * the back end can be made "full" after a number of packets to test
 * discarded events. Only the barectf API is used, so the same driver
 * runs against both generators' output.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct file_platform {
	int fd; /* write(2): safe from a signal handler */
	uint8_t *buf;
	uint32_t size;
	void *ctx;
	void (*open)(void *ctx);  /* calls <prefix><dst>_open_packet() */
	void (*close)(void *ctx); /* calls <prefix><dst>_close_packet() */
	uint8_t *(*buf_of)(const void *ctx);
	int (*is_empty)(const void *ctx);
	int (*is_open)(const void *ctx);
	uint64_t clock;
	uint64_t step;
	unsigned packets;
	unsigned max_packets; /* 0: never full */
	volatile int full;    /* the test makes the back end full */
};

static inline uint64_t fp_clock_get_value(void *data)
{
	struct file_platform *fp = data;

	fp->clock += fp->step;
	return fp->clock;
}

static inline uint32_t fp_clock_get_value32(void *data)
{
	return (uint32_t)fp_clock_get_value(data);
}

static inline int fp_is_backend_full(void *data)
{
	struct file_platform *fp = data;

	return fp->full || (fp->max_packets && fp->packets >= fp->max_packets);
}

static inline void fp_write(struct file_platform *fp)
{
	if (write(fp->fd, fp->buf, fp->size) != (ssize_t)fp->size) {
		perror("write");
		exit(1);
	}
	fp->packets++;
}

static inline void fp_open_packet(void *data)
{
	struct file_platform *fp = data;

	fp->open(fp->ctx);
}

static inline void fp_close_packet(void *data)
{
	struct file_platform *fp = data;

	fp->close(fp->ctx);
	fp_write(fp);
}

static inline void fp_start(struct file_platform *fp, const char *path,
			    uint32_t size, uint64_t step)
{
	fp->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fp->fd < 0) {
		perror(path);
		exit(1);
	}
	fp->buf = calloc(1, size);
	fp->size = size;
	fp->clock = 1000;
	fp->step = step;
}

/* Ties @fp to the generated context @ctx: @open and @close call its
 * <prefix><dst>_open_packet() and _close_packet(), @is_empty and @is_open
 * are <prefix>packet_is_empty() and _is_open(). */
static inline void fp_bind(struct file_platform *fp, void *ctx,
			   void (*open)(void *ctx), void (*close)(void *ctx),
			   int (*is_empty)(const void *ctx),
			   int (*is_open)(const void *ctx))
{
	fp->ctx = ctx;
	fp->open = open;
	fp->close = close;
	fp->is_empty = is_empty;
	fp->is_open = is_open;
}

/* Closes the last packet if it holds anything, as barectf's platforms do. */
static inline void fp_finish(struct file_platform *fp)
{
	if (fp->is_open(fp->ctx) && !fp->is_empty(fp->ctx)) {
		fp->close(fp->ctx);
		fp_write(fp);
	}
	close(fp->fd);
	free(fp->buf);
}

#endif
