#!/usr/bin/env bash
# hetrace report: the page is self-contained, its embedded data are
# exact (the timeline levels decoded against the traced switches), bad
# inputs fail with file:line:col and leave no file; arrows for every
# matched message (receives stamped before their send too); function
# rows named from a PIE's ELF; then Debian's chromium, headless through
# playwright-core, loads the pipeline report (paths and sync), a 70-core
# one, the function rows and `make demo`'s report (hetrace demo): no
# console error, every section drawn, wheel zoom and drag pan work, a
# call is drawn and named on hover; screenshots in $BUILD/report-screens.
set -eu
cd "$(dirname "$0")"
. ../../lib.sh
: "${TOP:?}" "${BUILD:=build}"
export PYTHONDONTWRITEBYTECODE=1 # reportdata.py: no __pycache__ here

"$HETRACE" gen ../../analysis/paths/trace.yaml -o "$w/g" >/dev/null
cc -std=c99 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O1 -g \
	-I"$w/g" -I"$TOP" -o "$w/mktrace" ../../analysis/paths/mktrace.c "$w/g/barectf.c"
mkdir -p "$w/pipeline" "$w/big"
cp "$w/g/metadata" "$w/pipeline/"
cp "$w/g/metadata" "$w/big/"
"$w/mktrace" "$w/pipeline" <../../analysis/paths/pipeline.trace
"$w/mktrace" "$w/big" --synthetic 300000 70
python3 mksync.py "$w/sync.json"

# 0. An output that is not a regular file is written to, not replaced
# (a rename onto /dev/null once turned it into a file): a FIFO here.
mkfifo "$w/fifo"
# (a reader that gives up: nothing opens a FIFO that was replaced)
timeout 20 cat "$w/fifo" >"$w/fifo.html" &
reader=$!
"$HETRACE" report -o "$w/fifo" "$w/pipeline" >/dev/null 2>"$w/fifo.err" ||
	bad "report -o FIFO: $(cat "$w/fifo.err")"
[ -p "$w/fifo" ] || bad "report -o FIFO replaced the FIFO"
wait "$reader" || true
grep -q '</html>' "$w/fifo.html" || bad "report -o FIFO: no page read from it"
# a directory is not replaced either: exit 1, its name in the message
mkdir "$w/outdir"
"$HETRACE" report -o "$w/outdir" "$w/pipeline" >/dev/null 2>"$w/dir.err" &&
	bad "report -o DIRECTORY succeeded"
grep -q "$w/outdir" "$w/dir.err" || bad "report -o DIRECTORY: $(cat "$w/dir.err")"
[ -d "$w/outdir" ] || bad "report -o DIRECTORY replaced the directory"

# 1. The pipeline report: self-contained, exact data.
"$HETRACE" report -o "$w/p.html" --paths ../../analysis/paths/pipeline.yaml \
	--sync "$w/sync.json" "$w/pipeline" >"$w/p.out"
grep -Eiq '<(link|img|iframe)|(src|href)="(https?:)?//|url\(' "$w/p.html" &&
	bad "the page refers to something outside itself"
python3 - "$w/p.html" <<'PY' || fail=1
import base64, sys
import reportdata
d = reportdata.load(sys.argv[1])
errs = []
def eq(what, got, want):
    if got != want:
        errs.append(f"{what}: got {got!r}, want {want!r}")
ms = 1000000
eq("cores", [c["name"] for c in d["cores"]], ["cpu0", "dsp1", "dsp2"])
eq("t0", d["t0"], "1000000")
eq("span", d["span"], 249 * ms)
eq("exact level", d["levels"][-1]["n"], 0)
# dsp1, relative to t0 = 1 ms: sobel, hp_task 120..150, sobel, irq 7
# 152..153, sobel until its last event at 226 ms
eq("dsp1 exact", reportdata.runs(d, len(d["levels"]) - 1, 1),
   [(0, "sobel"), (119 * ms, "hp_task"), (149 * ms, "sobel"), (151 * ms, "irq 7"),
    (152 * ms, "sobel"), (225 * ms, None)])
