/* SPDX-License-Identifier: MIT */
#ifndef HT_HOST_ERROR_H
#define HT_HOST_ERROR_H

/*
 * One error table for the host library, the generator and the CLI.
 * Actions return 0 or a negative HT_E... code; ht_strerror() names it.
 * A failure the user caused also leaves a message in the caller's
 * buffer (ht_err_printf()).
 */
#include <stddef.h>

#define HT_ERRNO_MAP(X)                                                        \
	X(NOMEM, "out of memory")                                              \
	X(IO, "input/output error")                                            \
	X(NOENT, "no such file or directory")                                  \
	X(INVAL, "invalid argument")                                           \
	X(SYNTAX, "syntax error")                                              \
	X(CONFIG, "invalid configuration")                                     \
	X(FORMAT, "malformed data")                                            \
	X(TRUNC, "truncated data")                                             \
	X(RANGE, "value out of range")                                         \
	X(UNSUPPORTED, "unsupported construct")                                \
	X(NOTFOUND, "not found")                                               \
	X(EXIST, "already exists")                                             \
	X(EOF, "end of data")                                                  \
	X(TIMEDOUT, "timed out")

enum ht__errno_index {
	HT__ERRNO_NONE,
#define HT__ERRNO_INDEX(name, text) HT__ERRNO_##name,
	HT_ERRNO_MAP(HT__ERRNO_INDEX)
#undef HT__ERRNO_INDEX
	    HT__ERRNO_COUNT
};

enum ht_error {
	HT_OK = 0,
#define HT__ERRNO_NEG(name, text) HT_E##name = -HT__ERRNO_##name,
	HT_ERRNO_MAP(HT__ERRNO_NEG)
#undef HT__ERRNO_NEG
};

/* The text of an error code (0 or a negative HT_E... value). */
const char *ht_strerror(int err);

/* The symbolic name of an error code, e.g. "HT_EFORMAT". */
const char *ht_err_name(int err);

/*
 * Formats a message into @err (@err_len bytes, cut to fit; nothing when
 * @err is NULL or @err_len 0) and returns @code, for
 * `return ht_err_printf(err, err_len, HT_EIO, "cannot ...", ...);`.
 */
int ht_err_printf(char *err, size_t err_len, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
