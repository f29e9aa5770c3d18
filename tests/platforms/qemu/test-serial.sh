#!/usr/bin/env bash
# The QEMU serial firmware (docs/serial.md, "The QEMU firmware on a
# serial line"), both ports: Cortex-M3 on `-serial unix:` and RISC-V on
# `-serial pty`, driven by serial-client.py (an independent client of
# the wire format) and decoded by babeltrace2:
# - HELLO: protocol 1.x, the core, the build id equal to the ELF's;
# - status before and after; couple (trigger = stopper) by the
#   function's address: only that call's functions in the capture,
#   entries and exits balanced; stopper: nothing after its exit;
# - dump-profile call counts equal to the capture's (recorded from boot,
#   QEMU waiting for the client, no record lost);
# - reboot mid-stream: HELLO with boot_count 2, the trigger kept;
# - garbage and a dropped byte on the line
#   (tests/collect/serial/line-proxy.py): the client resynchronizes,
#   drops the damaged frames, the rest decodes;
# - the sync round trip answered by the receive interrupt.
# With hetrace's serial commands (record --serial, ctl, trace, profile)
# the same checks run through hetrace as well (test-serial-hetrace.sh).
# Skips (exit 0, a message) when QEMU or a cross compiler is missing.
# Never leaves a QEMU process behind.
set -u
cd "$(dirname "$0")"
. ../../lib.sh
: "${TOP:=$(cd ../../.. && pwd)}"
. ./serial-lib.sh
serial_setup
client() { timeout 30 python3 serial-client.py "$@"; }

# fn_set PORT FUNC...: "name addr" lines of the functions' hook values.
# trace_funcs TRACE: "addr kind" per func_entry / func_exit record.
trace_funcs() {
	babeltrace2 "$1" 2>"$w/bt.err" | awk '/func_(entry|exit):/ {
		k = ($0 ~ /func_entry/) ? "entry" : "exit"
		match($0, /addr = 0x[0-9A-Fa-f]+/); print tolower(substr($0, RSTART + 7, RLENGTH - 7)), k }'
}

