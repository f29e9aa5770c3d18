/* SPDX-License-Identifier: MIT */
/*
 * Model building: checks the configuration objects (options, trace
 * type, clock types, data stream types, event record types,
 * environment) and fills the model (struct ht_config) from them:
 * barectf's defaults, numbering in name order, the relations between
 * objects (a default clock that exists, one default data stream type,
 * ids wide enough for the types they tell apart).
 *
 * It reads the tree after `$include` and alias expansion; field types
 * themselves are built by config-ft.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "config-internal.h"
#include "model-priv.h"

static const char *const options_keys[] = {"code-generation", "hetrace", NULL};
static const char *const codegen_keys[] = {"prefix", "header", NULL};
static const char *const prefix_keys[] = {"identifier", "file-name", NULL};
static const char *const header_keys[] = {
    "identifier-prefix-definition", "default-data-stream-type-name-definition",
    NULL};
static const char *const hetrace_keys[] = {"event-header", "core-id", NULL};
static const char *const tt_keys[] = {
    "native-byte-order",  "uuid",
    "$features",	  "clock-types",
    "data-stream-types",  "$field-type-aliases",
    "$log-level-aliases", NULL,
};
static const char *const tt_features_keys[] = {
    "magic-field-type", "uuid-field-type", "data-stream-type-id-field-type",
    NULL};
static const char *const clock_keys[] = {
    "uuid",   "description",	      "frequency", "precision",
    "offset", "origin-is-unix-epoch", "$c-type",   NULL,
};
static const char *const offset_keys[] = {"seconds", "cycles", NULL};
static const char *const dst_keys[] = {
    "$is-default",
    "$default-clock-type-name",
    "$features",
    "packet-context-field-type-extra-members",
    "event-record-common-context-field-type",
    "event-record-types",
    NULL,
};
static const char *const dst_features_keys[] = {"packet", "event-record", NULL};
static const char *const er_features_keys[] = {"type-id-field-type",
					       "timestamp-field-type", NULL};
static const char *const ert_keys[] = {
    "log-level", "specific-context-field-type", "payload-field-type", NULL};

static const char *const reserved_pkt_ctx_names[] = {
    "packet_size",	"content_size",	  "timestamp_begin", "timestamp_end",
    "events_discarded", "packet_seq_num", "core_id",	     NULL,
};

/* Sets the identifier and file name prefixes (NULL: not changed). */
static void set_prefix(struct loader *ld, const char *ident, const char *file)
{
	struct ht_config *cfg = ld->cfg;

	free(cfg->prefix_ident);
	free(cfg->prefix_file);
	cfg->prefix_ident = ht__cfg_strdup(ld, ident);
	cfg->prefix_file = ht__cfg_strdup(ld, file);
}

/*
 * The generated files are "<file-name>.h" and "<file-name>.c" in the
 * output directory, and the source includes the header by that name:
 * the prefix must be one plain file name (no `/`, no `..`, not hidden)
 * that a C string literal and a header guard can hold as it is. Room
 * is kept for ".h" and the temporary suffix under NAME_MAX (255).
 */
#define MAX_FILE_NAME 200

static bool check_file_name(struct loader *ld, const struct ht_ynode *v)
{
	const char *p;

	if (!v->str[0] || v->str[0] == '.' || strlen(v->str) > MAX_FILE_NAME) {
		goto bad;
	}
	for (p = v->str; *p; p++) {
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' ||
		      *p == '.')) {
			goto bad;
		}
	}
	return true;

bad:
	ht__cfg_diag(ld, &v->loc,
		     "`file-name`: expected a plain file name of at most %d "
		     "letters, digits, `_`, `-` and `.`, not starting with "
		     "`.`, got `%.*s%s`",
		     MAX_FILE_NAME, 64, v->str,
		     strlen(v->str) > 64 ? "..." : "");
	return false;
}

/* A string of the `prefix` mapping; NULL (reported) when wrong. */
static const char *prefix_str(struct loader *ld, const struct ht_ynode *prefix,
			      const char *key, const char *iden_what)
{
	const struct ht_ynode *v = ht_ynode_get(prefix, key);

	if (!v) {
		ht__cfg_diag(ld, &prefix->loc, "missing `%s` in `prefix`", key);
		return NULL;
	}
	if (!ht_ynode_is_str(v)) {
		ht__cfg_expect_fail(ld, v, key, "a string");
		return NULL;
	}
	if (iden_what ? !ht__cfg_check_iden(ld, v, iden_what)
		      : !check_file_name(ld, v)) {
		return NULL;
	}
	return v->str;
}

