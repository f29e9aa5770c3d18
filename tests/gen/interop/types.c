/* Traces known values of every field type (config types.yaml). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "barectf.h"
#include "platform-file.h"

static struct barectf_main_ctx ctx;

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
	static struct file_platform fp;
	struct barectf_platform_callbacks cbs = {
	    fp_clock_get_value,
	    fp_is_backend_full,
	    fp_open_packet,
	    fp_close_packet,
	};
	const uint16_t sa[4] = {1, 2, 65535, 40000};
	const int32_t da[3] = {-1, 0, 2147483647};
	const char *ds[2] = {"first", "second \"quoted\"\n"};
	const uint8_t sb[3] = {7, 0, 5};
	const uint8_t de[4] = {0, 1, 5, 25};
	uint32_t packet = argc > 2 ? (uint32_t)atoi(argv[2]) : 4096;
	int round;

	fp_start(&fp, argc > 1 ? argv[1] : "stream", packet, 10);
	fp_bind(&fp, &ctx, open_cb, close_cb, barectf_packet_is_empty,
		barectf_packet_is_open);
	barectf_init(&ctx, fp.buf, packet, cbs, &fp);
	barectf_main_open_packet(&ctx);

	for (round = 0; round < 3; round++) {
		const char *empty = round ? "x" : "";

		barectf_trace_ints(&ctx, 255, 65535, 4294967295u,
				   18446744073709551615ull, -128, -32768,
				   -2147483647 - 1, -9223372036854775807ll - 1);
		barectf_trace_ints(&ctx, 1, 2, 3, 4, -1, -2, -3,
				   (int64_t)round);
		barectf_trace_bits(&ctx, 5, -16, 4095, 8589934591ull,
				   -1152921504606846976ll, 2);
		barectf_trace_bits(&ctx, 1, 15, 1, 1, 1152921504606846975ll, 7);
		barectf_trace_bases(&ctx, 0xbeef, 0755, 0xa5, -2);
		barectf_trace_enums(&ctx, 0, -5);
		barectf_trace_enums(&ctx, 25, 0);
		barectf_trace_enums(&ctx, 200, 2000);
		barectf_trace_reals(&ctx, 1.5f, -3.25);
		barectf_trace_reals(&ctx, 0.1f, 1e300);
		barectf_trace_strings(&ctx, "hello", 42, empty);
		barectf_trace_strings(&ctx, "tab\there", (uint8_t)round,
				      "caf\xc3\xa9");
		barectf_trace_arrays(&ctx, sa, 3, da, 2, ds, sb, 4, de);
		barectf_trace_arrays(&ctx, sa, 0, da, 0, ds, sb, 0, de);
		barectf_trace_empty(&ctx);
	}
	fp_finish(&fp);
	return 0;
}
