/* SPDX-License-Identifier: MIT */
/*
 * The board file's reader (board.h, docs/board.md): YAML through
 * common/yaml-doc, placeholders substituted scalar by scalar, every key
 * checked against the keys its mapping allows, then the whole board
 * (one master, rings and registers inside their regions, no two rings
 * overlapping). The first error stops the load, as "file:line:col: ...".
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/file.h"
#include "hetrace/packet-ring.h"
#include "hetrace/ring-directory.h"
#include "hetrace/sync-slave.h"

/* A board file is small; more is a mistake (a binary given by error). */
#define BOARD_MAX_BYTES (4u << 20)
/* Placeholder names and substituted scalars stay short. */
#define SCALAR_MAX 4096u

struct parser {
	const char *file;
	const char *const *defines;
	struct ht_board *b;
	char *err;
	size_t err_len;
	int ret; /* first error, 0 while none */
};

static int fail(struct parser *p, const struct ht_src_loc *loc,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, const struct ht_src_loc *loc,
		const char *fmt, ...)
{
	char text[768];
	va_list ap;

	if (p->ret) {
		return p->ret;
	}
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	p->ret = ht_err_printf(p->err, p->err_len, HT_ECONFIG, "%s:%u:%u: %s",
			       p->file, loc->line, loc->col, text);
	return p->ret;
}

static int nomem(struct parser *p)
{
	if (!p->ret) {
		p->ret = ht_err_printf(p->err, p->err_len, HT_ENOMEM,
				       "%s: out of memory", p->file);
	}
	return p->ret;
}

/* The value of ${@name} (@len bytes) among the defines, or NULL. */
static const char *define_lookup(const struct parser *p, const char *name,
				 size_t len)
{
	const char *const *d;

	for (d = p->defines; d && *d; d++) {
		if (!strncmp(*d, name, len) && (*d)[len] == '=') {
			return *d + len + 1;
		}
	}
	return NULL;
}

/*
 * The text of scalar @n with its placeholders ${NAME} replaced, as a
 * malloc'ed string in *@out. `$$` stays a literal `$` only before `{`.
 */
static int scalar(struct parser *p, const struct ht_ynode *n, const char *what,
		  char **out)
{
	struct ht_buf buf = {0};
	const char *s, *end, *v;

	*out = NULL;
	if (n->kind != HT_YNODE_SCALAR || ht_ynode_is_null(n)) {
		return fail(p, &n->loc, "%s: expected a scalar, found %s",
			    what, ht_ynode_describe(n));
	}
	for (s = n->str; *s; s++) {
		if (s[0] != '$' || s[1] != '{') {
			ht_buf_putc(&buf, *s);
			continue;
		}
		end = strchr(s + 2, '}');
		if (!end || end == s + 2) {
			ht_buf_fini(&buf);
			return fail(p, &n->loc,
				    "%s: unterminated or empty placeholder "
				    "(write ${NAME})",
				    what);
		}
		v = define_lookup(p, s + 2, (size_t)(end - s - 2));
		if (!v) {
			ht_buf_fini(&buf);
			return fail(p, &n->loc,
				    "%s: placeholder ${%.*s} is not defined "
				    "(give --define %.*s=VALUE)",
				    what, (int)(end - s - 2), s + 2,
				    (int)(end - s - 2), s + 2);
		}
		ht_buf_puts(&buf, v);
		s = end;
		if (buf.len > SCALAR_MAX) {
			ht_buf_fini(&buf);
			return fail(p, &n->loc,
				    "%s: longer than %u bytes once "
				    "substituted",
				    what, SCALAR_MAX);
		}
	}
	*out = ht_buf_steal(&buf, NULL);
	if (!*out) {
		*out = strdup("");
	}
	return *out ? 0 : nomem(p);
}

static int string(struct parser *p, const struct ht_ynode *n, const char *what,
		  char **out)
{
	int ret = scalar(p, n, what, out);

	if (!ret && !**out) {
		free(*out);
		*out = NULL;
		return fail(p, &n->loc, "%s: empty", what);
	}
	return ret;
}

/* A size, offset or address: decimal or 0x hex, optional K/M/G suffix. */
static int number(struct parser *p, const struct ht_ynode *n, const char *what,
		  uint64_t max, uint64_t *v)
{
	unsigned long long x;
	char *s, *end;
	uint64_t mul = 1;
	int ret;

	ret = scalar(p, n, what, &s);
	if (ret) {
		return ret;
	}
	errno = 0;
	x = 0;
	if (isdigit((unsigned char)s[0])) {
		x = strtoull(s, &end, 0);
	} else {
		end = s;
	}
	if (end == s || errno) {
		ret = fail(p, &n->loc,
			   "%s: expected a number (decimal or 0x hex, with an "
			   "optional K, M or G), found '%s'",
			   what, s);
		goto out;
	}
	if (*end == 'K' || *end == 'k') {
		mul = 1ull << 10;
	} else if (*end == 'M') {
		mul = 1ull << 20;
	} else if (*end == 'G') {
		mul = 1ull << 30;
	}
	if (mul > 1) {
		end++;
	}
	if (*end) {
		ret = fail(p, &n->loc, "%s: '%s': unexpected '%s' after the number",
			   what, s, end);
		goto out;
	}
	if (x > max / mul) {
		ret = fail(p, &n->loc, "%s: %s is larger than %" PRIu64, what,
			   s, max);
		goto out;
	}
	*v = (uint64_t)x * mul;
out:
	free(s);
	return ret;
}

