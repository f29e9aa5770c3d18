#!/usr/bin/env bash
# The master on ARM Linux (docs/build.md): `make CROSS_COMPILE=aarch64-linux-gnu-`
# builds an aarch64 hetrace into build/aarch64 (incremental: a rebuild only
# checks), with the generator it runs during the build built for this
# machine. Under Debian's qemu-user the aarch64 hetrace prints its help,
# records a simulated board whose capture check-capture.py finds complete
# and true to truth.json, and synchronizes it exactly as the native
# hetrace does (the same report and merged trace, byte for byte); both
# builds' own sim + sync runs succeed with the same cores, every slave
# synchronized with bounds. A build without elfutils refuses --elf with a
# message saying so, exit 1, and `hetrace demo` runs without it.
#
# qemu-aarch64 runs without -L: the dynamic loader and the libraries then
# all come from Debian's arm64 multiarch packages (libc6:arm64 comes with
# libyaml-dev:arm64), as on an arm64 Debian master. With
# -L /usr/aarch64-linux-gnu the loader would be libc6-arm64-cross's and
# libc.so.6 the multiarch one, two builds of glibc that hang in fork().
set -u
cd "$TOP"
. tests/lib.sh

cross=aarch64-linux-gnu-
xbuild=build/aarch64
x=$TOP/$xbuild/hetrace
sim_dir=$TOP/tests/platforms/sim

for tool in ${cross}gcc qemu-aarch64; do
	command -v "$tool" >/dev/null ||
		{ echo "FAIL: no $tool: scripts/deps.sh build check installs it"; exit 1; }
done

# e_machine of an ELF file (62 x86-64, 183 AArch64).
elf_machine() {
	od -An -j18 -N2 -tu2 "$1" | tr -d ' '
}

# The cross build, with the caller's make and build variables left out
# (tests/run.sh exports BUILD for the native build under test).
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD -u CC -u CFLAGS -u LDFLAGS \
	timeout 280 make --no-print-directory -j2 CROSS_COMPILE=$cross \
	BUILD=$xbuild build-all >"$w/make.log" 2>&1; then
	tail -20 "$w/make.log"
	echo "FAIL: the cross build failed"
	exit 1
fi
[ "$(elf_machine "$x")" = 183 ] || bad "$x: not an AArch64 ELF (e_machine $(elf_machine "$x"))"
host_machine=$(elf_machine "$(command -v make)")
[ "$(elf_machine "$xbuild/host/tools/gen-boot")" = "$host_machine" ] ||
	bad "gen-boot is not built for this machine (e_machine $(elf_machine "$xbuild/host/tools/gen-boot"))"
[ -e "$xbuild/tests" ] && bad "the cross build built the unit tests"
# A second run finds everything up to date.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD -u CC -u CFLAGS -u LDFLAGS \
	timeout 60 make --no-print-directory -j2 CROSS_COMPILE=$cross \
	BUILD=$xbuild build-all >"$w/make2.log" 2>&1 || bad "cross rebuild failed"
grep -q "${cross}gcc\|^cc " "$w/make2.log" && bad "cross rebuild compiled again: $(head -3 "$w/make2.log")"

# --help, and a usage error: exit 2.
expect_exit "aarch64 --help" 0 bounded 30 1024 qemu-aarch64 "$x" --help
grep -q "^usage: hetrace COMMAND" "$w/out" || bad "aarch64 --help: $(head -2 "$w/out")"
expect_exit "aarch64 sim --help" 0 bounded 30 1024 qemu-aarch64 "$x" sim --help
grep -q "^usage: hetrace sim -o CAPTURE" "$w/out" || bad "aarch64 sim --help: $(head -2 "$w/out")"
expect_exit "aarch64 bad option" 2 bounded 30 1024 qemu-aarch64 "$x" sync --bogus
expect_err "aarch64 bad option" "option '--bogus'"

# sim_sync NAME HETRACE...: `sim` then `sync` with that hetrace into
# $w/NAME.cap, $w/NAME.trace and $w/NAME.json.
sim_sync() {
	local name=$1
	shift
	if ! bounded 120 1024 "$@" sim -o "$w/$name.cap" --cores 2 --seconds 1 \
		--no-fsync >"$w/$name.sim" 2>&1; then
		bad "$name: sim failed: $(tail -3 "$w/$name.sim")"
		return 1
	fi
	grep -q "^hetrace sim: 3 cores" "$w/$name.sim" || bad "$name: sim summary: $(head -1 "$w/$name.sim")"
	if ! bounded 60 1024 "$@" sync "$w/$name.cap" -o "$w/$name.trace" \
		-r "$w/$name.json" >"$w/$name.sync" 2>&1; then
		bad "$name: sync failed: $(tail -3 "$w/$name.sync")"
		return 1
	fi
}

