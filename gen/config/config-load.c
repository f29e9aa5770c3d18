/* SPDX-License-Identifier: MIT */
/*
 * barectf 3 configuration loader: the entry point, ht_config_load(),
 * and the reading of files. It reads and parses the main file, runs
 * the stages (config-internal.h lists them) in order, derives
 * `uuid: auto` from the content of every file read, and hands over the
 * model only when no stage reported a problem.
 *
 * The stages themselves live in their own files; this one knows their
 * order, not their rules.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/error.h"
#include "config-internal.h"

#define CONFIG_TAG "tag:barectf.org,2020/3/config"

static const char *const root_keys[] = {"options", "trace", NULL};
static const char *const trace_keys[] = {"type", "environment", NULL};

static void hash_bytes(struct loader *ld, const unsigned char *p, size_t n)
{
	size_t i;

	/* Two FNV-1a streams, the second over a different basis. */
	for (i = 0; i < n; i++) {
		ld->hash[0] = (ld->hash[0] ^ p[i]) * 0x100000001b3ULL;
		ld->hash[1] = (ld->hash[1] ^ p[i]) * 0x100000001b3ULL;
	}
	ld->hash[1] ^= n;
}

const char *ht__cfg_add_file(struct loader *ld, const char *name)
{
	struct ht_config *cfg = ld->cfg;
	char *copy;

	copy = ht__cfg_strdup(ld, name);
	if (!copy) {
		return NULL;
	}
	if (ht_array_reserve((void **)&cfg->files, &ld->files_cap,
			     cfg->nr_files + 1, sizeof(*cfg->files))) {
		free(copy);
		ld->fatal = HT_ENOMEM;
		return NULL;
	}
	cfg->files[cfg->nr_files++] = copy;
	return copy;
}

int ht__cfg_read_file(const char *path, unsigned char **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int ret = 0;

	if (!f) {
		return errno == ENOENT ? HT_ENOENT : HT_EIO;
	}
	for (;;) {
		ret = ht_array_reserve((void **)&buf, &cap, len + 4096, 1);
		if (ret) {
			goto free_buf;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			break;
		}
	}
	if (ferror(f)) {
		ret = HT_EIO;
		goto free_buf;
	}
	*data = buf;
	*size = len;
	fclose(f);
	return 0;

free_buf:
	free(buf);
	fclose(f);
	return ret;
}

/*
 * Parses one file's text into a tree. Reports YAML errors at their
 * position. Returns NULL on failure.
 */
struct ht_ynode *ht__cfg_parse_text(struct loader *ld, const char *name,
				    const unsigned char *text, size_t size)
{
	struct ht_ynode *root = NULL;
	char msg[512];
	unsigned line = 1, col = 1;
	int ret;

	hash_bytes(ld, text, size);
	ret = ht_ydoc_parse(name, text, size, &root, msg, sizeof(msg), &line,
			    &col);
	if (ret == HT_ESYNTAX) {
		struct ht_src_loc loc = {name, line, col};

		ht__cfg_diag(ld, &loc, "%s", msg);
		return NULL;
	}
	if (ret) {
		ld->fatal = ret;
		return NULL;
	}
	return root;
}

/*
 * The main file's tree: its text (NULL: read from path), parsed and
 * checked to be a barectf 3 configuration; NULL (reported) if not.
 */
static struct ht_ynode *load_main(struct loader *ld, const char *path,
				  const unsigned char *given, size_t size)
{
	struct ht_src_loc loc = {path, 1, 1};
	unsigned char *text = NULL;
	struct ht_ynode *root;
	const char *name;
	int ret;

	name = ht__cfg_add_file(ld, path);
	if (!name) {
		return NULL;
	}
	loc.file = name;
	ld->prefix_loc = loc;
	if (!given) {
		ret = ht__cfg_read_file(path, &text, &size);
		if (ret == HT_ENOMEM) {
			ld->fatal = ret;
			return NULL;
		}
		if (ret) {
			ht__cfg_diag(ld, &loc,
				     "cannot read the configuration: %s",
				     ret == HT_ENOENT ? "no such file"
						      : ht_strerror(ret));
			return NULL;
		}
		given = text;
	}
	root = ht__cfg_parse_text(ld, name, given, size);
	free(text);
	if (!root) {
		return NULL;
	}
	if (root->kind != HT_YNODE_MAP || !root->tag ||
	    strcmp(root->tag, CONFIG_TAG)) {
		ht__cfg_diag(
		    ld, &root->loc,
		    "expected a barectf 3 configuration: a mapping tagged "
		    "`--- !<" CONFIG_TAG ">`");
		ht_ynode_destroy(root);
		return NULL;
	}
	ld->stack[0].id = ld->std_includes_only ? NULL : realpath(path, NULL);
	if (!ld->stack[0].id) {
		ld->stack[0].id = ht__cfg_strdup(ld, path);
	}
	ld->stack[0].name = (char *)name;
	ld->depth = 1;
	return root;
}

static void finish_uuid(struct loader *ld)
{
	struct ht_config *cfg = ld->cfg;
	size_t i;

	if (!ld->uuid_auto) {
		return;
	}
	/*
	 * `uuid: auto`: barectf draws a random UUID; hetrace derives it
	 * from the content of every file read, so the output stays the
	 * same for the same configuration. RFC 9562 version 8 (custom).
	 */
	for (i = 0; i < 8; i++) {
		cfg->uuid[i] = (uint8_t)(ld->hash[0] >> (56 - 8 * i));
		cfg->uuid[8 + i] = (uint8_t)(ld->hash[1] >> (56 - 8 * i));
	}
	cfg->uuid[6] = (uint8_t)((cfg->uuid[6] & 0x0f) | 0x80);
	cfg->uuid[8] = (uint8_t)((cfg->uuid[8] & 0x3f) | 0x80);
}

