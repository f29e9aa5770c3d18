/* SPDX-License-Identifier: MIT */
/*
 * The serial link's target side (runtime/serial-target.c), driven in
 * process: a packet ring filled by a fake producer, a struct ht_instr,
 * a put() into a buffer whose frames are decoded with the codec.
 * - HELLO at boot and every command's reply layout and status (HELLO
 *   and its version check, PING, STATUS, ENABLE/DISABLE, TRIGGER,
 *   STOPPER, COUPLE, PROFILE paged, PROFILE_TO_TRACE, FLUSH, METADATA
 *   chunks, REBOOT after its reply, CLEAR, unknown, short arguments,
 *   no instr);
 * - retained settings survive a re-init; a bad CRC or magic is
 *   rejected (fresh settings, boot_count 1);
 * - sync: n = 0, 2, 4..., t read at rx time, ack/notify traced there;
 *   a sync request in the middle of a packet waits for its end;
 * - a command while one is pending is dropped and counted;
 * - garbage and a dropped byte are counted and the next command works;
 *   a missing frame is counted by its seq;
 * - streaming sends each packet's packet_size bytes and frees its slot;
 * - overwrite mode streams nothing; DUMP_TRACE sends the whole packets
 *   oldest first, paused, and counts the overwritten ones; a command
 *   during a dump is BUSY.
 */
#include <stdint.h>
#include <string.h>

#include "hetrace/serial-target.h"
#include "tests/check.h"

#define SLOT 256u
#define MAX_FRAMES 256

/* ---- The port ---- */

static uint8_t wire[1 << 20];
static uint32_t wire_len;
static uint32_t put_budget = 0xffffffffu; /* bytes put() takes, then 0 */
static uint32_t put_chunk = 0xffffffffu;  /* at most per call */
static uint64_t now = 1000;
static unsigned flushes, reboots, pauses, resumes;
static uint32_t reboot_wire_len; /* wire bytes when reboot() was called */
static uint32_t acks[16], notifies[16], nr_acks, nr_notifies;
static uint64_t ack_time[16];
static struct ht_ring *ring;
static struct ht_instr instr;

static uint32_t t_put(void *arg, const uint8_t *p, uint32_t n)
{
	(void)arg;
	if (n > put_chunk) {
		n = put_chunk;
	}
	if (n > put_budget) {
		n = put_budget;
	}
	REQUIRE(wire_len + n <= sizeof(wire));
	memcpy(wire + wire_len, p, n);
	wire_len += n;
	put_budget -= n;
	return n;
}

static uint64_t t_clock(void *arg)
{
	(void)arg;
	return now++;
}

static void produce(uint8_t mark, uint32_t size);

static void t_flush(void *arg)
{
	(void)arg;
	flushes++;
}

static void t_reboot(void *arg)
{
	(void)arg;
	reboots++;
	reboot_wire_len = wire_len;
}

static void t_counts(void *arg, uint64_t *events, uint64_t *discarded)
{
	(void)arg;
	*events = 123456789012ull;
	*discarded = 77;
}

static void t_pause(void *arg, int paused)
{
	(void)arg;
	if (paused) {
		pauses++;
	} else {
		resumes++;
	}
}

static void t_ack(void *arg, uint32_t seq)
{
	(void)arg;
	ack_time[nr_acks & 15u] = now;
	acks[nr_acks++ & 15u] = seq;
}

static void t_notify(void *arg, uint32_t seq)
{
	(void)arg;
	notifies[nr_notifies++ & 15u] = seq;
}

static const struct ht_serial_target_ops ops = {
    .put = t_put,
    .clock = t_clock,
    .flush = t_flush,
    .reboot = t_reboot,
    .counts = t_counts,
    .pause = t_pause,
};
static const struct ht_sync_slave_ops sync_ops = {
    .trace_ack = t_ack,
    .trace_notify = t_notify,
};

/* ---- The instrumentation ---- */

static struct ht_instr_frame stack[16];
static struct ht_instr_func funcs[32];
static unsigned profile_records;

static void t_profile(void *ctx, const struct ht_instr_func *f)
{
	(void)ctx;
	(void)f;
	profile_records++;
}

static const struct ht_instr_ops instr_ops = {.profile = t_profile};

static uint64_t instr_clock(void *ctx)
{
	(void)ctx;
	return 0;
}

static void instr_setup(void)
{
	struct ht_instr_config c;

	memset(&c, 0, sizeof(c));
	c.flags = HT_INSTR_TRACE | HT_INSTR_PROFILE;
	c.ops = &instr_ops;
	c.clock = instr_clock;
	c.stack = stack;
	c.stack_depth = 16;
	c.funcs = funcs;
	c.nr_funcs = 32;
	c.stopper = 0x5000; /* the firmware's own setting */
	REQUIRE(ht_instr_init(&instr, &c) == 0);
	/* Started (not STOPPED); this file is not instrumented, so no
	 * hook ever runs. */
	ht_instr_start(&instr);
}

