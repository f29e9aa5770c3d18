/* SPDX-License-Identifier: MIT */
/*
 * The C emitter: barectf 3.1's public API for a configuration, built on
 * the runtime's stream context (include/hetrace/stream.h).
 *
 * The tracing functions are `static inline` in the header. Each one
 * checks the guard, reads the clock, and, when the record fits the open
 * packet and the compact header can carry its timestamp, writes it with
 * stores at offsets known here; otherwise it calls the stream's reserve
 * function in the source (packet switch, extended header, drops).
 *
 * This file lays out streams and writes the file skeleton, the packet
 * functions and the tracing functions; the fields of a record are
 * serialized by emit-c-walk.c.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "emit-c-walk.h"
#include "emit.h"

struct stream_layout {
	const struct ht_stream_type *st;
	char prefix[128];  /* identifier prefix, e.g. "barectf_" */
	char sprefix[256]; /* stream prefix, e.g. "barectf_default_" */
	int compact;
	int has_clock;
	unsigned clock_bits; /* width of the clock's C type */
	/* compact with a clock */
	unsigned id_bits, ts_bits;
	uint64_t esc;
	/* compact without a clock: the id's width */
	unsigned id_width;
	/* barectf's layout */
	const struct ht_ft *id_ft, *ts_ft;
	uint64_t hdr_bits;
	unsigned hdr_align;
	/* body */
	unsigned base_align; /* alignment of q */
	uint64_t off0;	     /* bit offset of the body from q */
	/*
	 * Every record starts on the header's alignment: record sizes are
	 * rounded up to it, in bytes.
	 */
	unsigned rec_align;
};

static unsigned clock_c_bits(const char *c_type)
{
	if (!c_type) {
		return 32;
	}
	if (strstr(c_type, "int8_t") || !strcmp(c_type, "unsigned char")) {
		return 8;
	}
	if (strstr(c_type, "int16_t") || !strcmp(c_type, "unsigned short")) {
		return 16;
	}
	if (strstr(c_type, "int32_t") || !strcmp(c_type, "unsigned int")) {
		return 32;
	}
	return 64;
}

static void layout_stream(const struct ht_config *cfg,
			  const struct ht_stream_type *st,
			  struct stream_layout *sl)
{
	size_t n = st->nr_events;

	memset(sl, 0, sizeof(*sl));
	sl->st = st;
	snprintf(sl->prefix, sizeof(sl->prefix), "%s", cfg->prefix_ident);
	snprintf(sl->sprefix, sizeof(sl->sprefix), "%s%s_", cfg->prefix_ident,
		 st->name);
	sl->compact = st->compact_header;
	sl->has_clock = st->default_clock != NULL;
	sl->clock_bits =
	    sl->has_clock ? clock_c_bits(st->default_clock->c_type) : 64;
	if (sl->compact && sl->has_clock) {
		sl->id_bits = 1;
		while (sl->id_bits < 16 &&
		       (uint64_t)n > ((uint64_t)1 << sl->id_bits) - 1) {
			sl->id_bits++;
		}
		sl->ts_bits = 32 - sl->id_bits;
		sl->esc = ((uint64_t)1 << sl->id_bits) - 1;
		sl->base_align = 32;
		sl->off0 = 0;
		sl->rec_align = 4;
	} else if (sl->compact) {
		sl->id_width = n <= 256 ? 8 : n <= 65536 ? 16 : 32;
		sl->base_align = sl->id_width;
		sl->off0 = 0;
		sl->rec_align = sl->id_width / 8;
	} else {
		struct walk probe;

		sl->id_ft = st->ev_type_id.enabled
				? (st->ev_type_id.ft ? st->ev_type_id.ft
						     : &ht__ft_u64_a8)
				: NULL;
		sl->ts_ft = sl->has_clock && st->ev_timestamp.enabled
				? (st->ev_timestamp.ft ? st->ev_timestamp.ft
						       : &ht__ft_u64_a8)
				: NULL;
		sl->hdr_align = 8;
		if (sl->id_ft && ht_ft_align(sl->id_ft) > sl->hdr_align) {
			sl->hdr_align = ht_ft_align(sl->id_ft);
		}
		if (sl->ts_ft && ht_ft_align(sl->ts_ft) > sl->hdr_align) {
			sl->hdr_align = ht_ft_align(sl->ts_ft);
		}
		memset(&probe, 0, sizeof(probe));
		probe.cfg = cfg;
		probe.base_align = sl->hdr_align;
		probe.mode = WALK_SIZE;
		if (sl->id_ft) {
			ht__walk_align(&probe, ht_ft_align(sl->id_ft));
			probe.off += sl->id_ft->size_bits;
		}
		if (sl->ts_ft) {
			ht__walk_align(&probe, ht_ft_align(sl->ts_ft));
			probe.off += sl->ts_ft->size_bits;
		}
		sl->hdr_bits = probe.off;
		sl->base_align = sl->hdr_align;
		sl->off0 = sl->hdr_bits;
		sl->rec_align = sl->hdr_align / 8;
	}
}

/* Size of the compact header in bytes for the fast path. */
static unsigned fast_hdr_bytes(const struct stream_layout *sl)
{
	if (!sl->compact) {
		return 0;
	}
	return sl->has_clock ? 4 : sl->id_width / 8;
}

static void emit_clock_read(FILE *out, const struct stream_layout *sl,
			    const char *ctx)
{
	(void)sl;
	fprintf(out, "%s_clock_%s(%s)", sl->prefix, sl->st->default_clock->name,
		ctx);
}

/* The scopes of a record, in order, each walked as parameters. */
static void walk_record(struct walk *w, const struct ht_stream_type *st,
			const struct ht_event_type *ev)
{
	static const char *const scopes[3] = {"cc", "sc", "p"};
	const struct ht_ft *fts[3] = {st->ev_common_ctx, ev->spec_ctx,
				      ev->payload};
	int i;

	for (i = 0; i < 3; i++) {
		if (fts[i]) {
			ht__walk_scope(w, fts[i], scopes[i]);
		}
	}
}

