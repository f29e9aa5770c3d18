/* SPDX-License-Identifier: MIT */
#ifndef HT_COMMON_MESSAGE_H
#define HT_COMMON_MESSAGE_H

/*
 * Messages handed to a caller's callback (a warning, a note, progress):
 * the library never prints, it formats a line of text and passes it on.
 * Nothing here knows what the callback does with it.
 */

/* Receives one message, without a trailing newline. */
typedef void (*ht_message_fn)(void *arg, const char *text);

/* The longest message passed on; longer text is cut. */
#define HT_MESSAGE_MAX 1023

/*
 * Formats @fmt and calls @fn(@arg, text); does nothing (not even the
 * formatting) when @fn is NULL.
 */
void ht_message_sendf(ht_message_fn fn, void *arg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
