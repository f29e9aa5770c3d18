#!/usr/bin/env bash
# Function records a small buffer cannot hold (docs/instrument.md,
# "Buffer modes"): every record not written is counted and the count
# reaches the trace; the on-target profile's dump always finds room;
# `hetrace profile` says how much of the run the records cover.
# Expected counts are computed here from the programs (fib's calls, the
# example's quicksort replayed in python): records written + discarded
# must equal records produced exactly, as babeltrace2 and `hetrace
# info` read them.
set -eu
cd "$(dirname "$0")"
. ../../lib.sh
: "${TOP:=$(cd ../../.. && pwd)}"
: "${HETRACE_OPT:=$HETRACE}"

SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
. ./drv-lib.sh
build_drv "$w/drv"

calls_fib() { # N: calls made by fib(N): 2 fib(N + 1) - 1
	awk -v n="$1" 'BEGIN { a = 0; b = 1; for (k = 0; k <= n; k++) { t = a + b; a = b; b = t } print 2 * a - 1 }'
}
records() { grep -c " $1: " "$2" || true; }
# The sum of babeltrace2's "Tracer discarded N events" warnings in its
# output FILE (.txt) and FILE's .err.
bt2_discarded() {
	cat "$1" "${1%.txt}.err" 2>/dev/null |
		sed -n 's/.*WARNING: Tracer discarded \([0-9]*\) events.*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }'
}
info_discarded() { awk '/discarded events:/ { print $3 }' "$1"; }
# Bounded run of the optimized hetrace: 20 s, 2 GB.
ht() { bounded 20 2000 "$HETRACE_OPT" "$@"; }

run() { # MODE N: trace in $w/MODE, program output $w/MODE.out, text $w/MODE.txt
	local m=$1
	mkdir -p "$w/$m"
	cp "$w/g/metadata" "$w/$m/"
	timeout 60 "$w/drv" "$m" "$w/$m/main" "$2" >"$w/$m.out" || bad "$m: drv exited $?"
	babeltrace2 --clock-cycles "$w/$m" >"$w/$m.txt" 2>"$w/$m.err" ||
		bad "$m: babeltrace2 failed: $(head -3 "$w/$m.err")"
}

# check_exact MODE PRODUCED [TRACE]: func_entry + func_exit written +
# discarded = PRODUCED, babeltrace2's ($w/MODE.txt) and info's counts the
# same.
check_exact() {
	local m=$1 want=$2 dir=${3:-$w/$1} e x d di
	e=$(records func_entry "$w/$m.txt")
	x=$(records func_exit "$w/$m.txt")
	d=$(bt2_discarded "$w/$m.txt")
	[ "$d" -gt 0 ] || bad "$m: babeltrace2 reports no discarded events"
	[ $((e + x + d)) = "$want" ] ||
		bad "$m: $e entries + $x exits + $d discarded != $want produced"
	ht info "$dir" >"$w/$m.info" || bad "$m: info failed"
	di=$(info_discarded "$w/$m.info")
	[ "$di" = "$d" ] || bad "$m: info says $di discarded, babeltrace2 $d"
	echo "$m: $((e + x)) written + $d discarded = $want"
}

# 1. Fixed mode, records and profile: fib(18) in 1 KiB packets.
N=18
C=$(calls_fib $N)
run fixed-fib $N
check_exact fixed-fib $((2 * C))
fa=$(awk '$1 == "addr" && $2 == "fib" { print toupper($3) }' "$w/fixed-fib.out" | sed 's/^0X/0x/')
# 2. The dump is there after the overflow, with every call counted.
grep -q "func_profile: .*{ addr = $fa, calls = $C," "$w/fixed-fib.txt" ||
	bad "fixed-fib: no dump of fib's $C calls"
grep -q "func_profile_stats: " "$w/fixed-fib.txt" || bad "fixed-fib: no dumped stats"
ht profile "$w/fixed-fib" --elf "$w/drv" >"$w/ff.prof" 2>"$w/ff.err" || bad "fixed-fib: profile failed"
dumped=$(awk '/^-- on-target/ { d = 1 } d && $10 == "fib" { print $1; exit }' "$w/ff.prof")
[ "$dumped" = "$C" ] || bad "fixed-fib: profile shows $dumped dumped calls of fib, want $C"
# 3. The warning: calls traced of calls made, with the numbers.
e=$(records func_entry "$w/fixed-fib.txt")
d=$(bt2_discarded "$w/fixed-fib.txt")
[ "$(grep -c 'warning: .*calls were traced' "$w/ff.err")" = 1 ] ||
	bad "fixed-fib: not one warning: $(cat "$w/ff.err")"
