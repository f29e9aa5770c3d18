/* SPDX-License-Identifier: MIT */
/* Writer of the "be16" test trace (see mktrace.sh). */
#include "bt.h"
#include "platform.h"

static void core_open(void *d)
{
	bt_core_open_packet(((struct plat *)d)->ctx);
}

static void core_close(void *d)
{
	bt_core_close_packet(((struct plat *)d)->ctx);
	plat_write(d);
}

int main(int argc, char **argv)
{
	struct plat *c =
	    plat_new(argv[1], "core0", 256, 9000, sizeof(struct bt_core_ctx));
	struct bt_platform_callbacks cbs = {
	    .mhz_clock_get_value = plat_clock,
	    .is_backend_full = plat_full,
	    .open_packet = core_open,
	    .close_packet = core_close,
	};
	struct bt_core_ctx *cc = c->ctx;
	long n = atol(argv[2]), i;

	(void)argc;
	bt_init(cc, c->buf, 256, cbs, c);
	bt_core_open_packet(cc);
	for (i = 0; i < n; i++) {
		if (i % 2) {
			bt_core_trace_small(cc, i % 128, (int)(i % 8000) - 4000,
					    i * 7);
		} else {
			bt_core_trace_text(cc, i % 10 ? "hello" : "");
		}
	}
	core_close(c);
	fclose(c->f);
	return 0;
}
