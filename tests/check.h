/* SPDX-License-Identifier: MIT */
/*
 * Checks for the C unit tests (tests/.../t-*.c). A failed check prints
 * "FAIL file:line: condition" (and a message, for CHECK_MSG) on stderr.
 *   REQUIRE(c)         a condition the rest of the test depends on: a
 *                      failure ends the test with exit status 1.
 *   CHECK(c)           counts a check; a failure is counted and the test
 *                      goes on.
 *   CHECK_MSG(c, ...)  CHECK with a printf-style message saying what was
 *                      wrong.
 *   CHECK_STR(a, b)    the string a (NULL fails) equals b, both shown.
 *   check_summary(n)   prints "n: N checks, M failed" and returns the
 *                      exit status of the test, for main() to return.
 */
#ifndef HT_TESTS_CHECK_H
#define HT_TESTS_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned check_nr, check_failed;

#define REQUIRE(c)                                                             \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__,          \
				__LINE__, #c);                                 \
			exit(1);                                               \
		}                                                              \
	} while (0)

#define CHECK(c) check_that(!!(c), __FILE__, __LINE__, #c, NULL)
#define CHECK_MSG(c, ...) check_that(!!(c), __FILE__, __LINE__, #c, __VA_ARGS__)
#define CHECK_STR(a, b) check_str(a, b, __FILE__, __LINE__, #a)

/* Counts one check; prints and counts its failure when @ok is false. */
static inline void check_that(int ok, const char *file, int line,
			      const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static inline void check_that(int ok, const char *file, int line,
			      const char *cond, const char *fmt, ...)
{
	va_list ap;

	check_nr++;
	if (ok) {
		return;
	}
	check_failed++;
	fprintf(stderr, "FAIL %s:%d: %s", file, line, cond);
	if (fmt) {
		fputs(": ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
	}
	fputc('\n', stderr);
}

/* CHECK_STR's body: @expr is the text of the expression that gave @a. */
static inline void check_str(const char *a, const char *b, const char *file,
			     int line, const char *expr)
{
	check_nr++;
	if (a && !strcmp(a, b)) {
		return;
	}
	check_failed++;
	fprintf(stderr, "FAIL %s:%d: %s is \"%s\", expected \"%s\"\n", file,
		line, expr, a ? a : "(null)", b);
}

static inline int check_summary(const char *name)
{
	printf("%s: %u checks, %u failed\n", name, check_nr, check_failed);
	return check_failed ? 1 : 0;
}

#endif
