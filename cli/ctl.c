/* SPDX-License-Identifier: MIT */
/* hetrace-command: 22 ctl: control a target over its serial link (status, trigger, stopper, profile, dump) */
/*
 * hetrace ctl TARGET [--elf FW] [--timeout MS] COMMAND [ARGS]: one
 * command of the serial link's protocol (docs/serial.md), its reply
 * printed for a person (or as JSON: status, list). Function names go
 * through the firmware's ELF both ways (host/analysis/target-names.h);
 * the line is cli/target.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "common/error.h"
#include "common/json-writer.h"
#include "common/path.h"
#include "host/analysis/target-names.h"
#include "target.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: %s TARGET [--elf FW] [--timeout MS] COMMAND [ARGS]\n\n"
	    "Sends one command to the target at the other end of a serial "
	    "link\n(docs/serial.md) and prints its answer. TARGET: "
	    "/dev/ttyUSB0[:BAUD],\npty:PATH, unix:PATH, tcp:HOST:PORT or "
	    "HOST:PORT. FUNC is a function\nname (through --elf FW) or an "
	    "address 0x...; `none` clears.\n\n"
	    "commands:\n"
	    "  hello                  the target's HELLO: version, core, "
	    "clock, build id\n"
	    "  ping [TEXT]            echo TEXT (at most 64 bytes), the "
	    "round trip time\n"
	    "  status [--json]        tracing state, trigger and stopper, "
	    "buffer, counts\n"
	    "  enable | disable       function tracing on or off (kept "
	    "across a reboot)\n"
	    "  trigger FUNC [--nth N] [--caller FUNC]\n"
	    "                         record from FUNC's entry (its Nth "
	    "call only, only\n"
	    "                         when called from --caller)\n"
	    "  stopper FUNC           stop recording after FUNC's exit\n"
	    "  couple FUNC            record one call of FUNC and its "
	    "callees\n"
	    "  clear                  forget the retained settings\n"
	    "  list [--json]          the functions the target has called, "
	    "with counts\n"
	    "  dump-profile [-n N] [--sort KEY]\n"
	    "                         the on-target profile, as `hetrace "
	    "profile` shows it\n"
	    "  dump-trace -o CAPTURE  the flight recorder's packets into "
	    "CAPTURE/<core>/\n"
	    "  reboot                 reset the target, wait for its HELLO "
	    "(up to 5 x\n"
	    "                         --timeout; the line is opened again "
	    "if it closed)\n\n"
	    "options:\n"
	    "  -e, --elf FW           the firmware's ELF: names, build id "
	    "check\n"
	    "      --timeout MS       wait for each reply (default 1000)\n"
	    "      --strict-build-id  FW's build id must be the target's "
	    "(else a warning)\n"
	    "      --nth N            trigger: only the Nth call (0: "
	    "every call)\n"
	    "      --caller FUNC      trigger: only when called from FUNC\n"
	    "  -n, --top N            dump-profile: N functions (default "
	    "20, 0: all)\n"
	    "  -s, --sort KEY         dump-profile: incl, excl, calls, avg "
	    "or max\n"
	    "  -o, --output DIR       dump-trace: the capture directory\n"
	    "      --json             status, list: JSON on stdout\n"
	    "  -h, --help             this help\n\n"
	    "exit status: 0 done, 1 no reply in time (the message names the "
	    "command),\na protocol version mismatch, a refused command, a "
	    "build id mismatch\nwith --strict-build-id, 2 usage error "
	    "(an unknown function name:\nthe nearest names)\n",
	    ht_cli_prog);
}

/* What the options ask for. */
struct ctl_args {
	const char *elf;
	uint64_t timeout_ms;
	bool strict_build_id;
	uint64_t nth;
	bool has_nth;
	const char *caller;
	uint64_t top;
	bool has_top;
	enum ht_func_profile_key key;
	bool has_key;
	const char *output;
	bool json;
	struct ht_cli_args rest; /* TARGET COMMAND [ARGS] */
};

/* --nth N: remembered as given, for the check that it is trigger's. */
static int nth_opt(const struct ht_cli_opt *opt, const char *arg)
{
	struct ctl_args *a = opt->to.arg;

	if (!ht_cli_uint_value(arg, 0, UINT32_MAX, &a->nth)) {
		return ht_cli_usage_error(usage,
					  "--nth: expected a call number from "
					  "0 to 4294967295, got '%s'",
					  arg);
	}
	a->has_nth = true;
	return HT_CLI_GO_ON;
}

static int top_opt(const struct ht_cli_opt *opt, const char *arg)
{
	struct ctl_args *a = opt->to.arg;

	if (!ht_cli_uint_value(arg, 0, 100000000, &a->top)) {
		return ht_cli_usage_error(usage,
					  "--top: expected a number of "
					  "functions from 0 to 100000000, got "
					  "'%s'",
					  arg);
	}
	a->has_top = true;
	return HT_CLI_GO_ON;
}

