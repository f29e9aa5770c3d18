#!/usr/bin/env bash
# Hostile metadata (tests/ctf/reader/hostile-metadata.py writes each
# trace): types nested thousands deep in every way TSDL allows are
# refused while parsing (exit 1, metadata:line:col), the deepest
# accepted nesting prints as babeltrace2 prints it; a newline inside a
# string is read as babeltrace2 reads it; enums, env blocks, structures
# and alias lists of a hundred thousand entries parse in linear time
# (the guard: 20 s and 1 GiB for what takes well under a second); a
# clock offset out of the 64-bit nanosecond range is an error at its
# metadata position, offsets near the limits print as babeltrace2
# prints them.
set -u
. "$TOP/tests/lib.sh"
gen="$TOP/tests/ctf/reader/hostile-metadata.py"
H_OPT=${HETRACE_OPT:-$HETRACE}

run() { # WHAT WANT CMD...: tests/lib.sh's bounded_expect in 1024 MiB
	bounded_expect "$1" "$2" 1024 "${@:3}"
}

# same_as_bt2 WHAT TRACE: `hetrace print` exits 0 and prints what
# babeltrace2 prints.
same_as_bt2() {
	run "$1 print" 0 "$HETRACE" print "$2"
	babeltrace2 "$2" >"$w/bt.out" 2>"$w/bt.err" ||
		bad "$1: babeltrace2 refuses it: $(head -3 "$w/bt.err")"
	cmp -s "$w/out" "$w/bt.out" ||
		bad "$1: print differs from babeltrace2: $(diff "$w/out" "$w/bt.out" | head -c 400)"
}

# --- nesting -----------------------------------------------------------
# (the payload structure is one level: 63 more make the 64 accepted)
for kind in struct variant enum typealias struct-alias typedef-array; do
	for n in 64 100000; do
		t="$w/nest-$kind-$n"
		"$gen" "$t" --nest "$kind" "$n"
		for cmd in info print; do
			run "$kind x $n $cmd" 1 "$HETRACE" "$cmd" "$t"
			grep -qE "^hetrace $cmd: $t/metadata:[0-9]+:[0-9]+: types nested deeper than 64\$" "$w/err" ||
				bad "$kind x $n $cmd: message: $(head -c 300 "$w/err")"
		done
		rm -rf "$t"
	done
done
# the position: the 65th structure keyword, the 65th named structure
"$gen" "$w/n" --nest struct 64
run "struct position" 1 "$HETRACE" print "$w/n"
col=$(sed -n 25p "$w/n/metadata" | awk '{ print index($0, "fields := ") + 10 + 9 * 64 }')
expect_err "struct position" "metadata:25:$col: types nested deeper than 64"
rm -rf "$w/n"
"$gen" "$w/n" --nest struct-alias 65
run "struct-alias position" 1 "$HETRACE" print "$w/n"
line=$(grep -n "^struct s64 " "$w/n/metadata" | cut -d: -f1)
expect_err "struct-alias position" "metadata:$line:1: types nested deeper than 64"
rm -rf "$w/n"
for kind in struct typealias struct-alias typedef-array; do
	"$gen" "$w/ok-$kind" --nest "$kind" 63
	same_as_bt2 "$kind x 63" "$w/ok-$kind"
	[ "$(grep -c ' ev: ' "$w/out")" = 3 ] || bad "$kind x 63: not 3 events"
	rm -rf "$w/ok-$kind"
done
echo "nesting: done"

# --- a newline in strings --------------------------------------------------
"$gen" "$w/nl" --newline
same_as_bt2 "newline" "$w/nl"
[ "$(grep -c '^second line: { v = ' "$w/out")" = 3 ] || bad "newline: not 3 events"
run "newline info" 0 "$HETRACE" info "$w/nl"
grep -qx '  env description = "first line' "$w/out" &&
	grep -qx 'second line"' "$w/out" || bad "newline info: $(cat "$w/out")"
echo "newline: done"

# --- many entries: linear time ---------------------------------------------
check_big() {
	local what=$1
	shift
	rm -rf "$w/big"
	"$gen" "$w/big" "$@"
	run "$what info" 0 "$H_OPT" info "$w/big"
	grep -q "events: 3" "$w/out" || bad "$what info: not 3 events"
	run "$what print" 0 "$H_OPT" print "$w/big"
	[ "$(grep -c ' ev: ' "$w/out")" = 3 ] || bad "$what print: not 3 events"
	# the sanitized build too (under the time guard only)
	run "$what print (sanitized)" 0 "$HETRACE" print "$w/big"
	echo "$what: done"
}
check_big "enum of 200000 mappings" --enum 200000
grep -q '^\[.*\] (+0.000000010) ev: { v = ( "L2" : container = 2 ) }$' "$w/out" ||
	bad "enum: third event: $(tail -1 "$w/out")"
