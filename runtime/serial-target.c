/* SPDX-License-Identifier: MIT */
/*
 * The target side of the serial link (include/hetrace/serial-target.h,
 * docs/serial.md).
 *
 * Two contexts share struct ht_serial_target on one core: rx (the
 * UART's receive interrupt, which may interrupt poll at any point) and
 * poll / log (task context, or the TX-empty interrupt; never nested in
 * each other, and never interrupting rx). Who writes what:
 *
 * - rx only: dec, rx_buf, cmd[], cmd_len, cmd_posted, rx_seq,
 *   rx_have_seq, rx_frames, rx_bad_type, rx_lost, cmd_dropped, sync_n,
 *   sync_t, sync_posted, sync_replaced. poll reads the counters (whole
 *   aligned words: a torn value is impossible, a stale one harmless).
 * - poll only: cmd_taken, sync_taken and everything below them in the
 *   struct except log_head; the instr calls and the retained settings.
 * - log only: log_head, log_lost. poll reads log_head, log writes
 *   nothing poll writes (log[] bytes between log_tail and log_tail +
 *   size are poll's until log_tail moves past them).
 *
 * The command mailbox holds one command: free when cmd_posted ==
 * cmd_taken. rx fills cmd[] only while it is free, then publishes it
 * (barrier, cmd_posted + 1); poll reads cmd[] only while it is full,
 * then frees it (barrier, cmd_taken + 1). A command that finds it full
 * is dropped and counted (cmd_dropped): the host retries on its
 * timeout.
 *
 * Sync: rx stamps the clock first, traces sync_ack / sync_notify, then
 * stores sync_n, sync_t and (barrier) sync_posted + 1. One SYNC frame
 * is pending at most: a request stamped while the previous one was not
 * yet taken by poll replaces it (the newer time is the one sent; the
 * older round is counted in sync_replaced and has no SYNC frame; the
 * host times it out). poll copies n and t between two loads of
 * sync_posted and retries when they differ (rx ran in between).
 *
 * The barriers are HT_MEMORY_BARRIER: on one core a compiler barrier
 * would do, but a hosted port (tests/runtime/serial/native-target.c)
 * may run rx on a signal handler or another thread.
 *
 * Packets: the consumer side of include/hetrace/packet-ring.h. Discard
 * mode streams packet `tail` whenever head != tail, and stores tail + 1
 * (after a barrier: the slot's bytes are all sent before the producer
 * may reuse it) once its frame is completely handed to put(). Overwrite
 * mode sends nothing until HT_SPC_DUMP_TRACE.
 */
#include <string.h>

#include "hetrace/serial-target.h"

/* ---- Retained settings ---- */

static uint32_t retained_crc(const struct ht_serial_retained *r)
{
	return ht_crc32(0, r,
			(uint32_t)offsetof(struct ht_serial_retained, crc));
}

static int retained_valid(const struct ht_serial_retained *r)
{
	return r->magic == HT_SERIAL_RETAINED_MAGIC &&
	       r->version == HT_SERIAL_RETAINED_VERSION &&
	       r->size == sizeof(*r) && r->crc == retained_crc(r);
}

static void retained_seal(struct ht_serial_retained *r)
{
	r->crc = retained_crc(r);
}

/* The firmware's own settings, as retained ones (not marked SET). */
static void retained_defaults(const struct ht_serial_target *t,
			      struct ht_serial_retained *r, uint32_t boots)
{
	memset(r, 0, sizeof(*r));
	r->magic = HT_SERIAL_RETAINED_MAGIC;
	r->version = HT_SERIAL_RETAINED_VERSION;
	r->size = sizeof(*r);
	r->boot_count = boots;
	r->flags = t->def_enabled ? HT_SERIAL_RET_ENABLED : 0u;
	r->trigger = t->def_trigger;
	r->trigger_nth = t->def_trigger_nth;
	r->trigger_caller = t->def_trigger_caller;
	r->stopper = t->def_stopper;
}

/* Applies the settings in t->ret to instr. */
static void apply_settings(struct ht_serial_target *t)
{
	struct ht_instr *in = t->cfg.instr;
	const struct ht_serial_retained *r = t->ret;

	if (!in) {
		return;
	}
	ht_instr_set_trigger(in, (uintptr_t)r->trigger, r->trigger_nth,
			     (uintptr_t)r->trigger_caller);
	ht_instr_set_stopper(in, (uintptr_t)r->stopper);
	if (r->flags & HT_SERIAL_RET_ENABLED) {
		ht_instr_enable(in);
	} else {
		ht_instr_disable(in);
	}
}

