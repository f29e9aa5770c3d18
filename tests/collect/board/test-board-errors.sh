#!/usr/bin/env bash
# hetrace record --board against bad board files and boards that cannot
# be mapped, each built here: python3 writes a valid board file and then
# breaks one thing at a known line and column. Each must give
# "FILE:LINE:COL: message" (or name the region, its path and the reason),
# exit 1 (2 for a bad --define), within a time and memory bound, and
# leave no capture directory behind. The good file is checked to pass, so
# that every failure below is the one broken thing.
set -u
cd "$(dirname "$0")"
: "${TOP:=$(cd ../../.. && pwd)}"
. ../../lib.sh
shm="/ht-board-err-$$"
trap 'rm -rf "$w"; rm -f /dev/shm/"${shm#/}"*' EXIT

# The region: a POSIX shm object of 1 MiB, and a file of 64 KiB.
python3 - "$shm" "$w" <<'PY'
import sys, os
open("/dev/shm/" + sys.argv[1][1:], "wb").truncate(1 << 20)
open(sys.argv[2] + "/ram", "wb").truncate(64 << 10)
PY

# mk NAME PY-EXPR...: writes $w/NAME.yaml: the good board, with the lines
# replaced as the python statements (run on `lines`, a list) say.
mk() {
	local name=$1
	shift
	python3 - "$w/$name.yaml" "$shm" "$w" "$@" <<'PY'
import sys
path, shm, w = sys.argv[1:4]
lines = f"""board: errors
regions:
  shm0: {{shm: {shm}, size: 1M}}
  ram: {{file: {w}/ram, offset: 16K, size: 32K}}
sync: {{period: 10ms, timeout: 50ms, burst: 2, stall: 1s}}
cores:
  - name: arm0
    role: master
  - name: dsp0
    role: slave
    id: 1
    ring: {{region: shm0, offset: 0x10000, size: 64K}}
    mailbox: {{region: shm0, offset: 0x1000}}
    doorbell:
      signal: {{pid: 1234, signal: SIGUSR1}}
  - name: dsp1
    role: slave
    ring: {{region: ram, offset: 0, size: 16K}}
    mailbox: {{region: shm0, offset: 0x1100}}
    doorbell:
      mmio: {{region: shm0, offset: 0x800, width: 32, value: 1}}
""".splitlines()
for stmt in sys.argv[4:]:
    exec(stmt)
open(path, "w").write("\n".join(lines) + "\n")
PY
}

# bad_case NAME LINE:COL PATTERN PY...: the board NAME (broken by PY)
# is refused with "NAME.yaml:LINE:COL: ...PATTERN...", exit 1.
bad_case() {
	local name=$1 pos=$2 pat=$3
	shift 3
	mk "$name" "$@"
	expect_exit "$name" 1 bounded 20 512 "$HETRACE" record --board "$w/$name.yaml" -o "$w/cap-$name"
	expect_err "$name" "$w/$name.yaml:$pos: .*$pat"
	[ ! -e "$w/cap-$name" ] || bad "$name: a capture directory was created"
	expect_exit "$name --check" 1 bounded 20 512 "$HETRACE" record --board "$w/$name.yaml" --check
	expect_err "$name --check" "$w/$name.yaml:$pos: .*$pat"
}

# The good board validates (nothing is opened by --check).
mk good
expect_exit "good --check" 0 bounded 20 512 "$HETRACE" record --board "$w/good.yaml" --check
grep -q "master arm0" "$w/out" || bad "good --check: $(cat "$w/out")"
grep -q "doorbell signal SIGUSR1 to pid 1234" "$w/out" || bad "good --check: no doorbell: $(cat "$w/out")"
grep -q "doorbell mmio 32-bit write of 0x1 at shm0+0x800" "$w/out" || bad "good --check: no mmio doorbell: $(cat "$w/out")"

