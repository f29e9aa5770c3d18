#!/usr/bin/env bash
# The serial firmware's cost on real instruction sets under QEMU -icount
# shift=0 (bench/qemu/serial-bench.c): instructions per event of the
# one-uint32 tracepoint and of func_entry / func_exit (an instrumented
# leaf: one pair per call, the on-target profile on), in the serial
# firmware's configuration (512-byte ring slots drained by the serial
# target, hook records written with the interrupt masked) against the
# configuration of the QEMU firmware today (one packet reused, no
# transport, bench/qemu.sh). Same generated tracer, same compile-time
# clock: the ratio of the tracepoint is the transport's cost on the fast
# path (target 1.00).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
cd "$top"

FLAGS="-std=c99 -O2 -g -DNDEBUG -ffreestanding -ffunction-sections -fdata-sections -Wall -Wextra -Werror -I.
	-Iinclude -Iplatforms/qemu -Iplatforms/qemu/target"
RT="runtime/packet-ring.c runtime/port.c runtime/instrument.c runtime/serial-frame.c runtime/serial-target.c
	platforms/qemu/target/print.c platforms/qemu/target/libc-min.c"
build() { # PORT VARIANT (plain, serial)
	local port=$1 v=$2 cc arch dir start libgcc def=""
	qemu_toolchain "$port"
	case $v in serial) def=-DBENCH_SERIAL ;; serial4k) def="-DBENCH_SERIAL -DBENCH_SLOT=4096u" ;; esac
	mkdir -p "$work/$port"
	[ -f "$work/$port/fws-trace.c" ] ||
		"$HETRACE" gen "platforms/qemu/target/serial/trace-$port.yaml" -o "$work/$port" --no-runtime >/dev/null
	# shellcheck disable=SC2086
	$cc $arch $FLAGS -finstrument-functions -c -o "$work/$port-leaf.o" bench/qemu/serial-leaf.c
	# shellcheck disable=SC2086
	$cc $arch $FLAGS $def -I"$dir" -I"$work/$port" -nostdlib -Wl,--gc-sections -Wl,--no-warn-rwx-segments \
		-T "$dir/link.ld" -o "$work/$port-$v.elf" $start "$dir/bsp.c" bench/qemu/serial-bench.c $RT \
		"$work/$port/fws-trace.c" "$work/$port-leaf.o" $libgcc
}

printf '%-40s %8s %8s %7s %9s %7s %7s\n' "instructions per event (icount)" today serial ratio serial4k ratio target
for port in cm3 rv32; do
	case $port in cm3) ipt=40 ;; rv32) ipt=100 ;; esac
	for v in plain serial serial4k; do
		build $port $v
		qemu_icount_run $port "$work/$port-$v.elf" >"$work/$port-$v.out"
		grep -q '^done' "$work/$port-$v.out" || { cat "$work/$port-$v.out"; echo "bench/qemu-serial.sh: $port $v: no result" >&2; exit 1; }
	done
	# per KIND FILE RECORDS-PER-ITEM
	per() { awk -v ipt=$ipt -v k="$1" -v r="$3" '$1 == k { printf "%.1f", ($2 - $3) * ipt / ($4 * r) }' "$2"; }
	for kind in tp fn; do
		case $kind in tp) label="one uint32 tracepoint" r=1 target=1.00 ;; fn) label="func_entry/func_exit (+profile)" r=2 target=- ;; esac
		a=$(per $kind "$work/$port-plain.out" $r)
		b=$(per $kind "$work/$port-serial.out" $r)
		c=$(per $kind "$work/$port-serial4k.out" $r)
		printf '%-40s %8s %8s %7s %9s %7s %7s\n' "$port: $label" "$a" "$b" \
			"$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / a }')" "$c" \
			"$(awk -v a="$a" -v b="$c" 'BEGIN { printf "%.2f", b / a }')" "$target"
	done
done
echo "(today: one 4 KiB packet reused, no transport; serial: the serial firmware's 512-byte ring slots"
echo " drained by the serial target between batches of 32, hook records written with the interrupt"
echo " masked; serial4k: the same with 4 KiB slots, the packet size of today's: the records and the"
echo " packet switches as often, only the transport differs; func_entry/func_exit: per record, half"
echo " an instrumented call with the on-target profile on)"
