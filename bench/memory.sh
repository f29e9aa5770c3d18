#!/usr/bin/env bash
# Peak memory of the reader on a 2 GiB trace (target: at most 64 MiB
# resident): tests/ctf/reader/bigtrace.c writes one stream of 64 KiB packets
# (about 63 million events) in a temporary directory under /tmp; then
# `hetrace info` and `hetrace print > /dev/null` run and their peak
# resident size is reported (wait4's ru_maxrss), with the time taken.
# The trace is deleted at the end.
# usage: bench/memory.sh [MEGABYTES]   (HETRACE: the CLI to measure)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
HETRACE=${HETRACE:-$top/build/hetrace}
mb=${1:-2048}
work=$(mktemp -d /tmp/ht-bench-memory.XXXXXX)
trap 'rm -rf "$work"' EXIT

cc -O2 -o "$work/bigtrace" "$top/tests/ctf/reader/bigtrace.c"
cc -O2 -o "$work/maxrss" "$top/tests/ctf/reader/maxrss.c"
"$work/bigtrace" "$work/trace" "$mb" >"$work/gen.out"
events=$(sed -n 's/.*, \([0-9]*\) events$/\1/p' "$work/gen.out")
bytes=$(du -sb "$work/trace" | cut -f1)
status=0
for cmd in info print; do
	t0=$(date +%s.%N)
	kb=$("$work/maxrss" "$HETRACE" "$cmd" "$work/trace")
	t1=$(date +%s.%N)
	awk -v c="$cmd" -v kb="$kb" -v e="$events" -v by="$bytes" \
		-v t0="$t0" -v t1="$t1" 'BEGIN {
		goal = kb <= 65536 ? "(goal <= 64 MiB: met)" : "(goal <= 64 MiB: NOT met)"
		printf "memory %-5s %11.0f bytes %9.0f events  peak %7.1f MiB  %6.1f s  %s\n",
			c, by, e, kb / 1024, t1 - t0, goal
	}'
	[ "$kb" -le 65536 ] || status=1
done
exit $status
