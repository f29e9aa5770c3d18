#!/usr/bin/python3
# End-to-end accuracy of hetrace sync on a `hetrace sim` capture, against
# the clocks' true models (CAPTURE/truth.json, docs/sim.md):
# - at every time of the report's bounds (evenly spaced over each core's
#   trace and at each of its messages with its parent, where lo and hi
#   have their corners), the true reference time lies in [lo, hi], the
#   estimate too, and within a piece of the fit (between its first and
#   last message) |estimate - truth| <= (hi - lo + 1) / 2;
# - the bound half-width at the messages (within the pieces) is at most one tick for a kHz
#   clock and at most MAX_HW_NS (argument) for MHz and GHz clocks (the
#   median for a clock whose rate steps);
# - every event of every core in the merged trace (babeltrace2's Python
#   bindings) lies within the core's largest half-width (+ one tick) of
#   its true time; no message is received before it was sent;
# - a frequency step is located within one sync period (the break of
#   the piecewise fit, mapped to true time, vs the true step);
# - prints the bound half-widths (median and largest at message times).
# Usage: check-sim.py CAPTURE TRACE REPORT SYNC_PERIOD_NS MAX_HW_NS
import json
import os
import statistics
import sys
from fractions import Fraction

import bt2

cap, trace, report_path, period, max_hw = sys.argv[1:6]
period = int(period)
max_hw = float(max_hw)
truth = json.load(open(os.path.join(cap, "truth.json")))
report = json.load(open(report_path))
errors = []


def err(msg):
    if len(errors) < 40:
        errors.append(msg)


class Clock:
    """A core's true clock: ticks(t) = ticks0 + (t - from_ns) * rate per
    segment, t in reference ns; a reading c is the floor of ticks."""

    def __init__(self, c):
        segs = c["clock"].get("segments")
        if not segs:  # the reference: its clock is the time
            segs = [{"from_ns": 0, "ticks": 0, "rate_num": 1, "rate_den": 1}]
        self.segs = [(s["from_ns"], s["ticks"],
                      Fraction(s["rate_num"], s["rate_den"])) for s in segs]
        self.freq = c["clock"]["freq_hz"]

    def time_of(self, c):
        """The reference time (ns, exact) when the clock reads c."""
        seg = self.segs[0]
        for s in self.segs:
            if s[1] <= c:
                seg = s
        return seg[0] + (c - seg[1]) / seg[2]


clocks = {c["name"]: Clock(c) for c in truth["cores"]}
ref = truth["reference"]

# the reference clock's origin: ns from origin = offset + value
ref_offset = None
for msg in bt2.TraceCollectionMessageIterator(os.path.join(cap, ref)):
    if isinstance(msg, bt2._EventMessageConst):
        cs = msg.default_clock_snapshot
        ref_offset = cs.ns_from_origin - cs.value
        break

