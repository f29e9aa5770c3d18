#!/usr/bin/env bash
# The merge's two paths write the same trace: records copied as bytes
# (host/sync/merge-copy.c) and records decoded then encoded
# (HETRACE_MERGE_DECODE=1), on captures built here:
#   packed  mkcapture.py --packed --split mcu0: every field type
#           (bit-packed, big-endian, strings, sequences, variants),
#           a big-endian core whose 32-bit timestamps wrap, a 32 kHz
#           core whose receives are moved within their tick and whose
#           packets alternate between two stream files, discarded events
#   damaged bench/merge/gen.c, 6 cores, a damaged packet (bad magic)
#           in one core's stream
#   truncated  gen.c, 4 cores, one stream cut in the middle of a packet
#   sim     hetrace sim, 3 slaves: the compact/extended event header,
#           64-bit fields aligned on 8 bytes after it
#   aligned mkcapture.py as is (a double aligned on 64 bits): decoded
# Each: the stream files byte for byte, `hetrace print` and babeltrace2
# the same, the report's events_copied (every event, or none for
# `aligned`), the damaged packet counted by both. The stream files of
# `packed` and `aligned` are also compared with digests of the files
# that the field-by-field merge wrote before the copying one existed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/sync-lib.sh"
py=/usr/bin/python3
top=$(cd "$here/../.." && pwd)

# sync NAME CAPTURE: both paths, under 20 s and 2 GB
sync_both() {
	sync_way "$1" copy "${3:-0}" "" "$2"
	sync_way "$1" decode "${3:-0}" HETRACE_MERGE_DECODE "$2"
}

# same NAME: the two outputs agree
same() {
	local name=$1 f n=0
	for f in "$w/$name.decode"/*; do
		[ "$(basename "$f")" = metadata ] && continue
		n=$((n + 1))
		cmp -s "$f" "$w/$name.copy/$(basename "$f")" ||
			bad "$name: $(basename "$f") differs between the two paths"
	done
	[ $n -gt 0 ] || bad "$name: no stream written"
	cmp -s "$w/$name.decode/metadata" "$w/$name.copy/metadata" ||
		bad "$name: metadata differs"
	"$HETRACE" print "$w/$name.copy" >"$w/$name.copy.txt" 2>/dev/null ||
		bad "$name: hetrace print (copy)"
	"$HETRACE" print "$w/$name.decode" >"$w/$name.decode.txt" 2>/dev/null ||
		bad "$name: hetrace print (decode)"
	[ -s "$w/$name.copy.txt" ] || bad "$name: nothing printed"
	cmp -s "$w/$name.copy.txt" "$w/$name.decode.txt" ||
		bad "$name: hetrace print differs: $(diff "$w/$name.copy.txt" "$w/$name.decode.txt" | head -4)"
	babeltrace2 "$w/$name.copy" >"$w/$name.copy.bt" 2>/dev/null || bad "$name: babeltrace2 (copy)"
	babeltrace2 "$w/$name.decode" >"$w/$name.decode.bt" 2>/dev/null || bad "$name: babeltrace2 (decode)"
	cmp -s "$w/$name.copy.bt" "$w/$name.decode.bt" || bad "$name: babeltrace2 output differs"
}

# report NAME KEY: the value of "KEY" in the report of path copy
report() { $py -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$w/$1.copy.json" "$2"; }

# digests NAME FILE=MD5...: the stream files of the copy path
digests() {
	local name=$1 kv
	shift
	for kv in "$@"; do
		[ "$(md5sum <"$w/$name.copy/${kv%%=*}" | cut -d' ' -f1)" = "${kv#*=}" ] ||
			bad "$name: ${kv%%=*} is not the field-by-field merge's"
	done
}

# --- packed: every record copied ---
$py "$here/mkcapture.py" "$w/packed" "$w/packed.json" --packed --split mcu0
sync_both packed "$w/packed"
same packed
[ "$(report packed events_copied)" = 3539 ] ||
	bad "packed: $(report packed events_copied) events copied, want 3539"
grep -q 'dsp0: 5 discarded event' "$w/packed.copy.out" || bad "packed: discarded events"
grep -q 'mcu0 *accurate' "$w/packed.copy.out" || bad "packed: mcu0 not fitted"
[ "$(grep -c . "$w/packed.copy.txt")" = 3539 ] || bad "packed: events printed"
digests packed arm0=f3f398ea10617ced59fff11c31f19dcb \
	dsp0=b9ca94ff858e94c47f6e43e74f1dd3ed \
	mcu0_stream=24e261358f655ac8cc2e9dd56a2d49e3 \
	mcu0_stream_1=c9e123bd23877e9cda4dcad5478c0dc0

# --- damaged: a packet with a bad magic, skipped and counted ---
cc -O2 -std=c11 -o "$w/gen" "$top/bench/merge/gen.c"
n=$("$w/gen" "$w/damaged" 6 20000)
$py - "$w/damaged/core2/stream" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[3 * 16384] ^= 0xff  # the magic of the fourth packet (16 KiB packets)
open(p, "wb").write(b)
PY
sync_both damaged "$w/damaged" 1
same damaged
copied=$(report damaged events_copied)
events=$(report damaged events)
[ "$copied" = "$events" ] && [ "$events" -gt $((n - 1000)) ] && [ "$events" -lt "$n" ] ||
	bad "damaged: $copied of $events events copied, $n written (one packet lost)"
for mode in copy decode; do
	grep -q 'damaged packet' "$w/damaged.$mode.err" "$w/damaged.$mode.out" ||
		bad "damaged ($mode): the damaged packet is not told"
done

# --- truncated: a stream cut in the middle of a packet ---
"$w/gen" "$w/truncated" 4 20000 >/dev/null
f=$w/truncated/core3/stream
truncate -s $(($(stat -c %s "$f") - 5000)) "$f"
sync_both truncated "$w/truncated" 1
same truncated
[ "$(report truncated events_copied)" = "$(report truncated events)" ] &&
	[ "$(report truncated events)" -gt 60000 ] ||
	bad "truncated: $(report truncated events_copied) of $(report truncated events) events copied"

# --- sim: the simulated board (hetrace's compact/extended event
# header on 4 bytes, 64-bit fields aligned on 8: records copied or laid
# out again) ---
bounded 60 2000 "$HETRACE" sim -o "$w/sim" --cores 3 --seconds 1 --sync-ms 10 --no-fsync -q ||
	bad "sim failed"
sync_both sim "$w/sim"
same sim
[ "$(report sim events_copied)" = "$(report sim events)" ] && [ "$(report sim events)" -gt 1000 ] ||
	bad "sim: $(report sim events_copied) of $(report sim events) events copied"

# --- aligned: a double aligned on 64 bits, every core decoded ---
$py "$here/mkcapture.py" "$w/aligned" "$w/aligned.json"
sync_both aligned "$w/aligned"
same aligned
[ "$(report aligned events_copied)" = 0 ] || bad "aligned: records copied"
[ "$(report aligned events)" = 3539 ] || bad "aligned: events"
digests aligned arm0=0144dd0c27884d69c0fd4f752e4a1eb5 \
	dsp0=9fb3d2c934ea770cb2afba8ad0d67cfe mcu0=5a8a9fb9f928d6dbf2efcd1b17f1f206

[ $fail = 0 ] && echo "test-merge-copy: ok"
exit $fail
