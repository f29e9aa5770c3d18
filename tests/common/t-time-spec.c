/* SPDX-License-Identifier: MIT */
/* --begin/--end/--timerange times (common/time-spec.h): every form and
 * the errors, with the position of the bad character. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"
#include "common/time-spec.h"
#include "tests/check.h"

static void good(const char *text, enum ht_time_spec_kind kind, int64_t ns)
{
	struct ht_time_spec t;
	size_t at = 99;
	const char *why = NULL;

	CHECK_MSG(!ht_time_spec_parse(text, &t, &at, &why), "'%s': %s at %zu",
		  text, why ? why : "", at);
	CHECK_MSG(t.kind == kind && t.ns == ns, "'%s': kind %d ns %lld", text,
		  (int)t.kind, (long long)t.ns);
}

static void bad(const char *text, size_t at_expect)
{
	struct ht_time_spec t;
	size_t at = 99;
	const char *why = NULL;

	CHECK_MSG(ht_time_spec_parse(text, &t, &at, &why) == HT_EINVAL,
		  "'%s' accepted", text);
	CHECK_MSG(at == at_expect && why && *why,
		  "'%s': at %zu (expected %zu): %s", text, at, at_expect,
		  why ? why : "");
}

static int64_t resolve(const char *text, int64_t first, bool gmt)
{
	struct ht_time_spec t;
	size_t at;
	const char *why;
	int64_t ns = -1;

	REQUIRE(!ht_time_spec_parse(text, &t, &at, &why));
	REQUIRE(!ht_time_spec_resolve(&t, first, gmt, &ns));
	return ns;
}

int main(void)
{
	struct ht_time_spec b, e;
	size_t at;
	const char *why;
	/* 2023-11-14 22:13:20 UTC */
	const int64_t first = INT64_C(1700000000) * 1000000000 + 123;

	/* seconds from the origin */
	good("0", HT_TIME_SPEC_ORIGIN, 0);
	good("12", HT_TIME_SPEC_ORIGIN, INT64_C(12000000000));
	good("12.5", HT_TIME_SPEC_ORIGIN, INT64_C(12500000000));
	good("1.000000001", HT_TIME_SPEC_ORIGIN, INT64_C(1000000001));
	good("-3.25", HT_TIME_SPEC_ORIGIN, INT64_C(-3250000000));
	good("1700000000", HT_TIME_SPEC_ORIGIN,
	     INT64_C(1700000000) * 1000000000);
	/* time of day, date and time */
	good("22:14", HT_TIME_SPEC_DAY, INT64_C(80040) * 1000000000);
	good("22:14:38", HT_TIME_SPEC_DAY, INT64_C(80078) * 1000000000);
	good("12:31:04.882928015", HT_TIME_SPEC_DAY,
	     INT64_C(45064) * 1000000000 + 882928015);
	good("2023-11-14 22:14:38.5", HT_TIME_SPEC_DATE,
	     INT64_C(80078) * 1000000000 + 500000000);
	/* relative to the first time */
	good("+1.5", HT_TIME_SPEC_RELATIVE, INT64_C(1500000000));
	good("+2s", HT_TIME_SPEC_RELATIVE, INT64_C(2000000000));
	good("+10ms", HT_TIME_SPEC_RELATIVE, INT64_C(10000000));
	good("+2.5ms", HT_TIME_SPEC_RELATIVE, INT64_C(2500000));
	good("+250us", HT_TIME_SPEC_RELATIVE, INT64_C(250000));
	good("+7ns", HT_TIME_SPEC_RELATIVE, 7);
	good("+.5", HT_TIME_SPEC_RELATIVE, INT64_C(500000000));

	/* errors: the position of the first bad character */
	bad("", 0);
	bad("abc", 0);
	bad("12x", 2);
	bad("12.", 3);
	bad("1.0000000001", 11);
	bad("--1", 1);
	bad("25:00", 0);
	bad("1:00", 0);
	bad("123:00", 2);
	bad("22:6", 3);
	bad("22:14:", 6);
	bad("22:14:38.", 9);
	bad("22:14 ", 5);
	bad("2023-13-01 00:00", 5);
	bad("2023-11-14", 10);
	bad("2023-11-14T22:14", 10);
	bad("2023-11-00 00:00", 8);
	bad("+", 1);
	bad("+10m", 3);
	bad("+10 ms", 3);
	bad("+1.", 3);
	bad("99999999999999999999", 9);

	/* --timerange */
	CHECK(!ht_time_spec_parse_range("1,2", &b, &e, &at, &why));
	CHECK(b.ns == 1000000000 && e.ns == 2000000000);
	CHECK(!ht_time_spec_parse_range("[22:14:38,+1ms]", &b, &e, &at, &why));
	CHECK(b.kind == HT_TIME_SPEC_DAY && e.kind == HT_TIME_SPEC_RELATIVE &&
	      e.ns == 1000000);
	CHECK(ht_time_spec_parse_range("1", &b, &e, &at, &why) == HT_EINVAL &&
	      at == 1);
	CHECK(ht_time_spec_parse_range("[1,2", &b, &e, &at, &why) ==
		  HT_EINVAL &&
	      at == 4);
	CHECK(ht_time_spec_parse_range("1,2x", &b, &e, &at, &why) ==
		  HT_EINVAL &&
	      at == 3);
	CHECK(ht_time_spec_parse_range("[1x,2]", &b, &e, &at, &why) ==
		  HT_EINVAL &&
	      at == 2);

	/* resolving: in UTC, and in a time zone east of it */
	CHECK(resolve("5.5", first, true) == INT64_C(5500000000));
	CHECK(resolve("+10ms", first, true) == first + 10000000);
	CHECK(resolve("22:14:38.25", first, true) ==
	      INT64_C(1700000078) * 1000000000 + 250000000);
	CHECK(resolve("00:00", first, true) ==
	      INT64_C(1699920000) * 1000000000);
	CHECK(resolve("2023-11-15 00:00:01", first, true) ==
	      INT64_C(1700006401) * 1000000000);
	setenv("TZ", "UTC-2", 1); /* 2 hours east: local 00:13:20 on 11-15 */
	tzset();
	CHECK(resolve("00:00", first, false) ==
	      INT64_C(1699999200) * 1000000000);
	CHECK(resolve("2023-11-15 02:00", first, false) ==
	      INT64_C(1700006400) * 1000000000);
	return check_summary("t-time-spec");
}
