#!/usr/bin/env bash
# hetrace record against a real producer in another process
# (tests/collect/record/producer.c: generated tracepoints + include/hetrace/
# ring-stream.h), in files and in POSIX shared memory. Every capture is
# decoded by babeltrace2 and the traced values checked: exact sequences
# when nothing may be lost, written + discarded == traced when the
# producer drops, the newest packets in overwrite mode, a readable
# capture after Ctrl-C, and bad regions reported while the other cores
# are still collected.
set -eu
cd "$(dirname "$0")"
: "${TOP:=$(cd ../../.. && pwd)}"
. ../../lib.sh
shm="/ht-rec-$$-"
cleanup() {
	[ -n "${prod_pid:-}" ] && kill "$prod_pid" 2>/dev/null
	rm -rf "$w"
	rm -f /dev/shm/"${shm#/}"* 2>/dev/null
	true
}
trap cleanup EXIT

"$HETRACE" gen producer.yaml -o "$w/g" >/dev/null
cc -std=c99 -Wall -Wextra -Werror -O1 -g \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-I"$w/g" -I"$TOP" -DMETADATA_PATH="\"$w/g/metadata\"" -o "$w/producer" \
	producer.c "$w/g/barectf.c" "$TOP/runtime/packet-ring.c" \
	"$TOP/runtime/port.c"
P="$w/producer"

# Starts the producer in the background, returns when its rings exist.
start() { # ARGS...
	rm -f "$w/ready"
	"$P" -r "$w/ready" "$@" >"$w/prod.out" &
	prod_pid=$!
	for _ in $(seq 1000); do
		[ -e "$w/ready" ] && return 0
		sleep 0.01
	done
	bad "producer did not start"
	return 1
}

# Checks that core C's ticks in text file T are n = FIRST..LAST in order.
seq_check() { # T C FIRST LAST LABEL
	awk -v c="$2" -v first="$3" -v last="$4" -v label="$5" '
		/ tick: / && $0 ~ ("core = " c " }") {
			match($0, /n = [0-9]+/); v = substr($0, RSTART + 4, RLENGTH - 4) + 0
			if (n == 0 && v != first) { printf "%s: core %d: first n = %d, want %d\n", label, c, v, first; bad = 1; exit }
			if (n > 0 && v != prev + 1) { printf "%s: core %d: n = %d after %d\n", label, c, v, prev; bad = 1; exit }
			prev = v; n++
		}
		END {
			if (bad) exit 1
			if (prev != last) { printf "%s: core %d: last n = %d, want %d\n", label, c, prev, last; exit 1 }
		}' "$1" || bad "$5: core $2: sequence"
}

# Events babeltrace2 says were discarded in trace "CORE" of stderr file E.
bt_discarded() { # E CORE
	# "1 event" or "N events"
	sed -n "s/.*Tracer discarded \([0-9]*\) events* between .* in trace \"$2\".*/\1/p" "$1" |
		awk '{ s += $1 } END { print s + 0 }'
}

# Packets babeltrace2 says were lost in trace "CORE" of stderr file E.
bt_lost() { # E CORE
	sed -n "s/.*Tracer discarded \([0-9]*\) packets* between .* in trace \"$2\".*/\1/p" "$1" |
		awk '{ s += $1 } END { print s + 0 }'
}

decode() { # CAPTURE LABEL: text into CAPTURE.txt, stderr into CAPTURE.err
	babeltrace2 "$1" >"$1.txt" 2>"$1.err" ||
		bad "$2: babeltrace2 failed: $(head -3 "$1.err")"
}

# 1. wait: the producer waits for free slots, nothing is lost; 3 cores
#    in files, 4 slots each, drained live.
start -s 2048 -n 4 wait "$w/wr" 3 200000
"$HETRACE" record -o "$w/cap1" "$w/wr0" "$w/wr1" "$w/wr2" >"$w/rec1.out" 2>&1 ||
	bad "wait: record failed: $(cat "$w/rec1.out")"
wait "$prod_pid"; prod_pid=
decode "$w/cap1" wait
for c in 0 1 2; do
	seq_check "$w/cap1.txt" $c 0 199999 wait
	[ -f "$w/cap1/core$c/metadata" ] && [ -f "$w/cap1/core$c/stream" ] ||
		bad "wait: core$c: capture layout"
	grep -q "core_name = \"core$c\";" "$w/cap1/core$c/metadata" ||
		bad "wait: core$c: no core_name in the metadata env"
