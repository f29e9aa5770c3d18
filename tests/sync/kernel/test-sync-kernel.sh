#!/usr/bin/env bash
# hetrace sync --master-lttng with the master's LTTng kernel trace: a
# simulated capture plus a kernel trace written by lttng-kernel.py on
# the master's clock (two CPUs, switches, an irq, a softirq, syscalls
# at known times) -> one core per CPU (arm0/cpu<N>, id 1000 + N, role
# kernel) whose events keep their names, fields and times
# (babeltrace2), exact per-CPU totals in hetrace states, CPU tracks in
# the Chrome JSON export; a losses count carried over; bad input: a
# kernel trace on another clock, a damaged kernel packet, a missing
# directory.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib.sh"
. "$here/../sync-lib.sh"
gen="/usr/bin/python3 $here/lttng-kernel.py"

"$HETRACE" sim -o "$w/cap" --cores 2 --seconds 0.5 --no-fsync -q
first=$(babeltrace2 --clock-cycles "$w/cap/arm0" | head -1 | sed 's/^\[0*\([0-9]*\)\].*/\1/')
t0=$((first + 100000000))
/usr/bin/python3 "$here/kernel-events.py" $t0 >"$w/ev.json"
$gen "$w/lt/kernel" "$w/ev.json" --clock-name ns --packet-events 3 --discard 1:5

run good 0 "$w/cap" --master-lttng "$w/lt" -o "$w/out"
has good out 'arm0/cpu\*: LTTng kernel trace'
# the merged kernel events: names, cores, fields and times (ns on the
# master's clock, the reference: unchanged)
babeltrace2 --clock-seconds "$w/out" >"$w/bt.txt" 2>"$w/bt.err" || bad "babeltrace2: $(head -3 "$w/bt.err")"
sec() { printf '%d.%09d' $(((t0 + $1) / 1000000000)) $(((t0 + $1) % 1000000000)); }
want() { grep -qF -- "$2" "$w/bt.txt" || bad "merged: no line with '$2' ($1)"; }
want switch "[$(sec 0)] (+"
grep -F "[$(sec 0)]" "$w/bt.txt" | grep -q 'sched_switch: { core_id = 1000, cpu_id = 0 }, { prev_comm = "swapper/0", prev_tid = 0, prev_prio = 20, prev_state = ( "TASK_RUNNING" : container = 0 ), next_comm = "master", next_tid = 42' ||
	bad "sched_switch at T0 on cpu0: $(grep -F "[$(sec 0)]" "$w/bt.txt")"
grep -F "[$(sec 10000)]" "$w/bt.txt" | grep -q 'prev_state = ( "TASK_INTERRUPTIBLE" : container = 1 )' || bad "prev_state at +10 us"
grep -F "[$(sec 12000)]" "$w/bt.txt" | grep -q 'syscall_entry_openat: { core_id = 1000, cpu_id = 0 }, { dfd = -100, filename = "/dev/mbox0", flags = 2, mode = 0 }' || bad "openat at +12 us"
grep -F "[$(sec 5000)]" "$w/bt.txt" | grep -q 'irq_handler_entry: { core_id = 1000, cpu_id = 0 }, { irq = 27, name = "arch_timer" }' || bad "irq at +5 us"
grep -F "[$(sec 3000)]" "$w/bt.txt" | grep -q 'softirq_entry: { core_id = 1001, cpu_id = 1 }, { vec = 1 }' || bad "softirq at +3 us"
grep -F "[$(sec 15000)]" "$w/bt.txt" | grep -q 'sched_wakeup: { core_id = 1001, cpu_id = 1 }, { comm = "master", tid = 42, prio = 20, target_cpu = 0 }' || bad "wakeup at +15 us"
n=$(grep -c 'core_id = 100[01]' "$w/bt.txt" || true)
[ "$n" = 17 ] || bad "$n kernel events in the merged trace, want 17"
grep -q 'discarded 5 events' "$w/bt.err" || bad "the 5 discarded kernel events: $(cat "$w/bt.err")"
grep -q '{ core_id = 1, cpu_id = 1 }' "$w/bt.txt" || bad "the slaves' events are gone"
for e in 'core_1000_name = "arm0/cpu0"' 'core_1000_role = "kernel"' 'core_1000_master = "arm0"' 'core_1001_name = "arm0/cpu1"'; do
	grep -qF "$e" "$w/out/metadata" || bad "env: no $e"
done
# hetrace print shows them too
"$HETRACE" print "$w/out" 2>/dev/null | grep -q 'syscall_exit_read: { core_id = 1000, cpu_id = 0 }, { ret = 64, buf = 0x7FFF0000 }' ||
	bad "hetrace print: no syscall_exit_read"

# the per-CPU totals: cpu0 master 0-10 us (irq 5-6 us), idle 10-20 us;
# cpu1 worker 2-8 us (softirq 3-4 us), idle 8-20 us
bounded 20 4000 "$HETRACE" states "$w/out" >"$w/states.out" 2>"$w/states.err" || bad "states: $(head -3 "$w/states.err")"
"$HETRACE" states --json "$w/out" >"$w/states.json" 2>/dev/null || bad "states --json"
/usr/bin/python3 - "$w/states.json" <<'PY' || bad "states: per-CPU totals, task states or core order"
import json, sys
d = json.load(open(sys.argv[1]))
cores = {c["name"]: c for c in d["cores"]}
order = [c["name"] for c in d["cores"]]
# the master, its CPUs, then the slaves
assert order[:3] == ["arm0", "arm0/cpu0", "arm0/cpu1"], order
assert all(n.startswith("dsp") for n in order[3:]), order
def split(n):
    c = cores[n]
    return (c["task_ns"], c["isr_ns"], c["idle_ns"], c["unknown_ns"])
