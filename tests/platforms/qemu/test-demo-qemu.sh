#!/usr/bin/env bash
# make demo-qemu (scripts/demo-qemu.sh) end to end, into a directory of
# the test: firmware, the board as `make demo-qemu` runs it (no option:
# neither core under -icount), sync (both cores accurate, bound
# half-width within 100 us, nothing merged unsynchronized: docs/qemu.md),
# report, summary; every core's capture and the merged trace decoded by
# babeltrace2; no QEMU process left, also after Ctrl-C in the middle of
# the board's run.
set -u
: "${TOP:=$(cd "$(dirname "$0")/../../.." && pwd)}"
# shellcheck source=../../lib.sh
. "$TOP/tests/lib.sh"
build=$(dirname "$HETRACE")
qemus() { pgrep -f -- "-kernel $w/" || true; }

"$TOP/scripts/demo-qemu.sh" "$build" "$w/demo" >"$w/out" 2>"$w/err"
rc=$?
cat "$w/out"
[ "$rc" = 0 ] || bad "demo-qemu: exit $rc: $(tail -5 "$w/err")"
for core in cm3 rv32; do
	line=$(grep -E "^$core " "$w/out" | tail -1)
	echo "$line" | grep -q " accurate " || bad "$core not accurate: $line"
	# The bound half-width, printed in us or ns: at most 100 us.
	hw=$(echo "$line" | awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "us" || $(i + 1) == "ns") { v = $i; u = $(i + 1) } }
		END { print (u == "ns" ? v / 1000 : v) }')
	awk -v h="$hw" 'BEGIN { exit !(h != "" && h <= 100) }' || bad "$core half-width $hw us > 100 us"
done
! grep -n "UNSYNCHRONIZED\|allow-unsynced\|own clock" "$w/out" "$w/err" ||
	bad "the demo merged a core unsynchronized"
grep -q "^  no QEMU process left" "$w/out" || bad "no 'no QEMU process left' line"
for core in cm3 rv32 linux; do
	n=$(babeltrace2 "$w/demo/capture/$core" 2>/dev/null | grep -c "job_end\|msg_recv")
	[ "$n" -gt 0 ] || bad "$core: no job_end/msg_recv decoded"
done
babeltrace2 "$w/demo/trace" >"$w/merged.txt" 2>"$w/bt.err" || bad "merged trace: $(head -3 "$w/bt.err")"
# Both slaves' SHA hashes are in the merged trace: 5,040 per SHA job with
# a tracepoint per hash, on each core.
for core in cm3 rv32; do
	id=$([ $core = cm3 ] && echo 1 || echo 2)
	n=$(grep -c "sha_hash: { core_id = $id, cpu_id = $id }" "$w/merged.txt")
	[ "$n" -ge 5040 ] || bad "merged: $core: $n sha_hash events"
done
[ -s "$w/demo/sync.json" ] || bad "no sync.json"
if "$HETRACE" report --help >/dev/null 2>&1; then
	[ -s "$w/demo/report.html" ] || bad "no report.html"
fi
[ -z "$(qemus)" ] || bad "QEMU left after the demo: $(qemus)"

# Ctrl-C while the board runs (SIGINT to the demo's process group, as a
# terminal sends it): the demo stops, no QEMU left.
setsid "$TOP/scripts/demo-qemu.sh" "$build" "$w/demo2" >"$w/out2" 2>&1 &
pid=$!
for _ in $(seq 200); do
	[ -n "$(qemus)" ] && break
	sleep 0.05
done
[ -n "$(qemus)" ] || bad "Ctrl-C: QEMU never seen running"
kill -INT -- "-$pid"
wait "$pid"
sleep 0.5
[ -z "$(qemus)" ] || bad "QEMU left after Ctrl-C: $(qemus)"
grep -q "^hetrace qemu: 3 cores, .* (interrupted)" "$w/out2" ||
	bad "Ctrl-C: the board's run was not interrupted: $(grep -v '^hetrace qemu: [0-9.]* s ' "$w/out2" | head -5)"
grep "(interrupted)" "$w/out2"
exit $fail
