#!/usr/bin/env bash
# make demo-serial (scripts/demo-serial.sh) into the test's directory:
# exit 0 in under a minute; the status, the trace summary (the window
# opened by job_qsort, nothing lost), the profile of the live target
# (quicksort), an accurate sync, a Perfetto file, a capture babeltrace2
# reads, no QEMU left. Skips when QEMU or a cross compiler is missing.
set -u
cd "$(dirname "$0")"
. ../../lib.sh
: "${TOP:=$(cd ../../.. && pwd)}"
for tool in qemu-system-arm arm-none-eabi-gcc babeltrace2; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool missing (scripts/deps.sh qemu)"; exit 0; }
done
timeout 60 "$TOP/scripts/demo-serial.sh" "$(dirname "$HETRACE")" "$w/demo" >"$w/out" 2>"$w/err"
rc=$?
[ "$rc" = 0 ] || bad "demo-serial: exit $rc: $(tail -5 "$w/err")"
grep -q "^build id .*matches" "$w/out" || bad "status: $(head -20 "$w/out")"
grep -q "^window: opened [1-9][0-9]* times by job_qsort" "$w/out" || bad "trace summary: $(grep -A4 '^trace:' "$w/out")"
grep -q "^lost: 0 events discarded by the target" "$w/out" || bad "losses: $(grep '^lost:' "$w/out")"
grep -q " quicksort$" "$w/out" || bad "profile: no quicksort: $(grep -A12 'on-target profile' "$w/out")"
grep -q "^cm3  *accurate " "$w/out" || bad "sync: $(grep '^cm3 ' "$w/out")"
# a window still open when the recording stops: one warning for the
# calls left open, not one per call
[ "$(cat "$w/out" "$w/err" | grep -c "no exit")" -le 1 ] ||
	bad "open calls at the end: $(grep "no exit" "$w/out" "$w/err" | head -5)"
grep -q "no QEMU process left" "$w/out" || bad "QEMU left: $(tail -3 "$w/out")"
[ -s "$w/demo/cm3.perfetto" ] || bad "no Perfetto file"
bt2_reads "capture" "$w/demo/capture/cm3"
exit $fail
