/* SPDX-License-Identifier: MIT */
/*
 * TSDL 1.8 metadata from a checked model, per docs/ctf-layout.md: the
 * text barectf 3.1 writes (same blocks, order, indentation and default
 * field types), with hetrace's packet context additions and compact
 * event header, and no generation date.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "common/error.h"

#define TRACER_MAJOR 0
#define TRACER_MINOR 1
#define TRACER_PATCH 0

/* The compact header's id takes at most this many bits. */
#define COMPACT_ID_MAX_BITS 16

struct out {
	FILE *f;
	const struct ht_config *cfg;
};

__attribute__((format(printf, 3, 4))) static void
line(struct out *o, unsigned indent, const char *fmt, ...)
{
	va_list ap;
	unsigned i;

	for (i = 0; i < indent; i++) {
		fputc('\t', o->f);
	}
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

static void put_escaped(struct out *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\') {
			fputc('\\', o->f);
		}
		fputc(*s, o->f);
	}
}

static void put_uuid(struct out *o, const uint8_t uuid[16])
{
	unsigned i;

	for (i = 0; i < 16; i++) {
		fprintf(o->f, "%02x", uuid[i]);
		if (i == 3 || i == 5 || i == 7 || i == 9) {
			fputc('-', o->f);
		}
	}
}

static const char *bo_str(enum ht_byte_order bo)
{
	switch (bo) {
	case HT_BO_LE:
		return "le";
	case HT_BO_BE:
		return "be";
	default:
		return "native";
	}
}

/* An integer type block; the first line is not indented. */
static void put_int(struct out *o, unsigned ind, bool is_signed, unsigned size,
		    unsigned align, enum ht_byte_order bo, unsigned base,
		    const char *map_clock)
{
	line(o, 0, "integer {\n");
	line(o, ind + 1, "signed = %s;\n", is_signed ? "true" : "false");
	line(o, ind + 1, "size = %u;\n", size);
	line(o, ind + 1, "align = %u;\n", align);
	line(o, ind + 1, "byte_order = %s;\n", bo_str(bo));
	line(o, ind + 1, "base = %u;\n", base);
	if (map_clock) {
		line(o, ind + 1, "map = clock.%s.value;\n", map_clock);
	}
	line(o, ind, "}");
}

static void put_ft(struct out *o, unsigned ind, const struct ht_ft *ft,
		   const char *map_clock);

static void put_member(struct out *o, unsigned ind, const char *name,
		       const struct ht_ft *ft, const char *map_clock)
{
	const struct ht_ft *deepest = ft;

	if (ft->kind == HT_FT_DYNAMIC_ARRAY) {
		/* barectf's length member: uint32, byte-aligned. */
		line(o, ind, "%s", "");
		put_int(o, ind, false, 32, 8, HT_BO_NATIVE, 10, NULL);
		fprintf(o->f, " __%s_len;\n", name);
	}
	while (deepest->kind == HT_FT_STATIC_ARRAY ||
	       deepest->kind == HT_FT_DYNAMIC_ARRAY) {
		deepest = deepest->elem;
	}
	line(o, ind, "%s", "");
	put_ft(o, ind, deepest, map_clock);
	fprintf(o->f, " %s", name);
	for (; ft != deepest; ft = ft->elem) {
		if (ft->kind == HT_FT_STATIC_ARRAY) {
			fprintf(o->f, "[%" PRIu64 "]", ft->length);
		} else {
			fprintf(o->f, "[__%s_len]", name);
		}
	}
	fprintf(o->f, ";\n");
}

static void put_struct_open(struct out *o)
{
	line(o, 0, "struct {\n");
}

static void put_struct_close(struct out *o, unsigned ind, unsigned align)
{
	line(o, ind, "} align(%u)", align);
}