/* ---- Init ---- */

static uint32_t hello_flags(const struct ht_serial_target *t)
{
	uint32_t f = 0;

	if (t->cfg.instr) {
		f |= HT_SP_HAS_INSTR;
		if (t->cfg.instr->funcs) {
			f |= HT_SP_HAS_PROFILE;
		}
	}
	if (t->cfg.ring && t->cfg.ring->mode == HT_RING_OVERWRITE) {
		f |= HT_SP_OVERWRITE;
	}
	if (t->restored) {
		f |= HT_SP_RETAINED;
	}
	return f;
}

/* The HELLO payload (HT_SP_HELLO_SIZE bytes) at @p. */
static void put_hello(const struct ht_serial_target *t, uint8_t *p)
{
	uint32_t n = t->cfg.build_id_len, i;

	memset(p, 0, HT_SP_HELLO_SIZE);
	p[0] = (uint8_t)HT_SP_MAJOR;
	p[1] = (uint8_t)HT_SP_MINOR;
	ht_sp_put16(p + 2, (uint16_t)hello_flags(t));
	ht_sp_put32(p + 4, t->cfg.core_id);
	ht_sp_put64(p + 8, t->cfg.clock_hz);
	ht_sp_put32(p + 16, t->cfg.metadata ? t->cfg.metadata_size : 0u);
	ht_sp_put32(p + 20, t->metadata_crc);
	ht_sp_put32(p + 24, t->ret->boot_count);
	if (!t->cfg.build_id || n > 20u) {
		n = t->cfg.build_id ? 20u : 0u;
	}
	p[28] = (uint8_t)n;
	if (n) {
		memcpy(p + 32, t->cfg.build_id, n);
	}
	for (i = 0; t->cfg.name && i < 16u && t->cfg.name[i]; i++) {
		p[52 + i] = (uint8_t)t->cfg.name[i];
	}
}

void ht_serial_target_init(struct ht_serial_target *t,
			   const struct ht_serial_target_config *c)
{
	struct ht_instr *in = c->instr;
	uint32_t boots;

	memset(t, 0, sizeof(*t));
	t->cfg = *c;
	ht_frame_dec_init(&t->dec, t->rx_buf, sizeof(t->rx_buf));
	if (in) {
		/* Read once, before anything is restored (for CLEAR). */
		t->def_trigger = in->trigger;
		t->def_trigger_nth = in->trigger_nth;
		t->def_trigger_caller = in->trigger_caller;
		t->def_stopper = in->stopper;
		t->def_enabled = !in->disabled;
	} else {
		t->def_enabled = 1;
	}
	if (c->metadata) {
		t->metadata_crc = ht_crc32(0, c->metadata, c->metadata_size);
	}
	t->ret = c->retained ? c->retained : &t->fresh;
	if (c->retained && retained_valid(c->retained)) {
		boots = c->retained->boot_count + 1u;
		if (c->retained->flags & HT_SERIAL_RET_SET) {
			t->restored = 1;
			apply_settings(t);
		} else {
			retained_defaults(t, c->retained, boots);
		}
		c->retained->boot_count = boots;
	} else {
		retained_defaults(t, t->ret, 1u);
	}
	retained_seal(t->ret);

	/* The boot HELLO goes first, through the reply buffer. */
	put_hello(t, t->reply);
	t->reply_len = HT_SP_HELLO_SIZE;
	t->reply_type = HT_SP_HELLO;
	/* The ring's consumer starts at the ring's tail. */
	if (c->ring) {
		t->pkt = c->ring->tail;
	}
}

/* ---- rx: the receive interrupt ---- */

static void rx_sync(struct ht_serial_target *t)
{
	/* The time first: everything else is latency the bounds carry. */
	uint64_t now = t->cfg.ops->clock(t->cfg.ops->arg);
	uint32_t n = t->sync_posted * 2u;

	if (t->cfg.sync) {
		if (t->cfg.sync->trace_ack) {
			t->cfg.sync->trace_ack(t->cfg.sync->arg, n);
		}
		if (t->cfg.sync->trace_notify) {
			t->cfg.sync->trace_notify(t->cfg.sync->arg, n + 1u);
		}
	}
	if (t->sync_posted != t->sync_taken) {
		t->sync_replaced++;
	}
	t->sync_n = n;
	t->sync_t = now;
	/* n and t are stored before the count that publishes them. */
	HT_MEMORY_BARRIER();
	t->sync_posted = t->sync_posted + 1u;
}