/* ---- The ring ---- */

static uint64_t ring_mem[(4096u + 8u * SLOT) / 8u];

static void ring_setup(enum ht_ring_mode mode, uint32_t slots)
{
	ring = ht_ring_init(ring_mem,
			    (uint32_t)((sizeof(struct ht_ring) + 63u) & ~63u) +
				slots * SLOT,
			    SLOT, mode, 3, "c3", NULL, 0);
	REQUIRE(ring && ring->nr_slots == slots);
}

/* A packet of @size bytes (its packet_size at offset 16), bytes = mark. */
static void produce(uint8_t mark, uint32_t size)
{
	uint8_t *s = ht_ring_slot(ring);
	uint64_t bits = (uint64_t)size * 8u;

	memset(s, mark, SLOT);
	memcpy(s + 16, &bits, 8);
	ht_ring_commit(ring);
}

/* ---- The host side ---- */

struct frame {
	uint8_t type;
	uint16_t seq;
	uint32_t size;
	uint8_t p[1024];
};
static struct frame frames[MAX_FRAMES];
static unsigned nr_frames, bad_frames;
static uint32_t wire_read;
static uint16_t host_seq;

/* Decodes the new wire bytes into frames[]. */
static void decode(void)
{
	static uint8_t buf[2048];
	static struct ht_frame_dec d;
	static int init;

	if (!init) {
		ht_frame_dec_init(&d, buf, sizeof(buf));
		init = 1;
	}
	for (; wire_read < wire_len; wire_read++) {
		int r = ht_frame_dec_byte(&d, wire[wire_read]);

		if (r == HT_FRAME_BAD) {
			bad_frames++;
		}
		if (r != HT_FRAME_OK) {
			continue;
		}
		REQUIRE(nr_frames < MAX_FRAMES);
		frames[nr_frames].type = ht_frame_dec_type(&d);
		frames[nr_frames].seq = ht_frame_dec_seq(&d);
		frames[nr_frames].size = ht_frame_dec_size(&d);
		memcpy(frames[nr_frames].p, ht_frame_dec_payload(&d),
		       ht_frame_dec_size(&d));
		nr_frames++;
	}
}

static void rx_bytes(struct ht_serial_target *t, const uint8_t *w, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		ht_serial_target_rx(t, w[i]);
	}
}

/* Encodes a command frame into @w; returns its length. */
static uint32_t cmd_wire(uint8_t *w, uint8_t cmd, uint16_t tag,
			 const void *args, uint32_t n)
{
	uint8_t pl[128];

	pl[0] = cmd;
	pl[1] = 0;
	ht_sp_put16(pl + 2, tag);
	if (n) {
		memcpy(pl + 4, args, n);
	}
	return ht_frame_encode(w, 256, HT_SP_CMD, host_seq++, pl, 4u + n);
}

static void send_cmd(struct ht_serial_target *t, uint8_t cmd, uint16_t tag,
		     const void *args, uint32_t n)
{
	uint8_t w[256];

	rx_bytes(t, w, cmd_wire(w, cmd, tag, args, n));
}

static void drain(struct ht_serial_target *t)
{
	unsigned i;

	for (i = 0; i < 10000 && ht_serial_target_poll(t); i++) {
	}
	decode();
}

/* Sends a command, polls, returns the reply frame with @tag (or NULL). */
static const struct frame *command(struct ht_serial_target *t, uint8_t cmd,
				   uint16_t tag, const void *args, uint32_t n)
{
	unsigned first = nr_frames, i;

	send_cmd(t, cmd, tag, args, n);
	drain(t);
	for (i = first; i < nr_frames; i++) {
		if (frames[i].type == HT_SP_REPLY && frames[i].p[0] == cmd &&
		    ht_sp_get16(frames[i].p + 2) == tag) {
			return &frames[i];
		}
	}
	return NULL;
}

static uint8_t status_of(const struct frame *f)
{
	return f ? f->p[1] : 0xff;
}

static const char metadata[] = "/* CTF 1.8 */ trace { major = 1; };";
static uint8_t big_metadata[1200];
static const uint8_t build_id[20] = {0xde, 0xad, 0xbe, 0xef, 1,	 2, 3,
				     4,	   5,	 6,    7,    8,	 9, 10,
				     11,   12,	 13,   14,   15, 16};
static struct ht_serial_retained retained;

static void config(struct ht_serial_target_config *c, struct ht_instr *in)
{
	memset(c, 0, sizeof(*c));
	c->ops = &ops;
	c->ring = ring;
	c->instr = in;
	c->sync = &sync_ops;
	c->metadata = metadata;
	c->metadata_size = sizeof(metadata) - 1u;
	c->build_id = build_id;
	c->build_id_len = 20;
	c->core_id = 3;
	c->name = "cortex-m3-core-name-too-long";
	c->clock_hz = 72000000;
	c->retained = &retained;
	c->packet_size_off = 16;
}

