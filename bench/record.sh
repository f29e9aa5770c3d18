#!/usr/bin/env bash
# Collector throughput (target: at least 1 GB/s from rings to files).
# 8 rings in POSIX shared memory (/dev/shm, tmpfs), filled by the
# tests/collect/record producer (generated tracepoints) and stopped, then
# drained by `hetrace record` into a capture on tmpfs (a directory in
# /dev/shm: /tmp is a disk here, whose write-back throttling measures
# the disk, not the collector); the anchor is `cat` and `dd` copying the
# ring regions from /dev/shm to the same place (the machine's copy
# speed). Each copy, hetrace's or an anchor's, reads rings the producer
# has just filled (a second read of the same pages is faster: reading
# first would favour whoever comes second). Best of 4 runs each. Then a live
# run: a producer tracing at full speed (waiting for free slots) while
# record drains; that one is bound by the producer. The board line: the
# same rings refilled and drained by the generic master, `hetrace record
# --board` with a board file naming each ring's shm object as a region
# (docs/board.md; no doorbells, so no sync rounds).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
HETRACE=${HETRACE:-$top/build/hetrace}
work=$(mktemp -d)
dest=$(mktemp -d /dev/shm/ht-bench-record.XXXXXX)
shm="/ht-bench-rec-$$-"
trap 'rm -rf "$work" "$dest"; rm -f /dev/shm/"${shm#/}"*' EXIT

CORES=8
SLOT=65536
SLOTS=1024 # 64 MiB per ring
EVENTS=6000000 # 12 bytes each: more than a ring holds

"$HETRACE" gen "$top/tests/collect/record/producer.yaml" -o "$work/g" >/dev/null
cc -std=c99 -O2 -Wall -Wextra -Werror -I"$work/g" -I"$top" \
	-DMETADATA_PATH="\"$work/g/metadata\"" -o "$work/producer" \
	"$top/tests/collect/record/producer.c" "$work/g/barectf.c" \
	"$top/runtime/packet-ring.c" "$top/runtime/port.c"

now() { date +%s.%N; }
fill() { "$work/producer" -s $SLOT -n $SLOTS discard "$shm" $CORES $EVENTS >/dev/null; }
gbps() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.2f", b / s / 1e9 }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

# The board file of the 8 rings (after a fill: the regions' sizes).
board_file() {
	local i size
	{
		echo "board: bench-record"
		echo "regions:"
		for i in $(seq 0 $((CORES - 1))); do
			size=$(stat -c %s "/dev/shm/${shm#/}$i")
			echo "  r$i: {shm: \"$shm$i\", size: $size}"
		done
		echo "cores:"
		echo "  - {name: arm0, role: master}"
		for i in $(seq 0 $((CORES - 1))); do
			echo "  - {name: core$i, role: slave, ring: {region: r$i, offset: 0, size: $size}}"
		done
	} >"$work/board.yaml"
}

best_rec= best_cat= best_dd= best_board= rec_bytes=0 reg_bytes=0 board_bytes=0

# timed VAR CMD...: fills the rings afresh (every copy, hetrace's or the
# anchors', is the first read of what the producer wrote: a second read
# of the same pages is faster), runs CMD, keeps the best time in VAR.
timed() {
	local var=$1 t0 t1
	shift
	fill
	rm -rf "$dest/out"
	mkdir -p "$dest/out"
	t0=$(now)
	"$@"
	t1=$(now)
	eval "$var=\$(min \"\${$var}\" \"\$(awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }')\")"
}
copy_cat() { cat /dev/shm/"${shm#/}"* >"$dest/out/cat.out"; }
copy_dd() {
	local f
	for f in /dev/shm/"${shm#/}"*; do
		dd if="$f" of="$dest/out/$(basename "$f")" bs=1M status=none
	done
}
rec_plain() { "$HETRACE" record -q --no-fsync -o "$dest/out/cap" --shm-prefix "$shm" 2>"$work/rec.err"; }
rec_board() {
	"$HETRACE" record -q --no-fsync --board "$work/board.yaml" -o "$dest/out/cap" 2>"$work/board.err"
}

fill
board_file
reg_bytes=$(stat -c %s /dev/shm/"${shm#/}"* | awk '{ n += $1 } END { print n }')
for run in 1 2 3 4; do
	timed best_cat copy_cat
	timed best_rec rec_plain
	rec_bytes=$(cat "$dest"/out/cap/*/stream | wc -c)
	timed best_board rec_board
	board_bytes=$(cat "$dest"/out/cap/core*/stream | wc -c)
	timed best_dd copy_dd
done
rm -rf "$dest/out"
rm -f /dev/shm/"${shm#/}"*

# Live: 2 cores tracing at full speed, each waiting for a free slot.
rm -f "$work/ready"
"$work/producer" -s $SLOT -n 64 -r "$work/ready" wait "$shm" 2 40000000 >/dev/null &
pid=$!
while [ ! -e "$work/ready" ]; do sleep 0.01; done
t0=$(now)
"$HETRACE" record -q --no-fsync -o "$dest/live" --shm-prefix "$shm"
t1=$(now)
wait $pid
live_bytes=$(cat "$dest"/live/*/stream | wc -c)
live_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')

rec=$(gbps "$rec_bytes" "$best_rec")
cat_r=$(gbps "$reg_bytes" "$best_cat")
dd_r=$(gbps "$reg_bytes" "$best_dd")
fs=$(stat -f -c %T "$dest")
printf '%-52s %10s %10s %8s %8s\n' "collector, $CORES rings x 64 MiB, /dev/shm -> $fs" "anchor" "hetrace" "ratio" "target"
printf '%-52s %10s %10s %8s %8s\n' "GB/s, record vs cat (same bytes, same place)" "$cat_r" "$rec" "$(awk -v a="$rec" -v b="$cat_r" 'BEGIN { printf "%.2f", a / b }')" ">=1 GB/s"
board=$(gbps "$board_bytes" "$best_board")
printf '%-52s %10s %10s %8s %8s\n' "GB/s, record --board vs cat (same bytes)" "$cat_r" "$board" "$(awk -v a="$board" -v b="$cat_r" 'BEGIN { printf "%.2f", a / b }')" ">=1 GB/s"
printf '%-52s %10s %10s %8s %8s\n' "GB/s, record vs dd bs=1M" "$dd_r" "$rec" "$(awk -v a="$rec" -v b="$dd_r" 'BEGIN { printf "%.2f", a / b }')" ""
printf '%-52s %10s %10s %8s %8s\n' "GB/s live, 2 producer cores at full speed" "" "$(gbps "$live_bytes" "$live_s")" "" "(producer-bound)"
echo "($(awk -v b="$rec_bytes" 'BEGIN { printf "%.0f", b / 1048576 }') MiB of packets per run, no fsync)"
