#!/usr/bin/env bash
# The QEMU serial firmware driven by hetrace (docs/serial.md), both
# ports (Cortex-M3 on `-serial unix:`, RISC-V on `-serial pty`):
# - hetrace ctl status before and after `couple job_qsort` (by name,
#   through --elf; the build id matches), list;
# - hetrace record --serial: the capture decodes (babeltrace2, only the
#   window's functions), hetrace sync fits the clock over the line:
#   accurate (docs/sync.md), the bound half-width printed and <= 1 ms;
# - hetrace ctl dump-profile and list name the window's functions
#   (test-serial.sh checks the call counts against a capture from boot);
# - hetrace trace --trigger F --stopper F --perfetto: only F's calls;
# - ctl reboot mid-stream: boot count 2, the trigger kept;
# - garbage and a dropped byte between target and host
#   (tests/collect/serial/line-proxy.py): record --serial resynchronizes
#   and counts the loss.
# Skips (exit 0, a message) when QEMU or a cross compiler is missing.
set -u
cd "$(dirname "$0")"
. ../../lib.sh
: "${TOP:=$(cd ../../.. && pwd)}"
. ./serial-lib.sh
serial_setup
ctl() { timeout 30 "$HETRACE" ctl "$target" --elf "$elf" --timeout 2000 "$@"; }

