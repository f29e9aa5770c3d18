/* SPDX-License-Identifier: MIT */
/* The cores' metadata and truth.json (meta.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/error.h"
#include "common/json-writer.h"
#include "meta.h"
#include "platforms/sim/clock-model.h"

static void put_uuid(FILE *f, const uint8_t u[16])
{
	unsigned i;

	for (i = 0; i < 16; i++) {
		fprintf(f, "%02x%s", u[i],
			i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
	}
}

void ht__sim_make_uuid(uint8_t u[16], unsigned salt)
{
	if (getrandom(u, 16, 0) != 16) {
		/* No entropy source: still unique per core and run. */
		uint64_t t = sim_ref_now_ns() ^ ((uint64_t)getpid() << 32);

		memcpy(u, &t, 8);
		memcpy(u + 8, &salt, sizeof(salt));
	}
	u[6] = (uint8_t)((u[6] & 0x0fu) | 0x40u); /* version 4 */
	u[8] = (uint8_t)((u[8] & 0x3fu) | 0x80u); /* RFC 4122 variant */
}

int ht__sim_core_metadata(const char *tmpl, const struct sim_core_desc *c,
			  const char *master_name, const char *board,
			  char **out, size_t *len)
{
	const char *env = strstr(tmpl, "\nenv {\n");
	const char *clk = strstr(tmpl, "\nclock {\n");
	const char *name, *freq, *freq_end, *clk_end;
	FILE *f;

	*out = NULL;
	*len = 0;
	if (!env || !clk || env > clk) {
		return HT_EFORMAT;
	}
	/* The clock block's `name = ...;` and `freq = ...;` lines. */
	name = strstr(clk, "\n\tname = ");
	freq = strstr(clk, "\n\tfreq = ");
	clk_end = strstr(clk, "\n};");
	if (!name || !freq || !clk_end || name > freq || clk_end < freq) {
		return HT_EFORMAT;
	}
	name = strchr(name + 1, '\n');
	freq_end = strchr(freq + 1, '\n');
	if (!name || !freq_end) {
		return HT_EFORMAT;
	}
	env += strlen("\nenv {\n");

	f = open_memstream(out, len);
	if (!f) {
		return HT_ENOMEM;
	}
	fwrite(tmpl, 1, (size_t)(env - tmpl), f);
	fprintf(f, "\tcore_name = \"%s\";\n", c->name);
	fprintf(f, "\tcore_id = %" PRIu32 ";\n", c->core_id);
	fprintf(f, "\tcore_role = \"%s\";\n",
		c->is_master ? "master" : "slave");
	if (!c->is_master) {
		fprintf(f, "\tcore_master = \"%s\";\n", master_name);
	}
	fprintf(f, "\tboard = \"%s\";\n", board);
	/* Up to the clock's name line, then its UUID. */
	fwrite(env, 1, (size_t)(name + 1 - env), f);
	fprintf(f, "\tuuid = \"");
	put_uuid(f, c->uuid);
	fprintf(f, "\";\n");
	fwrite(name + 1, 1, (size_t)(freq + 1 - (name + 1)), f);
	fprintf(f, "\tfreq = %" PRIu64 ";", c->freq_hz);
	fputs(freq_end, f);
	if (fclose(f) != 0) {
		free(*out);
		*out = NULL;
		return HT_ENOMEM;
	}
	return 0;
}

static void put_clock(FILE *f, const struct sim_core_desc *c)
{
	const struct sim_clock_model *m = c->clock;
	uint32_t i;

	fprintf(f, "      \"clock\": {\n");
	if (!m) {
		fprintf(f, "        \"name\": \"ns\",\n"
			   "        \"reference\": true,\n"
			   "        \"freq_hz\": 1000000000,\n"
			   "        \"bits\": 64,\n"
			   "        \"uuid\": \"");
		put_uuid(f, c->uuid);
		fprintf(f, "\"\n      }\n");
		return;
	}
	fprintf(f,
		"        \"name\": \"cnt\",\n"
		"        \"reference\": false,\n"
		"        \"freq_hz\": %" PRIu64 ",\n"
		"        \"bits\": %" PRIu32 ",\n"
		"        \"drift_ppb\": %" PRId64 ",\n"
		"        \"uuid\": \"",
		c->freq_hz, m->bits, m->drift_ppb);
	put_uuid(f, c->uuid);
	fprintf(f, "\",\n        \"segments\": [\n");
	for (i = 0; i < m->nr_segs; i++) {
		const struct sim_clock_seg *s = &m->seg[i];

		fprintf(f,
			"          {\"from_ns\": %" PRIu64
			", \"ticks\": %" PRIu64 ", \"rate_num\": %" PRIu64
			", \"rate_den\": %" PRIu64 ", \"freq_hz\": %" PRIu64
			"}%s\n",
			s->from_ns, s->ticks, s->rate_num, s->rate_den,
			s->freq_hz, i + 1 < m->nr_segs ? "," : "");
	}
	fprintf(f, "        ]\n      }\n");
}

int ht__sim_write_truth(const char *path, const struct sim_core_desc *cores,
			unsigned nr, uint64_t start_ns, uint64_t end_ns)
{
	char tmp[4096];
	struct ht_json j = {0};
	const char *ref = "arm0";
	unsigned i;
	FILE *f;
	int ret = 0;

	for (i = 0; i < nr; i++) {
		if (cores[i].is_master) {
			ref = cores[i].name;
		}
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		return HT_EIO;
	}
	f = fopen(tmp, "w");
	if (!f) {
		return HT_EIO;
	}
	j.f = f;
	/* Names go through the JSON escaper; the layout is written here. */
	fprintf(f,
		"{\n  \"format\": \"hetrace-sim-truth\",\n  \"version\": 1,\n"
		"  \"reference\": ");
	ht_json_str(&j, ref);
	fprintf(f,
		",\n  \"start_ns\": %" PRIu64 ",\n  \"end_ns\": %" PRIu64 ",\n"
		"  \"cores\": [\n",
		start_ns, end_ns);
	for (i = 0; i < nr; i++) {
		const struct sim_core_desc *c = &cores[i];

		fprintf(f, "    {\n      \"name\": ");
		ht_json_str(&j, c->name);
		fprintf(f,
			",\n      \"core_id\": %" PRIu32
			",\n      \"role\": \"%s\",\n",
			c->core_id, c->is_master ? "master" : "slave");
		if (!c->is_master) {
			fprintf(f, "      \"master\": ");
			ht_json_str(&j, ref);
			fprintf(f, ",\n");
		}
		put_clock(f, c);
		fprintf(f, "    }%s\n", i + 1 < nr ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	if (ferror(f)) {
		ret = HT_EIO;
	}
	if (fclose(f) != 0) {
		ret = HT_EIO;
	}
	if (ret == 0 && rename(tmp, path) != 0) {
		ret = HT_EIO;
	}
	if (ret) {
		remove(tmp);
	}
	return ret;
}