static void rx_frame(struct ht_serial_target *t)
{
	uint32_t size = ht_frame_dec_size(&t->dec);
	uint16_t seq = ht_frame_dec_seq(&t->dec);
	uint16_t gap;

	if (ht_frame_dec_type(&t->dec) != HT_SP_CMD || size < HT_SP_CMD_HDR) {
		t->rx_bad_type++;
		return;
	}
	/*
	 * Frames missing between two good ones. seq 0 starts a host
	 * session (a new hetrace process): no loss counted. A seq behind
	 * the expected one is a repeat, not a loss.
	 */
	gap = (uint16_t)(seq - t->rx_seq);
	if (t->rx_have_seq && seq != 0u && gap < 0x8000u) {
		t->rx_lost += gap;
	}
	t->rx_seq = (uint16_t)(seq + 1u);
	t->rx_have_seq = 1;
	t->rx_frames++;
	if (t->cmd_posted != t->cmd_taken) {
		t->cmd_dropped++;
		return;
	}
	/* The mailbox is free: poll reads nothing of cmd[] now. */
	HT_MEMORY_BARRIER();
	memcpy(t->cmd, ht_frame_dec_payload(&t->dec), size);
	t->cmd_len = size;
	/* The command's bytes are stored before it is posted. */
	HT_MEMORY_BARRIER();
	t->cmd_posted = t->cmd_posted + 1u;
}

void ht_serial_target_rx(struct ht_serial_target *t, uint8_t byte)
{
	switch (ht_frame_dec_byte(&t->dec, byte)) {
	case HT_FRAME_IDLE:
		rx_sync(t);
		break;
	case HT_FRAME_OK:
		rx_frame(t);
		break;
	default:
		break;
	}
}

/* ---- Commands (poll) ---- */

/* Starts the reply to the command in cmd[] with @status; data follows. */
static uint8_t *reply_start(struct ht_serial_target *t, uint8_t cmd,
			    uint16_t tag, uint8_t status, uint32_t data_len)
{
	t->reply[0] = cmd;
	t->reply[1] = status;
	ht_sp_put16(t->reply + 2, tag);
	t->reply_len = HT_SP_CMD_HDR + data_len;
	t->reply_type = HT_SP_REPLY;
	return t->reply + HT_SP_CMD_HDR;
}

static void reply_status(struct ht_serial_target *t, uint8_t cmd, uint16_t tag,
			 uint8_t status)
{
	(void)reply_start(t, cmd, tag, status, 0);
}

/* An address argument that fits this target's pointers. */
static int addr_ok(uint64_t a)
{
	return (uint64_t)(uintptr_t)a == a;
}

static uint32_t state_bits(const struct ht_serial_target *t)
{
	const struct ht_instr *in = t->cfg.instr;
	const struct ht_ring *r = t->cfg.ring;
	uint32_t s = 0;

	if (in) {
		if (!in->disabled) {
			s |= HT_SPS_ENABLED;
		}
		if (ht_instr_is_on(in)) {
			s |= HT_SPS_WINDOW;
		}
		if (in->stopped) {
			s |= HT_SPS_STOPPED;
		}
		/* ht_instr_buffer_full() turned the records into counting. */
		if (in->rec != in->ops && in->rec_ctx == (const void *)in) {
			s |= HT_SPS_FULL;
		}
	}
	if (r && r->mode == HT_RING_DISCARD &&
	    (uint32_t)(r->head - r->tail) >= r->nr_slots) {
		s |= HT_SPS_FULL;
	}
	if (t->restored) {
		s |= HT_SPS_RETAINED;
	}
	return s;
}

static uint32_t rx_errors(const struct ht_serial_target *t)
{
	return t->dec.crc_errs + t->dec.too_long + t->dec.runts +
	       t->dec.cobs_errs + t->rx_bad_type;
}

