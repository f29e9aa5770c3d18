/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the collector's ring reader and slot copy. The
 * input is a packet ring region (include/hetrace/packet-ring.h): a
 * header with any magic, sizes, geometry, indices and state, the
 * metadata area, the slots. The collector attaches to it in memory
 * (header validation, the metadata's packet layout), drains it (each
 * slot copied, the copy checked, the loss marker and the sequence
 * shift) into a capture in a temporary directory, and finishes it
 * (the overwrite read-out, the final empty packet). Then every stream
 * file written must be whole: the summary's bytes are the file's size.
 * The seeds are rings of tests/collect/record/producer.c: discard and
 * overwrite, indices near the wrap.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/collect/capture-writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static char cap[96];

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ht_capture_writer_opts opts = {.no_fsync = true};
	struct ht_capture_writer *c;
	uint64_t *mem;
	char err[1024];
	size_t i;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz-ring.XXXXXX");
		if (!mkdtemp(dir)) {
			abort();
		}
		snprintf(cap, sizeof(cap), "%s/cap", dir);
	}
	/* The region, 8-byte aligned as a mapping is. */
	mem = malloc(size / 8u * 8u + 8u);
	if (!mem) {
		return 0;
	}
	memcpy(mem, data, size);
	if (ht_capture_writer_create(&c, cap, &opts, err, sizeof(err))) {
		abort();
	}
	/* Drained twice: the second round finds what is left. */
	if (!ht_capture_writer_add_memory(c, mem, size, NULL, err,
					  sizeof(err))) {
		ht_capture_writer_drain(c, NULL);
		ht_capture_writer_drain(c, NULL);
	}
	ht_capture_writer_finish(c, err, sizeof(err));
	for (i = 0; i < ht_capture_writer_nr_rings(c); i++) {
		struct ht_capture_writer_stats st;
		char path[512];
		struct stat fs;

		ht_capture_writer_stats(c, i, &st);
		snprintf(path, sizeof(path), "%s/%s/%s", cap, st.core_name,
			 st.stream_name);
		if (stat(path, &fs) != 0 || (uint64_t)fs.st_size != st.bytes) {
			abort(); /* the file is not what the summary says */
		}
	}
	ht_capture_writer_destroy(c);
	nftw(cap, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(mem);
	return 0;
}
