/* SPDX-License-Identifier: MIT */
/* Writer of the "basic" test trace (see mktrace.sh). */
#include "bt.h"
#include "platform.h"

#define CBS(st, clk)                                                           \
	static void st##_open(void *d)                                         \
	{                                                                      \
		bt_##st##_open_packet(((struct plat *)d)->ctx);                \
	}                                                                      \
	static void st##_close(void *d)                                        \
	{                                                                      \
		bt_##st##_close_packet(((struct plat *)d)->ctx);               \
		plat_write(d);                                                 \
	}                                                                      \
	static struct plat *st##_plat(const char *dir, unsigned sz,            \
				      uint64_t step)                           \
	{                                                                      \
		struct plat *p = plat_new(dir, #st, sz, step,                  \
					  sizeof(struct bt_##st##_ctx));       \
		struct bt_platform_callbacks cbs = {                           \
		    .clk##_clock_get_value = plat_clock,                       \
		    .is_backend_full = plat_full,                              \
		    .open_packet = st##_open,                                  \
		    .close_packet = st##_close,                                \
		};                                                             \
		bt_init(p->ctx, p->buf, sz, cbs, p);                           \
		bt_##st##_open_packet(p->ctx);                                 \
		return p;                                                      \
	}

CBS(main, clk)
CBS(aux, clk)

int main(int argc, char **argv)
{
	struct plat *m = main_plat(argv[1], 512, 10);
	struct plat *a = aux_plat(argv[1], 256, 37);
	struct bt_main_ctx *mc = m->ctx;
	struct bt_aux_ctx *ac = a->ctx;
	long n = atol(argv[2]), i;
	static const char *names[] = {"", "alpha", "with \"quotes\" and \\",
				      "x"};

	(void)argc;
	for (i = 0; i < n; i++) {
		uint8_t seq[4] = {(uint8_t)i, 2, 3, 4};
		uint16_t arr[3] = {(uint16_t)i, 100, 65535};

		if (i == n / 3) {
			m->full = 40; /* back end full: events discarded */
		}
		if (i == n / 2) {
			m->skip_next = 1; /* one packet lost */
		}
		switch (i % 3) {
		case 0:
			bt_main_trace_ints(mc, i, i * 3, i * 100000,
					   (uint64_t)i << 40, -(int)(i % 100),
					   -i * 1000003, i % 32,
					   (int)(i % 8) - 4, i * 5);
			break;
		case 1:
			bt_main_trace_things(mc, i % 7, i / 3.0f, -i / 7.0,
					     names[i % 4], arr, i % 5, seq);
			break;
		default:
			bt_main_trace_empty(mc);
			break;
		}
		if (i % 4 == 0) {
			bt_aux_trace_tick(ac, -i);
		}
	}
	main_close(m);
	aux_close(a);
	fclose(m->f);
	fclose(a->f);
	return 0;
}
