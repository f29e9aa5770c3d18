#!/usr/bin/env bash
# make demo-qemu: the firmware built for QEMU Cortex-M3 and RISC-V, the
# board run with the Linux master (hetrace qemu), the capture
# synchronized (hetrace sync: both cores on the master's clock), a
# report when `hetrace report` exists. Files go to OUT (default
# ./hetrace-demo-qemu/).
# Never leaves a QEMU process behind: it checks, and says so.
# docs/qemu.md.
#   scripts/demo-qemu.sh [BUILD [OUT]]
set -eu
BUILD=${1:-build}
out=${2:-hetrace-demo-qemu}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
rm -rf "$out"
mkdir -p "$out"
# RAM files and sockets in /tmp: a unix socket's path is short.
work=$(mktemp -d /tmp/hetrace-demo-qemu.XXXXXX)
left_check() {
	local pids
	pids=$(pgrep -f -- "$work/" || true)
	if [ -n "$pids" ]; then
		echo "demo-qemu: QEMU processes left behind: $pids (killed)" >&2
		# shellcheck disable=SC2086
		kill -9 $pids 2>/dev/null || true
		return 1
	fi
}
trap 'left_check; rm -rf "$work"' EXIT

echo "== firmware: make -f platforms/qemu/firmware.mk OUT=$out/fw"
make -s -f platforms/qemu/firmware.mk OUT="$out/fw" HETRACE="$BUILD/hetrace" >/dev/null

echo "== hetrace qemu -o $out/capture --fw-dir $out/fw"
"$BUILD/hetrace" qemu -o "$out/capture" --fw-dir "$out/fw" --extra-ms 500 --work "$work/run"

echo "== hetrace sync $out/capture -o $out/trace"
# Both QEMU clocks follow the host's time (no -icount): each fits one
# line to the master's clock. A core that does not fit is a failure of
# the demo, not a trace to merge on its own clock.
"$BUILD/hetrace" sync "$out/capture" -o "$out/trace" --report "$out/sync.json" ||
	{ echo "demo-qemu: hetrace sync failed (docs/qemu.md, Synchronization)" >&2; exit 1; }
[ -f "$out/trace/metadata" ] || { echo "demo-qemu: no merged trace" >&2; exit 1; }

if "$BUILD/hetrace" report --help >/dev/null 2>&1; then
	echo "== hetrace report $out/trace -o $out/report.html"
	"$BUILD/hetrace" report -o "$out/report.html" --sync "$out/sync.json" -t "hetrace on QEMU" "$out/trace"
fi

echo "== summary"
for core in cm3 rv32 linux; do
	n=$(babeltrace2 "$out/capture/$core" 2>/dev/null | wc -l)
	echo "  $core: $n events (babeltrace2)"
done
echo "  merged: $(babeltrace2 "$out/trace" | wc -l) events in $out/trace"
left_check
echo "  no QEMU process left"