assert split("arm0/cpu0") == (9000, 1000, 10000, 0), split("arm0/cpu0")
assert split("arm0/cpu1") == (5000, 1000, 12000, 0), split("arm0/cpu1")
tasks = {(t["kind"], t["name"]): t for t in cores["arm0/cpu0"]["tasks"]}
m = tasks[("task", "master")]
# master (tid 42) runs 0-10 us (irq 5-6 us), sleeps (prev_state
# TASK_INTERRUPTIBLE) 10-15 us, is woken from cpu1 at 15 us and stays
# ready to the end (20 us)
got = (m["run_ns"], m["interrupted_ns"], m["blocked_ns"], m["ready_ns"])
assert got == (9000, 1000, 5000, 5000), got
assert ("irq", "irq 27") in tasks, tasks.keys()
assert any(t["name"] == "softirq 1" for t in cores["arm0/cpu1"]["tasks"])
for n in ("arm0/cpu0", "arm0/cpu1"):
    a = cores[n]["anomalies"]
    assert not any(a.values()), (n, a)
PY

# the export: CPU tracks with their slices (syscalls by name)
bounded 20 4000 "$HETRACE" export -f chrome-json "$w/out" -o "$w/out.json" -q 2>"$w/export.err" || bad "export: $(head -3 "$w/export.err")"
/usr/bin/python3 - "$w/out.json" <<'PY' || bad "chrome json: no CPU tracks"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
names = {e.get("args", {}).get("name") for e in ev if e.get("ph") == "M"}
assert any(n and "arm0/cpu0" in n for n in names), names
assert any(n and "arm0/cpu1" in n for n in names), names
sl = {e.get("name") for e in ev if e.get("ph") in ("X", "B")}
for want in ("master", "worker", "read", "openat", "softirq 1", "irq 27"):
    assert want in sl, (want, sorted(x for x in sl if x)[:40])
PY

# Perfetto: the CPUs' tracks, in display order after the master
bounded 20 4000 "$HETRACE" export -f perfetto "$w/out" -o "$w/out.pftrace" -q 2>"$w/export.err" || bad "perfetto export: $(head -3 "$w/export.err")"
/usr/bin/python3 - "$here/../../export" "$w/out.pftrace" <<'PY' || bad "perfetto: CPU tracks or their order"
import sys
sys.path.insert(0, sys.argv[1])
import importlib
ce = importlib.import_module("check-export")
trace = ce.decode("Trace", open(sys.argv[2], "rb").read())
tracks = {p["track_descriptor"]["uuid"]: p["track_descriptor"]
          for p in trace["packet"] if "track_descriptor" in p}
order = ce.perfetto_core_order(tracks)
cpus = [n for n in order if "arm0/cpu" in n]
assert cpus == ["arm0/cpu0", "arm0/cpu1"], order
assert order.index("arm0/cpu0") < min(i for i, n in enumerate(order) if n.startswith("dsp")), order
PY

# another clock: refused, the clock named
$gen "$w/lt2/kernel" "$w/ev.json"
run otherclock 1 "$w/cap" --master-lttng "$w/lt2" -o "$w/out2"
has otherclock err "lt2/kernel/metadata: the LTTng kernel trace is not on master arm0's clock: its name differs (kernel clock monotonic"
[ -e "$w/out2" ] && bad "otherclock: a trace was written"

# a damaged packet (cpu0's second): named by file and offset, the rest kept
$gen "$w/lt3/kernel" "$w/ev.json" --clock-name ns --packet-events 3 --damage 0:1
run damaged 1 "$w/cap" --master-lttng "$w/lt3" -o "$w/out3"
has damaged err "lt3/kernel/channel0_0.*offset"
has damaged err "damaged packet(s) skipped"
babeltrace2 "$w/out3" >"$w/bt3.txt" 2>/dev/null || bad "damaged: the result does not read"
n=$(grep -c 'core_id = 100[01]' "$w/bt3.txt" || true)
[ "$n" = 14 ] || bad "damaged: $n kernel events kept, want 14 (17 - 3)"
grep -q '{ core_id = 2, cpu_id = 2 }' "$w/bt3.txt" || bad "damaged: the slaves' events are gone"

# a kernel trace whose packets do not say their CPU: refused, named
cp -r "$w/lt" "$w/lt5"
sed -i 's/uint32_t cpu_id;/uint32_t cpu_nr;/' "$w/lt5/kernel/metadata"
grep -q 'cpu_nr;' "$w/lt5/kernel/metadata" || bad "no cpu_id to rename in the kernel metadata"
run nocpu 1 "$w/cap" --master-lttng "$w/lt5" -o "$w/out5"
has nocpu err "a packet without an integer cpu_id in its context: its CPU is unknown"

# a missing directory
run missing 1 "$w/cap" --master-lttng "$w/nothere" -o "$w/out4"
has missing err "nothere"

[ $fail = 0 ] && echo "test-sync-kernel: ok"
exit $fail
