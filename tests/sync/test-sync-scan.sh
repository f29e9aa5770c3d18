#!/usr/bin/env bash
# The capture scan's two ways of reading the events (capture-scan.c) give
# the same result: per stream, the fields of the handshake and message
# events read from their records' bytes (capture-fields.c), and through the
# trace set, every event decoded (HETRACE_SCAN_DECODE=1). On captures built
# here (tests/sync/mkcapture.py):
#   wide    sync_* payloads with a string, an array, a 3-bit and a
#           big-endian 16-bit member before `_seq` (32 bits aligned on 32)
#           and `_slave` (7 bits), or a 3-bit one before a 29-bit `_seq`
#           (in a big-endian trace too): the same fits as the plain
#           capture with the same events
#   split   a core whose packets alternate between two stream files (its
#           handshakes taken in time order over both)
#   broken  a repeated sync_ack, a sync_recv whose seq goes back, damaged
#           timestamps (beyond 2^62, a dip)
#   noisy   300 damaged timestamps on one core and some on another: more
#           problems than notes kept
# Each: stdout, the report and the merged trace the same both ways, under
# 20 s and 2 GB; the notes the same (`broken`: the same lines, in another
# order: the trace set's order follows the damaged times). The per-stream
# way orders the notes by the time their stream had reached (per core's
# clock; a damaged timestamp does not count), then by position: checked on
# `broken` and `noisy` (the earliest kept, "... and N more" counting the
# others).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/sync-lib.sh"
py=/usr/bin/python3

# sync NAME CAPTURE WANT: both ways
sync_both() {
	local name=$1 cap=$2 want=$3 mode var
	for mode in stream decode; do
		var=
		[ $mode = stream ] || var=HETRACE_SCAN_DECODE
		sync_way "$name" $mode "$want" "$var" "$cap"
		grep -q 'AddressSanitizer\|runtime error' "$w/$name.$mode.err" &&
			bad "$name ($mode): sanitizer report"
		sed -i "s|$w/$name.$mode|OUT|g" "$w/$name.$mode.out" "$w/$name.$mode.json"
	done
	return 0
}

# same NAME [sorted|none]: the two ways agree (the notes: as they are, as
# sets of lines, or not compared)
same() {
	local name=$1 notes=${2:-} f
	cmp -s "$w/$name.stream.out" "$w/$name.decode.out" ||
		bad "$name: stdout differs: $(diff "$w/$name.decode.out" "$w/$name.stream.out" | head -5)"
	if [ -z "$notes" ]; then
		cmp -s "$w/$name.stream.err" "$w/$name.decode.err" ||
			bad "$name: notes differ: $(diff "$w/$name.decode.err" "$w/$name.stream.err" | head -5)"
	elif [ "$notes" = sorted ]; then
		[ "$(sort "$w/$name.stream.err")" = "$(sort "$w/$name.decode.err")" ] ||
			bad "$name: notes differ: $(diff <(sort "$w/$name.decode.err") <(sort "$w/$name.stream.err") | head -5)"
	fi
	cmp -s "$w/$name.stream.json" "$w/$name.decode.json" ||
		bad "$name: report differs: $(diff "$w/$name.decode.json" "$w/$name.stream.json" | head -5)"
	for f in "$w/$name.decode"/*; do
		cmp -s "$f" "$w/$name.stream/$(basename "$f")" ||
			bad "$name: $(basename "$f") differs"
	done
	[ -s "$w/$name.stream.out" ] || bad "$name: no output"
}

# the fits of NAME: the rows of the cores' table
fits() { grep -E '^(arm0|dsp0|mcu0) ' "$w/$1.stream.out"; }

$py "$here/mkcapture.py" "$w/plain" "$w/t.json"
$py "$here/mkcapture.py" "$w/wide" "$w/t.json" --wide-sync
sync_both plain "$w/plain" 0
sync_both wide "$w/wide" 0
same plain
same wide
[ "$(fits wide)" = "$(fits plain)" ] ||
	bad "wide: fits differ from the plain capture's: $(fits wide)"
grep -q '^dsp0 *accurate .* 232 ' "$w/wide.stream.out" ||
	bad "wide: dsp0's pairs: $(grep '^dsp0' "$w/wide.stream.out")"

$py "$here/mkcapture.py" "$w/split" "$w/t.json" --split dsp0 --wide-sync
sync_both split "$w/split" 0
same split
[ "$(fits split)" = "$(fits plain)" ] ||
	bad "split: fits differ from the plain capture's: $(fits split)"

big=$(((1 << 62) + 5))
$py "$here/mkcapture.py" "$w/broken" "$w/t.json" --dup-ack --back-recv \
	--wild arm0:sync_req:20:$big --wild mcu0:sync_ack:7:5 --wild arm0:msg_send:3:$big
sync_both broken "$w/broken" 1
same broken sorted
grep -q 'damaged timestamp' "$w/broken.stream.err" || bad "broken: no damaged timestamp noted"
grep -q 'repeats sequence number' "$w/broken.stream.err" || bad "broken: no repeated seq noted"

# notes_ordered NAME: the notes of each stream in file order, the cores'
# in the order of their clocks' times (here arm0's ms, dsp0's 21 s, mcu0's
# hour)
notes_ordered() {
	$py - "$w/$1.stream.err" <<'PY' || bad "$1: notes out of order: $(cut -c1-150 "$w/$1.stream.err" | head -12)"
import re, sys
last = {}
cores = []
for line in open(sys.argv[1]):
    m = re.search(r"/(arm0|dsp0|mcu0)/stream (?:packet=\d+ )?offset=(\d+)", line)
    if not m:
        continue
    core, off = m.group(1), int(m.group(2))
    assert off >= last.get(core, -1), line
    last[core] = off
    if not cores or cores[-1] != core:
        cores.append(core)
assert cores == sorted(cores), cores
PY
}
notes_ordered broken

# noisy: 300 dips on arm0's work events, 5 on mcu0's
args=()
for k in $(seq 10 309); do args+=(--wild "arm0:work:$k:5"); done
for k in 3 5 7 9 11; do args+=(--wild "mcu0:work:$k:5"); done
$py "$here/mkcapture.py" "$w/noisy" "$w/t.json" "${args[@]}"
sync_both noisy "$w/noisy" 1
same noisy none
# 20 notes shown, then the count of the others: one per damaged timestamp
# and per damaged packet (the reader's "time goes backwards")
n=$(grep -c '^hetrace sync: file=\|^hetrace sync: damaged stream' "$w/noisy.stream.err" || true)
[ "$n" = 20 ] || bad "noisy: $n notes shown, want 20"
more=$(sed -n 's/.*\.\.\. and \([0-9]*\) more/\1/p' "$w/noisy.stream.err")
grep -q '"damaged_timestamps": 305' "$w/noisy.stream.json" ||
	bad "noisy: report's damaged timestamps: $(grep -o '"damaged_timestamps": [0-9]*' "$w/noisy.stream.json")"
pk=$(sed -n 's/.*"damaged_packets": \([0-9]*\).*/\1/p' "$w/noisy.stream.json")
[ "$((20 + ${more:-0}))" = "$((305 + ${pk:-0}))" ] ||
	bad "noisy: 20 + $more notes, want 305 + $pk"
notes_ordered noisy
# the earliest kept: arm0's first damaged timestamp (its 10th work event)
# first
head -1 "$w/noisy.stream.err" | grep -q "arm0/stream offset=.*timestamp 5 cycles" ||
	bad "noisy: first note: $(head -1 "$w/noisy.stream.err")"
exit $fail
