#!/usr/bin/env bash
# Runs every test: the test-*.sh scripts and the C unit tests built from
# the t-*.c files of tests/, one or two folders deep (tests/ mirrors the
# tree: tests/<subsystem>[/<part>]). Each runs with a time limit; its
# output goes to a log that is shown when it fails. Ends with "N passed,
# N failed".
# Usage: tests/run.sh [PATTERN]   (only tests whose path contains PATTERN)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export TOP="$top"
export BUILD="${BUILD:-build}"
export HETRACE="${HETRACE:-$top/$BUILD/hetrace}"
export HETRACE_OPT="${HETRACE_OPT:-$HETRACE}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
limit="${TEST_TIMEOUT:-300}"
pattern="${1:-}"

logs="$top/$BUILD/test-logs"
rm -rf "$logs"
mkdir -p "$logs"

tests=()
for t in tests/*/test-*.sh tests/*/*/test-*.sh; do
	[ -e "$t" ] && tests+=("$t")
done
for t in "$BUILD"/tests/*/t-* "$BUILD"/tests/*/*/t-*; do
	case "$t" in *.d | *.o) continue ;; esac
	[ -x "$t" ] && tests+=("$t")
done

pass=0
fail=0
failed=()
for t in "${tests[@]}"; do
	case "$t" in *"$pattern"*) ;; *) continue ;; esac
	name=${t#"$BUILD"/}
	log="$logs/$(echo "$name" | tr '/' '_').log"
	start=$(date +%s.%N)
	if timeout -k 10 "$limit" "$t" >"$log" 2>&1; then
		rc=0
	else
		rc=$?
	fi
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	if [ "$rc" = 0 ]; then
		pass=$((pass + 1))
		printf 'PASS %-50s %6.1fs\n' "$name" "$secs"
	else
		fail=$((fail + 1))
		failed+=("$name")
		[ "$rc" = 124 ] && echo "(timed out after ${limit}s)" >>"$log"
		printf 'FAIL %-50s %6.1fs (exit %d)\n' "$name" "$secs" "$rc"
		tail -n 40 "$log" | sed 's/^/    | /'
	fi
done

echo
[ "$fail" -gt 0 ] && printf 'failed: %s\n' "${failed[@]}"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
