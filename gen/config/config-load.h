/* SPDX-License-Identifier: MIT */
#ifndef HT_GEN_CONFIG_LOAD_H
#define HT_GEN_CONFIG_LOAD_H

/*
 * The generator's configuration layer: reads a barectf 3 YAML
 * configuration (with its `$include` files), checks all of it and
 * builds the model of model.h. It knows barectf's schema and merge
 * rules, not the C or TSDL the model becomes (gen/emit), and it never
 * prints: every problem comes back as a "file:line:column: message".
 */

#include <stddef.h>

#include "model.h"

/* Every problem found in a configuration, in the order found. */
struct ht_diags {
	char **msgs; /* "file:line:column: message" */
	size_t nr;
};

void ht_diags_fini(struct ht_diags *diags);

/*
 * Loads, expands and checks a barectf 3 configuration file.
 * include_dirs are searched for `$include` files after the including
 * file's directory and before hetrace's own standard includes.
 * Returns 0 and sets *cfg, or a negative HT_E... code with every error
 * in diags (and *cfg NULL): an invalid configuration yields no model.
 */
int ht_config_load(const char *path, const char *const *include_dirs,
		   size_t nr_include_dirs, struct ht_config **cfg,
		   struct ht_diags *diags);

/*
 * The same for a configuration held in memory (text, size bytes), named
 * `name` in messages. It touches no file: `$include` finds hetrace's
 * standard includes only.
 */
int ht_config_load_text(const char *name, const unsigned char *text,
			size_t size, struct ht_config **cfg,
			struct ht_diags *diags);

#endif
