#!/usr/bin/env bash
# hetrace paths: the interference split by task state (docs/paths.md,
# "Interference") on a trace built here with the board driver: the
# task of activity `filter` is preempted by a higher-priority task and
# interrupted; the task of `render` is blocked on a message (task_block
# .. task_wake) while another task runs, then ready (woken, waiting for
# the core). The time blocked goes to the message, not to the task that
# ran meanwhile. Cores come in display order (master, then slaves by
# id) although the trace shows the slaves first and the master last.
set -u
cd "$(dirname "$0")"
. ../../lib.sh
. ../../export/lib.sh

board_build "$w" || exit 1
cat >"$w/p.yaml" <<'YAML'
paths:
  p:
    trigger: path_begin
    activities:
      filter:
      render: {after: filter}
      show: {after: render}
YAML
# CORE TIME EVENT: core 0 cpu0 (master), 1 dsp1, 2 dsp2 (slaves)
board_trace "$w" t <<'SCRIPT' || exit 1
2 1000000 task_switch 0 idle 1 worker 1
2 1000000 path_begin p 0
2 1000000 activity_begin p filter 0
2 2000000 task_switch 1 worker 2 hiprio 9
2 5000000 task_switch 2 hiprio 1 worker 1
2 5500000 isr_enter 3
2 5600000 isr_exit 3
2 6000000 activity_end p filter 0
1 1500000 task_switch 0 idle 3 render 1
1 1600000 task_block 2a 0
1 1700000 task_switch 3 render 4 logger 1
1 6500000 task_wake 3 2a
1 7000000 task_switch 4 logger 3 render 1
1 7000000 activity_begin p render 0
1 9000000 activity_end p render 0
0 9500000 task_switch 0 idle 5 main 1
0 10000000 activity_begin p show 0
0 11000000 activity_end p show 0
SCRIPT

# text: filter's window is [1, 6] ms on dsp2 (hiprio 2-5 ms, irq 3
# 5.5-5.6 ms); render's is [6, 9] ms on dsp1: blocked 6-6.5 ms (logger
# runs, not charged), ready 6.5-7 ms (logger charged), runs 7-9 ms
bounded 20 400 "$HETRACE" paths --paths "$w/p.yaml" "$w/t" >"$w/out" 2>"$w/err"
rc=$?
[ "$rc" = 0 ] || bad "exit status $rc: $(head -3 "$w/err")"
grep -qx '18 events, 7 path events; cores: cpu0, dsp1, dsp2' "$w/out" ||
	bad "cores not in display order: $(head -1 "$w/out")"
sed -n '/worst instances:/,$p' "$w/out" >"$w/worst"
cat >"$w/want" <<'TXT'
  worst instances:
  p 0: response 10.000 ms
    hiprio preempted dsp2 for 3.000 ms (during filter)
    logger preempted dsp1 for 500.000 us (during render)
    irq 3 interrupted dsp2 for 100.000 us (during filter)
    render blocked on 0x2a (msg) on dsp1 for 500.000 us (during render)
TXT
diff -u "$w/want" "$w/worst" || bad "worst instance text differs"

# JSON: the same, with the kinds, the object, the runs' core indexes
# in the display order of "cores"
bounded 20 400 "$HETRACE" paths --paths "$w/p.yaml" --json "$w/t" >"$w/p.json" 2>"$w/err" ||
	bad "json: exit status $?"
python3 - "$w/p.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
errs = []
def eq(what, got, want):
    if got != want:
        errs.append(f"{what}: got {got!r}, want {want!r}")
eq("cores", r["cores"], ["cpu0", "dsp1", "dsp2"])
p = r["paths"][0]
i0 = p["instances"][0]
eq("runs", i0["runs"], [[2, 1000000, 1000000, 6000000], [1, 6000000, 7000000, 9000000],
                        [0, 9000000, 10000000, 11000000]])
w = p["worst"][0]
eq("blame", [(b["who"], b["kind"], b["isr"], b["ns"], b["cores"], b["during"]) for b in w["blame"]],
   [("hiprio", "preempted", False, 3000000, {"dsp2": 3000000}, ["filter"]),
    ("logger", "preempted", False, 500000, {"dsp1": 500000}, ["render"]),
    ("irq 3", "interrupted", True, 100000, {"dsp2": 100000}, ["filter"])])
eq("blocked", w["blocked"], [{"task": "render", "object": 0x2a, "object_kind": "msg", "ns": 500000,
                              "cores": {"dsp1": 500000}, "during": ["render"]}])
eq("states_dropped", w["states_dropped"], False)
for e in errs:
    print("FAIL: json:", e)
sys.exit(1 if errs else 0)
PY
exit $fail
