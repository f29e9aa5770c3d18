#!/usr/bin/env bash
# hetrace paths on synthetic traces with known times (tests/analysis/paths/*.trace,
# written by mktrace.c through `hetrace gen` code and read back by
# babeltrace2 first): waiting and execution times with AND and OR joins,
# deadlines against the expected firing time, the interference on the
# worst instance, unmatched events; bad path files and their messages.
set -eu
cd "$(dirname "$0")"
. ../../lib.sh

"$HETRACE" gen trace.yaml -o "$w/g" >/dev/null
cc -std=c99 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O1 -g \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-I"$w/g" -I"$TOP" -o "$w/mktrace" mktrace.c "$w/g/barectf.c"

mk() { # NAME: trace NAME.trace into $w/NAME
	mkdir -p "$w/$1"
	cp "$w/g/metadata" "$w/$1/"
	"$w/mktrace" "$w/$1" <"$1.trace"
}

# 1. The trace holds what the script says (babeltrace2 reads it).
mk pipeline
babeltrace2 --clock-cycles "$w/pipeline" >"$w/bt.txt"
want=$(grep -cv '^\(#\|$\)' pipeline.trace)
[ "$(wc -l <"$w/bt.txt")" = "$want" ] || bad "babeltrace2: $(wc -l <"$w/bt.txt") events, want $want"
grep -q '^\[00000000000160000000\] .*activity_end: { core_id = 1, cpu_id = 1 }, { path = "frame", activity = "sobel_1", instance = 1 }$' "$w/bt.txt" ||
	bad "babeltrace2: sobel_1 end of frame 1 at 160 ms not found"
grep -q 'task_switch: .*{ prev_tid = 2, prev_name = "sobel", next_tid = 4, next_name = "hp_task", next_prio = 50 }' "$w/bt.txt" ||
	bad "babeltrace2: the hp_task switch not found"

# 2. JSON: every number, exact.
"$HETRACE" paths --paths pipeline.yaml --json "$w/pipeline" >"$w/p.json"
python3 - "$w/p.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
ms = 1000000
errs = []
def eq(what, got, want):
    if got != want:
        errs.append(f"{what}: got {got!r}, want {want!r}")
p = r["paths"][0]
eq("cores", r["cores"], ["cpu0", "dsp1", "dsp2"])
eq("counts", (p["instances_count"], p["met"], p["missed"], p["incomplete"]), (3, 2, 1, 0))
ins = p["instances"]
eq("numbers", [i["n"] for i in ins], [0, 1, 2])
eq("responses", [i["response"] for i in ins], [40 * ms, 70 * ms, 35 * ms])
eq("deadlines", [i["deadline"] for i in ins], ["met", "missed", "met"])
eq("lateness", [i["lateness"] for i in ins], [-20 * ms, 10 * ms, -20 * ms])
eq("firing", [i["firing"] for i in ins], [10 * ms, 110 * ms, 210 * ms])
eq("response stat", (p["response"]["min"], p["response"]["max"], p["response"]["p99"]), (35 * ms, 70 * ms, 70 * ms))
acts = {a["name"]: a for a in p["activities"]}
# waiting times per instance (ms): sobel_1 2,1,0; sobel_2 5,2,1;
# gather (AND: the last predecessor) 5,5,4; skip (ran once) 56;
# show (OR: the first) 0,2,0
waits = {"alloc": [0, 0, 0], "sobel_1": [2, 1, 0], "sobel_2": [5, 2, 1],
         "gather": [5, 5, 4], "skip": [56], "show": [0, 2, 0]}
execs = {"alloc": [10, 5, 5], "sobel_1": [8, 44, 6], "sobel_2": [10, 33, 3],
         "gather": [5, 5, 10], "skip": [1], "show": [5, 8, 10]}
for name, v in waits.items():
    s = acts[name]["wait"]
    eq(name + " wait", (s["count"], s["min"], s["max"], s["mean"]),
       (len(v), min(v) * ms, max(v) * ms, round(sum(v) * ms / len(v), 1)))
for name, v in execs.items():
    s = acts[name]["exec"]
    eq(name + " exec", (s["count"], s["min"], s["max"], s["p99"]),
       (len(v), min(v) * ms, max(v) * ms, max(v) * ms))
eq("skip not run", acts["skip"]["not_run"], 2)
eq("joins", [acts[n]["join"] for n in ("gather", "show")], ["and", "or"])
# run of sobel_1 in frame 1: core dsp1, ready 115, begin 116, end 160
eq("frame 1 sobel_1", ins[1]["runs"][1], [1, 115 * ms, 116 * ms, 160 * ms])
eq("frame 1 skip", ins[1]["runs"][4], [0, 115 * ms, 171 * ms, 172 * ms])
wst = p["worst"][0]
eq("worst", wst["instance"], 1)
b = {x["who"]: x for x in wst["blame"]}
eq("blame who", sorted(b), ["hp_task", "irq 7"])
eq("hp_task", (b["hp_task"]["ns"], b["hp_task"]["cores"], b["hp_task"]["during"], b["hp_task"]["isr"]),
   (52 * ms, {"dsp1": 30 * ms, "dsp2": 22 * ms}, ["sobel_1", "sobel_2"], False))
