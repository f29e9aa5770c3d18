#!/usr/bin/env bash
# hetrace record --serial against the native test target
# (tests/runtime/serial/native-target.c) over a unix socket, --socket and
# a pseudo-terminal: the capture decodes with babeltrace2 (the target's
# function events name its own functions, the host's sync events name
# the target's core), record.json counts what the line carried, and
# `hetrace sync` fits the target's clock accurately: target and host
# both run on CLOCK_MONOTONIC, so the fitted offset must be 0 within the
# printed bound.
set -u
cd "$(dirname "$0")"
: "${TOP:=$(cd ../../.. && pwd)}"
. ../../lib.sh
. ./serial-lib.sh
tpid=
build_target

# check_capture WHAT: the capture $cap of a clean run.
check_capture() {
	local what=$1 rounds n req recv fn addr
	[ "$(json complete)" = true ] || bad "$what: record.json not complete"
	[ "$(json line_lost)" = false ] || bad "$what: line_lost"
	[ "$(json line lost_frames)" = 0 ] || bad "$what: lost frames"
	[ "$(json line crc_errors)" = 0 ] || bad "$what: CRC errors"
	bt2_reads "$what" "$cap/native"
	bt2_reads "$what" "$cap/host"
	babeltrace2 "$cap/native" >"$w/native.txt" 2>"$w/bt.err"
	[ -s "$w/bt.err" ] && bad "$what: babeltrace2 says: $(head -2 "$w/bt.err")"
	n=$(grep -c 'func_entry:' "$w/native.txt")
	[ "$n" -gt 100 ] || bad "$what: $n func_entry events"
	# The addresses are the target's functions (built without -pie).
	fn=$(nm "$w/nt/native-target" | awk '$3 == "work_step" {print $1}')
	addr=$(printf '0x%X' "0x$fn")
	grep -q "func_entry: .*addr = $addr," "$w/native.txt" ||
		bad "$what: no func_entry of work_step ($addr)"
	[ "$(json packets)" = "$(json streams 0 packets)" ] ||
		bad "$what: packets $(json packets) != stream's $(json streams 0 packets)"
	rounds=$(json sync rounds)
	[ "$rounds" -ge 5 ] || bad "$what: $rounds sync rounds"
	babeltrace2 "$cap/host" >"$w/host.txt"
	req=$(grep -c 'sync_req: .*slave = 0 }' "$w/host.txt")
	recv=$(grep -c 'sync_recv: .*slave = 0 }' "$w/host.txt")
	[ "$req" = "$rounds" ] && [ "$recv" = "$rounds" ] ||
		bad "$what: $req sync_req, $recv sync_recv for $rounds rounds"
	grep -q 'sync_ack:' "$w/native.txt" ||
		bad "$what: no sync_ack in the target's trace"
	# The fit: accurate, the bound printed, the true offset (0) inside.
	expect_exit "$what: sync" 0 timeout 60 "$HETRACE" sync "$cap" -o "$w/tr"
	cp "$w/out" "$w/sync.txt"
	python3 - "$w/sync.txt" <<'PY' || bad "$what: the fit: $(cat "$w/sync.txt")"
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"^native\s+accurate\s+\S+\s+(-?[\d.]+) (ns|us|ms)\s+([\d.]+) (ns|us|ms)", t, re.M)
assert m, "no accurate fit for native"
u = {"ns": 1, "us": 1e3, "ms": 1e6}
off, hw = float(m[1]) * u[m[2]], float(m[3]) * u[m[4]]
assert hw < 5e6, f"half-width {hw} ns"
assert abs(off) <= hw + 20e3, f"offset {off} ns outside +-{hw} ns"
PY
	bt2_reads "$what: merged" "$w/tr"
	rm -rf "$w/tr"
}

# Over a unix socket.
sock=$w/nt.sock
start_target --unix "$sock" --exit-after 30
cap=$w/cap1
expect_exit "unix" 0 bounded 30 200 "$HETRACE" record --serial "unix:$sock" \
	-o "$cap" --seconds 1.5 --sync-period 50
cat "$w/out" >"$w/summary.txt"
grep -q '^native/stream ' "$w/summary.txt" || bad "unix: summary: $(cat "$w/summary.txt")"
grep -q '^line: .* 0 lost frames' "$w/summary.txt" || bad "unix: summary line"
check_capture unix
kill "$tpid"
wait "$tpid" 2>/dev/null

# Ctrl-C: the target's open packet is asked for (FLUSH), the capture
# is complete, exit 0.
rm -f "$sock"
start_target --unix "$sock" --exit-after 30
cap=$w/cap-int
"$HETRACE" record --serial "unix:$sock" -o "$cap" >"$w/out" 2>"$w/err" &
rpid=$!
sleep 1
kill -INT "$rpid"
wait "$rpid"
rc=$?
[ "$rc" = 0 ] || bad "SIGINT: exit $rc: $(cat "$w/err")"
expect_err "SIGINT" "stopped by signal 2"
[ "$(json complete)" = true ] || bad "SIGINT: not complete"
bt2_reads SIGINT "$cap/native"
kill "$tpid"
wait "$tpid" 2>/dev/null

# --socket PATH, --core and --master names.
rm -f "$sock"
start_target --unix "$sock" --exit-after 30
cap=$w/cap2
expect_exit "--socket" 0 bounded 30 200 "$HETRACE" record --socket "$sock" \
	-o "$cap" --seconds 1 --core mcu --master pc
[ -d "$cap/mcu" ] && [ -f "$cap/pc/sync" ] || bad "--socket: $(ls "$cap")"
grep -q 'core_master = "pc"' "$cap/mcu/metadata" || bad "--socket: core_master"
kill "$tpid"
wait "$tpid" 2>/dev/null

# Over TCP (the line proxy forwards to the target's socket), the
# metadata from a file.
rm -f "$sock"
start_target --unix "$sock" --exit-after 30
python3 line-proxy.py tcp "$sock" >"$w/proxy.out" &
ppid=$!
pids="$pids $ppid"
for _ in $(seq 100); do
	[ -s "$w/proxy.out" ] && break
	sleep 0.05
done
cap=$w/cap4
expect_exit "tcp" 0 bounded 30 200 "$HETRACE" record \
	--socket "127.0.0.1:$(head -1 "$w/proxy.out")" -o "$cap" --seconds 1 \
	--metadata "$w/nt/metadata"
[ "$(json target)" = "tcp:127.0.0.1:$(head -1 "$w/proxy.out")" ] || bad "tcp: target $(json target)"
bt2_reads tcp "$cap/native"
[ "$(json packets)" -gt 50 ] || bad "tcp: $(json packets) packets"
kill "$tpid" "$ppid" 2>/dev/null
wait "$tpid" 2>/dev/null

# Over a pseudo-terminal (the target prints its slave's path).
start_target --pty --exit-after 30
pty=$(head -1 "$w/nt.out")
cap=$w/cap3
expect_exit "pty" 0 bounded 30 200 "$HETRACE" record --serial "$pty" \
	-o "$cap" --seconds 1.5 --sync-period 50
check_capture pty
kill "$tpid"
wait "$tpid" 2>/dev/null
exit $fail
