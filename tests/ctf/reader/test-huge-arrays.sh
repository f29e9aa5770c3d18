#!/usr/bin/env bash
# Arrays and sequences longer than their packet can hold (elements of
# zero bits: empty structures, variants with an empty option, nested
# so that their counts multiply): `print` and `info` fail on that
# packet in bounded time and memory, the message naming the file, the
# offset and the limit (one element of zero bits, and one field of a
# record, per bit of the packet content, plus 65536), and the other
# stream's events and the damaged stream's events before it are still
# read (after it too with --keep-going). Arrays of empty structures
# that fit are printed as babeltrace2 prints them.
set -u
. "$TOP/tests/lib.sh"

# gen KIND DIR: stream s0 holds ok(x=1), the bad record, ok(x=2) in
# packet 0 and ok(x=3) in packet 1; stream s1 holds ok(x=100..102)
gen() {
	python3 - "$1" "$2" "$TOP/tests/ctf/print/corpus" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
from ctfgen import Trace, Struct, Int, Array, Seq, Variant, Enum
kind, out = sys.argv[1], sys.argv[2]
E = Struct([])
t = Trace()
ok = t.event('ok', Struct([('x', Int(32))]))
if kind == 'static':  # the 2^28 elements of the issue
    big = t.event('big', Struct([('big', Array(Array(E, 16384), 16384))]))
    val = {'big': []}
elif kind == 'seq':  # 2^40 elements of zero bits
    big = t.event('big', Struct([('n', Int(64)), ('big', Seq(E, 'n'))]))
    val = {'n': 1 << 40, 'big': []}
elif kind == 'nested':  # 60000 x 60000, each under the per-array limit
    big = t.event('big', Struct([('n', Int(32)),
                                 ('big', Seq(Seq(E, 'n'), 'n'))]))
    val = {'n': 60000, 'big': []}
elif kind == 'variant':  # walked one by one: variants of empty options
    tag = Enum(Int(8), [('A', 0, None), ('B', 1, None)])
    v = Variant('tag', [('A', E), ('B', Int(8))])
    big = t.event('big', Struct([('tag', tag), ('n', Int(32)),
                                 ('big', Seq(Seq(v, 'n'), 'n'))]))
    val = {'tag': 0, 'n': 50000, 'big': []}
elif kind == 'fits':  # what babeltrace2 prints too
    big = t.event('big', Struct([('n', Int(8)), ('e', Seq(E, 'n')),
                                 ('a', Array(Array(E, 3), 2))]))
    val = {'n': 5, 'e': [{}] * 5, 'a': [[{}] * 3] * 2}
p0 = t.packet([(ok, 10, {'x': 1}), (big, 20, val), (ok, 30, {'x': 2})],
              5, 40, 0)
p1 = t.packet([(ok, 50, {'x': 3})], 45, 60, 1)
q = t.packet([(ok, 15 + i, {'x': 100 + i}) for i in range(3)], 5, 70, 0)
t.write(out, {'s0': [p0, p1], 's1': [q]})
PY
}

# run WHAT CMD...: within 20 s
run() {
	local what=$1
	shift
	expect_exit "$what" 1 timeout 20 "$@"
}

# limited WHAT CMD...: exit 1 within 1 GiB and 20 s (tests/lib.sh:
# bounded; the optimized build, under an address-space limit)
H=${HETRACE_OPT:-$HETRACE}
limited() {
	local what=$1
	shift
	expect_exit "$what (1 GiB)" 1 bounded 20 1024 "$@"
}

for kind in static seq nested variant; do
	gen $kind "$w/$kind"
	case $kind in
	static) msg="array '(element)' of 16384 elements: the packet has room for [0-9]* more elements of zero bits (one per bit of its content, plus 65536)" ;;
	seq) msg="sequence 'big' of 1099511627776 elements does not fit in the packet content" ;;
	*) msg="sequence '(element)' of [0-9]* elements: the packet has room for [0-9]* more elements of zero bits" ;;
	esac
	for k in "" -k; do
		limited "$kind print $k" "$H" print $k "$w/$kind"
		expect_err "$kind print $k (1 GiB)" "cannot decode packet: file=$w/$kind/s0 offset=[0-9]*: $msg"
		run "$kind print $k" "$HETRACE" print $k "$w/$kind"
		expect_err "$kind print $k" "cannot decode packet: file=$w/$kind/s0 offset=[0-9]*: $msg"
		want="x = 1 x = 100 x = 101 x = 102"
		[ -z "$k" ] || want="x = 1 x = 3 x = 100 x = 101 x = 102"
		got=$(grep -o 'x = [0-9]*' "$w/out" | sort -k3n | tr '\n' ' ')
		[ "$got" = "$want " ] || bad "$kind print $k: events $got, expected $want"
		limited "$kind info $k" "$H" info $k "$w/$kind"
		run "$kind info $k" "$HETRACE" info $k "$w/$kind"
		expect_err "$kind info $k" "file=$w/$kind/s0 offset=[0-9]*: $msg"
		grep -q "^total: 1 traces, 2 streams, $([ -z "$k" ] && echo 4 || echo 5) events" "$w/out" ||
			bad "$kind info $k: $(grep total "$w/out")"
	done
done

gen fits "$w/fits"
babeltrace2 "$w/fits" >"$w/bt.txt" 2>"$w/bt.err" || bad "babeltrace2 fits: $(cat "$w/bt.err")"
"$HETRACE" print "$w/fits" >"$w/ht.txt" || bad "print fits: exit $?"
cmp -s "$w/bt.txt" "$w/ht.txt" || bad "print fits differs: $(diff "$w/bt.txt" "$w/ht.txt" | head -4)"
grep -q 'e = \[ \[0\] = { }, \[1\] = { }' "$w/ht.txt" || bad "fits: $(grep big "$w/ht.txt")"
exit $fail
