/* SPDX-License-Identifier: MIT */
/*
 * Writes a trace with every barectf field type (config types.yaml).
 * usage: types OUT_STREAM_FILE N_ROUNDS PACKET_SIZE [DROP_LIST]
 */
#include <math.h>

#include "barectf.h"
#include "plat.h"

static void open_main(void *ctx)
{
	static uint16_t extra;

	barectf_main_open_packet(ctx, extra++);
}

static void close_main(void *ctx)
{
	barectf_main_close_packet(ctx);
}

static const char *const strings[] = {
    "",
    "hello",
    "tab\there",
    "new\nline",
    "quote\"back\\slash",
    "utf8 \xc3\xa9t\xc3\xa9",
    "ctrl \x01\x1f\x7f end",
    "\xff\xfe raw",
    "bell\a bs\b ff\f cr\r vt\v esc\x1b",
};

#define STR(k) (i == 0 ? "" : strings[1 + (k) % 8])

static const float floats[] = {
    0.0f,      -0.0f,	     1.0f, -1.5f, 3.14159265f,	   1e-10f,
    1e10f,     123456789.0f, 0.1f, 1e38f, 1.17549435e-38f, 16777216.0f,
    100000.0f, 1234567.0f,
};

static const double doubles[] = {
    0.0,
    -0.0,
    1.0,
    -1.5,
    3.141592653589793,
    1e-10,
    1e10,
    123456789.0,
    0.1,
    1e300,
    2.2250738585072014e-308,
    4.9e-324,
    1e15,
    1e16,
    1e17,
    123456.789,
    0.000123456789,
    1.0 / 3.0,
    2.0 / 3.0,
    100000.0,
    1e6,
    12345678901234567.0,
    5e-5,
    99999.95,
    999999.5,
};

int main(int argc, char **argv)
{
	static struct barectf_main_ctx ctx;
	struct plat p = {0};
	const struct barectf_platform_callbacks cbs = {
	    .default_clock_get_value = plat_clock,
	    .is_backend_full = plat_is_full,
	    .open_packet = plat_open,
	    .close_packet = plat_close,
	};
	unsigned long rounds, i, n;
	uint32_t seed = 12345;
	const char *dstr[3];

	if (argc < 4) {
		fprintf(stderr, "usage: types OUT ROUNDS PACKET_SIZE [DROP]\n");
		return 2;
	}
	rounds = strtoul(argv[2], NULL, 0);
	plat_start(&p, argv[1], strtoul(argv[3], NULL, 0), &ctx, open_main,
		   close_main);
	p.drop = argc > 4 ? argv[4] : NULL;
	p.clock = 1700000000123456789ull;
	barectf_init(&ctx, p.buf, p.buf_size, cbs, &p);
	open_main(&ctx);
	for (i = 0; i < rounds; i++) {
		uint16_t sa[3];
		int32_t da[5];
		uint8_t sa0[1] = {0};
		uint8_t row0[2], row1[2];
		const uint8_t *nested[2] = {row0, row1};
		uint8_t cpu = i % 4;

		seed = seed * 1103515245u + 12345u;
		p.clock += 1 + (seed >> 8) % 5000000;
		/* discard a burst now and then */
		p.full = rounds > 8 && (i % 97) >= 90;
		barectf_main_trace_ints(
		    &ctx, cpu, i, -(int8_t)i, seed >> 16, (int16_t)(seed >> 7),
		    seed, (int32_t)seed, (uint64_t)seed * seed * 7,
		    -(int64_t)seed * seed, i == 0 ? 0 : seed,
		    i == 1 ? 0 : seed >> 9, i == 2 ? 0 : seed >> 24,
		    i == 3 ? INT32_MIN : (int32_t)-i, i % 8,
		    (int8_t)(i % 32) - 16);
		p.clock += 1 + (seed >> 12) % 1000;
		/*
		 * babeltrace2 2.0 prints a stale value for an empty string
		 * when its event object is recycled: empty strings only in
		 * the first event of the class, where both print "".
		 */
		barectf_main_trace_strs(&ctx, cpu, STR(i), STR(i + 3));
		p.clock += 1000000000ull * (i % 3);
		barectf_main_trace_floats(
		    &ctx, cpu,
		    i < sizeof(floats) / sizeof(floats[0])
			? floats[i]
			: (float)(int32_t)seed / (float)(seed >> 20 | 1),
		    i < sizeof(doubles) / sizeof(doubles[0])
			? doubles[i]
			: (double)(int32_t)seed / (double)(seed >> 13 | 1));
		p.clock += 17;
		barectf_main_trace_enums(&ctx, cpu, i % 12,
					 (int16_t)(i % 14) - 11);
		for (n = 0; n < 3; n++) {
			sa[n] = seed >> (n * 4);
			dstr[n] = strings[1 + (i + n) % 8];
		}
		for (n = 0; n < 5; n++) {
			da[n] = (int32_t)(seed << n);
		}
		row0[0] = i;
		row0[1] = i + 1;
		row1[0] = i + 2;
		row1[1] = i + 3;
		barectf_main_trace_arrays(&ctx, cpu, sa, i % 6, da, i % 4, dstr,
					  sa0, nested);
		barectf_main_trace_empty(&ctx, cpu);
	}
	plat_finish(&p);
	return 0;
}