static int sort_opt(const struct ht_cli_opt *opt, const char *arg)
{
	struct ctl_args *a = opt->to.arg;
	int k = ht_func_profile_key_parse(arg);

	if (k < 0) {
		return ht_cli_usage_error(
		    usage, "bad --sort key '%s' (incl, excl, calls, avg, max)",
		    arg);
	}
	a->key = (enum ht_func_profile_key)k;
	a->has_key = true;
	return HT_CLI_GO_ON;
}

/* The commands, and the options and arguments each takes. */
enum {
	OPT_NTH = 1 << 0,
	OPT_CALLER = 1 << 1,
	OPT_TOP = 1 << 2,
	OPT_SORT = 1 << 3,
	OPT_OUTPUT = 1 << 4,
	OPT_JSON = 1 << 5,
};

struct ctl_cmd;
typedef int (*ctl_fn)(struct ht_cli_target *t, const struct ctl_args *a,
		      const struct ctl_cmd *c, char **args, size_t nr);

struct ctl_cmd {
	const char *name;
	ctl_fn run;
	size_t min_args, max_args;
	unsigned opts; /* the command-specific options it takes */
	uint8_t code;  /* HT_SPC_..., for the simple ones */
};

static const char *hello_flags(uint16_t f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", f & HT_SP_HAS_INSTR ? " functions" : "",
		 f & HT_SP_HAS_PROFILE ? " profile" : "",
		 f & HT_SP_OVERWRITE ? " flight-recorder" : "",
		 f & HT_SP_RETAINED ? " retained" : "");
	if (!buf[0]) {
		snprintf(buf, len, " none");
	}
	return buf + 1;
}

/* "63d5... (matches fw.elf)" and the like: the build id line. */
static void build_id_line(const struct ht_cli_target *t, char *buf, size_t len)
{
	const struct ht_serial_hello *h = &t->hello;
	const uint8_t *eid;
	size_t elen;
	char a[64], b[64];

	ht_target_names_hex(h->build_id, h->build_id_len, a, sizeof(a));
	if (!t->sy) {
		snprintf(buf, len, "%s", h->build_id_len ? a : "none");
		return;
	}
	elen = ht_func_symbols_build_id(t->sy, &eid);
	ht_target_names_hex(eid, elen, b, sizeof(b));
	if (!h->build_id_len || !elen) {
		snprintf(buf, len, "%s (%s: %s, not compared)",
			 h->build_id_len ? a : "none",
			 ht_func_symbols_path(t->sy), elen ? b : "none");
	} else if (elen == h->build_id_len && !memcmp(eid, h->build_id, elen)) {
		snprintf(buf, len, "%s (matches %s)", a,
			 ht_func_symbols_path(t->sy));
	} else {
		snprintf(buf, len, "%s (%s has %s: DIFFERENT)", a,
			 ht_func_symbols_path(t->sy), b);
	}
}

static int run_hello(struct ht_cli_target *t, const struct ctl_args *a,
		     const struct ctl_cmd *c, char **args, size_t nr)
{
	const struct ht_serial_hello *h = &t->hello;
	char flags[80], id[256];

	(void)a;
	(void)c;
	(void)args;
	(void)nr;
	build_id_line(t, id, sizeof(id));
	printf("target      %s\n"
	       "protocol    %u.%u (hetrace %u.%u)\n"
	       "core        %s (id %" PRIu32 ")\n"
	       "clock       %" PRIu64 " Hz\n"
	       "features    %s\n"
	       "metadata    %" PRIu32 " bytes, crc32 %08" PRIx32 "\n"
	       "boot count  %" PRIu32 "\n"
	       "build id    %s\n",
	       t->name, h->major, h->minor, HT_SP_MAJOR, HT_SP_MINOR, h->name,
	       h->core_id, h->clock_hz,
	       hello_flags(h->flags, flags, sizeof(flags)), h->metadata_size,
	       h->metadata_crc, h->boot_count, id);
	return HT_EXIT_OK;
}

