/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the packet decoder on the CTF 2 field classes that
 * have no CTF 1.8 layout (ctf2-fields.c: LEB128 integers, optionals,
 * UTF-16 and UTF-32 strings). The input is a stream file of a fixed
 * CTF 2 trace (fuzz-meta2.h); every message is read, with keep-going,
 * then the stream is scanned and compared (fuzz-packet-body.h).
 */
#include "fuzz-packet-body.h"
#include "fuzz-meta2.h"

static void write_metadata(FILE *f)
{
	fwrite(fuzz_metadata2, 1, sizeof(fuzz_metadata2) - 1, f);
}
