/* SPDX-License-Identifier: MIT */
/*
 * Raw access to a data stream being scanned (ctf-reader.h, "Raw
 * records"): where the scan stands in the file and the file's bytes,
 * so that a caller can copy records as bytes (the merge,
 * host/sync/merge-copy.c) instead of decoding their fields.
 */
#include "ctf-stream.h"

/* The public parts are the first members of the private objects. */
static const struct ht__stream *priv_stream(const struct ht_ctf_stream *s)
{
	return (const struct ht__stream *)s;
}

uint64_t ht_ctf_stream_raw_pos(const struct ht_ctf_stream *stream)
{
	return priv_stream(stream)->pos;
}

const uint8_t *ht_ctf_stream_raw_bytes(const struct ht_ctf_stream *stream,
				       uint64_t *size)
{
	const struct ht__stream *s = priv_stream(stream);

	*size = s->size;
	return s->map;
}
