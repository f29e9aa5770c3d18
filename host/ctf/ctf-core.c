/* SPDX-License-Identifier: MIT */
/*
 * The core a data stream records (docs/events.md, "how a tool finds the
 * core of a stream"): the packet context's core_id named by env
 * core_<id>_name, else env core_name (and core_id), else a name made of
 * the trace and the file.
 */
#include <inttypes.h>
#include <stdio.h>

#include "ctf-reader.h"

static const char *env_str(const struct ht_ctf_trace *tr, const char *name)
{
	const struct ht_ctf_env_entry *e = ht_ctf_trace_env(tr, name);

	return e && e->is_string ? e->str : NULL;
}

static bool field_uint(const struct ht_ctf_field *f, uint64_t *v)
{
	if (!f ||
	    (f->type->kind != HT_CTF_INT && f->type->kind != HT_CTF_ENUM)) {
		return false;
	}
	*v = f->v.u;
	return true;
}

void ht_ctf_stream_core(const struct ht_ctf_stream *s,
			const struct ht_ctf_field *packet_context, char *buf,
			size_t len, struct ht_ctf_core *core)
{
	const struct ht_ctf_trace *tr = s->trace;
	const struct ht_ctf_env_entry *e;
	char key[64];
	uint64_t pkt_id;
	bool has_pkt_id =
	    field_uint(ht_ctf_field_member(packet_context, "core_id"), &pkt_id);

	core->name = core->role = NULL;
	core->has_id = false;
	core->id = 0;
	if (has_pkt_id) {
		snprintf(key, sizeof(key), "core_%" PRIu64 "_name", pkt_id);
		core->name = env_str(tr, key);
		if (core->name) {
			core->has_id = true;
			core->id = pkt_id;
			snprintf(key, sizeof(key), "core_%" PRIu64 "_role",
				 pkt_id);
			core->role = env_str(tr, key);
			return;
		}
	}
	core->name = env_str(tr, "core_name");
	core->role = env_str(tr, "core_role");
	e = ht_ctf_trace_env(tr, "core_id");
	if (e && !e->is_string) {
		core->has_id = true;
		core->id = (uint64_t)e->i;
	} else if (has_pkt_id) {
		core->has_id = true;
		core->id = pkt_id;
	}
	if (core->name) {
		return;
	}
	if (core->has_id) {
		snprintf(buf, len, "%s/core%" PRIu64, tr->name, core->id);
	} else {
		snprintf(buf, len, "%s/%s", tr->name, s->file_name);
	}
	core->name = buf;
}
