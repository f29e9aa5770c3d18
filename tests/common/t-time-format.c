/* SPDX-License-Identifier: MIT */
/* common/time-format.h: durations in the largest unit that keeps them
 * at 1 or more (rounded, carried to the next unit), timestamps exact. */
#include <stdint.h>

#include "common/time-format.h"
#include "tests/check.h"

static char buf[HT_TIME_FORMAT_LEN];

#define DUR(ns) ht_time_format_duration(buf, sizeof(buf), (ns))
#define TS(ns) ht_time_format_timestamp(buf, sizeof(buf), (ns))

int main(void)
{
	CHECK_STR(DUR(0), "0 ns");
	CHECK_STR(DUR(999), "999 ns");
	CHECK_STR(DUR(1000), "1.000 us");
	CHECK_STR(DUR(1500), "1.500 us");
	CHECK_STR(DUR(3280123), "3.280 ms");
	CHECK_STR(DUR(3280500), "3.281 ms");
	/* rounding that reaches the next unit says so */
	CHECK_STR(DUR(999999), "999.999 us");
	CHECK_STR(DUR(999999600), "1.000 s");
	CHECK_STR(DUR(999999500), "1.000 s");
	CHECK_STR(DUR(999999499), "999.999 ms");
	CHECK_STR(DUR(2000000000), "2.000 s");
	CHECK_STR(DUR(UINT64_MAX), "18446744073.709 s");
	CHECK_STR(TS(0), "0.000000000");
	CHECK_STR(TS(12000345678), "12.000345678");
	CHECK_STR(TS(-100), "-0.000000100");
	CHECK_STR(TS(INT64_MIN), "-9223372036.854775808");
	return check_summary("t-time-format");
}
