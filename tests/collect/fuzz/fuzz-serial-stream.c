/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the host's end of the serial link
 * (host/collect/serial-line.h). The input is what a target sends: any
 * bytes (frames, garbage, a frame cut short). They go into one end of a
 * socketpair, whose other end is the line; the host then says HELLO,
 * fetches the metadata, runs a sync round and pumps until the line
 * ends. Every call must return (the end of the bytes is a line that
 * closed: HT_EIO), the sink sees only whole frames within the payload
 * limit, and the counters add up. The seeds are made of the frames a
 * target sends (tests/collect/fuzz/seeds/fuzz-serial-stream/).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hetrace/serial-proto.h"
#include "host/collect/serial-line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t seen;

static void on_packet(void *arg, const uint8_t *p, uint32_t n)
{
	(void)arg;
	if (n > HT_SP_PAYLOAD_MAX) {
		abort();
	}
	if (n) {
		seen += p[0] + p[n - 1];
	}
}

static void on_log(void *arg, const char *text, uint32_t n)
{
	(void)arg;
	if (n) {
		seen += (uint8_t)text[n - 1];
	}
}

static void on_hello(void *arg, const struct ht_serial_hello *h)
{
	(void)arg;
	if (h->build_id_len > 20 || h->name[16]) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ht_serial_sink sink = {on_packet, on_log, on_hello, NULL};
	const struct ht_serial_stats *st;
	struct ht_serial_hello h;
	struct ht_serial *s;
	uint64_t t0, t1, tt;
	uint32_t n;
	char err[512], *meta;
	size_t len;
	int sv[2];
	ssize_t w;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		return 0;
	}
	(void)fcntl(sv[1], F_SETFL, O_NONBLOCK);
	/* What fits in the socket's buffer: the rest is cut off, as a
	 * line that closes mid-frame. */
	w = size ? write(sv[1], data, size) : 0;
	(void)w;
	shutdown(sv[1], SHUT_WR);
	if (ht_serial_open_fd(sv[0], "fuzz", &s, err, sizeof(err))) {
		close(sv[1]);
		return 0;
	}
	ht_serial_set_sink(s, &sink);
	if (!ht_serial_hello(s, &h, 50, err, sizeof(err)) &&
	    !ht_serial_metadata(s, &meta, &len, err, sizeof(err))) {
		if (strlen(meta) > len) {
			abort();
		}
		free(meta);
	}
	(void)ht_serial_sync(s, &t0, &t1, &n, &tt, 50, err, sizeof(err));
	while (!ht_serial_pump(s, 50, err, sizeof(err))) {
	}
	st = ht_serial_stats(s);
	if (st->packets + st->hellos > st->frames) {
		abort();
	}
	ht_serial_close(s);
	close(sv[1]);
	return 0;
}