/*
 * `prefix`: a string P (identifiers P_, files P.h and P.c) or a
 * mapping with `identifier` and `file-name`; absent, barectf's
 * defaults stay.
 */
static void load_prefix(struct loader *ld, const struct ht_ynode *prefix)
{
	const char *ident, *file;
	char *under;
	size_t n;

	if (!prefix) {
		return;
	}
	if (ht_ynode_is_str(prefix)) {
		if (!ht__cfg_check_iden(ld, prefix, "prefix")) {
			return;
		}
		ld->prefix_loc = prefix->loc;
		n = strlen(prefix->str) + 2;
		under = malloc(n);
		if (!under) {
			ld->fatal = HT_ENOMEM;
			return;
		}
		snprintf(under, n, "%s_", prefix->str);
		set_prefix(ld, under, prefix->str);
		free(under);
		return;
	}
	if (prefix->kind != HT_YNODE_MAP) {
		ht__cfg_expect_fail(ld, prefix, "prefix",
				    "a string or a mapping with `identifier` "
				    "and `file-name`");
		return;
	}
	ht__cfg_check_keys(ld, prefix, prefix_keys, "`prefix`");
	ident = prefix_str(ld, prefix, "identifier", "identifier prefix");
	file = prefix_str(ld, prefix, "file-name", NULL);
	if (ident && file) {
		set_prefix(ld, ident, file);
		ld->prefix_loc = ht_ynode_get(prefix, "identifier")->loc;
	}
}

static void load_codegen_options(struct loader *ld, const struct ht_ynode *cg)
{
	struct ht_config *cfg = ld->cfg;
	const struct ht_ynode *hdr;

	ht__cfg_check_keys(ld, cg, codegen_keys, "`code-generation` options");
	load_prefix(ld, ht_ynode_get(cg, "prefix"));
	hdr = ht__cfg_get_map(ld, cg, "header", "a mapping", false);
	if (!hdr) {
		return;
	}
	ht__cfg_check_keys(ld, hdr, header_keys, "`header` options");
	ht__cfg_get_bool(ld, hdr, "identifier-prefix-definition",
			 &cfg->header_ident_prefix_def, false);
	ht__cfg_get_bool(ld, hdr, "default-data-stream-type-name-definition",
			 &cfg->header_default_dst_def, false);
}

static void load_hetrace_options(struct loader *ld, const struct ht_ynode *ht)
{
	const char *s = NULL;
	bool core_id = true;

	ht__cfg_check_keys(ld, ht, hetrace_keys, "`hetrace` options");
	if (ht__cfg_get_str(ld, ht, "event-header", &s) && s) {
		if (!strcmp(s, "barectf")) {
			ld->barectf_header = true;
		} else if (strcmp(s, "compact")) {
			ht__cfg_diag(ld, &ht_ynode_get(ht, "event-header")->loc,
				     "`event-header`: expected `compact` or "
				     "`barectf`, got `%s`",
				     s);
		}
	}
	ht__cfg_get_bool(ld, ht, "core-id", &core_id, false);
	ld->cfg->no_core_id = !core_id;
}

void ht__cfg_load_options(struct loader *ld, const struct ht_ynode *root)
{
	const struct ht_ynode *opts, *cg, *ht;

	opts = ht__cfg_get_map(ld, root, "options", "a mapping", false);
	if (!opts) {
		return;
	}
	ht__cfg_check_keys(ld, opts, options_keys, "`options`");
	cg = ht__cfg_get_map(ld, opts, "code-generation", "a mapping", false);
	if (cg) {
		load_codegen_options(ld, cg);
	}
	ht = ht__cfg_get_map(ld, opts, "hetrace", "a mapping", false);
	if (ht) {
		load_hetrace_options(ld, ht);
	}
}

static int cmp_clock(const void *a, const void *b)
{
	return strcmp(((const struct ht_clock_type *)a)->name,
		      ((const struct ht_clock_type *)b)->name);
}

/*
 * What every named object gets checked for: its name is an identifier,
 * and it is a mapping (`a_what`, e.g. "a clock type") of known keys.
 * Returns false when it is not a mapping: there is nothing more to read.
 */