# level 0 (1024 buckets of 243.164 us): dominant states, same switches
l0 = reportdata.runs(d, 0, 2)
eq("dsp2 level 0 states", [s for _, s in l0], ["sobel", "hp_task", "sobel", None])
unit = d["span"] / d["levels"][0]["n"]
eq("dsp2 level 0 hp_task bucket", l0[1][0], int((117 * ms) / unit + 0.5))
u = base64.b64decode(d["util"]["rows"][1])
eq("util buckets", len(u), 1024)
eq("dsp1 busy", set(u[:900]), {201})
eq("paths", [p["name"] for p in d["paths"]["paths"]], ["frame"])
eq("instances", len(d["paths"]["paths"][0]["instances"]), 3)
eq("sync", d["sync"]["reference"], "cpu0")
# the display order of the cores (states.h: role, then core id)
eq("order", [d["cores"][i]["name"] for i in d["order"]], ["cpu0", "dsp1", "dsp2"])
# the event table: every event (44), in time order, with its fields
t = d["table"]
eq("table", (t["events"], t["stride"], t["kept"], len(t["rows"])), (44, 1, 44, 44))
eq("table in time order", [r[1] for r in t["rows"]], sorted(r[1] for r in t["rows"]))
sw = [r for r in t["rows"] if r[2] == "task_switch" and d["cores"][r[0]]["name"] == "dsp1"]
eq("dsp1 task_switch at 120 ms", [(r[1], "next_name = \"hp_task\"" in r[3]) for r in sw if r[1] == 119 * ms],
   [(119 * ms, True)])
for e in errs:
    print("FAIL: data:", e)
sys.exit(1 if errs else 0)
PY
grep -q '44 events, 3 cores' "$w/p.out" || bad "summary line: $(cat "$w/p.out")"

