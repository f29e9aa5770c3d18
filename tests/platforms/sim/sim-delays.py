#!/usr/bin/env python3
"""The one-way delays of the sync handshake in a `hetrace sim` capture,
measured against the true clocks (truth.json): per slave, master->slave
(sync_req to sync_ack) and slave->master (sync_notify to sync_recv),
the best, the 10th percentile and the median, in microseconds, and the
half-width the best pair of each direction allows, (best M->S + best
S->M) / 2.

Usage: sim-delays.py CAPTURE [--max-half-us US]
With --max-half-us, exit 1 when a MHz/GHz core's best-pair half-width
exceeds US.
"""
import importlib.util
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("cc", os.path.join(here, "check-capture.py"))
cc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cc)


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p))] if v else float("nan")


def main():
    cap = sys.argv[1]
    limit = None
    if "--max-half-us" in sys.argv:
        limit = float(sys.argv[sys.argv.index("--max-half-us") + 1])
    with open(f"{cap}/truth.json") as f:
        truth = json.load(f)
    master = cc.decode(f"{cap}/arm0")
    req, recv = {}, {}
    for ts, name, fl in master:
        if name == "sync_req":
            req[(fl["slave"], fl["seq"])] = ts
        elif name == "sync_recv":
            recv[(fl["slave"], fl["seq"])] = ts
    bad = 0
    print(f"{'core':6} {'Hz':>10} {'rounds':>6}  {'M->S best':>9} {'p10':>6} {'median':>6}"
          f"  {'S->M best':>9} {'p10':>6} {'median':>6}  {'half':>6}  (us)")
    for c in truth["cores"]:
        if c["role"] != "slave":
            continue
        clk = cc.Clock(c["clock"])
        cid = c["core_id"]
        ms, sm = [], []
        for ts, name, fl in cc.decode(f"{cap}/{c['name']}"):
            # A slave event stamped c cycles happened in [first(c), first(c+1)).
            if name == "sync_ack" and (cid, fl["seq"]) in req:
                ms.append(clk.first_ns(ts) - req[(cid, fl["seq"])])
            elif name == "sync_notify" and (cid, fl["seq"]) in recv:
                sm.append(recv[(cid, fl["seq"])] - clk.first_ns(ts + 1))
        hz = c["clock"]["freq_hz"]
        half = (min(ms) + min(sm)) / 2 if ms and sm else float("nan")
        print(f"{c['name']:6} {hz:>10} {len(ms):>6}  {min(ms) / 1e3:>9.2f} {pct(ms, .1) / 1e3:>6.2f} "
              f"{pct(ms, .5) / 1e3:>6.2f}  {min(sm) / 1e3:>9.2f} {pct(sm, .1) / 1e3:>6.2f} "
              f"{pct(sm, .5) / 1e3:>6.2f}  {half / 1e3:>6.2f}")
        if limit is not None and hz >= 1000000 and not half <= limit * 1e3:
            print(f"FAIL: {c['name']}: best-pair half-width {half / 1e3:.2f} us > {limit} us")
            bad = 1
    for e in cc.errors:
        print("FAIL:", e)
    return 1 if cc.errors or bad else 0


if __name__ == "__main__":
    sys.exit(main())
