/* SPDX-License-Identifier: MIT */
/*
 * The host's end of a serial link (serial-line.h). One thread; the
 * descriptor is non-blocking and every wait is a poll() bounded by the
 * caller's deadline. Bytes come in by blocks of up to RBUF_SIZE and go
 * through the shared decoder (runtime/serial-frame.c) one at a time in
 * memory; a call that waits for one frame (a reply, a SYNC) returns as
 * soon as that frame is decoded and leaves the bytes after it in the
 * buffer for the next call, so frames are always handled in order.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "hetrace/serial-proto.h"
#include "serial-line.h"

#define RBUF_SIZE (64u * 1024u)
#define FRAME_CAP (HT_SP_HDR + HT_SP_PAYLOAD_MAX + HT_SP_CRC)

/* What a wait is for. */
enum want { WANT_NONE, WANT_REPLY, WANT_SYNC };

struct ht_serial {
	int fd;
	char *name;
	bool lost;
	char lost_msg[200];

	uint8_t rbuf[RBUF_SIZE];
	uint32_t rpos, rlen;
	uint8_t *frame; /* the decoder's buffer, FRAME_CAP bytes */
	struct ht_frame_dec dec;

	uint16_t tx_seq;
	uint16_t tag;
	bool rx_seq_valid;
	uint16_t rx_seq;

	struct ht_serial_sink sink;
	struct ht_serial_stats st;
	struct ht_serial_hello hello;
	bool have_hello;

	/* The wait in progress. */
	enum want want;
	uint16_t want_tag;
	bool got;
	uint8_t *reply; /* a copy of the reply's data, FRAME_CAP bytes */
	uint32_t reply_size;
	uint8_t reply_status;
	uint32_t sync_n;
	uint64_t sync_t, sync_recv_ns;
};

uint64_t ht_serial_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *ht_serial_cmd_name(uint8_t cmd)
{
	static const char *const names[] = {
	    [HT_SPC_HELLO] = "hello",
	    [HT_SPC_PING] = "ping",
	    [HT_SPC_STATUS] = "status",
	    [HT_SPC_ENABLE] = "enable",
	    [HT_SPC_DISABLE] = "disable",
	    [HT_SPC_TRIGGER] = "trigger",
	    [HT_SPC_STOPPER] = "stopper",
	    [HT_SPC_COUPLE] = "couple",
	    [HT_SPC_PROFILE] = "profile",
	    [HT_SPC_PROFILE_TO_TRACE] = "profile-to-trace",
	    [HT_SPC_DUMP_TRACE] = "dump-trace",
	    [HT_SPC_FLUSH] = "flush",
	    [HT_SPC_METADATA] = "metadata",
	    [HT_SPC_REBOOT] = "reboot",
	    [HT_SPC_CLEAR] = "clear",
	};
	static char other[8];

	if (cmd < sizeof(names) / sizeof(names[0]) && names[cmd]) {
		return names[cmd];
	}
	snprintf(other, sizeof(other), "0x%02x", cmd);
	return other;
}

/* ---- Opening ---- */

/* The termios speed of @baud; false for a rate termios does not name. */
static bool baud_speed(uint32_t baud, speed_t *speed)
{
	static const struct {
		uint32_t baud;
		speed_t speed;
	} speeds[] = {
	    {1200, B1200},	 {2400, B2400},	      {4800, B4800},
	    {9600, B9600},	 {19200, B19200},     {38400, B38400},
	    {57600, B57600},	 {115200, B115200},   {230400, B230400},
	    {460800, B460800},	 {500000, B500000},   {576000, B576000},
	    {921600, B921600},	 {1000000, B1000000}, {1152000, B1152000},
	    {1500000, B1500000}, {2000000, B2000000}, {2500000, B2500000},
	    {3000000, B3000000}, {3500000, B3500000}, {4000000, B4000000},
	};
	size_t i;

	for (i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		if (speeds[i].baud == baud) {
			*speed = speeds[i].speed;
			return true;
		}
	}
	return false;
}