/*
 * The locals, the guard check and the clock read of a tracing
 * function, then the record's size: *need_static bits known here, plus
 * code computing `need` when *need_dynamic.
 */
static void emit_event_prologue(FILE *out, const struct ht_config *cfg,
				const struct stream_layout *sl,
				const struct ht_event_type *ev,
				uint64_t *need_static, int *need_dynamic)
{
	char *sz_text = NULL;
	size_t sz_len = 0;
	struct walk w;
	FILE *mem;

	/* Locals. */
	fprintf(out, "\tstruct ht_stream *const s = &sctx->parent.s;\n");
	if (sl->has_clock) {
		fprintf(out, "\tuint64_t ts;\n");
	}
	fprintf(out, "\tuint8_t *q;\n");

	/* Size walk into a buffer first to know the locals it needs. */
	ht__walk_init(&w, cfg, WALK_SIZE, sl->base_align, NULL);
	w.off = sl->off0;
	mem = open_memstream(&sz_text, &sz_len);
	w.out = mem;
	walk_record(&w, sl->st, ev);
	fclose(mem);
	*need_dynamic = w.dynamic;
	*need_static = w.off;
	if (w.strings) {
		unsigned k;

		fprintf(out, "\tuint32_t");
		for (k = 0; k < w.strings; k++) {
			fprintf(out, "%s l%u", k ? "," : "", k);
		}
		fprintf(out, ";\n");
	}
	if (*need_dynamic) {
		fprintf(out, "\tuint32_t nb, need, b;\n");
	}
	fprintf(out, "\n\tif (s->busy | s->off) {\n"
		     "\t\tht_stream_blocked(s);\n"
		     "\t\treturn;\n"
		     "\t}\n"
		     "\tht_stream_enter(s);\n");
	if (sl->has_clock) {
		fprintf(out, "\tts = ");
		emit_clock_read(out, sl, "&sctx->parent");
		fprintf(out, ";\n");
	}
	if (*need_dynamic) {
		fputs(sz_text, out);
		fprintf(out, "\tneed = (((nb + 7u) >> 3) + %uu) & ~%uu;\n",
			sl->rec_align - 1, sl->rec_align - 1);
	}
	free(sz_text);
}

/* Reserve: the fast path inline, the rest in the source. */
static void emit_event_reserve(FILE *out, const struct ht_config *cfg,
			       const struct stream_layout *sl,
			       const struct ht_event_type *ev,
			       uint64_t need_static, int need_dynamic)
{
	uint64_t need_bytes =
	    ht__align_up((need_static + 7) / 8, sl->rec_align);
	unsigned hb = fast_hdr_bytes(sl);
	int fast_compact;
	char need[64];

	if (need_dynamic) {
		snprintf(need, sizeof(need), "need");
	} else {
		snprintf(need, sizeof(need), "%" PRIu64 "u", need_bytes);
	}
	fast_compact = sl->compact && (!sl->has_clock || ev->id < sl->esc);
	if (sl->compact && sl->has_clock && fast_compact) {
		fprintf(out,
			"\tif (HT_LIKELY(s->at + %u + %s <= s->end &&\n"
			"\t\t       ts - s->last_ts < ((uint64_t)1 << "
			"%u))) {\n"
			"\t\tq = s->buf + s->at;\n"
			"\t\ts->at += %u + %s;\n"
			"\t\ts->last_ts = ts;\n",
			hb, need, sl->ts_bits, hb, need);
		if (cfg->native_bo == HT_BO_LE) {
			fprintf(out,
				"\t\tht_store_u32(q, (uint32_t)%" PRIu64
				"u | ((uint32_t)ts << %u));\n",
				ev->id, sl->id_bits);
		} else {
			fprintf(out,
				"\t\tht_store_u32(q, ((uint32_t)%" PRIu64
				"u << %u) | ((uint32_t)ts & 0x%" PRIx64
				"u));\n",
				ev->id, sl->ts_bits,
				((uint64_t)1 << sl->ts_bits) - 1);
		}
		fprintf(out, "\t\tq += 4;\n");
	} else if (sl->compact && !sl->has_clock) {
		fprintf(out,
			"\tif (HT_LIKELY(s->at + %u + %s <= s->end)) {\n"
			"\t\tq = s->buf + s->at;\n"
			"\t\ts->at += %u + %s;\n",
			hb, need, hb, need);
		if (sl->id_width == 8) {
			fprintf(out, "\t\tht_store_u8(q, %" PRIu64 "u);\n",
				ev->id);
		} else {
			fprintf(out, "\t\tht_store_u%u(q, %" PRIu64 "u);\n",
				sl->id_width, ev->id);
		}
		fprintf(out, "\t\tq += %u;\n", hb);
	} else if (!sl->compact) {
		fprintf(out,
			"\tif (HT_LIKELY(s->at + %s <= s->end)) {\n"
			"\t\tq = s->buf + s->at;\n"
			"\t\ts->at += %s;\n"
			"\t\t%s_header(q, %" PRIu64 "u%s);\n",
			need, need, sl->sprefix, ev->id,
			sl->has_clock ? ", ts" : "");
	}
	if (fast_compact || !sl->compact) {
		fprintf(out,
			"\t} else {\n"
			"\t\tq = %s_reserve(sctx, %" PRIu64 "u, %s, %s);\n"
			"\t\tif (!q) {\n"
			"\t\t\tgoto end;\n"
			"\t\t}\n"
			"\t}\n",
			sl->sprefix, ev->id, need, sl->has_clock ? "ts" : "0");
	} else {
		/* Ids past the escape always take the extended header.
		 */
		fprintf(out,
			"\tq = %s_reserve(sctx, %" PRIu64 "u, %s, ts);\n"
			"\tif (!q) {\n"
			"\t\tgoto end;\n"
			"\t}\n",
			sl->sprefix, ev->id, need);
	}
}

