/* SPDX-License-Identifier: MIT */
/*
 * ht_ctf_packet_layout_read() (host/ctf/ctf-layout.h): the bit
 * positions, sizes and byte orders of the packet fields a collector
 * needs, from metadata text, for two stream classes whose contexts
 * differ (a big-endian field, a field after a 4-bit one); the env of
 * the parsed trace; the located-field read and write helpers on byte
 * and bit boundaries; each refusal with its message; and metadata
 * from a hostile target (huge arrays of empty structures, nested
 * arrays whose size overflows, a type tree of 2^30 nodes) read in
 * bounded time.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host/ctf/ctf-layout.h"
#include "common/error.h"
#include "tests/check.h"

/* clang-format off */
#define TYPES \
	"typealias integer { size = 32; align = 8; signed = false; } := u32;\n" \
	"typealias integer { size = 8; align = 8; signed = false; } := u8;\n" \
	"typealias integer { size = 4; align = 1; signed = false; } := u4;\n" \
	"typealias integer { size = 16; align = 8; signed = false; " \
	"byte_order = be; } := be16;\n"

#define TRACE(header) \
	"trace { major = 1; minor = 8; byte_order = le; " \
	"packet.header := struct { " header " }; };\n"

static const char good[] =
	TYPES
	TRACE("u32 magic; u8 stream_id;")
	"env { core_name = \"dsp0\"; };\n"
	"stream { id = 3; packet.context := struct { u32 packet_size; "
	"u32 content_size; u4 flags; be16 events_discarded; "
	"u32 packet_seq_num; }; };\n"
	"stream { id = 5; packet.context := struct { u8 pad; "
	"u32 packet_size; }; };\n";

static const char no_stream[] = TYPES TRACE("u32 magic;");

static const char header_varies[] =
	TYPES
	TRACE("string s; u32 magic;")
	"stream { packet.context := struct { u32 packet_size; }; };\n";

static const char no_stream_id[] =
	TYPES
	TRACE("u32 magic;")
	"stream { id = 0; packet.context := struct { u32 packet_size; }; };\n"
	"stream { id = 1; packet.context := struct { u32 packet_size; }; };\n";

static const char size_varies[] =
	TYPES
	TRACE("u32 magic;")
	"stream { packet.context := struct { string name; "
	"u32 packet_size; }; };\n";

/* CTF 2: a LEB128 integer has no fixed size */
#define C2_U32 \
	"{\"type\":\"fixed-length-unsigned-integer\",\"length\":32," \
	"\"byte-order\":\"little-endian\",\"alignment\":8}"
#define C2_VARINT "{\"type\":\"variable-length-unsigned-integer\"}"
#define C2_MEMBER(name, fc) "{\"name\":\"" name "\",\"field-class\":" fc "}"
static const char ctf2_size_varies[] =
	"\x1e{\"type\":\"preamble\",\"version\":2}\n"
	"\x1e{\"type\":\"trace-class\",\"packet-header-field-class\":"
	"{\"type\":\"structure\",\"member-classes\":[" C2_MEMBER("magic", C2_U32)
	"]}}\n"
	"\x1e{\"type\":\"data-stream-class\",\"packet-context-field-class\":"
	"{\"type\":\"structure\",\"member-classes\":[" C2_MEMBER("n", C2_VARINT)
	"," C2_MEMBER("packet_size", C2_U32) "]}}\n";

/* arrays of 2^60 and 2^40 empty structures, of 2^40 before the size */
static const char huge_empty[] =
	TYPES
	"typealias struct { } := empty;\n"
	TRACE("empty pad[1048576][1048576][1048576]; u32 magic; "
	      "empty e2[1048576][1048576]; u8 stream_id;")
	"stream { id = 0; packet.context := struct { "
	"empty z[65536][65536]; u32 packet_size; }; };\n";

/* the end of a type tree's metadata: the tree before the magic */
static const char tree_tail[] =
	TRACE("l30 t; u32 magic;")
	"stream { packet.context := struct { u32 packet_size; }; };\n";

/* 2^60 32-bit integers before the magic */
static const char huge_ints[] =
	TYPES
	TRACE("u32 big[1048576][1048576][1048576]; u32 magic;")
	"stream { packet.context := struct { u32 packet_size; }; };\n";
/* clang-format on */

static void check_loc(const struct ht_ctf_field_loc *l, const char *what,
		      uint32_t bit, unsigned size, int bo)
{
	CHECK_MSG(l->set, "%s: not located", what);
	CHECK_MSG(l->bit == bit, "%s: bit %u, expected %u", what, l->bit, bit);
	CHECK_MSG(l->size_bits == size, "%s: %u bits, expected %u", what,
		  l->size_bits, size);
	CHECK_MSG(l->bo == bo, "%s: byte order %u, expected %d", what, l->bo,
		  bo);
}