/* A duration: a number and a unit (ns, us, ms, s). */
static int duration(struct parser *p, const struct ht_ynode *n,
		    const char *what, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	char *s, *end;
	double x;
	size_t i;
	int ret;

	ret = scalar(p, n, what, &s);
	if (ret) {
		return ret;
	}
	errno = 0;
	x = isdigit((unsigned char)s[0]) ? strtod(s, &end) : -1;
	for (i = 0; x >= 0 && i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit)) {
			break;
		}
	}
	if (x < 0 || errno || i == sizeof(units) / sizeof(units[0])) {
		ret = fail(p, &n->loc,
			   "%s: expected a duration such as 10ms, 2s or "
			   "500us, found '%s'",
			   what, s);
	} else if (x * units[i].ns < 1 || x * units[i].ns > 3600e9) {
		ret = fail(p, &n->loc,
			   "%s: %s is out of range (1 ns to 1 hour)", what, s);
	} else {
		*ns = (uint64_t)(x * units[i].ns);
	}
	free(s);
	return ret;
}

static int boolean(struct parser *p, const struct ht_ynode *n,
		   const char *what, bool *v)
{
	char *s;
	int ret = scalar(p, n, what, &s);

	if (ret) {
		return ret;
	}
	if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on")) {
		*v = true;
	} else if (!strcmp(s, "false") || !strcmp(s, "no") ||
		   !strcmp(s, "off")) {
		*v = false;
	} else {
		ret = fail(p, &n->loc,
			   "%s: expected true or false, found '%s'", what, s);
	}
	free(s);
	return ret;
}

/*
 * Checks that @n is a mapping whose keys are all in @keys (NULL
 * terminated) and appear once.
 */
static int mapping(struct parser *p, const struct ht_ynode *n,
		   const char *what, const char *const *keys)
{
	const char *const *k;
	size_t i, j;

	if (n->kind != HT_YNODE_MAP) {
		return fail(p, &n->loc, "%s: expected a mapping, found %s",
			    what, ht_ynode_describe(n));
	}
	for (i = 0; i < n->nr; i++) {
		const struct ht_ynode *key = n->keys[i];

		if (key->kind != HT_YNODE_SCALAR || !key->str) {
			return fail(p, &key->loc, "%s: keys are names", what);
		}
		for (j = 0; j < i; j++) {
			if (!strcmp(n->keys[j]->str, key->str)) {
				return fail(p, &key->loc,
					    "%s: duplicate key '%s' (first "
					    "at line %u)",
					    what, key->str,
					    n->keys[j]->loc.line);
			}
		}
		for (k = keys; k && *k; k++) {
			if (!strcmp(*k, key->str)) {
				break;
			}
		}
		if (keys && !*k) {
			struct ht_buf list = {0};

			for (k = keys; *k; k++) {
				ht_buf_printf(&list, "%s%s",
					      k == keys ? "" : ", ", *k);
			}
			fail(p, &key->loc, "%s: unknown key '%s' (known: %s)",
			     what, key->str, list.data ? list.data : "");
			ht_buf_fini(&list);
			return p->ret;
		}
	}
	return 0;
}

static long region_index(const struct ht_board *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->nr_regions; i++) {
		if (!strcmp(b->regions[i].name, name)) {
			return (long)i;
		}
	}
	return -1;
}

/*
 * A place {region: R, offset: O[, size: S]} in *@pl; with @want_size
 * the size is required.
 */
static int place(struct parser *p, const struct ht_ynode *n, const char *what,
		 bool want_size, bool check_keys, struct ht_board_place *pl)
{
	static const char *const keys_sized[] = {"region", "offset", "size",
						 NULL};
	static const char *const keys[] = {"region", "offset", NULL};
	const struct ht_ynode *v;
	char *name = NULL;
	long r;
	int ret;

	memset(pl, 0, sizeof(*pl));
	pl->loc = n->loc;
	ret = check_keys ? mapping(p, n, what, want_size ? keys_sized : keys)
			 : 0;
	if (ret) {
		return ret;
	}
	v = ht_ynode_get(n, "region");
	if (!v) {
		return fail(p, &n->loc, "%s: 'region' is required", what);
	}
	ret = string(p, v, what, &name);
	if (ret) {
		return ret;
	}
	r = region_index(p->b, name);
	if (r < 0) {
		fail(p, &v->loc, "%s: no region named '%s' in 'regions'", what,
		     name);
		free(name);
		return p->ret;
	}
	free(name);
	pl->region = (size_t)r;
	v = ht_ynode_get(n, "offset");
	if (!v) {
		return fail(p, &n->loc, "%s: 'offset' is required", what);
	}
	ret = number(p, v, what, UINT64_MAX, &pl->offset);
	if (ret) {
		return ret;
	}
	if (want_size) {
		v = ht_ynode_get(n, "size");
		if (!v) {
			return fail(p, &n->loc, "%s: 'size' is required",
				    what);
		}
		ret = number(p, v, what, UINT64_MAX, &pl->size);
		if (!ret && !pl->size) {
			ret = fail(p, &v->loc, "%s: size 0", what);
		}
	}
	return ret;
}