static int run_ping(struct ht_cli_target *t, const struct ctl_args *a,
		    const struct ctl_cmd *c, char **args, size_t nr)
{
	const char *text = nr ? args[0] : "hetrace";
	size_t n = strlen(text);
	struct ht_serial_reply r;
	uint64_t t0, t1;
	int status;

	(void)a;
	(void)c;
	if (n > 64) {
		fprintf(stderr, "%s: ping: TEXT has %zu bytes, at most 64\n",
			ht_cli_prog, n);
		return HT_EXIT_USAGE;
	}
	t0 = ht_serial_now_ns();
	status = ht_cli_target_cmd(t, HT_SPC_PING, text, (uint32_t)n, &r, 0);
	t1 = ht_serial_now_ns();
	if (status) {
		return status;
	}
	if (r.size != n || memcmp(r.data, text, n)) {
		fprintf(stderr,
			"%s: %s: reply to 'ping' differs from what was sent "
			"(%" PRIu32 " bytes for %zu)\n",
			ht_cli_prog, t->name, r.size, n);
		return HT_EXIT_FAIL;
	}
	printf("%.*s from %s (%s) in %.3f ms\n", (int)n, text, t->name,
	       t->hello.name, (double)(t1 - t0) / 1e6);
	return HT_EXIT_OK;
}

/* "process_frame (0x8039)", "0x8039" or "none". */
static const char *func_text(const struct ht_cli_target *t, uint64_t addr,
			     char *buf, size_t len)
{
	const char *name = ht_target_names_name(t->sy, addr);

	if (name) {
		snprintf(buf, len, "%s (0x%" PRIx64 ")", name, addr);
	} else {
		ht_target_names_format(NULL, addr, buf, len);
	}
	return buf;
}

static void status_json(const struct ht_cli_target *t,
			const struct ht_cli_target_status *st)
{
	struct ht_json j = {.f = stdout};
	const struct ht_serial_hello *h = &t->hello;
	char hex[64], buf[300];
	const uint8_t *eid;
	size_t elen;

	ht_json_begin_object(&j);
	ht_json_member_str(&j, "target", t->name);
	ht_json_key(&j, "protocol");
	ht_json_printf(&j, "\"%u.%u\"", h->major, h->minor);
	ht_json_member_str(&j, "core", h->name);
	ht_json_member_u64(&j, "core_id", h->core_id);
	ht_json_member_u64(&j, "clock_hz", h->clock_hz);
	ht_json_member_str(&j, "build_id",
			   ht_target_names_hex(h->build_id, h->build_id_len,
					       hex, sizeof(hex)));
	if (t->sy) {
		elen = ht_func_symbols_build_id(t->sy, &eid);
		ht_json_member_str(&j, "elf", ht_func_symbols_path(t->sy));
		ht_json_member_str(
		    &j, "elf_build_id",
		    ht_target_names_hex(eid, elen, hex, sizeof(hex)));
		ht_json_member_bool(&j, "build_id_match",
				    elen && elen == h->build_id_len &&
					!memcmp(eid, h->build_id, elen));
	}
	ht_json_member_u64(&j, "boot_count", st->boot_count);
	ht_json_member_bool(&j, "retained", st->state & HT_SPS_RETAINED);
	ht_json_member_bool(&j, "enabled", st->state & HT_SPS_ENABLED);
	ht_json_member_bool(&j, "window_open", st->state & HT_SPS_WINDOW);
	ht_json_member_bool(&j, "stopped", st->state & HT_SPS_STOPPED);
	ht_json_member_bool(&j, "buffer_full", st->state & HT_SPS_FULL);
	ht_json_key(&j, "trigger");
	ht_json_begin_object(&j);
	ht_json_member_u64(&j, "addr", st->trigger);
	if (ht_target_names_name(t->sy, st->trigger)) {
		ht_json_member_str(&j, "name",
				   ht_target_names_name(t->sy, st->trigger));
	}
	ht_json_member_u64(&j, "nth", st->trigger_nth);
	ht_json_member_u64(&j, "caller", st->trigger_caller);
	if (ht_target_names_name(t->sy, st->trigger_caller)) {
		ht_json_member_str(
		    &j, "caller_name",
		    ht_target_names_name(t->sy, st->trigger_caller));
	}
	ht_json_end_object(&j);
	ht_json_key(&j, "stopper");
	ht_json_begin_object(&j);
	ht_json_member_u64(&j, "addr", st->stopper);
	if (ht_target_names_name(t->sy, st->stopper)) {
		ht_json_member_str(&j, "name",
				   ht_target_names_name(t->sy, st->stopper));
	}
	ht_json_end_object(&j);
	ht_json_member_str(&j, "buffer_mode",
			   st->ring_mode ? "overwrite" : "discard");
	ht_json_member_u64(&j, "slots", st->nr_slots);
	ht_json_member_u64(&j, "slots_used", st->slots_used);
	ht_json_member_u64(&j, "slot_size", st->slot_size);
	ht_json_member_u64(&j, "events", st->events);
	ht_json_member_u64(&j, "discarded", st->discarded);
	ht_json_member_u64(&j, "packets_sent", st->packets_sent);
	ht_json_member_u64(&j, "frames_sent", st->frames_sent);
	ht_json_member_u64(&j, "rx_frames", st->rx_frames);
	ht_json_member_u64(&j, "rx_errors", st->rx_errors);
	ht_json_member_u64(&j, "rx_lost", st->rx_lost);
	ht_json_member_u64(&j, "sync_rounds", st->sync_rounds);
	ht_json_member_u64(&j, "now", st->now);
	snprintf(buf, sizeof(buf), "%.9f",
		 h->clock_hz ? (double)st->now / (double)h->clock_hz : 0.0);
	ht_json_key(&j, "now_s");
	ht_json_raw(&j, buf);
	ht_json_end_object(&j);
	putchar('\n');
}