static void test_layout(void)
{
	struct ht_ctf_packet_layout lay;
	const struct ht_ctf_packet_context_layout *c0, *c1;
	char err[256] = "";
	int ret;

	ret = ht_ctf_packet_layout_read(&lay, "good.tsdl", good, strlen(good),
					"ring0", err, sizeof(err));
	CHECK_MSG(ret == 0, "read: %d: %s", ret, err);
	if (ret) {
		return;
	}
	check_loc(&lay.magic, "magic", 0, 32, HT_CTF_LE);
	check_loc(&lay.stream_id, "stream_id", 32, 8, HT_CTF_LE);
	CHECK_MSG(lay.nr_ctx == 2, "%zu stream classes", lay.nr_ctx);
	c0 = &lay.ctx[0];
	c1 = &lay.ctx[1];
	CHECK_MSG(c0->id == 3 && c1->id == 5, "ids %llu %llu",
		  (unsigned long long)c0->id, (unsigned long long)c1->id);
	check_loc(&c0->packet_size, "packet_size", 40, 32, HT_CTF_LE);
	check_loc(&c0->content_size, "content_size", 72, 32, HT_CTF_LE);
	/* after the 4-bit field at 104: aligned to the next byte */
	check_loc(&c0->discarded, "events_discarded", 112, 16, HT_CTF_BE);
	check_loc(&c0->seq_num, "packet_seq_num", 128, 32, HT_CTF_LE);
	CHECK_MSG(!c0->ts_begin.set && !c0->ts_end.set, "timestamps located");
	CHECK_MSG(c0->end_bits == 160, "end_bits %llu",
		  (unsigned long long)c0->end_bits);
	check_loc(&c1->packet_size, "packet_size (5)", 48, 32, HT_CTF_LE);
	CHECK_MSG(!c1->content_size.set, "content_size located in stream 5");
	CHECK_MSG(c1->end_bits == 80, "end_bits (5) %llu",
		  (unsigned long long)c1->end_bits);
	CHECK_MSG(lay.hc_bytes == 20, "hc_bytes %u", lay.hc_bytes);
	CHECK_MSG(ht_ctf_trace_env(lay.trace, "core_name") &&
		      !ht_ctf_trace_env(lay.trace, "core_id"),
		  "env lookups");
	CHECK_MSG(ht_ctf_field_loc_within(&c0->seq_num, 20) &&
		      !ht_ctf_field_loc_within(&c0->seq_num, 19),
		  "within");
	ht_ctf_packet_layout_fini(&lay);
	CHECK_MSG(!lay.trace && !lay.ctx, "fini leaves a zeroed layout");
}

static void test_bits(void)
{
	const struct ht_ctf_field_loc be16 = {true, HT_CTF_BE, 16, 112};
	const struct ht_ctf_field_loc le32 = {true, HT_CTF_LE, 32, 8};
	const struct ht_ctf_field_loc le12 = {true, HT_CTF_LE, 12, 4};
	const struct ht_ctf_field_loc be5 = {true, HT_CTF_BE, 5, 18};
	uint8_t buf[20];

	memset(buf, 0, sizeof(buf));
	ht_ctf_field_loc_write(buf, &be16, 0x1234);
	CHECK_MSG(buf[14] == 0x12 && buf[15] == 0x34, "be16 bytes %02x %02x",
		  buf[14], buf[15]);
	CHECK_MSG(ht_ctf_field_loc_read(buf, &be16) == 0x1234, "be16 read");
	ht_ctf_field_loc_write(buf, &le32, 0xc1fc1fc1u);
	CHECK_MSG(buf[1] == 0xc1 && buf[2] == 0x1f && buf[4] == 0xc1,
		  "le32 bytes");
	CHECK_MSG(ht_ctf_field_loc_read(buf, &le32) == 0xc1fc1fc1u,
		  "le32 read");

	/* fields off byte boundaries leave their neighbours alone */
	memset(buf, 0xff, sizeof(buf));
	ht_ctf_field_loc_write(buf, &le12, 0xabc);
	CHECK_MSG(buf[0] == 0xcf && buf[1] == 0xab && buf[2] == 0xff,
		  "le12 bytes %02x %02x %02x", buf[0], buf[1], buf[2]);
	CHECK_MSG(ht_ctf_field_loc_read(buf, &le12) == 0xabc, "le12 read");
	ht_ctf_field_loc_write(buf, &be5, 0x0a);
	CHECK_MSG(buf[2] == 0xd5 && buf[3] == 0xff, "be5 bytes %02x %02x",
		  buf[2], buf[3]);
	CHECK_MSG(ht_ctf_field_loc_read(buf, &be5) == 0x0a, "be5 read");
}

