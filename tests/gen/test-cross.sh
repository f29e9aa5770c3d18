#!/usr/bin/env bash
# The runtime and generated code are C99, freestanding and warning-free
# for the host (-pedantic), for Cortex-M3 and for RISC-V, in both byte
# orders where the target has them; code generated for the other byte
# order stops at the #error that says so.
set -eu
cd "$(dirname "$0")"
. ../lib.sh
: "${TOP:=$(cd ../.. && pwd)}"
WARN="-std=c99 -pedantic -Wall -Wextra -Werror -O2"

configs="interop/types.yaml runtime/rt.yaml $TOP/bench/tracepoint/config.yaml"
for cfg in $configs; do
	name=$(basename "$cfg" .yaml)
	"$HETRACE" gen "$cfg" -o "$w/$name-le"
	sed 's/native-byte-order: *\(le\|little\|little-endian\)$/native-byte-order: big-endian/' \
		"$cfg" >"$w/$name-be.yaml"
	grep -q 'native-byte-order: big-endian' "$w/$name-be.yaml" || bad "$name: no byte order to flip"
	cp "$(dirname "$cfg")"/*.yaml "$w/" 2>/dev/null || true
	"$HETRACE" gen "$w/$name-be.yaml" -o "$w/$name-be"

	compile() { # LABEL CC FLAGS... : the source and the runtime
		local label=$1 cc=$2
		shift 2
		if ! $cc $WARN -ffreestanding "$@" -I"$dir" -I"$TOP/include" \
			-c "$dir/barectf.c" -o "$w/out.o" 2>"$w/err"; then
			bad "$name ($label): $(head -5 "$w/err")"
		fi
		for src in "$TOP"/runtime/*.c; do
			if ! $cc $WARN -ffreestanding "$@" -I"$TOP/include" \
				-c "$src" -o "$w/rt.o" 2>"$w/err"; then
				bad "runtime $(basename "$src") ($label): $(head -5 "$w/err")"
			fi
		done
	}
	dir="$w/$name-le"
	compile host cc
	compile cortex-m3 arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb
	compile riscv64 riscv64-unknown-elf-gcc --specs=picolibc.specs
	compile riscv32 riscv64-unknown-elf-gcc --specs=picolibc.specs -march=rv32imac -mabi=ilp32
	dir="$w/$name-be"
	compile arm-big-endian arm-none-eabi-gcc -mcpu=cortex-r4 -mbig-endian
	# The wrong byte order must not compile, and must say why.
	if cc $WARN -I"$dir" -c "$dir/barectf.c" -o "$w/out.o" 2>"$w/err"; then
		bad "$name: big-endian code compiled for a little-endian host"
	elif ! grep -q 'big-endian but the target is not' "$w/err"; then
		bad "$name: wrong byte order: unexpected message: $(head -3 "$w/err")"
	fi
done
echo "compiled for: host, cortex-m3, riscv64, riscv32, arm big-endian"
exit $fail
