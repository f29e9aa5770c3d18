#!/usr/bin/env bash
# Decode speed: `hetrace info` (scans every event record of each stream
# for its class and time: ht_ctf_stream_scan(), no merge, no field
# values) against `babeltrace2 -o dummy`, on 2-million-event barectf
# traces made by tests/ctf/reader/mktrace.sh and on an LTTng-UST trace of
# 2 million events recorded here (tests/ctf/print/corpus/ust-record.sh;
# skipped without lttng-tools). Prints events/s of both and the ratio
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

measure() { # NAME TRACE
	local ev bytes th tb
	ev=$("$HETRACE" info "$2" | sed -n 's/^total: .* \([0-9]*\) events$/\1/p')
	bytes=$(du -sb "$2" | cut -f1)
	th=$(best 7 "$HETRACE" info "$2")
	tb=$(best 3 babeltrace2 "$2" -o dummy)
	awk -v k="$1" -v e="$ev" -v by="$bytes" -v th="$th" -v tb="$tb" 'BEGIN {
		printf "%-8s %10d %12d %14.0f %14.0f %6.1fx\n", k, e, by, e / th, e / tb, tb / th
	}'
}

printf '%-8s %10s %12s %14s %14s %7s\n' trace events bytes "hetrace ev/s" "bt2 ev/s" ratio
for kind in basic be16; do
	"$here/../tests/ctf/reader/mktrace.sh" "$kind" "$tmp/$kind" "$N" >/dev/null
	measure "$kind" "$tmp/$kind/trace"
	rm -rf "$tmp/$kind"
done
# LTTng-UST: two threads, two events per iteration
if command -v lttng-sessiond >/dev/null; then
	timeout 300 "$here/../tests/ctf/print/corpus/ust-record.sh" "$tmp/ust" \
		$((N / 4)) bench >/dev/null
	measure lttng "$tmp/ust/out/bench"
else
	echo "lttng: lttng-tools missing (scripts/deps.sh lttng), skipped"
fi
