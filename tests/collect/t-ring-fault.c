/* SPDX-License-Identifier: MIT */
/*
 * The ring reader's SIGBUS guard (host/collect/packet-ring-reader.h): a
 * ring file truncated under the reader's mapping. The size check sees
 * it first when it can; an access that races with the cut faults, and
 * the fault makes the reader dead with a message naming the file and
 * the offset, instead of killing the process. Here the accesses are
 * made without the size check, so each one faults: a slot copy (the
 * header page still there), then the header itself (file cut to 0).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hetrace/packet-ring.h"
#include "host/collect/packet-ring-reader.h"
#include "tests/check.h"

#define SLOT 4096u
#define SIZE (16u * SLOT)

/* A ring of 3 committed packets in a new file @path; the producer's
 * mapping in *@mem. */
static struct ht_ring *make_ring(const char *path, void **mem)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	struct ht_ring *r;
	int i;

	REQUIRE(fd >= 0);
	REQUIRE(ftruncate(fd, SIZE) == 0);
	*mem = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(*mem != MAP_FAILED);
	close(fd);
	r = ht_ring_init(*mem, SIZE, SLOT, HT_RING_DISCARD, 3, "c", NULL, 0);
	REQUIRE(r != NULL);
	for (i = 0; i < 3; i++) {
		memset(ht_ring_slot(r), i, SLOT);
		ht_ring_commit(r);
	}
	return r;
}

int main(void)
{
	char dir[] = "/tmp/t-ring-fault.XXXXXX", path[64], err[512];
	struct ht_ring_reader *rr;
	uint8_t *buf = malloc(SLOT);
	uint32_t k = 0;
	void *mem;

	REQUIRE(buf && mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ring", dir);

	/* 1. The slots gone, the header page still there. */
	make_ring(path, &mem);
	REQUIRE(ht_ring_reader_open(&rr, path, err, sizeof(err)) == 0);
	CHECK(ht_ring_reader_avail(rr) == 3u);
	CHECK(ht_ring_reader_copy_slot(rr, 0, buf, &k));
	CHECK(buf[0] == 0 && buf[SLOT - 1] == 0);
	REQUIRE(truncate(path, SLOT) == 0);
	CHECK(!ht_ring_reader_copy_slot(rr, 1, buf, &k));
	CHECK(ht_ring_reader_faulted(rr));
	REQUIRE(ht_ring_reader_fault_msg(rr) != NULL);
	CHECK(strstr(ht_ring_reader_fault_msg(rr), path) != NULL);
	/* The copy faults at its first byte: slot 1, at slots_off + SLOT. */
	snprintf(err, sizeof(err), ": offset %u: bus error",
		 ht_ring_reader_info(rr)->slots_off + SLOT);
	CHECK_MSG(strstr(ht_ring_reader_fault_msg(rr), err) != NULL, "%s",
		  ht_ring_reader_fault_msg(rr));
	CHECK(strstr(ht_ring_reader_fault_msg(rr), "the file has 4096 bytes") !=
	      NULL);
	/* Dead: no access any more, nothing waits on it. */
	CHECK(ht_ring_reader_avail(rr) == 0u);
	CHECK(ht_ring_reader_state(rr) == HT_RING_RUNNING);
	CHECK(!ht_ring_reader_check_size(rr));
	ht_ring_reader_close(rr);
	munmap(mem, SIZE);

	/* 2. The whole file gone: the header loads fault too. */
	make_ring(path, &mem);
	REQUIRE(ht_ring_reader_open(&rr, path, err, sizeof(err)) == 0);
	REQUIRE(truncate(path, 0) == 0);
	CHECK(ht_ring_reader_pending(rr) == 0u);
	CHECK(ht_ring_reader_faulted(rr));
	CHECK(strstr(ht_ring_reader_fault_msg(rr), ": offset 96: bus error") !=
	      NULL);
	ht_ring_reader_close(rr);
	munmap(mem, SIZE);

	/* 3. The size check sees a cut before any access. */
	make_ring(path, &mem);
	REQUIRE(ht_ring_reader_open(&rr, path, err, sizeof(err)) == 0);
	CHECK(ht_ring_reader_check_size(rr));
	REQUIRE(truncate(path, SIZE - 8) == 0);
	CHECK(!ht_ring_reader_check_size(rr));
	CHECK(strstr(ht_ring_reader_fault_msg(rr),
		     "offset 65528: the file ends there (65528 bytes), the "
		     "ring needs 65536 bytes") != NULL);
	ht_ring_reader_close(rr);
	munmap(mem, SIZE);

	unlink(path);
	rmdir(dir);
	free(buf);
	return check_summary("t-ring-fault");
}
