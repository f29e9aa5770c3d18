#!/usr/bin/env bash
# hetrace hull: golden output for the small message files in
# tests/sync/hull/ (NAME.txt -> NAME.expect, stdout then the exit code),
# the bad inputs in tests/sync/hull/bad/ (stderr then the exit code),
# stdin, options and usage errors. UPDATE=1 rewrites the expect files.
set -u
: "${HETRACE:?}" "${TOP:?}"
cd "$TOP/tests/sync/hull" || exit 1
fail=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

check() { # EXPECT-FILE (compares $out)
	if [ "${UPDATE:-}" = 1 ]; then
		cp "$out" "$1"
	elif ! diff -u "$1" "$out"; then
		echo "FAIL: $1"
		fail=1
	fi
}

for f in *.txt; do
	"$HETRACE" hull "$f" >"$out" 2>&1
	echo "exit $?" >>"$out"
	check "${f%.txt}.expect"
done
for f in bad/*.txt; do
	"$HETRACE" hull "$f" >"$out" 2>&1
	echo "exit $?" >>"$out"
	check "${f%.txt}.expect"
done

# stdin gives the same fit as the file
"$HETRACE" hull <step.txt >"$out" 2>&1
echo "exit $?" >>"$out"
check step.expect
"$HETRACE" hull - <bad/self.txt >"$out" 2>&1
echo "exit $?" >>"$out"
grep -q '^hetrace hull: <stdin>:2: node 1 sends a message to itself$' "$out" ||
	{ echo "FAIL: stdin error message"; cat "$out"; fail=1; }

# --no-piecewise: the rate step is a failure; --no-outliers likewise
"$HETRACE" hull --no-piecewise step.txt >"$out" 2>&1
echo "exit $?" >>"$out"
check options-no-piecewise.expect
"$HETRACE" hull --no-outliers --no-piecewise too-fast.txt >"$out" 2>&1
echo "exit $?" >>"$out"
check options-no-outliers.expect
# rates: drift in ppm against the nominal 1:2
"$HETRACE" hull --rate 0=1000000000 --rate 1=2000000000 two-nodes.txt >"$out" 2>&1
echo "exit $?" >>"$out"
check options-rate.expect
# node 1 as the reference
"$HETRACE" hull --reference 1 tree.txt >"$out" 2>&1
echo "exit $?" >>"$out"
check options-reference.expect

# usage
expect_exit() { # CODE ARGS...
	local want=$1 got
	shift
	"$HETRACE" hull "$@" >/dev/null 2>&1 </dev/null
	got=$?
	[ "$got" = "$want" ] || { echo "FAIL: hull $* exited $got, want $want"; fail=1; }
}
expect_exit 0 --help
expect_exit 2 --bogus
expect_exit 2 a.txt b.txt
expect_exit 2 --rate 1
expect_exit 2 --window 0 step.txt
expect_exit 1 does-not-exist.txt
expect_exit 1 --reference 9 step.txt
"$HETRACE" hull --help | grep -q 'sender receiver send_time recv_time' ||
	{ echo "FAIL: --help"; fail=1; }

[ "$fail" = 0 ] && echo "hull CLI: all checks passed"
exit $fail
