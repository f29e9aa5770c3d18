/* SPDX-License-Identifier: MIT */
/*
 * The test producers' metadata loader (C99, no hetrace library: they
 * build like a firmware, with the runtime sources only): reads at most
 * 1 MiB of @path, or exits 1 with a message.
 */
#ifndef HT_TESTS_COLLECT_READ_FILE_H
#define HT_TESTS_COLLECT_READ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static char *read_file(const char *path, uint32_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 20);
	size_t n;

	if (!f || !buf) {
		perror(path);
		exit(1);
	}
	n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	*len = (uint32_t)n;
	return buf;
}

#endif
