/* SPDX-License-Identifier: MIT */
/*
 * bench/serial.sh's target: a program that speaks the serial link
 * (include/hetrace/serial-proto.h) on a unix socket as fast as it can.
 *
 *   sender SOCKET METADATA PACKETS PACKET_SIZE N
 *
 * It listens on SOCKET, answers the host's HELLO, METADATA and FLUSH
 * (other commands: HT_SPS_UNKNOWN) and sync requests, and sends N
 * PACKET frames: the PACKET_SIZE-byte packets of the file PACKETS (a
 * recorded stream), over and over, each encoded with
 * runtime/serial-frame.c's encoder. Between two frames it takes what
 * the host sent. Then it prints "frames N bytes B wire W seconds S"
 * (B: packet bytes, W: bytes on the line, S: from the first frame to
 * the last one taken by the socket) and serves commands until the host
 * closes the line.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "hetrace/serial-proto.h"

static int fd = -1;
static uint16_t seq;
static char *meta;
static uint32_t meta_len;
static uint8_t wire[HT_SP_ENCODED_MAX(HT_SP_BODY_MIN + HT_SP_PAYLOAD_MAX)];
static uint8_t rxbuf[HT_SP_BODY_MIN + 512];
static struct ht_frame_dec dec;
static uint32_t sync_n;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t now_ns(void)
{
	return (uint64_t)(now() * 1e9);
}

static void send_all(const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w <= 0) {
			exit(0); /* the host went away */
		}
		p += w;
		n -= (size_t)w;
	}
}

static uint32_t send_frame(uint8_t type, const void *p, uint32_t n)
{
	uint32_t len = ht_frame_encode(wire, sizeof(wire), type, seq++, p, n);

	send_all(wire, len);
	return len;
}

static void reply(uint8_t cmd, uint16_t tag, uint8_t status, const void *d,
		  uint32_t n)
{
	uint8_t p[HT_SP_CMD_HDR + 8 + HT_SP_METADATA_CHUNK];

	p[0] = cmd;
	p[1] = status;
	ht_sp_put16(p + 2, tag);
	memcpy(p + HT_SP_CMD_HDR, d, n);
	send_frame(HT_SP_REPLY, p, HT_SP_CMD_HDR + n);
}

static void command(const uint8_t *p, uint32_t n)
{
	uint8_t h[HT_SP_HELLO_SIZE] = {0}, m[8 + HT_SP_METADATA_CHUNK];
	uint16_t tag;
	uint32_t off, k;

	if (n < HT_SP_CMD_HDR) {
		return;
	}
	tag = ht_sp_get16(p + 2);
	switch (p[0]) {
	case HT_SPC_HELLO:
		h[0] = HT_SP_MAJOR;
		h[1] = HT_SP_MINOR;
		ht_sp_put32(h + 4, 1);
		ht_sp_put64(h + 8, 1000000000u);
		ht_sp_put32(h + 16, meta_len);
		ht_sp_put32(h + 20, ht_crc32(0, meta, meta_len));
		memcpy(h + 52, "bench", 5);
		reply(p[0], tag, HT_SPS_OK, h, sizeof(h));
		break;
	case HT_SPC_METADATA:
		off = n >= 8 ? ht_sp_get32(p + 4) : 0;
		off = off > meta_len ? meta_len : off;
		k = meta_len - off;
		k = k > HT_SP_METADATA_CHUNK ? HT_SP_METADATA_CHUNK : k;
		ht_sp_put32(m, off);
		ht_sp_put32(m + 4, meta_len);
		memcpy(m + 8, meta + off, k);
		reply(p[0], tag, HT_SPS_OK, m, 8 + k);
		break;
	case HT_SPC_FLUSH:
		reply(p[0], tag, HT_SPS_OK, NULL, 0);
		break;
	default:
		reply(p[0], tag, HT_SPS_UNKNOWN, NULL, 0);
		break;
	}
}

/* What the host sent: commands and sync requests. */
static void take(int timeout_ms)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	uint8_t buf[4096], s[HT_SP_SYNC_SIZE] = {0};
	ssize_t got, i;

	if (poll(&pfd, 1, timeout_ms) <= 0) {
		return;
	}
	got = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (got == 0) {
		exit(0);
	}
	for (i = 0; i < got; i++) {
		switch (ht_frame_dec_byte(&dec, buf[i])) {
		case HT_FRAME_IDLE:
			ht_sp_put32(s, sync_n);
			ht_sp_put64(s + 8, now_ns());
			sync_n += 2;
			send_frame(HT_SP_SYNC, s, sizeof(s));
			break;
		case HT_FRAME_OK:
			if (ht_frame_dec_type(&dec) == HT_SP_CMD) {
				command(ht_frame_dec_payload(&dec),
					ht_frame_dec_size(&dec));
			}
			break;
		default:
			break;
		}
	}
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0) {
		perror(path);
		exit(1);
	}
	rewind(f);
	p = malloc((size_t)n + 1);
	if (!p || fread(p, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(1);
	}
	fclose(f);
	p[n] = '\0';
	*len = (size_t)n;
	return p;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	uint64_t bytes = 0, wire_bytes = 0;
	size_t plen, mlen, size, nr, k;
	unsigned long n, i;
	char *pk;
	double t0, t1;
	int ls;

	if (argc != 6) {
		fprintf(stderr, "usage: sender SOCKET METADATA PACKETS "
				"PACKET_SIZE N\n");
		return 2;
	}
	meta = slurp(argv[2], &mlen);
	meta_len = (uint32_t)mlen;
	pk = slurp(argv[3], &plen);
	size = strtoul(argv[4], NULL, 10);
	n = strtoul(argv[5], NULL, 10);
	nr = size ? plen / size : 0;
	if (!nr || size > HT_SP_PAYLOAD_MAX) {
		fprintf(stderr, "sender: no packet of %zu bytes\n", size);
		return 1;
	}
	ht_frame_dec_init(&dec, rxbuf, sizeof(rxbuf));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	ls = socket(AF_UNIX, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(ls, 1)) {
		perror(argv[1]);
		return 1;
	}
	fd = accept(ls, NULL, NULL);
	/* HELLO and the metadata first. */
	t0 = now();
	while (now() - t0 < 0.5) {
		take(10);
	}
	t0 = now();
	for (i = 0, k = 0; i < n; i++, k = (k + 1) % nr) {
		wire_bytes +=
		    send_frame(HT_SP_PACKET, pk + k * size, (uint32_t)size);
		bytes += size;
		take(0);
	}
	t1 = now();
	printf("frames %lu bytes %llu wire %llu seconds %.6f\n", n,
	       (unsigned long long)bytes, (unsigned long long)wire_bytes,
	       t1 - t0);
	fflush(stdout);
	for (;;) {
		take(1000);
	}
}