done
grep -q "Tracer discarded" "$w/cap1.err" "$w/cap1.txt" && bad "wait: events were discarded"
# Each core's clock is a counter: read 1 opened the first packet, the
# first tick is stamped 2.
grep -m1 'core = 0 }' "$w/cap1.txt" | grep -q '^\[00:00:00.000000002\]' ||
	bad "wait: first tick's timestamp: $(grep -m1 'core = 0 }' "$w/cap1.txt")"
babeltrace2 -c sink.text.details "$w/cap1" 2>/dev/null | grep -q 'core_name: core2' ||
	bad "wait: babeltrace2 does not see core_name in the env"

# 2. discard: POSIX shared memory, found by --shm-prefix, small rings:
#    the producer drops; written + discarded == traced, per core.
start -s 1024 -n 4 -p 100 discard "$shm" 2 1000000
"$HETRACE" record -o "$w/cap2" --shm-prefix "$shm" >"$w/rec2.out" 2>&1 ||
	bad "discard: record failed: $(cat "$w/rec2.out")"
wait "$prod_pid"; prod_pid=
decode "$w/cap2" discard
for c in 0 1; do
	n=$(grep -c "core = $c }" "$w/cap2.txt" || true)
	d=$(bt_discarded "$w/cap2.err" core$c)
	[ $((n + d)) = 1000000 ] || bad "discard: core$c: $n written + $d discarded != 1000000"
	[ "$n" -gt 0 ] && [ "$d" -gt 0 ] || bad "discard: core$c: $n written, $d discarded: want both"
	rd=$(awk -v c=core$c '$1 == c { print $6 }' "$w/rec2.out")
	[ "$rd" = "$d" ] || bad "discard: core$c: record says $rd discarded, babeltrace2 $d"
done
echo "discard: $(grep -c ' tick: ' "$w/cap2.txt") of 2000000 written"

# 3. overwrite: the producer ran and stopped before the collector came;
#    the newest 6 packets of each core are kept, oldest first.
"$P" -s 1024 -n 6 overwrite "$w/ow" 2 100000 >/dev/null
"$HETRACE" record -o "$w/cap3" "$w/ow0" "$w/ow1" >"$w/rec3.out" 2>&1 ||
	bad "overwrite: record failed: $(cat "$w/rec3.out")"
decode "$w/cap3" overwrite
for c in 0 1; do
	first=$(grep -m1 "core = $c }" "$w/cap3.txt" | sed 's/.*n = \([0-9]*\).*/\1/')
	seq_check "$w/cap3.txt" $c "${first:-x}" 99999 overwrite
	n=$(grep -c "core = $c }" "$w/cap3.txt" || true)
	# 6 packets of (1024 - 64 header/context) / 12 bytes per tick.
	[ "$n" -ge $((5 * 80)) ] && [ "$n" -le $((6 * 80)) ] ||
		bad "overwrite: core$c: $n ticks kept, want 5 to 6 packets' worth"
	# The 6 packets and the empty packet announcing the lost ones.
	[ "$(awk -v c=core$c '$1 == c { print $4 }' "$w/rec3.out")" = 7 ] ||
		bad "overwrite: core$c: not 6 + 1 packets: $(cat "$w/rec3.out")"
	lost=$(awk -v c=core$c '$1 == c { print $8 }' "$w/rec3.out")
	[ "${lost:-0}" -gt 0 ] || bad "overwrite: core$c: no lost packets reported"
	# The capture says it too: babeltrace2 reports exactly as many.
	[ "$(bt_lost "$w/cap3.err" core$c)" = "$lost" ] ||
		bad "overwrite: core$c: babeltrace2 reports $(bt_lost "$w/cap3.err" core$c) lost packets, record $lost"
	"$HETRACE" info "$w/cap3/core$c" 2>/dev/null | grep -q "lost packets: $lost\$" ||
		bad "overwrite: core$c: hetrace info: $("$HETRACE" info "$w/cap3/core$c" 2>&1 | grep lost)"
done

# 3b. overwrite, read live (--live): the re-check rule. A paced
#     producer overwrites while the collector copies; every packet
#     written is whole (ticks strictly increase within and across
#     packets, babeltrace2 decodes all), the end is the last tick.
start -s 1024 -n 4 -p 300 overwrite "$w/ol" 2 300000
"$HETRACE" record --live -o "$w/cap3b" "$w/ol0" "$w/ol1" >"$w/rec3b.out" 2>&1 ||
	bad "overwrite live: record failed: $(cat "$w/rec3b.out")"