eq("irq 7", (b["irq 7"]["ns"], b["irq 7"]["cores"], b["irq 7"]["isr"]), (1 * ms, {"dsp1": 1 * ms}, True))
eq("other worst", [x["blame"] for x in p["worst"][1:]], [[], []])
for e in errs:
    print("FAIL: json:", e)
sys.exit(1 if errs else 0)
PY

# 3. The text says it in one line.
"$HETRACE" paths --paths pipeline.yaml "$w/pipeline" >"$w/p.txt"
grep -qx '    hp_task preempted dsp1 for 30.000 ms and dsp2 for 22.000 ms (during sobel_1, sobel_2)' "$w/p.txt" ||
	bad "text: no hp_task line"
grep -qx '  frame 1: response 70.000 ms, deadline missed by 10.000 ms' "$w/p.txt" || bad "text: frame 1"
grep -q '^  1 .* MISSED by 10.000 ms$' "$w/p.txt" || bad "text: instance 1 not listed as missed"
grep -q '^  gather  *and  *3  *4.000 ms  *4.667 ms  *5.000 ms  *5.000 ms  *5.000 ms  *6.667 ms  *10.000 ms  *10.000 ms$' "$w/p.txt" ||
	bad "text: gather row: $(grep '^  gather' "$w/p.txt")"

# 4. Unmatched events: counted, noted with their position, no negative
# duration; no task_switch: the interference is said to be unknown.
mk unmatched
"$HETRACE" paths --paths pipeline.yaml --all "$w/unmatched" >"$w/u.txt" || bad "unmatched: exit $?"
"$HETRACE" paths --paths pipeline.yaml --json "$w/unmatched" >"$w/u.json"
python3 - "$w/u.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
errs = []
def eq(what, got, want):
    if got != want:
        errs.append(f"{what}: got {got!r}, want {want!r}")
a = r["anomalies"]
# begins: sobel_2 twice in 0 (1), gather of 0 never ends (1)
eq("anomalies", a, {"unmatched_begin": 2, "unmatched_end": 1, "repeated_trigger": 1,
                    "unknown_path": 2, "unknown_activity": 2, "read_errors": 0})
p = r["paths"][0]
i0, i1 = p["instances"]
eq("instance 0", (i0["complete"], i0["deadline"]), (False, "unknown"))
eq("instance 1", (i1["complete"], i1["response"], i1["trigger"]), (True, 8000, 10000))
acts = {x["name"]: x for x in p["activities"]}
eq("sobel_1 early", acts["sobel_1"]["early"], 1)
eq("sobel_1 waits", acts["sobel_1"]["wait"]["count"], 0)
eq("sobel_2 exec (the second begin)", acts["sobel_2"]["exec"]["min"], 1000)
for x in p["activities"]:
    for k in ("wait", "exec"):
        if x[k]["count"] and x[k]["min"] < 0:
            errs.append(f"{x['name']} {k}: negative")
eq("no states", r["has_states"], False)
notes = "\n".join(r["notes"])
for n in ("offset=", "activity_end of frame/sobel_1 instance 0 without its begin",
          "activity_begin of frame/sobel_2 instance 0 while it is running",
          "`path_begin` of path `frame` instance 1 again", "activity `sobel_9` is not in path `frame`",
          "path `audio` is not in pipeline.yaml"):
    if n not in notes:
        errs.append("note missing: " + n)
for e in errs:
    print("FAIL: unmatched json:", e)
sys.exit(1 if errs else 0)
PY
grep -q 'no task_switch or isr events: the interference is not known' "$w/u.txt" || bad "unmatched: states not said unknown"
grep -q '^anomalies: 2 unmatched begins, 1 unmatched ends, 1 repeated triggers' "$w/u.txt" || bad "unmatched: anomalies line"

# 5. Bad path files: every problem, file:line:col, exit 1.
for f in bad/*.yaml; do
	set +e
	"$HETRACE" paths --check --paths "$f" >/dev/null 2>"$w/err"
	rc=$?
	"$HETRACE" paths --paths "$f" "$w/pipeline" >/dev/null 2>/dev/null
	rc2=$?
	set -e
	[ "$rc" = 1 ] && [ "$rc2" = 1 ] || bad "$f: exit $rc/$rc2, want 1"
	diff -u "${f%.yaml}.expect" "$w/err" || bad "$f: messages differ"
done
"$HETRACE" paths --check --paths pipeline.yaml || bad "pipeline.yaml: rejected"

# 6. Usage and bad traces.
set +e
"$HETRACE" paths "$w/pipeline" >/dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || bad "no --paths: exit $rc, want 2"
"$HETRACE" paths --help | grep -q '^usage: ' || bad "--help"
"$HETRACE" paths --paths pipeline.yaml "$w/nothing" >/dev/null 2>"$w/err"; rc=$?
[ "$rc" = 1 ] && grep -q "nothing" "$w/err" || bad "missing trace: exit $rc: $(cat "$w/err")"
"$HETRACE" paths --paths "$w/none.yaml" "$w/pipeline" >/dev/null 2>"$w/err"; rc=$?
[ "$rc" = 1 ] && grep -q "none.yaml: cannot open" "$w/err" || bad "missing path file: exit $rc: $(cat "$w/err")"
set -e
exit $fail
