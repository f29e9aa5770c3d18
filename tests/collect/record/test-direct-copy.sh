#!/usr/bin/env bash
# The direct copy of a discard ring in a file (host/collect/capture-
# writer.c: copy_file_range() from the ring's file into the stream file,
# each packet's header and context checked as the stream file holds
# them) against rings built here: a stopped producer's ring (1250
# packets of 1024-byte slots, indices and slots wrapping) whose packets
# ring-edit.py changes in the middle of what the direct copy takes in
# one call: packets that do not fill their slots, damaged packets, a
# jump of the producer's numbering, a first packet rejected (every
# packet renumbered). Each ring is collected three ways:
#   direct  ring file and capture on the same file system (/tmp)
#   exdev   ring in /dev/shm, capture in /tmp: copy_file_range() fails
#           with EXDEV and the copy (pread, check, writev) does it all
#   tmpfs   ring and capture in /dev/shm: the direct copy within tmpfs
# and each capture must be the stream ring-edit.py computed (byte for
# byte), whole good packets only, read by babeltrace2 with the right
# ticks and as many lost packets as record rejected (plus the jumps).
# ring-io.so (LD_PRELOAD) logs the collector's reads of the ring file,
# to check which way each run went.
set -u
cd "$(dirname "$0")"
: "${TOP:=$(cd ../../.. && pwd)}"
. ../../lib.sh
. ./build-producer.sh producer ring-io.so
shm=/dev/shm/ht-direct-$$
trap 'rm -rf "$w" "$shm"*' EXIT

if [ "$(stat -f -c %i /dev/shm)" = "$(stat -f -c %i "$w")" ]; then
	echo "skipped: /dev/shm and $w are one file system (no EXDEV case)"
	exit 0
fi

N=100000
"$w/producer" -s 1024 -n 2048 -w 0xffffff00 discard "$w/orig" 1 $N >"$w/prod.out" ||
	{ echo "FAIL: producer: $(cat "$w/prod.out")"; exit 1; }

# collect LABEL RING CAPTURE: record RING into CAPTURE, reads of RING
# logged into LABEL.io.
collect() {
	local label=$1 ring=$2 cap=$3 rc
	HT_RING_IO_FILE=$ring HT_RING_IO_LOG=$w/$label.io LD_PRELOAD=$w/ring-io.so \
		bounded 20 4000 "$HETRACE" record -o "$cap" "$ring" >"$w/$label.out" 2>"$w/$label.err"
	rc=$?
	[ "$rc" = 0 ] || bad "$label: record exit $rc: $(head -3 "$w/$label.err")"
	touch "$w/$label.io"
}

# The copy_file_range() calls of the run LABEL that copied something.
direct_calls() {
	awk '$1 == "copy_file_range" && $4 > 0' "$w/$1.io" | wc -l
}

# A direct copy stopped at a packet hands that packet to the copy: the
# read that follows it is never another direct copy from inside it.
once_each() { # LABEL
	awk '$1 == "copy_file_range" && $4 > 0 {
			if ($2 > from && $2 < to) { print "at " $2 " again"; exit 1 }
			from = $2; to = $2 + $4; next }
		{ from = to = 0 }' "$w/$1.io" ||
		bad "$1: slots copied directly twice: $(cat "$w/$1.io")"
}