static void cmd_status(struct ht_serial_target *t, uint16_t tag)
{
	uint8_t *p =
	    reply_start(t, HT_SPC_STATUS, tag, HT_SPS_OK, HT_SP_STATUS_SIZE);
	const struct ht_instr *in = t->cfg.instr;
	const struct ht_ring *r = t->cfg.ring;
	uint64_t events = 0, discarded = 0;

	memset(p, 0, HT_SP_STATUS_SIZE);
	ht_sp_put32(p + 0, state_bits(t));
	if (r) {
		ht_sp_put32(p + 4, r->mode);
		ht_sp_put32(p + 8, r->nr_slots);
		/* Overwrite mode keeps at most nr_slots packets. */
		ht_sp_put32(p + 12, (uint32_t)(r->head - r->tail) > r->nr_slots
					? r->nr_slots
					: (uint32_t)(r->head - r->tail));
		ht_sp_put32(p + 16, r->slot_size);
	}
	ht_sp_put32(p + 20, t->ret->boot_count);
	if (t->cfg.ops->counts) {
		t->cfg.ops->counts(t->cfg.ops->arg, &events, &discarded);
	}
	ht_sp_put64(p + 24, events);
	ht_sp_put64(p + 32, discarded);
	if (in) {
		ht_sp_put64(p + 40, (uint64_t)in->trigger);
		ht_sp_put32(p + 48, in->trigger_nth);
		ht_sp_put64(p + 56, (uint64_t)in->trigger_caller);
		ht_sp_put64(p + 64, (uint64_t)in->stopper);
	}
	ht_sp_put32(p + 72, t->packets_sent);
	ht_sp_put32(p + 76, t->frames_sent);
	ht_sp_put32(p + 80, t->rx_frames);
	ht_sp_put32(p + 84, rx_errors(t));
	ht_sp_put32(p + 88, t->rx_lost);
	ht_sp_put32(p + 92, t->sync_rounds);
	ht_sp_put64(p + 96, t->cfg.ops->clock(t->cfg.ops->arg));
}

static void cmd_profile(struct ht_serial_target *t, uint16_t tag,
			const uint8_t *a)
{
	const struct ht_instr *in = t->cfg.instr;
	uint32_t size = in->funcs_mask + 1u, i = ht_sp_get32(a), count = 0;
	uint8_t *p, *e;

	if (i > size) {
		reply_status(t, HT_SPC_PROFILE, tag, HT_SPS_BAD_ARGS);
		return;
	}
	p = reply_start(t, HT_SPC_PROFILE, tag, HT_SPS_OK, HT_SP_PROFILE_HDR);
	memset(p, 0, HT_SP_PROFILE_HDR);
	for (; i < size && count < HT_SP_FUNCS_PER_REPLY; i++) {
		const struct ht_instr_func *f = &in->funcs[i];

		if (!f->addr) {
			continue;
		}
		e = p + HT_SP_PROFILE_HDR + count * HT_SP_FUNC_SIZE;
		ht_sp_put64(e + 0, (uint64_t)f->addr);
		ht_sp_put32(e + 8, f->calls);
		ht_sp_put32(e + 12, 0);
		ht_sp_put64(e + 16, f->incl);
		ht_sp_put64(e + 24, f->excl);
		ht_sp_put64(e + 32, f->max);
		count++;
	}
	/* The rest of the table may be empty: skip it now, not in a page. */
	while (i < size && !in->funcs[i].addr) {
		i++;
	}
	ht_sp_put32(p + 0, i < size ? i : HT_SP_PROFILE_DONE);
	ht_sp_put32(p + 4, count);
	ht_sp_put32(p + 8, in->stats.lost_calls);
	ht_sp_put32(p + 12, in->stats.deep_calls);
	ht_sp_put32(p + 16, in->stats.unbalanced);
	ht_sp_put32(p + 20, in->stats.nested);
	ht_sp_put32(p + 24, in->stats.discarded);
	ht_sp_put32(p + 28, size);
	t->reply_len += count * HT_SP_FUNC_SIZE;
}

static void cmd_metadata(struct ht_serial_target *t, uint16_t tag,
			 const uint8_t *a)
{
	uint32_t off = ht_sp_get32(a), total = t->cfg.metadata_size, n;
	uint8_t *p;

	if (off > total) {
		reply_status(t, HT_SPC_METADATA, tag, HT_SPS_BAD_ARGS);
		return;
	}
	n = total - off;
	if (n > HT_SP_METADATA_CHUNK) {
		n = HT_SP_METADATA_CHUNK;
	}
	p = reply_start(t, HT_SPC_METADATA, tag, HT_SPS_OK, 8u + n);
	ht_sp_put32(p, off);
	ht_sp_put32(p + 4, total);
	memcpy(p + 8, t->cfg.metadata + off, n);
}

