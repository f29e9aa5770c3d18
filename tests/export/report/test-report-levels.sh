#!/usr/bin/env bash
# The timeline's resolution within the default budget when task rows
# are there: a 1 M event trace of 70 cores (4 tasks each: 280 task rows
# under the 70 core rows, tests/analysis/paths/mktrace.c --synthetic)
# with a 71-activity path. The page keeps at least 5 levels of the
# pyramid (the task rows must not crowd the cores' levels out: the
# levels are chosen from the real size of the packed runs, not from a
# worst case), stays under 20 MB, and every row of every level decodes
# (palette, runs in time order, known states). The path analysis read
# along the report's own passes gives the JSON `hetrace paths --json`
# gives; with --core (a pass of its own for the interference) too.
set -u
cd "$(dirname "$0")"
. ../../lib.sh
: "${TOP:?}"
export PYTHONDONTWRITEBYTECODE=1 # reportdata.py: no __pycache__ here

"$HETRACE" gen ../../analysis/paths/trace.yaml -o "$w/g" >/dev/null || exit 1
cc -std=c99 -D_POSIX_C_SOURCE=200809L -O1 -I"$w/g" -I"$TOP" -o "$w/mktrace" \
	../../analysis/paths/mktrace.c "$w/g/barectf.c" || exit 1
mkdir -p "$w/t"
cp "$w/g/metadata" "$w/t/"
"$w/mktrace" "$w/t" --synthetic 1000000 70 || exit 1
{
	echo "paths:"
	echo "  frame:"
	echo "    period: 10 ms"
	echo "    deadline: 5 ms"
	echo "    activities:"
	echo "      alloc:"
	for k in $(seq 1 69); do echo "      work_$k: {after: alloc}"; done
	echo "      gather: {after: [$(seq -s ', ' -f 'work_%g' 1 69)]}"
} >"$w/paths.yaml"

bounded 120 2048 "$HETRACE" report -o "$w/r.html" --paths "$w/paths.yaml" "$w/t" \
	>"$w/r.out" 2>"$w/r.err" || bad "report: exit $?: $(cat "$w/r.err")"
levels=$(sed -n 's/.* \([0-9]*\) levels.*/\1/p' "$w/r.out")
[ "${levels:-0}" -ge 5 ] || bad "report: fewer than 5 levels: $(cat "$w/r.out")"
size=$(wc -c <"$w/r.html")
[ "$size" -lt 20000000 ] || bad "report: $size bytes (over 20 MB)"

bounded 60 2048 "$HETRACE" paths --json --paths "$w/paths.yaml" "$w/t" \
	>"$w/paths.json" 2>/dev/null || bad "paths --json: exit $?"
bounded 60 2048 "$HETRACE" report -o "$w/c.html" --paths "$w/paths.yaml" \
	--core cpu0 --core dsp1 "$w/t" >/dev/null 2>"$w/c.err" ||
	bad "report --core: exit $?: $(cat "$w/c.err")"
bounded 60 2048 "$HETRACE" paths --json --paths "$w/paths.yaml" \
	--core cpu0 --core dsp1 "$w/t" >"$w/c-paths.json" 2>/dev/null ||
	bad "paths --json --core: exit $?"

python3 - "$w" <<'PY' || fail=1
import json
import sys

import reportdata

w = sys.argv[1]
d = reportdata.load(w + "/r.html")
bad = []
nstates = len(d["states"])
rows = len(d["cores"]) + len(d["frows"]) + len(d["trows"])
if len(d["trows"]) < 200:
    bad.append("task rows: %d" % len(d["trows"]))
for li, lv in enumerate(d["levels"]):
    if len(lv["rows"]) != rows:
        bad.append("level %d: %d rows, not %d" % (li, len(lv["rows"]), rows))
    for ri in range(len(lv["rows"])):
        runs = reportdata.runs(d, li, ri)
        times = [t for t, _ in runs]
        if times != sorted(times):
            bad.append("level %d row %d: runs out of order" % (li, ri))
        unit = d["span"] / lv["n"] if lv["n"] else 1
        if times and times[-1] > d["span"] + unit:
            bad.append("level %d row %d: a run after the span" % (li, ri))
    # every core row says something at every level
    for ri in range(len(d["cores"])):
        if not any(s for _, s in reportdata.runs(d, li, ri)):
            bad.append("level %d core row %d: empty" % (li, ri))
for name, html, js in (("whole", "/r.html", "/paths.json"),
                       ("--core", "/c.html", "/c-paths.json")):
    got = reportdata.load(w + html)["paths"]
    want = json.load(open(w + js))
    if got != want:
        bad.append("%s: the page's paths differ from hetrace paths --json" % name)
for b in bad[:20]:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
exit $fail
