#!/usr/bin/env bash
# hetrace report: the page is self-contained, its embedded data are
# exact (the timeline levels decoded against the traced switches), bad
# inputs fail with file:line:col and leave no file; then Debian's
# chromium, headless through playwright-core, loads the pipeline report
# (paths and sync) and a 70-core one: no console error, every section
# drawn, wheel zoom and drag pan work; screenshots in $BUILD/report-screens.
set -eu
cd "$(dirname "$0")"
: "${HETRACE:?}" "${TOP:?}" "${BUILD:=build}"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$HETRACE" gen ../paths/trace.yaml -o "$w/g" >/dev/null
cc -std=c99 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O1 -g \
	-I"$w/g" -o "$w/mktrace" ../paths/mktrace.c "$w/g/barectf.c"
mkdir -p "$w/pipeline" "$w/big"
cp "$w/g/metadata" "$w/pipeline/"
cp "$w/g/metadata" "$w/big/"
"$w/mktrace" "$w/pipeline" <../paths/pipeline.trace
"$w/mktrace" "$w/big" --synthetic 300000 70
python3 mksync.py "$w/sync.json"

# 1. The pipeline report: self-contained, exact data.
"$HETRACE" report -o "$w/p.html" --paths ../paths/pipeline.yaml \
	--sync "$w/sync.json" "$w/pipeline" >"$w/p.out"
grep -Eiq '<(link|img|iframe)|(src|href)="(https?:)?//|url\(' "$w/p.html" &&
	bad "the page refers to something outside itself"
python3 - "$w/p.html" <<'PY' || fail=1
import base64, json, sys
html = open(sys.argv[1]).read()
tag = '<script id="ht-data" type="application/json">'
d = json.loads(html[html.index(tag) + len(tag):html.index('</script>', html.index(tag))])
errs = []
def eq(what, got, want):
    if got != want:
        errs.append(f"{what}: got {got!r}, want {want!r}")
def runs(level, core):
    b = base64.b64decode(d["levels"][level]["rows"][core])
    out, i, t = [], 0, 0
    def varint():
        nonlocal i
        v, sh = 0, 0
        while True:
            c = b[i]; i += 1
            v |= (c & 0x7f) << sh; sh += 7
            if not c & 0x80:
                return v
    while i < len(b):
        t += varint()
        s = varint()
        out.append((t, d["states"][s - 1]["n"] if s else None))
    return out
ms = 1000000
eq("cores", [c["name"] for c in d["cores"]], ["cpu0", "dsp1", "dsp2"])
eq("t0", d["t0"], "1000000")
eq("span", d["span"], 249 * ms)
eq("exact level", d["levels"][-1]["n"], 0)
# dsp1, relative to t0 = 1 ms: sobel, hp_task 120..150, sobel, irq 7
# 152..153, sobel until its last event at 226 ms
eq("dsp1 exact", runs(len(d["levels"]) - 1, 1),
   [(0, "sobel"), (119 * ms, "hp_task"), (149 * ms, "sobel"), (151 * ms, "irq 7"),
    (152 * ms, "sobel"), (225 * ms, None)])
# level 0 (1024 buckets of 243.164 us): dominant states, same switches
l0 = runs(0, 2)
eq("dsp2 level 0 states", [s for _, s in l0], ["sobel", "hp_task", "sobel", None])
unit = d["span"] / d["levels"][0]["n"]
eq("dsp2 level 0 hp_task bucket", l0[1][0], int((117 * ms) / unit + 0.5))
u = base64.b64decode(d["util"]["rows"][1])
eq("util buckets", len(u), 1024)
eq("dsp1 busy", set(u[:900]), {201})
eq("paths", [p["name"] for p in d["paths"]["paths"]], ["frame"])
eq("instances", len(d["paths"]["paths"][0]["instances"]), 3)
eq("sync", d["sync"]["reference"], "cpu0")
for e in errs:
    print("FAIL: data:", e)
sys.exit(1 if errs else 0)
PY
grep -q '44 events, 3 cores' "$w/p.out" || bad "summary line: $(cat "$w/p.out")"

# 2. The 70-core trace: bounded size with a small budget.
"$HETRACE" report -o "$w/big.html" "$w/big" >"$w/big.out"
"$HETRACE" report -o "$w/small.html" --budget 1 "$w/big" >"$w/small.out"
size=$(wc -c <"$w/small.html")
[ "$size" -lt 1600000 ] || bad "budget 1 MB: the page is $size bytes"
grep -q ', 70 cores, ' "$w/big.out" || bad "70 cores: $(cat "$w/big.out")"
grep -q 'finest exact' "$w/big.out" || bad "the exact slices should fit: $(cat "$w/big.out")"
grep -q 'finest exact' "$w/small.out" && bad "budget 1 MB kept the exact slices"

# 3. Bad input: a message naming the file and position, exit 1, no file.
set +e
printf '{"version": 1,\n "cores": [1, 2,, 3]}\n' >"$w/bad-sync.json"
"$HETRACE" report -o "$w/x.html" --sync "$w/bad-sync.json" "$w/pipeline" 2>"$w/err"
rc=$?
[ "$rc" = 1 ] && grep -q "bad-sync.json:2:17: invalid JSON: unexpected character" "$w/err" ||
	bad "bad sync JSON: exit $rc: $(cat "$w/err")"
"$HETRACE" report -o "$w/x.html" --paths ../paths/bad/cycle.yaml "$w/pipeline" 2>"$w/err"
rc=$?
[ "$rc" = 1 ] && grep -q "cycle.yaml:6:7: precedence cycle" "$w/err" || bad "bad path file: exit $rc: $(cat "$w/err")"
"$HETRACE" report -o "$w/x.html" "$w/nothing" 2>"$w/err"
rc=$?
[ "$rc" = 1 ] || bad "missing trace: exit $rc"
[ -e "$w/x.html" ] || [ -e "$w/x.html.tmp" ] && bad "a failed report left a file"
"$HETRACE" report "$w/pipeline" >/dev/null 2>&1
[ $? = 2 ] || bad "no -o: not a usage error"
"$HETRACE" report --help | grep -q '^usage: ' || bad "--help"
set -e

# 4. In the browser.
shots="$TOP/$BUILD/report-screens"
mkdir -p "$shots"
export NODE_PATH="$TOP/build/npm/node_modules"
[ -d "$NODE_PATH/playwright-core" ] || bad "playwright-core is not in build/npm (scripts/deps.sh check installs it)"
node browser.js "$w/p.html" "$shots" pipeline --expect-paths --expect-sync || bad "browser: pipeline"
node browser.js "$w/big.html" "$shots" cores70 || bad "browser: 70 cores"
ls "$shots"
exit $fail
