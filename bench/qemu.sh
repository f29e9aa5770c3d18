#!/usr/bin/env bash
# Tracepoint cost on real instruction sets under QEMU -icount shift=0
# (one guest instruction = 1 ns of virtual time, so the target's own
# timer counts instructions, deterministically): the one-uint32 event of
# bench/tracepoint/config.yaml with hetrace's generated code against
# barectf 3.1's for the same config on the same target (Cortex-M3 on
# mps2-an385, RV32IMAC on virt), and the paper-style table for the
# workload (bench/qemu/bench-main.c, platforms/qemu/target/workload.c).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
cd "$top"

mkdir -p "$work/hetrace" "$work/barectf"
"$HETRACE" gen bench/tracepoint/config.yaml -o "$work/hetrace" --no-runtime
(cd "$work/barectf" && barectf generate "$top/bench/tracepoint/config.yaml" >/dev/null)

FLAGS="-std=c99 -O2 -g -DNDEBUG -ffunction-sections -fdata-sections -Iinclude -Iplatforms/qemu -Iplatforms/qemu/target"
SRC="bench/qemu/bench-main.c platforms/qemu/target/workload.c platforms/qemu/target/print.c platforms/qemu/target/libc-min.c runtime/port.c"
# Firmware is built -ffreestanding (as platforms/qemu/firmware.mk does),
# which turns GCC's builtins off: barectf's payload copy is then a call
# to memcpy. barectf-builtin is barectf built without -ffreestanding
# (memcpy of a constant size inlined): the ratio is taken against the
# cheaper of the two.
build() { # PORT TRACER (barectf, barectf-builtin, hetrace, hetrace-inline)
	local port=$1 tracer=$2 cc arch dir start libgcc warn="" gen=$2 ff=-ffreestanding
	qemu_toolchain "$port"
	# barectf's own source needs its warnings off; hetrace's builds with -Werror.
	case $tracer in
	hetrace*) warn="-Wall -Wextra -Werror -Wno-unused-function" gen=hetrace ;;
	barectf-builtin) gen=barectf ff= ;;
	esac
	[ "$tracer" = hetrace-inline ] && warn="$warn -include bsp-clock.h -DHT_CLOCK_DEFAULT_FN=bsp_clock_read"
	# The tracer's source alone takes $ff (libc-min.c must stay
	# freestanding: GCC would turn its loops into calls to itself).
	$cc $arch $FLAGS $ff $warn -I"$dir" -I"$work/$gen" -c -o "$work/$port-$tracer-tr.o" "$work/$gen/barectf.c"
	$cc $arch $FLAGS -ffreestanding $warn -I"$dir" -Ibench/qemu -I"$work/$gen" -nostdlib \
		-Wl,--gc-sections -Wl,--no-warn-rwx-segments -T "$dir/link.ld" \
		-o "$work/$port-$tracer.elf" $start "$dir/bsp.c" $SRC "$work/$port-$tracer-tr.o" $libgcc
}

printf '%-40s %8s %8s %8s %7s %8s %7s %7s\n' "tracepoint on target, instr." barectf "bctf+bi" hetrace ratio "ht+clock" ratio target
for port in cm3 rv32; do
	# Instructions per clock tick under -icount shift=0.
	case $port in cm3) ipt=40 ;; rv32) ipt=100 ;; esac
	for tracer in barectf barectf-builtin hetrace hetrace-inline; do
		build $port $tracer
		qemu_icount_run $port "$work/$port-$tracer.elf" >"$work/$port-$tracer.out"
		grep -q '^done' "$work/$port-$tracer.out" || { cat "$work/$port-$tracer.out"; echo "bench/qemu.sh: $port $tracer: no result" >&2; exit 1; }
	done
	per() { awk -v ipt=$ipt '/^tp / { printf "%.1f", ($2 - $3) * ipt / $4 }' "$1"; }
	b0=$(per "$work/$port-barectf.out")
	b1=$(per "$work/$port-barectf-builtin.out")
	b=$(awk -v a="$b0" -v b="$b1" 'BEGIN { print (a < b ? a : b) }')
	h=$(per "$work/$port-hetrace.out")
	hi=$(per "$work/$port-hetrace-inline.out")
	printf '%-40s %8s %8s %8s %7s %8s %7s %7s\n' "$port: one uint32, per event (icount)" "$b0" "$b1" "$h" \
		"$(awk -v a="$h" -v b="$b" 'BEGIN { printf "%.3f", a / b }')" "$hi" \
		"$(awk -v a="$hi" -v b="$b" 'BEGIN { printf "%.3f", a / b }')" "<=0.4"
	eval "tp_$port=$h"
done

echo "(barectf: built -ffreestanding like the firmware, its payload copy a call to memcpy; bctf+bi: with"
echo " GCC's builtins; ratios: hetrace over the cheaper; ht+clock: hetrace's compile-time clock, docs/gen.md)"
echo
echo "paper-style table (hetrace, compile-time clock, one uint32 per tracepoint; instructions under -icount shift=0)"
printf '%-6s %-9s %14s %14s %10s %8s %14s\n' target workload uninstrumented instrumented overhead% tps "cost/tp"
for port in cm3 rv32; do
	case $port in cm3) ipt=40 ;; rv32) ipt=100 ;; esac
	awk -v ipt=$ipt -v port=$port '/^wl / {
		u = $3 * ipt; i = $4 * ipt
		printf "%-6s %-9s %14d %14d %9.2f%% %8d %14.1f\n", port, $2, u, i, (i - u) * 100 / u, $5, (i - u) / $5 }' \
		"$work/$port-hetrace-inline.out"
done
