/* SPDX-License-Identifier: MIT */
/*
 * Writes the print benchmark's barectf trace (bench.yaml).
 * usage: bench OUT_STREAM_FILE N_EVENTS
 */
#include "barectf.h"
#include "plat.h"

static void open_core(void *ctx)
{
	barectf_core_open_packet(ctx);
}

static void close_core(void *ctx)
{
	barectf_core_close_packet(ctx);
}

int main(int argc, char **argv)
{
	static struct barectf_core_ctx ctx;
	static const char *const msgs[] = {"sensor read", "buffer ready",
					   "timeout on dma channel 2", "ok"};
	const struct barectf_platform_callbacks cbs = {
	    .default_clock_get_value = plat_clock,
	    .is_backend_full = plat_is_full,
	    .open_packet = plat_open,
	    .close_packet = plat_close,
	};
	struct plat p = {0};
	unsigned long n, i;
	uint32_t seed = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: bench OUT N_EVENTS\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 0);
	plat_start(&p, argv[1], 65536, &ctx, open_core, close_core);
	p.clock = 1700000000000000000ull;
	barectf_init(&ctx, p.buf, p.buf_size, cbs, &p);
	open_core(&ctx);
	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p.clock += 100 + (seed >> 20);
		switch (i % 8) {
		case 0:
		case 3:
			barectf_core_trace_task_switch(&ctx, 0, seed >> 24,
						       seed >> 16 & 0xff,
						       (seed >> 8) % 3);
			break;
		case 1:
		case 4:
		case 6:
			barectf_core_trace_isr_enter(&ctx, 0, seed >> 27,
						     0x8000000 | (seed >> 8));
			break;
		case 2:
		case 5:
		case 7:
			barectf_core_trace_isr_exit(&ctx, 0, seed >> 27);
			break;
		}
		if (i % 64 == 63) {
			barectf_core_trace_log(&ctx, 0, (int8_t)(seed >> 24),
					       msgs[(seed >> 4) % 4]);
		}
	}
	plat_finish(&p);
	return 0;
}