static bool check_object(struct loader *ld, const struct ht_ynode *name,
			 const struct ht_ynode *node, const char *a_what,
			 const char *const *keys)
{
	const char *what = strchr(a_what, ' ') + 1;
	char buf[96];

	snprintf(buf, sizeof(buf), "%s name", what);
	ht__cfg_check_iden(ld, name, buf);
	if (node->kind != HT_YNODE_MAP) {
		snprintf(buf, sizeof(buf), "%s (a mapping)", a_what);
		ht__cfg_expect_fail(ld, node, name->str, buf);
		return false;
	}
	ht__cfg_check_keys(ld, node, keys, what);
	return true;
}

enum c_spec {
	SPEC_VOID,
	SPEC_CHAR,
	SPEC_SHORT,
	SPEC_INT,
	SPEC_LONG,
	SPEC_FLOAT,
	SPEC_DOUBLE,
	SPEC_SIGNED,
	SPEC_UNSIGNED,
	SPEC_BOOL,
	NR_SPECS
};

static const char *const c_specs[NR_SPECS] = {
    "void",  "char",   "short",	 "int",	     "long",
    "float", "double", "signed", "unsigned", "_Bool",
};

/* C's keywords, but for the type specifiers above. */
static const char *const c_other_keywords[] = {
    "auto",	     "const",	  "volatile",
    "break",	     "case",	  "continue",
    "default",	     "do",	  "else",
    "enum",	     "extern",	  "for",
    "goto",	     "if",	  "inline",
    "register",	     "restrict",  "return",
    "sizeof",	     "static",	  "struct",
    "switch",	     "typedef",	  "union",
    "while",	     "_Alignas",  "_Alignof",
    "_Atomic",	     "_Complex",  "_Generic",
    "_Imaginary",    "_Noreturn", "_Static_assert",
    "_Thread_local", "bool",	  "true",
    "false",	     "NULL",	  NULL,
};

/* Is n[] (the count of each specifier) one of C's arithmetic types? */
static bool c_specs_ok(const unsigned n[NR_SPECS])
{
	unsigned i, total = 0;

	for (i = 0; i < NR_SPECS; i++) {
		if (n[i] > (i == SPEC_LONG ? 2u : 1u)) {
			return false;
		}
		total += n[i];
	}
	if (!total || n[SPEC_VOID] || (n[SPEC_SIGNED] && n[SPEC_UNSIGNED])) {
		return false;
	}
	if (n[SPEC_BOOL] || n[SPEC_FLOAT]) {
		return total == 1;
	}
	if (n[SPEC_DOUBLE]) {
		return total == 1 + n[SPEC_LONG] && n[SPEC_LONG] <= 1;
	}
	if (n[SPEC_CHAR]) {
		return !n[SPEC_SHORT] && !n[SPEC_INT] && !n[SPEC_LONG];
	}
	return !(n[SPEC_SHORT] && n[SPEC_LONG]);
}

/*
 * A clock's `$c-type` is the return type of its callback, a member of
 * the generated callbacks structure whose value the code converts to
 * 64 bits: an arithmetic type name, either a combination of C's type
 * specifiers (`unsigned long long`) or one typedef name (`uint64_t`).
 * Pointers, `void`, structures and qualifiers (meaningless on a return
 * type, a warning under -Wextra) would not compile there.
 */
static bool c_type_ok(const char *s)
{
	unsigned n[NR_SPECS] = {0}, nr_typedefs = 0, i;
	const char *p = s;

	for (;;) {
		const char *w;
		size_t len;

		while (*p == ' ' || *p == '\t') {
			p++;
		}
		if (!*p) {
			break;
		}
		w = p;
		while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		       (*p >= '0' && *p <= '9') || *p == '_') {
			p++;
		}
		len = (size_t)(p - w);
		if (!len || (*w >= '0' && *w <= '9')) {
			return false;
		}
		for (i = 0; i < NR_SPECS; i++) {
			if (strlen(c_specs[i]) == len &&
			    !strncmp(w, c_specs[i], len)) {
				n[i]++;
				break;
			}
		}
		if (i < NR_SPECS) {
			continue;
		}
		for (i = 0; c_other_keywords[i]; i++) {
			if (strlen(c_other_keywords[i]) == len &&
			    !strncmp(w, c_other_keywords[i], len)) {
				return false;
			}
		}
		nr_typedefs++;
	}
	if (nr_typedefs) {
		for (i = 0; i < NR_SPECS; i++) {
			if (n[i]) {
				return false;
			}
		}
		return nr_typedefs == 1;
	}
	return c_specs_ok(n);
}

