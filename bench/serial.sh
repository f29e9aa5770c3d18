#!/usr/bin/env bash
# The host side of the serial link: `hetrace record --serial` receiving
# PACKET frames through a unix socket from bench/serial/sender.c, which
# sends them as fast as the socket takes them (encoded with
# runtime/serial-frame.c, the target's encoder) and answers the sync
# rounds. The packets are real ones: recorded first from the native test
# target (tests/runtime/serial/native-target.c) with 512- and 4096-byte
# packets. The anchor is a 12 Mbit/s USB-serial link (1.5 MB/s of
# packets): the ratio must be >= 1 with no frame lost. The overhead is
# what a frame adds to its packet on the wire: header 4, CRC 4, COBS
# (1 per 254), the delimiter.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
cd "$top"
FRAMES=${FRAMES:-20000}

tests/runtime/serial/build-target.sh "$work/nt" >/dev/null
cc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude -o "$work/sender" \
	bench/serial/sender.c runtime/serial-frame.c

printf '%-10s %8s %10s %8s %10s %6s %10s %10s\n' packet frames "frames/s" "MB/s" "x 1.5MB/s" lost "ovh B/fr" "ovh %"
for size in 512 4096; do
	# Real packets of this size from the native target.
	"$work/nt/native-target" --unix "$work/nt-$size.sock" --slot-size "$size" \
		--step-us 100 --exit-after 30 >/dev/null 2>&1 &
	tpid=$!
	for _ in $(seq 100); do [ -S "$work/nt-$size.sock" ] && break; sleep 0.05; done
	"$HETRACE" record --serial "unix:$work/nt-$size.sock" -o "$work/src-$size" \
		--seconds 0.5 -q --no-fsync
	kill "$tpid" 2>/dev/null || true
	wait "$tpid" 2>/dev/null || true

	sock=$work/bench-$size.sock
	"$work/sender" "$sock" "$work/src-$size/native/metadata" \
		"$work/src-$size/native/stream" "$size" "$FRAMES" >"$work/sender-$size.out" &
	spid=$!
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
	"$HETRACE" record --serial "unix:$sock" -o "$work/cap-$size" -q --no-fsync \
		>/dev/null 2>"$work/record-$size.err" &
	rpid=$!
	for _ in $(seq 1200); do [ -s "$work/sender-$size.out" ] && break; sleep 0.05; done
	kill -INT "$rpid"
	wait "$rpid" || { cat "$work/record-$size.err"; exit 1; }
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	python3 - "$work/sender-$size.out" "$work/cap-$size/record.json" "$size" <<'PY'
import json, sys
f = sys.argv[1]
v = open(f).read().split()
s = dict(zip(v[0::2], v[1::2]))
r = json.load(open(sys.argv[2]))
frames, nbytes, wire, secs = int(s["frames"]), int(s["bytes"]), int(s["wire"]), float(s["seconds"])
got = r["streams"][0]["packets"]
lost = r["line"]["lost_frames"] + (frames - got)
mbs = nbytes / secs / 1e6
ovh = (wire - nbytes) / frames
print(f"{sys.argv[3] + ' B':<10} {frames:8d} {frames / secs:10.0f} {mbs:8.1f} "
      f"{mbs / 1.5:10.1f} {lost:6d} {ovh:10.2f} {100 * ovh / int(sys.argv[3]):9.2f}%")
if lost or mbs < 1.5:
    sys.exit(1)
PY
done
echo "(frames/s and MB/s of packets as the host took them; lost: frames missing"
echo " by sequence number or not in the capture; overhead: line bytes per frame"
echo " beyond the packet)"
