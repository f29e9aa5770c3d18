#!/usr/bin/env bash
# hetrace print against babeltrace2 (the anchor): events per second of
# text output to /dev/null on the same traces, in the same run:
#   - a 2-million-event barectf 3.1 trace (bench/print/bench.yaml),
#   - an LTTng-UST 2.13 trace of about 2 million events, recorded here
#     with a private session daemon (tests/ctf/print/corpus/ust-record.sh).
# Times are CPU seconds (user + system), the least of 3 runs of
# babeltrace2 and of 10 of hetrace (a tenth of a second each, where a
# neighbour's burst weighs most): on a shared machine they vary much
# less than wall times. The goal is a ratio of at least 15.
# usage: bench/print.sh [N_EVENTS]   (HETRACE: the CLI to measure)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
n=${1:-2000000}

# cpu_best RUNS CMD...: the least CPU time, in seconds, of RUNS runs of
# CMD (output and exit status ignored)
cpu_best() {
	local runs=$1 b="" t TIMEFORMAT='%3U %3S'
	shift
	for _ in $(seq "$runs"); do
		t=$({ time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ print $1 + $2 }')
		if [ -z "$b" ] || awk -v a="$t" -v b="$b" 'BEGIN { exit !(a < b) }'; then
			b=$t
		fi
	done
	echo "$b"
}

measure() { # NAME TRACE
	local events bt ht
	events=$("$HETRACE" print "$2" 2>/dev/null | wc -l)
	[ "$(babeltrace2 "$2" 2>/dev/null | wc -l)" = "$events" ] || {
		echo "$1: babeltrace2 and hetrace print disagree on the event count"
		return 1
	}
	bt=$(cpu_best 3 babeltrace2 "$2")
	ht=$(cpu_best 10 "$HETRACE" print "$2")
	awk -v name="$1" -v n="$events" -v bt="$bt" -v ht="$ht" 'BEGIN {
		r = bt / ht
		goal = "(goal >= 15x: NOT met)"
		if (r >= 15)
			goal = "(goal >= 15x: met)"
		printf "print %-8s %8d events  babeltrace2 %6.2f M ev/s (%.2f s)  hetrace %6.2f M ev/s (%.3f s)  ratio %5.1fx  %s\n",
			name, n, n / bt / 1e6, bt, n / ht / 1e6, ht, r, goal
	}'
}

# barectf
mkdir -p "$work/gen" "$work/barectf"
(cd "$work/gen" && barectf generate "$here/print/bench.yaml" >/dev/null)
cc -O2 -w -I"$work/gen" -I"$top/tests/ctf/print/corpus" -o "$work/gen/bench" \
	"$here/print/bench.c" "$work/gen/barectf.c"
"$work/gen/bench" "$work/barectf/stream" "$n"
cp "$work/gen/metadata" "$work/barectf/"
measure barectf "$work/barectf"

measure_lttng "$n" "print lttng"
