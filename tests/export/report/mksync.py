#!/usr/bin/env python3
"""Writes a sync report in the format of `hetrace sync --report`
(host/sync/sync-run.c, docs/merge.md) to argv[1]: dsp1's clock runs at
1 + 50 ppm against cpu0's with an offset of 1000 cycles; message delays
are 200..900 ns each way; bounds 150..310 ns around the estimate."""
import json
import random
import sys

random.seed(7)
a, b = 1.00005, 1000.0
lower, upper = [], []
for k in range(40):
    x = 1000000 + k * 5000000
    # cpu0 -> dsp1: [child receive time, parent send time]
    lower.append([x, int(a * x + b) - random.randint(200, 900)])
    # dsp1 -> cpu0: [child send time, parent receive time]
    xs = x + 2000000
    upper.append([xs, int(a * xs + b) + random.randint(200, 900)])


def line(y0off, y1off):
    x0, x1 = 1000000, 197000000
    y0, y1 = int(a * x0 + b) + y0off, int(a * x1 + b) + y1off
    s = (y1 - y0) / (x1 - x0)
    return {"x0": x0, "y0": y0, "x1": x1, "y1": y1, "slope": s, "offset": y0 - s * x0}


def core(name, cid, role):
    ref = name == "cpu0"
    return {"name": name, "id": cid, "role": role,
            "clock": {"name": "clk", "freq_hz": 1000000000},
            "quality": "reference" if ref else "accurate", "unsynced": False,
            "parent": None if ref else "cpu0", "drift_ppm": 0 if ref else 50.0,
            "offset_ns": 0 if ref else 1000.0, "half_width_ns": 0 if ref else 160.0,
            "pairs_up": 0 if ref else 40, "pairs_down": 0 if ref else 40,
            "pairs_used": 0 if ref else 80, "pairs_rejected": 0,
            "order_violations": 0, "order_fixed": 0, "events": 100,
            "sync_events": 80, "discarded_events": 0, "lost_packets": 0,
            "problems": {}}


c0, c1 = core("cpu0", 0, "master"), core("dsp1", 1, "slave")
c1["fit"] = {"x": "dsp1 clock (cycles)", "y": "cpu0 clock (cycles)",
             "estimate": "mean of the min- and max-slope lines",
             "min_line": line(-150, 180), "max_line": line(170, -160),
             "slope": a, "offset": b, "width_max": 330, "segments": [],
             "lower": lower, "upper": upper}
c1["bounds"] = []
for k in range(16):
    t = 1000000 + k * 13000000
    e = int(a * t + b)
    w = 150 + abs(k - 8) * 20
    c1["bounds"].append([t, e - w, e, e + w])
c0["bounds"] = [[1000000, 1000000, 1000000, 1000000]]
doc = {"version": 1, "reference": "cpu0",
       "bounds": "[core cycles, lo ns, estimate ns, hi ns] on the reference clock",
       "merged": True, "events": 200, "damaged_packets": 0, "cores": [c0, c1]}
with open(sys.argv[1], "w") as f:
    f.write(json.dumps(doc, indent=1) + "\n")
