/* SPDX-License-Identifier: MIT */
/* common/buf.h: arrays grow and keep their items, buffers build strings,
 * an impossible size fails without touching what was there. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,     \
				#c);                                           \
			exit(1);                                               \
		}                                                              \
	} while (0)

int main(void)
{
	uint32_t *v = NULL;
	size_t cap = 0, i;
	struct ht_buf b = {0};
	char *s;
	size_t len;

	for (i = 0; i < 100000; i++) {
		CHECK(!ht_array_reserve((void **)&v, &cap, i + 1, sizeof(*v)));
		CHECK(cap >= i + 1);
		v[i] = (uint32_t)i * 7u;
	}
	for (i = 0; i < 100000; i++) {
		CHECK(v[i] == (uint32_t)i * 7u);
	}
	/* an overflowing size fails and leaves the array as it was */
	CHECK(ht_array_reserve((void **)&v, &cap, SIZE_MAX / 2, 8) ==
	      HT_ENOMEM);
	CHECK(v[99999] == 99999u * 7u);
	free(v);

	ht_buf_puts(&b, "hello");
	ht_buf_putc(&b, ' ');
	for (i = 0; i < 1000; i++) {
		ht_buf_printf(&b, "%zu,", i);
	}
	CHECK(!b.nomem);
	CHECK(!strncmp(b.data, "hello 0,1,2,", 12));
	CHECK(b.len == strlen(b.data));
	CHECK(!strcmp(b.data + b.len - 4, "999,"));
	ht_buf_clear(&b);
	CHECK(b.len == 0 && !strcmp(b.data, ""));
	ht_buf_add(&b, "a\0b", 3);
	CHECK(b.len == 3 && !memcmp(b.data, "a\0b", 4));
	/* a failed growth is sticky and keeps the data */
	CHECK(!ht_buf_reserve(&b, SIZE_MAX - 2));
	CHECK(b.nomem);
	ht_buf_puts(&b, "more");
	CHECK(b.len == 3);
	CHECK(!ht_buf_steal(&b, &len) && len == 0);
	ht_buf_printf(&b, "%s-%d", "x", 42);
	s = ht_buf_steal(&b, &len);
	CHECK(s && len == 4 && !strcmp(s, "x-42"));
	CHECK(!b.data && !b.len);
	free(s);
	ht_buf_fini(&b);
	puts("ok");
	return 0;
}
