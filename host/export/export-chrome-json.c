/* SPDX-License-Identifier: MIT */
/*
 * The Chrome trace event format (JSON object form, docs/views.md),
 * read by chrome://tracing, Perfetto's UI and catapult:
 *
 * - a process (pid) per core type, named by `M` process_name; per core
 *   a thread (tid) named by `M` thread_name for its tasks and
 *   interrupts, and one for its functions;
 * - tasks, idle and interrupts as `B`/`E` pairs (in time order per
 *   thread: the states model nests them), functions as `X` complete
 *   events (written when they end, with their duration);
 * - every other event as an `i` instant (thread scope) with its payload
 *   fields in `args`;
 * - each matched message as a flow: `s` on the sender at the send time
 *   and `f` (binding point "e") on the receiver, same id;
 * - per core a `C` counter "<core> utilization %" per window.
 *
 * Times are in microseconds with three decimals (exact ns).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "export.h"

struct cj {
	bool first;
	char **groups;
	size_t nr_groups;
	struct cj_core {
		unsigned pid;
		bool has_func; /* its functions thread is named */
	} * cores;
	size_t nr_cores;
};

static void put(struct ht_export *ex, const char *s)
{
	ht__export_puts(&ex->out, s, strlen(s));
}

static void put_u64(struct ht_export *ex, uint64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ht__export_puts(&ex->out, p, (size_t)(tmp + sizeof(tmp) - p));
}

static void put_i64(struct ht_export *ex, int64_t v)
{
	if (v < 0) {
		put(ex, "-");
		put_u64(ex, 0 - (uint64_t)v);
	} else {
		put_u64(ex, (uint64_t)v);
	}
}

/* ns as microseconds with 3 decimals */
static void put_ts(struct ht_export *ex, int64_t ns)
{
	char frac[4];
	uint64_t u = ns < 0 ? 0 : (uint64_t)ns;

	put_u64(ex, u / 1000);
	frac[0] = '.';
	frac[1] = (char)('0' + u / 100 % 10);
	frac[2] = (char)('0' + u / 10 % 10);
	frac[3] = (char)('0' + u % 10);
	ht__export_puts(&ex->out, frac, 4);
}

static void put_json_str(struct ht_export *ex, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;
	char *q;

	/* worst case: every byte as \u00XX */
	if (ht__export_reserve(&ex->out, n * 6 + 2)) {
		return;
	}
	q = ht__export_tail(&ex->out);
	*q++ = '"';
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			*q++ = '\\';
			*q++ = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			*q++ = '\\';
			*q++ = 'u';
			*q++ = '0';
			*q++ = '0';
			*q++ = hex[c >> 4];
			*q++ = hex[c & 15];
		} else {
			*q++ = (char)c;
		}
	}
	*q++ = '"';
	ex->out.len = (size_t)(q - ex->out.buf);
}

static void put_name(struct ht_export *ex, const char *s)
{
	put_json_str(ex, s, strlen(s));
}

static void put_double(struct ht_export *ex, double d)
{
	char tmp[40];

	if (d != d || d > 1.7e308 || d < -1.7e308) {
		put(ex, "null"); /* JSON has no NaN or infinity */
		return;
	}
	snprintf(tmp, sizeof(tmp), "%.17g", d);
	put(ex, tmp);
}

static void record_begin(struct ht_export *ex, struct cj *cj)
{
	put(ex, cj->first ? "\n" : ",\n");
	cj->first = false;
}

static int cj_begin(struct ht_export *ex)
{
	struct cj *cj = calloc(1, sizeof(*cj));

	if (!cj) {
		return HT_ENOMEM;
	}
	cj->first = true;
	ex->priv = cj;
	put(ex, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":"
		"\"hetrace export\"},\"traceEvents\":[");
	return ht__export_maybe_flush(&ex->out);
}

static unsigned task_tid(const struct ht_states_core *c)
{
	return c->index * 2 + 1;
}

