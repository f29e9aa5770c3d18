#!/usr/bin/env bash
# The ring stress run, shared by test-ring-stress.sh (a few seconds, in
# make check) and bench/ring-stress.sh (long): producer and collector
# on different CPUs (taskset), the free-running indices started just
# below 2^32 so that they wrap early, in discard mode (the producer
# drops when the ring is full) and in overwrite mode read live (the
# collector loses packets), and an exact account of each:
#   discard:   ticks written + events discarded = events produced, and
#              packets written = packets committed (none lost);
#   overwrite: packets written + lost = packets committed, babeltrace2
#              reports exactly the lost ones, every tick kept in order,
#              the last one there.
# Usage: ring-stress.sh HETRACE WORKDIR EVENTS SLOT_BYTES SLOTS PACE_US
# (PACE_US: the producer sleeps that long after every 1000 events, so
# that the collector keeps up with part of it)
# Prints one line per mode:
#   MODE events=E written=W discarded=D packets=P committed=C lost=L secs=S
# and "FAIL: ..." lines for each check that does not hold (exit 1).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
HETRACE=$1 w=$2 N=$3 SLOT=$4 SLOTS=$5 PACE=$6
fail=0
bad() { echo "FAIL: $*"; fail=1; }
mkdir -p "$w"
if [ ! -x "$w/producer" ]; then
	"$HETRACE" gen "$here/producer.yaml" -o "$w/g" >/dev/null
	cc -std=c99 -O2 -Wall -Wextra -Werror -I"$w/g" -I"$top/include" -I"$top" \
		-DMETADATA_PATH="\"$w/g/metadata\"" -o "$w/producer" \
		"$here/producer.c" "$w/g/barectf.c" "$top/runtime/packet-ring.c" \
		"$top/runtime/port.c" || { echo "FAIL: cannot build the producer"; exit 1; }
fi
cpus=$(nproc)
pin() { # CPU CMD...: on CPU when there are two or more
	local cpu=$1
	shift
	if [ "$cpus" -ge 2 ] && command -v taskset >/dev/null; then
		taskset -c "$cpu" "$@"
	else
		"$@"
	fi
}

run() { # MODE RECORD-OPTIONS...
	local mode=$1 pid rec t0 t1 committed packets markers lost damaged written disc bt_disc bt_lost
	shift
	rm -rf "$w/$mode" "$w/$mode.ready" "$w/$mode-r0"
	rm -f "$w/$mode.go"
	pin 0 "$w/producer" -w 0xffffff00 -s "$SLOT" -n "$SLOTS" -r "$w/$mode.ready" -g "$w/$mode.go" -p "$PACE" \
		"$mode" "$w/$mode-r" 1 "$N" >"$w/$mode.prod" &
	pid=$!
	for _ in $(seq 2000); do [ -e "$w/$mode.ready" ] && break; sleep 0.005; done
	t0=$(date +%s.%N)
	pin 1 timeout 300 "$HETRACE" record -i 0 --no-fsync "$@" -o "$w/$mode" "$w/$mode-r0" \
		>"$w/$mode.out" 2>"$w/$mode.err" &
	rec=$!
	# The producer starts once the collector has attached.
	for _ in $(seq 2000); do [ -e "$w/$mode/core0/stream" ] && break; sleep 0.005; done
	touch "$w/$mode.go"
	wait $rec || bad "$mode: record: $(head -3 "$w/$mode.err")"
	t1=$(date +%s.%N)
	wait $pid || bad "$mode: producer"
	committed=$(sed -n 's/.* committed \([0-9]*\)$/\1/p' "$w/$mode.prod")
	read -r packets disc lost damaged <<<"$(awk '$1 == "core0" && NF >= 9 { print $4, $6, $8, $9 }' "$w/$mode.out")"
	markers=$(sed -n 's/^core0: \([0-9]*\) of the .* empty ones.*/\1/p' "$w/$mode.out")
	markers=${markers:-0}
	babeltrace2 "$w/$mode" >"$w/$mode.txt" 2>"$w/$mode.bterr" ||
		bad "$mode: babeltrace2: $(head -3 "$w/$mode.bterr")"
	written=$(grep -c ' tick: ' "$w/$mode.txt")
	bt_disc=$(sed -n 's/.*Tracer discarded \([0-9]*\) events* between.*/\1/p' "$w/$mode.bterr" |
		awk '{ s += $1 } END { print s + 0 }')
	bt_lost=$(sed -n 's/.*Tracer discarded \([0-9]*\) packets* between.*/\1/p' "$w/$mode.bterr" |
		awk '{ s += $1 } END { print s + 0 }')
	[ "$damaged" = 0 ] || bad "$mode: $damaged damaged packets"
	[ "$bt_disc" = "$disc" ] || bad "$mode: babeltrace2 reports $bt_disc discarded events, record $disc"
	[ "$bt_lost" = $((lost + damaged)) ] || bad "$mode: babeltrace2 reports $bt_lost lost packets, record $lost"
	[ $((packets - markers + lost)) = "$committed" ] ||
		bad "$mode: packets: $packets written - $markers empty + $lost lost != $committed committed"
	if [ "$mode" = discard ]; then
		[ "$lost" = 0 ] || bad "discard: $lost packets lost"
		[ $((written + disc)) = "$N" ] || bad "discard: events: $written written + $disc discarded != $N produced"
	else
		[ "$disc" = 0 ] || bad "overwrite: $disc events discarded"
	fi
	# Every tick kept in order; in overwrite mode the last one there,
	# and the ticks missing are whole packets: no more gaps than losses.
	awk -v last=$((N - 1)) -v lost=$((lost + damaged)) -v mode="$mode" '
		/ tick: / { match($0, /n = [0-9]+/); v = substr($0, RSTART + 4, RLENGTH - 4) + 0
			if (n++ && v <= prev) { printf "FAIL: %s: n = %d after %d\n", mode, v, prev; bad = 1; exit }
			if (n > 1 && v != prev + 1) gaps++
			prev = v }
		END { if (bad) exit 1
			if (mode == "discard") exit 0
			if (prev != last) { printf "FAIL: %s: last n = %d, want %d\n", mode, prev, last; exit 1 }
			if (gaps > lost) { printf "FAIL: %s: %d gaps in the ticks, %d packets lost\n", mode, gaps, lost; exit 1 } }' \
		"$w/$mode.txt" || fail=1
	echo "$mode events=$N written=$written discarded=$disc packets=$((packets - markers)) committed=$committed lost=$lost secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
}

run discard
run overwrite --live
exit $fail
