#!/usr/bin/env bash
# Copy before trust: a hostile producer (hostile.c) rewrites the
# packet_size and content_size of its committed packets while the
# collector reads them. The capture must hold only whole packets, each
# as the collector checked it: babeltrace2 and hetrace print read all
# of it, every rejected slot is counted (summary) and reported
# (warning, and as a lost packet by babeltrace2: a jump of
# packet_seq_num), the ticks kept are in order.
set -u
cd "$(dirname "$0")"
: "${TOP:=$(cd ../../.. && pwd)}"
. ../../lib.sh
. ./build-producer.sh hostile

N=${HOSTILE_EVENTS:-300000}
rm -f "$w/ready"
"$w/hostile" "$w/ring" $N "$w/ready" >"$w/prod.out" &
pid=$!
for _ in $(seq 1000); do [ -e "$w/ready" ] && break; sleep 0.01; done
timeout 60 "$HETRACE" record -o "$w/cap" "$w/ring" >"$w/rec.out" 2>"$w/rec.err"
rc=$?
wait $pid || bad "hostile producer failed: $(cat "$w/prod.out")"
[ "$rc" = 0 ] || bad "record: exit $rc: $(head -5 "$w/rec.err")"
cat "$w/rec.out"
damaged=$(awk '$1 == "core0" { print $9 }' "$w/rec.out")
packets=$(awk '$1 == "core0" { print $4 }' "$w/rec.out")
committed=$(sed -n 's/committed //p' "$w/prod.out")
echo "hostile: $committed packets committed, $packets written, $damaged rejected"
[ "${damaged:-0}" -gt 0 ] || bad "no slot was rejected: the test did not race"
if [ "${damaged:-0}" -gt 0 ]; then
	grep -q "core0): packet .*: skipped" "$w/rec.err" ||
		bad "rejected slots not reported: $(head -3 "$w/rec.err")"
fi
# Whole packets only: both readers read the whole capture.
timeout 60 babeltrace2 "$w/cap" >"$w/bt.txt" 2>"$w/bt.err" ||
	bad "babeltrace2 cannot read the capture: $(head -3 "$w/bt.err")"
bounded 60 4000 "$HETRACE" print "$w/cap" >"$w/print.txt" 2>"$w/print.err" ||
	bad "hetrace print cannot read the capture: $(head -3 "$w/print.err")"
# Every rejected slot is a lost packet in the capture (the loss marker
# before the first packet kept, a jump of packet_seq_num after it).
lost=$(sed -n 's/.*Tracer discarded \([0-9]*\) packets* between.*/\1/p' "$w/bt.err" |
	awk '{ s += $1 } END { print s + 0 }')
[ "$lost" = "$damaged" ] || bad "babeltrace2 reports $lost lost packets, record $damaged rejected"
# The ticks kept increase (a packet of the hostile's half size holds
# none of them).
awk '/ tick: / { match($0, /n = [0-9]+/); v = substr($0, RSTART + 4, RLENGTH - 4) + 0
		if (n++ && v <= prev) { printf "n = %d after %d\n", v, prev; exit 1 } prev = v }' \
	"$w/bt.txt" || bad "ticks out of order"
exit $fail
