/* SPDX-License-Identifier: MIT */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const texts[HT__ERRNO_COUNT] = {[HT__ERRNO_NONE] = "success",
#define HT__ERRNO_TEXT(name, text) [HT__ERRNO_##name] = text,
						   HT_ERRNO_MAP(HT__ERRNO_TEXT)
#undef HT__ERRNO_TEXT
};

static const char *const names[HT__ERRNO_COUNT] = {[HT__ERRNO_NONE] = "HT_OK",
#define HT__ERRNO_NAME(name, text) [HT__ERRNO_##name] = "HT_E" #name,
						   HT_ERRNO_MAP(HT__ERRNO_NAME)
#undef HT__ERRNO_NAME
};

const char *ht_strerror(int err)
{
	if (err > 0 || -err >= HT__ERRNO_COUNT) {
		return "unknown error";
	}
	return texts[-err];
}

const char *ht_err_name(int err)
{
	if (err > 0 || -err >= HT__ERRNO_COUNT) {
		return "HT_E?";
	}
	return names[-err];
}

int ht_err_printf(char *err, size_t err_len, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && err_len) {
		va_start(ap, fmt);
		vsnprintf(err, err_len, fmt, ap);
		va_end(ap);
	}
	return code;
}
