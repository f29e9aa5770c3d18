/* SPDX-License-Identifier: MIT */
/*
 * Writes a large CTF 1.8 trace fast, for the memory checks of the
 * reader (tests/ctf/reader/test-memory.sh, bench/memory.sh): one stream of
 * 64 KiB packets (sequence numbers, begin/end timestamps, content and
 * packet sizes) holding two event types, a fixed-size one and one with
 * a string.
 *
 * usage: bigtrace DIR MEGABYTES
 * DIR gets `metadata` and `stream`; the stream is MEGABYTES MiB.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "le-store.h"

#define PACKET_BYTES 65536u
#define HEADER_BYTES 72u /* packet header (24) + packet context (48) */

static const char metadata[] =
    "/* CTF 1.8 */\n"
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
    "typealias integer { size = 32; align = 32; signed = false; } := "
    "uint32_t;\n"
    "typealias integer { size = 64; align = 64; signed = false; } := "
    "uint64_t;\n"
    "trace {\n"
    "\tmajor = 1;\n"
    "\tminor = 8;\n"
    "\tuuid = \"6b1f3c2e-9a41-4d8e-b0c5-2f7a9e3d1c40\";\n"
    "\tbyte_order = le;\n"
    "\tpacket.header := struct {\n"
    "\t\tuint32_t magic;\n"
    "\t\tuint8_t uuid[16];\n"
    "\t\tuint32_t stream_id;\n"
    "\t};\n"
    "};\n"
    "env {\n"
    "\thostname = \"big\";\n"
    "};\n"
    "clock {\n"
    "\tname = ns;\n"
    "\tfreq = 1000000000;\n"
    "\toffset_s = 1700000000;\n"
    "};\n"
    "typealias integer { size = 64; align = 64; signed = false; "
    "map = clock.ns.value; } := ts_t;\n"
    "stream {\n"
    "\tid = 0;\n"
    "\tevent.header := struct {\n"
    "\t\tuint32_t id;\n"
    "\t\tts_t timestamp;\n"
    "\t};\n"
    "\tpacket.context := struct {\n"
    "\t\tts_t timestamp_begin;\n"
    "\t\tts_t timestamp_end;\n"
    "\t\tuint64_t content_size;\n"
    "\t\tuint64_t packet_size;\n"
    "\t\tuint64_t packet_seq_num;\n"
    "\t\tuint64_t events_discarded;\n"
    "\t};\n"
    "};\n"
    "event {\n"
    "\tname = tick;\n"
    "\tid = 0;\n"
    "\tstream_id = 0;\n"
    "\tfields := struct {\n"
    "\t\tuint32_t cpu;\n"
    "\t\tuint64_t value;\n"
    "\t};\n"
    "};\n"
    "event {\n"
    "\tname = note;\n"
    "\tid = 1;\n"
    "\tstream_id = 0;\n"
    "\tfields := struct {\n"
    "\t\tuint32_t seq;\n"
    "\t\tstring text;\n"
    "\t};\n"
    "};\n";

static const uint8_t uuid[16] = {0x6b, 0x1f, 0x3c, 0x2e, 0x9a, 0x41,
				 0x4d, 0x8e, 0xb0, 0xc5, 0x2f, 0x7a,
				 0x9e, 0x3d, 0x1c, 0x40};

int main(int argc, char **argv)
{
	static uint8_t pkt[PACKET_BYTES];
	char path[4096];
	uint64_t packets, seq, ts = 1000, n = 0;
	FILE *f;

	if (argc != 3 || atol(argv[2]) <= 0) {
		fprintf(stderr, "usage: %s DIR MEGABYTES\n", argv[0]);
		return 2;
	}
	packets = (uint64_t)atol(argv[2]) * (1u << 20) / PACKET_BYTES;
	if (mkdir(argv[1], 0755) && errno != EEXIST) {
		perror(argv[1]);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/metadata", argv[1]);
	f = fopen(path, "w");
	if (!f || fputs(metadata, f) == EOF || fclose(f)) {
		perror(path);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/stream", argv[1]);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		return 1;
	}
	for (seq = 0; seq < packets; seq++) {
		uint64_t begin = ts;
		size_t off = HEADER_BYTES, end = HEADER_BYTES;

		memset(pkt, 0, sizeof(pkt));
		for (;;) {
			char text[32];
			size_t len, need;

			len = (size_t)snprintf(text, sizeof(text), "note %llu",
					       (unsigned long long)n);
			need = n % 4 == 3 ? 16 + 4 + len + 1 : 32;
			if (off + need > PACKET_BYTES) {
				break;
			}
			put32(pkt + off, n % 4 == 3);
			put64(pkt + off + 8, ts);
			if (n % 4 == 3) {
				put32(pkt + off + 16, (uint32_t)n);
				memcpy(pkt + off + 20, text, len + 1);
			} else {
				put32(pkt + off + 16, (uint32_t)(n % 8));
				put64(pkt + off + 24, n * 2654435761u);
			}
			end = off + need;
			off = (end + 7) & ~(size_t)7;
			ts += 100 + n % 7;
			n++;
		}
		put32(pkt, 0xc1fc1fc1u);
		memcpy(pkt + 4, uuid, 16);
		put32(pkt + 20, 0);
		put64(pkt + 24, begin);
		put64(pkt + 32, ts - 1);
		put64(pkt + 40, (uint64_t)end * 8);
		put64(pkt + 48, (uint64_t)PACKET_BYTES * 8);
		put64(pkt + 56, seq);
		put64(pkt + 64, 0);
		if (fwrite(pkt, 1, sizeof(pkt), f) != sizeof(pkt)) {
			perror(path);
			return 1;
		}
	}
	if (fclose(f)) {
		perror(path);
		return 1;
	}
	printf("%llu packets, %llu events\n", (unsigned long long)packets,
	       (unsigned long long)n);
	return 0;
}