static void reset_wire(void)
{
	wire_len = 0;
	wire_read = 0;
	nr_frames = 0;
	put_budget = 0xffffffffu;
	put_chunk = 0xffffffffu;
}

static void check_hello(const uint8_t *p, uint32_t boots, uint16_t flags)
{
	CHECK(p[0] == HT_SP_MAJOR && p[1] == HT_SP_MINOR);
	CHECK_MSG(ht_sp_get16(p + 2) == flags, "flags %#x, want %#x",
		  ht_sp_get16(p + 2), flags);
	CHECK(ht_sp_get32(p + 4) == 3);
	CHECK(ht_sp_get64(p + 8) == 72000000);
	CHECK(ht_sp_get32(p + 16) == sizeof(metadata) - 1u);
	CHECK(ht_sp_get32(p + 20) ==
	      ht_crc32(0, metadata, sizeof(metadata) - 1u));
	CHECK_MSG(ht_sp_get32(p + 24) == boots, "boot_count %u, want %u",
		  ht_sp_get32(p + 24), boots);
	CHECK(p[28] == 20 && !memcmp(p + 32, build_id, 20));
	CHECK(!memcmp(p + 52, "cortex-m3-core-n", 16));
}

/*
 * A target booted on a fresh line: a ring of 4 slots in @mode, the
 * instrumentation reset, its HELLO taken off the wire into frames[].
 */
static void boot(struct ht_serial_target *t, struct ht_serial_target_config *c,
		 enum ht_ring_mode mode)
{
	reset_wire();
	ring_setup(mode, 4);
	instr_setup();
	config(c, &instr);
	ht_serial_target_init(t, c);
	drain(t);
}