/* A setting changed by a command: saved with its CRC. */
static void save_settings(struct ht_serial_target *t)
{
	const struct ht_instr *in = t->cfg.instr;
	struct ht_serial_retained *r = t->ret;

	r->flags =
	    HT_SERIAL_RET_SET | (in->disabled ? 0u : HT_SERIAL_RET_ENABLED);
	r->trigger = (uint64_t)in->trigger;
	r->trigger_nth = in->trigger_nth;
	r->trigger_caller = (uint64_t)in->trigger_caller;
	r->stopper = (uint64_t)in->stopper;
	retained_seal(r);
}

/*
 * Overwrite mode: the dump's range. The slot of packet head is being
 * filled (it held packet head - nr_slots), so the oldest whole packet
 * is head - nr_slots + 1.
 */
static void dump_start(struct ht_serial_target *t, uint16_t tag)
{
	struct ht_ring *r = t->cfg.ring;
	struct ht_instr *in = t->cfg.instr;
	uint32_t head, from;

	t->cfg.ops->flush(t->cfg.ops->arg);
	if (t->cfg.ops->pause) {
		t->cfg.ops->pause(t->cfg.ops->arg, 1);
		t->dump_paused = 1;
	} else if (in && !in->disabled) {
		ht_instr_disable(in);
		t->dump_paused = 2;
	}
	head = r->head;
	/* The packets' bytes are read after the head that covers them. */
	HT_MEMORY_BARRIER();
	from = r->tail;
	if ((uint32_t)(head - from) > r->nr_slots - 1u) {
		from = head - (r->nr_slots - 1u);
	}
	t->dump_lost = from - r->tail;
	t->dump_sent = 0;
	t->dump_end = head;
	t->dump_tag = tag;
	t->pkt = from;
	t->dumping = 1;
}

static void dump_end(struct ht_serial_target *t)
{
	struct ht_ring *r = t->cfg.ring;
	uint8_t *p;

	/* Every packet read before the tail says so. */
	HT_MEMORY_BARRIER();
	r->tail = t->dump_end;
	if (t->dump_paused == 1) {
		t->cfg.ops->pause(t->cfg.ops->arg, 0);
	} else if (t->dump_paused == 2) {
		ht_instr_enable(t->cfg.instr);
	}
	t->dump_paused = 0;
	t->dumping = 0;
	p = reply_start(t, HT_SPC_DUMP_TRACE, t->dump_tag, HT_SPS_OK, 8);
	ht_sp_put32(p, t->dump_sent);
	ht_sp_put32(p + 4, t->dump_lost);
}

/* The argument bytes each command needs (more are ignored: a newer host). */
static uint32_t args_needed(uint8_t cmd)
{
	switch (cmd) {
	case HT_SPC_HELLO:
		return 2;
	case HT_SPC_TRIGGER:
		return 24;
	case HT_SPC_STOPPER:
	case HT_SPC_COUPLE:
		return 8;
	case HT_SPC_PROFILE:
	case HT_SPC_METADATA:
		return 4;
	default:
		return 0;
	}
}

static int needs_instr(uint8_t cmd)
{
	return cmd == HT_SPC_ENABLE || cmd == HT_SPC_DISABLE ||
	       cmd == HT_SPC_TRIGGER || cmd == HT_SPC_STOPPER ||
	       cmd == HT_SPC_COUPLE || cmd == HT_SPC_PROFILE ||
	       cmd == HT_SPC_PROFILE_TO_TRACE;
}

/* Runs the command in cmd[] (cmd_len bytes); builds its reply. */
/* The commands that change what is traced. */
static int changes_settings(uint8_t cmd)
{
	return cmd == HT_SPC_ENABLE || cmd == HT_SPC_DISABLE ||
	       cmd == HT_SPC_TRIGGER || cmd == HT_SPC_STOPPER ||
	       cmd == HT_SPC_COUPLE || cmd == HT_SPC_CLEAR;
}

