/*
 * Traces known values through the code generated for
 * tests/gen/good/all-types.yaml: hetrace's extensions (nested structures,
 * static arrays of structures, structures and long-named strings in their
 * elements, per-field byte order, bit fields) and every other field type,
 * read back by babeltrace2 through hetrace's metadata.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tracing.h"
#include "platform-file.h"

static struct tr_core_ctx ctx;

static void open_cb(void *c)
{
	tr_core_open_packet(c);
}

static void close_cb(void *c)
{
	tr_core_close_packet(c);
}

int main(int argc, char **argv)
{
	static struct file_platform fp;
	struct tr_platform_callbacks cbs = {
	    fp_clock_get_value,
	    fp_is_backend_full,
	    fp_open_packet,
	    fp_close_packet,
	};
	const struct tr_core_nested_p_corners corners[2] = {{-1, 2},
							    {2147483647, -7}};
	const uint16_t fixed[4] = {1, 2, 65535, 300};
	const uint8_t empty[1] = {0};
	const double dyn[2] = {0.5, -1e10};
	const char *strs[3] = {"a", "", "c \"q\""};
	const uint8_t grid[6] = {1, 2, 3, 4, 5, 6};
	const int8_t vals[3] = {-128, 0, 127};
	const struct tr_core_struct_elems_p_items items[2] = {
	    {1, {7, {-3}}, "first"}, {255, {4000000000u, {127}}, ""}};

	fp_start(&fp, argc > 1 ? argv[1] : "stream", 512, 10);
	fp_bind(&fp, &ctx, open_cb, close_cb, tr_packet_is_empty,
		tr_packet_is_open);
	tr_init(&ctx, fp.buf, 512, cbs, &fp);
	tr_core_open_packet(&ctx);

	tr_trace_integers(&ctx, 3, 1, 127, -4, -9223372036854775807ll - 1,
			  -2048, 65535, 0x1234, 0xdeadbeef, 4000000000u, -2);
	tr_trace_integers(&ctx, 0, 0, 0, 3, 9223372036854775807ll, 2047, 0,
			  0xff00, 1, 0, 32767);
	tr_trace_enums_and_reals(&ctx, 1, 7, -300, 2, -8, 1.5f, -0.25, 3.0f,
				 1e100);
	tr_trace_enums_and_reals(&ctx, 2, 0, 0, 0, -8, 0.0f, 0.0, -1.0f, 2.5);
	tr_trace_strings_and_arrays(&ctx, 4, "hello", "", fixed, empty, 2, dyn,
				    3, strs, 2, grid);
	tr_trace_strings_and_arrays(&ctx, 5, "x", "y", fixed, empty, 0, dyn, 0,
				    strs, 0, grid);
	tr_trace_nested(&ctx, 6, 10, -20, corners, "box", 9, 3, vals);
	tr_trace_nested(&ctx, 7, 0, 0, corners, "", 0, 0, vals);
	tr_trace_struct_elems(&ctx, 8, items);
	fp_finish(&fp);
	return 0;
}
