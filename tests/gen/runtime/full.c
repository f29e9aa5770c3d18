/*
 * A back end that fills and stays full (tests/gen/test-full-backend.sh):
 *   full STREAM_FILE N MAX_PACKETS
 * traces ticks 0..N-1 in 256-byte packets into a back end that takes
 * MAX_PACKETS packets. The platform keeps room for one more: at the
 * end, when records were discarded and no packet is open, it writes an
 * empty packet whose events_discarded carries the final count. Built
 * against hetrace's and barectf's output alike.
 */
#include <stdio.h>
#include <stdlib.h>

#include "barectf.h"
#include "platform-file.h"

static struct barectf_main_ctx ctx;
static struct file_platform fp;

static void open_cb(void *c)
{
	barectf_main_open_packet(c);
}

static void close_cb(void *c)
{
	barectf_main_close_packet(c);
}

int main(int argc, char **argv)
{
	struct barectf_platform_callbacks cbs = {
	    fp_clock_get_value32,
	    fp_is_backend_full,
	    fp_open_packet,
	    fp_close_packet,
	};
	unsigned i, n;

	if (argc < 4) {
		return 2;
	}
	n = (unsigned)atoi(argv[2]);
	fp_start(&fp, argv[1], 256, 10);
	fp.max_packets = (unsigned)atoi(argv[3]);
	fp_bind(&fp, &ctx, open_cb, close_cb, barectf_packet_is_empty,
		barectf_packet_is_open);
	barectf_init(&ctx, fp.buf, 256, cbs, &fp);
	barectf_main_open_packet(&ctx);
	for (i = 0; i < n; i++) {
		barectf_trace_tick(&ctx, i);
	}
	/* The kept room: the final count reaches the trace. */
	if (!barectf_packet_is_open(&ctx) &&
	    barectf_packet_events_discarded(&ctx) > 0) {
		barectf_main_open_packet(&ctx);
		fp_close_packet(&fp);
	}
	fp_finish(&fp);
	printf("traced %u\ndiscarded %u\n", n,
	       (unsigned)barectf_packet_events_discarded(&ctx));
	return 0;
}