/* The write walk, then where the record ends. */
static void emit_event_write(FILE *out, const struct ht_config *cfg,
			     const struct stream_layout *sl,
			     const struct ht_event_type *ev)
{
	struct walk w;

	ht__walk_init(&w, cfg, WALK_WRITE, sl->base_align, out);
	w.off = sl->off0;
	walk_record(&w, sl->st, ev);
	if (w.dynamic) {
		/* The next record starts on the header's alignment. */
		if (sl->rec_align > 1) {
			fprintf(out,
				"\ts->content_end_bits = b;\n"
				"\ts->at = (((b + 7u) >> 3) + %uu) & ~%uu;\n",
				sl->rec_align - 1, sl->rec_align - 1);
		} else {
			fprintf(out, "\ts->at = (b + 7u) >> 3;\n");
		}
	} else if ((w.off + fast_hdr_bytes(sl) * 8u) % (sl->rec_align * 8u)) {
		/* Padding follows this record: say where it really ends. */
		fprintf(out,
			"\ts->content_end_bits = (uint32_t)(q - s->buf) * 8u + "
			"%" PRIu64 "u;\n",
			w.off);
	}
}

/* The body of a tracing function. */
static void emit_event_body(FILE *out, const struct ht_config *cfg,
			    const struct stream_layout *sl,
			    const struct ht_event_type *ev)
{
	uint64_t need_static = 0;
	int need_dynamic = 0;

	emit_event_prologue(out, cfg, sl, ev, &need_static, &need_dynamic);
	emit_event_reserve(out, cfg, sl, ev, need_static, need_dynamic);
	emit_event_write(out, cfg, sl, ev);
	fprintf(out, "end:\n\tht_stream_leave(s);\n");
}

static void emit_event_proto(FILE *out, const struct ht_config *cfg,
			     const struct stream_layout *sl,
			     const struct ht_event_type *ev, const char *lead)
{
	const struct ht_stream_type *st = sl->st;
	struct params pp;
	char owner[256];

	snprintf(owner, sizeof(owner), "%s_%s", st->name, ev->name);
	pp.prefix = cfg->prefix_ident;
	pp.owner = owner;
	fprintf(out, "%svoid %strace_%s(struct %sctx *sctx", lead, sl->sprefix,
		ev->name, sl->sprefix);
	if (st->ev_common_ctx) {
		struct params sp = {cfg->prefix_ident, st->name};

		ht__emit_params(out, &sp, st->ev_common_ctx, "cc");
	}
	if (ev->spec_ctx) {
		ht__emit_params(out, &pp, ev->spec_ctx, "sc");
	}
	if (ev->payload) {
		ht__emit_params(out, &pp, ev->payload, "p");
	}
	fprintf(out, ")");
}

/* Packet header and context fields, in layout order. */
struct pkt_field {
	const char *name;
	const struct ht_ft *ft;
	char value[128];
	int patched; /* written again at close */
};

static size_t packet_fields(const struct ht_config *cfg,
			    const struct stream_layout *sl, struct pkt_field *f,
			    size_t max)
{
	const struct ht_stream_type *st = sl->st;
	size_t n = 0;

#define PF(nm, ftp, pat, ...)                                                  \
	do {                                                                   \
		if (n < max) {                                                 \
			f[n].name = nm;                                        \
			f[n].ft = ftp;                                         \
			f[n].patched = pat;                                    \
			snprintf(f[n].value, sizeof(f[n].value), __VA_ARGS__); \
			n++;                                                   \
		}                                                              \
	} while (0)
	if (cfg->magic.enabled) {
		PF("magic", cfg->magic.ft ? cfg->magic.ft : &ht__ft_u32_a8, 0,
		   "0xc1fc1fc1u");
	}
	if (cfg->uuid_field.enabled && cfg->has_uuid) {
		PF("uuid", &ht__ft_u8_a8, 0, "uuid");
	}
	if (cfg->stream_id_field.enabled) {
		PF("stream_id",
		   cfg->stream_id_field.ft ? cfg->stream_id_field.ft
					   : &ht__ft_u64_a8,
		   0, "%" PRIu64 "u", st->id);
	}
	PF("packet_size",
	   st->pkt_total_size.ft ? st->pkt_total_size.ft : &ht__ft_u64_a8, 0,
	   "(uint64_t)s->size * 8u");
	PF("content_size",
	   st->pkt_content_size.ft ? st->pkt_content_size.ft : &ht__ft_u64_a8,
	   1, "ht_stream_content_bits(s, %uu)", sl->rec_align);
	if (sl->has_clock && st->pkt_ts_begin.enabled) {
		PF("timestamp_begin",
		   st->pkt_ts_begin.ft ? st->pkt_ts_begin.ft : &ht__ft_u64_a8,
		   0, "ts");
	}
	if (sl->has_clock && st->pkt_ts_end.enabled) {
		PF("timestamp_end",
		   st->pkt_ts_end.ft ? st->pkt_ts_end.ft : &ht__ft_u64_a8, 1,
		   "ts");
	}
	if (st->pkt_discarded.enabled) {
		PF("events_discarded",
		   st->pkt_discarded.ft ? st->pkt_discarded.ft : &ht__ft_u64_a8,
		   1, "ht_stream_discarded(s)");
	}
	if (st->pkt_seq_num.enabled) {
		PF("packet_seq_num",
		   st->pkt_seq_num.ft ? st->pkt_seq_num.ft : &ht__ft_u64_a8, 0,
		   "s->seq_num");
	}
	if (!cfg->no_core_id) {
		PF("core_id", &ht__ft_u32_a8, 0, "s->core_id");
		/* the same value under the name Trace Compass reads its CPU
		 * column from (docs/ctf-layout.md) */
		PF("cpu_id", &ht__ft_u32_a8, 0, "s->core_id");
	}
#undef PF
	return n;
}

/*
 * The start of the packet functions: when called by the platform with
 * tracing off, or when there is nothing to do, they leave the packet
 * alone (barectf's semantics); otherwise they take the guard and the
 * time (the record's that forced the switch, or the clock's).
 */
