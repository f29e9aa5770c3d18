/* SPDX-License-Identifier: MIT */
/* common/buf.h: arrays grow and keep their items, buffers build strings,
 * an impossible size fails without touching what was there. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "tests/check.h"

int main(void)
{
	uint32_t *v = NULL;
	size_t cap = 0, i;
	struct ht_buf b = {0};
	char *s;
	size_t len;

	for (i = 0; i < 100000; i++) {
		REQUIRE(
		    !ht_array_reserve((void **)&v, &cap, i + 1, sizeof(*v)));
		REQUIRE(cap >= i + 1);
		v[i] = (uint32_t)i * 7u;
	}
	for (i = 0; i < 100000; i++) {
		REQUIRE(v[i] == (uint32_t)i * 7u);
	}
	/* an overflowing size fails and leaves the array as it was */
	REQUIRE(ht_array_reserve((void **)&v, &cap, SIZE_MAX / 2, 8) ==
		HT_ENOMEM);
	REQUIRE(v[99999] == 99999u * 7u);
	free(v);

	ht_buf_puts(&b, "hello");
	ht_buf_putc(&b, ' ');
	for (i = 0; i < 1000; i++) {
		ht_buf_printf(&b, "%zu,", i);
	}
	REQUIRE(!b.nomem);
	REQUIRE(!strncmp(b.data, "hello 0,1,2,", 12));
	REQUIRE(b.len == strlen(b.data));
	REQUIRE(!strcmp(b.data + b.len - 4, "999,"));
	ht_buf_clear(&b);
	REQUIRE(b.len == 0 && !strcmp(b.data, ""));
	ht_buf_add(&b, "a\0b", 3);
	REQUIRE(b.len == 3 && !memcmp(b.data, "a\0b", 4));
	/* a failed growth is sticky and keeps the data */
	REQUIRE(!ht_buf_reserve(&b, SIZE_MAX - 2));
	REQUIRE(b.nomem);
	ht_buf_puts(&b, "more");
	REQUIRE(b.len == 3);
	REQUIRE(!ht_buf_steal(&b, &len) && len == 0);
	ht_buf_printf(&b, "%s-%d", "x", 42);
	s = ht_buf_steal(&b, &len);
	REQUIRE(s && len == 4 && !strcmp(s, "x-42"));
	REQUIRE(!b.data && !b.len);
	free(s);
	ht_buf_fini(&b);
	puts("ok");
	return 0;
}
