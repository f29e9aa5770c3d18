/* SPDX-License-Identifier: MIT */
/* common/json-writer.h, json-check.h and base64.h: the escaper with
 * its options, the same text on a stream and in a buffer, numbers,
 * commas; ill-formed UTF-8 replaced (in pieces too) and refused by the
 * check; the check accepts what the writer makes and names the line
 * and column of what is wrong; base64 against RFC 4648's vectors. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/json-check.h"
#include "common/json-writer.h"
#include "common/utf8.h"
#include "tests/check.h"

static const char *escape(const char *s, size_t n, unsigned flags)
{
	static char out[256];

	out[ht_json_escape(out, s, n, flags)] = '\0';
	return out;
}

/* A document with every kind of value, written by @j. */
static void document(struct ht_json *j)
{
	char big[700];

	memset(big, 'x', sizeof(big));
	big[0] = '"';
	big[sizeof(big) - 1] = '\n';
	ht_json_begin_object(j);
	ht_json_member_str(j, "s", "a\"b\\c\x01<&>");
	ht_json_member_u64(j, "u", UINT64_MAX);
	ht_json_member_i64(j, "i", INT64_MIN);
	ht_json_member_bool(j, "t", true);
	ht_json_key(j, "d");
	ht_json_begin_array(j);
	ht_json_item(j);
	ht_json_double(j, 0.1);
	ht_json_item(j);
	ht_json_double(j, NAN);
	ht_json_item(j);
	ht_json_double(j, -INFINITY);
	ht_json_item(j);
	ht_json_begin_array(j);
	ht_json_end_array(j);
	ht_json_item(j);
	ht_json_begin_object(j);
	ht_json_key(j, "k\n");
	ht_json_strn(j, big, sizeof(big));
	ht_json_end_object(j);
	ht_json_end_array(j);
	ht_json_raw(j, ",\"p\":");
	ht_json_printf(j, "%.1f", 2.5);
	ht_json_end_object(j);
}

static void check_writer(void)
{
	static const char want_head[] =
	    "{\"s\":\"a\\\"b\\\\c\\u0001\\u003c\\u0026\\u003e\","
	    "\"u\":18446744073709551615,\"i\":-9223372036854775808,"
	    "\"t\":true,\"d\":[0.10000000000000001,null,null,[],{\"k\\u000a\":"
	    "\"\\\"xxx";
	static const char tail[] = "xx\\u000a\"}],\"p\":2.5}";
	struct ht_buf b = {0};
	struct ht_json jb = {.b = &b, .flags = HT_JSON_HTML};
	struct ht_json jf = {.flags = HT_JSON_HTML};
	char *text = NULL, err[128];
	size_t len = 0;

	document(&jb);
	REQUIRE(!b.nomem);
	REQUIRE(!strncmp(b.data, want_head, strlen(want_head)));
	/* the long string: '"', 698 'x', '\n' */
	REQUIRE(b.len > sizeof(tail) + 700 &&
		!strcmp(b.data + b.len - strlen(tail), tail));
	REQUIRE(!ht_json_check(b.data, b.len, err, sizeof(err)));
	/* the stream gets the same bytes (long strings go in pieces) */
	jf.f = open_memstream(&text, &len);
	REQUIRE(jf.f);
	document(&jf);
	REQUIRE(!fclose(jf.f));
	REQUIRE(len == b.len && !memcmp(text, b.data, len));
	free(text);
	ht_buf_fini(&b);
}

static void check_escape(void)
{
	REQUIRE(
	    !strcmp(escape("a\"\\\t\x1f", 5, 0), "a\\\"\\\\\\u0009\\u001f"));
	REQUIRE(!strcmp(escape("<&>\x7f", 4, 0), "<&>\x7f"));
	REQUIRE(!strcmp(escape("<&>\x7f", 4, HT_JSON_HTML),
			"\\u003c\\u0026\\u003e\x7f"));
	REQUIRE(!strcmp(escape("<\x7f", 2, HT_JSON_DEL), "<\\u007f"));
	/* UTF-8 passes through; NUL is escaped when it is inside @n */
	REQUIRE(!strcmp(escape("\xc3\xa9", 2, HT_JSON_HTML | HT_JSON_DEL),
			"\xc3\xa9"));
	REQUIRE(!strcmp(escape("a\0b", 3, 0), "a\\u0000b"));
}

#define FFFD "\xef\xbf\xbd"

/* Bytes that are not UTF-8: one U+FFFD per maximal subpart (what
 * python's bytes.decode("utf-8", "replace") gives); valid UTF-8 of
 * every length kept. The same in common/utf8.h's repair. */