static void load_clock(struct loader *ld, const struct ht_ynode *name,
		       const struct ht_ynode *node, struct ht_clock_type *ct)
{
	const struct ht_ynode *off;
	const char *s = NULL;
	uint64_t u;

	ct->name = ht__cfg_strdup(ld, name->str);
	ct->loc = name->loc;
	ct->freq_hz = 1000000000;
	ct->c_type = ht__cfg_strdup(ld, "uint32_t");
	if (!check_object(ld, name, node, "a clock type", clock_keys)) {
		return;
	}
	if (ht__cfg_get_str(ld, node, "uuid", &s) && s) {
		if (!ht__cfg_parse_uuid(s, ct->uuid)) {
			ht__cfg_diag(
			    ld, &ht_ynode_get(node, "uuid")->loc,
			    "`uuid`: expected a UUID "
			    "(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, lowercase "
			    "hexadecimal digits), got `%s`",
			    s);
		} else {
			ct->has_uuid = true;
		}
	}
	s = NULL;
	if (ht__cfg_get_str(ld, node, "description", &s) && s) {
		ct->description = ht__cfg_strdup(ld, s);
	}
	ht__cfg_get_uint(ld, node, "frequency", 1, UINT64_MAX, &ct->freq_hz);
	ht__cfg_get_uint(ld, node, "precision", 0, UINT64_MAX, &ct->precision);
	off = ht__cfg_get_map(ld, node, "offset",
			      "a mapping with `seconds` and `cycles`", true);
	if (off) {
		ht__cfg_check_keys(ld, off, offset_keys, "clock type offset");
		u = 0;
		if (ht__cfg_get_uint(ld, off, "seconds", 0, INT64_MAX, &u)) {
			ct->offset_seconds = (int64_t)u;
		}
		ht__cfg_get_uint(ld, off, "cycles", 0, UINT64_MAX,
				 &ct->offset_cycles);
	}
	/* barectf 3.1 writes `absolute = false` unless told otherwise. */
	ct->origin_is_unix_epoch = false;
	ht__cfg_get_bool(ld, node, "origin-is-unix-epoch",
			 &ct->origin_is_unix_epoch, true);
	s = NULL;
	if (ht__cfg_get_str(ld, node, "$c-type", &s) && s) {
		if (!c_type_ok(s)) {
			ht__cfg_diag(ld, &ht_ynode_get(node, "$c-type")->loc,
				     "`$c-type`: expected a C integer type "
				     "name (`uint64_t`, `unsigned long long`, "
				     "a typedef name), got `%.64s%s`",
				     s, strlen(s) > 64 ? "..." : "");
			return;
		}
		free(ct->c_type);
		ct->c_type = ht__cfg_strdup(ld, s);
	}
}

static int cmp_event(const void *a, const void *b)
{
	return strcmp(((const struct ht_event_type *)a)->name,
		      ((const struct ht_event_type *)b)->name);
}

/* The number of members a structure field type node lists. */
static size_t nr_members_node(const struct ht_ynode *ert, const char *key)
{
	const struct ht_ynode *ft = ht_ynode_get(ert, key);
	const struct ht_ynode *m = ht_ynode_get(ft, "members");

	return m && m->kind == HT_YNODE_SEQ ? m->nr : 0;
}

static void load_ert(struct loader *ld, const struct ht_ynode *name,
		     const struct ht_ynode *node, struct ht_event_type *et)
{
	const struct ht_ynode *ll;
	uint64_t u;

	et->name = ht__cfg_strdup(ld, name->str);
	et->loc = name->loc;
	if (!check_object(ld, name, node, "an event record type", ert_keys)) {
		return;
	}
	ll = ht_ynode_get(node, "log-level");
	if (!ht__cfg_is_absent(ll) && !ht__cfg_is_error(ll)) {
		if (ht__cfg_want_uint(ld, ll, "log-level", 0, INT64_MAX, &u)) {
			et->has_log_level = true;
			et->log_level = (int64_t)u;
		}
	}
	ht__cfg_get_struct_ft(ld, node, "specific-context-field-type",
			      &et->spec_ctx);
	ht__cfg_get_struct_ft(ld, node, "payload-field-type", &et->payload);
}

