/* SPDX-License-Identifier: MIT */
/* A live target on a serial link (cli/target.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "common/error.h"
#include "host/analysis/target-names.h"
#include "target.h"

bool ht_cli_is_target(const char *arg)
{
	struct stat st;
	const char *colon;

	if (!strncmp(arg, "unix:", 5) || !strncmp(arg, "tcp:", 4) ||
	    !strncmp(arg, "pty:", 4) || !strncmp(arg, "/dev/", 5)) {
		return true;
	}
	if (!stat(arg, &st)) {
		return S_ISCHR(st.st_mode);
	}
	/* HOST:PORT, when no file has that name. */
	colon = strrchr(arg, ':');
	if (!colon || colon == arg || !colon[1] || strchr(arg, '/')) {
		return false;
	}
	for (const char *p = colon + 1; *p; p++) {
		if (*p < '0' || *p > '9') {
			return false;
		}
	}
	return true;
}

int ht_cli_target_elf(struct ht_cli_target *t, const char *elf)
{
	char err[1024];

	if (!elf) {
		return HT_EXIT_OK;
	}
	if (ht_func_symbols_open(&t->sy, elf, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		return HT_EXIT_FAIL;
	}
	if (ht_func_symbols_stripped(t->sy)) {
		fprintf(stderr,
			"%s: note: %s is stripped (no .symtab): only its "
			"exported functions have names\n",
			ht_cli_prog, elf);
	}
	return HT_EXIT_OK;
}

int ht_cli_target_resolve(struct ht_cli_target *t, const char *opt,
			  const char *spec, uint64_t *addr)
{
	char err[2048];
	int ret = ht_target_names_resolve(t->sy, spec, addr, err, sizeof(err));

	if (!ret) {
		return HT_EXIT_OK;
	}
	fprintf(stderr, "%s: %s: %s\n", ht_cli_prog, opt, err);
	return ret == HT_EUNSUPPORTED ? HT_EXIT_FAIL : HT_EXIT_USAGE;
}

static void on_hello(void *arg, const struct ht_serial_hello *h)
{
	struct ht_cli_target *t = arg;

	t->reboots++;
	t->last_hello = *h;
}

static void on_packet(void *arg, const uint8_t *p, uint32_t n)
{
	struct ht_cli_target *t = arg;

	t->packets++;
	if (t->packet) {
		t->packet(t->packet_arg, p, n);
	}
}

/* The build id against --elf: a warning, an error or a note. */
static int check_build_id(struct ht_cli_target *t)
{
	char msg[512];
	enum ht_build_id_match m;

	if (!t->sy) {
		return HT_EXIT_OK;
	}
	m = ht_target_names_check_build_id(
	    t->sy, t->hello.build_id, t->hello.build_id_len, msg, sizeof(msg));
	switch (m) {
	case HT_BUILD_ID_MATCH:
		return HT_EXIT_OK;
	case HT_BUILD_ID_MISMATCH:
		if (t->strict_build_id) {
			fprintf(stderr, "%s: %s (--strict-build-id)\n",
				ht_cli_prog, msg);
			return HT_EXIT_FAIL;
		}
		ht_cli_warn(NULL, msg);
		return HT_EXIT_OK;
	case HT_BUILD_ID_NO_TARGET_ID:
	case HT_BUILD_ID_NO_ELF_ID:
		ht_cli_note(NULL, msg);
		return HT_EXIT_OK;
	}
	return HT_EXIT_OK;
}

int ht_cli_target_open(struct ht_cli_target *t, const char *target)
{
	const struct ht_serial_sink sink = {
	    .packet = on_packet,
	    .hello = on_hello,
	    .arg = t,
	};
	char err[1024];
	int ret;

	t->name = target;
	if (!t->timeout_ms) {
		t->timeout_ms = HT_CLI_TARGET_TIMEOUT_MS;
	}
	if (ht_serial_open(target, &t->line, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		return HT_EXIT_FAIL;
	}
	ht_serial_set_sink(t->line, &sink);
	ret = ht_serial_hello(t->line, &t->hello, t->timeout_ms, err,
			      sizeof(err));
	if (ret == HT_ETIMEDOUT && t->what) {
		/* HELLO goes first: say which command it was for */
		fprintf(stderr, "%s: %s (sent first, for '%s')\n", ht_cli_prog,
			err, t->what);
		return HT_EXIT_FAIL;
	}
	if (ret) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		return HT_EXIT_FAIL;
	}
	return check_build_id(t);
}

void ht_cli_target_close(struct ht_cli_target *t)
{
	ht_serial_close(t->line);
	t->line = NULL;
	ht_func_symbols_close(t->sy);
	t->sy = NULL;
}

static const char *status_text(uint8_t s)
{
	switch (s) {
	case HT_SPS_UNKNOWN:
		return "the firmware does not know this command";
	case HT_SPS_BAD_ARGS:
		return "the firmware refused the arguments";
	case HT_SPS_UNSUPPORTED:
		return "not built into this firmware";
	case HT_SPS_VERSION:
		return "incompatible protocol version";
	case HT_SPS_BUSY:
		return "the target is busy (a dump is running): try again";
	}
	return "unknown status";
}

int ht_cli_target_cmd(struct ht_cli_target *t, uint8_t cmd, const void *args,
		      uint32_t n, struct ht_serial_reply *reply, int timeout_ms)
{
	char err[1024];

	if (ht_serial_command(t->line, cmd, args, n, reply,
			      timeout_ms ? timeout_ms : t->timeout_ms, err,
			      sizeof(err))) {
		fprintf(stderr, "%s: %s\n", ht_cli_prog, err);
		return HT_EXIT_FAIL;
	}
	if (reply->status != HT_SPS_OK) {
		fprintf(stderr, "%s: %s: '%s': %s (status %u)\n", ht_cli_prog,
			t->name, ht_serial_cmd_name(cmd),
			status_text(reply->status), reply->status);
		return HT_EXIT_FAIL;
	}
	return HT_EXIT_OK;
}

/* A reply shorter than its layout: the firmware is not what it says. */
static int short_reply(struct ht_cli_target *t, uint8_t cmd, uint32_t got,
		       uint32_t want)
{
	fprintf(stderr,
		"%s: %s: reply to '%s' has %" PRIu32 " bytes, expected at "
		"least %" PRIu32 "\n",
		ht_cli_prog, t->name, ht_serial_cmd_name(cmd), got, want);
	return HT_EXIT_FAIL;
}

int ht_cli_target_status(struct ht_cli_target *t,
			 struct ht_cli_target_status *st)
{
	struct ht_serial_reply r;
	const uint8_t *d;
	int status;

	status = ht_cli_target_cmd(t, HT_SPC_STATUS, NULL, 0, &r, 0);
	if (status) {
		return status;
	}
	if (r.size < HT_SP_STATUS_SIZE) {
		return short_reply(t, HT_SPC_STATUS, r.size, HT_SP_STATUS_SIZE);
	}
	d = r.data;
	st->state = ht_sp_get32(d + 0);
	st->ring_mode = ht_sp_get32(d + 4);
	st->nr_slots = ht_sp_get32(d + 8);
	st->slots_used = ht_sp_get32(d + 12);
	st->slot_size = ht_sp_get32(d + 16);
	st->boot_count = ht_sp_get32(d + 20);
	st->events = ht_sp_get64(d + 24);
	st->discarded = ht_sp_get64(d + 32);
	st->trigger = ht_sp_get64(d + 40);
	st->trigger_nth = ht_sp_get32(d + 48);
	st->trigger_caller = ht_sp_get64(d + 56);
	st->stopper = ht_sp_get64(d + 64);
	st->packets_sent = ht_sp_get32(d + 72);
	st->frames_sent = ht_sp_get32(d + 76);
	st->rx_frames = ht_sp_get32(d + 80);
	st->rx_errors = ht_sp_get32(d + 84);
	st->rx_lost = ht_sp_get32(d + 88);
	st->sync_rounds = ht_sp_get32(d + 92);
	st->now = ht_sp_get64(d + 96);
	return HT_EXIT_OK;
}

/* The most entries a profile may have: the table's slots and more
 * pages than that are a target that does not advance. */
#define PROFILE_MAX_FUNCS (1u << 20)

int ht_cli_target_profile(struct ht_cli_target *t,
			  struct ht_cli_target_profile *p)
{
	uint32_t first = 0, pages = 0;
	size_t cap = 0;

	memset(p, 0, sizeof(*p));
	for (;;) {
		struct ht_serial_reply r;
		uint8_t args[4];
		uint32_t next, count, i;
		const uint8_t *d;
		int status;

		ht_sp_put32(args, first);
		status = ht_cli_target_cmd(t, HT_SPC_PROFILE, args, 4, &r, 0);
		if (status) {
			return status;
		}
		if (r.size < HT_SP_PROFILE_HDR) {
			return short_reply(t, HT_SPC_PROFILE, r.size,
					   HT_SP_PROFILE_HDR);
		}
		d = r.data;
		next = ht_sp_get32(d);
		count = ht_sp_get32(d + 4);
		if (count > HT_SP_FUNCS_PER_REPLY ||
		    r.size < HT_SP_PROFILE_HDR + count * HT_SP_FUNC_SIZE) {
			fprintf(stderr,
				"%s: %s: profile page at index %" PRIu32
				": %" PRIu32 " entries in %" PRIu32 " bytes\n",
				ht_cli_prog, t->name, first, count, r.size);
			return HT_EXIT_FAIL;
		}
		/* The counters of the last page are the newest. */
		p->lost_calls = ht_sp_get32(d + 8);
		p->deep_calls = ht_sp_get32(d + 12);
		p->unbalanced = ht_sp_get32(d + 16);
		p->nested = ht_sp_get32(d + 20);
		p->discarded = ht_sp_get32(d + 24);
		p->table_size = ht_sp_get32(d + 28);
		if (p->nr_funcs + count > cap) {
			size_t ncap = cap ? 2 * cap : 64;
			void *nf;

			if (ncap > PROFILE_MAX_FUNCS) {
				goto runaway;
			}
			nf = realloc(p->funcs, ncap * sizeof(*p->funcs));
			if (!nf) {
				return ht_cli_nomem();
			}
			p->funcs = nf;
			cap = ncap;
		}
		for (i = 0; i < count; i++) {
			const uint8_t *e =
			    d + HT_SP_PROFILE_HDR + i * HT_SP_FUNC_SIZE;
			struct ht_cli_target_func *f = &p->funcs[p->nr_funcs++];

			f->addr = ht_sp_get64(e);
			f->calls = ht_sp_get32(e + 8);
			f->incl = ht_sp_get64(e + 16);
			f->excl = ht_sp_get64(e + 24);
			f->max = ht_sp_get64(e + 32);
		}
		if (next == HT_SP_PROFILE_DONE) {
			return HT_EXIT_OK;
		}
		/* Each page must move on: bounded whatever the target says. */
		if (next <= first || ++pages > PROFILE_MAX_FUNCS) {
			goto runaway;
		}
		first = next;
	}
runaway:
	fprintf(stderr,
		"%s: %s: the profile pages do not end (next index %" PRIu32
		" after %zu functions)\n",
		ht_cli_prog, t->name, first, p->nr_funcs);
	return HT_EXIT_FAIL;
}

void ht_cli_target_profile_free(struct ht_cli_target_profile *p)
{
	free(p->funcs);
	p->funcs = NULL;
	p->nr_funcs = 0;
}

uint64_t ht_cli_target_ns(const struct ht_cli_target *t, uint64_t cycles)
{
	uint64_t hz = t->hello.clock_hz ? t->hello.clock_hz : 1000000000u;

	/* long double: no overflow for long runs, as profile.c converts */
	return (uint64_t)((long double)cycles * 1e9L / hz);
}
