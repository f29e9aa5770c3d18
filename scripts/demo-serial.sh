#!/usr/bin/env bash
# make demo-serial: the QEMU Cortex-M3 serial firmware (docs/serial.md,
# "The QEMU firmware on a serial line") driven over its UART, a unix
# socket: hetrace ctl status, hetrace trace with a trigger and a stopper
# (and a Perfetto file), hetrace profile of the live target. Files go to
# OUT (default ./hetrace-demo-serial/). Never leaves a QEMU process
# behind: it checks, and says so.
#   scripts/demo-serial.sh [BUILD [OUT]]
set -eu
BUILD=${1:-build}
out=${2:-hetrace-demo-serial}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
H=$BUILD/hetrace
rm -rf "$out"
mkdir -p "$out"
# The socket in /tmp: a unix socket's path is short.
work=$(mktemp -d /tmp/hetrace-demo-serial.XXXXXX)
qemu_pid=
finish() {
	[ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null && wait "$qemu_pid" 2>/dev/null
	if pgrep -f -- "$work/" >/dev/null; then
		echo "demo-serial: QEMU processes left behind: $(pgrep -f -- "$work/" | tr '\n' ' ')" >&2
	fi
	rm -rf "$work"
}
trap finish EXIT

echo "== firmware: make -f platforms/qemu/firmware.mk serial OUT=$out/fw"
make -s -f platforms/qemu/firmware.mk OUT="$out/fw" HETRACE="$H" serial >/dev/null
fw=$out/fw/cm3-serial.elf
t=unix:$work/cm3.sock

echo "== qemu-system-arm -machine mps2-an385 -kernel $fw -serial $t,server=on,wait=off"
qemu-system-arm -machine mps2-an385 -cpu cortex-m3 -kernel "$fw" -display none \
	-monitor none -serial "$t,server=on,wait=off" >"$out/qemu.log" 2>&1 &
qemu_pid=$!
for _ in $(seq 100); do [ -S "$work/cm3.sock" ] && break; sleep 0.05; done

echo "== hetrace ctl $t --elf $fw status"
"$H" ctl "$t" --elf "$fw" status

echo "== hetrace trace $t --elf $fw --trigger job_qsort --stopper job_qsort --seconds 3 -o $out/capture --perfetto $out/cm3.perfetto"
"$H" trace "$t" --elf "$fw" --trigger job_qsort --stopper job_qsort --seconds 3 \
	-o "$out/capture" --perfetto "$out/cm3.perfetto" -q

echo "== hetrace profile $t --elf $fw -n 10"
"$H" profile "$t" --elf "$fw" -n 10

echo "== hetrace sync $out/capture -o $out/trace"
"$H" sync "$out/capture" -o "$out/trace"
echo "== summary"
echo "  capture: $(babeltrace2 "$out/capture/cm3" 2>/dev/null | wc -l) events (babeltrace2 $out/capture/cm3)"
echo "  Perfetto: $out/cm3.perfetto (open it in https://ui.perfetto.dev)"
kill "$qemu_pid" 2>/dev/null && wait "$qemu_pid" 2>/dev/null
qemu_pid=
if pgrep -f -- "$work/" >/dev/null; then
	echo "demo-serial: QEMU processes left behind" >&2
	exit 1
fi
echo "  no QEMU process left"