static struct ht_clock_type *find_clock(struct ht_config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->nr_clocks; i++) {
		if (!strcmp(cfg->clocks[i].name, name)) {
			return &cfg->clocks[i];
		}
	}
	return NULL;
}

/*
 * The id feature `key` (f) must exist when there is more than one of
 * nr objects (`what`, held by `owner`) and be wide enough to tell them
 * apart.
 */
static void check_id_room(struct loader *ld, const struct ht_feature *f,
			  const char *key, const char *what, const char *owner,
			  size_t nr)
{
	if (!f->enabled && nr > 1) {
		ht__cfg_diag(ld, &f->loc,
			     "`%s`: the %s id is needed: %s has %zu %ss", key,
			     what, owner, nr, what);
	}
	if (f->ft && f->ft->size_bits < 64 &&
	    nr > (UINT64_C(1) << f->ft->size_bits)) {
		ht__cfg_diag(ld, &f->loc,
			     "`%s`: a %u-bit id cannot tell %zu %ss apart", key,
			     f->ft->size_bits, nr, what);
	}
}

/* `$default-clock-type-name`: a clock type of the trace type. */
static void load_dst_clock(struct loader *ld, const struct ht_ynode *node,
			   struct ht_stream_type *st)
{
	struct ht_config *cfg = ld->cfg;
	const struct ht_ynode *v;
	const char *names[64];
	char sugg[128];
	size_t i, nr = 0;

	v = ht_ynode_get(node, "$default-clock-type-name");
	if (ht__cfg_is_absent(v)) {
		return;
	}
	if (!ht_ynode_is_str(v)) {
		ht__cfg_expect_fail(ld, v, "$default-clock-type-name",
				    "a clock type name");
		return;
	}
	if (!ht__cfg_check_iden(ld, v, "clock type name")) {
		return;
	}
	st->default_clock = find_clock(cfg, v->str);
	if (st->default_clock) {
		return;
	}
	for (i = 0; i < cfg->nr_clocks && nr < 64; i++) {
		names[nr++] = cfg->clocks[i].name;
	}
	ht__cfg_suggestion(sugg, sizeof(sugg), v->str, names, nr);
	ht__cfg_diag(ld, &v->loc, "unknown clock type `%s`%s", v->str, sugg);
}

/* The packet and event record `$features`, and the header they give. */
static void load_dst_features(struct loader *ld, const struct ht_ynode *node,
			      struct ht_stream_type *st)
{
	const struct ht_ynode *features, *pkt = NULL, *er = NULL;
	bool has_clock = st->default_clock != NULL;
	size_t i;

	features = ht__cfg_get_map(ld, node, "$features", "a mapping", true);
	if (features) {
		ht__cfg_check_keys(ld, features, dst_features_keys,
				   "data stream type `$features`");
		pkt =
		    ht__cfg_get_map(ld, features, "packet", "a mapping", true);
		er = ht__cfg_get_map(ld, features, "event-record", "a mapping",
				     true);
		if (pkt) {
			ht__cfg_check_keys(ld, pkt, ht__cfg_pkt_features_keys,
					   "packet `$features`");
		}
		if (er) {
			ht__cfg_check_keys(ld, er, er_features_keys,
					   "event record `$features`");
		}
	}
	ht__cfg_get_feature(ld, pkt, "total-size-field-type",
			    &st->pkt_total_size, true, FEATURE_UINT_NOFALSE);
	ht__cfg_get_feature(ld, pkt, "content-size-field-type",
			    &st->pkt_content_size, true, FEATURE_UINT_NOFALSE);
	ht__cfg_get_feature(ld, pkt, "beginning-timestamp-field-type",
			    &st->pkt_ts_begin, has_clock, FEATURE_UINT);
	ht__cfg_get_feature(ld, pkt, "end-timestamp-field-type",
			    &st->pkt_ts_end, has_clock, FEATURE_UINT);
	ht__cfg_get_feature(
	    ld, pkt, "discarded-event-records-counter-snapshot-field-type",
	    &st->pkt_discarded, true, FEATURE_UINT);
	/* hetrace: the sequence number is on unless turned off. */
	ht__cfg_get_feature(ld, pkt, "sequence-number-field-type",
			    &st->pkt_seq_num, true, FEATURE_UINT);
	ht__cfg_get_feature(ld, er, "type-id-field-type", &st->ev_type_id, true,
			    FEATURE_UINT);
	ht__cfg_get_feature(ld, er, "timestamp-field-type", &st->ev_timestamp,
			    has_clock, FEATURE_UINT);
	if (!has_clock) {
		struct ht_feature *ts[] = {&st->pkt_ts_begin, &st->pkt_ts_end,
					   &st->ev_timestamp};
		static const char *const names[] = {
		    "beginning-timestamp-field-type",
		    "end-timestamp-field-type", "timestamp-field-type"};

		for (i = 0; i < 3; i++) {
			if (ts[i]->enabled) {
				ht__cfg_diag(
				    ld, &ts[i]->loc,
				    "`%s`: a timestamp needs a default clock "
				    "type (`$default-clock-type-name`)",
				    names[i]);
			}
		}
	}
	/*
	 * The compact header holds the id and, with a clock, the
	 * timestamp; a configuration that sets either feature (a field
	 * type or `false`) gets barectf's layout, which honours it.
	 */
	st->compact_header = !ld->barectf_header && !st->ev_type_id.ft &&
			     !st->ev_timestamp.ft && st->ev_type_id.enabled &&
			     st->ev_timestamp.enabled == has_clock;
}

