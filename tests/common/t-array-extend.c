/* SPDX-License-Identifier: MIT */
/* common/buf.h, ht_array_extend(): a table indexed by ids seen in any
 * order grows to the largest id + 1, new entries zeroed, old ones kept;
 * a smaller id changes nothing; an impossible size fails and leaves the
 * table as it was. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/buf.h"
#include "common/error.h"
#include "tests/check.h"

int main(void)
{
	static const size_t ids[] = {5, 2, 40, 3, 1000, 7};
	uint64_t *v = NULL;
	size_t nr = 0, cap = 0, i, k;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		size_t before = nr;

		REQUIRE(!ht_array_extend((void **)&v, &nr, &cap, ids[i] + 1,
					 sizeof(*v)));
		REQUIRE(nr == (ids[i] + 1 > before ? ids[i] + 1 : before));
		REQUIRE(cap >= nr);
		REQUIRE(v[ids[i]] == 0 || v[ids[i]] == ids[i] * 3);
		v[ids[i]] = ids[i] * 3;
	}
	REQUIRE(nr == 1001);
	for (k = 0; k < nr; k++) {
		bool set = false;

		for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
			set |= ids[i] == k;
		}
		REQUIRE(v[k] == (set ? k * 3 : 0));
	}
	REQUIRE(ht_array_extend((void **)&v, &nr, &cap, SIZE_MAX / 4,
				sizeof(*v)) == HT_ENOMEM);
	REQUIRE(nr == 1001 && v[1000] == 3000);
	free(v);
	puts("ok");
	return 0;
}
