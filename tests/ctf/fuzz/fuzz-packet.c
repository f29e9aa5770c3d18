/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the packet decoder. The input is a stream file of a
 * fixed trace (fuzz-meta.h); every message is read, with keep-going,
 * then the stream is scanned and compared (fuzz-packet-body.h).
 */
#include "fuzz-packet-body.h"
#include "fuzz-meta.h"

static void write_metadata(FILE *f)
{
	fputs(fuzz_metadata, f);
}