static void emit_packet_prologue(FILE *out, const struct stream_layout *sl,
				 const char *nothing_to_do)
{
	fprintf(out,
		"\n\tif ((s->off && !nested) || %s) {\n"
		"\t\treturn;\n"
		"\t}\n"
		"\ts->busy = 1;\n"
		"\tHT_COMPILER_BARRIER();\n",
		nothing_to_do);
	if (sl->has_clock) {
		fprintf(out, "\tts = s->use_pending_ts ? s->pending_ts : ");
		emit_clock_read(out, sl, "&sctx->parent");
		fprintf(out, ";\n");
	}
}

/*
 * The open function: writes the packet header and context, keeping in
 * offs[] where each of the n fields f[] is (close writes the patched
 * ones there).
 */
static void emit_open_packet(FILE *out, const struct ht_config *cfg,
			     const struct stream_layout *sl, const char *lead,
			     const struct pkt_field *f, size_t n,
			     uint64_t *offs)
{
	const struct ht_stream_type *st = sl->st;
	struct params pp = {cfg->prefix_ident, st->name};
	struct walk w;
	size_t i;

	fprintf(out, "%svoid %sopen_packet(struct %sctx *sctx", lead,
		sl->sprefix, sl->sprefix);
	if (st->pkt_ctx_extra) {
		ht__emit_params(out, &pp, st->pkt_ctx_extra, "pc");
	}
	fprintf(out, ")\n{\n"
		     "\tstruct ht_stream *const s = &sctx->parent.s;\n"
		     "\tconst int nested = s->busy;\n"
		     "\tuint8_t *const q = s->buf;\n");
	if (sl->has_clock) {
		fprintf(out, "\tuint64_t ts;\n");
	}
	if (st->pkt_ctx_extra && !ht__ft_fixed(st->pkt_ctx_extra)) {
		fprintf(out, "\tuint32_t b;\n");
	}
	if (cfg->uuid_field.enabled && cfg->has_uuid) {
		fprintf(out, "\tstatic const uint8_t uuid[16] = {");
		for (i = 0; i < 16; i++) {
			fprintf(out, "%s0x%02x", i ? ", " : "", cfg->uuid[i]);
		}
		fprintf(out, "};\n");
	}
	emit_packet_prologue(out, sl, "s->packet_open");
	ht__walk_init(&w, cfg, WALK_WRITE, 64, out);
	for (i = 0; i < n; i++) {
		fprintf(out, "\t/* `%s` */\n", f[i].name);
		if (!strcmp(f[i].name, "uuid")) {
			ht__walk_align(&w, 8);
			offs[i] = w.off;
			fprintf(out, "\tmemcpy(q + %" PRIu64 ", uuid, 16);\n",
				w.off / 8);
			w.off += 128;
			continue;
		}
		ht__walk_align(&w, ht_ft_align(f[i].ft));
		offs[i] = w.off;
		if (f[i].patched) {
			/* Written at close; keep the offset. */
			ht__walk_advance(&w, NULL, f[i].ft->size_bits);
			continue;
		}
		ht__walk_scalar(&w, f[i].ft, f[i].value);
	}
	if (st->pkt_ctx_extra) {
		ht__walk_scope(&w, st->pkt_ctx_extra, "pc");
	}
	if (w.dynamic) {
		fprintf(out,
			"\ts->content_off = (((b + 7u) >> 3) + %uu) & ~%uu;\n",
			sl->rec_align - 1, sl->rec_align - 1);
	} else {
		/* The first record starts on the header's alignment. */
		fprintf(out, "\ts->content_off = %" PRIu64 "u;\n",
			ht__align_up((w.off + 7) / 8, sl->rec_align));
	}
	fprintf(out, "\ts->at = s->content_off;\n"
		     "\ts->content_end_bits = 0;\n"
		     "\ts->end = s->size;\n"
		     "\ts->packet_open = 1;\n");
	if (sl->has_clock) {
		fprintf(out, "\ts->last_ts = ts;\n");
	}
	fprintf(out, "\tHT_COMPILER_BARRIER();\n"
		     "\ts->busy = nested;\n"
		     "}\n\n");
}

/* The close function: the fields known at close, at offs[]. */
static void emit_close_packet(FILE *out, const struct ht_config *cfg,
			      const struct stream_layout *sl, const char *lead,
			      const struct pkt_field *f, size_t n,
			      const uint64_t *offs)
{
	struct walk w;
	size_t i;

	fprintf(out,
		"%svoid %sclose_packet(struct %sctx *sctx)\n{\n"
		"\tstruct ht_stream *const s = &sctx->parent.s;\n"
		"\tconst int nested = s->busy;\n"
		"\tuint8_t *const q = s->buf;\n",
		lead, sl->sprefix, sl->sprefix);
	if (sl->has_clock) {
		fprintf(out, "\tuint64_t ts;\n");
	}
	emit_packet_prologue(out, sl, "!s->packet_open");
	if (sl->has_clock) {
		fprintf(out,
			"\tif (ts < s->last_ts) {\n"
			"\t\t/* The end is never before the last record. */\n"
			"\t\tts = s->last_ts;\n"
			"\t}\n");
	}
	ht__walk_init(&w, cfg, WALK_WRITE, 64, out);
	for (i = 0; i < n; i++) {
		if (!f[i].patched) {
			continue;
		}
		fprintf(out, "\t/* `%s` */\n", f[i].name);
		w.off = offs[i];
		ht__walk_scalar(&w, f[i].ft, f[i].value);
	}
	fprintf(out,
		"\ts->packet_open = 0;\n"
		"\ts->seq_num++;\n"
		"\ts->end = 0;\n"
		"\t/* barectf's closed state: the packet reads as full. */\n"
		"\ts->at = s->size;\n"
		"\tHT_COMPILER_BARRIER();\n"
		"\ts->busy = nested;\n"
		"}\n\n");
}