int ht_serial_open_tty(const char *path, uint32_t baud, int *fd, char *err,
		       size_t len)
{
	struct termios tio;
	speed_t speed = B115200;

	if (baud && !baud_speed(baud, &speed)) {
		return ht_err_printf(err, len, HT_EINVAL,
				     "%s: %u baud: not a standard rate", path,
				     baud);
	}
	*fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0) {
		return ht_err_printf(err, len, HT_EIO, "%s: %s", path,
				     strerror(errno));
	}
	if (tcgetattr(*fd, &tio) != 0) {
		ht_err_printf(err, len, HT_EIO, "%s: not a terminal: %s", path,
			      strerror(errno));
		goto close_fd;
	}
	cfmakeraw(&tio);
	tio.c_cflag |= CLOCAL | CREAD;
	tio.c_cc[VMIN] = 1;
	tio.c_cc[VTIME] = 0;
	if (baud) {
		cfsetispeed(&tio, speed);
		cfsetospeed(&tio, speed);
	}
	if (tcsetattr(*fd, TCSANOW, &tio) != 0) {
		ht_err_printf(err, len, HT_EIO,
			      "%s: cannot set %u baud raw: %s", path, baud,
			      strerror(errno));
		goto close_fd;
	}
	return 0;

close_fd:
	close(*fd);
	*fd = -1;
	return HT_EIO;
}

int ht_serial_connect(const char *path, const char *host, unsigned port,
		      int *fd, char *err, size_t len)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai, *a;
	char portstr[8];
	int one = 1, ret, e = 0;

	*fd = -1;
	if (path) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};

		if (strlen(path) >= sizeof(sa.sun_path)) {
			return ht_err_printf(err, len, HT_EINVAL,
					     "%s: path too long", path);
		}
		strcpy(sa.sun_path, path);
		*fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (*fd < 0 ||
		    connect(*fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
			e = errno;
			if (*fd >= 0) {
				close(*fd);
			}
			*fd = -1;
			return ht_err_printf(err, len, HT_EIO,
					     "%s: cannot connect: %s", path,
					     strerror(e));
		}
		return 0;
	}
	snprintf(portstr, sizeof(portstr), "%u", port);
	ret = getaddrinfo(host, portstr, &hints, &ai);
	if (ret) {
		return ht_err_printf(err, len, HT_EIO, "%s:%u: %s", host, port,
				     gai_strerror(ret));
	}
	for (a = ai; a; a = a->ai_next) {
		*fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC,
			     a->ai_protocol);
		if (*fd >= 0 && connect(*fd, a->ai_addr, a->ai_addrlen) == 0) {
			break;
		}
		e = errno;
		if (*fd >= 0) {
			close(*fd);
		}
		*fd = -1;
	}
	freeaddrinfo(ai);
	if (*fd < 0) {
		return ht_err_printf(err, len, HT_EIO,
				     "%s:%u: cannot connect: %s", host, port,
				     strerror(e));
	}
	(void)setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

/* "123" -> 123 in *v; false when not all digits or out of range. */
static bool parse_uint(const char *s, uint32_t max, uint32_t *v)
{
	unsigned long x;
	char *end;

	if (!*s || *s < '0' || *s > '9') {
		return false;
	}
	errno = 0;
	x = strtoul(s, &end, 10);
	if (*end || errno || x > max) {
		return false;
	}
	*v = (uint32_t)x;
	return true;
}

/* tcp:HOST:PORT or HOST:PORT (@hp), [v6]:PORT too. */
static int open_tcp(const char *target, const char *hp, int *fd, char *err,
		    size_t len)
{
	const char *colon = strrchr(hp, ':');
	char host[256];
	uint32_t port;
	size_t hl;
	char e[256];
	int ret;

	if (!colon || !parse_uint(colon + 1, 65535, &port) || !port ||
	    colon == hp) {
		return ht_err_printf(err, len, HT_EINVAL,
				     "%s: expected HOST:PORT", target);
	}
	hl = (size_t)(colon - hp);
	if (hp[0] == '[' && hl >= 2 && hp[hl - 1] == ']') {
		hp++;
		hl -= 2;
	}
	if (hl >= sizeof(host)) {
		return ht_err_printf(err, len, HT_EINVAL,
				     "%s: host name too long", target);
	}
	memcpy(host, hp, hl);
	host[hl] = '\0';
	ret = ht_serial_connect(NULL, host, port, fd, e, sizeof(e));
	if (ret) {
		return ht_err_printf(err, len, ret, "%s", e);
	}
	return 0;
}

