#!/usr/bin/env bash
# The CTF 2 field classes CTF 1.8 has no layout for (only2.py writes
# the traces and the expected payload text from the values it
# encodes, as babeltrace2 2.1 prints these classes): variable-length
# integers (signed, unsigned, with mappings, as lengths and selectors),
# optionals (boolean and integer selectors, there and absent), LEB128
# event record class ids and timestamps in the event header, UTF-16
# and UTF-32 strings of the three length kinds, booleans (true or false,
# in the field walker and in a compiled line). `print` shows every
# payload as expected, `info` counts every record (the scan skips these
# classes). Damaged data (a LEB128 integer of 11 bytes or past 64 bits,
# a lone UTF-16 surrogate, a UTF-32 code point past U+10FFFF): exit 1
# from `print` and `info`, the file and the exact offset named, the
# records before the damage and the other stream printed (guard: 20 s,
# 512 MiB).
set -u
. "$TOP/tests/lib.sh"

python3 "$TOP/tests/ctf/ctf2/only2.py" "$w/t" || bad "only2.py failed"
cd "$w/t" || exit 1

run() { # WHAT WANT CMD...: tests/lib.sh's bounded_expect in 512 MiB
	bounded_expect "$1" "$2" 512 "${@:3}"
}

run "good print" 0 "$HETRACE" print good
sed 's/^.* c2only: //' "$w/out" >"$w/payloads"
cmp -s "$w/payloads" good.expect ||
	bad "good: payloads differ: $(diff good.expect "$w/payloads" | head -6 | cut -c 1-400)"
run "good info" 0 "$HETRACE" info good
grep -q '^ *8  c2only$' "$w/out" || bad "good info: $(grep -A1 'event types' "$w/out")"
# the same fields, named, through the set reader and the JSON exporter
run "good print --names=all" 0 "$HETRACE" print --names=all good
[ "$(grep -c 'o1 = <none>' "$w/out")" = 4 ] || bad "good: absent optionals: $(head -c 300 "$w/out")"

# a payload of a fixed shape: the formatter's compiled line
run "flat print" 0 "$HETRACE" print flat
sed 's/^.* flat: //' "$w/out" >"$w/payloads"
cmp -s "$w/payloads" flat.expect ||
	bad "flat: payloads differ: $(diff flat.expect "$w/payloads" | head -6 | cut -c 1-400)"

# an event header of LEB128 integers (id and time): the same lines
run "good print" 0 "$HETRACE" print good
mv "$w/out" "$w/good.out"
run "varhdr print" 0 "$HETRACE" print varhdr
cmp -s "$w/out" "$w/good.out" || bad "varhdr: $(diff "$w/good.out" "$w/out" | head -4 | cut -c 1-300)"
run "varhdr info" 0 "$HETRACE" info varhdr
grep -q 'last event: 0.000008000 s (8000 cycles)' "$w/out" || bad "varhdr info: $(grep event "$w/out")"

n=0
while IFS=$'\t' read -r name at pat; do
	n=$((n + 1))
	for cmd in print info; do
		run "$name $cmd" 1 "$HETRACE" "$cmd" "$name"
		grep -qE -- "^hetrace $cmd: cannot decode packet: file=$name/s0 offset=$at: $pat" "$w/err" ||
			bad "$name $cmd: message (offset $at): $(head -c 300 "$w/err")"
	done
	# the records before the damage and the other stream's are printed
	run "$name print" 1 "$HETRACE" print "$name"
	[ "$(grep -c ' b: { u = 1, s = -1, w = "ok", w32 = "ok", k = 1, o = { 5 } }$' "$w/out")" = 6 ] ||
		bad "$name: $(wc -l <"$w/out") events printed, expected 6"
done <bad-cases
[ "$n" = 7 ] || bad "$n damaged cases, expected 7"
exit $fail