/* HELLO at boot, then each command's reply. */
static void test_commands(void)
{
	static struct ht_serial_target t;
	struct ht_serial_target_config c;
	const struct frame *f;
	uint8_t a[128];
	uint32_t i, off, total;

	memset(&retained, 0, sizeof(retained));
	boot(&t, &c, HT_RING_DISCARD);
	REQUIRE(nr_frames == 1 && frames[0].type == HT_SP_HELLO);
	CHECK(frames[0].size == HT_SP_HELLO_SIZE && frames[0].seq == 0);
	check_hello(frames[0].p, 1, HT_SP_HAS_INSTR | HT_SP_HAS_PROFILE);

	/* HELLO: the same data; another major is refused with it. */
	a[0] = HT_SP_MAJOR;
	a[1] = 7;
	f = command(&t, HT_SPC_HELLO, 1, a, 2);
	REQUIRE(f && f->size == 4u + HT_SP_HELLO_SIZE);
	CHECK(status_of(f) == HT_SPS_OK && f->seq == 1);
	check_hello(f->p + 4, 1, HT_SP_HAS_INSTR | HT_SP_HAS_PROFILE);
	a[0] = HT_SP_MAJOR + 1u;
	f = command(&t, HT_SPC_HELLO, 2, a, 2);
	REQUIRE(f && f->size == 4u + HT_SP_HELLO_SIZE);
	CHECK(status_of(f) == HT_SPS_VERSION);
	f = command(&t, HT_SPC_HELLO, 3, a, 1);
	CHECK(status_of(f) == HT_SPS_BAD_ARGS && f->size == 4);

	/* PING echoes up to 64 bytes. */
	memcpy(a, "hello, target", 13);
	f = command(&t, HT_SPC_PING, 4, a, 13);
	REQUIRE(f && f->size == 4u + 13u);
	CHECK(status_of(f) == HT_SPS_OK && !memcmp(f->p + 4, a, 13));
	memset(a, 0x55, 65);
	CHECK(status_of(command(&t, HT_SPC_PING, 5, a, 65)) == HT_SPS_BAD_ARGS);

	/* TRIGGER, STOPPER, COUPLE, ENABLE, DISABLE: instr and retained. */
	memset(a, 0, 24);
	ht_sp_put64(a, 0x1234);
	ht_sp_put32(a + 8, 3);
	ht_sp_put64(a + 16, 0x999);
	CHECK(status_of(command(&t, HT_SPC_TRIGGER, 6, a, 24)) == HT_SPS_OK);
	CHECK(instr.trigger == 0x1234 && instr.trigger_nth == 3 &&
	      instr.trigger_caller == 0x999);
	CHECK(retained.trigger == 0x1234 && retained.trigger_nth == 3 &&
	      retained.trigger_caller == 0x999 &&
	      (retained.flags & HT_SERIAL_RET_SET));
	CHECK(retained.crc ==
	      ht_crc32(0, &retained, offsetof(struct ht_serial_retained, crc)));
	CHECK(status_of(command(&t, HT_SPC_TRIGGER, 7, a, 23)) ==
	      HT_SPS_BAD_ARGS);
	ht_sp_put64(a, 0x2000);
	CHECK(status_of(command(&t, HT_SPC_STOPPER, 8, a, 8)) == HT_SPS_OK);
	CHECK(instr.stopper == 0x2000 && retained.stopper == 0x2000);
	CHECK(status_of(command(&t, HT_SPC_DISABLE, 9, NULL, 0)) == HT_SPS_OK);
	CHECK(instr.disabled && !(retained.flags & HT_SERIAL_RET_ENABLED));

	/* STATUS. */
	f = command(&t, HT_SPC_STATUS, 10, NULL, 0);
	REQUIRE(f && f->size == 4u + HT_SP_STATUS_SIZE);
	CHECK(status_of(f) == HT_SPS_OK);
	{
		const uint8_t *s = f->p + 4;

		CHECK_MSG(ht_sp_get32(s) == 0, "state %#x", ht_sp_get32(s));
		CHECK(ht_sp_get32(s + 4) == HT_RING_DISCARD);
		CHECK(ht_sp_get32(s + 8) == 4 && ht_sp_get32(s + 12) == 0);
		CHECK(ht_sp_get32(s + 16) == SLOT);
		CHECK(ht_sp_get32(s + 20) == 1);
		CHECK(ht_sp_get64(s + 24) == 123456789012ull);
		CHECK(ht_sp_get64(s + 32) == 77);
		CHECK(ht_sp_get64(s + 40) == 0x1234);
		CHECK(ht_sp_get32(s + 48) == 3);
		CHECK(ht_sp_get64(s + 56) == 0x999);
		CHECK(ht_sp_get64(s + 64) == 0x2000);
		CHECK(ht_sp_get32(s + 72) == 0);
		/* HELLO + the 9 replies before this one */
		CHECK_MSG(ht_sp_get32(s + 76) == 10, "frames_sent %u",
			  ht_sp_get32(s + 76));
		CHECK(ht_sp_get32(s + 80) == 10);
		CHECK(ht_sp_get32(s + 84) == 0 && ht_sp_get32(s + 88) == 0);
		CHECK(ht_sp_get32(s + 92) == 0);
		CHECK(ht_sp_get64(s + 96) >= 1000 && ht_sp_get64(s + 96) < now);
	}
	CHECK(status_of(command(&t, HT_SPC_ENABLE, 11, NULL, 0)) == HT_SPS_OK);
	CHECK(!instr.disabled && (retained.flags & HT_SERIAL_RET_ENABLED));
	ht_sp_put64(a, 0x3000);
	flushes = 0;
	CHECK(status_of(command(&t, HT_SPC_COUPLE, 12, a, 8)) == HT_SPS_OK);
	/* The packet of the records before the change is closed first. */
	CHECK(flushes == 1);
	CHECK(instr.trigger == 0x3000 && instr.stopper == 0x3000 &&
	      instr.trigger_nth == 0 && instr.trigger_caller == 0);
	CHECK(retained.trigger == 0x3000 && retained.stopper == 0x3000);
	f = command(&t, HT_SPC_STATUS, 13, NULL, 0);
	REQUIRE(f);
	CHECK(ht_sp_get32(f->p + 4) == HT_SPS_ENABLED);

	/* PROFILE: 20 functions in 32 slots, in two pages. */
	for (i = 0; i < 20; i++) {
		funcs[i + (i >= 10 ? 5u : 0u)].addr = 0x100u + i;
		funcs[i + (i >= 10 ? 5u : 0u)].calls = i + 1u;
		funcs[i + (i >= 10 ? 5u : 0u)].incl = 1000u + i;
		funcs[i + (i >= 10 ? 5u : 0u)].excl = 500u + i;
		funcs[i + (i >= 10 ? 5u : 0u)].max = 90u + i;
	}
	instr.stats.lost_calls = 4;
	instr.stats.nested = 6;
	ht_sp_put32(a, 0);
	f = command(&t, HT_SPC_PROFILE, 14, a, 4);
	REQUIRE(f && status_of(f) == HT_SPS_OK);
	CHECK(f->size == 4u + HT_SP_PROFILE_HDR + 16u * HT_SP_FUNC_SIZE);
	CHECK(ht_sp_get32(f->p + 4 + 4) == 16);
	CHECK(ht_sp_get32(f->p + 4 + 8) == 4 &&
	      ht_sp_get32(f->p + 4 + 20) == 6);
	CHECK(ht_sp_get32(f->p + 4 + 28) == 32);
	off = ht_sp_get32(f->p + 4);
	CHECK_MSG(off == 21, "next %u", off); /* after the 16th function */
	{
		const uint8_t *e = f->p + 4 + HT_SP_PROFILE_HDR + 15u * 40u;

		CHECK(ht_sp_get64(e) == 0x10f && ht_sp_get32(e + 8) == 16);
		CHECK(ht_sp_get64(e + 16) == 1015 &&
		      ht_sp_get64(e + 24) == 515 && ht_sp_get64(e + 32) == 105);
	}
	ht_sp_put32(a, off);
	f = command(&t, HT_SPC_PROFILE, 15, a, 4);
	REQUIRE(f && status_of(f) == HT_SPS_OK);
	CHECK(ht_sp_get32(f->p + 4) == HT_SP_PROFILE_DONE);
	CHECK(ht_sp_get32(f->p + 4 + 4) == 4);
	CHECK(ht_sp_get64(f->p + 4 + HT_SP_PROFILE_HDR + 3u * 40u) == 0x113);
	ht_sp_put32(a, 33);
	CHECK(status_of(command(&t, HT_SPC_PROFILE, 16, a, 4)) ==
	      HT_SPS_BAD_ARGS);

	/* PROFILE_TO_TRACE: the dump, then a flush. FLUSH. */
	flushes = 0;
	CHECK(status_of(command(&t, HT_SPC_PROFILE_TO_TRACE, 17, NULL, 0)) ==
	      HT_SPS_OK);
	CHECK(profile_records == 20 && flushes == 1);
	CHECK(status_of(command(&t, HT_SPC_FLUSH, 18, NULL, 0)) == HT_SPS_OK);
	CHECK(flushes == 2);

	/* METADATA: chunks of 512 from any offset. */
	t.cfg.metadata = (const char *)big_metadata;
	t.cfg.metadata_size = sizeof(big_metadata);
	for (i = 0; i < sizeof(big_metadata); i++) {
		big_metadata[i] = (uint8_t)('a' + i % 26u);
	}
	for (off = 0, total = 0; off < sizeof(big_metadata); off += i) {
		ht_sp_put32(a, off);
		f = command(&t, HT_SPC_METADATA, 19, a, 4);
		REQUIRE(f && status_of(f) == HT_SPS_OK);
		i = f->size - 12u;
		CHECK(ht_sp_get32(f->p + 4) == off);
		CHECK(ht_sp_get32(f->p + 8) == sizeof(big_metadata));
		CHECK(i == (off + 512u <= sizeof(big_metadata)
				? 512u
				: sizeof(big_metadata) - off));
		CHECK(!memcmp(f->p + 12, big_metadata + off, i));
		total++;
	}
	CHECK(total == 3);
	ht_sp_put32(a, sizeof(big_metadata) + 1u);
	CHECK(status_of(command(&t, HT_SPC_METADATA, 20, a, 4)) ==
	      HT_SPS_BAD_ARGS);

	/* Unknown command; CLEAR: the firmware's own settings back. */
	CHECK(status_of(command(&t, 0x42, 21, NULL, 0)) == HT_SPS_UNKNOWN);
	CHECK(status_of(command(&t, HT_SPC_CLEAR, 22, NULL, 0)) == HT_SPS_OK);
	CHECK(instr.trigger == 0 && instr.stopper == 0x5000 && !instr.disabled);
	CHECK(!(retained.flags & HT_SERIAL_RET_SET) &&
	      retained.boot_count == 1);
	/* DUMP_TRACE needs an overwrite ring. */
	CHECK(status_of(command(&t, HT_SPC_DUMP_TRACE, 23, NULL, 0)) ==
	      HT_SPS_UNSUPPORTED);

	/* REBOOT: the reply is out before the reset. */
	reboots = 0;
	f = command(&t, HT_SPC_REBOOT, 24, NULL, 0);
	CHECK(status_of(f) == HT_SPS_OK && reboots == 1);
	CHECK(reboot_wire_len == wire_len);
	CHECK(bad_frames == 0);

	/* Without instr: UNSUPPORTED. */
	config(&c, NULL);
	c.retained = NULL;
	ht_serial_target_init(&t, &c);
	drain(&t);
	check_hello(frames[nr_frames - 1].p, 1, 0);
	ht_sp_put64(a, 0x3000);
	CHECK(status_of(command(&t, HT_SPC_STOPPER, 25, a, 8)) ==
	      HT_SPS_UNSUPPORTED);
	CHECK(status_of(command(&t, HT_SPC_ENABLE, 26, NULL, 0)) ==
	      HT_SPS_UNSUPPORTED);
	ht_sp_put32(a, 0);
	CHECK(status_of(command(&t, HT_SPC_PROFILE, 27, a, 4)) ==
	      HT_SPS_UNSUPPORTED);
	f = command(&t, HT_SPC_STATUS, 28, NULL, 0);
	CHECK(status_of(f) == HT_SPS_OK && f->size == 4u + HT_SP_STATUS_SIZE);
}