/* Checks that [offset, offset + len) of @pl lies in its region. */
static int inside(struct parser *p, const struct ht_board_place *pl,
		  uint64_t len, const char *what)
{
	const struct ht_board_region *r = &p->b->regions[pl->region];

	if (pl->offset > r->size || len > r->size - pl->offset) {
		return fail(p, &pl->loc,
			    "%s at offset 0x%" PRIx64 " (%" PRIu64
			    " bytes) is outside region '%s' (%" PRIu64
			    " bytes)",
			    what, pl->offset, len, r->name, r->size);
	}
	return 0;
}

static int parse_region(struct parser *p, const struct ht_ynode *key,
			const struct ht_ynode *n, struct ht_board_region *r)
{
	static const char *const keys[] = {"shm",    "file", "devmem", "uio",
					   "offset", "map",  "size",   NULL};
	static const char *const kinds[] = {"shm", "file", "devmem", "uio"};
	const struct ht_ynode *v, *kind_node = NULL;
	char what[160];
	uint64_t x;
	int ret, k;

	r->loc = key->loc;
	snprintf(what, sizeof(what), "region '%s'", r->name);
	ret = mapping(p, n, what, keys);
	if (ret) {
		return ret;
	}
	for (k = 0; k < 4; k++) {
		v = ht_ynode_get(n, kinds[k]);
		if (!v) {
			continue;
		}
		if (kind_node) {
			return fail(p, &v->loc,
				    "%s: one of shm, file, devmem, uio (not "
				    "both %s and %s)",
				    what, kinds[r->kind], kinds[k]);
		}
		kind_node = v;
		r->kind = (enum ht_board_region_kind)k;
	}
	if (!kind_node) {
		return fail(p, &n->loc,
			    "%s: needs one of shm, file, devmem, uio", what);
	}
	if (r->kind == HT_BOARD_REGION_DEVMEM) {
		ret = number(p, kind_node, what, UINT64_MAX, &r->offset);
		if (!ret) {
			r->path = strdup("/dev/mem");
			ret = r->path ? 0 : nomem(p);
		}
	} else {
		ret = string(p, kind_node, what, &r->path);
	}
	if (ret) {
		return ret;
	}
	v = ht_ynode_get(n, "offset");
	if (v && r->kind != HT_BOARD_REGION_FILE) {
		return fail(p, &v->loc,
			    "%s: 'offset' is for file regions (devmem "
			    "takes the address)",
			    what);
	}
	if (v) {
		ret = number(p, v, what, UINT64_MAX, &r->offset);
		if (ret) {
			return ret;
		}
	}
	v = ht_ynode_get(n, "map");
	if (v && r->kind != HT_BOARD_REGION_UIO) {
		return fail(p, &v->loc, "%s: 'map' is for uio regions", what);
	}
	if (v) {
		ret = number(p, v, what, 4095, &x);
		if (ret) {
			return ret;
		}
		r->map = (uint32_t)x;
	}
	v = ht_ynode_get(n, "size");
	if (!v) {
		return fail(p, &n->loc, "%s: 'size' is required", what);
	}
	ret = number(p, v, what, UINT64_MAX, &r->size);
	if (!ret && !r->size) {
		ret = fail(p, &v->loc, "%s: size 0", what);
	}
	if (!ret && r->offset > UINT64_MAX - r->size) {
		ret = fail(p, &v->loc, "%s: offset + size passes 2^64", what);
	}
	return ret;
}

static int parse_regions(struct parser *p, const struct ht_ynode *n)
{
	struct ht_board *b = p->b;
	size_t i;
	int ret;

	ret = mapping(p, n, "regions", NULL);
	if (ret) {
		return ret;
	}
	if (!n->nr) {
		return fail(p, &n->loc, "regions: none given");
	}
	b->regions = calloc(n->nr, sizeof(*b->regions));
	if (!b->regions) {
		return nomem(p);
	}
	for (i = 0; i < n->nr; i++) {
		struct ht_board_region *r = &b->regions[i];

		r->name = strdup(n->keys[i]->str);
		if (!r->name) {
			return nomem(p);
		}
		b->nr_regions++;
		ret = parse_region(p, n->keys[i], n->items[i], r);
		if (ret) {
			return ret;
		}
	}
	return 0;
}

/* A signal by name (SIGUSR1, USR1) or number. */
static int signal_number(const char *s)
{
	static const struct {
		const char *name;
		int signo;
	} sigs[] = {{"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"HUP", SIGHUP},
		    {"INT", SIGINT},   {"ALRM", SIGALRM}, {"TERM", SIGTERM},
		    {"CONT", SIGCONT}, {"WINCH", SIGWINCH}, {"IO", SIGIO},
		    {"URG", SIGURG},   {"PIPE", SIGPIPE}};
	size_t i;
	char *end;
	long v;

	if (!strncmp(s, "SIG", 3)) {
		s += 3;
	}
	if (!strncmp(s, "RTMIN+", 6)) {
		v = strtol(s + 6, &end, 10);
		return *end || v < 0 || SIGRTMIN + v > SIGRTMAX
			   ? -1
			   : (int)(SIGRTMIN + v);
	}
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (!strcmp(s, sigs[i].name)) {
			return sigs[i].signo;
		}
	}
	v = isdigit((unsigned char)s[0]) ? strtol(s, &end, 10) : -1;
	return v > 0 && v < NSIG && !*end ? (int)v : -1;
}

