#!/usr/bin/env bash
# Events of equal times in different streams and traces come out in
# babeltrace2 2.0's order (its muxer's comparison of messages): traces
# written by ties.py with many events per nanosecond, kernel-like (CPUs
# of one trace), without stream_instance_id (stream ids counted by
# babeltrace2), UST per-PID-like (a trace per process), traces without
# a UUID ordered by name, and traces babeltrace2 cannot tell apart (no
# UUID, one name), where a packet's end holds back the events after it.
set -eu
. "$TOP/tests/ctf/print/lib.sh"

python3 "$TOP/tests/ctf/ties/ties.py" "$W/tr"
cd "$W/tr"
for t in kernel auto ust nouuid anon; do
	check "$t"
	check "$t" -- --clock-cycles --fields=all
done
# inputs that are the trace directories: names without a path suffix
check nouuid/t1 nouuid/t2 nouuid/t3
check anon/p anon/q
check kernel auto ust/pid
# bounded time and memory on the tie-heavy set (the optimized build:
# the sanitizers' shadow memory does not fit the limit)
H=${HETRACE_OPT:-$HETRACE}
(ulimit -v 1000000 && timeout 20 "$H" print nouuid >/dev/null 2>&1) || {
	echo "FAIL: print of the tie set failed or took over 20 s"
	fails=$((fails + 1))
}
finish
