#!/usr/bin/env bash
# hetrace record --serial when the line or the target misbehaves, each
# fault made here: a line proxy (line-proxy.py) that injects garbage and
# drops a byte (the host resynchronizes, counts the loss, and babeltrace2
# reports exactly the lost packets), a target that reboots mid-stream (a
# new stream file), a device that disappears (socket and pty: the capture
# so far is kept, readable, exit 1), a line of garbage only, a target
# that never answers and one that speaks another protocol version
# (fake-target.py): a clear message, exit 1, bounded time and memory.
set -u
cd "$(dirname "$0")"
: "${TOP:=$(cd ../../.. && pwd)}"
. ../../lib.sh
. ./serial-lib.sh
build_target
here=$PWD

# Garbage and a dropped byte, through the proxy: every lost frame is a
# lost packet that babeltrace2 reports, the rest is decoded.
start_target --unix "$w/t1.sock" --exit-after 30
python3 "$here/line-proxy.py" "$w/p1.sock" "$w/t1.sock" drop@40 \
	garbage@80 drop@120 >"$w/proxy1.out" &
pids="$pids $!"
wait_sock "$w/p1.sock"
cap=$w/cap1
expect_exit "proxy" 0 bounded 30 200 "$HETRACE" record \
	--serial "unix:$w/p1.sock" -o "$cap" --seconds 1.5
[ "$(wc -l <"$w/proxy1.out")" = 3 ] || bad "proxy: did $(cat "$w/proxy1.out")"
lost=$(json line lost_frames)
bad_frames=$(($(json line crc_errors) + $(json line cobs_errors)))
[ "$lost" -ge 3 ] || bad "proxy: $lost lost frames counted"
[ "$bad_frames" -ge 3 ] || bad "proxy: $bad_frames bad frames counted"
[ "$(bt2_lost "$cap/native")" = "$lost" ] ||
	bad "proxy: babeltrace2 reports $(bt2_lost "$cap/native") lost packets, the line lost $lost frames"
grep -q "^line: .* $lost lost frames" "$w/out" || bad "proxy: summary: $(cat "$w/out")"
[ "$(json packets)" -gt 150 ] || bad "proxy: only $(json packets) packets"
n=$(babeltrace2 "$cap/native" 2>/dev/null | grep -c 'func_entry:')
[ "$n" -gt 1000 ] || bad "proxy: $n func_entry events decoded"

# The reply to the first metadata chunk damaged on the line: the chunk
# is asked for again, the recording goes on.
start_target --unix "$w/t6.sock" --exit-after 30
python3 "$here/line-proxy.py" "$w/p6.sock" "$w/t6.sock" dropreply@2 >"$w/proxy6.out" &
pids="$pids $!"
wait_sock "$w/p6.sock"
cap=$w/cap6
expect_exit "metadata reply damaged" 0 bounded 30 200 "$HETRACE" record \
	--serial "unix:$w/p6.sock" -o "$cap" --seconds 0.5
grep -q "dropped 1 byte of reply frame 2" "$w/proxy6.out" || bad "proxy6: did $(cat "$w/proxy6.out")"
[ "$(($(json line crc_errors) + $(json line cobs_errors)))" -ge 1 ] || bad "metadata reply damaged: no bad frame counted"
bt2_reads "metadata reply damaged" "$cap/native"

# A reboot mid-stream (REBOOT through the proxy, over pseudo-terminals):
# the new boot's packets (numbered from 0 again) go to stream-boot2.
start_target --pty --retained "$w/retained" --exit-after 30
python3 "$here/line-proxy.py" pty "$(head -1 "$w/nt.out")" reboot@150 \
	>"$w/proxy2.out" &
pids="$pids $!"
for _ in $(seq 100); do
	[ -s "$w/proxy2.out" ] && break
	sleep 0.05
done
cap=$w/cap2
expect_exit "reboot" 0 bounded 30 200 "$HETRACE" record \
	--serial "$(head -1 "$w/proxy2.out")" -o "$cap" --seconds 2
