/*
 * A synthetic capture for bench/merge.sh: NCORES cores (core 0 the
 * 1 GHz master, the others slaves at various rates with drift and
 * offsets), EVENTS `work` events per core plus the sync handshake (one
 * round every ROUND_NS with each slave in turn). Clocks are absolute so
 * that babeltrace2 can mux the traces (the anchor).
 *   gen OUT NCORES EVENTS [ROUND_NS]
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PACKET 16384

struct core {
	double freq, drift;
	uint64_t offset;
	FILE *f;
	uint8_t buf[PACKET];
	size_t len;
	uint64_t first, last, seq, n;
};

static uint64_t ticks(const struct core *c, double t_ns)
{
	return c->offset + (uint64_t)(c->freq * (1 + c->drift) * t_ns / 1e9);
}

static void put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

static void flush(struct core *c, uint32_t id)
{
	if (c->len <= 76) {
		return;
	}
	put(c->buf, 0xc1fc1fc1, 4);
	memset(c->buf + 4, 0x11, 16);
	put(c->buf + 20, 0, 4);
	put(c->buf + 24, c->len * 8, 8);
	put(c->buf + 32, c->len * 8, 8);
	put(c->buf + 40, c->first, 8);
	put(c->buf + 48, c->last, 8);
	put(c->buf + 56, 0, 8);
	put(c->buf + 64, c->seq++, 8);
	put(c->buf + 72, id, 4);
	fwrite(c->buf, 1, c->len, c->f);
	c->len = 76;
}

static void event(struct core *c, uint32_t core_id, uint32_t id, uint64_t ts,
		  uint32_t a, uint32_t b)
{
	if (c->len + 20 > PACKET) {
		flush(c, core_id);
	}
	if (c->len == 76) {
		c->first = ts;
	}
	c->last = ts;
	put(c->buf + c->len, id, 4);
	put(c->buf + c->len + 4, ts, 8);
	put(c->buf + c->len + 12, a, 4);
	put(c->buf + c->len + 16, b, 4);
	c->len += 20;
	c->n++;
}

int main(int argc, char **argv)
{
	const char *out = argv[1];
	int n = atoi(argv[2]);
	uint64_t events = strtoull(argv[3], NULL, 10);
	double round_ns = argc > 4 ? atof(argv[4]) : 100000;
	static const double freqs[] = {1e9,    200e6, 600e6, 32768,
				       19.2e6, 100e6, 750e6, 48e6};
	double work_ns = 1000; /* one work event per core per us */
	double span = (double)events * work_ns;
	char path[4096];

	mkdir(out, 0777);
	struct core *cores = calloc((size_t)n, sizeof(*cores));
	for (int i = 0; i < n; i++) {
		struct core *c = &cores[i];

		c->freq = freqs[i % 8];
		c->drift = i ? ((i * 37) % 400 - 200) * 1e-6 : 0;
		c->offset = i ? (uint64_t)i * 123456789u : 0;
		c->len = 76;
		snprintf(path, sizeof(path), "%s/core%d", out, i);
		mkdir(path, 0777);
		snprintf(path, sizeof(path), "%s/core%d/metadata", out, i);
		FILE *m = fopen(path, "w");
		fprintf(
		    m,
		    "/* CTF 1.8 */\n"
		    "typealias integer { size = 8; align = 8; signed = false; "
		    "} := uint8_t;\n"
		    "typealias integer { size = 32; align = 8; signed = false; "
		    "} := uint32_t;\n"
		    "typealias integer { size = 64; align = 8; signed = false; "
		    "} := uint64_t;\n"
		    "trace { major = 1; minor = 8; byte_order = le;\n"
		    "  packet.header := struct { uint32_t magic; uint8_t "
		    "uuid[16]; uint32_t stream_id; }; };\n"
		    "env { core_name = \"core%d\"; core_id = %d; core_role = "
		    "\"%s\";%s };\n"
		    "clock { name = clk; uuid = \"%08x-0000-4000-8000-%012x\"; "
		    "freq = %.0f; absolute = true; };\n"
		    "typealias integer { size = 64; align = 8; signed = false; "
		    "map = clock.clk.value; } := ts;\n"
		    "stream { packet.context := struct { uint64_t packet_size; "
		    "uint64_t content_size;\n"
		    "    ts timestamp_begin; ts timestamp_end; uint64_t "
		    "events_discarded;\n"
		    "    uint64_t packet_seq_num; uint32_t core_id; };\n"
		    "  event.header := struct { uint32_t id; ts timestamp; }; "
		    "};\n"
		    "event { name = \"work\"; id = 0; fields := struct { "
		    "uint32_t a; uint32_t b; }; };\n"
		    "event { name = \"sync_req\"; id = 1; fields := struct { "
		    "uint32_t seq; uint32_t slave; }; };\n"
		    "event { name = \"sync_ack\"; id = 2; fields := struct { "
		    "uint32_t seq; uint32_t pad; }; };\n"
		    "event { name = \"sync_notify\"; id = 3; fields := struct "
		    "{ uint32_t seq; uint32_t pad; }; };\n"
		    "event { name = \"sync_recv\"; id = 4; fields := struct { "
		    "uint32_t seq; uint32_t slave; }; };\n",
		    i, i, i ? "slave" : "master",
		    i ? " core_master = \"core0\";" : "", i + 1, i + 1,
		    c->freq);
		fclose(m);
		snprintf(path, sizeof(path), "%s/core%d/stream", out, i);
		c->f = fopen(path, "wb");
	}
	/* each core: its work events and its handshake events, in time order */
	for (int i = 0; i < n; i++) {
		struct core *c = &cores[i];
		uint64_t j = 0, k = 0, nk = (uint64_t)(span / round_ns);
		double phase = i * 7.0;

		int step = 0;
		/* rounds shorter than 10 us: the handshake scaled down */
		const double scale = round_ns < 10000 ? round_ns / 10000 : 1;

		while (j < events || k < nk) {
			int slave =
			    n > 1 ? (int)(k % (uint64_t)(n - 1)) + 1 : 0;
			double base = k * round_ns + 500, off;
			double tw = j < events ? j * work_ns + phase : 1e300;
			double tr;

			if (k < nk && i != 0 && slave != i) {
				k++; /* a round without this core */
				continue;
			}
			if (i == 0) {
				off = step ? 6000 + (k % 7) * 100 : 0;
			} else {
				off = (step ? 3500 : 3000) + (k % 5) * 100;
			}
			/* a round's events within the round: each core's
			 * events stay in time order */
			off *= scale;
			tr = k < nk ? base + off : 1e300;
			if (tw <= tr) {
				event(c, (uint32_t)i, 0, ticks(c, tw),
				      (uint32_t)j, (uint32_t)i);
				j++;
				continue;
			}
			if (i == 0) {
				event(c, 0, step ? 4 : 1, ticks(c, tr),
				      (uint32_t)(2 * k + step),
				      (uint32_t)slave);
			} else {
				event(c, (uint32_t)i, step ? 3 : 2,
				      ticks(c, tr), (uint32_t)(2 * k + step),
				      0);
			}
			if (step) {
				k++;
			}
			step = !step;
		}
		flush(c, (uint32_t)i);
		fclose(c->f);
	}
	uint64_t total = 0;
	for (int i = 0; i < n; i++) {
		total += cores[i].n;
	}
	printf("%" PRIu64 "\n", total);
	return 0;
}
