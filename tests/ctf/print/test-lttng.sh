#!/usr/bin/env bash
# hetrace print == babeltrace2 on LTTng-UST 2.13 traces recorded during
# the test: per-UID and per-PID buffers, a tiny discard-mode channel that
# loses events, two threads (two CPUs' streams).
#
# corpus/ust-record.sh runs a private lttng-sessiond (own HOME and
# LTTNG_HOME in a temporary directory, unprivileged when we are root)
# and always kills it at the end; every lttng command has a time limit.
set -eu
. "$TOP/tests/ctf/print/lib.sh"

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
timeout 200 "$TOP/tests/ctf/print/corpus/ust-record.sh" "$L" 3000 test

find "$L/out" -name metadata | sort
n=$(babeltrace2 "$L/out" 2>/dev/null | wc -l)
echo "$n events recorded"
[ "$n" -gt 6000 ]

# hetrace info (the per-stream scan: LTTng's compact/extended event
# header variant, per-CPU streams, a lossy channel): the events of each
# class are the ones babeltrace2 prints.
"$HETRACE" info -n 1000 "$L/out" >"$W/info.txt"
awk '/^      *[0-9]+  / { n[$2] += $1 } END { for (k in n) print k, n[k] }' \
	"$W/info.txt" | sort >"$W/info-classes.txt"
babeltrace2 "$L/out" -c sink.text.details \
	-p 'with-metadata=no,compact=yes' 2>/dev/null |
	sed -n 's/^\[[^]]*\] {[^}]*} Event `\([^`]*\)`.*/\1/p' | sort | uniq -c |
	awk '{ print $2, $1 }' | sort >"$W/bt-classes.txt"
if ! diff -u "$W/bt-classes.txt" "$W/info-classes.txt"; then
	echo "FAIL: hetrace info counts by class differ from babeltrace2's"
	exit 1
fi
grep -q "^total: .* $n events$" "$W/info.txt" || {
	echo "FAIL: hetrace info total differs from babeltrace2's $n"
	exit 1
}
echo "ok info: $(wc -l <"$W/info-classes.txt") classes, $n events"

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