/* Opens @target into *fd: the forms of ht_serial_open(). */
static int open_target(const char *target, int *fd, char *err, size_t len)
{
	const char *colon;
	struct stat sb;
	char path[4096], e[512];
	uint32_t baud = 115200;
	int ret;

	if (!strncmp(target, "unix:", 5)) {
		ret = ht_serial_connect(target + 5, NULL, 0, fd, e, sizeof(e));
		return ret ? ht_err_printf(err, len, ret, "%s", e) : 0;
	}
	if (!strncmp(target, "tcp:", 4)) {
		return open_tcp(target, target + 4, fd, err, len);
	}
	if (!strncmp(target, "pty:", 4)) {
		ret = ht_serial_open_tty(target + 4, 0, fd, e, sizeof(e));
		return ret ? ht_err_printf(err, len, ret, "%s", e) : 0;
	}
	if (!*target) {
		return ht_err_printf(err, len, HT_EINVAL, "empty TARGET");
	}
	/* HOST:PORT: no slash, a numeric port. */
	colon = strrchr(target, ':');
	if (!strchr(target, '/') && colon) {
		return open_tcp(target, target, fd, err, len);
	}
	/* PATH[:BAUD] */
	if (strlen(target) >= sizeof(path)) {
		return ht_err_printf(err, len, HT_EINVAL, "%s: path too long",
				     target);
	}
	strcpy(path, target);
	colon = strrchr(path, ':');
	if (colon && !strchr(colon, '/')) {
		if (!parse_uint(colon + 1, 100000000, &baud)) {
			return ht_err_printf(err, len, HT_EINVAL,
					     "%s: '%s' is not a baud rate",
					     target, colon + 1);
		}
		path[colon - path] = '\0';
	}
	if (stat(path, &sb) == 0 && S_ISSOCK(sb.st_mode)) {
		ret = ht_serial_connect(path, NULL, 0, fd, e, sizeof(e));
		return ret ? ht_err_printf(err, len, ret, "%s", e) : 0;
	}
	/* A pseudo-terminal has no baud rate. */
	if (!strncmp(path, "/dev/pts/", 9) && !colon) {
		baud = 0;
	}
	ret = ht_serial_open_tty(path, baud, fd, e, sizeof(e));
	return ret ? ht_err_printf(err, len, ret, "%s", e) : 0;
}

int ht_serial_open_fd(int fd, const char *name, struct ht_serial **out,
		      char *err, size_t len)
{
	struct ht_serial *s = calloc(1, sizeof(*s));
	int fl;

	*out = NULL;
	if (s) {
		s->name = strdup(name);
		s->frame = malloc(FRAME_CAP);
		s->reply = malloc(FRAME_CAP);
	}
	if (!s || !s->name || !s->frame || !s->reply) {
		if (s) {
			free(s->name);
			free(s->frame);
			free(s->reply);
			free(s);
		}
		close(fd);
		return ht_err_printf(err, len, HT_ENOMEM, "out of memory");
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0) {
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	}
	s->fd = fd;
	ht_frame_dec_init(&s->dec, s->frame, FRAME_CAP);
	*out = s;
	return 0;
}

int ht_serial_open(const char *target, struct ht_serial **out, char *err,
		   size_t len)
{
	int fd, ret;

	*out = NULL;
	ret = open_target(target, &fd, err, len);
	if (ret) {
		return ret;
	}
	return ht_serial_open_fd(fd, target, out, err, len);
}

void ht_serial_close(struct ht_serial *s)
{
	if (!s) {
		return;
	}
	if (s->fd >= 0) {
		close(s->fd);
	}
	free(s->name);
	free(s->frame);
	free(s->reply);
	free(s);
}

