#!/usr/bin/env bash
# Whole packets or nothing on disk: when the stream files cannot be
# written (a full file system: ENOSPC; a file size limit: EFBIG), each
# stream file is cut back to its last whole packet, the summary says
# exactly what each file holds (packets, bytes), the exit status is 1,
# and babeltrace2 reads the capture. Packets of 1304 bytes, so that
# the limits fall inside a packet. The size-limited tmpfs needs root
# (mount); the file size limit (ulimit -f) runs everywhere.
set -u
cd "$(dirname "$0")"
: "${TOP:=$(cd ../../.. && pwd)}"
. ../../lib.sh
. ./build-producer.sh producer
mnt=
cleanup() {
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	rm -rf "$w"
}
trap cleanup EXIT

N=40000
case_run() { # LABEL CAPTURE [ulimit -f BLOCKS]
	local label=$1 cap=$2 blocks=${3:-unlimited} rc pid c size
	rm -f "$w/ready"
	"$w/producer" -s 1304 -n 4 -r "$w/ready" wait "$w/$label-r" 2 $N >"$w/$label.prod" 2>&1 &
	pid=$!
	for _ in $(seq 1000); do [ -e "$w/ready" ] && break; sleep 0.01; done
	(ulimit -f "$blocks"
	 bounded 60 4000 "$HETRACE" record -o "$cap" "$w/$label-r0" "$w/$label-r1" >"$w/$label.out" 2>"$w/$label.err")
	rc=$?
	# The producer waits 20 s at most for slots nobody frees, then drops.
	kill $pid 2>/dev/null; wait $pid 2>/dev/null
	cat "$w/$label.out"
	[ "$rc" = 1 ] || bad "$label: record exit $rc, want 1: $(head -3 "$w/$label.err")"
	grep -q "stream: write error: $4" "$w/$label.err" ||
		bad "$label: no write error message: $(head -3 "$w/$label.err")"
	for c in 0 1; do
		size=$(stat -c %s "$cap/core$c/stream")
		[ "$(awk -v c=core$c '$1 == c && $3 == "discard" { print $5 }' "$w/$label.out")" = "$size" ] ||
			bad "$label: core$c: the summary's bytes are not the file's $size"
		[ $((size % 1304)) = 0 ] || bad "$label: core$c: $size bytes: a partial packet"
	done
	grep -q "^core[01]: stopped: .*write error.*its stream holds [0-9]* whole packets" "$w/$label.out" ||
		bad "$label: the summary does not say what the stopped stream holds"
	babeltrace2 "$cap" >"$w/$label.txt" 2>"$w/$label.bterr" ||
		bad "$label: babeltrace2 cannot read the capture: $(head -3 "$w/$label.bterr")"
	for c in 0 1; do
		# What is there is the start of the core's ticks, in order.
		awk -v c=$c '/ tick: / && $0 ~ ("core = " c " }") {
				match($0, /n = [0-9]+/); v = substr($0, RSTART + 4, RLENGTH - 4) + 0
				if (v != n++) { printf "core %d: n = %d at %d\n", c, v, n - 1; exit 1 } }' \
			"$w/$label.txt" || bad "$label: core$c: ticks"
	done
}

# A file size limit: 300 KiB per file; SIGXFSZ is ignored by record,
# the write fails with EFBIG.
case_run efbig "$w/cap-efbig" 300 "File too large"
echo "ran: ulimit -f (EFBIG)"

# A full file system: a 384 KiB tmpfs (root only).
mkdir -p "$w/mnt"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=384k tmpfs "$w/mnt" 2>/dev/null; then
	mnt="$w/mnt"
	case_run enospc "$mnt/cap" unlimited "No space left on device"
	echo "ran: size-limited tmpfs (ENOSPC)"
else
	echo "skipped: size-limited tmpfs (ENOSPC): mount not permitted"
fi
exit $fail