for port in cm3 rv32; do
	elf="$fw/$port-serial.elf"
	qsort=$(fn_addr "$port" "$elf" job_qsort)
	pisum=$(fn_addr "$port" "$elf" job_pisum)
	allowed="$qsort $(fn_addr "$port" "$elf" wl_quicksort) $(fn_addr "$port" "$elf" quicksort)"

	# 1. From boot (QEMU waits for the client): the profile and the
	# capture count the same calls.
	serial_boot "$port" "$elf" "$w/$port-a" wait || { bad "$port: boot"; continue; }
	client "$target" cont "$monitor" wait-hello record "$w/$port-boot" 1.5 disable flush record "$w/$port-boot" 0.3 \
		profile status >"$w/$port.prof" || bad "$port: profile run: $(tail -2 "$w/$port.prof")"
	grep -q "discarded=0 " "$w/$port.prof" || bad "$port: records lost: $(grep ^status "$w/$port.prof")"
	bt2_reads "$port boot" "$w/$port-boot"
	trace_funcs "$w/$port-boot" |
		awk '$2 == "entry" { n[$1]++ } END { for (a in n) print a "=" n[a] }' |
		sort >"$w/$port.tcalls"
	grep ^profile "$w/$port.prof" | tr ' ' '\n' | grep = | sort >"$w/$port.pcalls"
	if [ ! -s "$w/$port.pcalls" ] || ! cmp -s "$w/$port.tcalls" "$w/$port.pcalls"; then
		bad "$port: profile calls differ from the capture's: $(diff "$w/$port.tcalls" "$w/$port.pcalls" | head -5)"
	else
		echo "$port: profile == trace: $(wc -l <"$w/$port.pcalls") functions, $(awk -F= '{ s += $2 } END { print s }' "$w/$port.pcalls") calls"
	fi
	# The same through hetrace: `hetrace profile` of that capture and
	# `hetrace ctl dump-profile` of the live target, calls by name.
	"$HETRACE" profile "$w/$port-boot" --elf "$elf" -n 0 --sort calls >"$w/$port.hp" 2>"$w/$port.hp.err" ||
		bad "$port: hetrace profile: $(cat "$w/$port.hp.err")"
	timeout 30 "$HETRACE" ctl "$target" --elf "$elf" dump-profile -n 0 --sort calls >"$w/$port.hd" 2>&1 ||
		bad "$port: ctl dump-profile: $(cat "$w/$port.hd")"
		# The first table's rows: calls ... function [file:line].
	calls_by_name() { awk '/ calls .* function$/ { t++; next } t == 1 && $1 ~ /^[0-9]+$/ && NF >= 10 { print $10 "=" $1 } t == 1 && NF < 10 { t++ }' "$1" | sort; }
	calls_by_name "$w/$port.hp" >"$w/$port.hpc"
	calls_by_name "$w/$port.hd" >"$w/$port.hdc"
	if [ ! -s "$w/$port.hpc" ] || ! cmp -s "$w/$port.hpc" "$w/$port.hdc"; then
		bad "$port: hetrace profile (trace) != ctl dump-profile: $(diff "$w/$port.hpc" "$w/$port.hdc" | head -6)"
	else
		echo "$port: hetrace profile == ctl dump-profile: $(tr '\n' ' ' <"$w/$port.hdc")"
	fi
	serial_stop_all

	# 2. Status, couple, stopper, reboot on a running target.
	serial_boot "$port" "$elf" "$w/$port-b" || { bad "$port: boot"; continue; }
	bid=$(readelf -n "$elf" | awk '/Build ID/ { print $3 }')
	client "$target" hello status couple "$qsort" status >"$w/$port.out" ||
		bad "$port: hello/status/couple: $(tail -2 "$w/$port.out")"
	grep -q "^hello status=0 major=1 .* name=$port build_id=$bid" "$w/$port.out" ||
		bad "$port: HELLO: $(grep ^hello "$w/$port.out") (ELF build id $bid)"
	[ "$(grep -c '^status .*trigger=0x0 .*stopper=0x0 ' "$w/$port.out")" = 1 ] ||
		bad "$port: status before: $(grep ^status "$w/$port.out" | head -1)"
	grep -q "^status .*trigger=$qsort .*stopper=$qsort " "$w/$port.out" ||
		bad "$port: status after couple: $(grep ^status "$w/$port.out" | tail -1)"
	client "$target" record "$w/$port-couple" 1 >/dev/null || bad "$port: couple record"
	bt2_reads "$port couple" "$w/$port-couple"
	trace_funcs "$w/$port-couple" >"$w/$port.cf"
	n=$(wc -l <"$w/$port.cf")
	out=$(awk -v ok="$allowed" 'BEGIN { split(ok, a, " "); for (i in a) good[a[i]] = 1 }
		!($1 in good) { print; exit }' "$w/$port.cf")
	[ "$n" -gt 100 ] && [ -z "$out" ] || bad "$port: couple job_qsort: $n records, outside the window: $out"
	echo "$port: couple job_qsort: $n records, all inside the window"

	client "$target" clear stopper "$pisum" record "$w/$port-stop" 1 status >"$w/$port.stop" ||
		bad "$port: stopper: $(tail -2 "$w/$port.stop")"
	trace_funcs "$w/$port-stop" | tail -1 >"$w/$port.last"
	[ "$(cat "$w/$port.last")" = "$pisum exit" ] ||
		bad "$port: stopper job_pisum: the last record is '$(cat "$w/$port.last")', not its exit"

	client "$target" couple "$qsort" reboot wait-hello status >"$w/$port.boot" ||
		bad "$port: reboot: $(tail -2 "$w/$port.boot")"
	grep -q "^boot hello boot_count=2" "$w/$port.boot" &&
		grep -q "^status .*boot_count=2 .*trigger=$qsort .*stopper=$qsort " "$w/$port.boot" ||
		bad "$port: after the reboot: $(grep -E '^(boot|status)' "$w/$port.boot")"
	client "$target" sync 50 >"$w/$port.sync" || bad "$port: sync: $(cat "$w/$port.sync")"
	echo "$port: $(cat "$w/$port.sync")"

	# 3. A faulty line (Cortex-M3's socket): garbage, then a dropped byte.
	if [ "$port" = cm3 ]; then
		python3 ../../collect/serial/line-proxy.py "$w/proxy.sock" "$w/$port-b.sock" noise@20000 dropbyte@60000 \
			>"$w/proxy.out" &
		serial_pids+=($!)
		for _ in $(seq 50); do [ -S "$w/proxy.sock" ] && break; sleep 0.1; done
		client "unix:$w/proxy.sock" record "$w/$port-faulty" 1.5 status >"$w/$port.faulty" ||
			bad "$port: faulty line: $(tail -2 "$w/$port.faulty")"
		grep -q "dropped" "$w/proxy.out" || bad "$port: proxy: $(cat "$w/proxy.out")"
		bad_frames=$(sed -n 's/^record .*bad=\([0-9]*\)/\1/p' "$w/$port.faulty")
		[ "${bad_frames:-0}" -ge 2 ] && grep -q "^status " "$w/$port.faulty" ||
			bad "$port: faulty line: $bad_frames bad frames: $(cat "$w/$port.faulty")"
		bt2_reads "$port faulty" "$w/$port-faulty"
		echo "$port: faulty line: $bad_frames damaged frames dropped, the rest decoded"
	fi
	serial_stop_all
done
serial_no_qemu_left
exit $fail
