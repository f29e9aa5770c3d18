#!/usr/bin/env bash
# Function tracing end to end (docs/instrument.md): tests/runtime/instrument/drv.c
# built with -finstrument-functions and the Linux glue of
# examples/instrument/, one mode per run. babeltrace2 decodes every
# trace: the traced addresses and counts are checked against what the
# program says, and `hetrace profile` against babeltrace2's records
# (times recomputed from the records' timestamps).
set -eu
cd "$(dirname "$0")"
. ../../lib.sh
: "${TOP:=$(cd ../../.. && pwd)}"

SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
. ./drv-lib.sh
build_drv "$w/drv"

run() { # MODE [ARGS]: trace in $w/MODE/, program output $w/MODE.out, text $w/MODE.txt
	local m=$1
	shift
	mkdir -p "$w/$m"
	cp "$w/g/metadata" "$w/$m/"
	"$w/drv" "$m" "$w/$m/main" "$@" >"$w/$m.out" || bad "$m: drv exited $?"
	babeltrace2 --clock-cycles "$w/$m" >"$w/$m.txt" 2>"$w/$m.err" ||
		bad "$m: babeltrace2 failed: $(head -3 "$w/$m.err")"
}
key() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
addr_of() { awk -v f="$1" '$1 == "addr" && $2 == f { print toupper($3) }' "$2" | sed 's/^0X/0x/'; }
# Records NAME (func_entry/func_exit) of function at ADDR in TEXT.
count() { grep -c " $1: .* addr = $2[,} ]" "$3" || true; }
# A profile row's column for FUNC (1 calls; the four times take two words
# each, "1.500 us": their ns are in --json), in the first table of
# PROFILE_OUTPUT.
col() {
	awk -v f="$1" -v c="$2" '/^== / { t++ } t == 1 && $10 == f { print $c; exit }' "$3"
}
# The on-target (dumped) table's column.
dcol() {
	awk -v f="$1" -v c="$2" '/^-- on-target/ { d = 1 } d && $10 == f { print $c; exit }' "$3"
}
# jq-like: js FILE EXPR (a python expression on d, the JSON of FILE)
js() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# 1. fib(20): exact counts in the records, the profile and the dump.
run fib 20
fa=$(addr_of fib "$w/fib.out")
want=21891 # fib(n) makes 2 fib(n+1) - 1 calls
[ "$(count func_entry "$fa" "$w/fib.txt")" = $want ] || bad "fib: $(count func_entry "$fa" "$w/fib.txt") func_entry, want $want"
[ "$(count func_exit "$fa" "$w/fib.txt")" = $want ] || bad "fib: func_exit count"
grep -q "func_base: .*base = 0x" "$w/fib.txt" || bad "fib: no func_base record"
grep -q "func_profile: .*{ addr = $fa, calls = $want, incl = [0-9]*, excl = [0-9]*, max = [0-9]* }" "$w/fib.txt" ||
	bad "fib: the dumped profile as babeltrace2 reads it"
grep -q "func_profile_stats: .*{ lost_calls = 0, deep_calls = 0, unbalanced = 0, nested = 0 }" "$w/fib.txt" ||
	bad "fib: the dumped stats as babeltrace2 reads them"
"$HETRACE" profile "$w/fib" --elf "$w/drv" -g >"$w/fib.prof" 2>"$w/fib.perr" || bad "fib: profile failed"
[ "$(col fib 1 "$w/fib.prof")" = $want ] || bad "fib: profile calls $(col fib 1 "$w/fib.prof")"
[ "$(dcol fib 1 "$w/fib.prof")" = $want ] || bad "fib: on-target calls $(dcol fib 1 "$w/fib.prof")"
grep -q 'fib  drv.c:[0-9]' "$w/fib.prof" || bad "fib: no file:line"
[ -s "$w/fib.perr" ] && bad "fib: profile warned: $(cat "$w/fib.perr")"
# Call graph: every node's inclusive time >= the sum of its children's;
# the counts along the path are fib's: calls at depth d sum to want.
# (--json: the nodes in tree order, each with its depth, times in ns)
"$HETRACE" profile "$w/fib" --elf "$w/drv" -g --json >"$w/fib.json" 2>/dev/null || bad "fib: profile --json failed"
python3 - "$w/fib.json" <<'PY' || bad "fib: call graph"
import json, sys
nodes = json.load(open(sys.argv[1]))['cores'][0]['trace']['callgraph']
child, path, calls = [0] * len(nodes), [], 0
for i, n in enumerate(nodes):
    del path[n['depth'] - 1:]
    if path:
        child[path[-1]] += n['incl_ns']
    path.append(i)
    calls += n['calls']