void ht_serial_set_sink(struct ht_serial *s, const struct ht_serial_sink *sink)
{
	if (sink) {
		s->sink = *sink;
	} else {
		memset(&s->sink, 0, sizeof(s->sink));
	}
}

const struct ht_serial_stats *ht_serial_stats(const struct ht_serial *s)
{
	return &s->st;
}

const char *ht_serial_name(const struct ht_serial *s)
{
	return s->name;
}

int ht_serial_fd(const struct ht_serial *s)
{
	return s->lost ? -1 : s->fd;
}

/* ---- Decoding ---- */

static void parse_hello(const uint8_t *p, struct ht_serial_hello *h)
{
	uint32_t n;

	memset(h, 0, sizeof(*h));
	h->major = p[0];
	h->minor = p[1];
	h->flags = ht_sp_get16(p + 2);
	h->core_id = ht_sp_get32(p + 4);
	h->clock_hz = ht_sp_get64(p + 8);
	h->metadata_size = ht_sp_get32(p + 16);
	h->metadata_crc = ht_sp_get32(p + 20);
	h->boot_count = ht_sp_get32(p + 24);
	n = p[28] > 20 ? 20 : p[28];
	h->build_id_len = n;
	memcpy(h->build_id, p + 32, n);
	memcpy(h->name, p + 52, 16);
	h->name[16] = '\0';
}

/* Copies the decoder's counters into the stats. */
static void sync_counts(struct ht_serial *s)
{
	s->st.frames = s->dec.frames;
	s->st.crc_errs = s->dec.crc_errs;
	s->st.cobs_errs = s->dec.cobs_errs;
	s->st.runts = s->dec.runts;
	s->st.too_long = s->dec.too_long;
	s->st.dropped_bytes = s->dec.dropped_bytes;
}

/* A good frame: returns true when it is the one the wait is for. */
static bool dispatch(struct ht_serial *s)
{
	uint8_t type = ht_frame_dec_type(&s->dec);
	uint16_t seq = ht_frame_dec_seq(&s->dec);
	const uint8_t *p = ht_frame_dec_payload(&s->dec);
	uint32_t n = ht_frame_dec_size(&s->dec);
	struct ht_serial_hello h;

	/* A HELLO frame starts the target's numbering again (a boot). */
	if (s->rx_seq_valid && type != HT_SP_HELLO) {
		uint16_t gap = (uint16_t)(seq - (uint16_t)(s->rx_seq + 1u));

		s->st.lost += gap;
	}
	s->rx_seq = seq;
	s->rx_seq_valid = true;

	switch (type) {
	case HT_SP_PACKET:
		s->st.packets++;
		if (s->sink.packet) {
			s->sink.packet(s->sink.arg, p, n);
		}
		return false;
	case HT_SP_LOG:
		if (s->sink.log) {
			s->sink.log(s->sink.arg, (const char *)p, n);
		}
		return false;
	case HT_SP_HELLO:
		if (n < HT_SP_HELLO_SIZE) {
			s->st.unexpected++;
			return false;
		}
		s->st.hellos++;
		parse_hello(p, &h);
		s->hello = h;
		s->have_hello = true;
		if (s->sink.hello) {
			s->sink.hello(s->sink.arg, &h);
		}
		return false;
	case HT_SP_SYNC:
		if (s->want != WANT_SYNC || n < HT_SP_SYNC_SIZE) {
			/* A late answer to a round given up: its request
			 * time is no longer known. */
			s->st.unexpected++;
			return false;
		}
		s->sync_recv_ns = ht_serial_now_ns();
		s->sync_n = ht_sp_get32(p);
		s->sync_t = ht_sp_get64(p + 8);
		s->got = true;
		return true;
	case HT_SP_REPLY:
		if (s->want != WANT_REPLY || n < HT_SP_CMD_HDR ||
		    ht_sp_get16(p + 2) != s->want_tag) {
			s->st.unexpected++;
			return false;
		}
		s->reply_status = p[1];
		s->reply_size = n - HT_SP_CMD_HDR;
		memcpy(s->reply, p + HT_SP_CMD_HDR, s->reply_size);
		s->got = true;
		return true;
	default:
		s->st.unexpected++;
		return false;
	}
}

