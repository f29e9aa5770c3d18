/* SPDX-License-Identifier: MIT */
/* Base64 on a stdio stream (base64.h). */
#include "base64.h"

void ht_base64_write(FILE *out, const void *data, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
				  "qrstuvwxyz0123456789+/";
	const unsigned char *p = data;
	char q[4];
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		q[0] = tab[p[i] >> 2];
		q[1] = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
		q[2] = tab[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)];
		q[3] = tab[p[i + 2] & 63];
		fwrite(q, 1, 4, out);
	}
	if (i < n) {
		q[0] = tab[p[i] >> 2];
		if (i + 1 < n) {
			q[1] = tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
			q[2] = tab[(p[i + 1] & 15) << 2];
		} else {
			q[1] = tab[(p[i] & 3) << 4];
			q[2] = '=';
		}
		q[3] = '=';
		fwrite(q, 1, 4, out);
	}
}