grep -q "warning: core main: $e of $C calls were traced ($d events discarded: buffer full; fib: $e of $C): times are from the traced part only" "$w/ff.err" ||
	bad "fixed-fib: warning: $(cat "$w/ff.err")"

# Records only (no dump): the kept slot holds the last packet.
run fixed-fib-trace $N
check_exact fixed-fib-trace $((2 * C))
grep -q "func_profile" "$w/fixed-fib-trace.txt" && bad "fixed-fib-trace: a dump without the profile"
ht profile "$w/fixed-fib-trace" --elf "$w/drv" >/dev/null 2>"$w/fft.err" || bad "fixed-fib-trace: profile failed"
e=$(records func_entry "$w/fixed-fib-trace.txt")
d=$(bt2_discarded "$w/fixed-fib-trace.txt")
grep -q "warning: core main: $e calls were traced, not all ($d events discarded: buffer full)" "$w/fft.err" ||
	bad "fixed-fib-trace: warning: $(cat "$w/fft.err")"

# 5. Overwrite mode: the packets before the first kept one are lost;
# their number is its packet_seq_num, and profile says so.
run overwrite-fib $N
first_seq=$(python3 - "$w/overwrite-fib/main" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
print(struct.unpack_from('<Q', d, 52)[0])  # packet_seq_num (docs/ctf-layout.md)
PY
)
[ "$first_seq" -gt 0 ] || bad "overwrite-fib: nothing was overwritten"
grep -q "func_profile: .*{ addr = $(awk '$1 == "addr" && $2 == "fib" { print toupper($3) }' "$w/overwrite-fib.out" | sed 's/^0X/0x/'), calls = $C," "$w/overwrite-fib.txt" ||
	bad "overwrite-fib: no dump of fib's $C calls"
ht profile "$w/overwrite-fib" --elf "$w/drv" >/dev/null 2>"$w/ow.err" || bad "overwrite-fib: profile failed"
grep -q "warning: core main: [0-9]* of $C calls were traced ($first_seq packets lost: overwritten or dropped; fib: [0-9]* of $C)" "$w/ow.err" ||
	bad "overwrite-fib: warning: $(cat "$w/ow.err")"

# A trace that holds every call: no warning, nothing discarded.
run fib 12
ht profile "$w/fib" --elf "$w/drv" >/dev/null 2>"$w/fib.err" || bad "fib: profile failed"
grep -q 'warning' "$w/fib.err" && bad "fib: warned: $(cat "$w/fib.err")"
grep -q 'WARNING' "$w/fib.txt" "$w/fib.err" && bad "fib: babeltrace2 reports a loss"

# 1. The example as documented: fib(20) after a quicksort of 256
# numbers, in the default buffer (64 slots of 4 KiB, fixed mode).
"$TOP/examples/instrument/build.sh" "$w/ex" "$HETRACE" >/dev/null
timeout 60 "$w/ex/demo" "$w/ex/trace/main" 20 >/dev/null || bad "example: demo failed"
# quicksort's calls: demo.c's data and algorithm replayed.
Q=$(python3 - <<'PY'
state = 12345
def rand():
    global state
    state = (state * 1103515245 + 12345) & 0xffffffff
    return (state >> 16) & 0x7fff
v = [rand() for _ in range(256)]
calls = 0
def qs(lo, n):
    global calls
    calls += 1
    if n < 2:
        return
    v[lo], v[lo + n // 2] = v[lo + n // 2], v[lo]
    last = 0
    for i in range(1, n):
        if v[lo + i] < v[lo]:
            last += 1
            v[lo + last], v[lo + i] = v[lo + i], v[lo + last]
    v[lo], v[lo + last] = v[lo + last], v[lo]
    qs(lo, last)
    qs(lo + last + 1, n - last - 1)
qs(0, 256)
print(calls)
PY
)
C20=$(calls_fib 20)
babeltrace2 --clock-cycles "$w/ex/trace" >"$w/example.txt" 2>&1 || bad "example: babeltrace2 failed"
check_exact example $((2 * (C20 + Q))) "$w/ex/trace"
ht profile "$w/ex/trace" --elf "$w/ex/demo" >"$w/ex.prof" 2>"$w/ex.err" || bad "example: profile failed"
grep -q "warning: core main: [0-9]* of $((C20 + Q)) calls were traced ([0-9]* events discarded: buffer full; fib: [0-9]* of $C20)" "$w/ex.err" ||
	bad "example: warning: $(cat "$w/ex.err")"
awk '/^-- on-target/ { d = 1 } d && $10 == "quicksort" { print $1; exit }' "$w/ex.prof" | grep -qx "$Q" ||
	bad "example: the dump does not show quicksort's $Q calls"
exit $fail
