#!/usr/bin/env bash
# Tracepoint cost, hetrace against barectf 3.1 on the same configuration
# and the same calls (bench/tracepoint/): instructions per event
# (callgrind), ns per event with an rdtsc clock, bytes per event.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
CFLAGS="-O2 -std=c99 -Wall -Wextra -Werror -Wno-unused-function"

mkdir -p "$work/barectf" "$work/hetrace"
(cd "$work/barectf" && barectf generate "$here/tracepoint/config.yaml" >/dev/null)
"$HETRACE" gen "$here/tracepoint/config.yaml" -o "$work/hetrace"
# barectf's own sources need its warnings off; the driver is the same.
cc -O2 -I"$work/barectf" -o "$work/b" "$here/tracepoint/bench.c" "$work/barectf/barectf.c"
cc $CFLAGS -I"$work/hetrace" -o "$work/h" "$here/tracepoint/bench.c" "$work/hetrace/barectf.c"
cc $CFLAGS -DBENCH_INLINE_CLOCK -I"$work/hetrace" -o "$work/hi" "$here/tracepoint/bench.c" "$work/hetrace/barectf.c"

# Instructions per event: the difference between N and 0 events, over N.
ir() {
	valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$@" >/dev/null 2>&1
	awk '/^summary:/ { print $2 }' "$work/cg.out"
}
per_event() { # BIN MODE
	local n=200000 a b
	a=$(ir "$1" "$2" 0)
	b=$(ir "$1" "$2" $n)
	awk -v a="$a" -v b="$b" -v n=$n 'BEGIN { printf "%.1f", (b - a) / n }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

b1=$(per_event "$work/b" one)
h1=$(per_event "$work/h" one)
b4=$(per_event "$work/b" four)
h4=$(per_event "$work/h" four)

n=20000000
bt=$("$work/b" rdtsc-one $n)
ht=$("$work/h" rdtsc-one $n)
hti=$("$work/hi" rdtsc-inline $n)
fl=$("$work/h" floor $n)

"$work/b" bytes 100000 "$work/b.stream"
"$work/h" bytes 100000 "$work/h.stream"
bb=$(awk -v s="$(stat -c %s "$work/b.stream")" 'BEGIN { printf "%.2f", s / 100000 }')
hb=$(awk -v s="$(stat -c %s "$work/h.stream")" 'BEGIN { printf "%.2f", s / 100000 }')

printf '%-44s %10s %10s %8s %8s\n' "tracepoint" barectf hetrace ratio target
printf '%-44s %10s %10s %8s %8s\n' "instructions/event, one uint32 (callgrind)" "$b1" "$h1" "$(ratio "$h1" "$b1")" "<=0.35"
printf '%-44s %10s %10s %8s %8s\n' "instructions/event, four uint32 (callgrind)" "$b4" "$h4" "$(ratio "$h4" "$b4")" ""
printf '%-44s %10s %10s %8s %8s\n' "ns/event, rdtsc clock callback" "$bt" "$ht" "$(ratio "$ht" "$bt")" "<=0.75"
printf '%-44s %10s %10s %8s %8s\n' "ns/event, rdtsc compile-time clock" "$bt" "$hti" "$(ratio "$hti" "$bt")" "<=0.75"
printf '%-44s %10s %10s %8s %8s\n' "ns/event vs floor (rdtsc + 16-byte store)" "$fl" "$hti" "$(ratio "$hti" "$fl")" "<=1.3"
printf '%-44s %10s %10s %8s %8s\n' "bytes/event, one uint32 (packets included)" "$bb" "$hb" "$(ratio "$hb" "$bb")" "<=0.6"
