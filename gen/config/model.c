/* SPDX-License-Identifier: MIT */
/* The configuration model: queries and release. */
#include <stdlib.h>

#include "model.h"
#include "model-priv.h"

unsigned ht_ft_align(const struct ht_ft *ft)
{
	unsigned align, a;
	size_t i;

	switch (ft->kind) {
	case HT_FT_STRING:
		return 8;
	case HT_FT_STATIC_ARRAY:
		return ht_ft_align(ft->elem);
	case HT_FT_DYNAMIC_ARRAY:
		/*
		 * The array itself aligns as its elements; its length
		 * member (uint32, align 8) is a separate member of the
		 * enclosing structure.
		 */
		return ht_ft_align(ft->elem);
	case HT_FT_STRUCT:
		align = ft->align_bits ? ft->align_bits : 1;
		for (i = 0; i < ft->nr_members; i++) {
			const struct ht_ft *m = ft->members[i].ft;

			a = ht_ft_align(m);
			if (m->kind == HT_FT_DYNAMIC_ARRAY && a < 8) {
				a = 8; /* its length member */
			}
			if (a > align) {
				align = a;
			}
		}
		return align;
	default:
		return ft->align_bits;
	}
}

const struct ht_stream_type *
ht_config_default_stream(const struct ht_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nr_streams; i++) {
		if (cfg->streams[i].is_default) {
			return &cfg->streams[i];
		}
	}
	return NULL;
}

void ht__ft_destroy(struct ht_ft *ft)
{
	size_t i;

	if (!ft) {
		return;
	}
	for (i = 0; i < ft->nr_mappings; i++) {
		free(ft->mappings[i].label);
		free(ft->mappings[i].ranges);
	}
	free(ft->mappings);
	ht__ft_destroy(ft->elem);
	for (i = 0; i < ft->nr_members; i++) {
		free(ft->members[i].name);
		ht__ft_destroy(ft->members[i].ft);
	}
	free(ft->members);
	free(ft);
}

static void feature_fini(struct ht_feature *f)
{
	ht__ft_destroy(f->ft);
	f->ft = NULL;
}

static void stream_fini(struct ht_stream_type *st)
{
	size_t i;

	free(st->name);
	feature_fini(&st->pkt_total_size);
	feature_fini(&st->pkt_content_size);
	feature_fini(&st->pkt_ts_begin);
	feature_fini(&st->pkt_ts_end);
	feature_fini(&st->pkt_discarded);
	feature_fini(&st->pkt_seq_num);
	feature_fini(&st->ev_type_id);
	feature_fini(&st->ev_timestamp);
	ht__ft_destroy(st->pkt_ctx_extra);
	ht__ft_destroy(st->ev_common_ctx);
	for (i = 0; i < st->nr_events; i++) {
		free(st->events[i].name);
		ht__ft_destroy(st->events[i].spec_ctx);
		ht__ft_destroy(st->events[i].payload);
	}
	free(st->events);
}

void ht_config_destroy(struct ht_config *cfg)
{
	size_t i;

	if (!cfg) {
		return;
	}
	for (i = 0; i < cfg->nr_streams; i++) {
		stream_fini(&cfg->streams[i]);
	}
	free(cfg->streams);
	for (i = 0; i < cfg->nr_clocks; i++) {
		free(cfg->clocks[i].name);
		free(cfg->clocks[i].description);
		free(cfg->clocks[i].c_type);
	}
	free(cfg->clocks);
	for (i = 0; i < cfg->nr_env; i++) {
		free(cfg->env[i].key);
		free(cfg->env[i].s);
	}
	free(cfg->env);
	feature_fini(&cfg->magic);
	feature_fini(&cfg->uuid_field);
	feature_fini(&cfg->stream_id_field);
	free(cfg->prefix_ident);
	free(cfg->prefix_file);
	for (i = 0; i < cfg->nr_files; i++) {
		free(cfg->files[i]);
	}
	free(cfg->files);
	free(cfg);
}
