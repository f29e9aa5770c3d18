/* SPDX-License-Identifier: MIT */
/*
 * Writes a trace of config multi.yaml: two stream files of data stream
 * type `dsp` (16-bit timestamps that wrap, a discarded-event burst) and
 * one of type `mcu` (a lost packet).
 * usage: multi DIR N_ROUNDS
 */
#include "barectf.h"
#include "plat.h"

static void open_dsp(void *ctx)
{
	barectf_dsp_open_packet(ctx);
}

static void close_dsp(void *ctx)
{
	barectf_dsp_close_packet(ctx);
}

static void open_mcu(void *ctx)
{
	barectf_mcu_open_packet(ctx);
}

static void close_mcu(void *ctx)
{
	barectf_mcu_close_packet(ctx);
}

static const struct barectf_platform_callbacks cbs = {
    .fast_clock_get_value = plat_clock,
    .slow_clock_get_value = plat_clock,
    .is_backend_full = plat_is_full,
    .open_packet = plat_open,
    .close_packet = plat_close,
};

static void start(struct plat *p, void *ctx, const char *dir, const char *name,
		  uint32_t size, void (*open)(void *), void (*close)(void *))
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	plat_start(p, path, size, ctx, open, close);
	barectf_init(ctx, p->buf, size, cbs, p);
	open(ctx);
}

int main(int argc, char **argv)
{
	static struct barectf_dsp_ctx dsp[2];
	static struct barectf_mcu_ctx mcu;
	/* no empty string: babeltrace2 2.0 prints a stale value for it */
	static const char *const names[] = {"fft", "fir \"lp\"", "-", "idle"};
	struct plat pd[2] = {{0}}, pm = {0};
	unsigned long rounds, i;
	uint32_t seed = 777;
	int k;

	if (argc < 3) {
		fprintf(stderr, "usage: multi DIR ROUNDS\n");
		return 2;
	}
	rounds = strtoul(argv[2], NULL, 0);
	pd[0].clock = 5;
	pd[1].clock = 100;
	pm.clock = 1000;
	pm.drop = ",2,";
	start(&pd[0], &dsp[0], argv[1], "dsp_0", 256, open_dsp, close_dsp);
	start(&pd[1], &dsp[1], argv[1], "dsp_1", 512, open_dsp, close_dsp);
	start(&pm, &mcu, argv[1], "mcu_0", 128, open_mcu, close_mcu);
	for (i = 0; i < rounds; i++) {
		for (k = 0; k < 2; k++) {
			seed = seed * 1103515245u + 12345u;
			/* sometimes more than one 16-bit wrap between events */
			pd[k].clock +=
			    (seed >> 10) % (i % 7 == 3 ? 200000 : 3000);
			pd[k].full = k == 0 && i % 50 >= 45;
			barectf_dsp_trace_job_start(&dsp[k], k, i & 0xf,
						    (int16_t)(i % 4096) - 2048,
						    i, names[i % 4]);
			pd[k].clock += 1 + (seed >> 20) % 700;
			barectf_dsp_trace_job_end(
			    &dsp[k], k, (i >> 1) & 0xf, -(int16_t)(i % 2048), i,
			    (int8_t)((int)(seed >> 24) - 128) % 13);
		}
		seed = seed * 1103515245u + 12345u;
		pm.clock += (seed >> 12) % 400000;
		barectf_mcu_trace_irq(&mcu, seed >> 16,
				      (uint64_t)seed << 32 |
					  (seed ^ 0xdeadbeef));
		pm.clock += 1;
		barectf_mcu_trace_tick(&mcu);
	}
	plat_finish(&pd[0]);
	plat_finish(&pd[1]);
	plat_finish(&pm);
	return 0;
}
