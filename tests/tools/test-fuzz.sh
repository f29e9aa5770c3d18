#!/usr/bin/env bash
# A short libFuzzer run of every fuzz target (tests/*/fuzz/fuzz-*.c,
# tests/*/*/fuzz/fuzz-*.c) in each `make check` (`make fuzz` is the long
# run): FUZZ_SECONDS (default 15) each, from the seeds, with a fresh
# corpus. Any crash, hang, leak or sanitizer report fails.
set -eu
command -v clang >/dev/null || {
	echo "clang is missing (scripts/deps.sh check)"
	exit 1
}
cd "$TOP"
make --no-print-directory -s fuzz-bin >/dev/null
srcs=$(find tests -path "*/fuzz/fuzz-*.c" | sort)
[ -n "$srcs" ] || { echo "no fuzz targets found"; exit 1; }
out="$TOP/$BUILD/fuzz-check"
rm -rf "$out"
mkdir -p "$out"
for src in $srcs; do
	n=$(basename "$src" .c)
	cp "build/fuzz/$n" "$out/$n"
done
# shellcheck disable=SC2086
tools/fuzz.sh "${FUZZ_SECONDS:-15}" "$out" $srcs
