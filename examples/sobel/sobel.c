/*
 * The Sobel example: the master (core 0) cuts each frame of a synthetic
 * image into stripes; worker cores (threads) filter them. Every core
 * traces into its own stream context with the generated tracepoints; the
 * packets go to one stream file per core.
 *
 *   sobel TRACE_DIR [FRAMES]
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sobel-trace.h"

#define WIDTH 256
#define HEIGHT 192
#define WORKERS 3
#define PACKET_SIZE 4096

struct core {
	struct sobel_core_ctx ctx;
	uint8_t buf[PACKET_SIZE];
	FILE *out;
	unsigned id;
	pthread_t thread;
	unsigned frame, stripe; /* the work handed to this core */
	uint32_t edges;
	int has_work, done;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static uint8_t image[HEIGHT][WIDTH];
static uint8_t edges[HEIGHT][WIDTH];
static struct core cores[WORKERS + 1];

static uint64_t mono_ns(void *data)
{
	struct timespec ts;

	(void)data;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int never_full(void *data)
{
	(void)data;
	return 0;
}

static void open_packet(void *data)
{
	struct core *c = data;

	sobel_core_open_packet(&c->ctx);
}

static void close_packet(void *data)
{
	struct core *c = data;

	sobel_core_close_packet(&c->ctx);
	if (fwrite(c->buf, 1, PACKET_SIZE, c->out) != PACKET_SIZE) {
		perror("fwrite");
		exit(1);
	}
}

static void core_start(struct core *c, unsigned id, const char *dir)
{
	struct sobel_platform_callbacks cbs = {mono_ns, never_full, open_packet,
					       close_packet};
	char path[512];

	snprintf(path, sizeof(path), "%s/core%u", dir, id);
	c->out = fopen(path, "wb");
	if (!c->out) {
		perror(path);
		exit(1);
	}
	c->id = id;
	sobel_init(&c->ctx, c->buf, PACKET_SIZE, cbs, c);
	sobel_set_core_id(&c->ctx, id);
	sobel_core_open_packet(&c->ctx);
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
}

static void core_stop(struct core *c)
{
	if (sobel_packet_is_open(&c->ctx) && !sobel_packet_is_empty(&c->ctx)) {
		close_packet(c);
	}
	fclose(c->out);
}

static uint32_t filter_stripe(unsigned stripe)
{
	unsigned rows = HEIGHT / WORKERS;
	unsigned y0 = stripe * rows, y, x;
	uint32_t n = 0;

	for (y = y0 ? y0 : 1; y < y0 + rows && y < HEIGHT - 1; y++) {
		for (x = 1; x < WIDTH - 1; x++) {
			int gx = image[y - 1][x + 1] + 2 * image[y][x + 1] +
				 image[y + 1][x + 1] - image[y - 1][x - 1] -
				 2 * image[y][x - 1] - image[y + 1][x - 1];
			int gy = image[y + 1][x - 1] + 2 * image[y + 1][x] +
				 image[y + 1][x + 1] - image[y - 1][x - 1] -
				 2 * image[y - 1][x] - image[y - 1][x + 1];
			int g = abs(gx) + abs(gy);

			edges[y][x] = (uint8_t)(g > 255 ? 255 : g);
			n += g > 128;
		}
	}
	return n;
}

static void *worker(void *arg)
{
	struct core *c = arg;

	for (;;) {
		pthread_mutex_lock(&c->lock);
		while (!c->has_work && !c->done) {
			pthread_cond_wait(&c->cond, &c->lock);
		}
		if (c->done && !c->has_work) {
			pthread_mutex_unlock(&c->lock);
			return NULL;
		}
		pthread_mutex_unlock(&c->lock);

		sobel_trace_stripe_begin(&c->ctx, c->frame, (uint16_t)c->stripe,
					 HEIGHT / WORKERS);
		c->edges = filter_stripe(c->stripe);
		sobel_trace_stripe_end(&c->ctx, c->frame, (uint16_t)c->stripe,
				       c->edges);

		pthread_mutex_lock(&c->lock);
		c->has_work = 0;
		pthread_cond_broadcast(&c->cond);
		pthread_mutex_unlock(&c->lock);
	}
}

int main(int argc, char **argv)
{
	unsigned frames = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
	unsigned f, i, x, y;

	if (argc < 2) {
		fprintf(stderr, "usage: sobel TRACE_DIR [FRAMES]\n");
		return 2;
	}
	for (i = 0; i <= WORKERS; i++) {
		core_start(&cores[i], i, argv[1]);
	}
	for (i = 1; i <= WORKERS; i++) {
		pthread_create(&cores[i].thread, NULL, worker, &cores[i]);
	}
	for (f = 0; f < frames; f++) {
		uint64_t t0 = mono_ns(NULL), lat;

		/* A moving pattern: every frame has different edges. */
		for (y = 0; y < HEIGHT; y++) {
			for (x = 0; x < WIDTH; x++) {
				image[y][x] =
				    (uint8_t)(((x + f * 7) / 16 + y / 16) % 2
						  ? 200
						  : 30);
			}
		}
		sobel_trace_frame_begin(&cores[0].ctx, f, WORKERS);
		for (i = 1; i <= WORKERS; i++) {
			pthread_mutex_lock(&cores[i].lock);
			cores[i].frame = f;
			cores[i].stripe = i - 1;
			cores[i].has_work = 1;
			pthread_cond_broadcast(&cores[i].cond);
			pthread_mutex_unlock(&cores[i].lock);
		}
		for (i = 1; i <= WORKERS; i++) {
			pthread_mutex_lock(&cores[i].lock);
			while (cores[i].has_work) {
				pthread_cond_wait(&cores[i].cond,
						  &cores[i].lock);
			}
			pthread_mutex_unlock(&cores[i].lock);
		}
		lat = mono_ns(NULL) - t0;
		sobel_trace_frame_end(&cores[0].ctx, f, lat,
				      lat > 2000000 ? "late" : "ok");
	}
	for (i = 1; i <= WORKERS; i++) {
		pthread_mutex_lock(&cores[i].lock);
		cores[i].done = 1;
		pthread_cond_broadcast(&cores[i].cond);
		pthread_mutex_unlock(&cores[i].lock);
		pthread_join(cores[i].thread, NULL);
	}
	for (i = 0; i <= WORKERS; i++) {
		core_stop(&cores[i]);
	}
	printf("traced %u frames on %u cores into %s\n", frames, WORKERS + 1,
	       argv[1]);
	return 0;
}
