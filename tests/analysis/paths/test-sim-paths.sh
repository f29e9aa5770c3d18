#!/usr/bin/env bash
# The simulated board end to end: hetrace sim (2 s, 8 slaves, every 10th
# frame preempted on dsp1 and dsp2), hetrace sync, then hetrace paths
# with platforms/sim/frame-paths.yaml: every frame found and complete,
# no activity starting before its predecessors, the preempted frames
# among the missed ones with the preemption named on dsp1 and dsp2.
set -eu
cd "$(dirname "$0")"
. ../../lib.sh

"$HETRACE" sim -o "$w/cap" -d 2 -q
"$HETRACE" sync "$w/cap" -o "$w/synced" >/dev/null
"$HETRACE" paths --paths ../../../platforms/sim/frame-paths.yaml -n 20 --json "$w/synced" >"$w/p.json"
"$HETRACE" paths --paths ../../../platforms/sim/frame-paths.yaml -n 20 "$w/synced" >"$w/p.txt"
python3 - "$w/p.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
p = r["paths"][0]
errs = []
n = p["instances_count"]
if not 50 <= n <= 70:
    errs.append(f"{n} frames in 2 s at 33 ms")
if p["incomplete"]:
    errs.append(f"{p['incomplete']} incomplete frames")
for a in p["activities"]:
    if a["early"]:
        errs.append(f"{a['name']}: {a['early']} began before their predecessors ended")
    if a["not_run"]:
        errs.append(f"{a['name']}: did not run {a['not_run']} times")
missed = {i["n"] for i in p["instances"] if i["deadline"] == "missed"}
pre = [f for f in range(9, n, 10)]
if not set(pre) <= missed:
    errs.append(f"preempted frames {pre} not all missed: {sorted(missed)}")
for w in p["worst"]:
    if w["instance"] in pre:
        hp = [b for b in w["blame"] if not b["isr"] and set(b["cores"]) == {"dsp1", "dsp2"}]
        if not hp or hp[0]["ns"] < 10000000:
            errs.append(f"frame {w['instance']}: no preemption of dsp1 and dsp2 named: {w['blame']}")
for e in errs:
    print("FAIL:", e)
sys.exit(1 if errs else 0)
PY
grep -Eq '^    hiprio preempted dsp1 for [0-9.]+ [mu]?s and dsp2 for ' "$w/p.txt" || { bad "no 'hiprio preempted dsp1 for .. and dsp2 for ..' line (per core)"; sed -n '/worst/,$p' "$w/p.txt"; }
exit $fail