static int run_status(struct ht_cli_target *t, const struct ctl_args *a,
		      const struct ctl_cmd *c, char **args, size_t nr)
{
	const struct ht_serial_hello *h = &t->hello;
	struct ht_cli_target_status st;
	char id[256], f1[300], f2[300], f3[300];
	int status;

	(void)c;
	(void)args;
	(void)nr;
	status = ht_cli_target_status(t, &st);
	if (status) {
		return status;
	}
	if (a->json) {
		status_json(t, &st);
		return HT_EXIT_OK;
	}
	build_id_line(t, id, sizeof(id));
	printf("target      %s\n"
	       "protocol    %u.%u (hetrace %u.%u)\n"
	       "core        %s (id %" PRIu32 ")\n"
	       "build id    %s\n"
	       "boot count  %" PRIu32 "%s\n",
	       t->name, h->major, h->minor, HT_SP_MAJOR, HT_SP_MINOR, h->name,
	       h->core_id, id, st.boot_count,
	       st.state & HT_SPS_RETAINED
		   ? " (settings restored from retained RAM)"
		   : " (no retained settings restored)");
	printf("tracing     %s, window %s%s%s\n",
	       st.state & HT_SPS_ENABLED ? "enabled" : "disabled",
	       st.state & HT_SPS_WINDOW ? "open" : "closed",
	       st.state & HT_SPS_STOPPED ? ", stopped for good" : "",
	       st.state & HT_SPS_FULL ? ", buffer full" : "");
	printf("trigger     %s", func_text(t, st.trigger, f1, sizeof(f1)));
	if (st.trigger) {
		if (st.trigger_nth) {
			printf(", call %" PRIu32 " only", st.trigger_nth);
		} else {
			printf(", every call");
		}
		if (st.trigger_caller) {
			printf(", from %s",
			       func_text(t, st.trigger_caller, f2, sizeof(f2)));
		}
	}
	printf("\nstopper     %s\n", func_text(t, st.stopper, f3, sizeof(f3)));
	printf("buffer      %s, %" PRIu32 " of %" PRIu32 " slots used, %" PRIu32
	       " bytes a slot\n",
	       st.ring_mode ? "overwrite (flight recorder)"
			    : "discard (streaming)",
	       st.slots_used, st.nr_slots, st.slot_size);
	printf("events      %" PRIu64 " written, %" PRIu64 " discarded\n",
	       st.events, st.discarded);
	printf("frames      %" PRIu32 " sent (%" PRIu32 " packets), %" PRIu32
	       " sync rounds\n",
	       st.frames_sent, st.packets_sent, st.sync_rounds);
	printf("commands    %" PRIu32 " received, %" PRIu32
	       " bad frames, %" PRIu32 " lost\n",
	       st.rx_frames, st.rx_errors, st.rx_lost);
	if (h->clock_hz) {
		printf("clock       %" PRIu64 " (%.6f s at %" PRIu64 " Hz)\n",
		       st.now, (double)st.now / (double)h->clock_hz,
		       h->clock_hz);
	} else {
		printf("clock       %" PRIu64 "\n", st.now);
	}
	return HT_EXIT_OK;
}

/* enable, disable, clear: no arguments, nothing in the reply. */
static int run_simple(struct ht_cli_target *t, const struct ctl_args *a,
		      const struct ctl_cmd *c, char **args, size_t nr)
{
	struct ht_serial_reply r;
	int status;

	(void)a;
	(void)args;
	(void)nr;
	status = ht_cli_target_cmd(t, c->code, NULL, 0, &r, 0);
	if (status) {
		return status;
	}
	printf("%s: %s\n", t->hello.name,
	       c->code == HT_SPC_ENABLE	   ? "function tracing enabled"
	       : c->code == HT_SPC_DISABLE ? "function tracing disabled"
					   : "retained settings cleared");
	return HT_EXIT_OK;
}

/* FUNC, "none" or "0": the address (0: none). Returns the exit status. */
static int func_arg(struct ht_cli_target *t, const char *what, const char *spec,
		    uint64_t *addr)
{
	if (!strcmp(spec, "none")) {
		*addr = 0;
		return HT_EXIT_OK;
	}
	return ht_cli_target_resolve(t, what, spec, addr);
}