static void run_command(struct ht_serial_target *t)
{
	const uint8_t cmd = t->cmd[0];
	const uint16_t tag = ht_sp_get16(t->cmd + 2);
	const uint8_t *a = t->cmd + HT_SP_CMD_HDR;
	const uint32_t n = t->cmd_len - HT_SP_CMD_HDR;
	const struct ht_serial_target_ops *ops = t->cfg.ops;
	struct ht_instr *in = t->cfg.instr;
	uint64_t fn, caller;
	uint8_t *p;

	if (cmd < HT_SPC_HELLO || cmd > HT_SPC_CLEAR) {
		reply_status(t, cmd, tag, HT_SPS_UNKNOWN);
		return;
	}
	if (n < args_needed(cmd) || (cmd == HT_SPC_PING && n > 64u)) {
		reply_status(t, cmd, tag, HT_SPS_BAD_ARGS);
		return;
	}
	if (t->dumping) {
		reply_status(t, cmd, tag, HT_SPS_BUSY);
		return;
	}
	if ((needs_instr(cmd) && !in) ||
	    (cmd == HT_SPC_PROFILE && !in->funcs) ||
	    ((cmd == HT_SPC_FLUSH || cmd == HT_SPC_PROFILE_TO_TRACE) &&
	     !ops->flush) ||
	    (cmd == HT_SPC_DUMP_TRACE &&
	     (!t->cfg.ring || t->cfg.ring->mode != HT_RING_OVERWRITE ||
	      !ops->flush)) ||
	    (cmd == HT_SPC_METADATA && !t->cfg.metadata) ||
	    (cmd == HT_SPC_REBOOT && !ops->reboot)) {
		reply_status(t, cmd, tag, HT_SPS_UNSUPPORTED);
		return;
	}
	if (changes_settings(cmd) && ops->flush) {
		/* A packet never mixes records of two settings: the one
		 * being filled is closed before they change. */
		ops->flush(ops->arg);
	}
	switch (cmd) {
	case HT_SPC_HELLO:
		p = reply_start(t, cmd, tag,
				a[0] == HT_SP_MAJOR ? HT_SPS_OK
						    : HT_SPS_VERSION,
				HT_SP_HELLO_SIZE);
		put_hello(t, p);
		return;
	case HT_SPC_PING:
		p = reply_start(t, cmd, tag, HT_SPS_OK, n);
		memcpy(p, a, n);
		return;
	case HT_SPC_STATUS:
		cmd_status(t, tag);
		return;
	case HT_SPC_ENABLE:
		ht_instr_enable(in);
		break;
	case HT_SPC_DISABLE:
		ht_instr_disable(in);
		break;
	case HT_SPC_TRIGGER:
		fn = ht_sp_get64(a);
		caller = ht_sp_get64(a + 16);
		if (!addr_ok(fn) || !addr_ok(caller)) {
			reply_status(t, cmd, tag, HT_SPS_BAD_ARGS);
			return;
		}
		ht_instr_set_trigger(in, (uintptr_t)fn, ht_sp_get32(a + 8),
				     (uintptr_t)caller);
		break;
	case HT_SPC_STOPPER:
	case HT_SPC_COUPLE:
		fn = ht_sp_get64(a);
		if (!addr_ok(fn)) {
			reply_status(t, cmd, tag, HT_SPS_BAD_ARGS);
			return;
		}
		if (cmd == HT_SPC_COUPLE) {
			ht_instr_set_trigger(in, (uintptr_t)fn, 0, 0);
		}
		ht_instr_set_stopper(in, (uintptr_t)fn);
		break;
	case HT_SPC_PROFILE:
		cmd_profile(t, tag, a);
		return;
	case HT_SPC_PROFILE_TO_TRACE:
		ht_instr_profile_dump(in);
		ops->flush(ops->arg);
		reply_status(t, cmd, tag, HT_SPS_OK);
		return;
	case HT_SPC_DUMP_TRACE:
		/* The reply comes after the packets (dump_end()). */
		dump_start(t, tag);
		return;
	case HT_SPC_FLUSH:
		ops->flush(ops->arg);
		reply_status(t, cmd, tag, HT_SPS_OK);
		return;
	case HT_SPC_METADATA:
		cmd_metadata(t, tag, a);
		return;
	case HT_SPC_REBOOT:
		t->reboot_after = 1;
		reply_status(t, cmd, tag, HT_SPS_OK);
		return;
	case HT_SPC_CLEAR:
		retained_defaults(t, t->ret, t->ret->boot_count);
		retained_seal(t->ret);
		apply_settings(t);
		reply_status(t, cmd, tag, HT_SPS_OK);
		return;
	default:
		break;
	}
	/* ENABLE, DISABLE, TRIGGER, STOPPER, COUPLE: kept across a reset. */
	save_settings(t);
	reply_status(t, cmd, tag, HT_SPS_OK);
}

