/* SPDX-License-Identifier: MIT */
#ifndef HT_GEN_EMIT_H
#define HT_GEN_EMIT_H

#include <stdbool.h>
#include <stdio.h>

#include "gen/config/model.h"

/*
 * The emitters read a checked model (ht_config_load() succeeded) and
 * write deterministic text: no dates, the same model gives the same
 * bytes. They return 0 or HT_EIO when writing fails.
 */

/* TSDL 1.8 metadata, per docs/ctf-layout.md. */
int ht_emit_tsdl(const struct ht_config *cfg, FILE *out);

/*
 * The C header: barectf 3.1's public API for this configuration, with
 * the tracing functions `static inline` (the fast path). When
 * header_only is true the header also holds the slow path (as static
 * functions) and no source file is needed.
 */
int ht_emit_c_header(const struct ht_config *cfg, FILE *out, bool header_only);

/* The C source: packet open/close and the slow path. */
int ht_emit_c_source(const struct ht_config *cfg, FILE *out);

#endif
