#!/usr/bin/env bash
# A 64-slave simulated board (docs/sim.md), 65 processes however few
# CPUs: recorded (check-capture.py: every core decoded, every answered
# sync round and message true to truth.json), its clocks (the first
# eight as on an 8-slave board, the others varied, within +-200 ppm),
# synchronized (hetrace sync: every slave synchronized; check-sim.py:
# the bounds hold the true times, as test-merge-sim.sh checks for 8
# slaves) and reported (hetrace report: the 65 cores in the page), each
# step under a time and memory bound.
set -u
cd "$(dirname "$0")"
. ../../lib.sh
top=$(cd ../../.. && pwd)

bounded 120 1024 "$HETRACE" sim -o "$w/cap" --cores 64 --seconds 2 --no-fsync >"$w/out" 2>"$w/err"
rc=$?
[ "$rc" = 0 ] || { echo "FAIL: sim --cores 64: exit $rc: $(head -5 "$w/err")"; exit 1; }
head -1 "$w/out"
grep -q "^hetrace sim: 65 cores" "$w/out" || bad "summary: $(head -1 "$w/out")"
[ -s "$w/err" ] && bad "sim: stderr: $(head -3 "$w/err")"
[ "$(grep -c '^dsp[0-9]* *slave ' "$w/out")" = 64 ] || bad "summary: not 64 slaves"
grep -Eq '^dsp63 +slave +[0-9]+ +[1-9]' "$w/out" || bad "summary: dsp63 traced nothing"
python3 ./check-capture.py "$w/cap" 64 || bad "capture check"

# The clocks: dsp0..dsp7 as with 8 slaves (the wrap, the 32.768 kHz
# counter, the step), the others different from each other, in range.
python3 - "$w/cap/truth.json" <<'PY' || bad "clocks in truth.json"
import json, sys
t = json.load(open(sys.argv[1]))
c = {x["name"]: x["clock"] for x in t["cores"]}
fixed = [(1000000000, 35200), (32768, -173500), (600000000, 12000),
         (200000000, 199000), (19200000, -88000), (100000000, -200000),
         (750000000, 57000), (48000000, -9500)]
errs = []
for k, (hz, ppb) in enumerate(fixed):
    got = (c[f"dsp{k}"]["freq_hz"], c[f"dsp{k}"]["drift_ppb"])
    if got != (hz, ppb):
        errs.append(f"dsp{k}: {got}, expected {(hz, ppb)}")
if len(c["dsp2"]["segments"]) != 2:
    errs.append("dsp2: no frequency step")
if c["dsp0"]["segments"][0]["ticks"] != (1 << 32) - 500000000:
    errs.append("dsp0: not the counter that wraps at 0.5 s")
more = [c[f"dsp{k}"] for k in range(8, 64)]
if any(abs(x["drift_ppb"]) > 200000 or len(x["segments"]) != 1 for x in more):
    errs.append("a slave after dsp7 drifts more than 200 ppm or steps")
if len({x["drift_ppb"] for x in more}) < 50 or len({x["freq_hz"] for x in more}) < 10:
    errs.append("the slaves after dsp7 have too few different clocks")
for e in errs:
    print("FAIL:", e)
sys.exit(1 if errs else 0)
PY

bounded 120 1024 "$HETRACE" sync "$w/cap" -o "$w/synced" --report "$w/sync.json" --max-pairs 0 >"$w/sync.out" 2>"$w/sync.err" ||
	bad "sync: exit $?: $(head -3 "$w/sync.err")"
n=$(grep -Ec '^dsp[0-9]+ +(accurate|approximate) ' "$w/sync.out")
[ "$n" = 64 ] || bad "$n of 64 slaves synchronized: $(cat "$w/sync.out")"
# The bounds: as test-merge-sim.sh, 10 us for MHz and GHz cores (the
# machine's load is unknown), one tick for the 32 kHz core.
/usr/bin/python3 "$top/tests/sync/check-sim.py" "$w/cap" "$w/synced" "$w/sync.json" 10000000 10000 >"$w/check.out" ||
	bad "accuracy against truth.json: $(grep FAIL "$w/check.out" | head -5)"
tail -1 "$w/check.out"

bounded 60 1024 "$HETRACE" report -o "$w/r.html" --sync "$w/sync.json" "$w/synced" >"$w/rep.out" 2>"$w/rep.err" ||
	bad "report: exit $?: $(head -3 "$w/rep.err")"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$top/tests/export/report" python3 - "$w/r.html" <<'PY' || bad "report: the cores"
import sys
import reportdata
d = reportdata.load(sys.argv[1])
got = sorted(c["name"] for c in d["cores"])
want = sorted(["arm0"] + [f"dsp{k}" for k in range(64)])
if got != want:
    print("FAIL: report cores:", got)
    sys.exit(1)
PY

[ $fail = 0 ] && echo "test-sim-64: ok"
exit $fail