static int run_func(struct ht_cli_target *t, const struct ctl_args *a,
		    const struct ctl_cmd *c, char **args, size_t nr)
{
	uint8_t buf[24] = {0};
	uint64_t fn, caller = 0;
	struct ht_serial_reply r;
	uint32_t n = 8;
	char f1[300], f2[300];
	int status;

	(void)nr;
	/* resolved in main(), before the line opens: see resolve_all() */
	status = func_arg(t, c->name, args[0], &fn);
	if (!status && a->caller) {
		status = func_arg(t, "--caller", a->caller, &caller);
	}
	if (status) {
		return status;
	}
	ht_sp_put64(buf, fn);
	if (c->code == HT_SPC_TRIGGER) {
		ht_sp_put32(buf + 8, (uint32_t)a->nth);
		ht_sp_put64(buf + 16, caller);
		n = 24;
	}
	status = ht_cli_target_cmd(t, c->code, buf, n, &r, 0);
	if (status) {
		return status;
	}
	printf("%s: %s %s", t->hello.name, c->name,
	       func_text(t, fn, f1, sizeof(f1)));
	if (c->code == HT_SPC_TRIGGER && fn) {
		if (a->nth) {
			printf(", call %" PRIu64 " only", a->nth);
		}
		if (caller) {
			printf(", from %s",
			       func_text(t, caller, f2, sizeof(f2)));
		}
	}
	printf("\n");
	return HT_EXIT_OK;
}

static int cmp_calls(const void *x, const void *y)
{
	const struct ht_cli_target_func *a = x, *b = y;

	if (a->calls != b->calls) {
		return a->calls > b->calls ? -1 : 1;
	}
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int run_list(struct ht_cli_target *t, const struct ctl_args *a,
		    const struct ctl_cmd *c, char **args, size_t nr)
{
	struct ht_cli_target_profile p;
	uint64_t calls = 0;
	char addr[32];
	size_t i;
	int status;

	(void)c;
	(void)args;
	(void)nr;
	status = ht_cli_target_profile(t, &p);
	if (status) {
		ht_cli_target_profile_free(&p);
		return status;
	}
	if (p.nr_funcs) {
		qsort(p.funcs, p.nr_funcs, sizeof(*p.funcs), cmp_calls);
	}
	for (i = 0; i < p.nr_funcs; i++) {
		calls += p.funcs[i].calls;
	}
	if (a->json) {
		struct ht_json j = {.f = stdout};

		ht_json_begin_object(&j);
		ht_json_member_str(&j, "core", t->hello.name);
		ht_json_member_u64(&j, "calls", calls);
		ht_json_member_u64(&j, "lost_calls", p.lost_calls);
		ht_json_key(&j, "functions");
		ht_json_begin_array(&j);
		for (i = 0; i < p.nr_funcs; i++) {
			const char *name =
			    ht_target_names_name(t->sy, p.funcs[i].addr);

			ht_json_item(&j);
			ht_json_begin_object(&j);
			ht_json_member_u64(&j, "addr", p.funcs[i].addr);
			if (name) {
				ht_json_member_str(&j, "name", name);
			}
			ht_json_member_u64(&j, "calls", p.funcs[i].calls);
			ht_json_end_object(&j);
		}
		ht_json_end_array(&j);
		ht_json_end_object(&j);
		putchar('\n');
	} else {
		printf("%12s %18s  %s\n", "calls", "address", "function");
		for (i = 0; i < p.nr_funcs; i++) {
			const char *name =
			    ht_target_names_name(t->sy, p.funcs[i].addr);

			snprintf(addr, sizeof(addr), "0x%" PRIx64,
				 p.funcs[i].addr);
			printf("%12" PRIu32 " %18s  %s\n", p.funcs[i].calls,
			       addr, name ? name : addr);
		}
		printf("%zu functions, %" PRIu64 " calls", p.nr_funcs, calls);
		if (p.lost_calls) {
			printf(", %" PRIu32 " more calls not counted "
			       "(function table full)",
			       p.lost_calls);
		}
		printf("\n");
	}
	ht_cli_target_profile_free(&p);
	return HT_EXIT_OK;
}

static int run_dump_profile(struct ht_cli_target *t, const struct ctl_args *a,
			    const struct ctl_cmd *c, char **args, size_t nr)
{
	(void)c;
	(void)args;
	(void)nr;
	return ht_cli_profile_live(t, a->has_top ? (unsigned)a->top : 20,
				   a->has_key ? a->key : HT_FUNC_PROFILE_INCL);
}

/* dump-trace: the packets as they come, into CAPTURE/<core>/stream. */
struct dump_out {
	FILE *f;
	uint64_t packets, bytes;
	int error; /* errno of the first failed write */
};

static void dump_packet(void *arg, const uint8_t *p, uint32_t n)
{
	struct dump_out *d = arg;

	if (d->error) {
		return;
	}
	if (fwrite(p, 1, n, d->f) != n) {
		d->error = errno ? errno : EIO;
		return;
	}
	d->packets++;
	d->bytes += n;
}

/* A core name usable as a directory: HELLO's, else "core<ID>". */
static void core_dir_name(const struct ht_serial_hello *h, char *buf,
			  size_t len)
{
	bool ok =
	    h->name[0] != 0 && strcmp(h->name, ".") && strcmp(h->name, "..");

	for (const char *p = h->name; *p; p++) {
		if (*p == '/' || (unsigned char)*p < 0x20) {
			ok = false;
		}
	}
	if (ok) {
		snprintf(buf, len, "%s", h->name);
	} else {
		snprintf(buf, len, "core%" PRIu32, h->core_id);
	}
}

/* Writes @n bytes of @text into @path. Returns the exit status. */
static int write_file(const char *path, const char *text, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(text, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "%s: %s: cannot write: %s\n", ht_cli_prog, path,
			strerror(errno));
		if (f) {
			fclose(f);
		}
		return HT_EXIT_FAIL;
	}
	return HT_EXIT_OK;
}