check_big "enum of one label, 200000 ranges" --dup-label 200000
grep -q '^\[.*\] (+0.000000010) ev: { v = ( "L" : container = 2 ) }$' "$w/out" ||
	bad "one label: third event: $(tail -1 "$w/out")"
check_big "200000 env entries" --env 200000
run "env info" 0 "$HETRACE" info "$w/big"
[ "$(grep -c '^  env e[0-9]* = ' "$w/out")" = 200000 ] || bad "env: not 200000 entries"
grep -qx '  env e199999 = 199999' "$w/out" || bad "env: no last entry"
check_big "100000 members" --members 100000
check_big "200000 aliases" --aliases 200000
# a variant of 200000 options (every other one '_'-prefixed) tagged by an
# enumeration of 200000 labels: each label finds its option
check_big "variant of 200000 options" --variant 200000
grep -q '^\[.*\] (+0.000000010) ev: { tag = ( "L2" : container = 2 ), v = { 14 } }$' "$w/out" ||
	bad "variant: third event: $(tail -1 "$w/out")"
rm -rf "$w/big"

# --- clock offsets -------------------------------------------------------
# OFFSET_S OFFSET FREQ FIRST-TIMESTAMP: within the range, where
# babeltrace2 takes them too (it refuses from offset_s = 9223372035)
for c in "9223372034 999999999 1000000000 0" \
	"-9223372036 0 1000000000 0" \
	"-9223372036 999999999 1000000000 0" \
	"9223372020 7 3 0" \
	"-9223372035 2 3 0" \
	"1700000000 123456789 1000000007 4000000000" \
	"0 9223372036854775807 9223372036854775807 5"; do
	read -r s o f ts <<<"$c"
	rm -rf "$w/clk"
	"$gen" "$w/clk" --offset-s "$s" --offset "$o" --freq "$f" --ts "$ts"
	same_as_bt2 "clock $c" "$w/clk"
	[ "$(grep -c ' ev: ' "$w/out")" = 3 ] || bad "clock $c: not 3 events"
done
# out of the range: an error at the offset's position
for c in "9223372036 854775808 1000000000" \
	"-9223372037 0 1000000000" \
	"9223372036854775807 1000000000 1000000000" \
	"-9223372036854775808 -1 1000000000" \
	"0 -9223372036854775808 1" \
	"0 9223372036854775807 1"; do
	read -r s o f <<<"$c"
	rm -rf "$w/clk"
	"$gen" "$w/clk" --offset-s "$s" --offset "$o" --freq "$f"
	col=$(sed -n 15p "$w/clk/metadata" | awk '{ print index($0, "offset = ") }')
	for cmd in info print; do
		run "clock $c $cmd" 1 "$HETRACE" "$cmd" "$w/clk"
		expect_err "clock $c $cmd" "^hetrace $cmd: $w/clk/metadata:15:$col: clock 'clk': offset_s = $s plus offset = $o cycles at $f Hz is out of the 64-bit nanosecond range\$"
	done
done
echo "clock offsets: done"

# --- times past the range ------------------------------------------------
# an offset in the range, timestamps past the clock's last time in 64-bit
# ns: refused with the packet named, as babeltrace2 refuses them; with
# -k the events print, at the last time there is
rm -rf "$w/clk"
"$gen" "$w/clk" --offset-s 9223372032 --offset 0 --freq 3 --ts 4000000000
babeltrace2 "$w/clk" >/dev/null 2>&1 && bad "time range: babeltrace2 takes it"
for cmd in info print; do
	run "time range $cmd" 1 "$HETRACE" "$cmd" "$w/clk"
	expect_err "time range $cmd" "^hetrace $cmd: time out of range: file=$w/clk/stream packet=0 offset=0: the packet's timestamp_end at 4000000020 cycles is past the last time clock 'clk' gives in 64-bit ns (14 cycles)"
done
run "time range print -k" 1 "$HETRACE" print -k "$w/clk"
[ "$(grep -c ' ev: ' "$w/out")" = 3 ] || bad "time range print -k: not 3 events"
echo "times past the range: done"
exit $fail
