#!/usr/bin/env bash
# Range reads (target: a 10 ms window in the middle of a 2 GB trace
# printed in under 0.5 s): tests/ctf/reader/bigtrace.c writes one stream
# of 64 KiB packets (about 63 million events over 6.7 s); then
# `hetrace print --begin B --end E` of a 10 ms window in the middle,
# `babeltrace2 --begin B --end E` of the same window (the anchor) and
# `hetrace print` of the whole trace, to /dev/null, the best of 3 runs
# each (the trace is in the page cache after it is written). The window
# outputs are checked equal first. The trace is deleted at the end.
# usage: bench/range.sh [MEGABYTES]   (HETRACE: the CLI to measure)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
mb=${1:-2048}

cc -O2 -o "$work/bigtrace" "$top/tests/ctf/reader/bigtrace.c"
"$work/bigtrace" "$work/trace" "$mb" >"$work/gen.out"
events=$(sed -n 's/.*, \([0-9]*\) events$/\1/p' "$work/gen.out")
# the middle of the trace: between its first and last events
span=$("$HETRACE" info "$work/trace" |
	sed -n 's/^ *\(first\|last\) event: \([0-9.]*\) s.*/\2/p' | tr '\n' ' ')
read -r first last <<<"$span"
read -r b e < <(awk -v f="$first" -v l="$last" \
	'BEGIN { m = (f + l) / 2; printf "%.9f %.9f\n", m, m + 0.010 }')

"$HETRACE" print --begin "$b" --end "$e" "$work/trace" >"$work/ht.out"
babeltrace2 --begin "$b" --end "$e" "$work/trace" >"$work/bt.out"
cmp -s "$work/ht.out" "$work/bt.out" || {
	echo "range: hetrace's window differs from babeltrace2's"
	exit 1
}
lines=$(wc -l <"$work/ht.out")
t_ht=$(best 3 "$HETRACE" print --begin "$b" --end "$e" "$work/trace")
t_bt=$(best 3 babeltrace2 --begin "$b" --end "$e" "$work/trace")
t_full=$(best 1 "$HETRACE" print "$work/trace")
bytes=$(du -sb "$work/trace" | cut -f1)
awk -v ht="$t_ht" -v bt="$t_bt" -v full="$t_full" -v by="$bytes" \
	-v n="$lines" -v ev="$events" 'BEGIN {
	printf "%-44s %10s %10s %8s %8s\n", "range", "babeltrace2", "hetrace", "ratio", "target"
	printf "%-44s %10.3f %10.3f %8.3f %8s\n", "10 ms window in the middle, s", bt, ht, ht / bt, "<=0.5 s"
	printf "%-44s %10s %10.3f %8.4f\n", "the whole trace (hetrace print), s", "", full, ht / full
	printf "  (%.0f bytes, %.0f events; the window holds %d events; goal %s)\n",
		by, ev, n, ht <= 0.5 ? "met" : "NOT met"
}'
