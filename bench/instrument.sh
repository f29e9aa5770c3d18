#!/usr/bin/env bash
# Function tracing overhead: ns added per instrumented call
# (entry + exit) by hetrace's -finstrument-functions runtime and by
# uftrace 0.13's `record` on the same program (bench/instrument/), in
# the same run. Each figure is the best of 5 runs of N calls, minus the
# same loop built without instrumentation. The floor line: two rdtsc
# per call, what any tracer timing entry and exit pays; where rdtsc is
# slow (a loaded VM) it dominates hetrace's figure.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
N=${N:-10000000}
CFLAGS="-O2 -std=c11 -Wall -Wextra -Werror"
inc="-I$top/include -I$work/gen -I$top/examples/instrument"

"$HETRACE" gen "$top/examples/instrument/config.yaml" -o "$work/gen" >/dev/null
objs=""
for src in "$top/runtime/instrument.c" "$top/runtime/packet-ring.c" \
	"$top/runtime/port.c" "$top/examples/instrument/trace-glue.c" \
	"$work/gen/hti-trace.c"; do
	o="$work/$(basename "$src" .c).o"
	# shellcheck disable=SC2086
	cc $CFLAGS -DGLUE_RDTSC $inc -c "$src" -o "$o"
	objs="$objs $o"
done
# shellcheck disable=SC2086
cc $CFLAGS -o "$work/base" "$here/instrument/bench.c"
# shellcheck disable=SC2086
cc $CFLAGS -DFLOOR -o "$work/floor" "$here/instrument/bench.c"
# shellcheck disable=SC2086
cc $CFLAGS -finstrument-functions -o "$work/noop" "$here/instrument/bench.c"
# shellcheck disable=SC2086
cc $CFLAGS -finstrument-functions -DWITH_HETRACE $inc -o "$work/hetrace" \
	"$here/instrument/bench.c" $objs -pthread

least_loop_ns() { # COMMAND...: the smallest loop time of 5 runs, ns
	local k t b=""
	for k in 1 2 3 4 5; do
		t=$("$@" | awk 'END { print $1 }')
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b"
}
per_call() { awk -v t="$1" -v b="$2" -v n="$N" 'BEGIN { printf "%.1f", (t - b) / n }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

base=$(least_loop_ns "$work/base" "$N")
noop=$(least_loop_ns "$work/noop" "$N")
floor=$(least_loop_ns "$work/floor" "$N")
ht=$(least_loop_ns "$work/hetrace" "$N")
htp=$(least_loop_ns "$work/hetrace" "$N" profile)
htb=$(least_loop_ns "$work/hetrace" "$N" both)
uf=$(least_loop_ns uftrace record --no-libcall -d "$work/uftrace.data" "$work/noop" "$N")

u=$(per_call "$uf" "$base")
h=$(per_call "$ht" "$base")
printf '%-52s %10s %10s %8s %8s\n' "function tracing, N=$N" uftrace hetrace ratio target
printf '%-52s %10s %10s %8s %8s\n' "ns per call, entry+exit records (rdtsc clock)" "$u" "$h" "$(ratio "$h" "$u")" "<=0.3"
printf '%-52s %10s %10s %8s %8s\n' "ns per call, on-target profile only" "$u" "$(per_call "$htp" "$base")" "$(ratio "$(per_call "$htp" "$base")" "$u")" ""
printf '%-52s %10s %10s %8s %8s\n' "ns per call, records + on-target profile" "$u" "$(per_call "$htb" "$base")" "$(ratio "$(per_call "$htb" "$base")" "$u")" ""
printf '%-52s %10s %10s\n' "ns per call, glibc's empty hooks (the call alone)" "" "$(per_call "$noop" "$base")"
f=$(per_call "$floor" "$base")
printf '%-52s %10s %10s %8s %8s\n' "ns per call vs floor (two rdtsc per call)" "$f" "$h" "$(ratio "$h" "$f")" ""