static void put_ft(struct out *o, unsigned ind, const struct ht_ft *ft,
		   const char *map_clock)
{
	bool is_signed = ft->kind == HT_FT_SINT || ft->kind == HT_FT_SENUM;
	size_t i, j;

	switch (ft->kind) {
	case HT_FT_UINT:
	case HT_FT_SINT:
		put_int(o, ind, is_signed, ft->size_bits, ft->align_bits,
			ft->byte_order, ft->display_base, map_clock);
		break;
	case HT_FT_UENUM:
	case HT_FT_SENUM:
		line(o, 0, "enum : ");
		put_int(o, ind, is_signed, ft->size_bits, ft->align_bits,
			ft->byte_order, ft->display_base, map_clock);
		fprintf(o->f, " {\n");
		for (i = 0; i < ft->nr_mappings; i++) {
			const struct ht_enum_mapping *m = &ft->mappings[i];

			for (j = 0; j < m->nr_ranges; j++) {
				const struct ht_enum_range *r = &m->ranges[j];

				line(o, ind + 1, "\"");
				put_escaped(o, m->label);
				if (is_signed) {
					fprintf(o->f, "\" = %" PRId64,
						r->lower.s);
					if (r->upper.s != r->lower.s) {
						fprintf(o->f, " ... %" PRId64,
							r->upper.s);
					}
				} else {
					fprintf(o->f, "\" = %" PRIu64,
						r->lower.u);
					if (r->upper.u != r->lower.u) {
						fprintf(o->f, " ... %" PRIu64,
							r->upper.u);
					}
				}
				fprintf(o->f, ",\n");
			}
		}
		line(o, ind, "}");
		break;
	case HT_FT_REAL:
		line(o, 0, "floating_point {\n");
		line(o, ind + 1, "mant_dig = %u;\n",
		     ft->size_bits == 32 ? 24 : 53);
		line(o, ind + 1, "exp_dig = %u;\n",
		     ft->size_bits == 32 ? 8 : 11);
		line(o, ind + 1, "align = %u;\n", ft->align_bits);
		line(o, ind + 1, "byte_order = native;\n");
		line(o, ind, "}");
		break;
	case HT_FT_STRING:
		line(o, 0, "string {\n");
		line(o, ind + 1, "encoding = UTF8;\n");
		line(o, ind, "}");
		break;
	case HT_FT_STRUCT:
		put_struct_open(o);
		for (i = 0; i < ft->nr_members; i++) {
			put_member(o, ind + 1, ft->members[i].name,
				   ft->members[i].ft, NULL);
		}
		put_struct_close(o, ind, ft->align_bits ? ft->align_bits : 1);
		break;
	case HT_FT_STATIC_ARRAY:
	case HT_FT_DYNAMIC_ARRAY:
		/* Arrays are written by put_member() (name[len]). */
		break;
	}
}

/* A feature field: its configured type or barectf's default uintN. */
static void put_feature(struct out *o, unsigned ind, const char *name,
			const struct ht_feature *f, unsigned def_size,
			const char *map_clock)
{
	if (!f->enabled) {
		return;
	}
	if (f->ft) {
		put_member(o, ind, name, f->ft, map_clock);
		return;
	}
	line(o, ind, "%s", "");
	put_int(o, ind, false, def_size, 8, HT_BO_NATIVE, 10, map_clock);
	fprintf(o->f, " %s;\n", name);
}

static void put_trace(struct out *o, const struct ht_config *cfg)
{
	line(o, 0, "trace {\n");
	line(o, 1, "major = 1;\n");
	line(o, 1, "minor = 8;\n");
	line(o, 1, "byte_order = %s;\n",
	     cfg->native_bo == HT_BO_BE ? "be" : "le");
	if (cfg->has_uuid) {
		line(o, 1, "uuid = \"");
		put_uuid(o, cfg->uuid);
		fprintf(o->f, "\";\n");
	}
	line(o, 1, "packet.header := ");
	put_struct_open(o);
	put_feature(o, 2, "magic", &cfg->magic, 32, NULL);
	if (cfg->uuid_field.enabled) {
		if (cfg->uuid_field.ft) {
			put_member(o, 2, "uuid", cfg->uuid_field.ft, NULL);
		} else {
			line(o, 2, "%s", "");
			put_int(o, 2, false, 8, 8, HT_BO_NATIVE, 10, NULL);
			fprintf(o->f, " uuid[16];\n");
		}
	}
	put_feature(o, 2, "stream_id", &cfg->stream_id_field, 64, NULL);
	put_struct_close(o, 1, 8);
	fprintf(o->f, ";\n};\n");
}

static const struct ht_env_entry *user_env(const struct ht_config *cfg,
					   const char *key)
{
	size_t i;

	for (i = 0; i < cfg->nr_env; i++) {
		if (!strcmp(cfg->env[i].key, key)) {
			return &cfg->env[i];
		}
	}
	return NULL;
}

static void put_env_value(struct out *o, const struct ht_env_entry *e)
{
	if (e->is_int) {
		fprintf(o->f, "%" PRId64 ";\n", e->i);
		return;
	}
	fputc('"', o->f);
	put_escaped(o, e->s);
	fprintf(o->f, "\";\n");
}

