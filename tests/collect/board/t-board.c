/* SPDX-License-Identifier: MIT */
/*
 * The board file reader's model (host/collect/board.h): defaults, every
 * region kind and doorbell as read, placeholders in the middle of a
 * scalar, the master found, sizes with suffixes, and the text kept for
 * CAPTURE/board.yaml. The refusals are tests/collect/board/
 * test-board-errors.sh's.
 */
#include <signal.h>
#include <string.h>

#include "common/error.h"
#include "host/collect/board.h"
#include "tests/check.h"

static const char text[] =
    "board: t\n"
    "regions:\n"
    "  shm0: {shm: \"/ht-${RUN}\", size: 64M}\n"
    "  ram: {file: /tmp/ram, offset: 8M, size: 4K}\n"
    "  ocm: {devmem: \"${OCM}\", size: 256K}\n"
    "  ipi: {uio: /dev/uio0, map: 2, size: 4K}\n"
    "ring-directory: {region: ocm, offset: 0x1000}\n"
    "cores:\n"
    "  - name: dsp\n"
    "    role: slave\n"
    "    id: 7\n"
    "    ring: directory\n"
    "    doorbell: {mmio: {region: ipi, offset: 0x10, width: 16, value: "
    "0xabcd}}\n"
    "  - {name: arm0, role: master, ring: {region: shm0, offset: 1M, size: "
    "1M}}\n"
    "  - name: m4\n"
    "    role: slave\n"
    "    output: cm4\n"
    "    ring: {region: shm0, offset: 0, size: 64K}\n"
    "    mailbox: {region: ram, offset: 0x100}\n"
    "    doorbell: {signal: {pid: 42, signal: SIGRTMIN+1, pin-away: yes}}\n"
    "  - name: uart\n"
    "    role: slave\n"
    "    ring: {region: shm0, offset: 64K, size: 64K}\n"
    "    mailbox: {region: shm0, offset: 2M}\n"
    "    doorbell: {socket: {connect: \"[::1]:4000\", byte: 0x7e}}\n";

int main(void)
{
	static const char *const defines[] = {"RUN=abc", "OCM=0xfffc0000",
					      NULL};
	static const char *const none[] = {NULL};
	struct ht_board *b = NULL;
	char err[512], bell[128];
	int ret;

	ret = ht_board_load_text("t.yaml", text, sizeof(text) - 1, defines, &b,
				 err, sizeof(err));
	REQUIRE(ret == 0 && b);
	CHECK_STR(b->name, "t");
	REQUIRE(b->nr_regions == 4 && b->nr_cores == 4);
	CHECK_STR(b->regions[0].path, "/ht-abc");
	CHECK(b->regions[0].kind == HT_BOARD_REGION_SHM &&
	      b->regions[0].size == 64u << 20);
	CHECK(b->regions[1].kind == HT_BOARD_REGION_FILE &&
	      b->regions[1].offset == 8u << 20 && b->regions[1].size == 4096);
	CHECK(b->regions[2].kind == HT_BOARD_REGION_DEVMEM &&
	      b->regions[2].offset == 0xfffc0000u);
	CHECK_STR(b->regions[2].path, "/dev/mem");
	CHECK(b->regions[3].kind == HT_BOARD_REGION_UIO &&
	      b->regions[3].map == 2);
	CHECK(b->has_directory && b->directory.region == 2 &&
	      b->directory.offset == 0x1000);
	/* The master is the second core; the sync defaults. */
	CHECK(b->master == 1 && b->sync.reference == 1);
	CHECK(b->sync.period_ns == 10000000u &&
	      b->sync.timeout_ns == 100000000u && b->sync.burst == 4 &&
	      b->sync.stall_ns == 2000000000u);
	CHECK(b->cores[0].ring_kind == HT_BOARD_RING_DIRECTORY &&
	      b->cores[0].has_id && b->cores[0].id == 7 &&
	      !b->cores[0].has_mailbox);
	CHECK_STR(ht_board_doorbell_describe(b, 0, bell, sizeof(bell)),
		  "mmio 16-bit write of 0xabcd at ipi+0x10");
	CHECK(b->cores[1].ring_kind == HT_BOARD_RING_PLACE &&
	      b->cores[1].ring.offset == 1u << 20);
	CHECK_STR(b->cores[2].output, "cm4");
	CHECK_STR(b->cores[1].output, "arm0");
	CHECK(b->cores[2].doorbell.signo == SIGRTMIN + 1 &&
	      b->cores[2].doorbell.pin_away && b->cores[2].doorbell.pid == 42);
	CHECK(b->cores[2].mailbox.region == 1 &&
	      b->cores[2].mailbox.offset == 0x100);
	CHECK_STR(b->cores[3].doorbell.host, "[::1]");
	CHECK(b->cores[3].doorbell.port == 4000 &&
	      b->cores[3].doorbell.byte == 0x7e);
	/* The text as given, placeholders kept. */
	CHECK(b->text_len == sizeof(text) - 1 && !strcmp(b->text, text));
	ht_board_free(b);

	/* Without the defines: the first placeholder, at its position. */
	ret = ht_board_load_text("t.yaml", text, sizeof(text) - 1, none, &b,
				 err, sizeof(err));
	CHECK(ret == HT_ECONFIG && !b);
	CHECK_MSG(strstr(err, "t.yaml:3:15: ") &&
		      strstr(err, "placeholder ${RUN} is not defined"),
		  "%s", err);
	/* A define that is no NAME=VALUE. */
	{
		static const char *const badd[] = {"=1", NULL};

		ret = ht_board_load_text("t.yaml", text, sizeof(text) - 1, badd,
					 &b, err, sizeof(err));
		CHECK(ret == HT_EINVAL && !b);
	}
	return check_summary("t-board");
}
