/* SPDX-License-Identifier: MIT */
/*
 * What the files of the configuration loader share: the loader's state
 * and the functions one stage of ht_config_load() calls in another.
 *
 * The stages follow barectf's own (the same input gives the same
 * effective configuration):
 *   1. parse the main file into a located node tree (config-load.c);
 *   2. process `$include` (trace, trace type, clock type, data stream
 *      type and event record type objects), merging as barectf does
 *      (config-includes.c);
 *   3. expand field type aliases and apply `$inherit`, then replace log
 *      level aliases (config-aliases.c);
 *   4. check every property and build the model (config-model.c for the
 *      configuration objects, config-ft.c for field types), with the
 *      property readers of config-checks.c.
 * Every stage reports every problem it finds through ht__cfg_diag()
 * (config-diag.c) and carries on, so one run lists all the errors of a
 * configuration; a configuration with an error yields no model.
 *
 * Not installed and not for other folders: config-load.h is the
 * interface.
 */
#ifndef HT_GEN_CONFIG_INTERNAL_H
#define HT_GEN_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/yaml-doc.h"
#include "config-load.h"
#include "model.h"

#define MAX_INCLUDE_DEPTH 64
#define MAX_ALIAS_DEPTH 128

/* Marks a node whose problem was already reported. */
#define ERROR_TAG "!hetrace-error"

/* The objects that may hold `$include`, outermost first. */
enum level {
	LEVEL_TRACE,
	LEVEL_TRACE_TYPE,
	LEVEL_CLOCK,
	LEVEL_DST,
	LEVEL_ERT,
};

struct include_frame {
	char *id;   /* real path, or the embedded name */
	char *name; /* as shown in messages */
};

/* Where a message points, to list messages in file order. */
struct diag_key {
	size_t file; /* index in the config's file list */
	unsigned line, col;
	size_t seq;
	char *msg;
};

struct loader {
	struct ht_diags *diags;
	size_t msgs_cap;	    /* of diags->msgs */
	struct diag_key *diag_keys; /* parallel to diags->msgs */
	size_t diag_keys_cap;
	struct ht_config *cfg;
	size_t files_cap; /* of cfg->files */
	const char *const *inc_dirs;
	size_t nr_inc_dirs;
	bool std_includes_only; /* no file system: hetrace's includes only */
	int fatal;		/* HT_ENOMEM and the like: stop */

	struct include_frame stack[MAX_INCLUDE_DEPTH];
	size_t depth;
	size_t nr_includes;  /* `$include` files read so far */
	size_t include_work; /* bytes read and copied by `$include` */

	/* Content hash of every file read, for `uuid: auto`. */
	uint64_t hash[2];

	/* Field type aliases: the trace type's map and per-alias state. */
	struct ht_ynode *aliases;
	unsigned char *alias_state; /* 0 new, 1 resolving, 2 done, 3 bad */
	size_t resolving[MAX_ALIAS_DEPTH]; /* aliases being resolved */
	size_t nr_resolving;
	size_t nr_expanded; /* nodes copied from aliases so far */
	bool uuid_auto;

	bool barectf_header; /* options: hetrace: event-header: barectf */

	/* Where the identifier prefix was given (the main file if not). */
	struct ht_src_loc prefix_loc;
};

/* config-diag.c: messages */

/* Adds "file:line:column: message" (once: repeats are dropped). */
__attribute__((format(printf, 3, 4))) void
ht__cfg_diag(struct loader *ld, const struct ht_src_loc *loc, const char *fmt,
	     ...);

/* Puts the messages in the order of the files read, then of positions. */
void ht__cfg_sort_diags(struct loader *ld);

/*
 * Fills buf with " (did you mean `X`?)" when one of cands is close to
 * word, else with "".
 */
void ht__cfg_suggestion(char *buf, size_t size, const char *word,
			const char *const *cands, size_t nr);

/* The same, with the string keys of the mapping map as candidates. */
void ht__cfg_suggest_key(char *buf, size_t size, const char *word,
			 const struct ht_ynode *map);

/* "`key`: expected WHAT, got a mapping" (nothing for a marked node). */
void ht__cfg_expect_fail(struct loader *ld, const struct ht_ynode *node,
			 const char *key, const char *what);

/* config-checks.c: property readers; each reports what it rejects. */

/* Absent or null. */
bool ht__cfg_is_absent(const struct ht_ynode *v);
/* Marks node as reported (ERROR_TAG), so later stages stay quiet. */
void ht__cfg_mark_error(struct loader *ld, struct ht_ynode *node);
bool ht__cfg_is_error(const struct ht_ynode *node);
/* Unknown keys (with a suggestion) and duplicate keys of map. */
void ht__cfg_check_keys(struct loader *ld, const struct ht_ynode *map,
			const char *const *keys, const char *what);