static void emit_open_close(FILE *out, const struct ht_config *cfg,
			    const struct stream_layout *sl, const char *lead)
{
	struct pkt_field f[16];
	size_t n = packet_fields(cfg, sl, f, 16);
	uint64_t offs[16];

	emit_open_packet(out, cfg, sl, lead, f, n, offs);
	emit_close_packet(out, cfg, sl, lead, f, n, offs);
}

/* The per-stream slow path: packet switch, extended header, drops. */
/*
 * The compact header with a clock: the id and the timestamp's low bits
 * in 32 bits, or the escape id and the extended header.
 */
static void emit_reserve_compact_ts(FILE *out, const struct ht_config *cfg,
				    const struct stream_layout *sl)
{
	uint64_t span_mask = ((uint64_t)1 << sl->ts_bits) - 1;

	fprintf(out,
		"\tuint32_t hdr = id < %" PRIu64 "u && s->packet_open &&\n"
		"\t\tts - s->last_ts < ((uint64_t)1 << %u) ? 4u : 16u;\n\n"
		"\tif (!s->packet_open || s->at + hdr + need > s->end) {\n"
		"\t\t/* After a switch the compact header fits (delta 0). "
		"*/\n"
		"\t\tuint32_t room = id < %" PRIu64 "u ? 4u : 16u;\n\n"
		"\t\tif (16u + need <= s->size - s->content_off) {\n"
		"\t\t\troom = 16u;\n"
		"\t\t}\n"
		"\t\tif (!ht_stream_make_room(s, room + need, ts)) {\n"
		"\t\t\treturn 0;\n"
		"\t\t}\n"
		"\t\thdr = id < %" PRIu64 "u &&\n"
		"\t\t\tts - s->last_ts < ((uint64_t)1 << %u) ? 4u : 16u;\n"
		"\t\tif (s->at + hdr + need > s->end) {\n"
		"\t\t\ts->discarded++;\n"
		"\t\t\treturn 0;\n"
		"\t\t}\n"
		"\t}\n"
		"\trec = s->buf + s->at;\n"
		"\tif (hdr == 4u) {\n",
		sl->esc, sl->ts_bits, sl->esc, sl->esc, sl->ts_bits);
	if (cfg->native_bo == HT_BO_LE) {
		fprintf(out,
			"\t\tht_store_u32(rec, id | ((uint32_t)ts << "
			"%u));\n"
			"\t} else {\n"
			"\t\tht_store_u32(rec, %" PRIu64 "u);\n",
			sl->id_bits, sl->esc);
	} else {
		fprintf(out,
			"\t\tht_store_u32(rec, (id << %u) | "
			"((uint32_t)ts & 0x%" PRIx64 "u));\n"
			"\t} else {\n"
			"\t\tht_store_u32(rec, (uint32_t)%" PRIu64
			"u << %u);\n",
			sl->ts_bits, span_mask, sl->esc, sl->ts_bits);
	}
	fprintf(out, "\t\tht_store_u32(rec + 4, id);\n"
		     "\t\tht_store_u64(rec + 8, ts);\n"
		     "\t}\n"
		     "\ts->at += hdr + need;\n"
		     "\ts->last_ts = ts;\n"
		     "\treturn rec + hdr;\n"
		     "}\n\n");
}

/* The compact header without a clock: the id alone. */
static void emit_reserve_compact_id(FILE *out, const struct stream_layout *sl)
{
	unsigned hb = sl->id_width / 8;

	fprintf(out,
		"\n\t(void)ts;\n"
		"\tif (!s->packet_open || s->at + %uu + need > s->end) {\n"
		"\t\tif (!ht_stream_make_room(s, %uu + need, 0)) {\n"
		"\t\t\treturn 0;\n"
		"\t\t}\n"
		"\t}\n"
		"\trec = s->buf + s->at;\n",
		hb, hb);
	if (hb == 1) {
		fprintf(out, "\tht_store_u8(rec, (uint8_t)id);\n");
	} else {
		fprintf(out, "\tht_store_u%u(rec, (uint%u_t)id);\n",
			sl->id_width, sl->id_width);
	}
	fprintf(out,
		"\ts->at += %uu + need;\n"
		"\treturn rec + %u;\n"
		"}\n\n",
		hb, hb);
}

/* barectf's header, written by the stream's header function. */
static void emit_reserve_barectf(FILE *out, const struct stream_layout *sl)
{
	fprintf(out,
		"\n\tif (!s->packet_open || s->at + need > s->end) {\n"
		"\t\tif (!ht_stream_make_room(s, need, ts)) {\n"
		"\t\t\treturn 0;\n"
		"\t\t}\n"
		"\t}\n"
		"\trec = s->buf + s->at;\n"
		"\t%s_header(rec, id%s);\n"
		"\ts->at += need;\n"
		"\ts->last_ts = ts;\n"
		"\treturn rec;\n"
		"}\n\n",
		sl->sprefix, sl->has_clock ? ", ts" : "");
}

/* The slow path of a tracing function: packet switch, header, drops. */
static void emit_reserve(FILE *out, const struct ht_config *cfg,
			 const struct stream_layout *sl, const char *lead)
{
	fprintf(out,
		"%suint8_t *%s_reserve(struct %sctx *sctx, uint32_t id,\n"
		"\tuint32_t need, uint64_t ts)\n{\n"
		"\tstruct ht_stream *const s = &sctx->parent.s;\n"
		"\tuint8_t *rec;\n",
		lead, sl->sprefix, sl->sprefix);
	if (sl->compact && sl->has_clock) {
		emit_reserve_compact_ts(out, cfg, sl);
	} else if (sl->compact) {
		emit_reserve_compact_id(out, sl);
	} else {
		emit_reserve_barectf(out, sl);
	}
}

