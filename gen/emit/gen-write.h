/* SPDX-License-Identifier: MIT */
#ifndef HT_GEN_EMIT_GEN_WRITE_H
#define HT_GEN_EMIT_GEN_WRITE_H

/*
 * The generator as one call: load a barectf 3 configuration and write
 * its outputs into a directory, all or nothing. Every file is written
 * under a temporary name and renamed when all were written; a failure
 * before that removes the temporary files, so nothing of this run is
 * left in the directory. (A rename that fails keeps its temporary file
 * and leaves the files renamed before it.) Every file stays inside the
 * directory: a runtime directory there that is a symbolic link is
 * refused, and an output name that is one is replaced, not followed
 * (the configuration loader has already refused file name prefixes
 * that are not plain file names).
 *
 * It neither parses command lines nor prints: `hetrace gen` and the
 * build's gen-boot do, from what it returns.
 */

#include <stdbool.h>
#include <stddef.h>

#include "gen/config/config-load.h"

struct ht_gen_opts {
	const char *config; /* the barectf 3 YAML configuration */
	/* searched for `$include` files, as ht_config_load() says */
	const char *const *include_dirs;
	size_t nr_include_dirs;
	const char *out_dir; /* created (with its parents) if needed */
	bool header_only;    /* one header holding everything, no .c file */
	bool metadata_only;  /* only the metadata */
	bool no_runtime;     /* do not copy the runtime headers */
	bool no_core_id;     /* no core_id in the packet context */
};

/*
 * Writes into opts->out_dir: "metadata" (TSDL), unless metadata_only
 * "<prefix>.h" and, unless header_only, "<prefix>.c"; unless
 * metadata_only or no_runtime, the runtime headers as "hetrace/<name>.h".
 * diags receives every problem of the configuration (the caller
 * releases it with ht_diags_fini() in every case).
 * Returns 0; HT_ECONFIG when the configuration is invalid (the problems
 * are in diags); or another negative HT_E... code with msg (of msg_size
 * bytes) saying what failed and where ("cannot create `out/metadata`:
 * Permission denied", "cfg.yaml: out of memory").
 */
int ht_gen_write(const struct ht_gen_opts *opts, struct ht_diags *diags,
		 char *msg, size_t msg_size);

#endif