wait "$prod_pid"; prod_pid=
decode "$w/cap3b" "overwrite live"
for c in 0 1; do
	awk -v c=$c '/ tick: / && $0 ~ ("core = " c " }") {
			match($0, /n = [0-9]+/); v = substr($0, RSTART + 4, RLENGTH - 4) + 0
			if (n++ && v <= prev) { printf "core %d: n = %d after %d\n", c, v, prev; exit 1 }
			prev = v
		}
		END { if (prev != 299999) { printf "core %d: last n = %d\n", c, prev; exit 1 } }' \
		"$w/cap3b.txt" || bad "overwrite live: core$c: ticks"
	n=$(grep -c "core = $c }" "$w/cap3b.txt" || true)
	# More than the 4 packets a read-out after the stop would give.
	[ "$n" -gt 640 ] || bad "overwrite live: core$c: only $n ticks read live"
	[ "$(awk -v c=core$c '$1 == c { print $9 }' "$w/rec3b.out")" = 0 ] ||
		bad "overwrite live: core$c: damaged packets: $(cat "$w/rec3b.out")"
	# The collector cannot keep up: every packet it lost is a jump of
	# packet_seq_num (or the loss marker) that babeltrace2 reports.
	lost=$(awk -v c=core$c '$1 == c { print $8 }' "$w/rec3b.out")
	[ "${lost:-0}" -gt 0 ] || bad "overwrite live: core$c: nothing lost: $(cat "$w/rec3b.out")"
	[ "$(bt_lost "$w/cap3b.err" core$c)" = "$lost" ] ||
		bad "overwrite live: core$c: babeltrace2 reports $(bt_lost "$w/cap3b.err" core$c) lost packets, record $lost"
done
echo "overwrite live: $(grep -c ' tick: ' "$w/cap3b.txt") of 600000 kept"

# 4. Ctrl-C: a paced producer (waiting for slots), the collector
#    interrupted mid-run: exit 0, a capture babeltrace2 reads whole.
start -s 4096 -n 8 -p 1000 wait "$w/cc" 2 100000000
"$HETRACE" record -o "$w/cap4" "$w/cc0" "$w/cc1" >"$w/rec4.out" 2>&1 &
rec=$!
sleep 0.7
kill -INT "$rec"
wait "$rec" || bad "ctrl-c: record exited $?: $(cat "$w/rec4.out")"
kill "$prod_pid"; wait "$prod_pid" 2>/dev/null || true; prod_pid=
grep -q 'stopped by signal 2' "$w/rec4.out" || bad "ctrl-c: no stop message"
decode "$w/cap4" ctrl-c
for c in 0 1; do
	last=$(grep "core = $c }" "$w/cap4.txt" | tail -1 | sed 's/.*n = \([0-9]*\).*/\1/')
	[ "${last:-0}" -gt 1000 ] || bad "ctrl-c: core$c: only ${last:-no} ticks"
	seq_check "$w/cap4.txt" $c 0 "${last:-x}" ctrl-c
done

# 5. Bad regions, each next to good ones: wrong magic, wrong version,
#    slot geometry past the end, a truncated file, a damaged packet,
#    a ring without metadata. The good cores are collected.
"$P" -s 1024 -n 4 overwrite "$w/b" 7 20000 >/dev/null
"$P" -M -s 1024 -n 4 overwrite "$w/nm" 1 20000 >/dev/null
python3 - "$w" <<'PY'
import os, struct, sys
w = sys.argv[1]
def patch(f, off, fmt, v):
    with open(f, 'r+b') as fh:
        fh.seek(off); fh.write(struct.pack(fmt, v))
patch(w + '/b1', 0, '<I', 0x12345678)          # magic
patch(w + '/b2', 4, '<I', 7)                   # version
patch(w + '/b3', 24, '<I', 1000)               # nr_slots: past the end
os.truncate(w + '/b4', os.path.getsize(w + '/b4') - 100)
# b5: the packet magic of the slot of packet head - 2 (header: head at
# offset 96, slots_off at 28, slot_size at 20, nr_slots at 24)
d = open(w + '/b5', 'rb').read()
slot, nr, soff = struct.unpack_from('<III', d, 20)
head, = struct.unpack_from('<I', d, 96)
patch(w + '/b5', soff + ((head - 2) % nr) * slot, '<I', 0xdeadbeef)
# b6: packet_size past the slot in packet head - 3
patch(w + '/b6', soff + ((head - 3) % nr) * slot + 12, '<Q', 1 << 20)
PY
set +e
"$HETRACE" record -o "$w/cap5" "$w/b0" "$w/b1" "$w/b2" "$w/b3" "$w/b4" \
	"$w/b5" "$w/b6" "$w/nm0" "$w/none" >"$w/rec5.out" 2>&1
