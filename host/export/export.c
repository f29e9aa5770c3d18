/* SPDX-License-Identifier: MIT */
/*
 * The export driver (export.h): reads the set through the states model
 * and hands every item to the exporter; the formats' table.
 */
#include "export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

extern const struct ht_export_ops ht__export_perfetto;
extern const struct ht_export_ops ht__export_chrome_json;

const struct ht_export_ops *const ht_export_formats[] = {
    &ht__export_perfetto,
    &ht__export_chrome_json,
    NULL,
};

const struct ht_export_ops *ht_export_find(const char *name)
{
	size_t i;

	for (i = 0; ht_export_formats[i]; i++) {
		if (!strcmp(ht_export_formats[i]->name, name)) {
			return ht_export_formats[i];
		}
	}
	return NULL;
}

#define OUT_CAP (1u << 20)

static int flush(struct ht__export_out *o)
{
	struct ht_buf *b = &o->buf;

	if (b->nomem) {
		return HT_ENOMEM;
	}
	if (b->len && !o->failed &&
	    fwrite(b->data, 1, b->len, o->f) != b->len) {
		o->failed = true;
		o->err_no = errno;
	}
	o->bytes += b->len;
	b->len = 0;
	return o->failed ? HT_EIO : 0;
}

void ht__export_puts(struct ht__export_out *o, const char *s, size_t n)
{
	struct ht_buf *b = &o->buf;

	/* the buffer only grows past OUT_CAP for a record larger than half
	 * of it; then a failure is reported by the next flush */
	if (n >= b->cap - b->len && (flush(o) || !ht_buf_reserve(b, n))) {
		return;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

int ht__export_maybe_flush(struct ht__export_out *o)
{
	return o->buf.len > o->buf.cap / 2 ? flush(o)
					   : (o->failed ? HT_EIO : 0);
}

int32_t ht__export_core_rank(const struct ht_states_core *c)
{
	/* 24 bits of core id under the role: at most 5 << 24, an int32 */
	const uint32_t id_max = (1u << 24) - 1;
	uint32_t id =
	    c->has_core_id && c->core_id < id_max ? c->core_id : id_max;

	return (int32_t)(((uint32_t)ht_states_role_rank(c->role) << 24) | id);
}

int ht__export_group(struct ht_export *ex, const char *name, size_t *index,
		     bool *added)
{
	*added = false;
	if (ht_strv_find(&ex->groups, name, index)) {
		return 0;
	}
	if (ht_strv_add(&ex->groups, name)) {
		return HT_ENOMEM;
	}
	ex->stats->groups++;
	*index = ex->groups.nr - 1;
	*added = true;
	return 0;
}

struct run {
	struct ht_export ex;
	const struct ht_export_ops *ops;
};

static int on_item(void *arg, const struct ht_states_item *it)
{
	struct run *r = arg;
	int (*cb)(struct ht_export * ex, const struct ht_states_item *it);

	switch (it->kind) {
	case HT_STATES_CORE:
		cb = r->ops->core;
		break;
	case HT_STATES_SLICE_BEGIN:
	case HT_STATES_SLICE_END:
		cb = r->ops->slice;
		break;
	case HT_STATES_EVENT:
		cb = r->ops->event;
		break;
	case HT_STATES_WINDOW:
		cb = r->ops->window;
		break;
	case HT_STATES_FLOW:
		r->ex.stats->flows++;
		cb = r->ops->flow;
		break;
	case HT_STATES_ANOMALY:
		r->ex.stats->anomalies++;
		if (r->ex.opts->warn) {
			r->ex.opts->warn(r->ex.opts->warn_arg, it->text);
		}
		return 0;
	default:
		return 0;
	}
	return cb ? cb(&r->ex, it) : 0;
}

static const char *symbolize(void *arg, const struct ht_ctf_msg *msg,
			     uint64_t addr)
{
	return ht_func_names_lookup(arg, msg, addr);
}

/* The first pass for function names: func_base records and addresses
 * decide each core's load bias (func-names.h); then back to the start.
 * Left out (*@one_pass) when the bias of every stream is known before
 * its first name is asked for: the export pass then feeds the names.
 * Damaged input is reported by the export pass only. */
static int scan_names(struct ht_ctf_set *set, const struct ht_export_opts *o,
		      bool *one_pass)
{
	/* back to the start of the range the set reads, not of the trace */
	int64_t begin_ns = o->select ? o->select->begin_ns : INT64_MIN;
	struct ht_ctf_msg msg;
	int ret;

	ret = ht_func_names_plan(
	    o->fnames, set, o->select ? o->select->events : NULL,
	    o->select ? o->select->nr_events : 0, one_pass);
	if (!ret) {
		ret = ht_ctf_set_seek_ns(set, begin_ns);
	}
	if (ret || *one_pass) {
		return ret;
	}
	for (;;) {
		ret = ht_ctf_set_next(set, &msg);
		if (ret == HT_EEOF) {
			break;
		}
		if (ret) {
			continue;
		}
		ret = ht_func_names_scan(o->fnames, &msg);
		if (ret) {
			return ret;
		}
	}
	ht_func_names_ready(o->fnames, o->warn, o->warn_arg);
	return ht_ctf_set_seek_ns(set, begin_ns);
}

int ht_export_run(const struct ht_export_ops *ops, struct ht_ctf_set *set,
		  FILE *out, const struct ht_export_opts *opts,
		  struct ht_export_stats *stats, char *err, size_t err_len)
{
	struct ht_export_opts o = {0};
	struct ht_states_opts so = {0};
	struct ht_states *st = NULL;
	struct ht_ctf_msg msg;
	struct run r;
	bool one_pass = false;
	size_t i;
	int ret, ret2;

	if (opts) {
		o = *opts;
	}
	if (o.counter_window_ns <= 0) {
		o.counter_window_ns = 1000000;
	}
	memset(stats, 0, sizeof(*stats));
	memset(&r, 0, sizeof(r));
	r.ops = ops;
	r.ex.opts = &o;
	r.ex.stats = stats;
	r.ex.out.f = out;
	if (err_len) {
		err[0] = '\0';
	}
	if (!ht_buf_reserve(&r.ex.out.buf, OUT_CAP)) {
		snprintf(err, err_len, "out of memory");
		return HT_ENOMEM;
	}
	so.window_ns = o.counter_window_ns;
	so.max_pending_msgs = o.max_pending_msgs;
	if (o.fnames && ht_func_names_count(o.fnames)) {
		ret = scan_names(set, &o, &one_pass);
		if (ret) {
			snprintf(err, err_len, "out of memory");
			goto free_buf;
		}
		so.symbolize = symbolize;
		so.symbolize_arg = o.fnames;
	}
	ret = ht_states_create(&st, &so, on_item, &r);
	if (ret) {
		snprintf(err, err_len, "out of memory");
		goto free_buf;
	}
	r.ex.states = st;
	ret = ops->begin(&r.ex);
	if (ret) {
		goto end;
	}
	for (;;) {
		ret = ht_ctf_set_next(set, &msg);
		if (ret == HT_EEOF) {
			break;
		}
		if (ret) {
			stats->reader_errors++;
			if (o.warn) {
				o.warn(o.warn_arg, ht_ctf_set_last_error(set));
			}
			continue;
		}
		if (msg.kind == HT_CTF_MSG_EVENT) {
			stats->events++;
		}
		if (one_pass) {
			ret = ht_func_names_scan(o.fnames, &msg);
			if (ret) {
				goto end;
			}
		}
		ret = ht_states_feed(st, &msg);
		if (ret) {
			goto end;
		}
	}
	ret = ht_states_finish(st);
	if (one_pass) {
		ht_func_names_ready(o.fnames, o.warn, o.warn_arg);
	}
	for (i = 0; i < ht_states_nr_cores(st); i++) {
		stats->damaged_times += ht_states_core(st, i)->time_damaged;
	}
end:
	ret2 = ops->end(&r.ex, ret == 0);
	if (!ret) {
		ret = ret2;
	}
	ret2 = flush(&r.ex.out);
	if (!ret) {
		ret = ret2;
	}
	if (!ret && fflush(out)) {
		r.ex.out.err_no = errno;
		ret = HT_EIO;
	}
	stats->bytes = r.ex.out.bytes;
	if (ret == HT_EIO) {
		snprintf(err, err_len, "%s: cannot write: %s", ops->name,
			 r.ex.out.err_no ? strerror(r.ex.out.err_no)
					 : "write error");
	} else if (ret) {
		snprintf(err, err_len, "%s: %s", ops->name, ht_strerror(ret));
	}
	ht_states_destroy(st);
free_buf:
	ht_strv_fini(&r.ex.groups);
	ht_buf_fini(&r.ex.out.buf);
	return ret;
}
