#!/usr/bin/env bash
# Time going backwards inside a stream (an event before the one before
# it, a packet beginning before the previous packet's end, a packet end
# before its last event): babeltrace2 2.0.4 stops with an error (exit
# 1); so do `print` and `info`, naming the stream file, the packet, the
# offset and both times, after printing everything before it and the
# other stream whole. With --keep-going every event is printed (the one
# after the step back with a negative delta: how far back) and the exit
# status is still 1. The same at the clock's last value (UINT64_MAX
# cycles), which the reader's time so far must hold as any other.
set -u
. "$TOP/tests/lib.sh"

# gen KIND DIR: stream s0 (packets of ok events x=...), stream s1 with
# ok x=100..102 at 15..17
gen() {
	python3 - "$1" "$2" "$TOP/tests/ctf/print/corpus" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
from ctfgen import Trace, Struct, Int
kind, out = sys.argv[1], sys.argv[2]
t = Trace()
ok = t.event('ok', Struct([('x', Int(32))]))
e = lambda ts, x: (ok, ts, {'x': x})
if kind == 'event':  # x=3 at 20 after x=2 at 30
    s0 = [t.packet([e(10, 1), e(30, 2), e(20, 3), e(35, 4)], 5, 40, 0),
          t.packet([e(50, 5)], 45, 60, 1)]
elif kind == 'packet':  # packet 1 begins at 35, packet 0 ended at 40
    s0 = [t.packet([e(10, 1), e(30, 2)], 5, 40, 0),
          t.packet([e(36, 5)], 35, 60, 1)]
elif kind == 'end':  # packet 0 ends at 25, after x=2 at 30
    s0 = [t.packet([e(10, 1), e(30, 2)], 5, 25, 0),
          t.packet([e(50, 5)], 45, 60, 1)]
s1 = [t.packet([e(15 + i, 100 + i) for i in range(3)], 5, 70, 0)]
t.write(out, {'s0': s0, 's1': s1})
PY
}

# KIND | message after "file=DIR/s0 " | babeltrace2's | lines -k | marked line
cases=(
	"event|packet=0 offset=104: event 'ok' at 20 cycles (0.000000020 s) is before the stream's time so far, 30 cycles (0.000000030 s)|ts=20, last-returned-ts=30|8|(-0.000000010) ok: { x = 3 }"
	"packet|packet=1 offset=104: the packet's timestamp_begin at 35 cycles (0.000000035 s) is before the stream's time so far, 40 cycles (0.000000040 s)|ts=35, last-returned-ts=40|6|(-0.000000005) ok: { x = 5 }"
	"end|packet=0 offset=0: the packet's timestamp_end at 25 cycles (0.000000025 s) is before the stream's time so far, 30 cycles (0.000000030 s)|ts=25, last-returned-ts=30|6|"
)
for c in "${cases[@]}"; do
	IFS='|' read -r kind msg btmsg nk mark <<<"$c"
	d="$w/$kind"
	gen "$kind" "$d"
	# babeltrace2 refuses the trace
	timeout 20 babeltrace2 "$d" >"$w/bt.out" 2>"$w/bt.err"
	rc=$?
	[ "$rc" = 1 ] || bad "$kind: babeltrace2 exit $rc, expected 1"
	grep -q "timestamp is less than.*$btmsg" "$w/bt.err" ||
		bad "$kind: babeltrace2 says: $(grep -m1 muxer "$w/bt.err")"
	expect_exit "$kind print" 1 timeout 20 "$HETRACE" print "$d"
	expect_err "$kind print" "^hetrace print: time goes backwards: file=$d/s0 $msg\$"
	# what babeltrace2 printed before stopping, and the rest of s1
	grep -q 'x = 102' "$w/out" || bad "$kind print: stream s1 is not whole"
	head -n "$(wc -l <"$w/bt.out")" "$w/out" | cmp -s - "$w/bt.out" ||
		bad "$kind print: differs from babeltrace2 before the error: $(diff "$w/bt.out" "$w/out" | head -3)"
	expect_exit "$kind print -k" 1 timeout 20 "$HETRACE" print -k "$d"
	expect_err "$kind print -k" "time goes backwards: file=$d/s0 $msg"
	[ "$(wc -l <"$w/out")" = "$nk" ] || bad "$kind print -k: $(wc -l <"$w/out") lines, expected $nk"
	if [ -n "$mark" ]; then
		grep -qF -- "$mark" "$w/out" || bad "$kind print -k: no '$mark' in: $(cat "$w/out")"
	fi
	[ "$(grep -c '(-' "$w/out")" = "$([ -n "$mark" ] && echo 1 || echo 0)" ] ||
		bad "$kind print -k: other lines marked: $(grep '(-' "$w/out")"
	expect_exit "$kind info" 1 timeout 20 "$HETRACE" info "$d"
	expect_err "$kind info" "^hetrace info: time goes backwards: file=$d/s0 $msg\$"
	grep -q "^total: 1 traces, 2 streams" "$w/out" || bad "$kind info: no summary"
	expect_exit "$kind info -k" 1 timeout 20 "$HETRACE" info -k "$d"
	grep -q "^total: 1 traces, 2 streams, $((nk)) events" "$w/out" ||
		bad "$kind info -k: $(grep total "$w/out"), expected $nk events"
done

# The stream's time at the clock's last value (UINT64_MAX cycles: a
# damaged packet): an event before it goes back, for print as for info.
# KIND | what goes back (after "file=DIR/s0 packet=0 offset=")
max_cases=(
	"begin-max|72: event 'ok' at 20 cycles"
	"event-max|104: event 'ok' at 20 cycles"
)
for c in "${max_cases[@]}"; do
	IFS='|' read -r kind msg <<<"$c"
	d="$w/$kind"
	python3 - "$kind" "$d" "$TOP/tests/ctf/print/corpus" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
from ctfgen import Trace, Struct, Int
kind, out = sys.argv[1], sys.argv[2]
t = Trace()
ok = t.event('ok', Struct([('x', Int(32))]))
e = lambda ts, x: (ok, ts, {'x': x})
m = 2**64 - 1
if kind == 'begin-max':  # x=1 at 20 in a packet beginning at m
    s0 = [t.packet([e(20, 1), e(30, 2)], m, 60, 0)]
else:  # x=3 at 20 after x=2 at m
    s0 = [t.packet([e(10, 1), e(m, 2), e(20, 3)], 5, m, 0)]
t.write(out, {'s0': s0})
PY
	want="time goes backwards: file=$d/s0 packet=0 offset=$msg ([0-9.]* s) is before the stream's time so far, 18446744073709551615 cycles"
	for cmd in print info; do
		expect_exit "$kind $cmd -k" 1 timeout 20 "$HETRACE" "$cmd" -k "$d"
		expect_err "$kind $cmd -k" "$want"
	done
done
exit $fail
