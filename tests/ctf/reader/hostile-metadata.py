#!/usr/bin/env python3
# Writes a small CTF trace (OUT/metadata, OUT/stream: one packet of
# --events events "ev" with a 32-bit payload) whose metadata is made
# hostile on demand: types nested --nest deep in one of several ways,
# an enum of --enum mappings (or one label given --dup-label times), a
# payload of --members members, --aliases type aliases, --env entries,
# strings with a newline in them, a clock offset near the limits.
# Usage: hostile-metadata.py OUT [options]   (--help)
import argparse
import os
import struct

KINDS = ("struct", "variant", "enum", "typealias", "struct-alias",
         "typedef-array")


def nested(kind, n):
    """Declarations and the payload member: `v` (uint32_t) under n levels."""
    if kind == "struct":
        return "", "struct { " * n + "uint32_t v; " + "} s; " * n
    if kind == "variant":
        # never resolved: the parser refuses the depth first
        return "", ("variant <t> { " * n + "uint32_t v; " + "} o; " * n)
    if kind == "enum":
        return "", "enum : " * n + "uint32_t { A = 0 ... 0xffffffff } v; "
    if kind == "typealias":
        # an alias declared inside each structure body
        return "", ("typealias struct { " * n + "uint32_t v; " +
                    "} := t; t s; " * n)
    if kind == "struct-alias":
        # named structures each holding the previous one: deep types,
        # shallow text
        decl = "struct s0 { uint32_t v; };\n"
        for i in range(1, n):
            decl += "struct s%d { struct s%d s; };\n" % (i, i - 1)
        return decl, "struct s%d s; " % (n - 1)
    if kind == "typedef-array":
        # each typedef one array level deeper: uint32_t v[1][1]...
        decl = "typedef uint32_t a0;\n"
        for i in range(1, n + 1):
            decl += "typedef a%d a%d[1];\n" % (i - 1, i)
        return decl, "a%d v; " % n
    raise SystemExit("unknown nesting kind " + kind)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--events", type=int, default=3)
    ap.add_argument("--nest", nargs=2, metavar=("KIND", "N"))
    ap.add_argument("--enum", type=int, default=0,
                    help="payload: an enum of N mappings (labels L0...)")
    ap.add_argument("--dup-label", type=int, default=0,
                    help="payload: an enum of one label with N ranges")
    ap.add_argument("--members", type=int, default=0,
                    help="payload: N members (uint8_t)")
    ap.add_argument("--aliases", type=int, default=0,
                    help="N aliases of uint32_t, the payload's the last")
    ap.add_argument("--env", type=int, default=0, help="N env entries")
    ap.add_argument("--variant", type=int, default=0,
                    help="payload: an enum tag of N labels selecting among "
                    "N options (every other one named with a '_' first)")
    ap.add_argument("--newline", action="store_true",
                    help="strings with a newline: env, event name, "
                    "model.emf.uri, enum label")
    ap.add_argument("--freq", type=int, default=1000000000)
    ap.add_argument("--offset-s", type=int, default=0)
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--ts", type=int, default=1000,
                    help="timestamp (cycles) of the first event")
    a = ap.parse_args()

    decl, fields = "", "uint32_t v; "
    name = '"ev"'
    extra_event = ""
    env = ['tracer_name = "hostile";']
    if a.nest:
        decl, fields = nested(a.nest[0], int(a.nest[1]))
    payload = lambda i: struct.pack("<I", i % 3)
    if a.dup_label:
        maps = ", ".join("L = %d" % i for i in range(a.dup_label))
        fields = "enum : uint32_t { %s } v; " % maps
    if a.members:
        fields = "".join("uint8_t m%d; " % i for i in range(a.members))
        payload = lambda i: bytes([i % 3]) * a.members
    if a.aliases:
        decl = "".join("typealias uint32_t := a%d;\n" % i
                       for i in range(a.aliases))
        fields = "a%d v; " % (a.aliases - 1)
    if a.variant:
        maps = ", ".join("L%d = %d" % (i, i) for i in range(a.variant))
        opts = "".join("uint8_t %sL%d; " % ("_" if i % 2 == 0 else "", i)
                       for i in range(a.variant))
        fields = "enum : uint32_t { %s } tag; variant <tag> { %s} v; " % (
            maps, opts)
        payload = lambda i: struct.pack("<IB", i % 3, 7 * (i % 3))
    if a.enum:
        maps = ", ".join("L%d = %d" % (i, i) for i in range(a.enum))
        fields = "enum : uint32_t { %s } v; " % maps
    if a.newline:
        name = '"ev\nsecond line"'
        extra_event = 'model.emf.uri = "http://x/\ny";'
        env.append('description = "first line\nsecond line";')
        fields = 'enum : uint32_t { "zero\nline" = 0, one = 1, two = 2 } v; '
    env += ["e%d = %d;" % (i, i) for i in range(a.env)]

    meta = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 64; align = 8; signed = false;
	map = clock.clk.value; } := clk_t;
trace {
	major = 1; minor = 8; byte_order = le;
	packet.header := struct { uint32_t magic; };
};
env {
	%s
};
clock {
	name = clk; freq = %d; offset_s = %d; offset = %d;
};
%sstream {
	packet.context := struct { uint64_t content_size;
		uint64_t packet_size; clk_t timestamp_begin;
		clk_t timestamp_end; };
	event.header := struct { uint32_t id; clk_t timestamp; };
};
event {
	name = %s; id = 0; %s
	fields := struct { %s};
};
""" % ("\n\t".join(env), a.freq, a.offset_s, a.offset, decl, name,
       extra_event, fields)

    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "metadata"), "w") as f:
        f.write(meta)
    evs = b""
    for i in range(a.events):
        evs += struct.pack("<IQ", 0, a.ts + 10 * i) + payload(i)
    size = (4 + 32 + len(evs)) * 8
    last = a.ts + 10 * max(a.events - 1, 0)
    pkt = struct.pack("<IQQQQ", 0xC1FC1FC1, size, size, a.ts, last) + evs
    with open(os.path.join(a.out, "stream"), "wb") as f:
        f.write(pkt)


main()
