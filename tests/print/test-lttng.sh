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
# the same timestamps, and the order of such ties across traces is
# babeltrace2's muxer's own rule, which hetrace's merge does not
# reproduce yet (a known gap). Without deltas each line stands alone:
# the same set of lines, and the same loss warnings, in any tie order.
checks=$((checks + 1))
babeltrace2 --no-delta "$L/out" 2>"$W/bt.err" | sort >"$W/bt.sorted"
"$HETRACE" print --no-delta "$L/out" 2>"$W/ht.err" | sort >"$W/ht.sorted"
if ! cmp -s "$W/bt.sorted" "$W/ht.sorted"; then
	echo "FAIL: the session's lines differ (sorted, --no-delta)"
	diff "$W/bt.sorted" "$W/ht.sorted" | head -n 8 | cut -c 1-300
	fails=$((fails + 1))
fi
grep -E '^WARNING: Tracer' "$W/bt.err" | sort >"$W/bt.warn" || true
grep -E '^WARNING: Tracer' "$W/ht.err" | sort >"$W/ht.warn" || true
if ! cmp -s "$W/bt.warn" "$W/ht.warn"; then
	echo "FAIL: the session's loss warnings differ"
	diff "$W/bt.warn" "$W/ht.warn" | head -n 8
	fails=$((fails + 1))
fi
finish