static bool baud_known(uint64_t baud)
{
	static const uint32_t rates[] = {
	    1200,   2400,   4800,   9600,    19200,   38400,  57600,
	    115200, 230400, 460800, 500000,  576000,  921600, 1000000,
	    1152000, 1500000, 2000000, 2500000, 3000000, 3500000, 4000000};
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		if (rates[i] == baud) {
			return true;
		}
	}
	return false;
}

/* `byte` and `log` of the serial and socket doorbells. */
static int byte_and_log(struct parser *p, const struct ht_ynode *n,
			const char *what, struct ht_board_doorbell *d)
{
	const struct ht_ynode *v;
	uint64_t x = 0x21;
	int ret = 0;

	v = ht_ynode_get(n, "byte");
	if (v) {
		ret = number(p, v, what, 255, &x);
	}
	d->byte = (uint8_t)x;
	v = ht_ynode_get(n, "log");
	if (!ret && v) {
		ret = string(p, v, what, &d->log);
	}
	return ret;
}

static int parse_doorbell(struct parser *p, struct ht_board_core *c,
			  const struct ht_ynode *n)
{
	static const char *const kinds[] = {"none", "mmio", "serial", "socket",
					    "signal", NULL};
	static const char *const mmio_keys[] = {"region", "offset", "width",
						"value", NULL};
	static const char *const serial_keys[] = {"device", "baud", "byte",
						  "log", NULL};
	static const char *const socket_keys[] = {"path", "connect", "byte",
						  "log", NULL};
	static const char *const signal_keys[] = {"pid", "signal", "pin-away",
						  NULL};
	struct ht_board_doorbell *d = &c->doorbell;
	const struct ht_ynode *body, *v;
	char what[160];
	uint64_t x;
	char *s = NULL;
	int ret;

	snprintf(what, sizeof(what), "core '%s': doorbell", c->name);
	d->loc = n->loc;
	ret = mapping(p, n, what, kinds);
	if (ret) {
		return ret;
	}
	if (n->nr != 1) {
		return fail(p, &n->loc,
			    "%s: exactly one of none, mmio, serial, socket, "
			    "signal",
			    what);
	}
	for (x = 0; strcmp(kinds[x], n->keys[0]->str); x++) {
	}
	d->kind = (enum ht_board_doorbell_kind)x;
	body = n->items[0];
	d->loc = n->keys[0]->loc;
	snprintf(what, sizeof(what), "core '%s': doorbell %s", c->name,
		 kinds[x]);
	if (d->kind == HT_BOARD_DOORBELL_NONE) {
		if (ht_ynode_is_null(body)) {
			return 0;
		}
		return mapping(p, body, what, kinds + 5);
	}
	switch (d->kind) {
	case HT_BOARD_DOORBELL_MMIO:
		ret = mapping(p, body, what, mmio_keys);
		if (!ret) {
			ret = place(p, body, what, false, false, &d->reg);
		}
		if (ret) {
			return ret;
		}
		d->width = 32;
		v = ht_ynode_get(body, "width");
		if (v) {
			ret = number(p, v, what, 64, &x);
			if (ret) {
				return ret;
			}
			if (x != 8 && x != 16 && x != 32 && x != 64) {
				return fail(p, &v->loc,
					    "%s: width %" PRIu64
					    " (8, 16, 32 or 64)",
					    what, x);
			}
			d->width = (unsigned)x;
		}
		d->value = 1;
		v = ht_ynode_get(body, "value");
		if (v) {
			ret = number(p, v, what,
				     d->width == 64
					 ? UINT64_MAX
					 : (1ull << d->width) - 1u,
				     &d->value);
			if (ret) {
				return ret;
			}
		}
		d->reg.size = d->width / 8u;
		if (d->reg.offset % d->reg.size) {
			return fail(p, &d->reg.loc,
				    "%s: offset 0x%" PRIx64
				    " is not aligned to the %u-bit width",
				    what, d->reg.offset, d->width);
		}
		return inside(p, &d->reg, d->reg.size, "doorbell register");
	case HT_BOARD_DOORBELL_SERIAL:
		ret = mapping(p, body, what, serial_keys);
		if (ret) {
			return ret;
		}
		v = ht_ynode_get(body, "device");
		if (!v) {
			return fail(p, &body->loc, "%s: 'device' is required",
				    what);
		}
		ret = string(p, v, what, &d->device);
		d->baud = 115200;
		v = ht_ynode_get(body, "baud");
		if (!ret && v) {
			ret = number(p, v, what, UINT32_MAX, &x);
			if (!ret && !baud_known(x)) {
				return fail(p, &v->loc,
					    "%s: baud %" PRIu64
					    " is not a standard rate",
					    what, x);
			}
			d->baud = (uint32_t)x;
		}
		return ret ? ret : byte_and_log(p, body, what, d);
	case HT_BOARD_DOORBELL_SOCKET:
		ret = mapping(p, body, what, socket_keys);
		if (ret) {
			return ret;
		}
		if (!!ht_ynode_get(body, "path") ==
		    !!ht_ynode_get(body, "connect")) {
			return fail(p, &body->loc,
				    "%s: exactly one of path (a unix socket) "
				    "and connect (host:port)",
				    what);
		}
		v = ht_ynode_get(body, "path");
		if (v) {
			ret = string(p, v, what, &d->path);
		} else {
			char *colon, *end;
			long port;

			v = ht_ynode_get(body, "connect");
			ret = string(p, v, what, &s);
			if (ret) {
				return ret;
			}
			colon = strrchr(s, ':');
			port = colon ? strtol(colon + 1, &end, 10) : 0;
			if (!colon || colon == s || !colon[1] || *end ||
			    port < 1 || port > 65535) {
				fail(p, &v->loc,
				     "%s: connect: expected host:port, found "
				     "'%s'",
				     what, s);
				free(s);
				return p->ret;
			}
			*colon = '\0';
			d->host = s;
			d->port = (uint16_t)port;
		}
		return ret ? ret : byte_and_log(p, body, what, d);
	case HT_BOARD_DOORBELL_SIGNAL:
		ret = mapping(p, body, what, signal_keys);
		if (ret) {
			return ret;
		}
		v = ht_ynode_get(body, "pid");
		if (!v) {
			return fail(p, &body->loc, "%s: 'pid' is required",
				    what);
		}
		ret = number(p, v, what, 0x7fffffff, &x);
		if (ret) {
			return ret;
		}
		if (x < 2) {
			return fail(p, &v->loc, "%s: pid %" PRIu64, what, x);
		}
		d->pid = (int64_t)x;
		d->signo = SIGUSR1;
		v = ht_ynode_get(body, "signal");
		if (v) {
			ret = string(p, v, what, &s);
			if (ret) {
				return ret;
			}
			d->signo = signal_number(s);
			if (d->signo < 0) {
				fail(p, &v->loc,
				     "%s: unknown signal '%s' (SIGUSR1, "
				     "SIGRTMIN+N, a number...)",
				     what, s);
				free(s);
				return p->ret;
			}
			free(s);
		}
		v = ht_ynode_get(body, "pin-away");
		return v ? boolean(p, v, what, &d->pin_away) : 0;
	default:
		return 0;
	}
}