# 2. The 70-core trace: bounded size with a small budget.
# (300 k events on 70 cores, with a task row per task: the exact
# slices need a 20 MB budget)
"$HETRACE" report -o "$w/big.html" --budget 20 "$w/big" >"$w/big.out"
"$HETRACE" report -o "$w/small.html" --budget 1 "$w/big" >"$w/small.out"
size=$(wc -c <"$w/small.html")
[ "$size" -lt 1600000 ] || bad "budget 1 MB: the page is $size bytes"
grep -q ', 70 cores, ' "$w/big.out" || bad "70 cores: $(cat "$w/big.out")"
grep -q 'finest exact' "$w/big.out" || bad "the exact slices should fit: $(cat "$w/big.out")"
grep -q 'finest exact' "$w/small.out" && bad "budget 1 MB kept the exact slices"
# the event table of a big trace: evenly thinned to a quarter of the budget
python3 - "$w/small.html" <<'PY' || bad "budget 1 MB: the event table"
import sys
import reportdata
t = reportdata.load(sys.argv[1])["table"]
ok = t["stride"] > 1 and t["kept"] == len(t["rows"]) and t["kept"] * 80 <= (1 << 20) // 4 and \
    t["kept"] >= 0.99 * (t["events"] // t["stride"])
print("" if ok else "FAIL: table %s of %s events, stride %s" % (t["kept"], t["events"], t["stride"]))
sys.exit(0 if ok else 1)
PY

# 3. Bad input: a message naming the file and position, exit 1, no file.
set +e
printf '{"version": 1,\n "cores": [1, 2,, 3]}\n' >"$w/bad-sync.json"
"$HETRACE" report -o "$w/x.html" --sync "$w/bad-sync.json" "$w/pipeline" 2>"$w/err"
rc=$?
[ "$rc" = 1 ] && grep -q "bad-sync.json:2:17: invalid JSON: unexpected character" "$w/err" ||
	bad "bad sync JSON: exit $rc: $(cat "$w/err")"
"$HETRACE" report -o "$w/x.html" --paths ../../analysis/paths/bad/cycle.yaml "$w/pipeline" 2>"$w/err"
rc=$?
[ "$rc" = 1 ] && grep -q "cycle.yaml:6:7: precedence cycle" "$w/err" || bad "bad path file: exit $rc: $(cat "$w/err")"
"$HETRACE" report -o "$w/x.html" "$w/nothing" 2>"$w/err"
rc=$?
[ "$rc" = 1 ] || bad "missing trace: exit $rc"
[ -e "$w/x.html" ] || [ -e "$w/x.html.tmp" ] && bad "a failed report left a file"
# a damaged stream: said with its file and offset, exit 1, and the
# page is still written from the rest (and notes it)
mkdir -p "$w/cut"
cp "$w/pipeline"/* "$w/cut/"
head -c 100 "$w/pipeline/core1" >"$w/cut/core1"
"$HETRACE" report -o "$w/cut.html" "$w/cut" >/dev/null 2>"$w/err"
rc=$?
[ "$rc" = 1 ] && grep -q "warning: .*file=.*cut/core1 offset=0" "$w/err" &&
	grep -q "1 damaged parts of the input skipped" "$w/err" || bad "damaged stream: exit $rc: $(cat "$w/err")"
grep -q 'cut/core1 offset=0' "$w/cut.html" || bad "damaged stream: not in the page's notes"
"$HETRACE" report "$w/pipeline" >/dev/null 2>&1
[ $? = 2 ] || bad "no -o: not a usage error"
"$HETRACE" report --help | grep -q '^usage: ' || bad "--help"
set -e

# 4. Message arrows from every matched message: receives stamped at
# their send's time and 100 ns before it (a synchronization's error).
. ../lib.sh
board_build "$w/b" || exit 1
board_trace "$w/b" early <../early.script || exit 1
"$HETRACE" report -o "$w/early.html" "$w/b/early" >"$w/early.out" || bad "early: report failed"
grep -q ' 2 of 2 message arrows' "$w/early.out" || bad "early: $(cat "$w/early.out")"
python3 - "$w/early.html" <<'PY' || bad "early: arrows"
import sys
import reportdata
d = reportdata.load(sys.argv[1])
n = [c["name"] for c in d["cores"]]
got = sorted((n[f[0]], f[1], n[f[2]], f[3]) for f in d["flows"])
# t0 = 1000: dsp2 -> dsp1 at 5000 both; cpu0 sends at 6100, dsp1 got it at 6000
want = [("cpu0", 5100, "dsp1", 5000), ("dsp2", 4000, "dsp1", 4000)]
if got != want:
    print("FAIL: flows", got, "want", want)
    sys.exit(1)
PY

# 5. Function rows, named from a relocated program's ELF (a PIE, run
# with address-space randomization: the names come through func_base):
# each of the four rows holds exactly what babeltrace2's records say.
"$TOP/examples/instrument/build.sh" "$w/ex" "$HETRACE" >/dev/null || exit 1
"$w/ex/demo" "$w/ex/trace/main" 12 >/dev/null || exit 1
babeltrace2 --clock-cycles "$w/ex/trace" >"$w/ex.bt2" || bad "functions: babeltrace2"
nm --defined-only "$w/ex/demo" >"$w/ex.nm"
"$HETRACE" report -o "$w/fn.html" --elf "$w/ex/demo" "$w/ex/trace" >"$w/fn.out" 2>"$w/fn.err" ||
	bad "functions: report failed: $(cat "$w/fn.err")"
[ -s "$w/fn.err" ] && bad "functions: $(cat "$w/fn.err")"
python3 - "$w/fn.html" "$w/ex.bt2" "$w/ex.nm" <<'PY' || bad "functions: data"
import re, sys
import reportdata
d = reportdata.load(sys.argv[1])
syms = {int(p[0], 16): p[2] for p in (l.split() for l in open(sys.argv[3])) if len(p) == 3}
rec = re.compile(r'^\[(\d+)\] .* (func_base|func_entry|func_exit): .*\{ (?:base|addr) = (0x[0-9A-F]+)')
bias, stack, changes = 0, [], [[] for _ in range(4)]
t0 = int(d["t0"])
# what each function row shows after each record: the call at depth 0,
# 1, 2, and the innermost one at depth 3 or more
for line in open(sys.argv[2]):
    m = rec.match(line)
    if not m:
        continue
    t, ev, a = int(m.group(1)), m.group(2), int(m.group(3), 16)
    if ev == "func_base":
        bias = a  # a PIE links at 0
        continue
    if ev == "func_entry":
        stack.append(syms[a - bias])
    else:
        stack.pop()
    for r in range(4):
        st = (stack[r] if len(stack) > r else None) if r < 3 else \
            (stack[-1] if len(stack) > 3 else None)
        ch = changes[r]
        if ch and ch[-1][0] == t - t0:
            ch.pop()  # several changes at one time: the last one holds
        if not ch or ch[-1][1] != st:
            ch.append((t - t0, st))
def want(r):
    out = []
    for c in changes[r]:
        if not out or out[-1][1] != c[1]:
            out.append(c)
    if out and out[0][1] is None:
        out.pop(0)
    if out and out[0][0] > 0:
        out.insert(0, (0, None))
    return out
errs = []
if d["levels"][-1]["n"] != 0:
    errs.append("no exact level")
if [f[0] for f in d["frows"]] != [0, 0, 0, 0] or [f[1] for f in d["frows"]] != [0, 1, 2, 3]:
    errs.append("function rows %s" % d["frows"])
for depth in range(4):
    got, w = reportdata.runs(d, -1, len(d["cores"]) + depth), want(depth)
    if got != w:
        k = next((i for i in range(min(len(got), len(w))) if got[i] != w[i]), min(len(got), len(w)))
        errs.append("row %d: %d runs, want %d; from run %d: got %s, want %s" % (depth, len(got), len(w), k, got[k:k + 3], w[k:k + 3]))
names = {s["n"] for s in d["states"] if s["k"] == "func"}
if names != {"fib", "quicksort"}:
    errs.append("function names %s" % names)
for e in errs:
    print("FAIL: functions:", e)
sys.exit(1 if errs else 0)
PY
# an ELF of another program: raw addresses and a note, never a wrong name
cc -O0 -o "$w/other" -x c - <<'C' || exit 1
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(void) { return fib(3) == 2 ? 0 : 1; }
C
"$HETRACE" report -o "$w/fo.html" --elf "$w/other" "$w/ex/trace" >/dev/null 2>"$w/fo.err" ||
	bad "functions, other ELF: report failed"
grep -q 'warning: core main: [0-9]* of [0-9]* function addresses are not functions of' "$w/fo.err" ||
	bad "functions, other ELF: $(cat "$w/fo.err")"
grep -q 'are not functions of' "$w/fo.html" || bad "functions, other ELF: not in the page's notes"
grep -q '"n":"fib","k":"func"' "$w/fo.html" && bad "functions, other ELF: a wrong name"
set +e
"$HETRACE" report -o "$w/x.html" --elf "$w/nothing" "$w/ex/trace" 2>"$w/err"
[ $? = 1 ] && grep -q 'nothing: cannot open' "$w/err" || bad "missing ELF: $(cat "$w/err")"
[ -e "$w/x.html" ] && bad "missing ELF: a file was written"
set -e

# 6. make demo's report (hetrace demo: the simulated board end to end),
# and the same trace with the slaves' functions named (the simulated
# slaves run in hetrace: their functions are hetrace's, a PIE).
"$HETRACE" demo -o "$w/demo" --seconds 1 >"$w/demo.out" 2>&1 || bad "hetrace demo: $(tail -5 "$w/demo.out")"
if babeltrace2 "$w/demo/synced" 2>/dev/null | grep -q ' func_entry: '; then
	"$HETRACE" report -o "$w/demo-fn.html" --elf "$HETRACE" "$w/demo/synced" >/dev/null 2>"$w/demo-fn.err" ||
		bad "demo --elf: report failed"
	[ -s "$w/demo-fn.err" ] && bad "demo --elf: $(cat "$w/demo-fn.err")"
	demo_fn=$(python3 - "$w/demo-fn.html" <<'PY'
import sys
import reportdata
d = reportdata.load(sys.argv[1])
f = sorted(s["n"] for s in d["states"] if s["k"] == "func")
print(f[0] if f and not any(n.startswith("0x") for n in f) else "")
PY
)
	[ -n "$demo_fn" ] || bad "demo --elf: functions without names"
fi

# 7. In the browser.
shots="$TOP/$BUILD/report-screens"
mkdir -p "$shots"
export NODE_PATH="$TOP/build/npm/node_modules"
[ -d "$NODE_PATH/playwright-core" ] || bad "playwright-core is not in build/npm (scripts/deps.sh check installs it)"
node browser.js "$w/p.html" "$shots" pipeline --expect-paths --expect-sync --expect-order cpu0,dsp1,dsp2 \
	--search sobel || bad "browser: pipeline"
node browser.js "$w/big.html" "$shots" cores70 || bad "browser: 70 cores"
node browser.js "$w/early.html" "$shots" early || bad "browser: early arrows"
node browser.js "$w/fn.html" "$shots" functions --expect-funcs fib --search func_entry || bad "browser: function rows"
# make demo's report: the master first, the arrows bundled at the first
# view and drawn for the chosen (late) frame, the blame per core, and
# dsp2's sync plot in two pieces (its clock rate steps: docs/sim.md)
# (and the task rows, running / ready / blocked, where the simulated
# slaves trace task_block: docs/sim.md)
ts=
if babeltrace2 "$w/demo/synced" 2>/dev/null | grep -q ' task_block: '; then
	ts=--expect-task-states
fi
node browser.js "$w/demo/report.html" "$shots" demo --expect-paths --expect-sync \
	--expect-order arm0,dsp0,dsp1,dsp2,dsp3,dsp4,dsp5,dsp6,dsp7 --expect-bundled --expect-blame \
	--expect-pieces dsp2=2 --search msg_send $ts || bad "browser: make demo's report"
if [ -n "${demo_fn:-}" ]; then
	node browser.js "$w/demo-fn.html" "$shots" demo-functions --expect-funcs "$demo_fn" ||
		bad "browser: the demo's function rows"
fi
ls "$shots"
exit $fail
