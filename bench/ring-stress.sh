#!/usr/bin/env bash
# The ring stress run, long (tests/collect/record/ring-stress.sh; make
# check runs a short one): a producer on CPU 0 and `hetrace record` on
# CPU 1, one ring of 16 slots of 4 KiB whose indices start just below
# 2^32 (they wrap after 256 packets), 20 million events in discard mode
# and in overwrite mode read live, each accounted for exactly
# (written + discarded = produced for events, written + lost =
# committed for packets). The anchor is the producer's count: the
# figures are what the collector kept of it, and any miscount fails.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
EVENTS=${RING_STRESS_EVENTS:-20000000}
"$top/tests/collect/record/ring-stress.sh" "$HETRACE" "$work/stress" "$EVENTS" 4096 16 20 >"$work/out" || {
	cat "$work/out"
	exit 1
}
printf '%-52s %10s %10s %8s %8s\n' "ring stress, 1 producer + record on 2 CPUs, wrapping" "produced" "kept" "ratio" "exact"
while read -r mode ev wr di pk co lo se; do
	ev=${ev#events=} wr=${wr#written=} di=${di#discarded=} pk=${pk#packets=} co=${co#committed=} lo=${lo#lost=} se=${se#secs=}
	label="events (written + discarded = produced)"
	[ "$mode" = discard ] || label="events (the rest in the lost packets)"
	printf '%-52s %10s %10s %8s %8s\n' "$mode: $label" "$ev" "$wr" \
		"$(awk -v a="$wr" -v b="$ev" 'BEGIN { printf "%.2f", a / b }')" "yes"
	printf '%-52s %10s %10s %8s %8s\n' "$mode: packets (written + lost = committed)" "$co" "$pk" \
		"$(awk -v a="$pk" -v b="$co" 'BEGIN { printf "%.2f", a / b }')" "yes"
	printf '%-52s %10s %10s %8s %8s\n' "$mode: seconds, events/s produced" "$se" \
		"$(awk -v e="$ev" -v s="$se" 'BEGIN { printf "%.1fM", e / s / 1e6 }')" "" ""
done <"$work/out"
