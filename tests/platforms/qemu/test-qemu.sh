#!/usr/bin/env bash
# hetrace qemu (docs/qemu.md): the firmware built for Cortex-M3 and RISC-V,
# both cores booted under QEMU with the Linux master, traced, collected
# and synchronized (quality accurate, bound half-width <= 100 us); every
# firmware value checked against values computed in check-qemu.py
# through babeltrace2; a core that crashes or hangs mid-run (named, with
# when; every complete packet kept, the capture readable); a QEMU that
# cannot start (its command line in the message); Ctrl-C; usage errors;
# never a QEMU process left behind.
set -u
cd "$(dirname "$0")"
. ../../lib.sh
: "${TOP:=$(cd ../../.. && pwd)}"
for tool in qemu-system-arm qemu-system-riscv32 arm-none-eabi-gcc riscv64-unknown-elf-gcc babeltrace2; do
	command -v "$tool" >/dev/null || { echo "FAIL: $tool missing (scripts/deps.sh qemu)"; exit 1; }
done
# No QEMU started by this test may survive it.
no_qemu_left() { # WHAT
	if pgrep -f -- "$w/" >/dev/null; then
		bad "$1: QEMU processes left: $(pgrep -af -- "$w/" | head -3)"
	fi
}

fw="$w/fw"
(cd "$TOP" && make -s -f platforms/qemu/firmware.mk OUT="$fw" HETRACE="$HETRACE" >"$w/fw.log" 2>&1) ||
	{ cat "$w/fw.log"; echo "FAIL: firmware build"; exit 1; }
[ -f "$fw/cm3.elf" ] && [ -f "$fw/rv32.elf" ] || { echo "FAIL: no firmware images"; exit 1; }

# 1. Boot, trace, collect, sync: both cores on the host's clock.
"$HETRACE" qemu -o "$w/cap" --fw-dir "$fw" --icount none --light \
	--sync-ms 2 --extra-ms 600 --no-fsync --work "$w/run" >"$w/out" 2>"$w/err"
rc=$?
[ "$rc" = 0 ] || bad "qemu run: exit $rc: $(tail -3 "$w/err")"
no_qemu_left "qemu run"
grep -q "^  cm3 .* 25.000 MHz" "$w/out" || bad "summary: no cm3 line: $(cat "$w/out")"
grep -q "^  rv32 .* 10.000 MHz" "$w/out" || bad "summary: no rv32 line"
"$HETRACE" sync "$w/cap" -o "$w/trace" >"$w/sync" 2>"$w/sync.err" || bad "sync: exit $?: $(cat "$w/sync.err")"
cat "$w/sync"
for core in cm3 rv32; do
	line=$(grep "^$core " "$w/sync")
	echo "$line" | grep -q " accurate " || bad "sync: $core not accurate: $line"
	# The bound half-width, printed in us or ns: at most 100 us.
	hw=$(echo "$line" | awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "us" || $(i + 1) == "ns") { v = $i; u = $(i + 1) } }
		END { print (u == "ns" ? v / 1000 : v) }')
	echo "$core: bound half-width $hw us"
	awk -v h="$hw" 'BEGIN { exit !(h != "" && h <= 100) }' || bad "sync: $core half-width $hw us > 100 us"
done
python3 check-qemu.py "$w/cap" "$w/trace" || bad "check-qemu.py"
# The board the recorder ran (docs/qemu.md): kept in the capture, valid
# for `hetrace record --board`, every core with its doorbell.
"$HETRACE" record --board "$w/cap/board.yaml" --check >"$w/check" 2>&1 ||
	bad "board.yaml: --check: $(cat "$w/check")"
for core in cm3 rv32; do
	grep -q "^  slave  $core .*doorbell socket byte 0x21 on $w/run/$core.sock" "$w/check" ||
		bad "board.yaml: $core: $(grep "$core" "$w/check")"
done
grep -q "^  master linux .*ring linux+0x0" "$w/check" || bad "board.yaml: no master ring: $(cat "$w/check")"
# A second run into the same capture: refused before anything of the
# first is replaced (its board file included); no QEMU left.
cp "$w/cap/board.yaml" "$w/board.first"
expect_exit "capture there" 1 "$HETRACE" qemu -o "$w/cap" --fw-dir "$fw" --light \
	--no-fsync --work "$w/run" -q
expect_err "capture there" "a capture is already there"
cmp -s "$w/cap/board.yaml" "$w/board.first" || bad "capture there: the first run's board.yaml replaced"
no_qemu_left "capture there"