/* A name usable as a directory and in the ring header. */
static int check_name(struct parser *p, const struct ht_ynode *n,
		      const char *s, const char *what)
{
	if (strlen(s) >= HT_RING_NAME_MAX || strchr(s, '/') ||
	    !strcmp(s, ".") || !strcmp(s, "..")) {
		return fail(p, &n->loc,
			    "%s: '%s' must be a file name of at most %u "
			    "bytes (no '/', not . or ..)",
			    what, s, HT_RING_NAME_MAX - 1);
	}
	return 0;
}

static int parse_core(struct parser *p, const struct ht_ynode *n,
		      struct ht_board_core *c)
{
	static const char *const keys[] = {"name",     "role",	  "id",
					   "output",   "metadata", "ring",
					   "mailbox",  "doorbell", NULL};
	const struct ht_ynode *v;
	char what[160];
	char *s;
	uint64_t x;
	int ret;

	c->loc = n->loc;
	ret = mapping(p, n, "cores", keys);
	if (ret) {
		return ret;
	}
	v = ht_ynode_get(n, "name");
	if (!v) {
		return fail(p, &n->loc, "core: 'name' is required");
	}
	ret = string(p, v, "core name", &c->name);
	if (!ret) {
		ret = check_name(p, v, c->name, "core name");
	}
	if (ret) {
		return ret;
	}
	snprintf(what, sizeof(what), "core '%s'", c->name);
	v = ht_ynode_get(n, "role");
	if (!v) {
		return fail(p, &n->loc, "%s: 'role' is required (master or "
				       "slave)",
			    what);
	}
	ret = string(p, v, what, &s);
	if (ret) {
		return ret;
	}
	if (strcmp(s, "master") && strcmp(s, "slave")) {
		fail(p, &v->loc, "%s: role '%s' (master or slave)", what, s);
		free(s);
		return p->ret;
	}
	c->role = !strcmp(s, "master") ? HT_BOARD_MASTER : HT_BOARD_SLAVE;
	free(s);
	v = ht_ynode_get(n, "id");
	if (v) {
		ret = number(p, v, what, UINT32_MAX, &x);
		if (ret) {
			return ret;
		}
		c->has_id = true;
		c->id = (uint32_t)x;
	}
	v = ht_ynode_get(n, "output");
	ret = v ? string(p, v, what, &c->output) : 0;
	if (!ret && v) {
		ret = check_name(p, v, c->output, "output");
	}
	if (!ret && !c->output) {
		c->output = strdup(c->name);
		ret = c->output ? 0 : nomem(p);
	}
	v = ht_ynode_get(n, "metadata");
	if (!ret && v) {
		ret = string(p, v, what, &c->metadata);
	}
	if (ret) {
		return ret;
	}
	v = ht_ynode_get(n, "ring");
	if (v && v->kind == HT_YNODE_SCALAR) {
		ret = string(p, v, what, &s);
		if (ret) {
			return ret;
		}
		if (strcmp(s, "directory")) {
			fail(p, &v->loc,
			     "%s: ring: a mapping {region, offset, size} or "
			     "'directory', found '%s'",
			     what, s);
			free(s);
			return p->ret;
		}
		free(s);
		if (!p->b->has_directory) {
			return fail(p, &v->loc,
				    "%s: ring: directory, but the board has "
				    "no 'ring-directory'",
				    what);
		}
		c->ring_kind = HT_BOARD_RING_DIRECTORY;
		c->ring.loc = v->loc;
	} else if (v) {
		char w[200];

		snprintf(w, sizeof(w), "%s: ring", what);
		ret = place(p, v, w, true, true, &c->ring);
		if (!ret) {
			ret = inside(p, &c->ring, c->ring.size, "ring");
		}
		if (!ret && c->ring.size < sizeof(struct ht_ring)) {
			ret = fail(p, &v->loc,
				   "%s: ring size %" PRIu64
				   " is smaller than its header",
				   what, c->ring.size);
		}
		if (ret) {
			return ret;
		}
		c->ring_kind = HT_BOARD_RING_PLACE;
	}
	v = ht_ynode_get(n, "mailbox");
	if (v) {
		char w[200];

		snprintf(w, sizeof(w), "%s: mailbox", what);
		ret = place(p, v, w, false, true, &c->mailbox);
		if (!ret) {
			c->mailbox.size = sizeof(struct ht_sync_slave_mbox);
			ret = inside(p, &c->mailbox, c->mailbox.size,
				     "mailbox");
		}
		if (!ret && c->mailbox.offset % 8u) {
			ret = fail(p, &c->mailbox.loc,
				   "%s: mailbox offset 0x%" PRIx64
				   " is not 8-byte aligned",
				   what, c->mailbox.offset);
		}
		if (ret) {
			return ret;
		}
		c->has_mailbox = true;
	}
	v = ht_ynode_get(n, "doorbell");
	if (v) {
		ret = parse_doorbell(p, c, v);
		if (ret) {
			return ret;
		}
	}
	if (c->role == HT_BOARD_MASTER && (c->has_mailbox || v)) {
		return fail(p, c->has_mailbox ? &c->mailbox.loc : &v->loc,
			    "%s: the master has no mailbox or doorbell (it "
			    "runs the sync rounds)",
			    what);
	}
	if (c->doorbell.kind != HT_BOARD_DOORBELL_NONE && !c->has_mailbox &&
	    c->ring_kind != HT_BOARD_RING_DIRECTORY) {
		return fail(p, &c->doorbell.loc,
			    "%s: a doorbell needs a 'mailbox' (or the ring "
			    "directory's)",
			    what);
	}
	return 0;
}

