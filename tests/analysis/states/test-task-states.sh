#!/usr/bin/env bash
# hetrace states: task states from task_block / task_wake / task_switch
# (docs/views.md, "Task states") on a trace built here: preemption
# (ready, by whom), blocking on a message and on a semaphore, a wake
# inside an interrupt, a switch inside an interrupt, an interrupt on a
# running task; the totals worked out by hand below. Anomalies: a wake
# of a task that is not blocked, a block never woken (closed at the
# end), a block with no task running.
set -u
cd "$(dirname "$0")"
. ../../lib.sh
. ../../export/lib.sh

board_build "$w" || exit 1
python3 - >"$w/ts.script" <<'PY'
ev = [
    # dsp1: sobel (1), hiprio (2)
    (1000, "task_switch 0 idle 1 sobel 1"),
    (2000, "task_switch 1 sobel 2 hiprio 5"),   # sobel ready, by hiprio
    (2500, "task_block abc 0"),                 # hiprio waits on msg 0xabc
    (3000, "task_switch 2 hiprio 1 sobel 1"),   # hiprio blocked
    (3500, "isr_enter 5"),                      # sobel interrupted
    (3600, "task_wake 2 abc"),                  # hiprio ready
    (3650, "task_switch 1 sobel 2 hiprio 5"),   # at the isr's exit
    (3700, "isr_exit 5"),
    (4000, "task_wake 1 0"),                    # sobel is ready: anomaly
    (4200, "task_block 10 1"),                  # hiprio waits on sem 0x10
    (4300, "task_switch 2 hiprio 1 sobel 1"),   # ... never woken
    (5000, "task_switch 1 sobel 0 idle 0"),     # sobel ready till the end
    (5500, "task_block 99 3"),                  # idle runs: anomaly
    (6000, "sample 1 1 end"),
]
for t, e in ev:
    print(1, t, e)
PY
board_trace "$w" ts <"$w/ts.script" || exit 1
bounded 20 400 "$HETRACE" states --core dsp1 "$w/ts" >"$w/ts.out" 2>"$w/ts.err"
rc=$?
"$HETRACE" states --json --core dsp1 "$w/ts" >"$w/ts.json" 2>/dev/null || bad "states --json"
# task_ns FILE TID: its running, ready, blocked, interrupted, longest
# ready and longest blocked times in ns (states --json)
task_ns() {
	python3 - "$1" "$2" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["cores"]:
    for t in c["tasks"]:
        if t["kind"] == "task" and t["id"] == int(sys.argv[2]):
            print(t["run_ns"], t["ready_ns"], t["blocked_ns"],
                  t["interrupted_ns"], t["max_ready_ns"], t["max_blocked_ns"])
PY
}
[ "$rc" = 0 ] || bad "exit status $rc: $(head -3 "$w/ts.err")"
# sobel: running 1000-2000, 3000-3500, 4300-5000; interrupted 3500-3700;
# ready 2000-3000, 3700-4300, 5000-6000 (end of the trace)
[ "$(task_ns "$w/ts.json" 1)" = "2200 2600 0 200 1000 0" ] ||
	bad "sobel: $(task_ns "$w/ts.json" 1)"
grep -Eq '^  1 +sobel +2.200 us +2.600 us +0 ns +200 ns +1.000 us +0 ns$' "$w/ts.out" ||
	bad "sobel's text line: $(grep sobel "$w/ts.out")"
# hiprio: running 2000-3000, 3700-4300; blocked 3000-3600 (msg), 4300-
# 6000 (sem, never woken); ready 3600-3700 (woken, waiting for sobel's
# interrupt to return)
[ "$(task_ns "$w/ts.json" 2)" = "1600 100 2300 0 100 1700" ] ||
	bad "hiprio: $(task_ns "$w/ts.json" 2)"
grep -qF 'task state anomalies: wake of a task not blocked 1, block with no task running 1' "$w/ts.out" ||
	bad "anomaly counts: $(grep anomal "$w/ts.out")"
grep -qF 'core dsp1 at 4000 ns: task_wake of tid 1 which is ready, not blocked' "$w/ts.err" ||
	bad "wake without block not reported: $(cat "$w/ts.err")"
grep -qF 'core dsp1 at 5500 ns: task_block on object 0x99 while no task runs' "$w/ts.err" ||
	bad "block without a task not reported"

# many tasks blocked at once: memory stays small, each one counted
python3 - >"$w/many.script" <<'PY'
t = 1000
print(1, t, "task_switch 0 idle 1 t1 1")
for k in range(1, 200):
    t += 10
    print(1, t, "task_block %x 2" % k)
    t += 10
    print(1, t, "task_switch %d t%d %d t%d 1" % (k, k, k + 1, k + 1))
PY
board_trace "$w" many <"$w/many.script" || exit 1
bounded 20 400 "$HETRACE" states --json --core dsp1 "$w/many" >"$w/many.json" 2>"$w/many.err"
[ $? = 0 ] || bad "many: exit status: $(head -3 "$w/many.err")"
[ "$(task_ns "$w/many.json" 150)" = "20 0 980 0 0 980" ] || bad "many: t150: $(task_ns "$w/many.json" 150)"
exit $fail