/* `packet-context-field-type-extra-members`: no reserved names. */
static void load_pkt_ctx_extra(struct loader *ld, const struct ht_ynode *node,
			       struct ht_stream_type *st)
{
	const struct ht_ynode *v;
	struct ht_ft *ft;
	size_t i, j;

	v = ht_ynode_get(node, "packet-context-field-type-extra-members");
	if (ht__cfg_is_absent(v)) {
		return;
	}
	ft = calloc(1, sizeof(*ft));
	if (!ft) {
		ld->fatal = HT_ENOMEM;
		return;
	}
	ft->kind = HT_FT_STRUCT;
	ft->loc = v->loc;
	ft->align_bits = 1;
	if (!ht__cfg_parse_members(ld, ft, v,
				   "packet-context-field-type-extra-members")) {
		ht__ft_destroy(ft);
		return;
	}
	st->pkt_ctx_extra = ft;
	for (i = 0; i < ft->nr_members; i++) {
		for (j = 0; reserved_pkt_ctx_names[j]; j++) {
			if (!strcmp(ft->members[i].name,
				    reserved_pkt_ctx_names[j])) {
				ht__cfg_diag(ld, &ft->members[i].loc,
					     "packet context member name `%s` "
					     "is reserved",
					     ft->members[i].name);
			}
		}
	}
}

/* `event-record-types`: loaded, numbered in name order, not empty. */
static void load_dst_events(struct loader *ld, const struct ht_ynode *name,
			    const struct ht_ynode *node,
			    struct ht_stream_type *st)
{
	const struct ht_ynode *erts;
	size_t i, base_members;
	char where[300];

	snprintf(where, sizeof(where), "data stream type `%s`", name->str);
	erts = ht__cfg_get_named_map(ld, node, "event-record-types", where,
				     "event record type");
	if (!erts) {
		return;
	}
	st->events = calloc(erts->nr, sizeof(*st->events));
	if (!st->events) {
		ld->fatal = HT_ENOMEM;
		return;
	}
	base_members =
	    (st->ev_type_id.enabled ? 1 : 0) +
	    (st->ev_timestamp.enabled ? 1 : 0) +
	    nr_members_node(node, "event-record-common-context-field-type");
	for (i = 0; i < erts->nr && !ld->fatal; i++) {
		struct ht_event_type *et = &st->events[st->nr_events];

		if (erts->keys[i]->kind != HT_YNODE_SCALAR) {
			continue;
		}
		st->nr_events++;
		load_ert(ld, erts->keys[i], erts->items[i], et);
		if (erts->items[i]->kind == HT_YNODE_MAP &&
		    base_members +
			    nr_members_node(erts->items[i],
					    "specific-context-field-type") +
			    nr_members_node(erts->items[i],
					    "payload-field-type") ==
			0) {
			ht__cfg_diag(
			    ld, &erts->keys[i]->loc,
			    "event record type `%s` is empty (no members)",
			    erts->keys[i]->str);
		}
	}

