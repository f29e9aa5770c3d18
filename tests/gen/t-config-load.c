/* SPDX-License-Identifier: MIT */
/*
 * ht_config_load(): the model the emitters read, value by value, for the
 * configurations of tests/gen/good/, and what an invalid configuration
 * gives (no model, every message).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/config/config-load.h"
#include "common/error.h"
#include "tests/check.h"

static char path_buf[4096];

static const char *good(const char *name)
{
	const char *top = getenv("TOP");

	snprintf(path_buf, sizeof(path_buf), "%s/tests/gen/good/%s",
		 top ? top : ".", name);
	return path_buf;
}

static struct ht_config *load(const char *path)
{
	struct ht_diags diags;
	struct ht_config *cfg = NULL;
	size_t i;
	int ret;

	ret = ht_config_load(path, NULL, 0, &cfg, &diags);
	if (ret) {
		printf("FAIL: %s: %s\n", path, ht_strerror(ret));
		for (i = 0; i < diags.nr; i++) {
			printf("    %s\n", diags.msgs[i]);
		}
		check_failed++;
	}
	ht_diags_fini(&diags);
	return cfg;
}

static const struct ht_struct_member *member(const struct ht_ft *st,
					     const char *name)
{
	size_t i;

	for (i = 0; st && i < st->nr_members; i++) {
		if (!strcmp(st->members[i].name, name)) {
			return &st->members[i];
		}
	}
	printf("FAIL: no member `%s`\n", name);
	check_failed++;
	exit(1);
}

static void test_all_types(void)
{
	static const uint8_t uuid[16] = {0x0b, 0xad, 0xc0, 0xde, 0x12, 0x34,
					 0x4b, 0xcd, 0x8e, 0xf0, 0x12, 0x34,
					 0x56, 0x78, 0x9a, 0xbc};
	struct ht_config *cfg = load(good("all-types.yaml"));
	const struct ht_stream_type *st;
	const struct ht_clock_type *ck;
	const struct ht_ft *p, *ft;
	const struct ht_enum_mapping *m;

	if (!cfg) {
		return;
	}
	CHECK_STR(cfg->prefix_ident, "tr_");
	CHECK_STR(cfg->prefix_file, "tracing");
	CHECK(cfg->header_ident_prefix_def);
	CHECK(cfg->header_default_dst_def);
	CHECK(cfg->native_bo == HT_BO_LE);
	CHECK(cfg->has_uuid && !memcmp(cfg->uuid, uuid, 16));
	CHECK(cfg->magic.enabled && !cfg->magic.ft);
	CHECK(cfg->uuid_field.enabled && cfg->stream_id_field.enabled);

	CHECK(cfg->nr_clocks == 1);
	ck = &cfg->clocks[0];
	CHECK_STR(ck->name, "sys");
	CHECK(ck->freq_hz == 1000000000);
	CHECK(ck->offset_seconds == 1600000000 && ck->offset_cycles == 42);
	CHECK(ck->origin_is_unix_epoch && ck->precision == 10);
	CHECK_STR(ck->description, "The \"system\" clock \\ ns");
	CHECK_STR(ck->c_type, "uint64_t");
	CHECK(ck->has_uuid && ck->uuid[0] == 0x7b && ck->uuid[15] == 0x66);

	CHECK(cfg->nr_streams == 1);
	st = &cfg->streams[0];
	CHECK(ht_config_default_stream(cfg) == st);
	CHECK(st->default_clock == ck && st->compact_header);
	CHECK(st->pkt_ts_begin.enabled && st->pkt_ts_end.enabled);
	CHECK(st->pkt_seq_num.enabled && st->pkt_discarded.enabled);
	CHECK(st->ev_type_id.enabled && st->ev_timestamp.enabled);
	CHECK(st->ev_common_ctx && st->ev_common_ctx->nr_members == 1);

	/* Event record types: name order, ids = index (barectf). */
	CHECK(st->nr_events == 5);
	CHECK_STR(st->events[0].name, "enums_and_reals");
	CHECK_STR(st->events[1].name, "integers");
	CHECK_STR(st->events[2].name, "nested");
	CHECK_STR(st->events[3].name, "strings_and_arrays");
	CHECK_STR(st->events[4].name, "struct_elems");
	CHECK(st->events[0].id == 0 && st->events[3].id == 3);
	CHECK(st->events[0].has_log_level && st->events[0].log_level == 3);
	CHECK(st->events[1].has_log_level && st->events[1].log_level == 14);
	CHECK(!st->events[2].has_log_level);
	CHECK(st->events[3].has_log_level && st->events[3].log_level == 0);

	p = st->events[1].payload;
	CHECK(p && p->kind == HT_FT_STRUCT && p->nr_members == 10);
	ft = member(p, "u1")->ft;
	CHECK(ft->kind == HT_FT_UINT && ft->size_bits == 1 &&
	      ft->align_bits == 1);
	ft = member(p, "u7")->ft;
	CHECK(ft->display_base == 2 && ft->align_bits == 1);
	ft = member(p, "s3")->ft;
	CHECK(ft->kind == HT_FT_SINT && ft->size_bits == 3);
	ft = member(p, "o")->ft;
	CHECK(ft->display_base == 8 && ft->kind == HT_FT_SINT);
	ft = member(p, "w")->ft;
	CHECK(ft->byte_order == HT_BO_BE && ft->align_bits == 16 &&
	      ft->size_bits == 16);
	ft = member(p, "h")->ft;
	CHECK(ft->byte_order == HT_BO_LE && ft->display_base == 16 &&
	      ft->align_bits == 32);
	ft = member(p, "bp")->ft;
	CHECK(ft->size_bits == 32 && ft->align_bits == 8);
	ft = member(p, "bit")->ft;
	CHECK(ft->kind == HT_FT_SINT && ft->size_bits == 16 &&
	      ft->align_bits == 1 && ft->byte_order == HT_BO_NATIVE);

	ft = member(st->events[0].spec_ctx, "st")->ft;
	CHECK(ft->kind == HT_FT_UENUM && ft->nr_mappings == 3);
	m = &ft->mappings[1];
	CHECK_STR(m->label, "RUNNING");
	CHECK(m->nr_ranges == 2 && m->ranges[0].lower.u == 1 &&
	      m->ranges[0].upper.u == 3 && m->ranges[1].lower.u == 7 &&
	      m->ranges[1].upper.u == 7);
	CHECK_STR(ft->mappings[2].label, "QUOTED \"LABEL\"");
	p = st->events[0].payload;
	CHECK(p->align_bits == 8);
	ft = member(p, "t")->ft;
	CHECK(ft->kind == HT_FT_SENUM && ft->display_base == 16);
	CHECK(ft->mappings[0].ranges[0].lower.s == -32768 &&
	      ft->mappings[0].ranges[0].upper.s == -1);
	CHECK(member(p, "e3")->ft->mappings[0].ranges[0].lower.s == -8);
	ft = member(p, "f")->ft;
	CHECK(ft->kind == HT_FT_REAL && ft->size_bits == 32 &&
	      ft->align_bits == 32);
	CHECK(member(p, "r")->ft->align_bits == 8);
	CHECK(member(p, "bf")->ft->align_bits == 1);

	p = st->events[3].payload;
	ft = member(p, "fixed")->ft;
	CHECK(ft->kind == HT_FT_STATIC_ARRAY && ft->length == 4 &&
	      ft->elem->size_bits == 16);
	CHECK(member(p, "empty")->ft->length == 0);
	ft = member(p, "dyn")->ft;
	CHECK(ft->kind == HT_FT_DYNAMIC_ARRAY && ft->elem->kind == HT_FT_REAL);
	ft = member(p, "grid")->ft;
	CHECK(ft->kind == HT_FT_DYNAMIC_ARRAY &&
	      ft->elem->kind == HT_FT_STATIC_ARRAY && ft->elem->length == 3);
	CHECK(member(p, "s")->ft->kind == HT_FT_STRING);
	CHECK(ht_ft_align(p) == 64);

	/* hetrace: nested structures and static arrays of structures. */
	p = st->events[2].payload;
	ft = member(p, "origin")->ft;
	CHECK(ft->kind == HT_FT_STRUCT && ft->nr_members == 2 &&
	      ht_ft_align(ft) == 32);
	ft = member(p, "corners")->ft;
	CHECK(ft->kind == HT_FT_STATIC_ARRAY && ft->length == 2 &&
	      ft->elem->kind == HT_FT_STRUCT);
	ft = member(p, "box")->ft;
	CHECK(ft->align_bits == 64 && ht_ft_align(ft) == 64);
	ft = member(ft, "inner")->ft;
	CHECK(ft->kind == HT_FT_STRUCT && ht_ft_align(ft) == 8);
	CHECK(member(ft, "vals")->ft->kind == HT_FT_DYNAMIC_ARRAY);

	CHECK(cfg->nr_env == 3);
	CHECK_STR(cfg->env[0].key, "board");
	CHECK_STR(cfg->env[0].s, "sim \"v1\"");
	CHECK(cfg->env[1].is_int && cfg->env[1].i == 4);
	CHECK(cfg->env[2].is_int && cfg->env[2].i == -12);
	ht_config_destroy(cfg);
}

