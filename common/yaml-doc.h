/* SPDX-License-Identifier: MIT */
#ifndef HT_COMMON_YAML_DOC_H
#define HT_COMMON_YAML_DOC_H

/*
 * A YAML document as a tree of nodes that remember where they were
 * written, so that every message about a configuration can say
 * "file:line:column" (libyaml reads the text). The tree is mutable:
 * the configuration loader (gen/config) merges `$include`s, expands
 * field type aliases and `$inherit`s on it before it builds its model;
 * path descriptions (host/analysis) read it as it is.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a node was written, for messages: "file:line:column: ...". */
struct ht_src_loc {
	const char *file; /* owned by whoever read the file */
	unsigned line;	  /* 1-based */
	unsigned col;	  /* 1-based */
};

enum ht_ynode_kind {
	HT_YNODE_SCALAR,
	HT_YNODE_SEQ,
	HT_YNODE_MAP,
};

/* What a scalar means under YAML 1.1's core schema (as PyYAML reads it). */
enum ht_yscalar_type {
	HT_YSCALAR_NULL,
	HT_YSCALAR_BOOL,
	HT_YSCALAR_INT,
	HT_YSCALAR_FLOAT,
	HT_YSCALAR_STR,
};

struct ht_ynode {
	enum ht_ynode_kind kind;
	struct ht_src_loc loc;
	char *tag; /* explicit tag or NULL */

	/* Scalars. */
	char *str;
	bool quoted; /* a quoted scalar is always a string */

	/*
	 * Sequences: items[0..nr). Mappings: keys[i] -> items[i]; keys are
	 * scalar nodes.
	 */
	struct ht_ynode **keys;
	struct ht_ynode **items;
	size_t nr;
	size_t cap;
};

/*
 * The limits of a document, so that no text costs more than time and
 * memory linear in its size: collections (mappings and sequences,
 * block or flow) nested at most HT_YDOC_MAX_DEPTH deep, checked while
 * libyaml reads the text and before anything is built; and, once
 * aliases are expanded into copies, at most HT_YDOC_MAX_NODES nodes,
 * none deeper than HT_YDOC_MAX_DEPTH. The tree's recursive functions
 * (copy, destroy) and a reader's own recursion over a parsed tree can
 * rely on that depth.
 */
#define HT_YDOC_MAX_DEPTH 256
#define HT_YDOC_MAX_NODES 1000000

/*
 * Parses the YAML text `text` (size bytes) of the file named `file`
 * (kept by pointer in every node's location). On success sets *root
 * to the document's root node and returns 0. On a YAML error, and
 * when a limit above is passed, returns HT_ESYNTAX and fills `msg`
 * (size msg_size) with the message ("invalid YAML: ...") and *line /
 * *col with its position (1-based). Returns HT_ENOMEM when out of
 * memory. An empty document gives a null scalar.
 */
int ht_ydoc_parse(const char *file, const unsigned char *text, size_t size,
		  struct ht_ynode **root, char *msg, size_t msg_size,
		  unsigned *line, unsigned *col);

void ht_ynode_destroy(struct ht_ynode *node);

/* A deep copy, locations included, or NULL when out of memory. */
struct ht_ynode *ht_ynode_copy(const struct ht_ynode *node);

/* A new empty mapping or sequence at loc, or NULL. */
struct ht_ynode *ht_ynode_new(enum ht_ynode_kind kind,
			      const struct ht_src_loc *loc);

/* A new plain scalar holding a copy of str, or NULL. */
struct ht_ynode *ht_ynode_new_scalar(const char *str,
				     const struct ht_src_loc *loc);

/* Appends to a sequence (key NULL) or a mapping; takes ownership. */
int ht_ynode_append(struct ht_ynode *node, struct ht_ynode *key,
		    struct ht_ynode *item);

/* The index of key in a mapping, or -1. */
long ht_ynode_find(const struct ht_ynode *map, const char *key);

/* The value of key in a mapping, or NULL (also when node is no map). */
struct ht_ynode *ht_ynode_get(const struct ht_ynode *map, const char *key);

/* Removes entry i of a mapping or sequence and destroys it. */
void ht_ynode_remove(struct ht_ynode *node, size_t i);

/* Replaces the value at index i (destroying the old one). */
void ht_ynode_replace(struct ht_ynode *node, size_t i, struct ht_ynode *item);

enum ht_yscalar_type ht_yscalar_type(const struct ht_ynode *node);

/* True when node is a null scalar. */
bool ht_ynode_is_null(const struct ht_ynode *node);

/* True when node is a string scalar (not null, bool or number). */
bool ht_ynode_is_str(const struct ht_ynode *node);

/* Reads a boolean scalar; false when the node is not one. */
bool ht_yscalar_bool(const struct ht_ynode *node, bool *value);

/*
 * Reads an integer scalar (decimal, 0x, 0o, 0b, legacy octal 0NNN,
 * with `_` separators). *neg tells the sign; *mag is the magnitude.
 * Returns false when the node is no integer or the magnitude does not
 * fit 64 bits (*overflow then true).
 */
bool ht_yscalar_int(const struct ht_ynode *node, bool *neg, uint64_t *mag,
		    bool *overflow);

/* "a string", "an integer", "a mapping", ... for messages. */
const char *ht_ynode_describe(const struct ht_ynode *node);

#endif
