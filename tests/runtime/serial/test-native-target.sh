#!/usr/bin/env bash
# The native test target (native-target.c, built with ASan and UBSan by
# build-target.sh) over a unix socket, driven by spclient.py (COBS, CRC
# and frames written in python from docs/serial.md, not the C codec):
# HELLO's build id is readelf's, STATUS, METADATA plus the streamed
# PACKET frames decode with babeltrace2 (the workload's functions at
# nm's addresses), sync rounds, garbage counted, a trigger and stopper
# by address then only events inside the window, REBOOT with the
# settings kept (boot_count 2, HT_SP_RETAINED).
set -u
cd "$(dirname "$0")"
. ../../lib.sh
: "${TOP:=$(cd ../../.. && pwd)}"

CC=${CC:-cc} CFLAGS="-O1 -g" SAN=1 ./build-target.sh "$w/nt" >"$w/build.log" 2>&1 ||
	{ cat "$w/build.log"; bad "build-target.sh failed"; exit 1; }
bin=$w/nt/native-target
sock=$w/line.sock
"$bin" --unix "$sock" --retained "$w/retained" --exit-after 40 \
	--step-us 2000 2>"$w/target.err" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$w"' EXIT
sp() { timeout 20 python3 ./spclient.py "unix:$sock" "$@"; }
val() { awk -F= -v k="$1" '$1 == k { print $2 }' "$2"; }
addr() { printf '0x%X\n' "$((16#$(nm "$bin" | awk -v f="$1" '$3 == f { print $1 }')))"; }

# HELLO: the build id of the binary.
sp hello >"$w/hello" || bad "hello failed: $(cat "$w/hello")"
want=$(readelf -n "$bin" | awk '/Build ID/ { print $3 }')
[ -n "$want" ] && [ "$(val build_id "$w/hello")" = "$want" ] ||
	bad "build id $(val build_id "$w/hello"), readelf says '$want'"
[ "$(val boot_count "$w/hello")" = 1 ] || bad "first boot: boot_count $(val boot_count "$w/hello")"
[ "$(val name "$w/hello")" = native ] || bad "name $(val name "$w/hello")"
sp hello-major 2 >"$w/hello2"
[ "$(val status "$w/hello2")" = 4 ] || bad "major 2: status $(val status "$w/hello2"), want 4 (HT_SPS_VERSION)"

# STATUS.
sp status >"$w/status" || bad "status failed"
[ "$(val status "$w/status")" = 0 ] && [ "$(val size "$w/status")" = 104 ] ||
	bad "status: $(head -2 "$w/status")"
[ "$(val events "$w/status")" -gt 0 ] || bad "status: no events"
[ $(($(val state "$w/status") & 1)) = 1 ] || bad "status: state $(val state "$w/status"), want enabled"

# Sync: n = 0, 2, 4, t increasing.
sp sync 3 >"$w/sync" || bad "sync failed"
awk 'NR == 1 && $2 != 0 || NR > 1 && ($2 != pn + 2 || $3 <= pt) { bad = 1 }
	{ pn = $2; pt = $3 } END { exit bad || NR != 3 }' "$w/sync" ||
	bad "sync rounds: $(cat "$w/sync")"

# Garbage on the line: counted, the next command works.
sp raw 1122334455667700 || bad "raw failed"
sp status >"$w/status2" || bad "status after garbage failed"
[ "$(val rx_errors "$w/status2")" -ge 1 ] || bad "garbage not counted: rx_errors $(val rx_errors "$w/status2")"

# Streaming: METADATA and PACKET frames make a CTF trace.
sp record "$w/all" 1 >"$w/rec" || bad "record failed: $(cat "$w/rec")"
[ "$(val packets "$w/rec")" -gt 0 ] || bad "no packets streamed"
babeltrace2 "$w/all" >"$w/all.txt" 2>"$w/all.err" || bad "babeltrace2: $(head -3 "$w/all.err")"
fib=$(addr work_fib)
sort=$(addr work_sort)
swap=$(addr work_swap)
grep -q "func_entry: .* addr = $fib," "$w/all.txt" || bad "no func_entry of work_fib ($fib)"
grep -q "func_exit: .* addr = $sort }" "$w/all.txt" || bad "no func_exit of work_sort ($sort)"
# The record's first sync round is 6 (after 0, 2, 4 above).
grep -q "^sync 6 " "$w/rec" || bad "record: sync rounds $(grep ^sync "$w/rec")"
grep -q "sync_ack: .*{ seq = 6 }" "$w/all.txt" || bad "no sync_ack of round 6 (traced in rx)"
grep -q "sync_notify: .*{ seq = 7 }" "$w/all.txt" || bad "no sync_notify of round 6"

# Trigger and stopper work_sort: only work_sort and work_swap inside.
sp trigger "$sort" >"$w/t" && [ "$(val status "$w/t")" = 0 ] || bad "trigger: $(cat "$w/t")"
sp stopper "$sort" >"$w/t" && [ "$(val status "$w/t")" = 0 ] || bad "stopper: $(cat "$w/t")"
sp flush >/dev/null || bad "flush failed"
sp record "$w/win" 1 >"$w/rec" || bad "record (window) failed"
babeltrace2 "$w/win" >"$w/win.txt" 2>"$w/win.err" || bad "babeltrace2 (window): $(head -3 "$w/win.err")"
n_sort=$(grep -c "func_entry: .* addr = $sort," "$w/win.txt")
others=$(grep "func_entry: " "$w/win.txt" | grep -v -c -e "addr = $sort," -e "addr = $swap,")
[ "$n_sort" -gt 0 ] || bad "window: no work_sort entries"
[ "$others" = 0 ] || bad "window: $others entries of other functions"

# REBOOT: the same line, boot_count 2, the settings restored.
sp reboot >"$w/reboot" || bad "reboot failed: $(cat "$w/reboot")"
[ "$(val status "$w/reboot")" = 0 ] || bad "reboot: status $(val status "$w/reboot")"
[ "$(val boot_count "$w/reboot")" = 2 ] || bad "after reboot: boot_count '$(val boot_count "$w/reboot")'"
[ $(($(val flags "$w/reboot") + 0 & 8)) = 8 ] || bad "after reboot: flags $(val flags "$w/reboot") without HT_SP_RETAINED"
sp status >"$w/status3" || bad "status after reboot failed"
[ "$(printf '0x%X' "$(val trigger "$w/status3")")" = "$sort" ] ||
	bad "after reboot: trigger $(val trigger "$w/status3"), want $sort"
[ $(($(val state "$w/status3") + 0 & 16)) = 16 ] || bad "after reboot: state without HT_SPS_RETAINED"
kill -0 $pid 2>/dev/null || bad "the target died"

# A clean exit (SIGTERM): nothing from the sanitizers.
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 0 ] || bad "target exited $rc: $(tail -5 "$w/target.err")"
grep -q -e "ERROR: AddressSanitizer" -e "runtime error" "$w/target.err" &&
	bad "sanitizer: $(head -5 "$w/target.err")"
exit $fail
