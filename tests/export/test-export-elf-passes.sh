#!/usr/bin/env bash
# hetrace export --elf reads the trace once when every stream's load
# bias is known before its first function record (its one func_base
# comes first), twice otherwise. Either way each call gets the name the
# whole trace gives it: traces made here (ctfgen.py) of a PIE's
# functions at a load base, with func_base first, after a call, twice
# (the last one holds), missing (the bias found from the addresses),
# filtered out by --event or before --begin; and a stream with neither
# func_base nor `addr` (the states model names `fn`): raw addresses, no
# note.
set -u
cd "$(dirname "$0")"
. ../lib.sh
: "${TOP:?}"

cc -O0 -fPIE -pie -o "$w/prog" -x c - <<'C' || exit 1
int f0(int n) { return n + 1; }
int f1(int n) { return f0(n) * 2; }
int f2(int n) { return f1(n) - 3; }
int f3(int n) { return f2(n) ^ 5; }
int main(void) { return f3(1) == 0; }
C
nm --defined-only "$w/prog" | awk '$3 ~ /^f[0-3]$/ { print $3, $1 }' >"$w/syms"
[ "$(wc -l <"$w/syms")" = 4 ] || bad "nm: $(cat "$w/syms")"

python3 - "$w" "$TOP/tests/ctf/print/corpus" <<'PY' || bad "trace generator failed"
import sys
sys.path.insert(0, sys.argv[2])
from ctfgen import Trace, Struct, Int
w = sys.argv[1]
syms = dict(l.split() for l in open(w + "/syms"))
link = [int(syms["f%d" % i], 16) for i in range(4)]
BASE = 0x7f5500000000
A64 = Int(64, base=16)

def trace(name, records, addr_field="addr"):
    """records: ('base', value) | ('call', function index)"""
    t = Trace(env={"domain": "test", "core_name": "cpu"})
    eb = t.event("func_base", Struct([("base", A64)]))
    ee = t.event("func_entry", Struct([(addr_field, A64), ("call_site", A64)]))
    ex = t.event("func_exit", Struct([(addr_field, A64)]))
    ev, ts = [], 1000
    for kind, v in records:
        if kind == "base":
            ev.append((eb, ts, {"base": v}))
        else:
            a = BASE + link[v]
            ev.append((ee, ts, {addr_field: a, "call_site": 0}))
            ev.append((ex, ts + 5, {addr_field: a}))
        ts += 10
    t.write(w + "/" + name, {"stream0": [t.packet(ev, 0, ts, 0)]})

calls = [("call", i % 4) for i in range(40)]
trace("first", [("base", BASE)] + calls)
trace("late", calls[:3] + [("base", BASE)] + calls[3:])
trace("twice", [("base", BASE + 0x1000)] + calls[:5] + [("base", BASE)] + calls[5:])
trace("none", calls)
trace("noaddr", calls, addr_field="fn")
PY

# names TRACE [EXPORT OPTIONS]: the function slices' names of the JSON
names() {
	local t=$1
	shift
	timeout 20 "$HETRACE" export -f chrome-json --elf "$w/prog" "$@" "$w/$t" \
		-o "$w/$t.json" 2>"$w/$t.err" || bad "$t: export failed: $(cat "$w/$t.err")"
	python3 - "$w/$t.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(e["name"] for e in d["traceEvents"]
               if e.get("cat") == "function" and e["ph"] in "XB"))
PY
}
want=$(for i in $(seq 0 39); do printf 'f%d ' $((i % 4)); done | sed 's/ $//')
for t in first late twice none; do
	got=$(names $t)
	[ "$got" = "$want" ] || bad "$t: names $got, want $want"
	grep -q 'not functions' "$w/$t.err" && bad "$t: a warning: $(cat "$w/$t.err")"
done
grep -q 'no func_base record; load bias' "$w/none.err" || bad "none: no note on the guessed bias: $(cat "$w/none.err")"
grep -q 'load bias' "$w/first.err" && bad "first: a bias note: $(cat "$w/first.err")"
# func_base left out by --event: the bias is found from the addresses
got=$(names first --event 'func_e*')
[ "$got" = "$want" ] || bad "--event func_e*: names $got, want $want"
grep -q 'no func_base record; load bias' "$w/first.err" ||
	bad "--event func_e*: no note on the guessed bias: $(cat "$w/first.err")"
# --begin: the names' scan or first pass, then the export from the
# range's beginning, not the trace's (calls 19.. begin at 1200 ns)
want=$(for i in $(seq 19 39); do printf 'f%d ' $((i % 4)); done | sed 's/ $//')
for t in first late; do
	got=$(names $t --begin +1200ns)
	[ "$got" = "$want" ] || bad "$t --begin: names $got, want $want"
done
# `fn` instead of `addr` and no func_base: nothing to find the bias
# from (0), raw addresses, no note
got=$(names noaddr)
case $got in *f[0-3]*) bad "noaddr: a name: $got" ;; esac
[ "$(echo "$got" | wc -w)" = 40 ] || bad "noaddr: $(echo "$got" | wc -w) slices"
grep -q 'load bias\|not functions' "$w/noaddr.err" && bad "noaddr: $(cat "$w/noaddr.err")"
# another program's ELF on a one-pass trace: the warning, after the pass
cc -O0 -o "$w/other" -x c - <<'C' || exit 1
int g(int n) { return n; }
int main(void) { return g(0); }
C
timeout 20 "$HETRACE" export -q --elf "$w/other" "$w/first" -o "$w/o.pftrace" 2>"$w/o.err" ||
	bad "mismatched ELF: export failed"
grep -q 'warning: core cpu: [0-9] of 4 function addresses are not functions of .*other' "$w/o.err" ||
	bad "mismatched ELF: no warning: $(cat "$w/o.err")"
exit $fail