static void test_barectf_layout(void)
{
	struct ht_config *cfg = load(good("barectf-layout.yaml"));
	const struct ht_stream_type *arm, *dsp;

	if (!cfg) {
		return;
	}
	CHECK(cfg->native_bo == HT_BO_BE);
	CHECK(!cfg->has_uuid && !cfg->uuid_field.enabled);
	CHECK(cfg->stream_id_field.ft &&
	      cfg->stream_id_field.ft->size_bits == 8);
	CHECK(cfg->nr_clocks == 2);
	CHECK_STR(cfg->clocks[0].name, "cycles");
	CHECK_STR(cfg->clocks[1].name, "unused");
	CHECK(!cfg->clocks[0].origin_is_unix_epoch);
	CHECK(cfg->nr_streams == 2);
	arm = &cfg->streams[0];
	dsp = &cfg->streams[1];
	CHECK_STR(arm->name, "arm");
	CHECK_STR(dsp->name, "dsp");
	CHECK(arm->id == 0 && dsp->id == 1);
	CHECK(ht_config_default_stream(cfg) == arm);
	CHECK(!arm->compact_header && !dsp->compact_header);
	CHECK(!arm->default_clock && dsp->default_clock == &cfg->clocks[0]);
	CHECK(!arm->ev_timestamp.enabled && !arm->pkt_ts_begin.enabled);
	CHECK(dsp->pkt_total_size.ft &&
	      dsp->pkt_total_size.ft->size_bits == 32);
	CHECK(!dsp->pkt_discarded.enabled);
	CHECK(dsp->pkt_seq_num.ft && dsp->pkt_seq_num.ft->size_bits == 16);
	CHECK(dsp->pkt_ts_end.enabled && !dsp->pkt_ts_end.ft);
	CHECK(dsp->ev_timestamp.ft && dsp->ev_timestamp.ft->align_bits == 32);
	CHECK(dsp->pkt_ctx_extra && dsp->pkt_ctx_extra->nr_members == 2);
	CHECK_STR(dsp->events[0].name, "alpha");
	CHECK_STR(dsp->events[1].name, "zeta");
	CHECK(dsp->events[1].spec_ctx &&
	      dsp->events[1].spec_ctx->nr_members == 1);
	ht_config_destroy(cfg);
}

