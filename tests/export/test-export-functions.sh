#!/usr/bin/env bash
# hetrace export --elf on a relocated program: examples/instrument's
# demo, a position-independent executable run with address-space
# randomization, traced by the -finstrument-functions runtime (its
# func_base record says where it was loaded). Every function slice of
# the Perfetto file and of the JSON must be a call babeltrace2 reads,
# named from the ELF at (address - load bias); an ELF of another
# program gives a warning and raw addresses, never a wrong name; a
# stripped one a note.
set -u
cd "$(dirname "$0")"
. ../lib.sh
: "${TOP:?}"

"$TOP/examples/instrument/build.sh" "$w/ex" "$HETRACE" >/dev/null || exit 1
readelf -hW "$w/ex/demo" | grep -q 'DYN (Position-Independent' ||
	bad "the demo is not a PIE: the test would not test the bias"
"$w/ex/demo" "$w/ex/trace/main" 12 >/dev/null || exit 1
babeltrace2 --clock-cycles "$w/ex/trace" >"$w/bt2" || bad "babeltrace2 failed"
nm --defined-only "$w/ex/demo" >"$w/nm"
base=$(readelf -lW "$w/ex/demo" | awk '$1 == "LOAD" { print $3; exit }')

"$HETRACE" export --elf "$w/ex/demo" "$w/ex/trace" -o "$w/f.pftrace" 2>"$w/p.err" ||
	bad "perfetto export failed: $(cat "$w/p.err")"
"$HETRACE" export -q -f chrome-json --elf "main=$w/ex/demo" "$w/ex/trace" -o "$w/f.json" 2>"$w/j.err" ||
	bad "json export failed: $(cat "$w/j.err")"
grep -q warning "$w/p.err" "$w/j.err" && bad "warnings: $(cat "$w/p.err" "$w/j.err")"
python3 check-funcs.py "$w/bt2" "$w/nm" "$base" "$w/f.pftrace" "$w/f.json" || bad "check-funcs.py"
grep -q '"name":"fib"' "$w/f.json" || bad "no fib slice in the JSON"

# raw_case LABEL ELF X PATTERN WHAT: both exports with --elf ELF (into
# $w/X.pftrace and $w/X.json): a WHAT matching PATTERN on stderr, every
# address raw
raw_case() {
	"$HETRACE" export --elf "$2" "$w/ex/trace" -o "$w/$3.pftrace" 2>"$w/$3.err" ||
		bad "$1: export failed"
	"$HETRACE" export -q -f chrome-json --elf "$2" "$w/ex/trace" -o "$w/$3.json" 2>/dev/null
	grep -q "$4" "$w/$3.err" || bad "$1: no $5: $(cat "$w/$3.err")"
	python3 check-funcs.py "$w/bt2" "$w/nm" "$base" "$w/$3.pftrace" "$w/$3.json" --raw >/dev/null ||
		bad "$1: a name was given"
}

# another program's ELF: a warning, every address raw
cc -O0 -o "$w/other" -x c - <<'C' || exit 1
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int quicksort(int n) { return n; }
int main(void) { return fib(3) + quicksort(0) == 2 ? 0 : 1; }
C
raw_case "mismatched ELF" "$w/other" o \
	'warning: core main: [0-9]* of [0-9]* function addresses are not functions of .*other' warning
# a stripped copy: a note, raw addresses
strip -o "$w/demo.stripped" "$w/ex/demo"
raw_case "stripped ELF" "$w/demo.stripped" s \
	'demo.stripped is stripped (no .symtab): core main.s functions are shown as addresses' note
# an ELF for another core only: no names here
"$HETRACE" export -q -f chrome-json --elf "dsp9=$w/ex/demo" "$w/ex/trace" -o "$w/n.json" ||
	bad "--elf CORE=: export failed"
grep -q '"name":"fib"' "$w/n.json" && bad "--elf dsp9=: named core main's functions"

# bad --elf values
"$HETRACE" export --elf "$w/bt2" "$w/ex/trace" -o "$w/x" 2>"$w/e1"
[ $? = 1 ] && grep -q 'bt2: offset 0: not an ELF file' "$w/e1" || bad "not ELF: $(cat "$w/e1")"
"$HETRACE" export --elf "main=" "$w/ex/trace" -o "$w/x" 2>/dev/null
[ $? = 2 ] || bad "--elf main=: not a usage error"
exit $fail
