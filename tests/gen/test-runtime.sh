#!/usr/bin/env bash
# Runtime behaviour, checked through babeltrace2: a 32-bit clock wrapping
# (64-bit extension, extended headers), records dropped when the back end
# is full, nested tracing calls dropped and counted, a signal handler
# tracing while the program traces, run-time enable/disable, a record too
# large for any packet, a stream without a clock. The driver says what it
# traced; events printed + events_discarded must account for all of it.
set -eu
cd "$(dirname "$0")"
. ../lib.sh

"$HETRACE" gen runtime/rt.yaml -o "$w/g"
cc -std=c99 -pedantic -Wall -Wextra -Werror -O1 -g \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-I"$w/g" -I. -o "$w/rt" runtime/rt.c "$w/g/barectf.c"

# The last packet's events_discarded: the stream's total (layout of
# docs/ctf-layout.md: magic, stream_id, packet_size, content_size,
# timestamp_begin, timestamp_end, events_discarded).
discarded() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off, last = 0, 0
while off < len(d):
    size_bits, = struct.unpack_from('<Q', d, off + 12)
    last, = struct.unpack_from('<Q', d, off + 44)
    off += size_bits // 8
print(last)
PY
}

run() { # MODE: trace dir $w/MODE, driver output $w/MODE.out, text $w/MODE.txt
	mkdir -p "$w/$1" "$w/$1-aux"
	cp "$w/g/metadata" "$w/$1/"
	cp "$w/g/metadata" "$w/$1-aux/"
	"$w/rt" "$1" "$w/$1/main" "$w/$1-aux/aux" >"$w/$1.out"
	babeltrace2 --clock-cycles "$w/$1" >"$w/$1.txt" 2>"$w/$1.err" ||
		bad "$1: babeltrace2 failed: $(head -3 "$w/$1.err")"
}
key() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
ticks() { grep -c ' tick: ' "$1" || true; }
tick_values() { sed -n 's/.* tick: .*{ n = \([0-9]*\) }$/\1/p' "$1" | tr '\n' ' '; }

# 1. wrap: 20 records, each read 2^30 + 7 cycles after the previous one.
run wrap
want=$(awk 'BEGIN { for (k = 0; k < 20; k++) printf "[%020.0f] ", 1000 + (k + 2) * (2^30 + 7) }')
got=$(awk '/ tick: / { printf "%s ", $1 }' "$w/wrap.txt")
[ "$want" = "$got" ] || bad "wrap: timestamps: want $want, got $got"
[ "$(tick_values "$w/wrap.txt")" = "$(seq -s ' ' 0 19) " ] || bad "wrap: values"

# 2. discard: the back end is full for records 30..59.
run discard
n=$(ticks "$w/discard.txt")
d=$(discarded "$w/discard/main")
[ $((n + d)) = 100 ] || bad "discard: $n printed + $d discarded != 100"
[ "$d" -gt 0 ] || bad "discard: nothing was discarded"
grep -q 'WARNING: Tracer discarded' "$w/discard.txt" "$w/discard.err" ||
	bad "discard: babeltrace2 reports no discarded events"

# 3. nested: the clock callback traces every third read.
run nested
[ "$(tick_values "$w/nested.txt")" = "$(seq -s ' ' 0 59) " ] || bad "nested: ticks lost or corrupted"
grep -q ' isr: ' "$w/nested.txt" && bad "nested: a nested record was written"
[ "$(discarded "$w/nested/main")" = "$(key nested "$w/nested.out")" ] ||
	bad "nested: discarded $(discarded "$w/nested/main") != nested calls $(key nested "$w/nested.out")"

# 4. signal: SIGALRM every 50 us traces from the handler.
run signal
n=$(ticks "$w/signal.txt")
[ "$n" = 2000000 ] || bad "signal: $n ticks printed, 2000000 traced"
isr=$(grep -c ' isr: ' "$w/signal.txt" || true)
d=$(discarded "$w/signal/main")
[ $((isr + d)) = "$(key isr "$w/signal.out")" ] ||
	bad "signal: $isr isr printed + $d discarded != $(key isr "$w/signal.out") handler calls"
echo "signal: $(key isr "$w/signal.out") handler calls: $isr written, $d dropped (nested)"

# 5. disable: records 10..19 traced while disabled: not written, not counted.
run disable
[ "$(tick_values "$w/disable.txt")" = "$(seq -s ' ' 0 9) $(seq -s ' ' 20 29) " ] || bad "disable: values"
[ "$(discarded "$w/disable/main")" = 0 ] || bad "disable: records counted as discarded"

# 6. toobig: a 300-byte record never fits a 256-byte packet.
run toobig
[ "$(tick_values "$w/toobig.txt")" = "1 2 " ] || bad "toobig: values"
[ "$(discarded "$w/toobig/main")" = 1 ] || bad "toobig: the record was not counted"

# 7. aux: no clock, the header is the id alone.
babeltrace2 "$w/toobig-aux" >"$w/aux.txt" || bad "aux: babeltrace2 failed"
want=$(seq -s ' ' 0 1000 39000)
got=$(sed -n 's/^note: .*{ v = \([0-9]*\) }$/\1/p' "$w/aux.txt" | tr '\n' ' ')
[ "$want " = "$got" ] || bad "aux: values: $got"
exit $fail
