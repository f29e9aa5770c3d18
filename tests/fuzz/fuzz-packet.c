/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the packet decoder. The input is a stream file of a
 * fixed trace (fuzz-meta.h); every message is read, with keep-going.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctf-reader.h"
#include "error.h"
#include "fuzz-meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void setup(void)
{
	char path[128];
	FILE *f;

	if (mkdtemp(strcpy(path, "/tmp/ht-fuzz-XXXXXX")) == NULL) {
		abort();
	}
	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	if (!f) {
		abort();
	}
	fputs(fuzz_metadata, f);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ht_ctf_open_opts opts = {.flags = HT_CTF_KEEP_GOING};
	const char *paths[1];
	struct ht_ctf_set *set;
	struct ht_ctf_msg msg;
	char path[128], err[512];
	FILE *f;
	int ret, n = 0;

	if (!dir[0]) {
		setup();
	}
	snprintf(path, sizeof(path), "%s/stream", dir);
	f = fopen(path, "wb");
	if (!f) {
		abort();
	}
	fwrite(data, 1, size, f);
	fclose(f);
	paths[0] = dir;
	if (ht_ctf_set_open(&set, paths, 1, &opts, err, sizeof(err))) {
		return 0;
	}
	while ((ret = ht_ctf_set_next(set, &msg)) != HT_EEOF && n < 100000) {
		n++;
	}
	ht_ctf_set_close(set);
	return 0;
}