static bool overlap(const struct ht_board_place *a,
		    const struct ht_board_place *b)
{
	return a->region == b->region && a->offset < b->offset + b->size &&
	       b->offset < a->offset + a->size;
}

/* Rings and mailboxes in the same region must not overlap. */
static int check_overlaps(struct parser *p)
{
	const struct ht_board *b = p->b;
	size_t i, j;

	for (i = 0; i < b->nr_cores; i++) {
		const struct ht_board_core *c = &b->cores[i];

		for (j = 0; j < i; j++) {
			const struct ht_board_core *o = &b->cores[j];

			if (c->ring_kind == HT_BOARD_RING_PLACE &&
			    o->ring_kind == HT_BOARD_RING_PLACE &&
			    overlap(&c->ring, &o->ring)) {
				return fail(p, &c->ring.loc,
					    "core '%s': ring [0x%" PRIx64
					    ", 0x%" PRIx64
					    ") overlaps core '%s''s ring "
					    "[0x%" PRIx64 ", 0x%" PRIx64
					    ") in region '%s'",
					    c->name, c->ring.offset,
					    c->ring.offset + c->ring.size,
					    o->name, o->ring.offset,
					    o->ring.offset + o->ring.size,
					    b->regions[c->ring.region].name);
			}
			if (c->has_mailbox && o->has_mailbox &&
			    overlap(&c->mailbox, &o->mailbox)) {
				return fail(p, &c->mailbox.loc,
					    "core '%s': mailbox overlaps core "
					    "'%s''s mailbox",
					    c->name, o->name);
			}
		}
		for (j = 0; j < b->nr_cores && c->has_mailbox; j++) {
			const struct ht_board_core *o = &b->cores[j];

			if (o->ring_kind == HT_BOARD_RING_PLACE &&
			    overlap(&c->mailbox, &o->ring)) {
				return fail(p, &c->mailbox.loc,
					    "core '%s': mailbox overlaps core "
					    "'%s''s ring",
					    c->name, o->name);
			}
		}
	}
	return 0;
}