/* Takes the posted command when the reply buffer is free. */
static void take_command(struct ht_serial_target *t)
{
	if (t->reply_type || t->cmd_posted == t->cmd_taken) {
		return;
	}
	/* cmd[] is read after the count that published it. */
	HT_MEMORY_BARRIER();
	run_command(t);
	/* Done with cmd[] before rx may overwrite it. */
	HT_MEMORY_BARRIER();
	t->cmd_taken = t->cmd_taken + 1u;
}

/* ---- Sending (poll) ---- */

/* Hands the encoder's output to put(); 0 when put() took less. */
static int tx_drain(struct ht_serial_target *t)
{
	uint32_t n, k;

	while ((n = ht_frame_enc_pending(&t->enc)) != 0u) {
		k = t->cfg.ops->put(t->cfg.ops->arg, ht_frame_enc_out(&t->enc),
				    n);
		if (k == 0u) {
			return 0;
		}
		ht_frame_enc_take(&t->enc, k > n ? n : k);
	}
	return 1;
}

static void tx_start(struct ht_serial_target *t, enum ht_serial_tx what,
		     uint8_t type, const uint8_t *p, uint32_t n)
{
	t->tx = what;
	t->tx_p = p;
	t->tx_n = n;
	t->tx_p2 = NULL;
	t->tx_n2 = 0;
	t->tx_fin = 0;
	ht_frame_enc_start(&t->enc, type, t->tx_seq);
	t->tx_seq = (uint16_t)(t->tx_seq + 1u);
}

/*
 * A dumped packet whose slot the producer reached while it was being
 * sent (overwrite mode without ops->pause: other tracepoints still
 * write) is cut off with a wrong CRC: the host drops it as a CRC error
 * instead of reading half of a newer packet; it counts as overwritten.
 */
static void tx_check_dump(struct ht_serial_target *t)
{
	const struct ht_ring *r = t->cfg.ring;

	if (t->tx != HT_SERIAL_TX_PACKET || !t->dumping) {
		return;
	}
	/* The slot's bytes were read before this load of head. */
	HT_MEMORY_BARRIER();
	if ((uint32_t)(r->head - t->pkt) >= r->nr_slots) {
		t->enc.crc = ~t->enc.crc;
		t->dump_spoiled = 1;
	}
}

/* Moves the current frame out: 1 when it is all out, 0 when put() is full. */
static int tx_run(struct ht_serial_target *t)
{
	uint32_t k;

	for (;;) {
		if (!tx_drain(t)) {
			return 0;
		}
		if (t->tx_n) {
			k = ht_frame_enc_feed(&t->enc, t->tx_p, t->tx_n);
			t->tx_p += k;
			t->tx_n -= k;
		} else if (t->tx_n2) {
			t->tx_p = t->tx_p2;
			t->tx_n = t->tx_n2;
			t->tx_n2 = 0;
		} else if (!t->tx_fin) {
			tx_check_dump(t);
			ht_frame_enc_finish(&t->enc);
			t->tx_fin = 1;
		} else if (ht_frame_enc_done(&t->enc)) {
			return 1;
		} else {
			ht_frame_enc_step(&t->enc);
		}
	}
}

/* The bytes of packet @k to send: its packet_size, within the slot. */
static uint32_t packet_bytes(struct ht_serial_target *t, const uint8_t *slot)
{
	const uint32_t slot_size = t->cfg.ring->slot_size;
	const uint32_t off = t->cfg.packet_size_off;
	uint64_t bits;

	if (off == 0u || off > slot_size - 8u) {
		return slot_size;
	}
	/* The generated code writes it in the target's byte order. */
	memcpy(&bits, slot + off, sizeof(bits));
	if ((bits & 7u) || bits < 16u * 8u || bits > (uint64_t)slot_size * 8u) {
		t->bad_sizes++;
		return slot_size;
	}
	return (uint32_t)(bits / 8u);
}

/* A frame was completely handed to put(). */
static void tx_done(struct ht_serial_target *t)
{
	struct ht_ring *r = t->cfg.ring;

	t->frames_sent++;
	switch (t->tx) {
	case HT_SERIAL_TX_SYNC:
		t->sync_rounds++;
		break;
	case HT_SERIAL_TX_REPLY:
		t->reply_type = 0;
		if (t->reboot_after) {
			t->reboot_after = 0;
			t->tx = HT_SERIAL_TX_NONE;
			t->cfg.ops->reboot(t->cfg.ops->arg);
		}
		break;
	case HT_SERIAL_TX_LOG:
		/* The bytes are sent before log may reuse them. */
		HT_MEMORY_BARRIER();
		t->log_tail = t->log_tail + t->log_sent;
		break;
	case HT_SERIAL_TX_PACKET:
		t->packets_sent++;
		t->pkt++;
		if (t->dumping && t->dump_spoiled) {
			t->dump_spoiled = 0;
			t->dump_lost++;
		} else if (t->dumping) {
			t->dump_sent++;
		} else {
			/* The slot's bytes are all read before it is freed. */
			HT_MEMORY_BARRIER();
			r->tail = t->pkt;
		}
		break;
	default:
		break;
	}
	t->tx = HT_SERIAL_TX_NONE;
}

