#!/usr/bin/env bash
# Decode speed: `hetrace info` (scans every event record of each stream
# for its class and time: ht_ctf_stream_scan(), no merge, no field
# values) against `babeltrace2 -o dummy`, on 2-million-event barectf traces made
# by tests/reader/mktrace.sh. Prints events/s of both and the ratio
# (target: >= 20x). Best of 7 runs of hetrace, 3 of babeltrace2.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
HETRACE=${HETRACE:-$here/../build/hetrace}
N=${BENCH_EVENTS:-2000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

best() { # best wall time in seconds of RUNS runs of "$@" (ns clock)
	local runs=$1 b="" t0 t1 t
	shift
	for _ in $(seq "$runs"); do
		t0=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s.%N)
		t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
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
	th=$(best 7 "$HETRACE" info "$tmp/$kind/trace")
	tb=$(best 3 babeltrace2 "$tmp/$kind/trace" -o dummy)
	awk -v k="$kind" -v e="$ev" -v by="$bytes" -v th="$th" -v tb="$tb" 'BEGIN {
		printf "%-8s %10d %12d %14.0f %14.0f %6.1fx\n", k, e, by, e / th, e / tb, tb / th
	}'
	rm -rf "$tmp/$kind"
done