# check LABEL CAPTURE EXPECT REJECTED JUMPS
check() {
	local label=$1 cap=$2 expect=$3 rejected=$4 jumps=$5 packets lost gaps
	cmp -s "$cap/core0/stream" "$expect" ||
		bad "$label: the stream is not the ring's good packets ($(cmp "$cap/core0/stream" "$expect" 2>&1))"
	packets=$(python3 ring-edit.py check "$cap/core0/stream" 1024) ||
		bad "$label: $packets"
	awk -v l="$label" -v p="$packets" -v r="$rejected" -v b="$(stat -c %s "$cap/core0/stream")" '
		$1 == "core0" { seen = 1
			if ($4 != p || $5 != b || $8 != 0 || $9 != r) {
				printf "%s: summary %s packets %s bytes %s lost %s damaged, want %d %d 0 %d\n",
					l, $4, $5, $8, $9, p, b, r; exit 1 } }
		END { if (!seen) { print l ": no summary"; exit 1 } }' "$w/$label.out" ||
		bad "$label: summary"
	[ "$(grep -c "core0): packet [0-9]* (slot [0-9]* at offset [0-9]*): .*: skipped" "$w/$label.err")" = "$rejected" ] ||
		bad "$label: rejected packets not each reported: $(head -3 "$w/$label.err")"
	babeltrace2 "$cap" >"$w/$label.txt" 2>"$w/$label.bterr" ||
		{ bad "$label: babeltrace2: $(head -3 "$w/$label.bterr")"; return; }
	lost=$(sed -n 's/.*Tracer discarded \([0-9]*\) packets* between.*/\1/p' "$w/$label.bterr" |
		awk '{ s += $1 } END { print s + 0 }')
	[ "$lost" = $((rejected + jumps)) ] ||
		bad "$label: babeltrace2 reports $lost lost packets, want $rejected rejected + $jumps"
	# The ticks: increasing, the last one traced last; a gap per
	# rejected packet (none of them adjacent), none when all are kept.
	gaps=$(awk '/ tick: / { match($0, /n = [0-9]+/); v = substr($0, RSTART + 4, RLENGTH - 4) + 0
			if (n++ && v <= prev) { print "n = " v " after " prev; exit 1 }
			if (n > 1 && v != prev + 1) g++; if (n == 1 && v != 0) g++; prev = v }
		END { if (prev != '$((N - 1))') { print "last n = " prev; exit 1 } print g + 0 }' "$w/$label.txt") ||
		bad "$label: ticks: $gaps"
	[ "$gaps" = "$rejected" ] || bad "$label: $gaps gaps in the ticks, want $rejected"
}

# run_case LABEL REJECTED JUMPS DIRECT EDIT...: DIRECT 1 when the direct
# copy must take part (0: the ring is renumbered, the copy takes all).
run_case() {
	local label=$1 rejected=$2 jumps=$3 direct=$4 n
	shift 4
	cp "$w/orig0" "$w/$label.ring"
	python3 ring-edit.py edit "$w/$label.ring" "$w/$label.expect" "$@" ||
		{ bad "$label: ring-edit.py"; return; }
	cp "$w/$label.ring" "$shm-$label.x"
	cp "$w/$label.ring" "$shm-$label.t"

	collect "$label-direct" "$w/$label.ring" "$w/$label-direct"
	check "$label-direct" "$w/$label-direct" "$w/$label.expect" "$rejected" "$jumps"
	n=$(direct_calls "$label-direct")
	if [ "$direct" = 1 ]; then
		# Taken up again after the packets that needed the copy.
		[ "$n" -ge 2 ] || bad "$label-direct: $n direct copies, want 2 at least: $(cat "$w/$label-direct.io")"
		once_each "$label-direct"
	else
		[ "$n" = 0 ] || bad "$label-direct: renumbered packets copied directly: $(cat "$w/$label-direct.io")"
	fi

	collect "$label-exdev" "$shm-$label.x" "$w/$label-exdev"
	check "$label-exdev" "$w/$label-exdev" "$w/$label.expect" "$rejected" "$jumps"
	[ "$(direct_calls "$label-exdev")" = 0 ] || bad "$label-exdev: copied across file systems?"
	if [ "$direct" = 1 ]; then
		grep -q "^copy_file_range .* -1 Invalid cross-device link" "$w/$label-exdev.io" ||
			bad "$label-exdev: no EXDEV: $(cat "$w/$label-exdev.io")"
	fi

	collect "$label-tmpfs" "$shm-$label.t" "$shm-$label.cap"
	check "$label-tmpfs" "$shm-$label.cap" "$w/$label.expect" "$rejected" "$jumps"
	n=$(direct_calls "$label-tmpfs")
	[ "$direct" = 0 ] || [ "$n" -ge 2 ] || bad "$label-tmpfs: $n direct copies, want 2 at least"
	once_each "$label-tmpfs"
	rm -rf "$shm-$label".*
	echo "ran: $label"
}

# The first 256 packets go through the copy (the first packet of a ring
# does), the direct copy takes up at packet 256 and stops at the first
# packet that does not fill its slot or fails: 300 and 850 or 900 here,
# each in the middle of a direct copy's packets; the copy then takes a
# batch (256 packets) with it, and a full batch after it, before the
# direct copy takes up again.
run_case short 0 5 1 300:short 302:short 850:seq 900:short 1210:short
run_case magic-big 2 0 1 300:magic 850:big
run_case stream-content 2 0 1 300:stream 850:content 1000:short
# The first packet rejected: a loss marker, every packet renumbered.
run_case first 2 0 0 0:magic 300:short 900:content
exit $fail