/* barectf's layout: an inline header writer used by both paths. */
static void emit_barectf_header(FILE *out, const struct ht_config *cfg,
				const struct stream_layout *sl)
{
	struct walk w;

	fprintf(out,
		"static inline void %s_header(uint8_t *q, uint32_t id%s)\n{\n",
		sl->sprefix, sl->has_clock ? ", uint64_t ts" : "");
	ht__walk_init(&w, cfg, WALK_WRITE, sl->hdr_align, out);
	if (sl->id_ft) {
		ht__walk_scalar(&w, sl->id_ft, "id");
	} else {
		fprintf(out, "\t(void)id;\n");
	}
	if (sl->ts_ft) {
		ht__walk_scalar(&w, sl->ts_ft, "ts");
	} else if (sl->has_clock) {
		fprintf(out, "\t(void)ts;\n");
	}
	fprintf(out, "}\n\n");
}

static void upper(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++) {
		dst[i] = (char)(src[i] >= 'a' && src[i] <= 'z'	   ? src[i] - 32
				: (src[i] == '-' || src[i] == '.') ? '_'
								   : src[i]);
	}
	dst[i] = '\0';
}

static void emit_accessors(FILE *out, const struct ht_config *cfg,
			   const char *lead)
{
	const char *p = cfg->prefix_ident;

	fprintf(
	    out,
	    "%suint32_t %spacket_size(const void *vctx)\n{\n"
	    "\treturn ((const struct ht_stream *)vctx)->size * 8u;\n}\n\n"
	    "%sint %spacket_is_full(const void *vctx)\n{\n"
	    "\tconst struct ht_stream *s = (const struct ht_stream *)vctx;\n\n"
	    "\treturn s->at == s->size;\n}\n\n"
	    "%sint %spacket_is_empty(const void *vctx)\n{\n"
	    "\tconst struct ht_stream *s = (const struct ht_stream *)vctx;\n\n"
	    "\treturn s->at <= s->content_off;\n}\n\n"
	    "%suint32_t %spacket_events_discarded(const void *vctx)\n{\n"
	    "\treturn ht_stream_discarded((const struct ht_stream "
	    "*)vctx);\n}\n\n"
	    "%suint32_t %sdiscarded_event_records_count(const void *vctx)\n{\n"
	    "\treturn ht_stream_discarded((const struct ht_stream "
	    "*)vctx);\n}\n\n"
	    "%suint32_t %spacket_sequence_number(const void *vctx)\n{\n"
	    "\treturn ((const struct ht_stream *)vctx)->seq_num;\n}\n\n"
	    "%suint8_t *%spacket_buf(const void *vctx)\n{\n"
	    "\treturn ((const struct ht_stream *)vctx)->buf;\n}\n\n"
	    "%suint8_t *%spacket_buf_addr(const void *vctx)\n{\n"
	    "\treturn ((const struct ht_stream *)vctx)->buf;\n}\n\n",
	    lead, p, lead, p, lead, p, lead, p, lead, p, lead, p, lead, p, lead,
	    p);
	fprintf(
	    out,
	    "%svoid %spacket_set_buf(void *vctx, uint8_t *buf, uint32_t "
	    "buf_size)\n{\n"
	    "\tstruct ht_stream *s = (struct ht_stream *)vctx;\n\n"
	    "\ts->buf = buf;\n"
	    "\tif (s->at == s->size) {\n"
	    "\t\t/* Keep the full packet state. */\n"
	    "\t\ts->at = buf_size;\n"
	    "\t}\n"
	    "\ts->size = buf_size;\n"
	    "\tif (s->packet_open) {\n"
	    "\t\ts->end = buf_size;\n"
	    "\t}\n}\n\n"
	    "%suint32_t %spacket_buf_size(const void *vctx)\n{\n"
	    "\treturn ((const struct ht_stream *)vctx)->size;\n}\n\n"
	    "%sint %spacket_is_open(const void *vctx)\n{\n"
	    "\treturn ((const struct ht_stream *)vctx)->packet_open;\n}\n\n"
	    "%sint %sis_in_tracing_section(const void *vctx)\n{\n"
	    "\treturn ((const struct ht_stream *)vctx)->busy;\n}\n\n"
	    "%svolatile const int *%sis_in_tracing_section_ptr(const void "
	    "*vctx)\n{\n"
	    "\treturn &((const struct ht_stream *)vctx)->busy;\n}\n\n"
	    "%sint %sis_tracing_enabled(const void *vctx)\n{\n"
	    "\treturn !((const struct ht_stream *)vctx)->off;\n}\n\n"
	    "%svoid %senable_tracing(void *vctx, int enable)\n{\n"
	    "\tht_stream_set_enabled((struct ht_stream *)vctx, enable);\n}\n\n"
	    "%svoid %sset_core_id(void *vctx, uint32_t core_id)\n{\n"
	    "\t((struct ht_stream *)vctx)->core_id = core_id;\n}\n\n",
	    lead, p, lead, p, lead, p, lead, p, lead, p, lead, p, lead, p, lead,
	    p);
	fprintf(out,
		"%svoid %sinit(void *vctx, uint8_t *buf, uint32_t buf_size,\n"
		"\tconst struct %splatform_callbacks cbs, void *data)\n{\n"
		"\tstruct %sctx *ctx = (struct %sctx *)vctx;\n\n"
		"\tht_stream_init(&ctx->s, buf, buf_size, data, "
		"cbs.is_backend_full,\n"
		"\t\tcbs.open_packet, cbs.close_packet);\n"
		"\tctx->cbs = cbs;\n",
		lead, p, p, p, p);
	fprintf(out, "}\n\n");
}