/* Retained settings across a re-init; rejected when corrupted. */
static void test_retained(void)
{
	static struct ht_serial_target t;
	struct ht_serial_target_config c;
	uint8_t a[24] = {0};

	reset_wire();
	memset(&retained, 0xa5, sizeof(retained)); /* RAM after power-on */
	ring_setup(HT_RING_DISCARD, 4);
	instr_setup();
	config(&c, &instr);
	ht_serial_target_init(&t, &c);
	CHECK(retained.boot_count == 1 && instr.stopper == 0x5000);
	ht_sp_put64(a, 0x4444);
	ht_sp_put32(a + 8, 2);
	CHECK(status_of(command(&t, HT_SPC_TRIGGER, 1, a, 24)) == HT_SPS_OK);
	CHECK(status_of(command(&t, HT_SPC_DISABLE, 2, NULL, 0)) == HT_SPS_OK);

	/* A reset: the firmware's settings, then the retained ones. */
	reset_wire();
	instr_setup();
	CHECK(instr.trigger == 0 && !instr.disabled);
	ht_serial_target_init(&t, &c);
	drain(&t);
	CHECK(instr.trigger == 0x4444 && instr.trigger_nth == 2 &&
	      instr.stopper == 0x5000 && instr.disabled);
	REQUIRE(nr_frames == 1 && frames[0].type == HT_SP_HELLO);
	check_hello(frames[0].p, 2,
		    HT_SP_HAS_INSTR | HT_SP_HAS_PROFILE | HT_SP_RETAINED);
	CHECK(retained.boot_count == 2);

	/* A flipped bit: the CRC rejects them. */
	retained.trigger ^= 1u;
	reset_wire();
	instr_setup();
	ht_serial_target_init(&t, &c);
	drain(&t);
	CHECK(instr.trigger == 0 && instr.stopper == 0x5000 && !instr.disabled);
	check_hello(frames[0].p, 1, HT_SP_HAS_INSTR | HT_SP_HAS_PROFILE);
	CHECK(retained.boot_count == 1 &&
	      retained.flags == HT_SERIAL_RET_ENABLED);

	/* A wrong magic with a matching CRC: rejected too. */
	ht_sp_put64(a, 0x4444);
	CHECK(status_of(command(&t, HT_SPC_TRIGGER, 3, a, 24)) == HT_SPS_OK);
	retained.magic ^= 0x100u;
	retained.crc =
	    ht_crc32(0, &retained, offsetof(struct ht_serial_retained, crc));
	instr_setup();
	ht_serial_target_init(&t, &c);
	CHECK(instr.trigger == 0 && retained.boot_count == 1);
	CHECK(retained.magic == HT_SERIAL_RETAINED_MAGIC);

	/* Valid but never set by the host: only boot_count moves. */
	instr_setup();
	ht_serial_target_init(&t, &c);
	CHECK(retained.boot_count == 2 && !t.restored);
}

