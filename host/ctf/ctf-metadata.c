/* SPDX-License-Identifier: MIT */
/*
 * A trace's metadata: the file read (plain text, or packetized as LTTng
 * writes it), its format told by its first byte (0x1e: CTF 2 JSON text
 * sequence, else TSDL), the text parsed into the model (tsdl-parser.c
 * or ctf2-metadata.c), then the decode plans compiled from the model
 * (ctf-plan.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf-model.h"
#include "common/buf.h"
#include "common/error.h"

#define META_MAGIC 0x75d11d57u
#define META_HDR 37

int ht_ctf_metadata_read(const char *path, char **text, size_t *len, char *err,
			 size_t err_len)
{
	FILE *f;
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	char *out = NULL;
	size_t olen = 0;
	uint32_t magic;
	int ret = 0;

	f = fopen(path, "rb");
	if (!f) {
		snprintf(err, err_len, "%s: cannot open: %s", path,
			 strerror(errno));
		return errno == ENOENT ? HT_ENOENT : HT_EIO;
	}
	for (;;) {
		size_t r;

		/* room for 64 KiB more, the buffer doubling up to 256 MiB */
		if (n + 65536 > (256u << 20)) {
			snprintf(err, err_len,
				 "%s: metadata larger than 256 MiB", path);
			ret = HT_ERANGE;
			goto out;
		}
		if (ht_array_reserve((void **)&buf, &cap, n + 65536, 1)) {
			ret = HT_ENOMEM;
			goto out;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0) {
			break;
		}
	}
	if (ferror(f)) {
		snprintf(err, err_len, "%s: read error", path);
		ret = HT_EIO;
		goto out;
	}
	magic = 0;
	if (n >= 4) {
		memcpy(&magic, buf, 4);
	}
	if (magic == META_MAGIC || magic == __builtin_bswap32(META_MAGIC)) {
		bool swap = magic != META_MAGIC;
		size_t off = 0;

		out = malloc(n + 1);
		if (!out) {
			ret = HT_ENOMEM;
			goto out;
		}
		while (off < n) {
			uint32_t m, csize, psize;

			if (n - off < META_HDR) {
				snprintf(err, err_len,
					 "%s: offset %zu: truncated metadata "
					 "packet header",
					 path, off);
				ret = HT_ETRUNC;
				goto out;
			}
			memcpy(&m, buf + off, 4);
			memcpy(&csize, buf + off + 24, 4);
			memcpy(&psize, buf + off + 28, 4);
			if (swap) {
				m = __builtin_bswap32(m);
				csize = __builtin_bswap32(csize);
				psize = __builtin_bswap32(psize);
			}
			if (m != META_MAGIC) {
				snprintf(err, err_len,
					 "%s: offset %zu: wrong metadata "
					 "packet magic 0x%08x",
					 path, off, m);
				ret = HT_EFORMAT;
				goto out;
			}
			if (buf[off + 32] || buf[off + 33]) {
				snprintf(err, err_len,
					 "%s: offset %zu: compressed or "
					 "encrypted metadata is not supported",
					 path, off);
				ret = HT_EUNSUPPORTED;
				goto out;
			}
			if (csize % 8 || psize % 8 || csize < META_HDR * 8 ||
			    csize > psize || psize / 8 > n - off) {
				snprintf(err, err_len,
					 "%s: offset %zu: bad metadata packet "
					 "sizes (content %u, packet %u bits)",
					 path, off, csize, psize);
				ret = HT_EFORMAT;
				goto out;
			}
			memcpy(out + olen, buf + off + META_HDR,
			       csize / 8 - META_HDR);
			olen += csize / 8 - META_HDR;
			off += psize / 8;
		}
		out[olen] = '\0';
		free(buf);
		buf = NULL;
	} else {
		out = (char *)buf;
		out[n] = '\0';
		olen = n;
		buf = NULL;
	}
	*text = out;
	*len = olen;
	out = NULL;
out:
	if (ret == HT_ENOMEM) {
		snprintf(err, err_len, "%s: out of memory", path);
	}
	free(out);
	free(buf);
	fclose(f);
	return ret;
}

/*
 * What metadata @text (@len bytes) is: 2 for CTF 2 (a JSON text
 * sequence: 0x1e first), 1 for TSDL; 0 for neither, with a message in
 * @err naming what it looks like.
 */
static int metadata_format(const char *path, const char *text, size_t len,
			   char *err, size_t err_len)
{
	size_t i = 0, k;

	while (i < len && (text[i] == ' ' || text[i] == '\t' ||
			   text[i] == '\n' || text[i] == '\r')) {
		i++;
	}
	if (i < len && text[i] == 0x1e) {
		return 2;
	}
	if (i < len && (text[i] == '{' || text[i] == '[')) {
		snprintf(err, err_len,
			 "%s: JSON without record separators: neither TSDL "
			 "(CTF 1.8) nor CTF 2 metadata (a JSON text sequence, "
			 "each fragment after a 0x1e byte)",
			 path);
		return 0;
	}
	/* TSDL is text: a NUL or a control byte early says it is not */
	for (k = i; k < len && k < i + 512; k++) {
		unsigned char ch = (unsigned char)text[k];

		if (ch == 0 || (ch < 0x20 && ch != '\t' && ch != '\n' &&
				ch != '\r' && ch != '\f' && ch != '\v')) {
			snprintf(err, err_len,
				 "%s: binary data (byte 0x%02x at offset "
				 "%zu): neither TSDL (CTF 1.8) nor CTF 2 JSON "
				 "metadata",
				 path, ch, k);
			return 0;
		}
	}
	return 1;
}

int ht__trace_load(struct ht__trace *trace, const char *path, const char *text,
		   size_t len, const struct ht_ctf_open_opts *opts, char *err,
		   size_t err_len)
{
	int ret;

	switch (metadata_format(path, text, len, err, err_len)) {
	case 2:
		ret =
		    ht__ctf2_parse(trace, path, text, len, opts, err, err_len);
		break;
	case 1:
		ret =
		    ht__tsdl_parse(trace, path, text, len, opts, err, err_len);
		break;
	default:
		ret = HT_EFORMAT;
		break;
	}
	if (!ret) {
		ret = ht__plan_compile_trace(trace, err, err_len);
	}
	if (ret == HT_ENOMEM && err_len) {
		snprintf(err, err_len, "%s: out of memory", path);
	}
	return ret;
}