/* Prototypes of the out-of-line API (both the header and header-only). */
static void emit_protos(FILE *out, const struct ht_config *cfg,
			const char *lead)
{
	const char *p = cfg->prefix_ident;
	size_t i;

	fprintf(
	    out,
	    "%suint32_t %spacket_size(const void *vctx);\n"
	    "%sint %spacket_is_full(const void *vctx);\n"
	    "%sint %spacket_is_empty(const void *vctx);\n"
	    "%suint32_t %spacket_events_discarded(const void *vctx);\n"
	    "%suint32_t %sdiscarded_event_records_count(const void *vctx);\n"
	    "%suint32_t %spacket_sequence_number(const void *vctx);\n"
	    "%suint8_t *%spacket_buf(const void *vctx);\n"
	    "%suint8_t *%spacket_buf_addr(const void *vctx);\n"
	    "%svoid %spacket_set_buf(void *vctx, uint8_t *buf, uint32_t "
	    "buf_size);\n"
	    "%suint32_t %spacket_buf_size(const void *vctx);\n"
	    "%sint %spacket_is_open(const void *vctx);\n"
	    "%sint %sis_in_tracing_section(const void *vctx);\n"
	    "%svolatile const int *%sis_in_tracing_section_ptr(const void "
	    "*vctx);\n"
	    "%sint %sis_tracing_enabled(const void *vctx);\n"
	    "%svoid %senable_tracing(void *vctx, int enable);\n"
	    "\n/* hetrace: the core id written in every packet context "
	    "(default 0). */\n"
	    "%svoid %sset_core_id(void *vctx, uint32_t core_id);\n\n"
	    "/* Initialize context */\n"
	    "%svoid %sinit(void *vctx, uint8_t *buf, uint32_t buf_size,\n"
	    "\tconst struct %splatform_callbacks cbs, void *data);\n\n",
	    lead, p, lead, p, lead, p, lead, p, lead, p, lead, p, lead, p, lead,
	    p, lead, p, lead, p, lead, p, lead, p, lead, p, lead, p, lead, p,
	    lead, p, lead, p, p);
	for (i = 0; i < cfg->nr_streams; i++) {
		struct stream_layout sl;
		struct params pp = {cfg->prefix_ident, cfg->streams[i].name};

		layout_stream(cfg, &cfg->streams[i], &sl);
		fprintf(out,
			"/* Open packet for data stream type `%s` */\n"
			"%svoid %sopen_packet(struct %sctx *sctx",
			cfg->streams[i].name, lead, sl.sprefix, sl.sprefix);
		if (cfg->streams[i].pkt_ctx_extra) {
			ht__emit_params(out, &pp, cfg->streams[i].pkt_ctx_extra,
					"pc");
		}
		fprintf(
		    out,
		    ");\n\n"
		    "/* Close packet for data stream type `%s` */\n"
		    "%svoid %sclose_packet(struct %sctx *sctx);\n\n"
		    "/* Slow path of the tracing functions. */\n"
		    "%suint8_t *%s_reserve(struct %sctx *sctx, uint32_t id,\n"
		    "\tuint32_t need, uint64_t ts);\n\n",
		    cfg->streams[i].name, lead, sl.sprefix, sl.sprefix, lead,
		    sl.sprefix, sl.sprefix);
	}
}

static int emit_source_body(const struct ht_config *cfg, FILE *out,
			    const char *lead);

/* The header's top: guard, byte order check, barectf's macros. */
static void emit_header_top(FILE *out, const struct ht_config *cfg,
			    const char *guard)
{
	const char *p = cfg->prefix_ident;
	const struct ht_stream_type *def = ht_config_default_stream(cfg);
	size_t j;

	fprintf(
	    out,
	    "/*\n"
	    " * Tracing functions for this configuration, generated by hetrace "
	    "gen.\n"
	    " * The API is barectf 3.1's; the tracing functions are inline.\n"
	    " * Do not edit.\n"
	    " */\n\n"
	    "#ifndef _%s_H\n"
	    "#define _%s_H\n\n"
	    "#include <stdint.h>\n"
	    "#include <string.h>\n\n"
	    "#include \"hetrace/stream.h\"\n\n"
	    "#if HT_NATIVE_LITTLE_ENDIAN != %d\n"
	    "#error \"this trace type is %s-endian but the target is not: "
	    "regenerate with native-byte-order: %s\"\n"
	    "#endif\n\n"
	    "#ifdef __cplusplus\n"
	    "extern \"C\" {\n"
	    "#endif\n\n",
	    guard, guard, cfg->native_bo == HT_BO_LE,
	    cfg->native_bo == HT_BO_LE ? "little" : "big",
	    cfg->native_bo == HT_BO_LE ? "big-endian" : "little-endian");
	if (cfg->header_ident_prefix_def) {
		fprintf(out,
			"#define _BARECTF_PREFIX %s\n"
			"#define _BARECTF_IDENTIFIER_PREFIX %s\n\n",
			p, p);
	}
	if (def && cfg->header_default_dst_def) {
		fprintf(out,
			"#define _BARECTF_DEFAULT_STREAM %s\n"
			"#define _BARECTF_DEFAULT_DATA_STREAM_TYPE_NAME %s\n\n",
			def->name, def->name);
	}
	if (def) {
		for (j = 0; j < def->nr_events; j++) {
			fprintf(out, "#define %strace_%s %s%s_trace_%s\n", p,
				def->events[j].name, p, def->name,
				def->events[j].name);
		}
		fprintf(out, "\n");
	}
}

/* The platform callbacks and the context structures. */
static void emit_contexts(FILE *out, const struct ht_config *cfg)
{
	const char *p = cfg->prefix_ident;
	size_t i;

	fprintf(out,
		"/* barectf platform callbacks */\n"
		"struct %splatform_callbacks {\n",
		p);
	for (i = 0; i < cfg->nr_clocks; i++) {
		fprintf(out, "\t%s (*%s_clock_get_value)(void *);\n",
			cfg->clocks[i].c_type ? cfg->clocks[i].c_type
					      : "uint32_t",
			cfg->clocks[i].name);
	}
	fprintf(
	    out,
	    "\tint (*is_backend_full)(void *);\n"
	    "\tvoid (*open_packet)(void *);\n"
	    "\tvoid (*close_packet)(void *);\n"
	    "};\n\n"
	    "/* Common context: the runtime's stream and the callbacks. */\n"
	    "struct %sctx {\n"
	    "\tstruct ht_stream s;\n"
	    "\tstruct %splatform_callbacks cbs;\n"
	    "};\n\n",
	    p, p);
	for (i = 0; i < cfg->nr_streams; i++) {
		fprintf(out,
			"/* Context for data stream type `%s` */\n"
			"struct %s%s_ctx {\n"
			"\tstruct %sctx parent;\n"
			"};\n\n",
			cfg->streams[i].name, p, cfg->streams[i].name, p);
	}
}