# Unknown keys: at the top, in a core, in a doorbell.
bad_case unknown-top 1:1 "unknown key 'bord'" 'lines[0] = "bord: errors"'
bad_case unknown-core 11:5 "unknown key 'identity'" 'lines[10] = "    identity: 1"'
bad_case unknown-doorbell 15:27 "unknown key 'sig'" 'lines[14] = "      signal: {pid: 1234, sig: SIGUSR1}"'
bad_case unknown-kind 15:7 "unknown key 'gpio'" 'lines[14] = "      gpio: {pin: 3}"'
# Wrong types and values.
bad_case type-size 3:25 "expected a number" 'lines[2] = "  shm0: {shm: /x, size: big}"'
bad_case type-regions 2:10 "expected a mapping" 'lines[1] = "regions: [1, 2]"; del lines[2:4]'
bad_case type-cores 6:8 "expected a sequence" 'lines[5] = "cores: {}"; del lines[6:]'
bad_case type-width 21:50 "width 24" 'lines[20] = "      mmio: {region: shm0, offset: 0x800, width: 24, value: 1}"'
bad_case type-duration 5:16 "expected a duration" 'lines[4] = "sync: {period: 10 parsecs}"'
bad_case type-role 8:11 "role 'boss'" 'lines[7] = "    role: boss"'
# Duplicates: a core name, a key.
bad_case dup-core 16:11 "core 'dsp0' is defined twice (first at line 9)" 'lines[15] = "  - name: dsp0"'
bad_case dup-key 12:5 "duplicate key 'role'" 'lines[11] = "    role: slave"'
# Exactly one master.
bad_case two-masters 10:11 "a second master" 'lines[9] = "    role: master"; del lines[12:15]'
bad_case no-master 7:3 "no core has role master" 'lines[7] = "    role: slave"'
# Rings overlapping in one region; places outside their region.
bad_case overlap 18:11 "overlaps core 'dsp0''s ring" 'lines[17] = "    ring: {region: shm0, offset: 0x18000, size: 64K}"'
bad_case ring-outside 12:11 "ring at offset 0xf8000 .* is outside region 'shm0'" 'lines[11] = "    ring: {region: shm0, offset: 0xf8000, size: 64K}"'
bad_case mailbox-outside 13:14 "mailbox at offset 0x100000 .* is outside region 'shm0'" 'lines[12] = "    mailbox: {region: shm0, offset: 1M}"'
bad_case doorbell-outside 21:13 "doorbell register at offset 0x100000 .* is outside region 'shm0'" 'lines[20] = "      mmio: {region: shm0, offset: 0x100000, width: 32, value: 1}"'
bad_case no-region 12:20 "no region named 'sram'" 'lines[11] = "    ring: {region: sram, offset: 0x10000, size: 64K}"'
# A placeholder with no --define.
bad_case placeholder 15:21 'placeholder ${DSP0_PID} is not defined' 'lines[14] = "      signal: {pid: \"${DSP0_PID}\"}"'
# YAML syntax.
bad_case syntax 13:12 "invalid YAML" 'lines[11] = "    ring: {region: shm0, offset: 0x10000"'

# The placeholder defined: accepted, and its value used.
expect_exit "placeholder defined" 0 bounded 20 512 "$HETRACE" record --board "$w/placeholder.yaml" --check --define DSP0_PID=4321
grep -q "signal SIGUSR1 to pid 4321" "$w/out" || bad "placeholder defined: $(cat "$w/out")"
# A define that is no NAME=VALUE: a usage error.
expect_exit "bad define" 2 bounded 20 512 "$HETRACE" record --board "$w/placeholder.yaml" --check --define 4321
expect_err "bad define" "expected NAME=VALUE"
usage_case "--check needs --board" record --check
usage_case "no RING" record --board "$w/good.yaml" -o "$w/c" /dev/shm/x

# Regions that cannot be opened or mapped: region, kind, path and reason
# named, exit 1, no capture directory.
region_case() { # NAME PATTERN PY...
	local name=$1 pat=$2
	shift 2
	mk "$name" "$@"
	expect_exit "$name" 1 bounded 20 512 "$HETRACE" record --board "$w/$name.yaml" -o "$w/cap-$name"
	expect_err "$name" "$pat"
	[ ! -e "$w/cap-$name" ] || bad "$name: a capture directory was created"
}
region_case shm-missing "region 'shm0' (shm /ht-board-err-none-$$): cannot open: No such file" \
	"lines[2] = '  shm0: {shm: /ht-board-err-none-$$, size: 1M}'"
region_case shm-short "region 'shm0' (shm $shm): offset 0x0 + size 0x200000 passes the end of the object (1048576 bytes)" \
	"lines[2] = '  shm0: {shm: $shm, size: 2M}'"
region_case file-short "region 'ram' (file $w/ram): offset 0x8000 + size 0x10000 passes the end of the file (65536 bytes)" \
	"lines[3] = '  ram: {file: $w/ram, offset: 32K, size: 64K}'"
region_case file-dir "region 'ram' (file $w): cannot open: Is a directory" \
	"lines[3] = '  ram: {file: $w, size: 64K}'"
region_case uio-missing "region 'ipi' (uio /dev/ht-no-uio-$$): cannot open: No such file" \
	"lines.insert(4, '  ipi: {uio: /dev/ht-no-uio-$$, map: 1, size: 4K}')"

# A board file of 5 MB: refused without reading it all.
python3 -c "import sys; open(sys.argv[1], 'w').write('#' * (5 << 20))" "$w/huge.yaml"
expect_exit "huge" 1 bounded 20 512 "$HETRACE" record --board "$w/huge.yaml" --check
expect_err "huge" "huge.yaml"

exit $fail