/* Sync requests: stamped and traced in rx, n = 2 x count. */
static void test_sync(void)
{
	static struct ht_serial_target t;
	struct ht_serial_target_config c;
	const uint8_t zero = 0;
	uint64_t t_rx;
	unsigned i;

	boot(&t, &c, HT_RING_DISCARD);
	nr_acks = nr_notifies = 0;
	for (i = 0; i < 3; i++) {
		t_rx = now;
		rx_bytes(&t, &zero, 1);
		CHECK(nr_acks == i + 1u && acks[i] == 2u * i);
		CHECK(nr_notifies == i + 1u && notifies[i] == 2u * i + 1u);
		/* The clock is read first, before the tracing. */
		CHECK(ack_time[i] == t_rx + 1u);
		now += 50; /* later polls read a later clock */
		drain(&t);
		REQUIRE(frames[nr_frames - 1].type == HT_SP_SYNC);
		CHECK(frames[nr_frames - 1].size == HT_SP_SYNC_SIZE);
		CHECK(ht_sp_get32(frames[nr_frames - 1].p) == 2u * i);
		CHECK_MSG(ht_sp_get64(frames[nr_frames - 1].p + 8) == t_rx,
			  "t %llu, want %llu",
			  (unsigned long long)ht_sp_get64(
			      frames[nr_frames - 1].p + 8),
			  (unsigned long long)t_rx);
	}
	/* Two requests before a poll: the newer one is answered. */
	rx_bytes(&t, &zero, 1);
	t_rx = now;
	rx_bytes(&t, &zero, 1);
	i = nr_frames;
	drain(&t);
	CHECK(nr_frames == i + 1u && frames[i].type == HT_SP_SYNC);
	CHECK(ht_sp_get32(frames[i].p) == 8 &&
	      ht_sp_get64(frames[i].p + 8) == t_rx);
	CHECK(t.sync_replaced == 1 && t.sync_rounds == 4);
}

/*
 * A sync request and a command while a packet goes out a few bytes at
 * a time: the packet's frame ends first, then SYNC, REPLY, LOG, the
 * next packet. Nothing interleaved: every frame decodes.
 */