/* Starts the next frame, in the order of the contract; 0: nothing. */
static int tx_next(struct ht_serial_target *t)
{
	struct ht_ring *r = t->cfg.ring;
	uint32_t p, head, h, tl, n1;

	/* SYNC: copy n and t between two loads of the count. */
	while ((p = t->sync_posted) != t->sync_taken) {
		HT_MEMORY_BARRIER();
		ht_sp_put32(t->sync_buf, t->sync_n);
		ht_sp_put32(t->sync_buf + 4, 0);
		ht_sp_put64(t->sync_buf + 8, t->sync_t);
		HT_MEMORY_BARRIER();
		if (t->sync_posted == p) {
			t->sync_taken = p;
			tx_start(t, HT_SERIAL_TX_SYNC, HT_SP_SYNC, t->sync_buf,
				 HT_SP_SYNC_SIZE);
			return 1;
		}
	}
	take_command(t);
	if (t->reply_type) {
		tx_start(t, HT_SERIAL_TX_REPLY, t->reply_type, t->reply,
			 t->reply_len);
		return 1;
	}
	h = t->log_head;
	tl = t->log_tail;
	if (h != tl) {
		/* The bytes of log[] up to h are stored before h. */
		HT_MEMORY_BARRIER();
		n1 = HT_SERIAL_LOG_SIZE - (tl % HT_SERIAL_LOG_SIZE);
		if (n1 > h - tl) {
			n1 = h - tl;
		}
		tx_start(t, HT_SERIAL_TX_LOG, HT_SP_LOG,
			 t->log + tl % HT_SERIAL_LOG_SIZE, n1);
		t->tx_p2 = t->log;
		t->tx_n2 = (h - tl) - n1;
		/* tx_done() moves the tail by the bytes of this frame. */
		t->log_sent = h - tl;
		return 1;
	}
	if (!r) {
		return 0;
	}
	if (t->dumping) {
		head = r->head;
		/* Paused or not, a slot overwritten since is not sent. */
		while (t->pkt != t->dump_end &&
		       (uint32_t)(head - t->pkt) >= r->nr_slots) {
			t->pkt++;
			t->dump_lost++;
		}
		if (t->pkt == t->dump_end) {
			dump_end(t);
			tx_start(t, HT_SERIAL_TX_REPLY, t->reply_type, t->reply,
				 t->reply_len);
			return 1;
		}
	} else if (r->mode != HT_RING_DISCARD) {
		return 0;
	} else {
		head = r->head;
		if (head == t->pkt) {
			return 0;
		}
		/* The packet's bytes are read after the head covering it. */
		HT_MEMORY_BARRIER();
	}
	{
		const uint8_t *slot = ht_ring_slot_of(r, t->pkt);

		tx_start(t, HT_SERIAL_TX_PACKET, HT_SP_PACKET, slot,
			 packet_bytes(t, slot));
	}
	return 1;
}

int ht_serial_target_poll(struct ht_serial_target *t)
{
	for (;;) {
		if (t->tx == HT_SERIAL_TX_NONE && !tx_next(t)) {
			return 0;
		}
		if (!tx_run(t)) {
			return 1;
		}
		tx_done(t);
	}
}

uint32_t ht_serial_target_log(struct ht_serial_target *t, const char *s,
			      uint32_t n)
{
	uint32_t h = t->log_head, room = HT_SERIAL_LOG_SIZE - (h - t->log_tail);
	uint32_t i;

	if (n > room) {
		t->log_lost += n - room;
		n = room;
	}
	for (i = 0; i < n; i++) {
		t->log[(h + i) % HT_SERIAL_LOG_SIZE] = (uint8_t)s[i];
	}
	/* The text is stored before the head that publishes it. */
	HT_MEMORY_BARRIER();
	t->log_head = h + n;
	return n;
}
