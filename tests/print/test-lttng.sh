#!/usr/bin/env bash
# hetrace print == babeltrace2 on LTTng-UST 2.13 traces recorded during
# the test: per-UID and per-PID buffers, a tiny discard-mode channel that
# loses events, two threads (two CPUs' streams).
#
# corpus/ust-record.sh runs a private lttng-sessiond (own HOME and
# LTTNG_HOME in a temporary directory, unprivileged when we are root)
# and always kills it at the end; every lttng command has a time limit.
set -eu
. "$TOP/tests/print/lib.sh"

for tool in lttng lttng-sessiond; do
	command -v "$tool" >/dev/null || {
		echo "$tool is missing (scripts/deps.sh check: lttng-tools)"
		exit 1
	}
done
dpkg-query -W -f='${Status}' liblttng-ust-dev 2>/dev/null | grep -q "ok installed" || {
	echo "liblttng-ust-dev is missing (scripts/deps.sh check)"
	exit 1
}

L="$W/lttng"
timeout 200 "$TOP/tests/print/corpus/ust-record.sh" "$L" 3000 test

find "$L/out" -name metadata | sort
n=$(babeltrace2 "$L/out" 2>/dev/null | wc -l)
echo "$n events recorded"
[ "$n" -gt 6000 ]

# Each trace alone: every option set, byte for byte.
for t in "$L"/out/uid/ust/uid/*/64-bit "$L"/out/pid/ust/pid/*; do
	check_all "$t"
done

# The whole session: the per-UID and per-PID traces hold records with
# the same timestamps; their order across traces is babeltrace2's
# muxer's (trace UUID first, then names, stream ids, message types and
# event classes): byte for byte, with the loss warnings in place.
check "$L/out"
check "$L/out" -- --no-delta --fields=trace
check "$L/out" -- --clock-cycles --names=all
finish
