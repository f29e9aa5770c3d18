#!/usr/bin/env bash
# The exports of the simulated board (hetrace sim -> hetrace sync ->
# hetrace export): both files checked by check-export.py against what
# babeltrace2 reads from the synchronized trace; every message of the
# board is matched (hetrace states).
set -u
cd "$(dirname "$0")"
. ../lib.sh

"$HETRACE" sim -o "$w/cap" --cores 3 --seconds 1 >"$w/sim.log" 2>&1 || { cat "$w/sim.log"; exit 1; }
"$HETRACE" sync "$w/cap" -o "$w/synced" >"$w/sync.log" 2>&1 || { cat "$w/sync.log"; exit 1; }
"$HETRACE" export "$w/synced" -o "$w/s.pftrace" 2>"$w/p.err" || bad "perfetto export: $(cat "$w/p.err")"
"$HETRACE" export -f chrome-json "$w/synced" -o "$w/s.json" 2>"$w/j.err" || bad "json export: $(cat "$w/j.err")"
babeltrace2 --clock-cycles "$w/synced" >"$w/bt2.txt" || bad "babeltrace2"
python3 check-export.py "$w/s.pftrace" "$w/s.json" "$w/bt2.txt" || bad "check-export.py"
"$HETRACE" states "$w/synced" >"$w/states.out" 2>"$w/states.err" || bad "states: exit status"
sed -n 's/^messages: \([0-9]*\) sent, \([0-9]*\) received, \([0-9]*\) matched, .*/\1 \2 \3/p' "$w/states.out" |
	awk '{ exit !($1 > 0 && $1 == $2 && $2 == $3) }' || bad "states: $(grep messages "$w/states.out")"
grep -q '^core dsp0 .*' "$w/states.out" || bad "states: no dsp0"
exit $fail
