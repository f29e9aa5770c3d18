#!/usr/bin/env bash
# Decode speed: `hetrace info` (decodes every event, formats nothing)
# against `babeltrace2 -o dummy`, on 2-million-event barectf traces made
# by tests/reader/mktrace.sh. Prints events/s of both and the ratio
# (target: >= 20x). Best of 3 runs each.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
HETRACE=${HETRACE:-$here/../build/hetrace}
N=${BENCH_EVENTS:-2000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

best() { # best wall time in seconds of 3 runs of "$@"
	local b="" t
	for _ in 1 2 3; do
		/usr/bin/time -o "$tmp/time" -f %e "$@" >/dev/null 2>&1 || true
		t=$(tail -n 1 "$tmp/time")
		if [ -z "$b" ] || awk -v a="$t" -v b="$b" 'BEGIN { exit !(a < b) }'; then
			b=$t
		fi
	done
	echo "$b"
}

printf '%-8s %10s %12s %14s %14s %7s\n' trace events bytes "hetrace ev/s" "bt2 ev/s" ratio
for kind in basic be16; do
	"$here/../tests/reader/mktrace.sh" "$kind" "$tmp/$kind" "$N" >/dev/null
	ev=$("$HETRACE" info "$tmp/$kind/trace" | sed -n 's/^total: .* \([0-9]*\) events$/\1/p')
	bytes=$(du -sb "$tmp/$kind/trace" | cut -f1)
	th=$(best "$HETRACE" info "$tmp/$kind/trace")
	tb=$(best babeltrace2 "$tmp/$kind/trace" -o dummy)
	awk -v k="$kind" -v e="$ev" -v by="$bytes" -v th="$th" -v tb="$tb" 'BEGIN {
		if (th <= 0) th = 0.005
		printf "%-8s %10d %12d %14.0f %14.0f %6.1fx\n", k, e, by, e / th, e / tb, tb / th
	}'
	rm -rf "$tmp/$kind"
done
