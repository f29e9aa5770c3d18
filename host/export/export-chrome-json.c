/* SPDX-License-Identifier: MIT */
/*
 * The Chrome trace event format (JSON object form, docs/views.md),
 * read by chrome://tracing, Perfetto's UI and catapult:
 *
 * - a process (pid) per core type, named by `M` process_name; per core
 *   a thread (tid) named by `M` thread_name for its tasks and
 *   interrupts, and one for its functions; `M` process_sort_index and
 *   thread_sort_index put them in the display order of every view
 *   (ht_states_core_cmp(): master, kernel CPUs, slaves by id; a core's
 *   tasks, then its functions, then its messages);
 * - tasks, idle and interrupts as `B`/`E` pairs (in time order per
 *   thread: the states model nests them), functions as `X` complete
 *   events (written when they end, with their duration; the address in
 *   `args` unless the name is the address);
 * - msg_send and msg_recv events as 1 ns `X` slices (cat "msg") with
 *   their payload fields in `args`, on the core's "<core> messages"
 *   thread; every other event as an `i` instant (thread scope, the
 *   default) with its payload fields in `args`;
 * - each matched message as a flow: `s` on the sender at the send time
 *   and `f` (binding point "e") on the receiver, same id, each enclosed
 *   by its message's slice: Perfetto and chrome://tracing drop a flow
 *   event no slice of its thread encloses, and a thread of its own
 *   keeps these slices from crossing the B/E nesting of tasks;
 * - per core a `C` counter "<core> utilization %" per window.
 *
 * Times are in microseconds with up to three decimals (exact ns).
 */
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/json-writer.h"
#include "export.h"

/* The threads of one core, in their order under the core's rank. */
enum {
	SORT_TASKS,
	SORT_FUNCTIONS,
	SORT_MESSAGES,
	SORT_PER_CORE,
};

struct cj {
	struct ht_json j; /* into the output buffer */
	bool first;
	struct cj_core {
		unsigned pid;
		bool has_func; /* its functions thread is named */
		bool has_msgs; /* its messages thread is named */
		/* ",\"pid\":P,\"tid\":T" of each of its threads (by
		 * SORT_...), formatted once: every record names one */
		char pid_tid[SORT_PER_CORE][48];
		uint8_t pid_tid_len[SORT_PER_CORE];
	} * cores;
	size_t nr_cores, cap_cores;
};

/* ns as microseconds, exact: up to 3 decimals, no trailing zero */
static void put_ts(struct ht_json *j, int64_t ns)
{
	char frac[4];
	uint64_t u = ns < 0 ? 0 : (uint64_t)ns;
	size_t n = 4;

	ht_json_u64(j, u / 1000);
	frac[0] = '.';
	frac[1] = (char)('0' + u / 100 % 10);
	frac[2] = (char)('0' + u / 10 % 10);
	frac[3] = (char)('0' + u % 10);
	while (n > 1 && frac[n - 1] == '0') {
		n--;
	}
	if (n > 1) {
		ht_json_rawn(j, frac, n);
	}
}

static void record_begin(struct cj *cj)
{
	ht_json_raw(&cj->j, cj->first ? "\n" : ",\n");
	cj->first = false;
}

static int cj_begin(struct ht_export *ex)
{
	struct cj *cj = calloc(1, sizeof(*cj));

	if (!cj) {
		return HT_ENOMEM;
	}
	cj->first = true;
	/* strings from the trace: DEL escaped too, like the control
	 * characters */
	cj->j.b = &ex->out.buf;
	cj->j.flags = HT_JSON_DEL;
	ex->priv = cj;
	ht_json_raw(&cj->j,
		    "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":"
		    "\"hetrace export\"},\"traceEvents\":[");
	return ht__export_maybe_flush(&ex->out);
}

/* A core's tasks, functions and messages threads: tids 3i+1 .. 3i+3
 * (short numbers: every record names its thread). */
