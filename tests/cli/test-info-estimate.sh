#!/usr/bin/env bash
# `hetrace info`'s flight-recorder estimate (docs/views.md): per stream,
# events/s over the span, bytes/event with the packet headers, seconds
# of history per KiB and per packet. The traces are written here with
# known rates, record and header sizes; the expected figures come from
# those parameters, not from the trace.
set -eu
cd "$(dirname "$0")"
. ../lib.sh
: "${HETRACE_OPT:=$HETRACE}"

# gen DIR STREAM N PERIOD_CYCLES RECORD_BYTES PACKET_BYTES [STREAM ...]:
# a 1 MHz clock; records of RECORD_BYTES (1-byte id, 8-byte time,
# the rest a byte array); a 36-byte packet header and context.
python3 - "$w" <<'PY'
import os, struct, sys
w = sys.argv[1]
HEAD = 36
def meta(rest):
    return """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := u8;
typealias integer { size = 32; align = 8; signed = false; } := u32;
typealias integer { size = 64; align = 8; signed = false; map = clock.clk.value; } := ts;
typealias integer { size = 64; align = 8; signed = false; } := u64;
trace { major = 1; minor = 8; byte_order = le;
  packet.header := struct { u32 magic; }; };
clock { name = clk; freq = 1000000; };
stream {
  packet.context := struct { ts timestamp_begin; ts timestamp_end;
    u64 packet_size; u64 content_size; };
  event.header := struct { u8 id; ts timestamp; };
};
event { id = 0; name = "rec"; fields := struct { u8 pad[%d]; }; };
""" % (rest,)
def stream(path, n, period, rec, psize):
    per = (psize - HEAD) // rec
    out = bytearray()
    k = 0
    while k < n:
        m = min(per, n - k)
        t0, t1 = 1000 + k * period, 1000 + (k + m - 1) * period
        content = HEAD + m * rec
        p = struct.pack('<IQQQQ', 0xC1FC1FC1, t0, t1, psize * 8, content * 8)
        for i in range(m):
            p += struct.pack('<BQ', 0, 1000 + (k + i) * period) + bytes(rec - 9)
        out += p + bytes(psize - len(p))
        k += m
    open(path, 'wb').write(out)
# a: 1000 events every 1000 cycles (1000/s), 16-byte records, 4096-byte packets
os.makedirs(w + '/a')
open(w + '/a/metadata', 'w').write(meta(7))
stream(w + '/a/s0', 1000, 1000, 16, 4096)
# b: 401 events every 4000 cycles (250/s), 32-byte records, 1024-byte packets;
# and a stream of one event (no estimate)
os.makedirs(w + '/b')
open(w + '/b/metadata', 'w').write(meta(23))
stream(w + '/b/s0', 401, 4000, 32, 1024)
stream(w + '/b/s1', 1, 4000, 32, 1024)
PY

# expect N PERIOD_US REC PACKET: the two lines, from the parameters
expect() {
	python3 - "$@" <<'PY'
import sys
n, period_us, rec, psize = map(int, sys.argv[1:])
per = (psize - 36) // rec
packets = -(-n // per)
rate = 1e6 / period_us
b = (packets * 36 + n * rec) / n
print("    rate: %.4g events/s, %.4g bytes/event (packet headers included)" % (rate, b))
def secs(v):  # common/time-format.c's duration, from ns
    ns = int(v * 1e9 + 0.5)
    for i, (div, unit) in enumerate(((10**9, "s"), (10**6, "ms"), (10**3, "us"))):
        if ns >= div:
            milli = (ns * 1000 + div // 2) // div
            if i and milli >= 10**6:
                milli, unit = milli // 1000, ("s", "ms")[i - 1]
            return "%d.%03d %s" % (milli // 1000, milli % 1000, unit)
    return "%d ns" % ns
print("    history: %s per KiB of buffer, %s per packet of %d bytes" % (secs(1024 / (rate * b)), secs(psize / (rate * b)), psize))
PY
}
check() { # TRACE STREAM N PERIOD_US REC PACKET
	local t=$1 s=$2
	shift 2
	expect "$@" >"$w/want"
	awk -v s="stream $s:" '$0 ~ "^  stream " { on = index($0, s) > 0 } on && /^    (rate|history): / { print }' \
		"$w/$t.info" >"$w/got"
	cmp -s "$w/want" "$w/got" || bad "$t/$s: got <$(cat "$w/got")>, want <$(cat "$w/want")>"
}
bounded 20 500 "$HETRACE_OPT" info "$w/a" >"$w/a.info" 2>"$w/a.err" || bad "a: info failed: $(cat "$w/a.err")"
check a s0 1000 1000 16 4096
bounded 20 500 "$HETRACE_OPT" info "$w/b" >"$w/b.info" 2>"$w/b.err" || bad "b: info failed: $(cat "$w/b.err")"
check b s0 401 4000 32 1024
awk '/^  stream s1:/ { on = 1 } on && /history: no estimate/ { f = 1 } END { exit !f }' "$w/b.info" ||
	bad "b/s1: no 'no estimate' line: $(cat "$w/b.info")"
grep -q 'events: 401$' "$w/b.info" || bad "b: the events of s0"
"$HETRACE" info --help | grep -q 'history' || bad "--help says nothing of the estimate"

exit $fail
