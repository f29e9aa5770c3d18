# Helpers of the serial firmware tests and demo (sourced, bash; needs $w
# and, for serial_build, $HETRACE and $TOP): build the images, boot one
# QEMU per port with its UART on a host endpoint, stop them.
#   serial_setup                     a test's start: skips (exit 0, a
#       message) when QEMU, a cross compiler, babeltrace2 or python3 is
#       missing; at exit stops the QEMUs and removes $w; builds the
#       images into $fw ($w/fw), exit 1 when that fails
#   serial_build DIR                 make -f platforms/qemu/firmware.mk serial
#   serial_boot PORT ELF PREFIX [wait]
#       cm3: -serial unix:PREFIX.sock; rv32: -serial pty (the path is
#       parsed from QEMU's "char device redirected to /dev/pts/N"; a
#       `sleep` holds it open so that each client is read at once).
#       Sets $target (unix:PATH or pty:PATH) and $monitor. With `wait`,
#       QEMU starts stopped (-S): the client sends `cont MONITOR` once it
#       listens, so nothing the firmware sends from boot on is lost.
#   serial_stop_all                  kills the QEMUs started here (by pid)
#   fn_addr PORT ELF NAME            the hooks' value of NAME (Thumb bit on cm3)
serial_pids=()
target=
monitor=

serial_setup() {
	local tool
	for tool in qemu-system-arm qemu-system-riscv32 arm-none-eabi-gcc riscv64-unknown-elf-gcc babeltrace2 python3; do
		command -v "$tool" >/dev/null || { echo "SKIP: $tool missing (scripts/deps.sh qemu)"; exit 0; }
	done
	trap 'serial_stop_all; rm -rf "$w"' EXIT
	fw="$w/fw"
	serial_build "$fw" || exit 1
}

serial_build() {
	(cd "$TOP" && make -s -f platforms/qemu/firmware.mk OUT="$1" HETRACE="$HETRACE" serial \
		>"$1.log" 2>&1) || { cat "$1.log"; echo "FAIL: serial firmware build"; return 1; }
}

serial_boot() {
	local port=$1 elf=$2 p=$3 stop=() i
	[ "${4:-}" = wait ] && stop=(-S)
	monitor="$p.mon"
	rm -f "$p.sock" "$p.mon"
	case $port in
	cm3)
		qemu-system-arm -machine mps2-an385 -cpu cortex-m3 -kernel "$elf" "${stop[@]}" \
			-display none -monitor "unix:$p.mon,server=on,wait=off" \
			-serial "unix:$p.sock,server=on,wait=off" >"$p.log" 2>&1 &
		serial_pids+=($!)
		target="unix:$p.sock"
		for i in $(seq 100); do [ -S "$p.sock" ] && [ -S "$p.mon" ] && return 0; sleep 0.05; done ;;
	rv32)
		qemu-system-riscv32 -machine virt -bios none -kernel "$elf" "${stop[@]}" \
			-display none -monitor "unix:$p.mon,server=on,wait=off" \
			-serial pty >"$p.log" 2>&1 &
		serial_pids+=($!)
		for i in $(seq 100); do
			target=$(sed -n 's|.*char device redirected to \(/dev/pts/[0-9]*\).*|pty:\1|p' "$p.log")
			if [ -n "$target" ] && [ -S "$p.mon" ]; then
				# QEMU notices a pty's reader only by polling once a
				# second after the last one left (input waits meanwhile):
				# a process holding the pty open keeps it connected.
				sleep 1000000 <>"${target#pty:}" &
				serial_pids+=($!)
				return 0
			fi
			sleep 0.05
		done ;;
	esac
	echo "serial_boot: $port: QEMU did not come up: $(tail -2 "$p.log")" >&2
	return 1
}

serial_stop_all() {
	local p
	for p in "${serial_pids[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	serial_pids=()
}

serial_no_qemu_left() {
	if pgrep -f -- "$w/" >/dev/null; then
		bad "QEMU processes left: $(pgrep -af -- "$w/" | head -3)"
	fi
}

fn_addr() {
	local nm=riscv64-unknown-elf-nm a
	[ "$1" = cm3 ] && nm=arm-none-eabi-nm
	a=$($nm "$2" | awk -v f="$3" '$3 == f { print $1; exit }')
	[ -n "$a" ] || { echo "fn_addr: $3 not in $2" >&2; return 1; }
	# Thumb functions: the hooks see the address with bit 0 set.
	if [ "$1" = cm3 ]; then printf '0x%x\n' $((0x$a | 1)); else printf '0x%x\n' $((0x$a)); fi
}
