# Shared start of the benchmark scripts (sourced by bench/*.sh, bash,
# after `set -eu` and `here=$(cd "$(dirname "$0")" && pwd)`):
#   $top      the top of the tree
#   $HETRACE  the CLI to measure (default: build/hetrace)
#   $work     a work directory, removed when the script exits
#   best RUNS CMD...  prints the least wall time, in seconds, of RUNS
#             runs of CMD (its output and exit status are ignored)
#   measure_lttng EVENTS LABEL  records an LTTng-UST trace of about
#             EVENTS events and runs the script's `measure lttng TRACE`
#             on it; says LABEL is skipped when lttng-tools is missing
#   qemu_toolchain PORT  (cm3 or rv32) sets cc, arch, dir (the port's
#             folder), start (its startup source) and libgcc, to build a
#             QEMU firmware; declare them local in the caller
#   qemu_icount_run PORT ELF  runs ELF on the port's QEMU machine under
#             -icount shift=0 (one instruction per virtual ns), the UART
#             on stdout (CRs removed), for at most 300 s
top=$(cd "$here/.." && pwd)
HETRACE=${HETRACE:-$top/build/hetrace}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

best() {
	local runs=$1 b="" t0 t1 t
	shift
	for _ in $(seq "$runs"); do
		t0=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s.%N)
		t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
		if [ -z "$b" ] || awk -v a="$t" -v b="$b" 'BEGIN { exit !(a < b) }'; then
			b=$t
		fi
	done
	echo "$b"
}

measure_lttng() {
	if ! command -v lttng-sessiond >/dev/null; then
		echo "$2: lttng-tools missing (scripts/deps.sh lttng), skipped"
		return 0
	fi
	# two threads, two events per iteration
	timeout 300 "$top/tests/ctf/print/corpus/ust-record.sh" "$work/ust" \
		$(($1 / 4)) bench >/dev/null
	measure lttng "$work/ust/out/bench"
}

qemu_toolchain() {
	case $1 in
	cm3) cc=arm-none-eabi-gcc arch="-mcpu=cortex-m3 -mthumb" dir=platforms/qemu/target/cortex-m
		start=$dir/startup.c libgcc=-lgcc ;;
	rv32) cc=riscv64-unknown-elf-gcc dir=platforms/qemu/target/riscv start=$dir/start.S
		arch="-march=rv32imac_zicsr_zifencei -mabi=ilp32 -mcmodel=medany --specs=picolibc.specs"
		libgcc=$($cc -march=rv32imac -mabi=ilp32 -print-libgcc-file-name) ;;
	esac
}

qemu_icount_run() {
	case $1 in
	cm3) timeout 300 qemu-system-arm -machine mps2-an385 -cpu cortex-m3 -kernel "$2" \
		-icount shift=0 -display none -monitor none -serial stdio \
		-semihosting-config enable=on,target=native </dev/null ;;
	rv32) timeout 300 qemu-system-riscv32 -machine virt -bios none -kernel "$2" \
		-icount shift=0 -display none -monitor none -serial stdio </dev/null ;;
	esac | tr -d '\r'
}