rep = {c["name"]: c for c in report["cores"]}
widths = {}
for name, clk in clocks.items():
    c = rep.get(name)
    if c is None:
        err("%s: not in the report" % name)
        continue
    if name == ref:
        continue
    if c["quality"] not in ("accurate", "approximate"):
        err("%s: quality %s" % (name, c["quality"]))
        continue
    hw_all, hw_msg = [], []
    msg_times = set(x for x, _ in c["fit"]["lower"]) | set(x for x, _ in c["fit"]["upper"])
    for t, lo, est, hi in c["bounds"]:
        if lo is None or hi is None:
            err("%s: unbounded at %d" % (name, t))
            continue
        true = clk.time_of(t) + ref_offset
        # the reference reads the floor of its time: allow its 1 ns
        if not (lo - 1 <= true <= hi + 1):
            err("%s: at %d cycles the true time %.1f is outside [%d, %d]"
                % (name, t, float(true), lo, hi))
        in_piece = any(g["first_x"] <= t <= g["last_x"] for g in c["fit"]["segments"])
        if not lo <= est <= hi:
            err("%s: at %d cycles the estimate %d is outside [%d, %d]"
                % (name, t, est, lo, hi))
        if in_piece and abs(est - true) > Fraction(hi - lo + 1, 2) + 1:
            err("%s: at %d cycles the estimate %d is %.1f ns from the "
                "truth, more than half the bound width %d"
                % (name, t, est, float(est - true), hi - lo))
        hw_all.append((hi - lo) / 2)
        # (the messages around a frequency step, between two pieces,
        # are bounded only by their neighbours)
        if t in msg_times and in_piece:
            hw_msg.append((hi - lo) / 2)
    widths[name] = max(hw_all) if hw_all else 0
    tick = 1e9 / clk.freq
    limit = tick if clk.freq < 1000000 else max_hw
    # a core whose rate steps: the pieces' ends near the step are wider
    hw = max(hw_msg) if len(clk.segs) == 1 else statistics.median(hw_msg)
    if hw > limit:
        err("%s: bound half-width %.1f ns at a message, more than %.1f ns"
            % (name, hw, limit))
    print("%-6s %10d Hz  half-width at messages: median %8.1f ns, max %9.1f ns"
          " (1 tick %.1f ns)" % (name, clk.freq, statistics.median(hw_msg),
                                 max(hw_msg), tick))

    # the frequency step
    segs = truth_segs = clk.segs
    if len(truth_segs) > 1:
        fit = c["fit"]["segments"]
        if len(fit) < 2:
            err("%s: the frequency step was not found (one segment)" % name)
        else:
            for k in range(1, len(truth_segs)):
                step = truth_segs[k][0] + ref_offset
                found = [clk.time_of(s["begin_x"]) + ref_offset for s in fit[1:]]
                best = min(found, key=lambda x: abs(x - step))
                print("%-6s step at %d ns, fit break at %.0f ns (%+.3f ms)" %
                      (name, step, float(best), float(best - step) / 1e6))
                if abs(best - step) > period:
                    err("%s: the step at %d ns is found at %.0f ns, more "
                        "than one sync period (%d ns) off"
                        % (name, step, float(best), period))

# the merged trace: every event against its true time
raw = {}
for name in clocks:
    v = []
    for msg in bt2.TraceCollectionMessageIterator(os.path.join(cap, name)):
        if isinstance(msg, bt2._EventMessageConst):
            v.append(msg.default_clock_snapshot.value)
    raw[name] = v
by_id = {c["core_id"]: c["name"] for c in truth["cores"]}
merged = {name: [] for name in clocks}
sends, recvs = {}, {}
for msg in bt2.TraceCollectionMessageIterator(trace):
    if not isinstance(msg, bt2._EventMessageConst):
        continue
    ev = msg.event
    cid = int(ev.packet.context_field["core_id"])
    name = by_id[cid]
    ts = msg.default_clock_snapshot.ns_from_origin
    merged[name].append(ts)
    p = ev.payload_field
    if ev.name == "msg_send":
        sends[("m", cid, int(p["id"]))] = ts
    elif ev.name == "msg_recv":
        recvs[("m", int(p["src"]), int(p["id"]))] = ts
    elif ev.name == "sync_req":
        sends[("d", int(p["slave"]), int(p["seq"]))] = ts
    elif ev.name == "sync_ack":
        recvs[("d", cid, int(p["seq"]))] = ts
    elif ev.name == "sync_notify":
        sends[("u", cid, int(p["seq"]))] = ts
    elif ev.name == "sync_recv":
        recvs[("u", int(p["slave"]), int(p["seq"]))] = ts
total = 0
for name, clk in clocks.items():
    if len(raw[name]) != len(merged[name]):
        err("%s: %d events in the capture, %d merged" %
            (name, len(raw[name]), len(merged[name])))
        continue
    tol = widths.get(name, 0) + 1e9 / clk.freq + 1
    worst = 0
    for c, ts in zip(raw[name], merged[name]):
        true = clk.time_of(c) + ref_offset
        d = abs(ts - true)
        worst = max(worst, d)
        if d > tol:
            err("%s: event at %d cycles merged at %d ns, %.1f ns from its "
                "true time (tolerance %.1f)" % (name, c, ts, float(ts - true), tol))
            break
    total += len(raw[name])
    print("%-6s %6d events, largest error %.1f ns" % (name, len(raw[name]), float(worst)))
pairs = 0
for k, r in recvs.items():
    if k in sends:
        pairs += 1
        if r < sends[k]:
            err("message %r received at %d ns, before its send at %d ns" %
                (k, r, sends[k]))
if pairs < 100:
    err("only %d messages matched in the merged trace" % pairs)
for e in errors:
    print("FAIL:", e)
print("checked %d events, %d messages" % (total, pairs))
sys.exit(1 if errors else 0)