/* Clocks: read, and extend narrow counters to 64 bits. */
static void emit_clocks(FILE *out, const struct ht_config *cfg)
{
	const char *p = cfg->prefix_ident;
	size_t i;

	for (i = 0; i < cfg->nr_clocks; i++) {
		const struct ht_clock_type *c = &cfg->clocks[i];
		unsigned bits = clock_c_bits(c->c_type);
		char mac[300];
		char up[256];

		upper(up, sizeof(up), c->name);
		snprintf(mac, sizeof(mac), "%sCLOCK_%s_FN", "HT_", up);
		fprintf(out,
			"/*\n"
			" * Clock `%s`. Define %s as the name of an inline "
			"function\n"
			" * `uint64_t f(void *data)` before including this "
			"header to read\n"
			" * the clock without the callback (a compile-time "
			"clock).\n"
			" */\n"
			"static inline uint64_t %s_clock_%s(struct %sctx "
			"*ctx)\n{\n",
			c->name, mac, p, c->name, p);
		fprintf(out,
			"#ifdef %s\n"
			"\tuint64_t raw = %s(ctx->s.data);\n"
			"#else\n"
			"\tuint64_t raw = "
			"(uint64_t)ctx->cbs.%s_clock_get_value(ctx->s.data);\n"
			"#endif\n\n",
			mac, mac, c->name);
		if (bits < 64) {
			fprintf(
			    out,
			    "\t/* A %u-bit counter: extended to 64 bits. */\n"
			    "\treturn ht_clock_extend(&ctx->s.clock_last, raw, "
			    "%u);\n",
			    bits, bits);
		} else {
			fprintf(out, "\treturn raw;\n");
		}
		fprintf(out, "}\n\n");
	}
}

/* The structure types taken by arrays of structures. */
static void emit_all_elem_types(FILE *out, const struct ht_config *cfg)
{
	const char *p = cfg->prefix_ident;
	size_t i, j;

	for (i = 0; i < cfg->nr_streams; i++) {
		const struct ht_stream_type *st = &cfg->streams[i];
		struct params sp = {p, st->name};

		if (st->ev_common_ctx) {
			ht__emit_elem_types(out, &sp, st->ev_common_ctx, "cc");
		}
		if (st->pkt_ctx_extra) {
			ht__emit_elem_types(out, &sp, st->pkt_ctx_extra, "pc");
		}
		for (j = 0; j < st->nr_events; j++) {
			const struct ht_event_type *ev = &st->events[j];
			char owner[256];
			struct params pp = {p, owner};

			snprintf(owner, sizeof(owner), "%s_%s", st->name,
				 ev->name);
			if (ev->spec_ctx) {
				ht__emit_elem_types(out, &pp, ev->spec_ctx,
						    "sc");
			}
			if (ev->payload) {
				ht__emit_elem_types(out, &pp, ev->payload, "p");
			}
		}
	}
}

/* The fast path: one inline tracing function per event record type. */
static void emit_tracing_functions(FILE *out, const struct ht_config *cfg)
{
	size_t i, j;

	for (i = 0; i < cfg->nr_streams; i++) {
		struct stream_layout sl;

		layout_stream(cfg, &cfg->streams[i], &sl);
		for (j = 0; j < cfg->streams[i].nr_events; j++) {
			const struct ht_event_type *ev =
			    &cfg->streams[i].events[j];

			fprintf(out,
				"/* Trace (data stream type `%s`, event record "
				"type `%s`) */\n",
				cfg->streams[i].name, ev->name);
			emit_event_proto(out, cfg, &sl, ev, "HT_TRACE_INLINE ");
			fprintf(out, "\n{\n");
			emit_event_body(out, cfg, &sl, ev);
			fprintf(out, "}\n\n");
		}
	}
}

int ht_emit_c_header(const struct ht_config *cfg, FILE *out, bool header_only)
{
	const char *lead = header_only ? "static inline " : "";
	char guard[256];
	size_t i;

	upper(guard, sizeof(guard), cfg->prefix_file);
	emit_header_top(out, cfg, guard);
	emit_contexts(out, cfg);
	emit_clocks(out, cfg);
	emit_all_elem_types(out, cfg);
	for (i = 0; i < cfg->nr_streams; i++) {
		struct stream_layout sl;

		layout_stream(cfg, &cfg->streams[i], &sl);
		if (!sl.compact) {
			emit_barectf_header(out, cfg, &sl);
		}
	}
	emit_protos(out, cfg, lead);
	if (header_only) {
		/* Everything static, in this header. */
		int ret = emit_source_body(cfg, out, lead);

		if (ret) {
			return ret;
		}
	}

	emit_tracing_functions(out, cfg);
	fprintf(out, "#ifdef __cplusplus\n}\n#endif\n\n#endif /* _%s_H */\n",
		guard);
	return ferror(out) ? HT_EIO : 0;
}

/*
 * The source. With a header-only output, ht_emit_c_header() calls this
 * with the declarations already written; `lead` then makes every
 * function static.
 */
static int emit_source_body(const struct ht_config *cfg, FILE *out,
			    const char *lead)
{
	size_t i;

	emit_accessors(out, cfg, lead);
	for (i = 0; i < cfg->nr_streams; i++) {
		struct stream_layout sl;

		layout_stream(cfg, &cfg->streams[i], &sl);
		emit_open_close(out, cfg, &sl, lead);
		emit_reserve(out, cfg, &sl, lead);
	}
	return ferror(out) ? HT_EIO : 0;
}

int ht_emit_c_source(const struct ht_config *cfg, FILE *out)
{
	fprintf(
	    out,
	    "/*\n"
	    " * Packet functions and the slow path, generated by hetrace gen.\n"
	    " * Do not edit.\n"
	    " */\n\n"
	    "#include \"%s.h\"\n\n",
	    cfg->prefix_file);
	return emit_source_body(cfg, out, "");
}
