#!/usr/bin/env bash
# make demo: the Sobel example traced with hetrace's generated
# tracepoints, printed by hetrace (and checked by babeltrace2); then the
# simulated board end to end (hetrace demo: sim, sync, paths, report,
# export) with its summary. Files go to ./hetrace-demo/.
set -eu
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=hetrace-demo
rm -rf "$out"
mkdir -p "$out/gen" "$out/trace"

echo "== hetrace gen examples/sobel/config.yaml -o $out/gen"
"$BUILD/hetrace" gen examples/sobel/config.yaml -o "$out/gen"
cp "$out/gen/metadata" "$out/trace/metadata"
cc -O2 -std=c99 -Wall -Wextra -Werror -pthread -I"$out/gen" \
	-o "$out/sobel" examples/sobel/sobel.c "$out/gen/sobel-trace.c"

echo "== $out/sobel $out/trace"
"$out/sobel" "$out/trace" 20

echo "== hetrace print $out/trace (first 20 lines)"
"$BUILD/hetrace" print "$out/trace" >"$out/trace.txt"
head -20 "$out/trace.txt"
echo "... $(wc -l <"$out/trace.txt") events in $out/trace.txt"

echo "== hetrace info $out/trace"
"$BUILD/hetrace" info "$out/trace"

if command -v babeltrace2 >/dev/null; then
	if babeltrace2 "$out/trace" | cmp -s - "$out/trace.txt"; then
		echo "== babeltrace2 prints the same $(wc -l <"$out/trace.txt") lines"
	else
		echo "== babeltrace2 prints differently" >&2
		exit 1
	fi
fi

echo
echo "== the simulated board end to end: hetrace demo -o $out"
"$BUILD/hetrace" demo -o "$out"
