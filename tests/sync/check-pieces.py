#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check-pieces.py STDOUT SYNC_JSON: every core whose fit has two pieces
# or more (a frequency step) shows one "piece N" line per piece under its
# row in hetrace sync's table, with the drift of sync.json's piece
# (slope against the nominal rate) and the pairs, and "step at" on every
# piece after the first; a one-piece core has no piece line.
import json
import re
import sys

out = open(sys.argv[1]).read().splitlines()
rep = json.load(open(sys.argv[2]))
cores = {c["name"]: c for c in rep["cores"]}
errs = []
rows = {}
cur = None
for line in out:
    m = re.match(r"^  piece (\d+) +(\S+) +.* +(\d+)  (from|step at) (\S+ \S+)$", line)
    if m and cur:
        rows[cur].append((int(m.group(1)), float(m.group(2)), int(m.group(3)), m.group(4)))
        continue
    w = line.split()
    cur = w[0] if w and w[0] in cores else None
    if cur:
        rows[cur] = []
stepped = 0
for name, c in cores.items():
    segs = c.get("fit", {}).get("segments", []) if c.get("fit") else []
    got = rows.get(name, [])
    if len(segs) < 2:
        if got:
            errs.append("%s: one piece, yet %d piece line(s)" % (name, len(got)))
        continue
    stepped += 1
    if len(got) != len(segs):
        errs.append("%s: %d pieces in sync.json, %d piece line(s) in the table" % (name, len(segs), len(got)))
        continue
    parent = cores[c["parent"]]
    nominal = parent["clock"]["freq_hz"] / c["clock"]["freq_hz"]
    for k, (g, (n, drift, pairs, word)) in enumerate(zip(segs, got)):
        want = (g["slope"] / nominal - 1) * 1e6
        if n != k + 1 or abs(drift - want) > 0.0015 + abs(want) * 1e-9:
            errs.append("%s: piece %d: drift %.3f ppm in the table, %.3f in sync.json" % (name, k + 1, drift, want))
        if pairs != g["pairs"]:
            errs.append("%s: piece %d: %d pairs in the table, %d in sync.json" % (name, k + 1, pairs, g["pairs"]))
        if word != ("step at" if k else "from"):
            errs.append("%s: piece %d: says '%s'" % (name, k + 1, word))
    print("%s: %d pieces, drifts %s ppm" % (name, len(got), ", ".join("%+.3f" % r[1] for r in got)))
if not stepped:
    errs.append("no core with a frequency step in sync.json")
for e in errs:
    print("check-pieces: " + e, file=sys.stderr)
sys.exit(1 if errs else 0)
