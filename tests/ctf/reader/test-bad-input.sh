#!/usr/bin/env bash
# Damaged traces (corrupt.py on the "basic" trace): hetrace info exits
# 1 with a message naming the file and byte offset (or metadata
# line:column); the events before the damage are still read; with
# --keep-going a damaged packet is skipped: at its packet_size when it
# is usable, else at the previous packet's size or the next packet
# magic (a bad magic, a packet_size past the end of the file).
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$TOP/tests/ctf/reader/mktrace.sh" basic "$tmp/good" 1000 >/dev/null

# KIND | expected message | events in main (stop) | events in main (-k)
cases=(
	"truncated|trace/main offset=2560: packet_size 512 bytes goes past the end of the file (300 bytes left)|49|49"
	"magic|trace/main offset=2560: wrong packet magic 0xdeadbeef (expected 0xc1fc1fc1)|49|941"
	"packet-size|trace/main offset=2560: packet_size 137438953472 bytes goes past the end of the file (46592 bytes left)|49|941"
	"content-size|trace/main offset=2560: content_size 8192 bits is larger than packet_size 4096 bits|49|941"
	"event-id|trace/main offset=185: event id 0 is not declared|2|89"
	"syntax|trace/metadata:38:12: expected ';', found a number||"
	"wide-int|trace/metadata:58:11: integer size 128: only 1 to 64 bits are supported||"
)
for c in "${cases[@]}"; do
	IFS='|' read -r kind msg stop_n keep_n <<<"$c"
	rm -rf "$tmp/$kind"
	mkdir -p "$tmp/$kind"
	cp -r "$tmp/good/trace" "$tmp/$kind/trace"
	"$TOP/tests/ctf/reader/corrupt.py" "$kind" "$tmp/$kind/trace"
	cd "$tmp/$kind"
	set +e
	"$HETRACE" info trace >out 2>err
	rc=$?
	set -e
	if [ "$rc" != 1 ]; then
		echo "FAIL $kind: exit $rc, expected 1"
		exit 1
	fi
	if ! grep -qF -- "$msg" err; then
		echo "FAIL $kind: expected message: $msg"
		cat err
		exit 1
	fi
	if [ -n "$stop_n" ]; then
		got=$(awk '/stream main:/ { m = 1 } m && /events:/ { print $2; exit }' out)
		[ "$got" = "$stop_n" ] || { echo "FAIL $kind: main has $got events before the damage, expected $stop_n"; exit 1; }
		set +e
		"$HETRACE" info --keep-going trace >out-k 2>err-k
		rc=$?
		set -e
		[ "$rc" = 1 ] || { echo "FAIL $kind -k: exit $rc"; exit 1; }
		got=$(awk '/stream main:/ { m = 1 } m && /events:/ { print $2; exit }' out-k)
		[ "$got" = "$keep_n" ] || { echo "FAIL $kind -k: main has $got events, expected $keep_n"; exit 1; }
		grep -q "events: 250" out-k || { echo "FAIL $kind -k: the aux stream is not complete"; exit 1; }
		# print: the same message and exit status, every event
		# before the damage printed (main's and all 250 of aux)
		for k in "" "-k"; do
			set +e
			"$HETRACE" print $k trace >pout 2>perr
			rc=$?
			set -e
			want=$((stop_n + 250))
			[ -z "$k" ] || want=$((keep_n + 250))
			[ "$rc" = 1 ] && grep -qF -- "$msg" perr || { echo "FAIL $kind print $k: exit $rc"; cat perr; exit 1; }
			[ "$(wc -l <pout)" = "$want" ] || { echo "FAIL $kind print $k: $(wc -l <pout) lines, expected $want"; exit 1; }
		done
	fi
	cd - >/dev/null
	echo "ok $kind"
done

# a packet_size past the end of the file and a magic only further on, at
# an offset that is not a multiple of the packet size: the scan finds it
rm -rf "$tmp/scan"
mkdir -p "$tmp/scan"
cp -r "$tmp/good/trace" "$tmp/scan/trace"
python3 - "$tmp/scan/trace/main" <<'PY'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
PKT = 5 * 512
struct.pack_into("<Q", b, PKT + 28, 1 << 40)  # packet 5: size past the end
struct.pack_into("<I", b, PKT + 512, 0xDEADBEEF)  # packet 6: bad magic
b[PKT + 700:PKT + 700] = b"\0" * 3  # packet 7 now starts 3 bytes later
open(p, "wb").write(b)
PY
set +e
"$HETRACE" info --keep-going "$tmp/scan/trace" >"$tmp/scan/out" 2>"$tmp/scan/err"
rc=$?
set -e
[ "$rc" = 1 ] || { echo "FAIL scan: exit $rc"; exit 1; }
got=$(awk '/stream main:/ { m = 1 } m && /events:/ { print $2; exit }' "$tmp/scan/out")
# packets 5 and 6 lost (about 2 x 46 events), the rest read
[ "$got" -gt 800 ] && [ "$got" -lt 941 ] || { echo "FAIL scan: main has $got events"; cat "$tmp/scan/err"; exit 1; }
grep -q "offset=2560: packet_size" "$tmp/scan/err" || { echo "FAIL scan: no message for packet 5"; cat "$tmp/scan/err"; exit 1; }
echo "ok scan for the next magic ($got events)"

# empty directories: a clear message, no crash (UBSan: no qsort of NULL)
mkdir -p "$tmp/empty/sub" "$tmp/onlymeta"
set +e
"$HETRACE" info "$tmp/empty" >/dev/null 2>"$tmp/empty.err"
rc=$?
set -e
[ "$rc" = 1 ] && grep -q "no CTF trace found" "$tmp/empty.err" || { echo "FAIL empty directory: exit $rc"; cat "$tmp/empty.err"; exit 1; }
cp "$tmp/good/trace/metadata" "$tmp/onlymeta/"
"$HETRACE" info "$tmp/onlymeta" | grep -q "^total: 1 traces, 0 streams, 0 events" || { echo "FAIL metadata without streams"; exit 1; }
echo "ok empty directories"
