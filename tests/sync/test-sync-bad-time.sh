#!/usr/bin/env bash
# hetrace sync with damaged timestamps among good ones: handshake and
# message events stamped beyond 2^62 or near 2^63, a spike (after both
# neighbours) and a dip (before both), on the master and on a slave.
# Each is named (core, file, offset), not used for the fit, placed at the
# time of the event before it so that no other event moves; exit 1 (the
# trace is written, marked wrong there); UBSan stays quiet. Then hostile
# clock descriptions (frequency 1 or 2^63, offsets near 2^63): times
# beyond the int64 ns range are counted and make exit 1, never silent.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
py=/usr/bin/python3
. "$here/sync-lib.sh"


# the merged trace NAME-out: every event there, none after the capture's
# 50 ms (no event pushed to the damaged time), the fits still accurate
check_out() {
	local name=$1 n
	n=$(babeltrace2 "$w/$name-out" 2>/dev/null | wc -l)
	[ "$n" = 3539 ] || bad "$name: $n events merged, want 3539"
	$py - "$w/$name-out" <<'PY' || bad "$name: times of the merged trace"
import bt2, sys
first = last = None
for m in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(m) is bt2._EventMessageConst:
        t = m.default_clock_snapshot.ns_from_origin
        first = t if first is None else first
        last = t
assert last - first < 60e6, (first, last)
PY
	has "$name" out '^dsp0 *accurate'
	has "$name" out '^mcu0 *accurate'
}

big=$((1 << 62))
for v in $((big + 5)) 0x7ffffffffffffff0 0x200000000000000; do
	$py "$here/mkcapture.py" "$w/c$v" "$w/t.json" \
		--wild arm0:sync_req:20:$v --wild arm0:sync_recv:30:$v \
		--wild arm0:msg_send:3:$v --wild mcu0:sync_ack:5:$v
	run "w$v" 1 "$w/c$v" -o "$w/w$v-out" -r "$w/w$v.json"
	has "w$v" err "file=.*c$v/arm0/stream offset=[0-9]*: core arm0: timestamp $(printf %d $v) cycles .*damaged timestamp"
	has "w$v" err "file=.*c$v/mcu0/stream offset=[0-9]*: core mcu0: timestamp $(printf %d $v) cycles"
	has "w$v" err '4 event(s) with a damaged timestamp'
	has "w$v" out '^arm0: 3 x damaged timestamp'
	check_out "w$v"
	grep -q '"damaged_timestamps": 4' "$w/w$v.json" || bad "w$v: report"
done

# a dip: a sync_ack stamped before the two events before it
$py "$here/mkcapture.py" "$w/dip" "$w/t.json" --wild mcu0:sync_ack:7:5
run dip 1 "$w/dip" -o "$w/dip-out"
has dip err 'file=.*dip/mcu0/stream offset=[0-9]*: core mcu0: timestamp 5 cycles is before the two events before it'
check_out dip

# hostile clocks: UBSan quiet; out of range times counted, exit 1
for ck in mcu0:1:0:0 mcu0:0x8000000000000000:0:0 \
	mcu0:32768:0x7fffffffffffffff:0 mcu0:32768:-0x8000000000000000:0x7fffffffffffffff \
	arm0:1000000000:0x7fffffffff000000:0; do
	n=ck$(echo "$ck" | tr ':' '_')
	$py "$here/mkcapture.py" "$w/$n" "$w/t.json" --clock "$ck"
	rc=0
	bounded 20 4000 "$HETRACE" sync "$w/$n" -o "$w/$n-out" \
		>"$w/$n.out" 2>"$w/$n.err" || rc=$?
	grep -q 'AddressSanitizer\|runtime error' "$w/$n.err" && bad "$n: sanitizer report: $(grep -m2 'runtime error' "$w/$n.err")"
	case $rc in
	0) # in range: then no saturation may have happened
		grep -q 'saturated' "$w/$n.out" && bad "$n: exit 0 with saturated times" ;;
	1) grep -q 'saturated\|beyond\|range\|cannot' "$w/$n.err" || bad "$n: exit 1 without a reason: $(head -3 "$w/$n.err")" ;;
	*) bad "$n: exit $rc" ;;
	esac
done
# the reference clock 2^63 - 2^24 s from its origin: beyond int64 ns, its
# metadata refused, named as the slaves' master
n=ckarm0_1000000000_0x7fffffffff000000_0
grep -q "its master 'arm0' cannot be read: .*arm0/metadata:[0-9]*:[0-9]*: clock 'arm0_clk': .*out of the 64-bit nanosecond range" "$w/$n.err" ||
	bad "$n: not flagged: $(head -3 "$w/$n.err")"

# an unsynchronized core merged on its own clock, its offset 9223372036 s
# (in the int64 ns range, its events past it; --allow-unsynced):
# saturated, counted, exit 1
$py "$here/mkcapture.py" "$w/own" "$w/t.json" --no-sync mcu0 \
	--clock mcu0:32768:9223372036:0
run own 1 "$w/own" -o "$w/own-out" --allow-unsynced
has own out '^mcu0: [0-9]* event time(s) beyond 2^63 ns on clock mcu0_clk, saturated'
has own err 'beyond 2^63 ns .*saturated: the result is wrong there'
# its offset 2^63 - 1 s: the metadata itself is refused, the core named
# (and left out, as --allow-unsynced says)
$py "$here/mkcapture.py" "$w/own2" "$w/t.json" --no-sync mcu0 \
	--clock mcu0:32768:0x7fffffffffffffff:0
run own2 0 "$w/own2" -o "$w/own2-out" --allow-unsynced
has own2 err "core mcu0 cannot be read and is left out (--allow-unsynced): .*mcu0/metadata:[0-9]*:[0-9]*: clock 'mcu0_clk': offset_s = 9223372036854775807 plus offset = 0 cycles at 32768 Hz is out of the 64-bit nanosecond range"

[ $fail = 0 ] && echo "test-sync-bad-time: ok"
exit $fail
