#!/usr/bin/env bash
# A ring file cut while the collector copies from it, after the size
# check of the drain passed (ring-io.so, LD_PRELOAD, truncates the file
# just before the first read that reaches past the cut):
#   direct  ring and capture on one file system: the cut falls inside
#           a copy_file_range() of 994 slots
#   pread   ring in /dev/shm, capture in /tmp (EXDEV: the copy): the cut
#           falls inside a batch's pread() of 256 slots
# In both, the cut is in the middle of packet 600's slot: the ring is
# stopped with "the file ends there ... truncated under the collector",
# record exits 1, and the stream holds the 600 whole packets before
# the cut, byte for byte, read by babeltrace2 (ticks 0 .. 600 * 79 - 1).
set -u
cd "$(dirname "$0")"
: "${TOP:=$(cd ../../.. && pwd)}"
. ../../lib.sh
. ./build-producer.sh producer ring-io.so
shm=/dev/shm/ht-cut-$$
trap 'rm -rf "$w" "$shm"*' EXIT

# 1266 packets of 79 ticks (12 bytes each after the 68-byte header and
# context) in 1024-byte slots, slot 0 holding packet 0.
N=100000
"$w/producer" -s 1024 -n 2048 discard "$w/orig" 1 $N >"$w/prod.out" ||
	{ echo "FAIL: producer: $(cat "$w/prod.out")"; exit 1; }
python3 ring-edit.py edit "$w/orig0" "$w/all" || { echo "FAIL: ring-edit.py"; exit 1; }
slots_off=$(od -An -tu4 -j28 -N4 "$w/orig0" | tr -d ' ')
cut=$((slots_off + 600 * 1024 + 100))
head -c $((600 * 1024)) "$w/all" >"$w/expect"

run() { # LABEL RING CALL: CALL is the read the cut must fall in
	local label=$1 ring=$2 call=$3 rc
	cp "$w/orig0" "$ring"
	HT_RING_IO_FILE=$ring HT_RING_IO_LOG=$w/$label.io HT_RING_IO_CUT=$cut \
		LD_PRELOAD=$w/ring-io.so \
		bounded 20 4000 "$HETRACE" record -o "$w/$label" "$ring" >"$w/$label.out" 2>"$w/$label.err"
	rc=$?
	cat "$w/$label.out"
	[ "$rc" = 1 ] || bad "$label: record exit $rc, want 1: $(head -3 "$w/$label.err")"
	# The cut fell where it should: the read reaching past it was short.
	awk -v c="$call" -v cut=$cut '$1 == c && $2 < cut && $2 + $3 > cut && $4 == cut - $2 { ok = 1 }
		END { exit !ok }' "$w/$label.io" ||
		bad "$label: the cut did not fall inside a $call: $(cat "$w/$label.io")"
	grep -q "$ring: offset $((cut)): the file ends there ($cut bytes), the ring needs [0-9]* bytes: truncated under the collector" "$w/$label.err" ||
		bad "$label: no message naming the ring and the offset: $(cat "$w/$label.err")"
	grep -q "^core0: stopped: .*truncated.*its stream holds 600 whole packets, $((600 * 1024)) bytes" "$w/$label.out" ||
		bad "$label: the summary does not say the stream holds the 600 packets before the cut"
	cmp -s "$w/$label/core0/stream" "$w/expect" ||
		bad "$label: the stream is not the 600 packets before the cut ($(stat -c %s "$w/$label/core0/stream") bytes)"
	babeltrace2 "$w/$label" >"$w/$label.txt" 2>"$w/$label.bterr" ||
		bad "$label: babeltrace2: $(head -3 "$w/$label.bterr")"
	awk '/ tick: / { match($0, /n = [0-9]+/); v = substr($0, RSTART + 4, RLENGTH - 4) + 0
			if (v != n++) { print "n = " v " at " n - 1; exit 1 } }
		END { if (n != 600 * 79) { print n " ticks"; exit 1 } }' "$w/$label.txt" ||
		bad "$label: ticks"
}
run direct "$w/ring" copy_file_range
if [ "$(stat -f -c %i /dev/shm)" != "$(stat -f -c %i "$w")" ]; then
	run pread "$shm" pread
else
	echo "skipped: pread (/dev/shm and $w are one file system)"
fi
exit $fail
