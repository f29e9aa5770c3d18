#!/usr/bin/env bash
# A ring file that shrinks under the collector (the producer, or QEMU,
# truncates it): the access that faults (SIGBUS) stops that core
# cleanly, with a message naming the ring file and the offset; the
# other core is collected to its end; the capture is drained, fsync'ed
# and readable; the exit status is 1 and the summary says what the
# stopped core's stream holds. Rings in plain files and in POSIX
# shared memory.
set -u
cd "$(dirname "$0")"
: "${TOP:=$(cd ../../.. && pwd)}"
. ../../lib.sh
. ./build-producer.sh producer
shm="/ht-trunc-$$-"
trap 'rm -rf "$w"; rm -f /dev/shm/"${shm#/}"*' EXIT

N=60000
run() { # LABEL PREFIX
	local label=$1 prefix=$2 rc pid
	rm -f "$w/ready"
	# Two cores waiting for free slots (nothing dropped), paced; the
	# second core's region cut to 4096 bytes after 20000 events.
	"$w/producer" -s 1024 -n 4 -p 2000 -T 20000 -r "$w/ready" wait "$prefix" 2 $N \
		>"$w/$label.prod" 2>&1 &
	pid=$!
	for _ in $(seq 1000); do [ -e "$w/ready" ] && break; sleep 0.01; done
	bounded 60 4000 "$HETRACE" record -o "$w/$label" "${prefix}0" "${prefix}1" \
		>"$w/$label.out" 2>"$w/$label.err"
	rc=$?
	wait $pid || bad "$label: producer: $(cat "$w/$label.prod")"
	cat "$w/$label.out"
	[ "$rc" = 1 ] || bad "$label: record exit $rc, want 1: $(head -3 "$w/$label.err")"
	grep -q "${prefix}1: offset [0-9]*: the file ends there (4096 bytes), the ring needs [0-9]* bytes: truncated under the collector" "$w/$label.err" ||
		bad "$label: no message naming the ring and the offset: $(cat "$w/$label.err")"
	grep -q "^core1: stopped: .*truncated.*its stream holds [0-9]* whole packets, [0-9]* bytes" "$w/$label.out" ||
		bad "$label: the summary does not say what core1 holds"
	# core1 holds what it had before the cut, whole; core0 all of it.
	babeltrace2 "$w/$label" >"$w/$label.txt" 2>"$w/$label.bterr" ||
		bad "$label: babeltrace2: $(head -3 "$w/$label.bterr")"
	last0=$(grep "core = 0 }" "$w/$label.txt" | tail -1 | sed 's/.*n = \([0-9]*\).*/\1/')
	[ "$last0" = $((N - 1)) ] || bad "$label: core0: last tick ${last0:-none}, want $((N - 1))"
	[ "$(grep -c "core = 0 }" "$w/$label.txt")" = $N ] || bad "$label: core0: ticks lost"
	n1=$(grep -c "core = 1 }" "$w/$label.txt")
	[ "$n1" -gt 0 ] && [ "$n1" -le 20000 ] || bad "$label: core1: $n1 ticks"
	bytes1=$(awk '$1 == "core1" && $3 == "discard" { print $5 }' "$w/$label.out")
	[ "$(stat -c %s "$w/$label/core1/stream")" = "$bytes1" ] ||
		bad "$label: core1: the stream has $(stat -c %s "$w/$label/core1/stream") bytes, the summary $bytes1"
}
run file "$w/r"
run shm "$shm"
exit $fail