rc=$?
set -e
[ "$rc" = 1 ] || bad "bad regions: exit $rc, want 1"
expect() { grep -qF -- "$1" "$w/rec5.out" || bad "bad regions: no message: $1"; }
expect "$w/b1: offset 0: magic 0x12345678: not a packet ring (expected 0x47525448)"
expect "$w/b2: offset 4: ring version 7: this hetrace reads version 1"
expect "$w/b3: offset 24: slot geometry past the end: slots_off"
expect "$w/b4: offset 12: total_size"
expect "but the region has"
expect "$w/b5 (core core5): packet"
expect "packet magic 0xdeadbeef (expected 0xc1fc1fc1): skipped"
expect "$w/b6 (core core6): packet"
expect "packet_size 1048576 bits"
expect "$w/nm0: the ring carries no metadata: give a metadata file"
expect "$w/none: cannot open the ring"
decode "$w/cap5" "bad regions"
for c in 0 5 6; do
	last=$(grep "core = $c }" "$w/cap5.txt" | tail -1 | sed 's/.*n = \([0-9]*\).*/\1/')
	[ "$last" = 19999 ] || bad "bad regions: core$c: last tick ${last:-none}, want 19999"
done
[ "$(awk '$1 == "core5" { print $9 }' "$w/rec5.out")" = 1 ] ||
	bad "bad regions: core5: damaged count: $(cat "$w/rec5.out")"
for c in 1 2 3 4; do
	[ -e "$w/cap5/core$c" ] && bad "bad regions: core$c was collected"
done
# The ring without metadata, with the metadata file given.
"$HETRACE" record -o "$w/cap6" -m "$w/g/metadata" "$w/nm0" >"$w/rec6.out" 2>&1 ||
	bad "metadata file: record failed: $(cat "$w/rec6.out")"
decode "$w/cap6" "metadata file"
grep "core = 0 }" "$w/cap6.txt" | tail -1 | grep -q 'n = 19999' ||
	bad "metadata file: last tick"
# A capture directory holding a stream already is not overwritten.
"$HETRACE" record -o "$w/cap6" -m "$w/g/metadata" "$w/nm0" >"$w/rec7.out" 2>&1 &&
	bad "existing capture: record succeeded"
grep -q 'a capture is already there' "$w/rec7.out" || bad "existing capture: $(cat "$w/rec7.out")"

# 5b. Rings inside a bigger file, FILE@OFFSET (a QEMU core's RAM file
#     holds its ring at 8 MiB + 64 KiB): two stopped, undrained rings
#     copied into one file, at 8M+64K (page-aligned) and right after
#     the first one (not page-aligned); then offsets that cannot be.
start -s 4096 -n 64 discard "$w/in" 2 5000
wait "$prod_pid"; prod_pid=
sz0=$(stat -c %s "$w/in0")
{ head -c $((8 * 1048576 + 65536)) /dev/zero; cat "$w/in0" "$w/in1"; head -c 1000 /dev/zero; } >"$w/big.ram"
off1=$((8 * 1048576 + 65536 + sz0))
[ $((off1 % 4096)) != 0 ] || bad "ring at offset: the second ring is page-aligned ($off1)"
"$HETRACE" record -o "$w/cap8" "$w/big.ram@8M+64K" "$w/big.ram@$(printf 0x%x $off1)" \
	>"$w/rec8.out" 2>&1 || bad "ring at offset: record failed: $(cat "$w/rec8.out")"
decode "$w/cap8" "ring at offset"
for c in 0 1; do
	seq_check "$w/cap8.txt" $c 0 4999 "ring at offset"
done
off_case() { # WANT-TEXT RING: fails (exit 1) with WANT-TEXT
	local rc=0
	"$HETRACE" record -o "$w/cap9" "$2" >"$w/rec9.out" 2>&1 || rc=$?
	[ "$rc" = 1 ] || bad "ring at $2: exit $rc, want 1"
	grep -q -- "$1" "$w/rec9.out" || bad "ring at $2: no '$1' in: $(cat "$w/rec9.out")"
	rm -rf "$w/cap9"
}
off_case "big.ram@4K: offset 0: magic 0x00000000" "$w/big.ram@4K"
off_case "offset 8454148 (0x810004) is not 8-byte aligned" "$w/big.ram@0x810004"
off_case "the offset is past the end" "$w/big.ram@1G"
off_case "'12q' after the '@' is not an offset" "$w/big.ram@12q"
off_case "nothere.ram: cannot open the ring" "$w/nothere.ram@4096"

# 6. The command line.
"$HETRACE" record --help | grep -q -- '--shm-prefix' || bad "--help"
set +e
"$HETRACE" record "$w/b0" >/dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || bad "no -o: exit $rc, want 2"
"$HETRACE" record -o "$w/x" -d zero "$w/b0" >/dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || bad "--duration zero: exit $rc, want 2"
set -e
exit $fail