static void test_order(void)
{
	static struct ht_serial_target t;
	struct ht_serial_target_config c;
	const uint8_t zero = 0;
	unsigned i, first;

	boot(&t, &c, HT_RING_DISCARD);
	first = nr_frames;
	produce(0x11, 200);
	produce(0x22, SLOT);
	put_chunk = 7;
	put_budget = 60;
	CHECK(ht_serial_target_poll(&t) == 1); /* in the first packet */
	CHECK(ring->tail == 0);
	rx_bytes(&t, &zero, 1);
	send_cmd(&t, HT_SPC_PING, 9, "pp", 2);
	CHECK(ht_serial_target_log(&t, "log line", 8) == 8);
	for (i = 0; i < 1000 && ht_serial_target_poll(&t); i++) {
		put_budget = 13;
	}
	put_budget = 0xffffffffu;
	drain(&t);
	CHECK(bad_frames == 0);
	REQUIRE(nr_frames == first + 5u);
	CHECK(frames[first].type == HT_SP_PACKET && frames[first].size == 200);
	CHECK(frames[first].p[199] == 0x11 && frames[first].p[0] == 0x11);
	CHECK(frames[first + 1].type == HT_SP_SYNC);
	CHECK(frames[first + 2].type == HT_SP_REPLY &&
	      !memcmp(frames[first + 2].p + 4, "pp", 2));
	CHECK(frames[first + 3].type == HT_SP_LOG &&
	      frames[first + 3].size == 8 &&
	      !memcmp(frames[first + 3].p, "log line", 8));
	CHECK(frames[first + 4].type == HT_SP_PACKET &&
	      frames[first + 4].size == SLOT && frames[first + 4].p[9] == 0x22);
	for (i = first + 1; i < nr_frames; i++) {
		CHECK(frames[i].seq == (uint16_t)(frames[i - 1].seq + 1u));
	}
	/* Streaming freed both slots. */
	CHECK(ring->tail == 2 && ring->head == 2 && t.packets_sent == 2);

	/* A packet_size beyond the slot: the whole slot, counted. */
	produce(0x33, SLOT + 8u);
	drain(&t);
	CHECK(frames[nr_frames - 1].size == SLOT && t.bad_sizes == 1);

	/* LOG text wraps around its buffer; what does not fit is counted. */
	{
		char text[HT_SERIAL_LOG_SIZE + 10];

		memset(text, 'x', sizeof(text));
		CHECK(ht_serial_target_log(&t, text, 100) == 100);
		drain(&t);
		CHECK(ht_serial_target_log(&t, text, sizeof(text)) ==
		      HT_SERIAL_LOG_SIZE);
		CHECK(t.log_lost == 10);
		drain(&t);
		CHECK(frames[nr_frames - 1].type == HT_SP_LOG &&
		      frames[nr_frames - 1].size == HT_SERIAL_LOG_SIZE);
	}
}

/* A command while one is pending; garbage; a dropped byte; lost seq. */
static void test_rx_faults(void)
{
	static struct ht_serial_target t;
	struct ht_serial_target_config c;
	uint8_t w1[256], w2[256], junk[40];
	const struct frame *f;
	uint32_t n1, n2, i;

	boot(&t, &c, HT_RING_DISCARD);

	/* Two commands before a poll: the second is dropped, counted. */
	n1 = cmd_wire(w1, HT_SPC_PING, 1, "a", 1);
	n2 = cmd_wire(w2, HT_SPC_PING, 2, "b", 1);
	rx_bytes(&t, w1, n1);
	rx_bytes(&t, w2, n2);
	i = nr_frames;
	drain(&t);
	CHECK(nr_frames == i + 1u && frames[i].p[0] == HT_SPC_PING &&
	      ht_sp_get16(frames[i].p + 2) == 1);
	CHECK(t.cmd_dropped == 1 && t.rx_frames == 2);
	/* The host's retry works. */
	CHECK(status_of(command(&t, HT_SPC_PING, 2, "b", 1)) == HT_SPS_OK);

	/* Garbage ending in 0x00: one bad frame. */
	for (i = 0; i < sizeof(junk); i++) {
		junk[i] = (uint8_t)(i * 37u + 1u);
	}
	junk[sizeof(junk) - 1] = 0;
	rx_bytes(&t, junk, sizeof(junk));
	f = command(&t, HT_SPC_STATUS, 3, NULL, 0);
	REQUIRE(f);
	CHECK_MSG(ht_sp_get32(f->p + 4 + 84) == 1, "rx_errors %u",
		  ht_sp_get32(f->p + 4 + 84));
	/* A dropped byte: that frame is lost, the next one works. */
	n1 = cmd_wire(w1, HT_SPC_PING, 4, "cc", 2);
	memmove(w1 + 3, w1 + 4, n1 - 4u);
	rx_bytes(&t, w1, n1 - 1u);
	CHECK(status_of(command(&t, HT_SPC_PING, 5, "dd", 2)) == HT_SPS_OK);
	/* A frame never received (skipped seq): counted. */
	host_seq++;
	f = command(&t, HT_SPC_STATUS, 6, NULL, 0);
	REQUIRE(f);
	CHECK(ht_sp_get32(f->p + 4 + 84) == 2);
	/* The corrupted frame and the skipped one, by seq. */
	CHECK_MSG(ht_sp_get32(f->p + 4 + 88) == 2, "rx_lost %u",
		  ht_sp_get32(f->p + 4 + 88));
	/* A host frame of another type: an error, no reply. */
	n1 = ht_frame_encode(w1, sizeof(w1), HT_SP_LOG, host_seq++, "zz", 2);
	rx_bytes(&t, w1, n1);
	f = command(&t, HT_SPC_STATUS, 7, NULL, 0);
	REQUIRE(f);
	CHECK(ht_sp_get32(f->p + 4 + 84) == 3);
	CHECK(bad_frames == 0);
}