expect_err "reboot" "the target booted again (boot 2): its packets go on in stream-boot2"
[ "$(json boots)" = 1 ] || bad "reboot: boots $(json boots)"
[ -s "$cap/native/stream" ] && [ -s "$cap/native/stream-boot2" ] ||
	bad "reboot: $(ls "$cap/native")"
babeltrace2 "$cap/native" >"$w/bt.txt" 2>"$w/bt.err" ||
	bad "reboot: babeltrace2: $(head -3 "$w/bt.err")"
grep -qv WARNING "$w/bt.err" && bad "reboot: babeltrace2 says $(head -3 "$w/bt.err")"
grep -q 'stream-boot2' "$w/out" || bad "reboot: summary $(cat "$w/out")"

# vanish WHAT TARGET: the target dies 1 s into a 20 s run.
vanish() {
	local what=$1 target=$2 t0
	cap=$w/cap-$what
	(sleep 1 && kill -9 "$tpid") &
	t0=$(date +%s)
	expect_exit "$what vanishes" 1 bounded 20 200 "$HETRACE" record \
		--serial "$target" -o "$cap" --seconds 20
	[ $(($(date +%s) - t0)) -lt 10 ] || bad "$what vanishes: took too long"
	expect_err "$what vanishes" "the line closed (.*); the capture so far is kept in $cap"
	[ "$(json line_lost)" = true ] || bad "$what vanishes: line_lost $(json line_lost)"
	[ "$(json complete)" = false ] || bad "$what vanishes: complete"
	[ "$(json packets)" -gt 50 ] || bad "$what vanishes: $(json packets) packets"
	babeltrace2 "$cap/native" >/dev/null 2>"$w/bt.err" ||
		bad "$what vanishes: babeltrace2: $(head -3 "$w/bt.err")"
	[ -s "$w/bt.err" ] && bad "$what vanishes: babeltrace2 says $(head -3 "$w/bt.err")"
}
start_target --unix "$w/t3.sock" --exit-after 30
vanish socket "unix:$w/t3.sock"
start_target --pty --exit-after 30
vanish pty "$(head -1 "$w/nt.out")"

# fake MODE: a fake target on $w/MODE.sock.
fake() {
	python3 "$here/fake-target.py" "$w/$1.sock" "$1" &
	pids="$pids $!"
	wait_sock "$w/$1.sock"
}
fake garbage
expect_exit "garbage" 1 bounded 20 100 "$HETRACE" record \
	--serial "unix:$w/garbage.sock" -o "$w/cap-g"
expect_err "garbage" "unix:$w/garbage.sock: no reply to 'hello' in 2.0 s"
[ -e "$w/cap-g" ] && bad "garbage: a capture directory"
fake silent
expect_exit "silent" 1 bounded 20 100 "$HETRACE" record \
	--serial "unix:$w/silent.sock" -o "$w/cap-s"
expect_err "silent" "unix:$w/silent.sock: no reply to 'hello' in 2.0 s"
fake version
expect_exit "version" 1 bounded 20 100 "$HETRACE" record \
	--socket "$w/version.sock" -o "$w/cap-v"
expect_err "version" "protocol version mismatch: the target speaks 2.0, hetrace 1.0"

# Targets that cannot be opened, and usage errors.
expect_exit "no socket" 1 "$HETRACE" record --serial "unix:$w/none" -o "$w/c"
expect_err "no socket" "$w/none: cannot connect"
expect_exit "baud" 2 "$HETRACE" record --serial /dev/ttyS0:1234 -o "$w/c"
expect_err "baud" "/dev/ttyS0: 1234 baud: not a standard rate"
expect_exit "port" 2 "$HETRACE" record --serial tcp:localhost:x -o "$w/c"
expect_err "port" "tcp:localhost:x: expected HOST:PORT"
usage_case "one of them" record --serial a --socket b -o "$w/c"
usage_case "go with --serial" record --core x -o "$w/c" /dev/shm/x
exit $fail
