/* SPDX-License-Identifier: MIT */
/* Messages handed to a callback (message.h). */
#include <stdarg.h>
#include <stdio.h>

#include "message.h"

void ht_message_sendf(ht_message_fn fn, void *arg, const char *fmt, ...)
{
	char text[HT_MESSAGE_MAX + 1];
	va_list ap;

	if (!fn) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fn(arg, text);
}
