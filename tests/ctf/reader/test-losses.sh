#!/usr/bin/env bash
# Discarded events (a packet's events_discarded snapshot that grows) and
# lost packets (packet_seq_num gaps) are reported as babeltrace2 2.0.4
# reports them: `print` writes the same "WARNING: Tracer ..." lines on
# stderr, `info` counts them per stream. A stream whose first packet is
# numbered N > 0 lost packets 0 to N - 1 (a ring in overwrite mode keeps
# only the latest): babeltrace2 says nothing of them; hetrace says it
# in babeltrace2's words ("discarded N packets before [T]") and counts
# them in info ("(N before the first packet)").
set -u
. "$TOP/tests/lib.sh"

python3 - "$w/t" "$TOP/tests/ctf/print/corpus" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from ctfgen import Trace, Struct, Int
t = Trace()
ok = t.event('ok', Struct([('x', Int(32))]))
e = lambda ts, x: (ok, ts, {'x': x})
# s0: first packet number 3 (5 events discarded before it), then 4,
# then 7 (packets 5 and 6 lost, 7 more events discarded)
s0 = [t.packet([e(10, 1)], 5, 20, 3, discarded=5),
      t.packet([e(30, 2)], 25, 40, 4, discarded=5),
      t.packet([e(60, 3)], 55, 70, 7, discarded=12)]
# s1: nothing lost
s1 = [t.packet([e(12 + 20 * k, 10 + k)], 11 + 20 * k, 20 + 20 * k, k)
      for k in range(3)]
t.write(sys.argv[1], {'s0': s0, 's1': s1})
PY

timeout 20 babeltrace2 "$w/t" >"$w/bt.out" 2>"$w/bt.err" || bad "babeltrace2 failed"
expect_exit "print" 0 timeout 20 "$HETRACE" print "$w/t"
cmp -s "$w/out" "$w/bt.out" || bad "print: stdout differs from babeltrace2"
[ "$(wc -l <"$w/out")" = 6 ] || bad "print: $(wc -l <"$w/out") events"
grep '^WARNING: Tracer' "$w/bt.err" >"$w/bt.warn"
grep '^WARNING: Tracer' "$w/err" | grep -v ' before \[' >"$w/ht.warn"
[ "$(wc -l <"$w/bt.warn")" = 3 ] || bad "babeltrace2 warns: $(cat "$w/bt.warn")"
cmp -s "$w/bt.warn" "$w/ht.warn" || bad "print warnings differ: $(diff "$w/bt.warn" "$w/ht.warn")"
grep -qF "WARNING: Tracer discarded 3 packets before [00:00:00.000000005] (the stream's first packet is number 3) in trace \"\" (UUID: " "$w/err" ||
	bad "print: no warning for the packets before the first: $(cat "$w/err")"
[ "$(grep -c ' before \[' "$w/err")" = 1 ] || bad "print: $(grep -c ' before \[' "$w/err") warnings before a first packet"

expect_exit "info" 0 timeout 20 "$HETRACE" info "$w/t"
stream() { awk -v s="stream $1:" '$1 " " $2 == s { m = 1; next } /^  stream / { m = 0 } m' "$w/out"; }
stream s0 >"$w/s0"
stream s1 >"$w/s1"
grep -qx '    discarded events: 12' "$w/s0" || bad "info s0: $(grep discarded "$w/s0")"
grep -qx '    lost packets: 5 (3 before the first packet)' "$w/s0" || bad "info s0: $(grep lost "$w/s0")"
grep -qx '    discarded events: 0' "$w/s1" || bad "info s1: $(grep discarded "$w/s1")"
grep -qx '    lost packets: 0' "$w/s1" || bad "info s1: $(grep lost "$w/s1")"
exit $fail