/* Duplicate names in a mapping of named objects. */
void ht__cfg_check_dup_names(struct loader *ld, const struct ht_ynode *map,
			     const char *what);
/* The non-empty mapping of named objects at key of parent. */
const struct ht_ynode *ht__cfg_get_named_map(struct loader *ld,
					     const struct ht_ynode *parent,
					     const char *key, const char *where,
					     const char *item);
/* barectf's identifier rule (no TSDL keyword). */
bool ht__cfg_check_iden(struct loader *ld, const struct ht_ynode *node,
			const char *what);
/*
 * The getters leave *out as it is when the property is absent (or null
 * where barectf allows it) and return false when it is wrong.
 */
bool ht__cfg_get_bool(struct loader *ld, const struct ht_ynode *map,
		      const char *key, bool *out, bool nullable);
/* v, an integer in [min, max]. */
bool ht__cfg_want_uint(struct loader *ld, const struct ht_ynode *v,
		       const char *key, uint64_t min, uint64_t max,
		       uint64_t *out);
bool ht__cfg_get_uint(struct loader *ld, const struct ht_ynode *map,
		      const char *key, uint64_t min, uint64_t max,
		      uint64_t *out);
bool ht__cfg_get_str(struct loader *ld, const struct ht_ynode *map,
		     const char *key, const char **out);
const struct ht_ynode *ht__cfg_get_map(struct loader *ld,
				       const struct ht_ynode *map,
				       const char *key, const char *what,
				       bool nullable);
/* strdup() that sets ld->fatal when it fails. */
char *ht__cfg_strdup(struct loader *ld, const char *s);
bool ht__cfg_parse_byte_order(const char *s, enum ht_byte_order *bo);
bool ht__cfg_parse_uuid(const char *s, uint8_t uuid[16]);

/* config-load.c: files */

/* Keeps name in the config's file list; returns the kept copy. */
const char *ht__cfg_add_file(struct loader *ld, const char *name);
/* The whole file; 0, HT_ENOENT, HT_EIO or HT_ENOMEM. */
int ht__cfg_read_file(const char *path, unsigned char **data, size_t *size);
/* The node tree of one file's text (hashed for `uuid: auto`); NULL,
 * reported, when it is not YAML. */
struct ht_ynode *ht__cfg_parse_text(struct loader *ld, const char *name,
				    const unsigned char *text, size_t size);

/* config-includes.c */

/*
 * The effective node of node (consumed) at level: its children's
 * `$include`s first, then the files it includes, each updated by the
 * next, and node's own properties last.
 */
struct ht_ynode *ht__cfg_process_includes(struct loader *ld,
					  struct ht_ynode *node,
					  enum level level);
/* Leaves the file last entered by `$include`. */
void ht__cfg_pop_include(struct loader *ld);
/* barectf's update: mappings merge, sequences append, values replace. */
int ht__cfg_update_node(struct loader *ld, struct ht_ynode *base,
			const struct ht_ynode *overlay);

/* config-aliases.c */

/* Expands every field type alias and applies every `$inherit`. */
void ht__cfg_expand_field_types(struct loader *ld, struct ht_ynode *tt);
/* Replaces `log-level: NAME` with the log level alias's value. */
void ht__cfg_sub_log_levels(struct loader *ld, struct ht_ynode *tt);

/* The field types of a data stream type's packet `$features`. */
extern const char *const ht__cfg_pkt_features_keys[];

/* config-ft.c: field types */

enum feature_rule {
	FEATURE_UINT,	      /* an unsigned integer (or enum) field type */
	FEATURE_UINT_NOFALSE, /* the same, but `false` is not allowed */
	FEATURE_MAGIC,	      /* 32-bit unsigned integer */
	FEATURE_UUID,	      /* static array of 16 uint8 */
};

/* The members of a structure field type (what: the property). */
bool ht__cfg_parse_members(struct loader *ld, struct ht_ft *ft,
			   const struct ht_ynode *members, const char *what);
/* A root field type that must be a structure, or absent (*out NULL). */
bool ht__cfg_get_struct_ft(struct loader *ld, const struct ht_ynode *map,
			   const char *key, struct ht_ft **out);
/* A feature: true/false/null or a field type obeying rule. */
bool ht__cfg_get_feature(struct loader *ld, const struct ht_ynode *map,
			 const char *key, struct ht_feature *f, bool def,
			 enum feature_rule rule);

/* config-cnames.c: the C names of a model built without a problem */

/* Reports C names that collide, are too long or are no C names. */
void ht__cfg_check_c_names(struct loader *ld);

/* config-model.c: configuration objects */

void ht__cfg_load_options(struct loader *ld, const struct ht_ynode *root);
void ht__cfg_load_trace_type(struct loader *ld, const struct ht_ynode *tt);
void ht__cfg_load_env(struct loader *ld, const struct ht_ynode *trace);

#endif
