#!/usr/bin/env bash
# Traces whose clocks cannot be compared (a capture: one trace per
# core, each on its own clock) are not merged: `print` refuses them as
# babeltrace2 2.0.4 does (exit 1, the message naming both traces and
# their clocks), and prints them with --unrelated-clocks, after a
# warning, each line naming its trace. Clocks that can be compared
# (all absolute, or one uuid) are merged as babeltrace2 merges them.
# Clocks without uuid nor absolute origin are refused though
# babeltrace2 2.0 merges them (later versions refuse them too).
set -u
. "$TOP/tests/lib.sh"

# gen DIR ABSOLUTE:UUID...: one trace per spec, DIR/coreN, clock clkN
gen() {
	python3 - "$@" "$TOP/tests/ctf/print/corpus" <<'PY'
import sys
sys.path.insert(0, sys.argv[-1])
from ctfgen import Trace, Struct, Int
out = sys.argv[1]
for i, spec in enumerate(sys.argv[2:-1]):
    ab, u = spec.split(':')
    clock = {'name': 'clk%d' % i, 'absolute': ab, 'offset_s': 1000 * i}
    if u != 'none':
        clock['uuid'] = '"%s"' % u
    t = Trace(clock=clock)
    ok = t.event('ok', Struct([('x', Int(32))]))
    p = t.packet([(ok, 10 + 10 * k + i, {'x': 10 * i + k})
                  for k in range(5)], 5, 90, 0)
    t.write('%s/core%d' % (out, i), {'s0': [p]})
PY
}
U1=11111111-2222-3333-4444-555555555555
U2=11111111-2222-3333-4444-666666666666

# NAME | specs | merged (babeltrace2 2.0.4 too) | hetrace's description of core1's clock
cases=(
	"absolute|true:none true:none|yes|"
	"one-uuid|false:$U1 false:$U1|yes|"
	"uuids|false:$U1 false:$U2 false:$U2|no|clock 'clk1' (uuid $U2)"
	"mixed|true:none false:none|no|clock 'clk1' (no uuid)"
	"uuid-none|false:$U1 false:none|no|clock 'clk1' (no uuid)"
	"none|false:none false:none|bt2.0|clock 'clk1' (no uuid)"
)
for c in "${cases[@]}"; do
	IFS='|' read -r name specs merged clk1 <<<"$c"
	# shellcheck disable=SC2086
	gen "$w/$name" $specs
	n=$(($(wc -w <<<"$specs") * 5))
	timeout 20 babeltrace2 "$w/$name" >"$w/bt.out" 2>"$w/bt.err"
	btrc=$?
	if [ "$merged" = yes ]; then
		[ "$btrc" = 0 ] || bad "$name: babeltrace2 exit $btrc"
		expect_exit "$name print" 0 timeout 20 "$HETRACE" print "$w/$name"
		cmp -s "$w/out" "$w/bt.out" || bad "$name: differs from babeltrace2"
		[ "$(wc -l <"$w/out")" = "$n" ] || bad "$name: $(wc -l <"$w/out") lines"
		continue
	fi
	if [ "$merged" = no ]; then
		[ "$btrc" = 1 ] && grep -q "Expecting a.* clock class" "$w/bt.err" ||
			bad "$name: babeltrace2 exit $btrc: $(grep -m1 muxer "$w/bt.err")"
	fi
	expect_exit "$name print" 1 timeout 20 "$HETRACE" print "$w/$name"
	expect_err "$name print" "^hetrace print: cannot merge the events of $w/$name/core0, clock 'clk0' (.*), with those of $w/$name/core1, $clk1: the clocks are unrelated"
	expect_err "$name print" "--unrelated-clocks prints them"
	[ -s "$w/out" ] && bad "$name print: printed $(wc -l <"$w/out") lines"
	expect_exit "$name print --unrelated-clocks" 0 timeout 20 "$HETRACE" print --unrelated-clocks "$w/$name"
	expect_err "$name --unrelated-clocks" "^hetrace print: warning: cannot merge the events of $w/$name/core0"
	[ "$(grep -cE '^\[[0-9:.]*\] \([-+0-9.?]*\) <core[0-9]> ok: \{ x = [0-9]* \}$' "$w/out")" = "$n" ] ||
		bad "$name --unrelated-clocks: $(head -3 "$w/out")"
done
exit $fail