static void put_env(struct out *o, const struct ht_config *cfg)
{
	static const char *const builtin[] = {"domain", "tracer_name",
					      "tracer_major", "tracer_minor",
					      "tracer_patch"};
	const struct ht_env_entry defaults[] = {
	    {.key = (char *)"domain", .s = (char *)"bare"},
	    {.key = (char *)"tracer_name", .s = (char *)"hetrace"},
	    {.key = (char *)"tracer_major", .is_int = true, .i = TRACER_MAJOR},
	    {.key = (char *)"tracer_minor", .is_int = true, .i = TRACER_MINOR},
	    {.key = (char *)"tracer_patch", .is_int = true, .i = TRACER_PATCH},
	};
	size_t i, j;

	line(o, 0, "env {\n");
	/* As barectf: a configuration entry of the same name wins in place. */
	for (i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++) {
		const struct ht_env_entry *e = user_env(cfg, builtin[i]);

		line(o, 1, "%s = ", builtin[i]);
		put_env_value(o, e ? e : &defaults[i]);
	}
	for (i = 0; i < cfg->nr_env; i++) {
		bool is_builtin = false;

		for (j = 0; j < sizeof(builtin) / sizeof(builtin[0]); j++) {
			is_builtin |= !strcmp(cfg->env[i].key, builtin[j]);
		}
		if (!is_builtin) {
			line(o, 1, "%s = ", cfg->env[i].key);
			put_env_value(o, &cfg->env[i]);
		}
	}
	line(o, 0, "};\n");
}

static bool clock_is_used(const struct ht_config *cfg,
			  const struct ht_clock_type *ct)
{
	size_t i;

	for (i = 0; i < cfg->nr_streams; i++) {
		if (cfg->streams[i].default_clock == ct) {
			return true;
		}
	}
	return false;
}

static void put_clock(struct out *o, const struct ht_clock_type *ct)
{
	line(o, 0, "clock {\n");
	line(o, 1, "name = %s;\n", ct->name);
	if (ct->description) {
		line(o, 1, "description = \"");
		put_escaped(o, ct->description);
		fprintf(o->f, "\";\n");
	}
	if (ct->has_uuid) {
		line(o, 1, "uuid = \"");
		put_uuid(o, ct->uuid);
		fprintf(o->f, "\";\n");
	}
	line(o, 1, "freq = %" PRIu64 ";\n", ct->freq_hz);
	line(o, 1, "precision = %" PRIu64 ";\n", ct->precision);
	line(o, 1, "offset_s = %" PRId64 ";\n", ct->offset_seconds);
	line(o, 1, "offset = %" PRIu64 ";\n", ct->offset_cycles);
	line(o, 1, "absolute = %s;\n",
	     ct->origin_is_unix_epoch ? "true" : "false");
	line(o, 0, "};\n");
}

/* The compact header's id width for n event record types. */
static unsigned compact_id_bits(size_t n)
{
	unsigned b = 1;

	while (b < COMPACT_ID_MAX_BITS && n > ((size_t)1 << b) - 1) {
		b++;
	}
	return b;
}

static void put_compact_header(struct out *o, const struct ht_stream_type *st)
{
	const char *clk = st->default_clock && st->ev_timestamp.enabled
			      ? st->default_clock->name
			      : NULL;
	unsigned id_bits, ts_bits, esc, size;

	if (!clk) {
		/* Only the id: the smallest of 8, 16, 32 bits. */
		size = 8;
		while (size < 32 && st->nr_events > 0 &&
		       (uint64_t)(st->nr_events - 1) >> size) {
			size *= 2;
		}
		line(o, 2, "%s", "");
		put_int(o, 2, false, size, size, HT_BO_NATIVE, 10, NULL);
		fprintf(o->f, " id;\n");
		return;
	}
	id_bits = compact_id_bits(st->nr_events);
	ts_bits = 32 - id_bits;
	esc = (1u << id_bits) - 1;
	line(o, 2, "enum : ");
	put_int(o, 2, false, id_bits, 32, HT_BO_NATIVE, 10, NULL);
	fprintf(o->f, " {\n");
	if (esc - 1 == 0) {
		line(o, 3, "\"compact\" = 0,\n");
	} else {
		line(o, 3, "\"compact\" = 0 ... %u,\n", esc - 1);
	}
	line(o, 3, "\"extended\" = %u,\n", esc);
	line(o, 2, "} id;\n");
	line(o, 2, "variant <id> {\n");
	line(o, 3, "struct {\n");
	line(o, 4, "%s", "");
	put_int(o, 4, false, ts_bits, 1, HT_BO_NATIVE, 10, clk);
	fprintf(o->f, " timestamp;\n");
	line(o, 3, "} align(1) compact;\n");
	line(o, 3, "struct {\n");
	line(o, 4, "%s", "");
	put_int(o, 4, false, 32, 32, HT_BO_NATIVE, 10, NULL);
	fprintf(o->f, " id;\n");
	line(o, 4, "%s", "");
	put_int(o, 4, false, 64, 32, HT_BO_NATIVE, 10, clk);
	fprintf(o->f, " timestamp;\n");
	line(o, 3, "} align(1) extended;\n");
	line(o, 2, "} v;\n");
}