# The aarch64 master records and synchronizes the simulated board.
if sim_sync arm qemu-aarch64 "$x"; then
	python3 "$sim_dir/check-capture.py" "$w/arm.cap" 2 >"$w/check.out" 2>&1 ||
		bad "aarch64 capture: $(tail -5 "$w/check.out")"
	# The same capture synchronized natively: the same fit and trace.
	"$HETRACE" sync "$w/arm.cap" -o "$w/arm-native.trace" -r "$w/arm-native.json" \
		>"$w/arm-native.sync" 2>&1 || bad "native sync of the aarch64 capture failed"
	# The fit and the merged trace are exact (integer arithmetic); the
	# report's derived figures (drift, bound widths) go through long
	# double, 80-bit on x86-64 and 128-bit on aarch64: equal within
	# 1e-9 relative, every other value identical.
	python3 - "$w/arm.json" "$w/arm-native.json" >"$w/json.cmp" 2>&1 <<'PY' ||
import json, sys
def same(a, b, at):
    if isinstance(a, float) or isinstance(b, float):
        if not (isinstance(a, (int, float)) and isinstance(b, (int, float))
                and abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300)):
            sys.exit(f"{at}: {a!r} != {b!r}")
    elif isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            sys.exit(f"{at}: keys {sorted(a)} != {sorted(b)}")
        for k in a:
            same(a[k], b[k], f"{at}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            sys.exit(f"{at}: {len(a)} items != {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{at}[{i}]")
    elif a != b:
        sys.exit(f"{at}: {a!r} != {b!r}")
same(*(json.load(open(p)) for p in sys.argv[1:3]), "report")
PY
		bad "aarch64 and native sync reports differ: $(cat "$w/json.cmp")"
	diff -r "$w/arm.trace" "$w/arm-native.trace" >/dev/null ||
		bad "aarch64 and native merged traces differ"
	bt2_reads "aarch64 merged trace" "$w/arm.trace"
fi

# The native build's run, for comparison: the same cores, synchronized.
sim_sync native "$HETRACE" &&
	python3 - "$w/arm.json" "$w/native.json" >"$w/cmp.out" 2>&1 <<'EOF' || bad "$(cat "$w/cmp.out")"
import json
import sys

reports = [json.load(open(p)) for p in sys.argv[1:]]
errors = []
shapes = []
for name, r in zip(("aarch64", "native"), reports):
    shapes.append([(c["name"], c["role"]) for c in r["cores"]])
    for c in r["cores"]:
        print(f"{name}: {c['name']} {c['quality']} half-width {c['half_width_ns']} ns")
        if c["role"] == "master":
            continue
        if c["unsynced"] or c["quality"] not in ("accurate", "approximate"):
            errors.append(f"{name}: {c['name']}: {c['quality']}")
        if not c["bounds"] or not c["half_width_ns"] > 0:
            errors.append(f"{name}: {c['name']}: no bounds")
if shapes[0] != shapes[1]:
    errors.append(f"cores differ: aarch64 {shapes[0]}, native {shapes[1]}")
if errors:
    sys.exit("sync results: " + "; ".join(errors))
EOF
cat "$w/cmp.out"

# Without elfutils (the cross build's default), --elf is refused, and the
# demo runs every step with the functions' addresses.
if [ -d "$w/arm.trace" ]; then
	expect_exit "aarch64 --elf" 1 bounded 30 1024 qemu-aarch64 "$x" print --elf "$x" "$w/arm.trace"
	expect_err "aarch64 --elf" "$x: cannot read ELF symbols: this hetrace was built without elfutils"
fi
# ctl resolves names before it opens the line: refused the same way,
# with nothing sent
expect_exit "aarch64 ctl --elf" 1 bounded 30 1024 qemu-aarch64 "$x" ctl "unix:$w/none.sock" --elf "$x" trigger main
expect_err "aarch64 ctl --elf" "$x: cannot read ELF symbols: this hetrace was built without elfutils"
expect_exit "aarch64 demo" 0 bounded 120 1024 qemu-aarch64 "$x" demo -o "$w/demo" --cores 2 --seconds 1
[ "$(grep -c '^\$ hetrace ' "$w/out")" = 5 ] || bad "aarch64 demo: steps: $(grep '^\$' "$w/out"; tail -3 "$w/err")"
grep -q -- "--elf" "$w/out" && bad "aarch64 demo: --elf in a build without elfutils"
[ -s "$w/demo/trace.perfetto-trace" ] || bad "aarch64 demo: no Perfetto trace"
exit $fail