static unsigned func_tid(const struct ht_states_core *c)
{
	return c->index * 2 + 2;
}

static void put_pid_tid(struct ht_export *ex, unsigned pid, unsigned tid)
{
	put(ex, ",\"pid\":");
	put_u64(ex, pid);
	put(ex, ",\"tid\":");
	put_u64(ex, tid);
}

static int on_core(struct ht_export *ex, struct cj *cj,
		   const struct ht_states_core *c)
{
	size_t g;

	for (g = 0; g < cj->nr_groups; g++) {
		if (!strcmp(cj->groups[g], c->group)) {
			break;
		}
	}
	if (g == cj->nr_groups) {
		char **ng = realloc(cj->groups, (g + 1) * sizeof(*ng));

		if (!ng) {
			return HT_ENOMEM;
		}
		cj->groups = ng;
		ng[g] = malloc(strlen(c->group) + 1);
		if (!ng[g]) {
			return HT_ENOMEM;
		}
		strcpy(ng[g], c->group);
		cj->nr_groups++;
		ex->stats->groups++;
		record_begin(ex, cj);
		put(ex, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
		put_u64(ex, g + 1);
		put(ex, ",\"args\":{\"name\":");
		put_name(ex, c->group);
		put(ex, "}}");
	}
	if (c->index >= cj->nr_cores) {
		size_t n = c->index + 8;
		struct cj_core *nc = realloc(cj->cores, n * sizeof(*nc));

		if (!nc) {
			return HT_ENOMEM;
		}
		memset(nc + cj->nr_cores, 0, (n - cj->nr_cores) * sizeof(*nc));
		cj->cores = nc;
		cj->nr_cores = n;
	}
	cj->cores[c->index].pid = (unsigned)g + 1;
	ex->stats->cores++;
	record_begin(ex, cj);
	put(ex, "{\"ph\":\"M\",\"name\":\"thread_name\"");
	put_pid_tid(ex, (unsigned)g + 1, task_tid(c));
	put(ex, ",\"args\":{\"name\":");
	put_name(ex, c->name);
	put(ex, "}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\"");
	put_pid_tid(ex, (unsigned)g + 1, task_tid(c));
	put(ex, ",\"args\":{\"sort_index\":");
	put_u64(ex, task_tid(c));
	put(ex, "}}");
	return ht__export_maybe_flush(&ex->out);
}

static void put_field_value(struct ht_export *ex, const struct ht_ctf_field *f,
			    unsigned depth);

static void put_fields(struct ht_export *ex, const struct ht_ctf_field *f,
		       unsigned depth)
{
	const struct ht_ctf_field *c = ht_ctf_field_first_child(f);
	uint32_t i;

	put(ex, "{");
	for (i = 0; i < f->nr_children; i++, c = ht_ctf_field_next(c)) {
		const char *n = c->name ? c->name : "";

		if (i) {
			put(ex, ",");
		}
		put_name(ex, n[0] == '_' ? n + 1 : n);
		put(ex, ":");
		put_field_value(ex, c, depth + 1);
	}
	put(ex, "}");
}

static void put_field_value(struct ht_export *ex, const struct ht_ctf_field *f,
			    unsigned depth)
{
	const struct ht_ctf_field *c;
	const char *label;
	uint32_t i;

	switch (f->type->kind) {
	case HT_CTF_INT:
		if (f->type->is_signed) {
			put_i64(ex, f->v.s);
		} else {
			put_u64(ex, f->v.u);
		}
		break;
	case HT_CTF_ENUM:
		if (ht_ctf_enum_labels(f->type, f->v.u, &label, 1)) {
			put_name(ex, label);
		} else if (f->type->container->is_signed) {
			put_i64(ex, f->v.s);
		} else {
			put_u64(ex, f->v.u);
		}
		break;
	case HT_CTF_FLOAT:
		put_double(ex, f->v.d);
		break;
	case HT_CTF_STRING:
		put_json_str(ex, f->v.str, f->nr_children);
		break;
	case HT_CTF_STRUCT:
	case HT_CTF_VARIANT:
		if (depth > 16) {
			put(ex, "\"...\"");
			break;
		}
		put_fields(ex, f, depth);
		break;
	case HT_CTF_ARRAY:
	case HT_CTF_SEQUENCE:
		if (depth > 16) {
			put(ex, "\"...\"");
			break;
		}
		put(ex, "[");
		c = ht_ctf_field_first_child(f);
		for (i = 0; i < f->nr_children; i++, c = ht_ctf_field_next(c)) {
			if (i) {
				put(ex, ",");
			}
			put_field_value(ex, c, depth + 1);
		}
		put(ex, "]");
		break;
	}
}

static int on_slice(struct ht_export *ex, struct cj *cj,
		    const struct ht_states_item *it)
{
	const struct ht_states_slice *s = it->slice;
	const struct ht_states_core *c = it->core;
	unsigned pid = cj->cores[c->index].pid;

	if (s->kind == HT_STATES_FUNC) {
		char addr[24];

		if (it->kind == HT_STATES_SLICE_BEGIN) {
			return 0;
		}
		if (!cj->cores[c->index].has_func) {
			char name[300];

			cj->cores[c->index].has_func = true;
			snprintf(name, sizeof(name), "%s functions", c->name);
			record_begin(ex, cj);
			put(ex, "{\"ph\":\"M\",\"name\":\"thread_name\"");
			put_pid_tid(ex, pid, func_tid(c));
			put(ex, ",\"args\":{\"name\":");
			put_name(ex, name);
			put(ex, "}}");
		}
		record_begin(ex, cj);
		put(ex, "{\"ph\":\"X\",\"cat\":\"function\",\"name\":");
		put_name(ex, s->name);
		put_pid_tid(ex, pid, func_tid(c));
		put(ex, ",\"ts\":");
		put_ts(ex, s->begin_ns);
		put(ex, ",\"dur\":");
		put_ts(ex, s->end_ns - s->begin_ns);
		snprintf(addr, sizeof(addr), "0x%" PRIx64, s->id);
		put(ex, ",\"args\":{\"addr\":\"");
		put(ex, addr);
		put(ex, s->forced_end ? "\",\"no_end_event\":true}}" : "\"}}");
		ex->stats->slices++;
		return ht__export_maybe_flush(&ex->out);
	}
	record_begin(ex, cj);
	if (it->kind == HT_STATES_SLICE_BEGIN) {
		put(ex, s->kind == HT_STATES_ISR
			    ? "{\"ph\":\"B\",\"cat\":\"irq\",\"name\":"
			    : "{\"ph\":\"B\",\"cat\":\"task\",\"name\":");
		put_name(ex, s->name);
		put_pid_tid(ex, pid, task_tid(c));
		put(ex, ",\"ts\":");
		put_ts(ex, s->begin_ns);
		put(ex, s->kind == HT_STATES_ISR ? ",\"args\":{\"irq\":"
						 : ",\"args\":{\"tid\":");
		put_u64(ex, s->id);
		put(ex, "}}");
	} else {
		put(ex, "{\"ph\":\"E\"");
		put_pid_tid(ex, pid, task_tid(c));
		put(ex, ",\"ts\":");
		put_ts(ex, s->end_ns);
		put(ex,
		    s->forced_end ? ",\"args\":{\"no_end_event\":true}}" : "}");
		ex->stats->slices++;
	}
	return ht__export_maybe_flush(&ex->out);
}

static void put_flow_id(struct ht_export *ex, uint64_t id)
{
	char tmp[24];

	snprintf(tmp, sizeof(tmp), "\"0x%" PRIx64 "\"", id);
	put(ex, tmp);
}

static int on_event(struct ht_export *ex, struct cj *cj,
		    const struct ht_states_item *it)
{
	const struct ht_states_core *c = it->core;
	const struct ht_ctf_event *ev = it->msg->event;
	const struct ht_ctf_field *p = ev->scope[HT_CTF_SCOPE_EVENT_PAYLOAD];
	unsigned pid = cj->cores[c->index].pid;

	record_begin(ex, cj);
	put(ex, "{\"ph\":\"i\",\"s\":\"t\",\"name\":");
	put_name(ex, ev->cls->name);
	put_pid_tid(ex, pid, task_tid(c));
	put(ex, ",\"ts\":");
	put_ts(ex, it->ns);
	if (p && p->type->kind == HT_CTF_STRUCT) {
		put(ex, ",\"args\":");
		put_fields(ex, p, 0);
	}
	put(ex, "}");
	ex->stats->instants++;
	return ht__export_maybe_flush(&ex->out);
}

/* A matched message: `s` on the sender, `f` on the receiver. */
static int on_flow(struct ht_export *ex, struct cj *cj,
		   const struct ht_states_item *it)
{
	record_begin(ex, cj);
	put(ex, "{\"ph\":\"s\",\"cat\":\"msg\",\"name\":\"msg\",\"id\":");
	put_flow_id(ex, it->flow_id);
	put_pid_tid(ex, cj->cores[it->core->index].pid, task_tid(it->core));
	put(ex, ",\"ts\":");
	put_ts(ex, it->ns);
	put(ex, "},\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"msg\","
		"\"name\":\"msg\",\"id\":");
	put_flow_id(ex, it->flow_id);
	put_pid_tid(ex, cj->cores[it->peer->index].pid, task_tid(it->peer));
	put(ex, ",\"ts\":");
	put_ts(ex, it->peer_ns);
	put(ex, "}");
	ex->stats->flows++;
	return ht__export_maybe_flush(&ex->out);
}

static int on_window(struct ht_export *ex, struct cj *cj,
		     const struct ht_states_item *it)
{
	const struct ht_states_core *c = it->core;
	uint64_t known = it->win_idle_ns + it->win_task_ns + it->win_isr_ns;

	if (!known) {
		return 0;
	}
	record_begin(ex, cj);
	put(ex, "{\"ph\":\"C\",\"name\":");
	{
		char name[300];

		snprintf(name, sizeof(name), "%s utilization %%", c->name);
		put_name(ex, name);
	}
	put_pid_tid(ex, cj->cores[c->index].pid, task_tid(c));
	put(ex, ",\"ts\":");
	put_ts(ex, it->win_begin_ns);
	put(ex, ",\"args\":{\"util\":");
	put_double(ex, 100.0 * (double)(it->win_task_ns + it->win_isr_ns) /
			   (double)known);
	put(ex, "}}");
	ex->stats->counters++;
	return ht__export_maybe_flush(&ex->out);
}

static int cj_event(struct ht_export *ex, const struct ht_states_item *it)
{
	struct cj *cj = ex->priv;

	switch (it->kind) {
	case HT_STATES_CORE:
		return on_core(ex, cj, it->core);
	case HT_STATES_SLICE_BEGIN:
	case HT_STATES_SLICE_END:
		return on_slice(ex, cj, it);
	case HT_STATES_EVENT:
		return on_event(ex, cj, it);
	case HT_STATES_WINDOW:
		return on_window(ex, cj, it);
	case HT_STATES_FLOW:
		return on_flow(ex, cj, it);
	default:
		return 0;
	}
}

static int cj_end(struct ht_export *ex, bool ok)
{
	struct cj *cj = ex->priv;
	size_t i;

	if (!cj) {
		return 0;
	}
	if (ok) {
		put(ex, "\n]}\n");
	}
	for (i = 0; i < cj->nr_groups; i++) {
		free(cj->groups[i]);
	}
	free(cj->groups);
	free(cj->cores);
	free(cj);
	ex->priv = NULL;
	return 0;
}

const struct ht_export_ops ht__export_chrome_json = {
    .name = "chrome-json",
    .description = "Chrome trace event JSON (chrome://tracing, Perfetto UI)",
    .begin = cj_begin,
    .event = cj_event,
    .end = cj_end,
};