	/* barectf numbers event record types in name order. */
	qsort(st->events, st->nr_events, sizeof(*st->events), cmp_event);
	for (i = 0; i < st->nr_events; i++) {
		st->events[i].id = i;
	}
	check_id_room(ld, &st->ev_type_id, "type-id-field-type",
		      "event record type", where, st->nr_events);
}

static void load_dst(struct loader *ld, const struct ht_ynode *name,
		     const struct ht_ynode *node, struct ht_stream_type *st)
{
	st->name = ht__cfg_strdup(ld, name->str);
	st->loc = name->loc;
	if (!check_object(ld, name, node, "a data stream type", dst_keys)) {
		return;
	}
	ht__cfg_get_bool(ld, node, "$is-default", &st->is_default, true);
	load_dst_clock(ld, node, st);
	load_dst_features(ld, node, st);
	load_pkt_ctx_extra(ld, node, st);
	if (ld->fatal) {
		return;
	}
	ht__cfg_get_struct_ft(ld, node,
			      "event-record-common-context-field-type",
			      &st->ev_common_ctx);
	load_dst_events(ld, name, node, st);
}

static int cmp_stream(const void *a, const void *b)
{
	return strcmp(((const struct ht_stream_type *)a)->name,
		      ((const struct ht_stream_type *)b)->name);
}

/* `native-byte-order` and `uuid`. */
static void load_tt_props(struct loader *ld, const struct ht_ynode *tt)
{
	struct ht_config *cfg = ld->cfg;
	const struct ht_ynode *v;
	const char *s = NULL;

	v = ht_ynode_get(tt, "native-byte-order");
	if (!v) {
		ht__cfg_diag(ld, &tt->loc,
			     "missing `native-byte-order` in trace type");
	} else if (!ht_ynode_is_str(v) ||
		   !ht__cfg_parse_byte_order(v->str, &cfg->native_bo)) {
		ht__cfg_expect_fail(
		    ld, v, "native-byte-order",
		    "`le`, `little`, `little-endian`, `be`, `big` or "
		    "`big-endian`");
	}
	if (ht__cfg_get_str(ld, tt, "uuid", &s) && s) {
		if (!strcmp(s, "auto")) {
			/* Filled from the content hash at the end. */
			cfg->has_uuid = true;
			ld->uuid_auto = true;
		} else if (!ht__cfg_parse_uuid(s, cfg->uuid)) {
			ht__cfg_diag(
			    ld, &ht_ynode_get(tt, "uuid")->loc,
			    "`uuid`: expected `auto` or a UUID "
			    "(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, lowercase "
			    "hexadecimal digits), got `%s`",
			    s);
		} else {
			cfg->has_uuid = true;
		}
	}
}

/* The trace type's `$features`: magic, UUID and stream id fields. */
static void load_tt_features(struct loader *ld, const struct ht_ynode *tt)
{
	struct ht_config *cfg = ld->cfg;
	const struct ht_ynode *features;

	features = ht__cfg_get_map(ld, tt, "$features", "a mapping", true);
	if (features) {
		ht__cfg_check_keys(ld, features, tt_features_keys,
				   "trace type `$features`");
	}
	ht__cfg_get_feature(ld, features, "magic-field-type", &cfg->magic, true,
			    FEATURE_MAGIC);
	ht__cfg_get_feature(ld, features, "uuid-field-type", &cfg->uuid_field,
			    cfg->has_uuid, FEATURE_UUID);
	ht__cfg_get_feature(ld, features, "data-stream-type-id-field-type",
			    &cfg->stream_id_field, true, FEATURE_UINT);
	if (cfg->uuid_field.enabled && !cfg->has_uuid) {
		ht__cfg_diag(
		    ld, &cfg->uuid_field.loc,
		    "`uuid-field-type`: the trace type has no `uuid` to write");
	}
}

/* `clock-types`, in name order. */
static void load_clocks(struct loader *ld, const struct ht_ynode *tt)
{
	struct ht_config *cfg = ld->cfg;
	const struct ht_ynode *clocks;
	size_t i;

	clocks = ht__cfg_get_map(ld, tt, "clock-types",
				 "a mapping of clock type names to clock types",
				 false);
	if (!clocks) {
		return;
	}
	ht__cfg_check_dup_names(ld, clocks, "clock type");
	cfg->clocks = calloc(clocks->nr + 1, sizeof(*cfg->clocks));
	if (!cfg->clocks) {
		ld->fatal = HT_ENOMEM;
		return;
	}
	for (i = 0; i < clocks->nr && !ld->fatal; i++) {
		if (clocks->keys[i]->kind != HT_YNODE_SCALAR) {
			continue;
		}
		load_clock(ld, clocks->keys[i], clocks->items[i],
			   &cfg->clocks[cfg->nr_clocks++]);
	}
	qsort(cfg->clocks, cfg->nr_clocks, sizeof(*cfg->clocks), cmp_clock);
}

