/*
 * Runtime behaviour, one mode per run (tests/gen/test-runtime.sh):
 *   rt MODE STREAM_FILE [AUX_FILE]
 * Prints what it traced on stdout as "key value" lines for the test to
 * compare with what babeltrace2 reads back.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "barectf.h"
#include "platform-file.h"

static struct barectf_main_ctx ctx;
static struct file_platform fp;
static volatile sig_atomic_t isr_calls;
static int nested_every; /* the clock traces an `isr` event every Nth read */
static unsigned clock_reads;

static void open_cb(void *c)
{
	barectf_main_open_packet(c);
}

static void close_cb(void *c)
{
	barectf_main_close_packet(c);
}

static void aux_open_cb(void *c)
{
	barectf_aux_open_packet(c);
}

static void aux_close_cb(void *c)
{
	barectf_aux_close_packet(c);
}

/* A clock whose callback traces: the nested call must be dropped. */
static uint32_t nesting_clock(void *data)
{
	if (nested_every && ++clock_reads % nested_every == 0) {
		isr_calls++;
		barectf_trace_isr(&ctx, clock_reads);
	}
	return fp_clock_get_value32(data);
}

static void on_alarm(int sig)
{
	(void)sig;
	isr_calls++;
	barectf_trace_isr(&ctx, (uint32_t)isr_calls);
}

static void start(const char *path, uint32_t size, uint64_t step)
{
	struct barectf_platform_callbacks cbs = {
	    nesting_clock,
	    fp_is_backend_full,
	    fp_open_packet,
	    fp_close_packet,
	};

	fp_start(&fp, path, size, step);
	fp_bind(&fp, &ctx, open_cb, close_cb, barectf_packet_is_empty,
		barectf_packet_is_open);
	barectf_init(&ctx, fp.buf, size, cbs, &fp);
	barectf_main_open_packet(&ctx);
}

int main(int argc, char **argv)
{
	const char *mode = argv[1];
	uint32_t i;

	if (argc < 3) {
		return 2;
	}
	if (!strcmp(mode, "wrap")) {
		/* Wraps the 32-bit counter every 4 reads; every record
		 * needs the extended header. */
		start(argv[2], 4096, ((uint64_t)1 << 30) + 7);
		for (i = 0; i < 20; i++) {
			barectf_trace_tick(&ctx, i);
		}
		printf("traced 20\n");
	} else if (!strcmp(mode, "discard")) {
		start(argv[2], 128, 10);
		for (i = 0; i < 100; i++) {
			fp.full = i >= 30 && i < 60;
			barectf_trace_tick(&ctx, i);
		}
		fp.full = 0;
		printf("traced 100\n");
	} else if (!strcmp(mode, "nested")) {
		start(argv[2], 256, 10);
		nested_every = 3;
		for (i = 0; i < 60; i++) {
			barectf_trace_tick(&ctx, i);
		}
		nested_every = 0;
		printf("traced 60\nnested %d\n", (int)isr_calls);
	} else if (!strcmp(mode, "signal")) {
		struct sigaction sa;
		struct itimerval it = {{0, 50}, {0, 50}};

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		sigaction(SIGALRM, &sa, NULL);
		start(argv[2], 4096, 3);
		setitimer(ITIMER_REAL, &it, NULL);
		for (i = 0; i < 2000000; i++) {
			barectf_trace_tick(&ctx, i);
		}
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
		printf("traced 2000000\nisr %d\n", (int)isr_calls);
	} else if (!strcmp(mode, "disable")) {
		start(argv[2], 4096, 10);
		for (i = 0; i < 30; i++) {
			barectf_enable_tracing(&ctx, i < 10 || i >= 20);
			barectf_trace_tick(&ctx, i);
		}
		barectf_enable_tracing(&ctx, 1);
		printf("traced 20\n");
	} else if (!strcmp(mode, "toobig")) {
		uint8_t blob[300] = {0};

		start(argv[2], 256, 10);
		barectf_trace_tick(&ctx, 1);
		barectf_trace_big(&ctx, blob);
		barectf_trace_tick(&ctx, 2);
		printf("traced 2\n");
	} else {
		return 2;
	}
	fp_finish(&fp);

	if (argc > 3) {
		/* The clockless stream: ids only in the header. */
		static struct barectf_aux_ctx aux;
		static struct file_platform afp;
		struct barectf_platform_callbacks cbs = {
		    fp_clock_get_value32,
		    fp_is_backend_full,
		    fp_open_packet,
		    fp_close_packet,
		};

		fp_start(&afp, argv[3], 64, 1);
		fp_bind(&afp, &aux, aux_open_cb, aux_close_cb,
			barectf_packet_is_empty, barectf_packet_is_open);
		barectf_init(&aux, afp.buf, 64, cbs, &afp);
		barectf_aux_open_packet(&aux);
		for (i = 0; i < 40; i++) {
			barectf_aux_trace_note(&aux, (uint16_t)(i * 1000));
		}
		fp_finish(&afp);
	}
	return 0;
}