/* Decodes the buffered bytes; stops after the frame the wait is for. */
static void decode(struct ht_serial *s)
{
	while (s->rpos < s->rlen) {
		int r = ht_frame_dec_byte(&s->dec, s->rbuf[s->rpos++]);

		if (r == HT_FRAME_OK && dispatch(s)) {
			break;
		}
	}
	sync_counts(s);
}

static int line_lost(struct ht_serial *s, char *err, size_t len,
		     const char *why)
{
	if (!s->lost) {
		s->lost = true;
		snprintf(s->lost_msg, sizeof(s->lost_msg),
			 "the line closed (%s)", why);
	}
	return ht_err_printf(err, len, HT_EIO, "%s: %s", s->name, s->lost_msg);
}

/*
 * One read into the emptied buffer: 1 when bytes came, 0 when none
 * were there, HT_EIO when the line went away.
 */
static int fill(struct ht_serial *s, char *err, size_t len)
{
	ssize_t got;

	if (s->rpos < s->rlen) {
		return 1;
	}
	s->rpos = 0;
	s->rlen = 0;
	got = read(s->fd, s->rbuf, sizeof(s->rbuf));
	if (got > 0) {
		s->rlen = (uint32_t)got;
		s->st.bytes += (uint64_t)got;
		return 1;
	}
	if (got == 0) {
		return line_lost(s, err, len, "end of file");
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
		return 0;
	}
	return line_lost(s, err, len, strerror(errno));
}

static int remaining_ms(uint64_t deadline)
{
	uint64_t now = ht_serial_now_ns();

	if (now >= deadline) {
		return 0;
	}
	return (int)((deadline - now + 999999u) / 1000000u);
}

/*
 * Reads and decodes until the awaited frame (s->want) came or
 * @deadline (CLOCK_MONOTONIC ns) passed. Returns 1 when it came, 0 at
 * the deadline, HT_EIO when the line went away.
 */
static int wait_frame(struct ht_serial *s, uint64_t deadline, char *err,
		      size_t len)
{
	struct pollfd pfd = {.fd = s->fd, .events = POLLIN};
	int ret, ms;

	if (s->lost) {
		return ht_err_printf(err, len, HT_EIO, "%s: %s", s->name,
				     s->lost_msg);
	}
	for (;;) {
		decode(s);
		if (s->want != WANT_NONE && s->got) {
			return 1;
		}
		ret = fill(s, err, len);
		if (ret < 0) {
			return ret;
		}
		if (ret > 0) {
			/* Garbage forever still ends at the deadline. */
			if (ht_serial_now_ns() >= deadline) {
				decode(s);
				return s->want != WANT_NONE && s->got;
			}
			continue;
		}
		ms = remaining_ms(deadline);
		if (ms == 0) {
			return 0;
		}
		ret = poll(&pfd, 1, ms);
		if (ret < 0 && errno != EINTR) {
			return line_lost(s, err, len, strerror(errno));
		}
		/* A hangup or an error: the read says which. */
	}
}

