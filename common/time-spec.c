/* SPDX-License-Identifier: MIT */
/* Times given on the command line (time-spec.h). */
#include <string.h>
#include <time.h>

#include "common/error.h"
#include "common/time-spec.h"

#define NS_PER_S INT64_C(1000000000)

struct cursor {
	const char *s;
	size_t i;
	const char *why;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Exactly @n digits at the cursor into *@v, at most @max. */
static bool fixed(struct cursor *c, unsigned n, int max, const char *what,
		  int *v)
{
	size_t start = c->i;
	unsigned k;

	*v = 0;
	for (k = 0; k < n; k++) {
		if (!is_digit(c->s[c->i])) {
			c->i = start;
			c->why = what;
			return false;
		}
		*v = *v * 10 + (c->s[c->i++] - '0');
	}
	if (*v > max) {
		c->i = start;
		c->why = what;
		return false;
	}
	return true;
}

/* A literal @ch at the cursor. */
static bool lit(struct cursor *c, char ch, const char *why)
{
	if (c->s[c->i] != ch) {
		c->why = why;
		return false;
	}
	c->i++;
	return true;
}

/* ".NANO" (1 to 9 digits) into ns, if a '.' is at the cursor. */
static bool nano(struct cursor *c, int64_t *ns)
{
	int64_t v = 0, scale = NS_PER_S;
	unsigned k = 0;

	*ns = 0;
	if (c->s[c->i] != '.') {
		return true;
	}
	c->i++;
	while (is_digit(c->s[c->i])) {
		if (k == 9) {
			c->why = "more than 9 digits of nanoseconds";
			return false;
		}
		scale /= 10;
		v += (c->s[c->i++] - '0') * scale;
		k++;
	}
	if (!k) {
		c->why = "expected digits after '.'";
		return false;
	}
	*ns = v;
	return true;
}

/* HH:MM[:SS[.NANO]] into ns into the day. */
static bool day_time(struct cursor *c, int64_t *ns)
{
	int h, m, sec = 0;
	int64_t frac = 0;

	if (!fixed(c, 2, 23, "expected the hour as 2 digits (00 to 23)", &h) ||
	    !lit(c, ':', "expected ':' after the hour") ||
	    !fixed(c, 2, 59, "expected the minutes as 2 digits (00 to 59)",
		   &m)) {
		return false;
	}
	if (c->s[c->i] == ':') {
		c->i++;
		if (!fixed(c, 2, 60,
			   "expected the seconds as 2 digits (00 to 60)",
			   &sec) ||
		    !nano(c, &frac)) {
			return false;
		}
	}
	*ns = ((int64_t)h * 3600 + m * 60 + sec) * NS_PER_S + frac;
	return true;
}

/* [-]SEC[.NANO] */
static bool from_origin(struct cursor *c, int64_t *ns)
{
	bool neg = lit(c, '-', NULL);
	int64_t sec = 0, frac;
	size_t start = c->i;

	while (is_digit(c->s[c->i])) {
		if (sec > (INT64_MAX / NS_PER_S - 9) / 10) {
			c->why = "too many seconds";
			return false;
		}
		sec = sec * 10 + (c->s[c->i++] - '0');
	}
	if (c->i == start) {
		c->why = "expected [-]SEC[.NANO], HH:MM[:SS[.NANO]], "
			 "YYYY-MM-DD HH:MM[:SS[.NANO]] or +NUMBER[s|ms|us|ns]";
		return false;
	}
	if (!nano(c, &frac)) {
		return false;
	}
	*ns = sec * NS_PER_S + frac;
	if (neg) {
		*ns = -*ns;
	}
	return true;
}

/* +NUMBER[s|ms|us|ns] */
static bool relative(struct cursor *c, int64_t *ns)
{
	static const struct {
		const char *name;
		int64_t ns;
	} units[] = {{"ms", 1000000}, {"us", 1000}, {"ns", 1}, {"s", NS_PER_S}};
	__int128 whole = 0, frac = 0, div = 1, v;
	int64_t unit = NS_PER_S;
	size_t start, k;

	c->i++; /* '+' */
	start = c->i;
	while (is_digit(c->s[c->i])) {
		whole = whole * 10 + (c->s[c->i++] - '0');
		if (whole > INT64_MAX) {
			c->why = "too large";
			return false;
		}
	}
	if (c->s[c->i] == '.') {
		c->i++;
		if (!is_digit(c->s[c->i])) {
			c->why = "expected digits after '.'";
			return false;
		}
		while (is_digit(c->s[c->i])) {
			if (div >= NS_PER_S) {
				c->why = "more than 9 digits after '.'";
				return false;
			}
			frac = frac * 10 + (c->s[c->i++] - '0');
			div *= 10;
		}
	}
	if (c->i == start) {
		c->why = "expected a number after '+'";
		return false;
	}
	if (c->s[c->i]) {
		for (k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
			if (!strcmp(c->s + c->i, units[k].name)) {
				break;
			}
		}
		if (k == sizeof(units) / sizeof(units[0])) {
			c->why = "expected a unit: s, ms, us or ns";
			return false;
		}
		unit = units[k].ns;
		c->i += strlen(units[k].name);
	}
	v = whole * unit + frac * unit / div;
	if (v > INT64_MAX) {
		c->i = start;
		c->why = "too large";
		return false;
	}
	*ns = (int64_t)v;
	return true;
}

/* Parses @text[0..len) (len: up to the end or a ','). */
static int parse_at(const char *text, size_t len, size_t base,
		    struct ht_time_spec *spec, size_t *bad_at, const char **why)
{
	char buf[64];
	struct cursor c = {.s = buf};
	bool ok;