/* A model with barectf's defaults, before the configuration says more. */
static struct ht_config *config_new(void)
{
	struct ht_config *cfg = calloc(1, sizeof(*cfg));

	if (!cfg) {
		return NULL;
	}
	cfg->prefix_ident = strdup("barectf_");
	cfg->prefix_file = strdup("barectf");
	cfg->native_bo = HT_BO_LE;
	if (!cfg->prefix_ident || !cfg->prefix_file) {
		ht_config_destroy(cfg);
		return NULL;
	}
	return cfg;
}

/*
 * The `trace` object: its `$include`s, then its type and environment.
 * Returns false when there is no trace object to read.
 */
static bool load_trace(struct loader *ld, struct ht_ynode *root)
{
	struct ht_ynode *trace, *tt;
	long k = ht_ynode_find(root, "trace");

	if (k < 0) {
		ht__cfg_diag(ld, &root->loc,
			     "missing `trace` in configuration");
		return false;
	}
	root->items[k] =
	    ht__cfg_process_includes(ld, root->items[k], LEVEL_TRACE);
	trace = root->items[k];
	if (ld->fatal) {
		return false;
	}
	if (trace->kind != HT_YNODE_MAP) {
		ht__cfg_expect_fail(ld, trace, "trace",
				    "a trace object (a mapping)");
		return false;
	}
	ht__cfg_check_keys(ld, trace, trace_keys, "trace");
	tt = ht_ynode_get(trace, "type");
	if (!tt) {
		ht__cfg_diag(ld, &trace->loc, "missing `type` in trace");
	} else if (tt->kind != HT_YNODE_MAP) {
		ht__cfg_expect_fail(ld, tt, "type", "a trace type (a mapping)");
	} else {
		ht__cfg_expand_field_types(ld, tt);
		if (!ld->fatal) {
			ht__cfg_sub_log_levels(ld, tt);
		}
		if (!ld->fatal) {
			ht__cfg_load_trace_type(ld, tt);
		}
	}
	if (!ld->fatal) {
		ht__cfg_load_env(ld, trace);
	}
	return true;
}

/* `default-data-stream-type-name-definition` needs a default stream. */
static void check_default_dst_def(struct loader *ld,
				  const struct ht_ynode *root)
{
	const struct ht_ynode *cg, *v;

	if (ld->fatal || !ld->cfg->header_default_dst_def ||
	    ht_config_default_stream(ld->cfg)) {
		return;
	}
	cg = ht_ynode_get(ht_ynode_get(root, "options"), "code-generation");
	v = ht_ynode_get(ht_ynode_get(cg, "header"),
			 "default-data-stream-type-name-definition");
	ht__cfg_diag(ld, &v->loc,
		     "`default-data-stream-type-name-definition` needs a "
		     "default data stream type (`$is-default: true`)");
}

/* ht_config_load() and ht_config_load_text(): text NULL reads path. */
static int load(const char *path, const unsigned char *text, size_t size,
		const char *const *include_dirs, size_t nr_include_dirs,
		struct ht_config **cfgp, struct ht_diags *diags)
{
	struct loader ld = {
	    .diags = diags,
	    .inc_dirs = include_dirs,
	    .nr_inc_dirs = nr_include_dirs,
	    .std_includes_only = text != NULL,
	    .hash = {0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL},
	};
	struct ht_ynode *root;
	int ret;

	*cfgp = NULL;
	diags->msgs = NULL;
	diags->nr = 0;
	ld.cfg = config_new();
	if (!ld.cfg) {
		return HT_ENOMEM;
	}

	root = load_main(&ld, path, text, size);
	if (root) {
		ht__cfg_check_keys(&ld, root, root_keys, "configuration");
		ht__cfg_load_options(&ld, root);
		if (load_trace(&ld, root)) {
			check_default_dst_def(&ld, root);
			finish_uuid(&ld);
		}
		/* Names are only worth checking on a sound model. */
		if (!ld.fatal && !diags->nr) {
			ht__cfg_check_c_names(&ld);
		}
		ht_ynode_destroy(root);
	}
	while (ld.depth > 0) {
		ht__cfg_pop_include(&ld);
	}
	free(ld.alias_state);
	ht__cfg_sort_diags(&ld);
	if (ld.fatal) {
		ret = ld.fatal;
		goto destroy_cfg;
	}
	if (diags->nr) {
		ret = HT_ECONFIG;
		goto destroy_cfg;
	}
	*cfgp = ld.cfg;
	return 0;

destroy_cfg:
	ht_config_destroy(ld.cfg);
	return ret;
}

int ht_config_load(const char *path, const char *const *include_dirs,
		   size_t nr_include_dirs, struct ht_config **cfgp,
		   struct ht_diags *diags)
{
	return load(path, NULL, 0, include_dirs, nr_include_dirs, cfgp, diags);
}

int ht_config_load_text(const char *name, const unsigned char *text,
			size_t size, struct ht_config **cfgp,
			struct ht_diags *diags)
{
	static const unsigned char empty[1];

	return load(name, size ? text : empty, size, NULL, 0, cfgp, diags);
}
