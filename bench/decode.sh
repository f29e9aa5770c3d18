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
# shellcheck source=lib.sh
. "$here/lib.sh"
N=${BENCH_EVENTS:-2000000}

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
	"$top/tests/ctf/reader/mktrace.sh" "$kind" "$work/$kind" "$N" >/dev/null
	measure "$kind" "$work/$kind/trace"
	rm -rf "$work/$kind"
done
measure_lttng "$N" lttng