/* `data-stream-types`, numbered in name order, at most one default. */
static void load_dsts(struct loader *ld, const struct ht_ynode *tt)
{
	struct ht_config *cfg = ld->cfg;
	const struct ht_ynode *dsts, *first_default = NULL;
	size_t i;

	dsts = ht__cfg_get_named_map(ld, tt, "data-stream-types", "trace type",
				     "data stream type");
	if (!dsts) {
		return;
	}
	cfg->streams = calloc(dsts->nr, sizeof(*cfg->streams));
	if (!cfg->streams) {
		ld->fatal = HT_ENOMEM;
		return;
	}
	for (i = 0; i < dsts->nr && !ld->fatal; i++) {
		struct ht_stream_type *st = &cfg->streams[cfg->nr_streams];

		if (dsts->keys[i]->kind != HT_YNODE_SCALAR) {
			continue;
		}
		cfg->nr_streams++;
		load_dst(ld, dsts->keys[i], dsts->items[i], st);
		if (st->is_default) {
			if (first_default) {
				ht__cfg_diag(
				    ld,
				    &ht_ynode_get(dsts->items[i], "$is-default")
					 ->loc,
				    "more than one default data stream type "
				    "(`%s` is already the default)",
				    first_default->str);
			} else {
				first_default = dsts->keys[i];
			}
		}
	}
	qsort(cfg->streams, cfg->nr_streams, sizeof(*cfg->streams), cmp_stream);
	for (i = 0; i < cfg->nr_streams; i++) {
		cfg->streams[i].id = i;
	}
	check_id_room(ld, &cfg->stream_id_field,
		      "data-stream-type-id-field-type", "data stream type",
		      "the trace type", cfg->nr_streams);
}

void ht__cfg_load_trace_type(struct loader *ld, const struct ht_ynode *tt)
{
	ht__cfg_check_keys(ld, tt, tt_keys, "trace type");
	load_tt_props(ld, tt);
	load_tt_features(ld, tt);
	load_clocks(ld, tt);
	if (!ld->fatal) {
		load_dsts(ld, tt);
	}
}

void ht__cfg_load_env(struct loader *ld, const struct ht_ynode *trace)
{
	struct ht_config *cfg = ld->cfg;
	const struct ht_ynode *env;
	size_t i;

	env =
	    ht__cfg_get_map(ld, trace, "environment",
			    "a mapping of names to strings or integers", true);
	if (!env) {
		return;
	}
	ht__cfg_check_dup_names(ld, env, "environment entry");
	cfg->env = calloc(env->nr + 1, sizeof(*cfg->env));
	if (!cfg->env) {
		ld->fatal = HT_ENOMEM;
		return;
	}
	for (i = 0; i < env->nr; i++) {
		const struct ht_ynode *k = env->keys[i], *v = env->items[i];
		struct ht_env_entry *e;
		bool neg, of;
		uint64_t mag;

		if (k->kind != HT_YNODE_SCALAR ||
		    !ht__cfg_check_iden(ld, k, "environment entry name")) {
			continue;
		}
		e = &cfg->env[cfg->nr_env];
		if (ht_yscalar_int(v, &neg, &mag, &of) || of) {
			if (of || (!neg && mag > INT64_MAX) ||
			    (neg && mag > (uint64_t)INT64_MAX + 1)) {
				ht__cfg_diag(
				    ld, &v->loc,
				    "`%s`: integer %s does not fit 64 bits",
				    k->str, v->str);
				continue;
			}
			e->is_int = true;
			e->i = neg ? (int64_t)(0 - mag) : (int64_t)mag;
		} else if (ht_ynode_is_str(v)) {
			e->s = ht__cfg_strdup(ld, v->str);
		} else {
			ht__cfg_expect_fail(ld, v, k->str,
					    "a string or an integer");
			continue;
		}
		e->key = ht__cfg_strdup(ld, k->str);
		cfg->nr_env++;
	}
}