	memset(spec, 0, sizeof(*spec));
	if (len >= sizeof(buf)) {
		*bad_at = base + sizeof(buf) - 1;
		*why = "too long";
		return HT_EINVAL;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (buf[0] == '+') {
		spec->kind = HT_TIME_SPEC_RELATIVE;
		ok = relative(&c, &spec->ns);
	} else if (is_digit(buf[0]) && is_digit(buf[1]) && is_digit(buf[2]) &&
		   is_digit(buf[3]) && buf[4] == '-') {
		spec->kind = HT_TIME_SPEC_DATE;
		ok = fixed(&c, 4, 9999, NULL, &spec->year) &&
		     lit(&c, '-', NULL) &&
		     fixed(&c, 2, 12,
			   "expected the month as 2 digits (01 to 12)",
			   &spec->month) &&
		     lit(&c, '-', "expected '-' after the month") &&
		     fixed(&c, 2, 31, "expected the day as 2 digits (01 to 31)",
			   &spec->day) &&
		     lit(&c, ' ', "expected ' ' and HH:MM after the date") &&
		     day_time(&c, &spec->ns);
		if (ok && (!spec->month || !spec->day)) {
			c.i = spec->month ? 8 : 5;
			c.why = spec->month ? "day 00" : "month 00";
			ok = false;
		}
	} else if (buf[strspn(buf, "0123456789")] == ':' && is_digit(buf[0])) {
		spec->kind = HT_TIME_SPEC_DAY;
		ok = day_time(&c, &spec->ns);
	} else {
		spec->kind = HT_TIME_SPEC_ORIGIN;
		ok = from_origin(&c, &spec->ns);
	}
	if (ok && buf[c.i]) {
		c.why = "unexpected character";
		ok = false;
	}
	if (!ok) {
		*bad_at = base + c.i;
		*why = c.why ? c.why : "unexpected character";
		spec->kind = HT_TIME_SPEC_NONE;
		return HT_EINVAL;
	}
	return 0;
}

int ht_time_spec_parse(const char *text, struct ht_time_spec *spec,
		       size_t *bad_at, const char **why)
{
	return parse_at(text, strlen(text), 0, spec, bad_at, why);
}

int ht_time_spec_parse_range(const char *text, struct ht_time_spec *begin,
			     struct ht_time_spec *end, size_t *bad_at,
			     const char **why)
{
	size_t len = strlen(text), from = 0, comma;
	const char *c;
	int ret;

	if (text[0] == '[') {
		if (len < 2 || text[len - 1] != ']') {
			*bad_at = len;
			*why = "expected ']' at the end";
			return HT_EINVAL;
		}
		from = 1;
		len--;
	}
	c = memchr(text + from, ',', len - from);
	if (!c) {
		*bad_at = len;
		*why = "expected BEGIN,END";
		return HT_EINVAL;
	}
	comma = (size_t)(c - text);
	ret = parse_at(text + from, comma - from, from, begin, bad_at, why);
	if (ret) {
		return ret;
	}
	return parse_at(text + comma + 1, len - comma - 1, comma + 1, end,
			bad_at, why);
}

/* Seconds of the Unix time @tm (broken down, local unless @gmt). */
static int tm_seconds(struct tm *tm, bool gmt, int64_t *secs)
{
	time_t t;

	tm->tm_isdst = -1;
	t = gmt ? timegm(tm) : mktime(tm);
	if (t == (time_t)-1 && !(tm->tm_year == 69 && tm->tm_mday == 31)) {
		return HT_ERANGE;
	}
	*secs = (int64_t)t;
	return 0;
}

static int add_ns(int64_t secs, int64_t ns_in_day, int64_t *ns)
{
	__int128 v = (__int128)secs * NS_PER_S + ns_in_day % NS_PER_S;

	if (v < INT64_MIN || v > INT64_MAX) {
		return HT_ERANGE;
	}
	*ns = (int64_t)v;
	return 0;
}

int ht_time_spec_resolve(const struct ht_time_spec *spec, int64_t first_ns,
			 bool gmt, int64_t *ns)
{
	struct tm tm;
	time_t day;
	int64_t secs, sod;

	switch (spec->kind) {
	case HT_TIME_SPEC_ORIGIN:
		*ns = spec->ns;
		return 0;
	case HT_TIME_SPEC_RELATIVE:
		if (first_ns > INT64_MAX - spec->ns) {
			return HT_ERANGE;
		}
		*ns = first_ns + spec->ns;
		return 0;
	case HT_TIME_SPEC_DAY:
		/* the date of the first time, floor division */
		day = (time_t)(first_ns / NS_PER_S -
			       (first_ns % NS_PER_S < 0 ? 1 : 0));
		tzset(); /* localtime_r() need not read TZ */
		if (!(gmt ? gmtime_r(&day, &tm) : localtime_r(&day, &tm))) {
			return HT_ERANGE;
		}
		break;
	case HT_TIME_SPEC_DATE:
		memset(&tm, 0, sizeof(tm));
		tm.tm_year = spec->year - 1900;
		tm.tm_mon = spec->month - 1;
		tm.tm_mday = spec->day;
		break;
	default:
		return HT_EINVAL;
	}
	sod = spec->ns / NS_PER_S;
	tm.tm_hour = (int)(sod / 3600);
	tm.tm_min = (int)(sod / 60 % 60);
	tm.tm_sec = (int)(sod % 60);
	if (tm_seconds(&tm, gmt, &secs)) {
		return HT_ERANGE;
	}
	return add_ns(secs, spec->ns, ns);
}