static int run_dump_trace(struct ht_cli_target *t, const struct ctl_args *a,
			  const struct ctl_cmd *c, char **args, size_t nr)
{
	struct dump_out d = {0};
	struct ht_cli_target_status st;
	struct ht_serial_reply r;
	char core[32], err[1024], *dir = NULL, *path = NULL, *meta = NULL;
	size_t meta_len;
	uint32_t sent, overwritten;
	uint64_t ring_bytes;
	int timeout_ms, status;

	(void)c;
	(void)args;
	(void)nr;
	if (!(t->hello.flags & HT_SP_OVERWRITE)) {
		fprintf(stderr,
			"%s: %s: 'dump-trace': the target's buffer is not a "
			"flight recorder (no overwrite mode in its HELLO): its "
			"packets stream as they fill, `hetrace trace` or "
			"`hetrace record --serial` collects them\n",
			ht_cli_prog, t->name);
		return HT_EXIT_FAIL;
	}
	/* The ring's size bounds the time the dump takes on the line. */
	status = ht_cli_target_status(t, &st);
	if (status) {
		return status;
	}
	if (ht_serial_metadata(t->line, &meta, &meta_len, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		return HT_EXIT_FAIL;
	}
	core_dir_name(&t->hello, core, sizeof(core));
	dir = ht_path_join(a->output, core);
	if (!dir || ht_path_mkdirs(dir)) {
		fprintf(stderr, "%s: %s: cannot create: %s\n", ht_cli_prog,
			dir ? dir : a->output, strerror(errno));
		status = HT_EXIT_FAIL;
		goto free_all;
	}
	path = ht_path_join(dir, "metadata");
	if (!path) {
		status = ht_cli_nomem();
		goto free_all;
	}
	status = write_file(path, meta, meta_len);
	if (status) {
		goto free_all;
	}
	free(path);
	path = ht_path_join(dir, "stream");
	if (!path) {
		status = ht_cli_nomem();
		goto free_all;
	}
	d.f = fopen(path, "wb");
	if (!d.f) {
		fprintf(stderr, "%s: %s: cannot create: %s\n", ht_cli_prog,
			path, strerror(errno));
		status = HT_EXIT_FAIL;
		goto free_all;
	}
	t->packet = dump_packet;
	t->packet_arg = &d;
	/* 11.5 kB/s (115200 baud) at the least, twice over */
	ring_bytes = (uint64_t)st.nr_slots * st.slot_size;
	timeout_ms = t->timeout_ms + (int)(ring_bytes * 2000 / 11520);
	status =
	    ht_cli_target_cmd(t, HT_SPC_DUMP_TRACE, NULL, 0, &r, timeout_ms);
	t->packet = NULL;
	if (status) {
		goto close_stream;
	}
	if (r.size < 8) {
		fprintf(stderr,
			"%s: %s: reply to 'dump-trace' has %" PRIu32
			" bytes, expected 8\n",
			ht_cli_prog, t->name, r.size);
		status = HT_EXIT_FAIL;
		goto close_stream;
	}
	sent = ht_sp_get32(r.data);
	overwritten = ht_sp_get32(r.data + 4);
	if (fclose(d.f) && !d.error) {
		d.error = errno;
	}
	d.f = NULL;
	if (d.error) {
		fprintf(stderr, "%s: %s: cannot write: %s\n", ht_cli_prog, path,
			strerror(d.error));
		status = HT_EXIT_FAIL;
		goto free_all;
	}
	printf("%" PRIu64 " packets (%" PRIu64 " bytes) into %s", d.packets,
	       d.bytes, dir);
	if (overwritten) {
		printf("; %" PRIu32 " older packets were overwritten before "
		       "the dump",
		       overwritten);
	}
	printf("\n");
	if (d.packets != sent) {
		fprintf(stderr,
			"%s: %s: the target sent %" PRIu32 " packets, %" PRIu64
			" arrived whole (%" PRIu32 " frames lost, %" PRIu32
			" bad on the line)\n",
			ht_cli_prog, t->name, sent, d.packets,
			ht_serial_stats(t->line)->lost,
			ht_serial_stats(t->line)->crc_errs +
			    ht_serial_stats(t->line)->cobs_errs);
		status = HT_EXIT_FAIL;
	}
	goto free_all;

close_stream:
	fclose(d.f);
free_all:
	free(meta);
	free(path);
	free(dir);
	return status;
}

/*
 * After REBOOT: the target's HELLO says it is back. A line that closes
 * meanwhile (a USB-serial device that goes away with the reset, a
 * socket the old image held) is opened again and asked for HELLO.
 * Waits up to 5 x --timeout. Returns the exit status.
 */
static int wait_reboot(struct ht_cli_target *t)
{
	const struct ht_serial_sink sink = {0};
	uint64_t end =
	    ht_serial_now_ns() + 5u * (uint64_t)t->timeout_ms * 1000000u;
	struct ht_serial *line;
	char err[1024];

	while (!t->reboots) {
		uint64_t now = ht_serial_now_ns();
		int left_ms = now < end ? (int)((end - now) / 1000000u) + 1 : 0;

		if (!left_ms) {
			fprintf(stderr,
				"%s: %s: no HELLO after 'reboot' in %.1f s\n",
				ht_cli_prog, t->name,
				5.0 * (double)t->timeout_ms / 1000.0);
			return HT_EXIT_FAIL;
		}
		if (t->line) {
			if (ht_serial_pump(t->line, left_ms, err,
					   sizeof(err))) {
				ht_serial_close(t->line);
				t->line = NULL;
			}
			continue;
		}
		if (ht_serial_open(t->name, &line, err, sizeof(err))) {
			struct timespec nap = {0, 50000000};

			nanosleep(&nap, NULL);
			continue;
		}
		ht_serial_set_sink(line, &sink);
		t->line = line;
		if (!ht_serial_hello(line, &t->last_hello, left_ms, err,
				     sizeof(err))) {
			t->reboots++;
		}
	}
	return HT_EXIT_OK;
}

static int run_reboot(struct ht_cli_target *t, const struct ctl_args *a,
		      const struct ctl_cmd *c, char **args, size_t nr)
{
	struct ht_serial_reply r;
	int status;

	(void)a;
	(void)c;
	(void)args;
	(void)nr;
	t->reboots = 0;
	status = ht_cli_target_cmd(t, HT_SPC_REBOOT, NULL, 0, &r, 0);
	if (!status) {
		status = wait_reboot(t);
	}
	if (status) {
		return status;
	}
	printf("%s: rebooted, boot count %" PRIu32 "%s\n", t->last_hello.name,
	       t->last_hello.boot_count,
	       t->last_hello.flags & HT_SP_RETAINED
		   ? " (settings restored from retained RAM)"
		   : "");
	return HT_EXIT_OK;
}

static const struct ctl_cmd commands[] = {
    {"hello", run_hello, 0, 0, 0, HT_SPC_HELLO},
    {"ping", run_ping, 0, 1, 0, HT_SPC_PING},
    {"status", run_status, 0, 0, OPT_JSON, HT_SPC_STATUS},
    {"enable", run_simple, 0, 0, 0, HT_SPC_ENABLE},
    {"disable", run_simple, 0, 0, 0, HT_SPC_DISABLE},
    {"trigger", run_func, 1, 1, OPT_NTH | OPT_CALLER, HT_SPC_TRIGGER},
    {"stopper", run_func, 1, 1, 0, HT_SPC_STOPPER},
    {"couple", run_func, 1, 1, 0, HT_SPC_COUPLE},
    {"clear", run_simple, 0, 0, 0, HT_SPC_CLEAR},
    {"list", run_list, 0, 0, OPT_JSON, HT_SPC_PROFILE},
    {"dump-profile", run_dump_profile, 0, 0, OPT_TOP | OPT_SORT,
     HT_SPC_PROFILE},
    {"dump-trace", run_dump_trace, 0, 0, OPT_OUTPUT, HT_SPC_DUMP_TRACE},
    {"reboot", run_reboot, 0, 0, 0, HT_SPC_REBOOT},
};

/* The command-specific options given, as OPT_ bits. */
static unsigned opts_given(const struct ctl_args *a)
{
	return (a->has_nth ? OPT_NTH : 0) | (a->caller ? OPT_CALLER : 0) |
	       (a->has_top ? OPT_TOP : 0) | (a->has_key ? OPT_SORT : 0) |
	       (a->output ? OPT_OUTPUT : 0) | (a->json ? OPT_JSON : 0);
}

/* The name of the lowest OPT_ bit of @bits. */
static const char *opt_name(unsigned bits)
{
	static const char *const names[] = {"--nth",  "--caller", "--top",
					    "--sort", "--output", "--json"};

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (bits & (1u << i)) {
			return names[i];
		}
	}
	return "?";
}

