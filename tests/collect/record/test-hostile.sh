#!/usr/bin/env bash
# Copy before trust: a hostile producer (hostile.c) rewrites the
# packet_size and content_size of its committed packets while the
# collector reads them. The capture must hold only whole packets, each
# as the collector checked it: babeltrace2 and hetrace print read all
# of it, every rejected slot is counted (summary) and reported
# (warning, and as a lost packet by babeltrace2: a jump of
# packet_seq_num), the ticks kept are in order.
# The second run leaves the packets alone every other 20 ms: the
# collector then takes full batches, so the direct copy
# (copy_file_range() from the ring's file straight into the stream
# file, the header and context checked as the stream file holds them)
# runs, and the scribbling periods race with it (ring-io.so logs the
# collector's reads of the ring file: the direct copy must have run).
set -u
cd "$(dirname "$0")"
: "${TOP:=$(cd ../../.. && pwd)}"
. ../../lib.sh
. ./build-producer.sh hostile ring-io.so

N=${HOSTILE_EVENTS:-300000}
run() { # LABEL PERIOD-MS
	local l=$1 rc pid damaged packets committed lost direct
	rm -f "$w/ready"
	"$w/hostile" "$w/$l.ring" $N "$w/ready" $2 >"$w/$l.prod" &
	pid=$!
	for _ in $(seq 1000); do [ -e "$w/ready" ] && break; sleep 0.01; done
	HT_RING_IO_FILE=$w/$l.ring HT_RING_IO_LOG=$w/$l.io LD_PRELOAD=$w/ring-io.so \
		timeout 60 "$HETRACE" record -o "$w/$l" "$w/$l.ring" >"$w/$l.out" 2>"$w/$l.err"
	rc=$?
	wait $pid || bad "$l: hostile producer failed: $(cat "$w/$l.prod")"
	[ "$rc" = 0 ] || bad "$l: record: exit $rc: $(head -5 "$w/$l.err")"
	cat "$w/$l.out"
	damaged=$(awk '$1 == "core0" { print $9 }' "$w/$l.out")
	packets=$(awk '$1 == "core0" { print $4 }' "$w/$l.out")
	committed=$(sed -n 's/committed //p' "$w/$l.prod")
	echo "$l: $committed packets committed, $packets written, $damaged rejected"
	[ "${damaged:-0}" -gt 0 ] || bad "$l: no slot was rejected: the test did not race"
	if [ "${damaged:-0}" -gt 0 ]; then
		grep -q "core0): packet .*: skipped" "$w/$l.err" ||
			bad "$l: rejected slots not reported: $(head -3 "$w/$l.err")"
	fi
	# Whole packets only: each header in the stream file is a good one,
	# and both readers read the whole capture.
	python3 ring-edit.py check "$w/$l/core0/stream" 1024 >/dev/null ||
		bad "$l: the stream file holds a damaged packet"
	timeout 60 babeltrace2 "$w/$l" >"$w/$l.txt" 2>"$w/$l.bterr" ||
		bad "$l: babeltrace2 cannot read the capture: $(head -3 "$w/$l.bterr")"
	bounded 60 4000 "$HETRACE" print "$w/$l" >"$w/$l.print" 2>"$w/$l.perr" ||
		bad "$l: hetrace print cannot read the capture: $(head -3 "$w/$l.perr")"
	# Every rejected slot is a lost packet in the capture (the loss marker
	# before the first packet kept, a jump of packet_seq_num after it).
	lost=$(sed -n 's/.*Tracer discarded \([0-9]*\) packets* between.*/\1/p' "$w/$l.bterr" |
		awk '{ s += $1 } END { print s + 0 }')
	[ "$lost" = "$damaged" ] || bad "$l: babeltrace2 reports $lost lost packets, record $damaged rejected"
	# The ticks kept increase (a packet of the hostile's half size holds
	# none of them).
	awk '/ tick: / { match($0, /n = [0-9]+/); v = substr($0, RSTART + 4, RLENGTH - 4) + 0
			if (n++ && v <= prev) { printf "n = %d after %d\n", v, prev; exit 1 } prev = v }' \
		"$w/$l.txt" || bad "$l: ticks out of order"
	touch "$w/$l.io"
	direct=$(awk '$1 == "copy_file_range" && $4 > 0' "$w/$l.io" | wc -l)
	echo "$l: $direct direct copies"
	[ "$2" = 0 ] || [ "$direct" -gt 0 ] || bad "$l: the direct copy never ran"
}
run always 0
run periods 20
exit $fail