# 2. A core that crashes after its first job: named with its fault and
# when; the capture holds every complete packet (the first job's hashes
# but those of the packet left open: a contiguous run from index 0) and
# babeltrace2 reads it.
hashes_ok() { # WHAT TRACE: sha_hash indices 0..n-1, n > 4500
	local n
	n=$(babeltrace2 "$2" 2>"$w/bt.err" | grep "sha_hash" |
		awk -F'index = ' '{ split($2, a, ","); if (a[1] != NR - 1) { print "gap"; exit } } END { print NR }' | tail -1)
	[ "$n" != gap ] && [ "$n" -gt 4500 ] 2>/dev/null ||
		bad "$1: $2: sha_hash indices: $n: $(head -2 "$w/bt.err")"
	echo "$1: $n hashes of the first job kept"
}
# stopped_core WHAT CORE PATTERN: `hetrace qemu --WHAT CORE` stops CORE:
# exit 1, PATTERN on stderr, no QEMU left, the first job's hashes kept.
stopped_core() {
	expect_exit "$1" 1 "$HETRACE" qemu -o "$w/$1" --fw-dir "$fw" --icount none --light \
		"--$1" "$2" --no-fsync --work "$w/run" -q
	expect_err "$1" "$3"
	cat "$w/err"
	no_qemu_left "$1"
	hashes_ok "$1" "$w/$1/$2"
}
stopped_core crash rv32 "core rv32 stopped: fault (exception/cause 5) at pc 0x8.*address 0x00000800.*at its clock [0-9]* ticks"
bt2_reads crash "$w/crash/cm3"
"$HETRACE" qemu -o "$w/crash2" --fw-dir "$fw" --icount none --light --crash cm3 \
	--no-fsync --work "$w/run" -q >"$w/out" 2>"$w/err"
expect_err "crash cm3" "core cm3 stopped: fault (exception/cause 3) at pc 0x.*address 0x60000000"
no_qemu_left "crash cm3"

# 3. A core that hangs with its interrupts masked: the handshake goes
# unanswered; the core is named with the time of its last answer.
stopped_core hang cm3 "core cm3 stopped: no answer to sync request [0-9]* for .* s: last answer (ACK [0-9]*) seen at [0-9.]* s"

# 4. A QEMU that cannot start: the command line in the message.
expect_exit "missing QEMU" 1 "$HETRACE" qemu -o "$w/noqemu" --fw-dir "$fw" \
	--qemu-arm "$w/no-such-qemu" --no-fsync --work "$w/run" -q
expect_err "missing QEMU" "cm3: QEMU did not start, exited with status 127: command line: $w/no-such-qemu -machine mps2-an385"
expect_exit "missing firmware" 1 "$HETRACE" qemu -o "$w/badfw" --rv32 "$w/missing.elf" \
	--no-fsync --work "$w/run" -q
expect_err "missing firmware" "rv32: QEMU \\(did not start\\|ended before the firmware booted\\), exited with status 1: command line: qemu-system-riscv32 .*-kernel $w/missing.elf.*QEMU said: .*missing.elf"
cat "$w/err"
no_qemu_left "failed starts"
# A work directory that a board file cannot name ("${" reads as a
# placeholder): refused with its name, no QEMU left.
mkdir -p "$w/run\${X}"
expect_exit "work \${" 1 "$HETRACE" qemu -o "$w/dollar" --fw-dir "$fw" --light \
	--no-fsync --work "$w/run\${X}" -q
expect_err "work \${" "the work directory $w/run\\\${X} cannot be named in a board file"
no_qemu_left "work \${"

# 5. Ctrl-C in the middle of a long run: exit 0, a readable capture.
"$HETRACE" qemu -o "$w/int" --fw-dir "$fw" --light --extra-ms 60000 \
	--no-fsync --work "$w/run" -q >"$w/out" 2>"$w/err" &
pid=$!
sleep 2
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" = 0 ] || bad "Ctrl-C: exit $rc: $(cat "$w/err")"
no_qemu_left "Ctrl-C"
for core in linux cm3 rv32; do
	bt2_reads Ctrl-C "$w/int/$core"
done

# 6. Usage errors: exit 2.
usage_case "-o CAPTURE is required" qemu --fw-dir "$fw"
usage_case "no firmware" qemu -o "$w/x"
usage_case "expected cm3, rv32 or none" qemu -o "$w/x" --fw-dir "$fw" --icount arm
usage_case "expected cm3 or rv32" qemu -o "$w/x" --fw-dir "$fw" --crash dsp
usage_case "that core does not run" qemu -o "$w/x" --cm3 "$fw/cm3.elf" --hang rv32
usage_case "expected 1 to 10000" qemu -o "$w/x" --fw-dir "$fw" --sync-ms 0
"$HETRACE" qemu --help | grep -q "^usage: hetrace qemu -o CAPTURE" || bad "qemu --help"
exit $fail