/* Returns HT_CLI_GO_ON when the command goes on, else its exit status. */
static int parse_options(int argc, char **argv, struct ctl_args *a,
			 const struct ctl_cmd **cmd)
{
	const struct ht_cli_opt table[] = {
	    HT_CLI_STRING('e', "elf", &a->elf),
	    HT_CLI_UINT(0, "timeout", &a->timeout_ms, 1, 3600000,
			"a time in ms"),
	    HT_CLI_FLAG(0, "strict-build-id", &a->strict_build_id),
	    HT_CLI_CALL(0, "nth", nth_opt, a),
	    HT_CLI_STRING(0, "caller", &a->caller),
	    HT_CLI_CALL('n', "top", top_opt, a),
	    HT_CLI_CALL('s', "sort", sort_opt, a),
	    HT_CLI_STRING('o', "output", &a->output),
	    HT_CLI_FLAG(0, "json", &a->json),
	    HT_CLI_OPT_END,
	};
	unsigned bad;
	size_t i, nr;
	int ret;

	ret = ht_cli_parse(argc, argv, table, 0, usage, &a->rest);
	if (ret != HT_CLI_GO_ON) {
		return ret;
	}
	if (a->rest.nr < 2) {
		return ht_cli_usage_error(usage, "%s",
					  a->rest.nr ? "no COMMAND given"
						     : "no TARGET given");
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(a->rest.v[1], commands[i].name)) {
			*cmd = &commands[i];
		}
	}
	if (!*cmd) {
		return ht_cli_usage_error(usage, "unknown command '%s'",
					  a->rest.v[1]);
	}
	nr = a->rest.nr - 2;
	if (nr < (*cmd)->min_args || nr > (*cmd)->max_args) {
		return ht_cli_usage_error(usage, "'%s' takes %s", (*cmd)->name,
					  (*cmd)->max_args == 0 ? "no argument"
					  : (*cmd)->min_args == 1
					      ? "one FUNC"
					      : "at most one TEXT");
	}
	bad = opts_given(a) & ~(*cmd)->opts;
	if (bad) {
		return ht_cli_usage_error(usage, "%s is not an option of '%s'",
					  opt_name(bad), (*cmd)->name);
	}
	if ((*cmd)->opts & OPT_OUTPUT && !a->output) {
		return ht_cli_usage_error(usage, "'%s' needs -o CAPTURE",
					  (*cmd)->name);
	}
	return HT_CLI_GO_ON;
}

