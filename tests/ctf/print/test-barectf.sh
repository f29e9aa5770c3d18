#!/usr/bin/env bash
# hetrace print == babeltrace2 on traces written by barectf 3.1 code:
# every field type, several packet sizes, discarded events, lost
# packets, several data stream types and clocks, wrapping timestamps.
set -eu
. "$TOP/tests/ctf/print/lib.sh"

barectf_build types
barectf_build multi

# every field type, small packets, every option set
t="$W/tr/types-small"
mkdir -p "$t"
"$W/types/types" "$t/stream" 20 512
cp "$W/types/metadata" "$t/"
check_all "$t"

# discarded events (back end full) and lost packets (seq gaps)
t="$W/tr/types-lossy"
mkdir -p "$t"
"$W/types/types" "$t/stream_0" 400 1024 ",3,4,17,18,19,40,"
"$W/types/types" "$t/stream_1" 50 4096 ",0,"
cp "$W/types/metadata" "$t/"
check "$t"
check "$t" -- --clock-seconds
check "$t" -- --clock-date --names=all

# two stream types, three files, 32768 Hz clock with an offset
t="$W/tr/multi"
mkdir -p "$t"
"$W/multi/multi" "$t" 300
cp "$W/multi/metadata" "$t/"
check_all "$t"

# the parent directory: traces found recursively, named by path (two
# traces without equal timestamps: the order of ties between traces is
# tested by test-lttng.sh)
mkdir -p "$W/set"
cp -r "$W/tr/types-small" "$W/tr/multi" "$W/set/"
check "$W/tr/types-small" "$t"
check "$W/set" -- --fields=trace
finish
