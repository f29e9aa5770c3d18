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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct file_platform {
	FILE *f;
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

	return fp->max_packets && fp->packets >= fp->max_packets;
}

static inline void fp_write(struct file_platform *fp)
{
	if (fwrite(fp->buf, 1, fp->size, fp->f) != fp->size) {
		perror("fwrite");
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

static inline void fp_start(struct file_platform *fp, const char *path, uint32_t size,
		     uint64_t step)
{
	fp->f = fopen(path, "wb");
	if (!fp->f) {
		perror(path);
		exit(1);
	}
	fp->buf = calloc(1, size);
	fp->size = size;
	fp->clock = 1000;
	fp->step = step;
}

/* Closes the last packet if it holds anything, as barectf's platforms do. */
static inline void fp_finish(struct file_platform *fp)
{
	if (fp->is_open(fp->ctx) && !fp->is_empty(fp->ctx)) {
		fp->close(fp->ctx);
		fp_write(fp);
	}
	fclose(fp->f);
	free(fp->buf);
}

#endif