static void test_includes(void)
{
	struct ht_config *a = load(good("includes.yaml"));
	struct ht_config *b = load(good("includes.yaml"));
	const struct ht_stream_type *st;
	const struct ht_ft *p;

	if (!a || !b) {
		goto destroy;
	}
	/* `uuid: auto`: derived from the content, the same every time. */
	CHECK(a->has_uuid && !memcmp(a->uuid, b->uuid, 16));
	CHECK((a->uuid[6] >> 4) == 8 && (a->uuid[8] & 0xc0) == 0x80);
	CHECK(a->native_bo == HT_BO_BE); /* the including object wins */
	CHECK(a->nr_files >= 6);
	CHECK(a->clocks[0].freq_hz == 1000);
	CHECK_STR(a->clocks[0].description, "from the include");
	st = &a->streams[0];
	CHECK(st->is_default && st->default_clock == &a->clocks[0]);
	CHECK(st->nr_events == 2);
	CHECK_STR(st->events[0].name, "ev");
	CHECK_STR(st->events[1].name, "from_stream_include");
	CHECK(st->events[0].has_log_level && st->events[0].log_level == 6);
	/* `members` merge by name: `second` updated in place. */
	p = st->events[0].payload;
	CHECK(p->nr_members == 3);
	CHECK_STR(p->members[0].name, "first");
	CHECK_STR(p->members[1].name, "second");
	CHECK_STR(p->members[2].name, "third");
	CHECK(p->members[1].ft->size_bits == 64);
	CHECK(a->nr_env == 2);
	CHECK_STR(a->env[0].key, "from_include");
	CHECK_STR(a->env[1].key, "mine");
	CHECK(a->env[1].is_int && a->env[1].i == 1);
destroy:
	ht_config_destroy(a);
	ht_config_destroy(b);
}

static void test_invalid(void)
{
	char path[4096];
	struct ht_diags diags;
	struct ht_config *cfg = (struct ht_config *)&diags; /* not NULL */
	const char *top = getenv("TOP");
	int ret;

	snprintf(path, sizeof(path), "%s/tests/gen/bad/misspelled-keys.yaml",
		 top ? top : ".");
	ret = ht_config_load(path, NULL, 0, &cfg, &diags);
	CHECK(ret == HT_ECONFIG && !cfg);
	CHECK(diags.nr == 7);
	CHECK(diags.nr && strstr(diags.msgs[0], "misspelled-keys.yaml:2:1: ") &&
	      strstr(diags.msgs[0], "did you mean `options`?"));
	ht_diags_fini(&diags);
	CHECK(diags.nr == 0 && !diags.msgs);

	ret = ht_config_load("/nonexistent/x.yaml", NULL, 0, &cfg, &diags);
	CHECK(ret == HT_ECONFIG && !cfg && diags.nr == 1);
	ht_diags_fini(&diags);
}

int main(void)
{
	test_all_types();
	test_barectf_layout();
	test_includes();
	test_invalid();
	return check_summary("t-config-load");
}