for port in cm3 rv32; do
	elf="$fw/$port-serial.elf"
	allowed="$(fn_addr "$port" "$elf" job_qsort) $(fn_addr "$port" "$elf" wl_quicksort) $(fn_addr "$port" "$elf" quicksort)"
	serial_boot "$port" "$elf" "$w/$port" || { bad "$port: boot"; continue; }

	ctl status >"$w/$port.st0" 2>&1 || bad "$port: status: $(cat "$w/$port.st0")"
	grep -q "^trigger  *none" "$w/$port.st0" && grep -q "^build id .*matches" "$w/$port.st0" ||
		bad "$port: status before: $(cat "$w/$port.st0")"
	ctl couple job_qsort >"$w/$port.cp" 2>&1 || bad "$port: couple: $(cat "$w/$port.cp")"
	ctl status >"$w/$port.st1" 2>&1
	grep -q "^trigger  *job_qsort" "$w/$port.st1" && grep -q "^stopper  *job_qsort" "$w/$port.st1" ||
		bad "$port: status after couple: $(cat "$w/$port.st1")"
	# The packets of the records before the couple (committed when it
	# came) leave the target first: the capture starts after them.
	for i in $(seq 50); do
		grep -q "^buffer .*, 0 of [0-9]* slots used" "$w/$port.st1" && break
		sleep 0.1
		ctl status >"$w/$port.st1" 2>&1
	done

	timeout 60 "$HETRACE" record --serial "$target" -o "$w/cap-$port" --seconds 2 --sync-period 20 \
		>"$w/$port.rec" 2>&1 || bad "$port: record --serial: $(tail -3 "$w/$port.rec")"
	bt2_reads "$port capture" "$w/cap-$port/$port"
	out=$(babeltrace2 "$w/cap-$port/$port" 2>/dev/null | awk -v ok="$allowed" '
		BEGIN { split(ok, a, " "); for (i in a) good[a[i]] = 1 }
		/func_(entry|exit):/ { n++; match($0, /addr = 0x[0-9A-Fa-f]+/); x = tolower(substr($0, RSTART + 7, RLENGTH - 7))
			if (!(x in good)) { print "outside: " x; exit } }
		END { print n + 0 }')
	[ "$out" -gt 100 ] 2>/dev/null || bad "$port: couple capture: $out"
	"$HETRACE" sync "$w/cap-$port" -o "$w/trace-$port" >"$w/$port.sync" 2>&1 ||
		bad "$port: sync: $(cat "$w/$port.sync")"
	line=$(grep "^$port " "$w/$port.sync")
	echo "$line" | grep -q " accurate " || bad "$port: sync not accurate: $line"
	hw=$(echo "$line" | awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "us" || $(i + 1) == "ns" || $(i + 1) == "ms") { v = $i; u = $(i + 1) } }
		END { print (u == "ns" ? v / 1000 : u == "ms" ? v * 1000 : v) }')
	echo "$port: sync over the line: bound half-width $hw us ($line)"
	bt2_reads "$port synced" "$w/trace-$port"
	awk -v h="$hw" 'BEGIN { exit !(h != "" && h <= 1000) }' || bad "$port: half-width $hw us > 1 ms"

	ctl dump-profile -n 0 >"$w/$port.prof" 2>&1 && grep -q " quicksort$" "$w/$port.prof" ||
		bad "$port: dump-profile: $(cat "$w/$port.prof")"
	ctl list >"$w/$port.list" 2>&1 && grep -q " job_qsort$" "$w/$port.list" ||
		bad "$port: list: $(cat "$w/$port.list")"
	ctl reboot >"$w/$port.rb" 2>&1 || bad "$port: reboot: $(cat "$w/$port.rb")"
	ctl status >"$w/$port.st2" 2>&1
	grep -q "^boot count  *2" "$w/$port.st2" && grep -q "^trigger  *job_qsort" "$w/$port.st2" ||
		bad "$port: after reboot: $(cat "$w/$port.st2")"

	# hetrace trace: trigger and stopper by name, a Perfetto file.
	timeout 60 "$HETRACE" trace "$target" --elf "$elf" --trigger job_pisum --stopper job_pisum \
		--seconds 1 -o "$w/trace-cap-$port" --perfetto "$w/$port.pftrace" -q >"$w/$port.tr" 2>&1 ||
		bad "$port: hetrace trace: $(tail -3 "$w/$port.tr")"
	grep -q "^window: opened [1-9][0-9]* times by job_pisum" "$w/$port.tr" ||
		bad "$port: hetrace trace: $(grep -v warning "$w/$port.tr")"
	[ -s "$w/$port.pftrace" ] || bad "$port: hetrace trace: no Perfetto file"
	pis="$(fn_addr "$port" "$elf" job_pisum) $(fn_addr "$port" "$elf" wl_pisum)"
	out=$(babeltrace2 "$w/trace-cap-$port/$port" 2>/dev/null | awk -v ok="$pis" '
		BEGIN { split(ok, a, " "); for (i in a) good[a[i]] = 1 }
		/func_entry:/ { n++; match($0, /addr = 0x[0-9A-Fa-f]+/); x = tolower(substr($0, RSTART + 7, RLENGTH - 7))
			if (!(x in good)) { print "outside: " x; exit } }
		END { print n + 0 }')
	[ "$out" -ge 2 ] 2>/dev/null || bad "$port: hetrace trace window job_pisum: $out"
	echo "$port: hetrace trace --trigger/--stopper job_pisum: $out entries, all inside the window"

	if [ "$port" = cm3 ]; then
		# The window open again: the line busy (the faults land in the
		# packet stream, after the metadata the recorder fetches first).
		ctl clear >"$w/clear" 2>&1 || bad "clear: $(cat "$w/clear")"
		python3 ../../collect/serial/line-proxy.py "$w/proxy.sock" "$w/$port.sock" noise@60000 dropbyte@120000 \
			>"$w/proxy.out" &
		serial_pids+=($!)
		for _ in $(seq 50); do [ -S "$w/proxy.sock" ] && break; sleep 0.1; done
		timeout 60 "$HETRACE" record --serial "unix:$w/proxy.sock" -o "$w/cap-faulty" --seconds 2 \
			>"$w/faulty.rec" 2>&1 || bad "faulty line: record: $(tail -3 "$w/faulty.rec")"
		grep "^line:" "$w/faulty.rec"
		grep -q "dropped" "$w/proxy.out" || bad "proxy: $(cat "$w/proxy.out")"
		lost=$(awk '/^line:/ { for (i = 1; i < NF; i++) if ($(i + 1) == "lost" || $(i + 1) == "CRC") s += $i } END { print s + 0 }' "$w/faulty.rec")
		[ "$lost" -ge 2 ] || bad "faulty line: the loss is not counted: $(grep ^line: "$w/faulty.rec")"
		bt2_reads "faulty line" "$w/cap-faulty/cm3"
	fi
	serial_stop_all
done
serial_no_qemu_left
exit $fail
