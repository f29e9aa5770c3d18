#define _POSIX_C_SOURCE 199309L
/*
 * Tracepoint cost, built against barectf's or hetrace's output for
 * config.yaml (the same source: only the barectf API is used).
 *
 *   bench MODE N [FILE]
 *   MODE: one | four      N events through the API, clock callback
 *                         counting up (for instruction counts)
 *         rdtsc-one       N events, rdtsc clock callback; prints ns/event
 *         rdtsc-inline    the same with hetrace's compile-time clock
 *         floor           rdtsc plus a 16-byte store; prints ns/event
 *         bytes           N one-uint32 events into FILE (the stream)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

static inline uint64_t bench_rdtsc_clock(void *data)
{
	(void)data;
	return __rdtsc();
}

#ifdef BENCH_INLINE_CLOCK
#define HT_CLOCK_DEFAULT_FN bench_rdtsc_clock
#endif
#include "barectf.h"

#define PACKET_SIZE 65536

static struct barectf_default_ctx ctx;
static uint8_t buf[PACKET_SIZE];
static uint64_t counter;
static FILE *out;
volatile uint64_t bench_sink[2 * 1024];

static uint64_t count_clock(void *data)
{
	return ++*(uint64_t *)data;
}

static uint64_t tsc_clock(void *data)
{
	(void)data;
	return __rdtsc();
}

static int never_full(void *data)
{
	(void)data;
	return 0;
}

static void open_cb(void *data)
{
	(void)data;
	barectf_default_open_packet(&ctx);
}

static void close_cb(void *data)
{
	(void)data;
	barectf_default_close_packet(&ctx);
	if (out && fwrite(buf, 1, PACKET_SIZE, out) != PACKET_SIZE) {
		exit(1);
	}
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void setup(uint64_t (*clock)(void *))
{
	struct barectf_platform_callbacks cbs = {clock, never_full, open_cb,
						 close_cb};

	barectf_init(&ctx, buf, PACKET_SIZE, cbs, &counter);
	barectf_default_open_packet(&ctx);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "one";
	long n = argc > 2 ? atol(argv[2]) : 1000000;
	long i;
	double t0, best = 1e30;
	int rep;

	if (!strcmp(mode, "one") || !strcmp(mode, "four")) {
		setup(count_clock);
		if (mode[0] == 'o') {
			for (i = 0; i < n; i++) {
				barectf_trace_one_u32(&ctx, (uint32_t)i);
			}
		} else {
			for (i = 0; i < n; i++) {
				barectf_trace_four_u32(&ctx, (uint32_t)i, 2, 3,
						       (uint32_t)i);
			}
		}
		return 0;
	}
	if (!strcmp(mode, "bytes")) {
		out = fopen(argv[3], "wb");
		if (!out) {
			return 1;
		}
		setup(count_clock);
		for (i = 0; i < n; i++) {
			barectf_trace_one_u32(&ctx, (uint32_t)i);
		}
		barectf_default_close_packet(&ctx);
		if (fwrite(buf, 1, PACKET_SIZE, out) != PACKET_SIZE) {
			return 1;
		}
		fclose(out);
		return 0;
	}
	if (!strcmp(mode, "floor")) {
		uint32_t at = 0;

		for (rep = 0; rep < 7; rep++) {
			t0 = now_ns();
			for (i = 0; i < n; i++) {
				uint64_t ts = __rdtsc();

				bench_sink[at] = ts;
				bench_sink[at + 1] = (uint64_t)i;
				at = (at + 2) & (2 * 1024 - 1);
			}
			t0 = (now_ns() - t0) / n;
			best = t0 < best ? t0 : best;
		}
		printf("%.2f\n", best);
		return 0;
	}
	/* rdtsc-one, rdtsc-inline */
	setup(tsc_clock);
	for (rep = 0; rep < 7; rep++) {
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			barectf_trace_one_u32(&ctx, (uint32_t)i);
		}
		t0 = (now_ns() - t0) / n;
		best = t0 < best ? t0 : best;
	}
	(void)bench_rdtsc_clock;
	printf("%.2f\n", best);
	return 0;
}