/* Overwrite mode: nothing streams; DUMP_TRACE sends the whole packets. */
static void test_dump(void)
{
	static struct ht_serial_target t;
	struct ht_serial_target_config c;
	const struct frame *f;
	unsigned i, first;

	memset(&retained, 0, sizeof(retained));
	boot(&t, &c, HT_RING_OVERWRITE);
	check_hello(frames[0].p, 1,
		    HT_SP_HAS_INSTR | HT_SP_HAS_PROFILE | HT_SP_OVERWRITE);
	for (i = 0; i < 7; i++) {
		produce((uint8_t)(0x40 + i), 64u + 8u * i);
	}
	first = nr_frames;
	drain(&t);
	CHECK(nr_frames == first && ring->tail == 0);

	/* 7 packets in 4 slots; the slot of the next one is being filled:
	 * packets 4, 5, 6 are whole, 0..3 overwritten. */
	flushes = pauses = resumes = 0;
	put_chunk = 5;
	put_budget = 100;
	send_cmd(&t, HT_SPC_DUMP_TRACE, 1, NULL, 0);
	CHECK(ht_serial_target_poll(&t) == 1);
	CHECK(flushes == 1 && pauses == 1 && resumes == 0);
	/* A command meanwhile: BUSY. */
	send_cmd(&t, HT_SPC_STATUS, 2, NULL, 0);
	for (i = 0; i < 10000 && ht_serial_target_poll(&t); i++) {
		put_budget = 50;
	}
	put_budget = 0xffffffffu;
	drain(&t);
	CHECK(resumes == 1 && bad_frames == 0);
	REQUIRE(nr_frames == first + 5u);
	CHECK(frames[first].type == HT_SP_PACKET &&
	      frames[first].p[0] == 0x44 && frames[first].size == 96);
	CHECK(frames[first + 1].type == HT_SP_REPLY &&
	      frames[first + 1].p[0] == HT_SPC_STATUS &&
	      status_of(&frames[first + 1]) == HT_SPS_BUSY);
	CHECK(frames[first + 2].type == HT_SP_PACKET &&
	      frames[first + 2].p[0] == 0x45);
	CHECK(frames[first + 3].type == HT_SP_PACKET &&
	      frames[first + 3].p[0] == 0x46 && frames[first + 3].size == 112);
	f = &frames[first + 4];
	CHECK(f->type == HT_SP_REPLY && f->p[0] == HT_SPC_DUMP_TRACE &&
	      status_of(f) == HT_SPS_OK && f->size == 12);
	CHECK(ht_sp_get32(f->p + 4) == 3);
	CHECK_MSG(ht_sp_get32(f->p + 8) == 4, "overwritten %u",
		  ht_sp_get32(f->p + 8));
	CHECK(ring->tail == 7);

	/* Again: only what came since. */
	produce(0x50, 64);
	f = command(&t, HT_SPC_DUMP_TRACE, 3, NULL, 0);
	REQUIRE(f);
	CHECK(ht_sp_get32(f->p + 4) == 1 && ht_sp_get32(f->p + 8) == 0);
	CHECK(frames[nr_frames - 2].type == HT_SP_PACKET &&
	      frames[nr_frames - 2].p[0] == 0x50);

	/*
	 * Without pause(): function tracing is off during the dump, back
	 * on after. Packet 8's frame was started when the producer went
	 * past it: it ends with a wrong CRC (the host drops it); packet 9
	 * is skipped. Both count as overwritten.
	 */
	t.cfg.ops = &(struct ht_serial_target_ops){
	    .put = t_put, .clock = t_clock, .flush = t_flush};
	produce(0x60, 64);
	produce(0x61, 64);
	send_cmd(&t, HT_SPC_DUMP_TRACE, 4, NULL, 0);
	put_budget = 0;
	(void)ht_serial_target_poll(&t);
	CHECK(instr.disabled);
	/* The producer runs on: packets 8 and 9 are gone before they
	 * could be sent. */
	produce(0x62, 64);
	produce(0x63, 64);
	produce(0x64, 64);
	produce(0x65, 64);
	put_budget = 0xffffffffu;
	drain(&t);
	CHECK(!instr.disabled);
	f = &frames[nr_frames - 1];
	CHECK(f->type == HT_SP_REPLY && f->p[0] == HT_SPC_DUMP_TRACE);
	CHECK_MSG(ht_sp_get32(f->p + 4) == 0 && ht_sp_get32(f->p + 8) == 2,
		  "sent %u overwritten %u", ht_sp_get32(f->p + 4),
		  ht_sp_get32(f->p + 8));
	CHECK(bad_frames == 1);
}

int main(void)
{
	test_commands();
	test_retained();
	test_sync();
	test_order();
	test_rx_faults();
	test_dump();
	return check_summary("t-serial-target");
}