/* Writes @n bytes by the deadline, reading meanwhile. */
static int write_all(struct ht_serial *s, const uint8_t *p, uint32_t n,
		     uint64_t deadline, const char *what, char *err, size_t len)
{
	struct pollfd pfd = {.fd = s->fd, .events = POLLOUT};
	ssize_t w;

	if (s->lost) {
		return ht_err_printf(err, len, HT_EIO, "%s: %s", s->name,
				     s->lost_msg);
	}
	while (n) {
		w = send(s->fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == ENOTSOCK) {
			w = write(s->fd, p, n);
		}
		if (w > 0) {
			p += w;
			n -= (uint32_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR) {
			return line_lost(s, err, len, strerror(errno));
		}
		if (remaining_ms(deadline) == 0) {
			return ht_err_printf(err, len, HT_ETIMEDOUT,
					     "%s: cannot send '%s': the line "
					     "takes nothing",
					     s->name, what);
		}
		(void)poll(&pfd, 1, 10);
	}
	return 0;
}

int ht_serial_pump(struct ht_serial *s, int timeout_ms, char *err, size_t len)
{
	uint64_t deadline =
	    ht_serial_now_ns() +
	    (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000u;
	int ret;

	s->want = WANT_NONE;
	ret = wait_frame(s, deadline, err, len);
	return ret < 0 ? ret : 0;
}

int ht_serial_command(struct ht_serial *s, uint8_t cmd, const void *args,
		      uint32_t n, struct ht_serial_reply *reply, int timeout_ms,
		      char *err, size_t len)
{
	uint8_t body[HT_SP_CMD_HDR + 256];
	uint8_t wire[HT_SP_ENCODED_MAX(HT_SP_BODY_MIN + sizeof(body))];
	uint64_t start = ht_serial_now_ns();
	uint64_t deadline = start + (uint64_t)timeout_ms * 1000000u;
	uint32_t wlen;
	int ret;

	if (n > sizeof(body) - HT_SP_CMD_HDR) {
		return ht_err_printf(err, len, HT_EINVAL,
				     "%s: '%s': %u bytes of arguments (at "
				     "most %zu)",
				     s->name, ht_serial_cmd_name(cmd), n,
				     sizeof(body) - HT_SP_CMD_HDR);
	}
	s->tag++;
	body[0] = cmd;
	body[1] = 0;
	ht_sp_put16(body + 2, s->tag);
	if (n) {
		memcpy(body + HT_SP_CMD_HDR, args, n);
	}
	wlen = ht_frame_encode(wire, sizeof(wire), HT_SP_CMD, s->tx_seq++, body,
			       HT_SP_CMD_HDR + n);
	/* What came before the command is dispatched first. */
	ret = ht_serial_pump(s, 0, err, len);
	if (ret) {
		return ret;
	}
	ret = write_all(s, wire, wlen, deadline, ht_serial_cmd_name(cmd), err,
			len);
	if (ret) {
		return ret;
	}
	s->want = WANT_REPLY;
	s->want_tag = s->tag;
	s->got = false;
	ret = wait_frame(s, deadline, err, len);
	s->want = WANT_NONE;
	if (ret < 0) {
		return ret;
	}
	if (!ret) {
		return ht_err_printf(
		    err, len, HT_ETIMEDOUT, "%s: no reply to '%s' in %.1f s",
		    s->name, ht_serial_cmd_name(cmd), (double)timeout_ms / 1e3);
	}
	reply->status = s->reply_status;
	reply->data = s->reply;
	reply->size = s->reply_size;
	return 0;
}

int ht_serial_hello(struct ht_serial *s, struct ht_serial_hello *h,
		    int timeout_ms, char *err, size_t len)
{
	const uint8_t args[2] = {HT_SP_MAJOR, HT_SP_MINOR};
	struct ht_serial_reply r;
	int ret;

	ret = ht_serial_command(s, HT_SPC_HELLO, args, sizeof(args), &r,
				timeout_ms, err, len);
	if (ret) {
		return ret;
	}
	if (r.size < HT_SP_HELLO_SIZE) {
		return ht_err_printf(err, len, HT_EFORMAT,
				     "%s: 'hello': a reply of %u bytes "
				     "(expected %u)",
				     s->name, r.size, HT_SP_HELLO_SIZE);
	}
	parse_hello(r.data, h);
	if (h->major != HT_SP_MAJOR || r.status == HT_SPS_VERSION) {
		return ht_err_printf(err, len, HT_EFORMAT,
				     "%s: protocol version mismatch: the "
				     "target speaks %u.%u, hetrace %u.%u",
				     s->name, h->major, h->minor, HT_SP_MAJOR,
				     HT_SP_MINOR);
	}
	if (r.status != HT_SPS_OK) {
		return ht_err_printf(err, len, HT_EFORMAT,
				     "%s: 'hello': status %u", s->name,
				     r.status);
	}
	s->hello = *h;
	s->have_hello = true;
	return 0;
}

int ht_serial_sync(struct ht_serial *s, uint64_t *t_send, uint64_t *t_recv,
		   uint32_t *n, uint64_t *t_target, int timeout_ms, char *err,
		   size_t len)
{
	static const uint8_t req = 0x00;
	uint64_t deadline;
	int ret;

	/* Frames already there go first: they were sent before. */
	ret = ht_serial_pump(s, 0, err, len);
	if (ret) {
		return ret;
	}
	s->want = WANT_SYNC;
	s->got = false;
	*t_send = ht_serial_now_ns();
	deadline = *t_send + (uint64_t)timeout_ms * 1000000u;
	ret = write_all(s, &req, 1, deadline, "sync", err, len);
	if (!ret) {
		ret = wait_frame(s, deadline, err, len);
	}
	s->want = WANT_NONE;
	if (ret < 0) {
		return ret;
	}
	if (!ret) {
		return ht_err_printf(err, len, HT_ETIMEDOUT,
				     "%s: no reply to 'sync' in %.1f s",
				     s->name, (double)timeout_ms / 1e3);
	}
	*t_recv = s->sync_recv_ns;
	*n = s->sync_n;
	*t_target = s->sync_t;
	return 0;
}

/* Times a metadata chunk is asked for before the line is given up. */
#define METADATA_TRIES 3

int ht_serial_metadata(struct ht_serial *s, char **text, size_t *len, char *err,
		       size_t elen)
{
	uint32_t total, off = 0, crc;
	struct ht_serial_reply r;
	uint8_t args[4];
	char *buf;
	int ret;

	*text = NULL;
	*len = 0;
	if (!s->have_hello) {
		return ht_err_printf(err, elen, HT_EINVAL,
				     "%s: the metadata before HELLO", s->name);
	}
	total = s->hello.metadata_size;
	if (!total || total > 64u << 20) {
		return ht_err_printf(err, elen, HT_EFORMAT,
				     "%s: the target has %u bytes of metadata",
				     s->name, total);
	}
	buf = malloc((size_t)total + 1);
	if (!buf) {
		return ht_err_printf(err, elen, HT_ENOMEM, "out of memory");
	}
	while (off < total) {
		uint32_t got_off, got_total, n;

		int tries = METADATA_TRIES;

		ht_sp_put32(args, off);
		/* A chunk is asked for again when its reply was damaged on
		 * the line (a timeout): the command has no side effect. */
		do {
			ret = ht_serial_command(s, HT_SPC_METADATA, args,
						sizeof(args), &r, 1000, err,
						elen);
		} while (ret == HT_ETIMEDOUT && --tries);
		if (ret) {
			goto free_buf;
		}
		if (r.status != HT_SPS_OK || r.size < 8) {
			ret = ht_err_printf(err, elen, HT_EFORMAT,
					    "%s: 'metadata' at offset %u: "
					    "status %u, %u bytes",
					    s->name, off, r.status, r.size);
			goto free_buf;
		}
		got_off = ht_sp_get32(r.data);
		got_total = ht_sp_get32(r.data + 4);
		n = r.size - 8;
		if (got_off != off || got_total != total || !n ||
		    n > total - off) {
			ret = ht_err_printf(
			    err, elen, HT_EFORMAT,
			    "%s: 'metadata' at offset %u: a chunk at offset "
			    "%u of %u bytes, total %u (HELLO said %u)",
			    s->name, off, got_off, n, got_total, total);
			goto free_buf;
		}
		memcpy(buf + off, r.data + 8, n);
		off += n;
	}
	crc = ht_crc32(0, buf, total);
	if (crc != s->hello.metadata_crc) {
		ret = ht_err_printf(err, elen, HT_EFORMAT,
				    "%s: the metadata's CRC-32 is 0x%08x, "
				    "HELLO said 0x%08x",
				    s->name, crc, s->hello.metadata_crc);
		goto free_buf;
	}
	buf[total] = '\0';
	*text = buf;
	*len = total;
	return 0;

free_buf:
	free(buf);
	return ret;
}