static int parse_cores(struct parser *p, const struct ht_ynode *n)
{
	struct ht_board *b = p->b;
	const struct ht_ynode *first_master = NULL;
	size_t i, j;
	int ret;

	if (n->kind != HT_YNODE_SEQ) {
		return fail(p, &n->loc, "cores: expected a sequence, found %s",
			    ht_ynode_describe(n));
	}
	if (!n->nr) {
		return fail(p, &n->loc, "cores: none given");
	}
	b->cores = calloc(n->nr, sizeof(*b->cores));
	if (!b->cores) {
		return nomem(p);
	}
	for (i = 0; i < n->nr; i++) {
		struct ht_board_core *c = &b->cores[i];

		b->nr_cores++;
		ret = parse_core(p, n->items[i], c);
		if (ret) {
			return ret;
		}
		for (j = 0; j < i; j++) {
			if (!strcmp(b->cores[j].name, c->name)) {
				return fail(p, &ht_ynode_get(n->items[i],
							     "name")
						     ->loc,
					    "core '%s' is defined twice "
					    "(first at line %u)",
					    c->name, b->cores[j].loc.line);
			}
			if (!strcmp(b->cores[j].output, c->output)) {
				return fail(p, &n->items[i]->loc,
					    "core '%s': output '%s' is also "
					    "core '%s''s",
					    c->name, c->output,
					    b->cores[j].name);
			}
			if (c->has_id && b->cores[j].has_id &&
			    c->id == b->cores[j].id) {
				return fail(p,
					    &ht_ynode_get(n->items[i], "id")
						 ->loc,
					    "core '%s': id %" PRIu32
					    " is also core '%s''s",
					    c->name, c->id, b->cores[j].name);
			}
		}
		if (c->role == HT_BOARD_MASTER) {
			const struct ht_ynode *role =
			    ht_ynode_get(n->items[i], "role");

			if (first_master) {
				return fail(p, &role->loc,
					    "core '%s': a second master (the "
					    "first is '%s', line %u); a board "
					    "has exactly one",
					    c->name, b->cores[b->master].name,
					    first_master->loc.line);
			}
			first_master = role;
			b->master = i;
		}
	}
	if (!first_master) {
		return fail(p, &n->loc,
			    "cores: no core has role master (a board has "
			    "exactly one)");
	}
	return check_overlaps(p);
}

static int parse_sync(struct parser *p, const struct ht_ynode *n,
		      const struct ht_ynode **ref)
{
	static const char *const keys[] = {"reference", "period", "timeout",
					   "burst",	"stall",  NULL};
	struct ht_board_sync *s = &p->b->sync;
	const struct ht_ynode *v;
	uint64_t x;
	int ret;

	ret = mapping(p, n, "sync", keys);
	if (ret) {
		return ret;
	}
	*ref = ht_ynode_get(n, "reference");
	if ((v = ht_ynode_get(n, "period")) &&
	    (ret = duration(p, v, "sync period", &s->period_ns))) {
		return ret;
	}
	if ((v = ht_ynode_get(n, "timeout")) &&
	    (ret = duration(p, v, "sync timeout", &s->timeout_ns))) {
		return ret;
	}
	if ((v = ht_ynode_get(n, "stall")) &&
	    (ret = duration(p, v, "sync stall", &s->stall_ns))) {
		return ret;
	}
	if ((v = ht_ynode_get(n, "burst"))) {
		ret = number(p, v, "sync burst", 1000, &x);
		if (!ret && !x) {
			ret = fail(p, &v->loc, "sync burst: at least 1");
		}
		s->burst = (unsigned)x;
	}
	return ret;
}

static int parse_root(struct parser *p, const struct ht_ynode *root)
{
	static const char *const keys[] = {"board", "regions", "sync",
					   "ring-directory", "cores", NULL};
	static const char *const dir_keys[] = {"region", "offset", NULL};
	struct ht_board *b = p->b;
	const struct ht_ynode *v, *ref = NULL;
	struct ht_src_loc top = {p->file, 1, 1};
	char *s;
	size_t i;
	int ret;

	if (root->kind != HT_YNODE_MAP) {
		return fail(p, &root->loc,
			    "a board file is a mapping (board, regions, sync, "
			    "ring-directory, cores), found %s",
			    ht_ynode_describe(root));
	}
	ret = mapping(p, root, "board file", keys);
	if (ret) {
		return ret;
	}
	b->sync.period_ns = 10000000u;
	b->sync.timeout_ns = 100000000u;
	b->sync.burst = 4;
	b->sync.stall_ns = 2000000000u;
	if ((v = ht_ynode_get(root, "board")) &&
	    (ret = string(p, v, "board", &b->name))) {
		return ret;
	}
	v = ht_ynode_get(root, "regions");
	if (!v) {
		return fail(p, &top, "'regions' is required");
	}
	if ((ret = parse_regions(p, v))) {
		return ret;
	}
	if ((v = ht_ynode_get(root, "sync")) && (ret = parse_sync(p, v, &ref))) {
		return ret;
	}
	v = ht_ynode_get(root, "ring-directory");
	if (v) {
		ret = mapping(p, v, "ring-directory", dir_keys);
		if (!ret) {
			ret = place(p, v, "ring-directory", false, false,
				    &b->directory);
		}
		if (!ret) {
			ret = inside(p, &b->directory,
				     ht_ring_directory_bytes(0),
				     "ring directory");
		}
		if (!ret && b->directory.offset % 8u) {
			ret = fail(p, &b->directory.loc,
				   "ring-directory: offset 0x%" PRIx64
				   " is not 8-byte aligned",
				   b->directory.offset);
		}
		if (ret) {
			return ret;
		}
		b->has_directory = true;
	}
	v = ht_ynode_get(root, "cores");
	if (!v) {
		return fail(p, &top, "'cores' is required");
	}
	if ((ret = parse_cores(p, v))) {
		return ret;
	}
	b->sync.reference = b->master;
	if (ref) {
		ret = string(p, ref, "sync reference", &s);
		if (ret) {
			return ret;
		}
		for (i = 0; i < b->nr_cores && strcmp(b->cores[i].name, s);
		     i++) {
		}
		if (i == b->nr_cores) {
			ret = fail(p, &ref->loc,
				   "sync reference: no core named '%s'", s);
		} else if (i != b->master) {
			ret = fail(p, &ref->loc,
				   "sync reference: '%s' is a slave; the "
				   "reference is the master core ('%s')",
				   s, b->cores[b->master].name);
		}
		free(s);
	}
	return ret;
}