bad = [(i, c, n['incl_ns']) for i, (c, n) in enumerate(zip(child, nodes)) if c > n['incl_ns']]
assert not bad, 'children past their parent: %s' % bad[:3]
assert calls == 21891, 'graph calls %d' % calls
PY

# 2. Several functions: exclusive times add up to the traced total, and
# both equal the time of the outermost calls computed from the records.
run threads
"$HETRACE" profile "$w/threads" --elf "$w/drv" --core main >"$w/th.prof" 2>&1 || bad "threads: profile failed"
"$HETRACE" profile "$w/threads" --elf "$w/drv" --core main -n 0 --json >"$w/th.json" 2>/dev/null ||
	bad "threads: profile --json failed"
total=$(js "$w/th.json" "d['cores'][0]['trace']['total_ns']")
sum=$(js "$w/th.json" "sum(f['excl_ns'] for f in d['cores'][0]['trace']['functions'])")
[ "$total" = "$sum" ] || bad "threads: exclusive sum $sum != total $total"
tids=$(grep ' func_entry: ' "$w/threads.txt" | sed 's/.*{ tid = \([0-9]*\) }.*/\1/' | sort -u | wc -l)
[ "$tids" = 2 ] || bad "threads: $tids distinct tids in func_entry records, want 2"
mkdir -p "$w/th1"
cp "$w/threads/metadata" "$w/th1/"
cp "$w/threads/main" "$w/th1/"
babeltrace2 --clock-cycles "$w/th1" >"$w/th1.txt"
rec=$(awk '/ func_entry: / { if (d++ == 0) t0 = substr($1, 2, 20) + 0 }
	/ func_exit: / { if (--d == 0) s += substr($1, 2, 20) - t0 }
	END { print s }' "$w/th1.txt")
[ "$rec" = "$total" ] || bad "threads: total $total, records say $rec"
"$HETRACE" profile "$w/threads" --elf "$w/drv" >"$w/th-all.prof" 2>&1 || bad "threads: profile failed"
awk '/^== all cores/ { a = 1 } a && $10 == "work" { print $1 }' "$w/th-all.prof" | grep -qx 2 ||
	bad "threads: all cores: work is not called twice"

# 3. Recursion 10,000 deep: whole in the shadow stack, then mostly below.
run deep 10000
da=$(addr_of deep "$w/deep.out")
[ "$(count func_entry "$da" "$w/deep.txt")" = 10001 ] || bad "deep: func_entry count"
[ "$(count func_exit "$da" "$w/deep.txt")" = 10001 ] || bad "deep: func_exit count"
"$HETRACE" profile "$w/deep" --elf "$w/drv" -g >"$w/deep.prof" 2>&1 || bad "deep: profile failed"
[ "$(col deep 1 "$w/deep.prof")" = 10001 ] || bad "deep: calls"
[ "$(dcol deep 1 "$w/deep.prof")" = 10001 ] || bad "deep: on-target calls"
grep -q '\[10001\] +- deep' "$w/deep.prof" || bad "deep: call graph does not reach depth 10001"
mkdir -p "$w/shallow"
cp "$w/g/metadata" "$w/shallow/"
"$w/drv" deep "$w/shallow/main" 10000 64 >"$w/shallow.out" || bad "shallow: drv failed"
[ "$(key deep_calls "$w/shallow.out")" = 9937 ] || bad "shallow: deep_calls $(key deep_calls "$w/shallow.out"), want 10001 - 64"
"$HETRACE" profile "$w/shallow" --elf "$w/drv" >"$w/shallow.prof" 2>&1 || bad "shallow: profile failed"
[ "$(dcol deep 1 "$w/shallow.prof")" = 10001 ] || bad "shallow: on-target calls"
grep -q '9937 calls below the stack' "$w/shallow.prof" || bad "shallow: deep calls not reported"

# 4. Trigger/stopper windows.
run window
wa=$(addr_of work "$w/window.out")
la=$(addr_of leaf "$w/window.out")
[ "$(count func_entry "$wa" "$w/window.txt")" = 1 ] || bad "window: work entries"
[ "$(count func_entry "$la" "$w/window.txt")" = 3 ] || bad "window: the window is not work(3)'s"
[ "$(grep -c ' func_entry: ' "$w/window.txt")" = 4 ] || bad "window: records outside the window"
tail -n 1 "$w/window.txt" | grep -q 'func_profile_stats' || bad "window: last record"
grep ' func_exit: ' "$w/window.txt" | tail -n 1 | grep -q "addr = $wa " || bad "window: does not end at work's exit"
run window-caller
wa=$(addr_of work "$w/window-caller.out")
[ "$(count func_entry "$wa" "$w/window-caller.txt")" = 3 ] || bad "window-caller: work entries"
[ "$(grep -c ' func_entry: ' "$w/window-caller.txt")" = 9 ] || bad "window-caller: records outside the windows"
ca=$(addr_of caller_a "$w/window-caller.out")
grep -q "call_site = " "$w/window-caller.txt" || bad "window-caller: no call sites"
[ "$(count func_entry "$ca" "$w/window-caller.txt")" = 0 ] || bad "window-caller: caller_a traced"

# 5. Buffer modes: overwrite keeps the newest records, fixed the first.
# buffer_mode MODE KEPT LOST: `run MODE 500` keeps no entry of function
# LOST and 1 to 499 of KEPT ($n); $pa and $pb: phase_a's and phase_b's
# addresses.
buffer_mode() {
	local lost
	run "$1" 500
	pa=$(addr_of phase_a "$w/$1.out")
	pb=$(addr_of phase_b "$w/$1.out")
	n=$(count func_entry "$(addr_of "$2" "$w/$1.out")" "$w/$1.txt")
	lost=$(count func_entry "$(addr_of "$3" "$w/$1.out")" "$w/$1.txt")
	[ "$lost" = 0 ] || bad "$1: $lost $3 entries kept"
	[ "$n" -gt 0 ] && [ "$n" -lt 500 ] || bad "$1: $n $2 entries"
}
buffer_mode overwrite phase_b phase_a
nb=$n
grep -E ' func_(entry|exit): ' "$w/overwrite.txt" | tail -n 1 | grep -q "func_exit: .*addr = $pb " ||
	bad "overwrite: the newest record is not the last phase_b exit"
"$HETRACE" profile "$w/overwrite" --elf "$w/drv" >"$w/ow.prof" 2>"$w/ow.err" || bad "overwrite: profile failed"
[ "$(col phase_b 1 "$w/ow.prof")" = "$nb" ] || bad "overwrite: profile calls"
grep -q 'no func_base record; load bias' "$w/ow.err" || bad "overwrite: bias not guessed"
buffer_mode fixed phase_a phase_b
sed -n 2p "$w/fixed.txt" | grep -q "func_entry: .*addr = $pa," || bad "fixed: the first record is not phase_a's first entry"

# 6. Unbalanced: tracing starts two calls deep (2 exits without entry),
# one call is never exited (disabled inside it).
run unbalanced
"$HETRACE" profile "$w/unbalanced" --elf "$w/drv" >"$w/ub.prof" 2>"$w/ub.err" || bad "unbalanced: profile failed"
grep -q 'unbalanced: 2 exits without entry .*, 0 calls without exit closed by an outer exit, 1 calls open at the end' "$w/ub.err" ||
	bad "unbalanced: not counted: $(cat "$w/ub.err")"
"$HETRACE" profile "$w/unbalanced" --elf "$w/drv" --json >"$w/ub.json" 2>/dev/null || bad "unbalanced: profile --json failed"
[ "$(js "$w/ub.json" "max(f[k] for c in d['cores'] for p in ('trace', 'on_target') if p in c
	for f in c[p]['functions'] for k in ('incl_ns', 'excl_ns')) < 1e12")" = True ] || bad "unbalanced: a negative time"
grep -q '3 unbalanced' "$w/ub.prof" || bad "unbalanced: on-target count"

# 7. Bad input: a mismatched ELF, a stripped one, not an ELF, no file.
cc -O0 -g -o "$w/other" -x c - <<'EOF'
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(void) { return fib(3) == 2 ? 0 : 1; }
EOF
"$HETRACE" profile "$w/fib" --elf "$w/other" >"$w/mm.prof" 2>"$w/mm.err" || bad "mismatch: profile failed"
grep -q 'warning: core main: 1 of 1 function addresses are not functions of .*other' "$w/mm.err" ||
	bad "mismatch: no warning: $(cat "$w/mm.err")"
grep -q " fib" "$w/mm.prof" && bad "mismatch: a name was given"
grep -q " $(echo "$fa" | tr A-F a-f | sed 's/^0X/0x/')$" "$w/mm.prof" || bad "mismatch: raw address not shown"
strip -o "$w/drv.stripped" "$w/drv"
"$HETRACE" profile "$w/fib" --elf "$w/drv.stripped" >"$w/st.prof" 2>"$w/st.err" || bad "stripped: profile failed"
grep -q 'note: .*drv.stripped is stripped' "$w/st.err" || bad "stripped: no note: $(cat "$w/st.err")"
grep -q " fib" "$w/st.prof" && bad "stripped: a name was given"
set +e
"$HETRACE" profile "$w/fib" --elf "$w/fib.txt" >/dev/null 2>"$w/ne.err"
[ $? = 1 ] || bad "not ELF: exit status"
grep -q "fib.txt: offset 0: not an ELF file" "$w/ne.err" || bad "not ELF: $(cat "$w/ne.err")"
"$HETRACE" profile "$w/fib" --elf "$w/nothing" >/dev/null 2>"$w/nf.err"
[ $? = 1 ] || bad "no ELF: exit status"
grep -q "nothing: cannot open" "$w/nf.err" || bad "no ELF: $(cat "$w/nf.err")"
"$HETRACE" profile "$w/fib" --sort size >/dev/null 2>&1
[ $? = 2 ] || bad "bad --sort: exit status"
"$HETRACE" profile --help | grep -q 'callgraph' || bad "--help"
"$HETRACE" profile "$w/fib" --core nosuchcore >/dev/null 2>"$w/nc.err"
[ $? = 1 ] || bad "unknown core: exit status"
# A truncated stream: a message naming the file, the rest is used.
head -c 5000 "$w/fib/main" >"$w/trunc"
mkdir -p "$w/tr"
cp "$w/g/metadata" "$w/tr/"
mv "$w/trunc" "$w/tr/main"
"$HETRACE" profile "$w/tr" --elf "$w/drv" >"$w/tr.prof" 2>"$w/tr.err"
[ $? = 1 ] || bad "truncated: exit status"
grep -q "tr/main" "$w/tr.err" || bad "truncated: message: $(cat "$w/tr.err")"
grep -q ' fib  drv.c' "$w/tr.prof" || bad "truncated: the first packets were not used"
set -e

# 8. Not a PIE: names without a bias.
build_drv "$w/drv-nopie" -no-pie -fno-pie
mkdir -p "$w/np"
cp "$w/g/metadata" "$w/np/"
"$w/drv-nopie" fib "$w/np/main" 12 >/dev/null
"$HETRACE" profile "$w/np" --elf "$w/drv-nopie" >"$w/np.prof" 2>"$w/np.err" || bad "no-pie: profile failed"
[ "$(col fib 1 "$w/np.prof")" = 465 ] || bad "no-pie: fib calls $(col fib 1 "$w/np.prof")"
[ -s "$w/np.err" ] && bad "no-pie: $(cat "$w/np.err")"

# 9. The example: exclude lists (swap() by name, util.c by file).
"$TOP/examples/instrument/build.sh" "$w/ex" "$HETRACE" >/dev/null
"$w/ex/demo" "$w/ex/trace/main" 15 >/dev/null
"$HETRACE" profile "$w/ex/trace" --elf "$w/ex/demo" -n 0 >"$w/ex.prof" 2>&1 || bad "example: profile failed"
[ "$(col fib 1 "$w/ex.prof")" = 1973 ] || bad "example: fib calls"
grep -q ' quicksort  demo.c' "$w/ex.prof" || bad "example: quicksort not traced"
grep -qE ' (swap|util_rand|util_checksum)( |$)' "$w/ex.prof" && bad "example: an excluded function was traced"
babeltrace2 "$w/ex/trace" >/dev/null || bad "example: babeltrace2"

# 10. 32-bit addresses (hetrace-addr32.yaml): 12 bytes per entry, 8 per
# exit; the generated code and the runtime build for Cortex-M3.
sed 's/hetrace-addr64.yaml/hetrace-addr32.yaml/' "$TOP/examples/instrument/config.yaml" |
	grep -v -e 'event-record-common-context-field-type' -e '- tid: uint32' \
		-e '^          class: structure$' -e '^          members:$' >"$w/c32.yaml"
"$HETRACE" gen "$w/c32.yaml" -o "$w/g32" >/dev/null || bad "addr32: gen failed"
grep -q 's->at + 4 + 8u <= s->end' "$w/g32/hti-trace.h" || bad "addr32: func_entry is not 12 bytes"
grep -q 's->at + 4 + 4u <= s->end' "$w/g32/hti-trace.h" || bad "addr32: func_exit is not 8 bytes"
for src in "$w/g32/hti-trace.c" "$TOP/runtime/instrument.c"; do
	arm-none-eabi-gcc -std=c99 -pedantic -Wall -Wextra -Werror -O2 -ffreestanding \
		-mcpu=cortex-m3 -mthumb -I"$TOP/include" -I"$w/g32" -c "$src" -o "$w/m3.o" ||
		bad "addr32: $(basename "$src") does not build for Cortex-M3"
done

exit $fail