static unsigned task_tid(const struct ht_states_core *c)
{
	return c->index * 3 + 1;
}

static unsigned func_tid(const struct ht_states_core *c)
{
	return c->index * 3 + 2;
}

static unsigned msg_tid(const struct ht_states_core *c)
{
	return c->index * 3 + 3;
}

/* "0x<hex>" (quoted when @quoted), without printf */
static void put_hex(struct ht_json *j, uint64_t v, bool quoted)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[20], *p = tmp + sizeof(tmp);

	if (quoted) {
		*--p = '"';
	}
	do {
		*--p = digits[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	if (quoted) {
		*--p = '"';
	}
	ht_json_rawn(j, p, (size_t)(tmp + sizeof(tmp) - p));
}

static void put_pid_tid(struct ht_json *j, unsigned pid, unsigned tid)
{
	ht_json_raw(j, ",\"pid\":");
	ht_json_u64(j, pid);
	ht_json_raw(j, ",\"tid\":");
	ht_json_u64(j, tid);
}

/* put_pid_tid() of thread @t (SORT_...) of core @c, from its copy */
static void put_thread(struct cj *cj, const struct ht_states_core *c,
		       unsigned t)
{
	const struct cj_core *k = &cj->cores[c->index];

	ht_json_rawn(&cj->j, k->pid_tid[t], k->pid_tid_len[t]);
}

/* `M` thread_name and thread_sort_index of thread @tid of core @c
 * (@what: its place among the core's threads). */
static void put_thread_meta(struct ht_json *j, unsigned pid, unsigned tid,
			    const struct ht_states_core *c, const char *name,
			    unsigned what)
{
	/* ht__export_core_rank() < 2^27: times 4 is still an int32 */
	uint64_t sort =
	    (uint64_t)ht__export_core_rank(c) * SORT_PER_CORE + what;

	ht_json_raw(j, "{\"ph\":\"M\",\"name\":\"thread_name\"");
	put_pid_tid(j, pid, tid);
	ht_json_raw(j, ",\"args\":{\"name\":");
	ht_json_str(j, name);
	ht_json_raw(j, "}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\"");
	put_pid_tid(j, pid, tid);
	ht_json_raw(j, ",\"args\":{\"sort_index\":");
	ht_json_u64(j, sort);
	ht_json_raw(j, "}}");
}

static int on_core(struct ht_export *ex, const struct ht_states_item *it)
{
	struct cj *cj = ex->priv;
	const struct ht_states_core *c = it->core;
	struct ht_json *j = &cj->j;
	bool new_group;
	size_t g;

	if (ht__export_group(ex, c->group, &g, &new_group)) {
		return HT_ENOMEM;
	}
	if (new_group) {
		record_begin(cj);
		ht_json_raw(j,
			    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
		ht_json_u64(j, g + 1);
		ht_json_raw(j, ",\"args\":{\"name\":");
		ht_json_str(j, c->group);
		/* the group takes the place of its first core */
		ht_json_raw(j, "}},\n{\"ph\":\"M\",\"name\":"
			       "\"process_sort_index\",\"pid\":");
		ht_json_u64(j, g + 1);
		ht_json_raw(j, ",\"args\":{\"sort_index\":");
		ht_json_u64(j, (uint64_t)ht__export_core_rank(c));
		ht_json_raw(j, "}}");
	}
	if (ht_array_extend((void **)&cj->cores, &cj->nr_cores, &cj->cap_cores,
			    (size_t)c->index + 1, sizeof(*cj->cores))) {
		return HT_ENOMEM;
	}
	cj->cores[c->index].pid = (unsigned)g + 1;
	{
		struct cj_core *k = &cj->cores[c->index];
		unsigned tids[3] = {task_tid(c), func_tid(c), msg_tid(c)};
		int t, n;

		for (t = 0; t < 3; t++) {
			n = snprintf(k->pid_tid[t], sizeof(k->pid_tid[t]),
				     ",\"pid\":%u,\"tid\":%u", k->pid, tids[t]);
			k->pid_tid_len[t] = (uint8_t)n;
		}
	}
	ex->stats->cores++;
	record_begin(cj);
	put_thread_meta(j, (unsigned)g + 1, task_tid(c), c, c->name,
			SORT_TASKS);
	return ht__export_maybe_flush(&ex->out);
}

static void put_field_value(struct ht_json *j, const struct ht_ctf_field *f,
			    unsigned depth);

static void put_fields(struct ht_json *j, const struct ht_ctf_field *f,
		       unsigned depth)
{
	const struct ht_ctf_field *c = ht_ctf_field_first_child(f);
	uint32_t i;

	ht_json_raw(j, "{");
	for (i = 0; i < f->nr_children; i++, c = ht_ctf_field_next(c)) {
		const char *n = c->name ? c->name : "";

		if (i) {
			ht_json_raw(j, ",");
		}
		ht_json_str(j, n[0] == '_' ? n + 1 : n);
		ht_json_raw(j, ":");
		put_field_value(j, c, depth + 1);
	}
	ht_json_raw(j, "}");
}

static void put_field_value(struct ht_json *j, const struct ht_ctf_field *f,
			    unsigned depth)
{
	const struct ht_ctf_field *c;
	const char *label;
	uint32_t i;

	switch (f->type->kind) {
	case HT_CTF_INT:
		if (f->type->is_signed) {
			ht_json_i64(j, f->v.s);
		} else {
			ht_json_u64(j, f->v.u);
		}
		break;
	case HT_CTF_ENUM:
		if (ht_ctf_enum_labels(f->type, f->v.u, &label, 1)) {
			ht_json_str(j, label);
		} else if (f->type->container->is_signed) {
			ht_json_i64(j, f->v.s);
		} else {
			ht_json_u64(j, f->v.u);
		}
		break;
	case HT_CTF_FLOAT:
		ht_json_double(j, f->v.d);
		break;
	case HT_CTF_STRING:
		ht_json_strn(j, f->v.str, f->nr_children);
		break;
	case HT_CTF_STRUCT:
	case HT_CTF_VARIANT:
		if (depth > 16) {
			ht_json_raw(j, "\"...\"");
			break;
		}
		put_fields(j, f, depth);
		break;
	case HT_CTF_ARRAY:
	case HT_CTF_SEQUENCE:
		if (depth > 16) {
			ht_json_raw(j, "\"...\"");
			break;
		}
		ht_json_raw(j, "[");
		c = ht_ctf_field_first_child(f);
		for (i = 0; i < f->nr_children; i++, c = ht_ctf_field_next(c)) {
			if (i) {
				ht_json_raw(j, ",");
			}
			put_field_value(j, c, depth + 1);
		}
		ht_json_raw(j, "]");
		break;
	}
}

/* Whether @name is "0x<hex of @addr>" (a function without a name). */
static bool is_raw_name(const char *name, uint64_t addr)
{
	const char *p;
	uint64_t v = 0;

	if (name[0] != '0' || name[1] != 'x' || !name[2]) {
		return false;
	}
	for (p = name + 2; *p; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9') {
			d = (unsigned)(*p - '0');
		} else if (*p >= 'a' && *p <= 'f') {
			d = (unsigned)(*p - 'a' + 10);
		} else {
			return false;
		}
		if (p - name > 17) {
			return false;
		}
		v = v << 4 | d;
	}
	/* one spelling only: no leading zero */
	return v == addr && (name[2] != '0' || !name[3]);
}

static int on_slice(struct ht_export *ex, const struct ht_states_item *it)
{
	struct cj *cj = ex->priv;
	struct ht_json *j = &cj->j;
	const struct ht_states_slice *s = it->slice;
	const struct ht_states_core *c = it->core;
	unsigned pid = cj->cores[c->index].pid;

	if (s->kind == HT_STATES_FUNC) {
		if (it->kind == HT_STATES_SLICE_BEGIN) {
			return 0;
		}
		if (!cj->cores[c->index].has_func) {
			char name[300];

			cj->cores[c->index].has_func = true;
			snprintf(name, sizeof(name), "%s functions", c->name);
			record_begin(cj);
			put_thread_meta(j, pid, func_tid(c), c, name,
					SORT_FUNCTIONS);
		}
		record_begin(cj);
		ht_json_raw(j, "{\"ph\":\"X\",\"cat\":\"function\",\"name\":");
		ht_json_str(j, s->name);
		put_thread(cj, c, SORT_FUNCTIONS);
		ht_json_raw(j, ",\"ts\":");
		put_ts(j, s->begin_ns);
		ht_json_raw(j, ",\"dur\":");
		put_ts(j, s->end_ns - s->begin_ns);
		if (!is_raw_name(s->name, s->id)) {
			ht_json_raw(j, ",\"args\":{\"addr\":");
			put_hex(j, s->id, true);
			ht_json_raw(j, s->forced_end
					   ? ",\"no_end_event\":true}}"
					   : "}}");
		} else {
			/* the name is the address already */
			ht_json_raw(j,
				    s->forced_end
					? ",\"args\":{\"no_end_event\":true}}"
					: "}");
		}
		ex->stats->slices++;
		return ht__export_maybe_flush(&ex->out);
	}
	record_begin(cj);
	if (it->kind == HT_STATES_SLICE_BEGIN) {
		ht_json_raw(j,
			    s->kind == HT_STATES_ISR
				? "{\"ph\":\"B\",\"cat\":\"irq\",\"name\":"
				: "{\"ph\":\"B\",\"cat\":\"task\",\"name\":");
		ht_json_str(j, s->name);
		put_thread(cj, c, SORT_TASKS);
		ht_json_raw(j, ",\"ts\":");
		put_ts(j, s->begin_ns);
		ht_json_raw(j, s->kind == HT_STATES_ISR
				   ? ",\"args\":{\"irq\":"
				   : ",\"args\":{\"tid\":");
		ht_json_u64(j, s->id);
		ht_json_raw(j, "}}");
	} else {
		ht_json_raw(j, "{\"ph\":\"E\"");
		put_thread(cj, c, SORT_TASKS);
		ht_json_raw(j, ",\"ts\":");
		put_ts(j, s->end_ns);
		ht_json_raw(j, s->forced_end
				   ? ",\"args\":{\"no_end_event\":true}}"
				   : "}");
		ex->stats->slices++;
	}
	return ht__export_maybe_flush(&ex->out);
}

/* Names core @c's messages thread on first use. */
static void name_msg_thread(struct cj *cj, const struct ht_states_core *c)
{
	struct ht_json *j = &cj->j;
	unsigned pid = cj->cores[c->index].pid;
	char name[300];

	if (cj->cores[c->index].has_msgs) {
		return;
	}
	cj->cores[c->index].has_msgs = true;
	snprintf(name, sizeof(name), "%s messages", c->name);
	record_begin(cj);
	put_thread_meta(j, pid, msg_tid(c), c, name, SORT_MESSAGES);
}

static int on_event(struct ht_export *ex, const struct ht_states_item *it)
{
	struct cj *cj = ex->priv;
	struct ht_json *j = &cj->j;
	const struct ht_states_core *c = it->core;
	const struct ht_ctf_event *ev = it->msg->event;
	const struct ht_ctf_field *p = ev->scope[HT_CTF_SCOPE_EVENT_PAYLOAD];

	if (it->flow_id) {
		/* msg_send / msg_recv: the slice its flow event binds to */
		name_msg_thread(cj, c);
		record_begin(cj);
		ht_json_raw(j, "{\"ph\":\"X\",\"cat\":\"msg\",\"name\":");
		ht_json_str(j, ev->cls->name);
		put_thread(cj, c, SORT_MESSAGES);
		ht_json_raw(j, ",\"ts\":");
		put_ts(j, it->ns);
		ht_json_raw(j, ",\"dur\":0.001");
	} else {
		record_begin(cj);
		/* thread scope: the default of an instant ("s") */
		ht_json_raw(j, "{\"ph\":\"i\",\"name\":");
		ht_json_str(j, ev->cls->name);
		put_thread(cj, c, SORT_TASKS);
		ht_json_raw(j, ",\"ts\":");
		put_ts(j, it->ns);
	}
	if (p && p->type->kind == HT_CTF_STRUCT) {
		ht_json_raw(j, ",\"args\":");
		put_fields(j, p, 0);
	}
	ht_json_raw(j, "}");
	ex->stats->instants++;
	return ht__export_maybe_flush(&ex->out);
}

/*
 * One end of a message: the flow event @ph (@head: its start) at @ns on
 * @c's messages thread, where the message's slice (on_event()) encloses
 * it.
 */
static void put_flow_end(struct cj *cj, const char *head,
			 const struct ht_states_core *c, int64_t ns,
			 uint64_t flow_id)
{
	struct ht_json *j = &cj->j;

	record_begin(cj);
	ht_json_raw(j, head);
	put_hex(j, flow_id, true);
	put_thread(cj, c, SORT_MESSAGES);
	ht_json_raw(j, ",\"ts\":");
	put_ts(j, ns);
	ht_json_raw(j, "}");
}

/* A matched message: `s` on the sender, `f` on the receiver. */
static int on_flow(struct ht_export *ex, const struct ht_states_item *it)
{
	struct cj *cj = ex->priv;

	put_flow_end(cj,
		     "{\"ph\":\"s\",\"cat\":\"msg\",\"name\":\"msg\",\"id\":",
		     it->core, it->ns, it->flow_id);
	put_flow_end(cj,
		     "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"msg\",\"name\":"
		     "\"msg\",\"id\":",
		     it->peer, it->peer_ns, it->flow_id);
	return ht__export_maybe_flush(&ex->out);
}

static int on_window(struct ht_export *ex, const struct ht_states_item *it)
{
	struct cj *cj = ex->priv;
	struct ht_json *j = &cj->j;
	const struct ht_states_core *c = it->core;
	uint64_t known = it->win_idle_ns + it->win_task_ns + it->win_isr_ns;

	if (!known) {
		return 0;
	}
	record_begin(cj);
	ht_json_raw(j, "{\"ph\":\"C\",\"name\":");
	{
		char name[300];

		snprintf(name, sizeof(name), "%s utilization %%", c->name);
		ht_json_str(j, name);
	}
	put_thread(cj, c, SORT_TASKS);
	ht_json_raw(j, ",\"ts\":");
	put_ts(j, it->win_begin_ns);
	ht_json_raw(j, ",\"args\":{\"util\":");
	ht_json_double(j, 100.0 * (double)(it->win_task_ns + it->win_isr_ns) /
			      (double)known);
	ht_json_raw(j, "}}");
	ex->stats->counters++;
	return ht__export_maybe_flush(&ex->out);
}

static int cj_end(struct ht_export *ex, bool ok)
{
	struct cj *cj = ex->priv;

	if (!cj) {
		return 0;
	}
	if (ok) {
		ht_json_raw(&cj->j, "\n]}\n");
	}
	free(cj->cores);
	free(cj);
	ex->priv = NULL;
	return 0;
}

const struct ht_export_ops ht__export_chrome_json = {
    .name = "chrome-json",
    .description = "Chrome trace event JSON (chrome://tracing, Perfetto UI)",
    .begin = cj_begin,
    .core = on_core,
    .slice = on_slice,
    .event = on_event,
    .window = on_window,
    .flow = on_flow,
    .end = cj_end,
};