/* Each define is NAME=VALUE with NAME a C identifier. */
static int check_defines(const char *const *defines, char *err,
			 size_t err_len)
{
	const char *const *d;
	const char *s;

	for (d = defines; d && *d; d++) {
		for (s = *d; *s && *s != '='; s++) {
			if (!(isalnum((unsigned char)*s) || *s == '_') ||
			    (s == *d && isdigit((unsigned char)*s))) {
				break;
			}
		}
		if (s == *d || *s != '=') {
			return ht_err_printf(err, err_len, HT_EINVAL,
					     "--define '%s': expected "
					     "NAME=VALUE (NAME: letters, "
					     "digits, _)",
					     *d);
		}
	}
	return 0;
}

int ht_board_load_text(const char *name, const char *text, size_t len,
		       const char *const *defines, struct ht_board **board,
		       char *err, size_t err_len)
{
	struct parser p = {.defines = defines, .err = err, .err_len = err_len};
	struct ht_ynode *root = NULL;
	struct ht_board *b;
	char msg[512];
	unsigned line = 1, col = 1;
	int ret;

	*board = NULL;
	ret = check_defines(defines, err, err_len);
	if (ret) {
		return ret;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		return HT_ENOMEM;
	}
	b->path = strdup(name);
	b->text = malloc(len + 1);
	if (!b->path || !b->text) {
		ht_board_free(b);
		return HT_ENOMEM;
	}
	memcpy(b->text, text, len);
	b->text[len] = '\0';
	b->text_len = len;
	p.file = b->path;
	p.b = b;
	ret = ht_ydoc_parse(b->path, (const unsigned char *)text, len, &root,
			    msg, sizeof(msg), &line, &col);
	if (ret == HT_ESYNTAX) {
		ret = ht_err_printf(err, err_len, HT_ESYNTAX, "%s:%u:%u: %s",
				    b->path, line, col, msg);
	} else if (ret == HT_ENOMEM) {
		ret = nomem(&p);
	} else {
		ret = parse_root(&p, root);
	}
	ht_ynode_destroy(root);
	if (ret) {
		ht_board_free(b);
		return ret;
	}
	*board = b;
	return 0;
}

int ht_board_load(const char *path, const char *const *defines,
		  struct ht_board **board, char *err, size_t err_len)
{
	char *text;
	size_t size;
	int ret;

	*board = NULL;
	ret = ht_file_read(path, BOARD_MAX_BYTES, &text, &size, err, err_len);
	if (ret) {
		if (ret == HT_ENOMEM) {
			ht_err_printf(err, err_len, ret, "%s: out of memory",
				      path);
		}
		return ret;
	}
	ret = ht_board_load_text(path, text, size, defines, board, err,
				 err_len);
	free(text);
	return ret;
}

void ht_board_free(struct ht_board *b)
{
	size_t i;

	if (!b) {
		return;
	}
	for (i = 0; i < b->nr_regions; i++) {
		free(b->regions[i].name);
		free(b->regions[i].path);
	}
	for (i = 0; i < b->nr_cores; i++) {
		struct ht_board_core *c = &b->cores[i];

		free(c->name);
		free(c->output);
		free(c->metadata);
		free(c->doorbell.device);
		free(c->doorbell.path);
		free(c->doorbell.host);
		free(c->doorbell.log);
	}
	free(b->regions);
	free(b->cores);
	free(b->name);
	free(b->path);
	free(b->text);
	free(b);
}

const char *ht_board_region_kind_name(enum ht_board_region_kind kind)
{
	static const char *const names[] = {"shm", "file", "devmem", "uio"};

	return (unsigned)kind < 4 ? names[kind] : "?";
}

const char *ht_board_doorbell_describe(const struct ht_board *board, size_t i,
				       char *buf, size_t len)
{
	const struct ht_board_doorbell *d = &board->cores[i].doorbell;
	const char *sig;

	switch (d->kind) {
	case HT_BOARD_DOORBELL_MMIO:
		snprintf(buf, len,
			 "mmio %u-bit write of 0x%" PRIx64 " at %s+0x%" PRIx64,
			 d->width, d->value,
			 board->regions[d->reg.region].name, d->reg.offset);
		break;
	case HT_BOARD_DOORBELL_SERIAL:
		snprintf(buf, len, "serial byte 0x%02x on %s at %u baud",
			 d->byte, d->device, d->baud);
		break;
	case HT_BOARD_DOORBELL_SOCKET:
		if (d->path) {
			snprintf(buf, len, "socket byte 0x%02x on %s", d->byte,
				 d->path);
		} else {
			snprintf(buf, len, "socket byte 0x%02x to %s:%u",
				 d->byte, d->host, d->port);
		}
		break;
	case HT_BOARD_DOORBELL_SIGNAL:
		sig = sigabbrev_np(d->signo);
		if (sig) {
			snprintf(buf, len, "signal SIG%s to pid %" PRId64, sig,
				 d->pid);
		} else {
			snprintf(buf, len, "signal %d to pid %" PRId64,
				 d->signo, d->pid);
		}
		break;
	default:
		snprintf(buf, len, "none");
		break;
	}
	return buf;
}
