/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the board file reader (host/collect/board.h). The
 * input is the text of a board file, read with two placeholders defined
 * (${PID} and ${BASE}). A board either loads, and then every index the
 * model holds is within its arrays and every place within its region,
 * or is refused with a "name:line:col: " message. Nothing is opened.
 * The seeds are the boards of docs/board.md and tests/collect/board.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "host/collect/board.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_place(const struct ht_board *b,
			const struct ht_board_place *p, uint64_t len)
{
	if (p->region >= b->nr_regions ||
	    p->offset > b->regions[p->region].size ||
	    len > b->regions[p->region].size - p->offset) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const defines[] = {"PID=1234", "BASE=0x1000", NULL};
	struct ht_board *b = NULL;
	char err[1024], bell[256];
	size_t i;
	int ret;

	ret = ht_board_load_text("fuzz.yaml", (const char *)data, size,
				 defines, &b, err, sizeof(err));
	if (ret) {
		if (b || (ret != HT_ENOMEM && strncmp(err, "fuzz.yaml:", 10))) {
			abort();
		}
		return 0;
	}
	if (b->master >= b->nr_cores ||
	    b->cores[b->master].role != HT_BOARD_MASTER ||
	    b->sync.reference != b->master) {
		abort();
	}
	if (b->has_directory) {
		check_place(b, &b->directory, 0);
	}
	for (i = 0; i < b->nr_cores; i++) {
		const struct ht_board_core *c = &b->cores[i];

		if (c->ring_kind == HT_BOARD_RING_PLACE) {
			check_place(b, &c->ring, c->ring.size);
		}
		if (c->has_mailbox) {
			check_place(b, &c->mailbox, c->mailbox.size);
		}
		if (c->doorbell.kind == HT_BOARD_DOORBELL_MMIO) {
			check_place(b, &c->doorbell.reg, c->doorbell.width / 8);
		}
		if (i != b->master && c->role == HT_BOARD_MASTER) {
			abort();
		}
		ht_board_doorbell_describe(b, i, bell, sizeof(bell));
	}
	ht_board_free(b);
	return 0;
}