static void refused(const char *text, int code, const char *msg)
{
	struct ht_ctf_packet_layout lay;
	char err[256] = "";
	int ret;

	ret = ht_ctf_packet_layout_read(&lay, "bad.tsdl", text, strlen(text),
					"ring1", err, sizeof(err));
	CHECK_MSG(ret == code, "%s: code %d, expected %d", msg, ret, code);
	CHECK_MSG(!strcmp(err, msg), "message \"%s\", expected \"%s\"", err,
		  msg);
	CHECK_MSG(!lay.trace && !lay.ctx, "%s: layout not zeroed", msg);
}

static void test_refusals(void)
{
	char err[256] = "";

	refused(no_stream, HT_EFORMAT, "ring1: metadata: no stream class");
	refused(header_varies, HT_EUNSUPPORTED,
		"ring1: metadata: the packet header has a member of variable "
		"size: packets cannot be located");
	refused(no_stream_id, HT_EFORMAT,
		"ring1: metadata: 2 stream classes but no stream_id in the "
		"packet header");
	refused(size_varies, HT_EUNSUPPORTED,
		"ring1: metadata: stream class 0: no packet_size at a fixed "
		"place in the packet context: packets cannot be delimited");
	refused(ctf2_size_varies, HT_EUNSUPPORTED,
		"ring1: metadata: stream class 0: no packet_size at a fixed "
		"place in the packet context: packets cannot be delimited");

	/* parse errors name the path, not the ring */
	CHECK_MSG(ht_ctf_metadata_check("bad.tsdl", "trace {", 7, err,
					sizeof(err)) < 0 &&
		      !strncmp(err, "bad.tsdl:", 9),
		  "parse error \"%s\"", err);
	CHECK_MSG(ht_ctf_metadata_check("good.tsdl", good, strlen(good), err,
					sizeof(err)) == 0,
		  "check of good metadata: %s", err);
}

/*
 * Metadata a target could send to spin the walk: arrays of empty
 * structures of 2^60 elements (2^40 before the magic and in the
 * packet context), which take no room, are sized without a step per
 * element.
 */
static void test_huge_arrays(void)
{
	static char text[4096];
	struct ht_ctf_packet_layout lay;
	char err[256] = "";
	int ret;

	ret = ht_ctf_packet_layout_read(&lay, "huge.tsdl", huge_empty,
					strlen(huge_empty), "ring2", err,
					sizeof(err));
	CHECK_MSG(ret == 0, "huge empty arrays: %d: %s", ret, err);
	if (ret == 0) {
		check_loc(&lay.magic, "magic", 0, 32, HT_CTF_LE);
		check_loc(&lay.stream_id, "stream_id", 32, 8, HT_CTF_LE);
		check_loc(&lay.ctx[0].packet_size, "packet_size", 40, 32,
			  HT_CTF_LE);
		ht_ctf_packet_layout_fini(&lay);
	}

	/* 2^60 32-bit integers: a size past 2^32 bits is not located */
	refused(huge_ints, HT_EUNSUPPORTED,
		"ring1: metadata: the packet header has a member of variable "
		"size: packets cannot be located");

	/* a tree of 2^30 empty structures, 30 levels of two members of
	 * the level below: refused by the plan compiler after a bounded
	 * number of fields */
	{
		size_t n = 0;
		int k;

		n += snprintf(text + n, sizeof(text) - n,
			      TYPES "typealias struct { } := l0;\n");
		for (k = 1; k <= 30; k++) {
			n += snprintf(text + n, sizeof(text) - n,
				      "typealias struct { l%d a; l%d b; } := "
				      "l%d;\n",
				      k - 1, k - 1, k);
		}
		snprintf(text + n, sizeof(text) - n, "%s", tree_tail);
		refused(text, HT_EUNSUPPORTED,
			"bad.tsdl: trace packet header: the type is too large "
			"(more than 262144 fields in a scope, or 1048576 in "
			"the trace)");
	}
}

int main(void)
{
	/* a walk that spins fails the test instead of hanging it */
	alarm(20);
	test_huge_arrays();
	test_layout();
	test_bits();
	test_refusals();
	return check_summary("t-layout");
}