/*
 * The FUNC arguments are names the ELF must know: checked before the
 * line is opened, so a typo is a usage error whatever the target does.
 */
static int resolve_all(struct ht_cli_target *t, const struct ctl_args *a,
		       const struct ctl_cmd *c)
{
	uint64_t addr;
	int status = HT_EXIT_OK;

	if (c->run == run_func) {
		status = func_arg(t, c->name, a->rest.v[2], &addr);
		if (!status && a->caller) {
			status = func_arg(t, "--caller", a->caller, &addr);
		}
	}
	return status;
}

int cmd_ctl(int argc, char **argv)
{
	struct ctl_args a = {0};
	const struct ctl_cmd *c = NULL;
	struct ht_cli_target t = {0};
	int status;

	status = parse_options(argc, argv, &a, &c);
	if (status != HT_CLI_GO_ON) {
		return status;
	}
	t.timeout_ms = (int)a.timeout_ms;
	t.what = c->name;
	t.strict_build_id = a.strict_build_id;
	status = ht_cli_target_elf(&t, a.elf);
	if (!status) {
		status = resolve_all(&t, &a, c);
	}
	if (!status) {
		status = ht_cli_target_open(&t, a.rest.v[0]);
	}
	if (!status) {
		status = c->run(&t, &a, c, a.rest.v + 2, a.rest.nr - 2);
	}
	ht_cli_target_close(&t);
	return status;
}
