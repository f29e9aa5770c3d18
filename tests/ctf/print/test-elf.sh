#!/usr/bin/env bash
# hetrace print --elf: function names (and file:line) after the
# addresses of func_entry/func_exit records, from a position-independent
# program built with -finstrument-functions (tests/runtime/instrument/drv.c);
# without --elf the text is babeltrace2's, byte for byte; an ELF that
# is not the traced program gives a warning and raw addresses, never a
# wrong name.
set -eu
: "${TOP:?}"
# shellcheck source=../../lib.sh
. "$TOP/tests/lib.sh"

"$HETRACE" gen "$TOP/examples/instrument/config.yaml" -o "$w/g" >/dev/null
mkdir -p "$w/o"
for src in "$TOP/runtime/instrument.c" "$TOP/runtime/packet-ring.c" \
	"$TOP/runtime/port.c" "$TOP/examples/instrument/trace-glue.c" \
	"$w/g/hti-trace.c"; do
	cc -std=c11 -O1 -g -I"$TOP/include" -I"$w/g" -I"$TOP/examples/instrument" \
		-DHT_PORT_INSTR_TLS=__thread -c "$src" -o "$w/o/$(basename "$src" .c).o"
done
cc -std=c11 -O1 -g -fPIE -finstrument-functions -I"$TOP/include" \
	-I"$TOP/examples/instrument" -c "$TOP/tests/runtime/instrument/drv.c" -o "$w/o/drv.o"
cc -pie -pthread -o "$w/drv" "$w/o"/*.o
mkdir -p "$w/t"
cp "$w/g/metadata" "$w/t/"
"$w/drv" fib "$w/t/main" 12 >"$w/drv.out"
fib=$(awk '$1 == "addr" && $2 == "fib" { print toupper($3) }' "$w/drv.out" | sed 's/^0X/0x/')
[ -n "$fib" ] || bad "the driver did not say where fib is"

# 1. default output: babeltrace2's
babeltrace2 "$w/t" >"$w/bt.txt"
"$HETRACE" print "$w/t" >"$w/ht.txt"
cmp -s "$w/bt.txt" "$w/ht.txt" || bad "print without --elf differs from babeltrace2"

# 2. --elf: every fib entry and exit named, with file:line; the other
# lines unchanged; the line is babeltrace2's with the note inserted
"$HETRACE" print --elf "$w/drv" "$w/t" >"$w/elf.txt" 2>"$w/elf.err" || bad "print --elf failed"
[ -s "$w/elf.err" ] && bad "print --elf warned: $(cat "$w/elf.err")"
want=$(grep -c " func_entry: .* addr = $fib[,} ]" "$w/bt.txt" || true)
[ "$want" = 465 ] || bad "fib(12) makes 465 calls, babeltrace2 shows $want entries"
got=$(grep -c " func_entry: .* addr = $fib <fib at drv\.c:[0-9]*>" "$w/elf.txt" || true)
[ "$got" = "$want" ] || bad "--elf: $got fib entries named, want $want"
got=$(grep -c " func_exit: .* addr = $fib <fib at drv\.c:[0-9]*>" "$w/elf.txt" || true)
[ "$got" = "$want" ] || bad "--elf: $got fib exits named, want $want"
grep -q "call_site = 0x[0-9A-F]* <fib+0x[0-9a-f]* at drv\.c:[0-9]*>" "$w/elf.txt" ||
	bad "--elf: the recursive call sites are not named inside fib"
sed 's/ <[^>]*>//g' "$w/elf.txt" | cmp -s - "$w/bt.txt" ||
	bad "--elf: without the notes the text is not babeltrace2's"
[ "$(wc -l <"$w/elf.txt")" = "$(wc -l <"$w/bt.txt")" ] || bad "--elf: line count"
# CORE=FILE for another core name: no names here
"$HETRACE" print --elf "nosuchcore=$w/drv" "$w/t" >"$w/other.txt" 2>/dev/null
cmp -s "$w/other.txt" "$w/bt.txt" || bad "--elf for another core changed the text"

# 3. the wrong ELF: raw addresses and a warning, never a wrong name
"$HETRACE" print --elf "$HETRACE" "$w/t" >"$w/wrong.txt" 2>"$w/wrong.err" || bad "print --elf WRONG failed"
grep -q "warning: .* names 0 of the .* function addresses" "$w/wrong.err" ||
	bad "wrong ELF: no warning: $(cat "$w/wrong.err")"
grep -q "addr = 0x[0-9A-F]* <" "$w/wrong.txt" && bad "wrong ELF: a name was given"
grep -q "call_site = 0x[0-9A-F]* <" "$w/wrong.txt" && bad "wrong ELF: a call site was named"

# 4. bad --elf: a missing file, an empty path
set +e
"$HETRACE" print --elf "$w/nope" "$w/t" >/dev/null 2>"$w/e1"
rc1=$?
"$HETRACE" print --elf "" "$w/t" >/dev/null 2>"$w/e2"
rc2=$?
set -e
[ "$rc1" = 1 ] && grep -q "nope" "$w/e1" || bad "missing ELF: exit $rc1: $(cat "$w/e1")"
[ "$rc2" = 2 ] || bad "empty --elf: exit $rc2"
exit $fail