static void check_utf8(void)
{
	static const char *const cases[][2] = {
	    {"\xf0\x9f\x98\x80\xe2\x82\xac\xc3\xa9",
	     "\xf0\x9f\x98\x80\xe2\x82\xac\xc3\xa9"},
	    {"\xc0\xaf", FFFD FFFD},		       /* overlong */
	    {"\xe0\x80\xaf", FFFD FFFD FFFD},	       /* overlong */
	    {"\xf0\x80\x80\xaf", FFFD FFFD FFFD FFFD}, /* overlong */
	    {"a\x80\xbf!", "a" FFFD FFFD "!"},	       /* lone */
	    {"\xed\xa0\x80", FFFD FFFD FFFD},	       /* surrogate */
	    {"\xe2\x82.", FFFD "."},		       /* cut short */
	    {"\xf0\x9f\x98", FFFD},		       /* cut by the end */
	    {"\xff\xfe", FFFD FFFD},
	    {"\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD}, /* > U+10FFFF */
	    {"\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"},  /* U+10FFFF */
	};
	char out[64];
	size_t i, n;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *in = cases[i][0], *want = cases[i][1];

		n = strlen(in);
		if (strcmp(escape(in, n, HT_JSON_HTML), want)) {
			fprintf(stderr, "case %zu: escaped to \"%s\"\n", i,
				escape(in, n, HT_JSON_HTML));
			exit(1);
		}
		REQUIRE(ht_utf8_repaired_len(in, n) == strlen(want));
		out[ht_utf8_repair(out, in, n)] = '\0';
		REQUIRE(!strcmp(out, want));
		REQUIRE(ht_utf8_valid(in, n) == !strcmp(in, want));
	}
	/* a piece boundary inside a sequence does not split it */
	REQUIRE(ht_utf8_cut("ab\xe2\x82", 4) == 2);
	REQUIRE(ht_utf8_cut("ab\xe2\x82\xac", 5) == 5);
	REQUIRE(ht_utf8_cut("ab\xf0", 3) == 2);
	REQUIRE(ht_utf8_cut("ab\x80\x80", 4) == 4);
}

/* A long string on a stream goes in pieces: a 4-byte sequence across
 * a piece boundary stays whole, and the text is the buffer's. */
static void check_utf8_pieces(void)
{
	struct ht_buf b = {0};
	struct ht_json jb = {.b = &b};
	struct ht_json jf = {0};
	char big[1000], *text = NULL, err[128];
	size_t len = 0, at;

	for (at = 250; at < 262; at++) {
		memset(big, 'x', sizeof(big));
		memcpy(big + at, "\xf0\x9f\x98\x80", 4);
		big[at + 300] = (char)0xff;
		b.len = 0;
		ht_json_strn(&jb, big, sizeof(big));
		REQUIRE(!b.nomem);
		REQUIRE(!ht_json_check(b.data, b.len, err, sizeof(err)));
		REQUIRE(strstr(b.data, "\xf0\x9f\x98\x80"));
		jf.f = open_memstream(&text, &len);
		REQUIRE(jf.f);
		ht_json_strn(&jf, big, sizeof(big));
		REQUIRE(!fclose(jf.f));
		REQUIRE(len == b.len && !memcmp(text, b.data, len));
		free(text);
		text = NULL;
	}
	ht_buf_fini(&b);
}

static void bad(const char *text, const char *want)
{
	char err[128];

	REQUIRE(ht_json_check(text, strlen(text), err, sizeof(err)) ==
		HT_ESYNTAX);
	if (strcmp(err, want)) {
		fprintf(stderr, "%s: got \"%s\", want \"%s\"\n", text, err,
			want);
		exit(1);
	}
}

static void check_check(void)
{
	static const char *const good[] = {
	    "0",       " [1, -2.5e+3, true, false, null] ",
	    "{}",      "{\"a\":{\"b\":[\"\\u00e9\\n\"]}}",
	    "\"\\/\"",
	};
	char deep[500];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		REQUIRE(!ht_json_check(good[i], strlen(good[i]), NULL, 0));
	}
	bad("", "1:1: invalid JSON: unexpected end of the text");
	bad("{\"a\":1,}", "1:8: invalid JSON: expected a string key");
	bad("[1\n,2 3]", "2:4: invalid JSON: expected ',' or ']'");
	bad("{\"a\" 1}", "1:6: invalid JSON: expected ':'");
	bad("\"a\tb\"", "1:3: invalid JSON: control character in a string");
	bad("\"\\x\"", "1:3: invalid JSON: bad escape in a string");
	bad("\"\\u12g4\"", "1:3: invalid JSON: bad \\u escape");
	bad("\"abc", "1:5: invalid JSON: unterminated string");
	bad("01", "1:2: invalid JSON: text after the JSON value");
	bad("1.", "1:3: invalid JSON: bad number");
	bad("nul", "1:1: invalid JSON: unexpected character");
	bad("[\"a\xc3\xa9\xed\xa0\x80\"]",
	    "1:6: invalid JSON: invalid UTF-8 in a string");
	bad("\"\xe2\x82\"", "1:2: invalid JSON: invalid UTF-8 in a string");
	REQUIRE(!ht_json_check("\"\xf0\x9f\x98\x80\"", 6, NULL, 0));
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	bad(deep, "1:201: invalid JSON: nested too deeply");
}

static void check_base64(void)
{
	static const char *const vec[][2] = {
	    {"", ""},
	    {"f", "Zg=="},
	    {"fo", "Zm8="},
	    {"foo", "Zm9v"},
	    {"foob", "Zm9vYg=="},
	    {"fooba", "Zm9vYmE="},
	    {"foobar", "Zm9vYmFy"},
	};
	size_t i;

	for (i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		REQUIRE(f);
		ht_base64_write(f, vec[i][0], strlen(vec[i][0]));
		REQUIRE(!fclose(f));
		REQUIRE(len == strlen(vec[i][1]) &&
			!memcmp(text, vec[i][1], len));
		free(text);
	}
}

int main(void)
{
	check_escape();
	check_utf8();
	check_utf8_pieces();
	check_writer();
	check_check();
	check_base64();
	puts("ok");
	return 0;
}