static void put_root_struct(struct out *o, const char *what,
			    const struct ht_ft *ft)
{
	line(o, 1, "%s := ", what);
	put_ft(o, 1, ft, NULL);
	fprintf(o->f, ";\n");
}

static void put_stream(struct out *o, const struct ht_stream_type *st)
{
	const char *clk = st->default_clock ? st->default_clock->name : NULL;
	size_t i;

	line(o, 0, "/* Data stream type `%s` */\n", st->name);
	line(o, 0, "stream {\n");
	line(o, 1, "id = %" PRIu64 ";\n", st->id);

	line(o, 1, "packet.context := ");
	put_struct_open(o);
	put_feature(o, 2, "packet_size", &st->pkt_total_size, 64, NULL);
	put_feature(o, 2, "content_size", &st->pkt_content_size, 64, NULL);
	put_feature(o, 2, "timestamp_begin", &st->pkt_ts_begin, 64, clk);
	put_feature(o, 2, "timestamp_end", &st->pkt_ts_end, 64, clk);
	put_feature(o, 2, "events_discarded", &st->pkt_discarded, 64, NULL);
	put_feature(o, 2, "packet_seq_num", &st->pkt_seq_num, 64, NULL);
	if (!o->cfg->no_core_id) {
		line(o, 2, "%s", "");
		put_int(o, 2, false, 32, 8, HT_BO_NATIVE, 10, NULL);
		fprintf(o->f, " core_id;\n");
		/* core_id again, as Trace Compass's CPU column */
		line(o, 2, "%s", "");
		put_int(o, 2, false, 32, 8, HT_BO_NATIVE, 10, NULL);
		fprintf(o->f, " cpu_id;\n");
	}
	if (st->pkt_ctx_extra) {
		for (i = 0; i < st->pkt_ctx_extra->nr_members; i++) {
			put_member(o, 2, st->pkt_ctx_extra->members[i].name,
				   st->pkt_ctx_extra->members[i].ft, NULL);
		}
	}
	put_struct_close(o, 1, 8);
	fprintf(o->f, ";\n");

	line(o, 1, "event.header := ");
	put_struct_open(o);
	if (st->compact_header) {
		put_compact_header(o, st);
		/* Without a clock the id alone aligns the header (8..32). */
		put_struct_close(o, 1, st->default_clock ? 32 : 8);
	} else {
		put_feature(o, 2, "id", &st->ev_type_id, 64, NULL);
		put_feature(o, 2, "timestamp", &st->ev_timestamp, 64, clk);
		put_struct_close(o, 1, 8);
	}
	fprintf(o->f, ";\n");

	if (st->ev_common_ctx) {
		put_root_struct(o, "event.context", st->ev_common_ctx);
	}
	line(o, 0, "};\n");
}

static void put_event(struct out *o, const struct ht_stream_type *st,
		      const struct ht_event_type *et)
{
	line(o, 0, "event {\n");
	line(o, 1, "stream_id = %" PRIu64 ";\n", st->id);
	line(o, 1, "id = %" PRIu64 ";\n", et->id);
	line(o, 1, "name = \"%s\";\n", et->name);
	/* barectf writes no log level when it is 0. */
	if (et->has_log_level && et->log_level != 0) {
		line(o, 1, "loglevel = %" PRId64 ";\n", et->log_level);
	}
	if (et->spec_ctx) {
		put_root_struct(o, "context", et->spec_ctx);
	}
	if (et->payload) {
		put_root_struct(o, "fields", et->payload);
	}
	line(o, 0, "};\n");
}

int ht_emit_tsdl(const struct ht_config *cfg, FILE *f)
{
	struct out o = {.f = f, .cfg = cfg};
	size_t i, j;

	line(&o, 0, "/* CTF 1.8 */\n\n");
	line(&o, 0,
	     "/*\n * Generated by hetrace %d.%d.%d from a barectf 3 "
	     "configuration.\n */\n\n",
	     TRACER_MAJOR, TRACER_MINOR, TRACER_PATCH);
	put_trace(&o, cfg);
	fputc('\n', f);
	put_env(&o, cfg);

	/* Clocks and streams in name order, as barectf. */
	for (i = 0; i < cfg->nr_clocks; i++) {
		if (clock_is_used(cfg, &cfg->clocks[i])) {
			fputc('\n', f);
			put_clock(&o, &cfg->clocks[i]);
		}
	}
	for (i = 0; i < cfg->nr_streams; i++) {
		const struct ht_stream_type *st = &cfg->streams[i];

		fputc('\n', f);
		put_stream(&o, st);
		for (j = 0; j < st->nr_events; j++) {
			fputc('\n', f);
			put_event(&o, st, &st->events[j]);
		}
	}
	if (fflush(f) || ferror(f)) {
		return HT_EIO;
	}
	return 0;
}
