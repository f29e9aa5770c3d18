#!/usr/bin/env python3
"""Checks a capture of `hetrace sim` through babeltrace2 (docs/sim.md).

Usage: check-capture.py CAPTURE NR_SLAVES [--partial]

- truth.json is valid: every core, the reference, continuous segments;
- babeltrace2 decodes every core's trace; its metadata env names the core;
- every sync round the master saw answered is complete and paired by seq
  (sync_req n / sync_ack n / sync_notify n+1 / sync_recv n+1), and both of
  its messages respect the true clocks: the receive is not before the send;
- application messages: every msg_send has its msg_recv (same sender, id)
  and the other way round, and the true clocks order them too;
- a 32-bit counter wrapped; task switches, interrupts, paths are there.
With --partial (a run stopped by Ctrl-C) messages in flight at the stop
may lack their receive.
"""
import json
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from bt2text import text_lines  # noqa: E402

# [ts] (+delta) [hostname ]name: { core_id = N, cpu_id = N }, { fields }
EVENT = re.compile(r"^\[(\d+)\] \([^)]*\) (?:\S+ )?(\w+): \{ core_id = (\d+), cpu_id = \3 \}, \{ (.*) \}$")
FIELD = re.compile(r'(\w+) = ("[^"]*"|[^,]+)(?:, |$)')

errors = []


def fail(msg):
    errors.append(msg)


def decode(path):
    """[(cycles, name, fields)] of one core's trace, in trace order."""
    events = []
    for m in text_lines(path, EVENT, fail):
        fields = {}
        for k, v in FIELD.findall(m.group(4)):
            # int(v, 0): addresses (func_* records) are printed in hex;
            # an enumeration as ( "label" : container = N ): its label.
            if v.startswith("("):
                fields[k] = v.split('"')[1]
            elif v.startswith('"'):
                fields[k] = v[1:-1]
            else:
                fields[k] = int(v, 0)
        fields["core_id"] = int(m.group(3))
        events.append((int(m.group(1)), m.group(2), fields))
    return events


class Clock:
    """The true model of a slave clock (truth.json): ticks(t) and back."""

    def __init__(self, c):
        self.segs = c["segments"]

    def ticks(self, t):
        s = self.segs[0]
        for seg in self.segs:
            if t >= seg["from_ns"]:
                s = seg
        return s["ticks"] + (t - s["from_ns"]) * s["rate_num"] // s["rate_den"]

    def first_ns(self, c):
        """The earliest reference time at which the counter reads >= c."""
        s = self.segs[0]
        for seg in self.segs:
            if c >= seg["ticks"]:
                s = seg
        d = c - s["ticks"]
        return s["from_ns"] + (d * s["rate_den"] + s["rate_num"] - 1) // s["rate_num"]


def main():
    cap, nr_slaves = sys.argv[1], int(sys.argv[2])
    partial = "--partial" in sys.argv[3:]

    with open(f"{cap}/truth.json") as f:
        truth = json.load(f)
    cores = truth["cores"]
    names = [c["name"] for c in cores]
    if len(cores) != nr_slaves + 1:
        fail(f"truth.json: {len(cores)} cores, expected {nr_slaves + 1}")
    if truth["reference"] not in names or truth["reference"] != "arm0":
        fail(f"truth.json: reference {truth['reference']}")
    if not truth["start_ns"] < truth["end_ns"]:
        fail("truth.json: start_ns is not before end_ns")
    clocks = {}
    for c in cores:
        clk = c["clock"]
        if c["role"] == "master":
            if not clk["reference"]:
                fail(f"truth.json: {c['name']}: master not the reference")
            continue
        segs = clk["segments"]
        if segs[0]["from_ns"] != truth["start_ns"] or segs[0]["ticks"] >= 1 << 32:
            fail(f"truth.json: {c['name']}: first segment")
        for a, b in zip(segs, segs[1:]):
            exp = a["ticks"] + (b["from_ns"] - a["from_ns"]) * a["rate_num"] // a["rate_den"]
            if b["ticks"] != exp:
                fail(f"truth.json: {c['name']}: segments not continuous")
        ppm = abs(clk["drift_ppb"]) / 1000
        if ppm > 200:
            fail(f"truth.json: {c['name']}: drift {ppm} ppm")
        clocks[c["core_id"]] = Clock(clk)
    if not any(len(c["clock"].get("segments", [])) == 2 for c in cores) and nr_slaves >= 3:
        fail("truth.json: no core with a frequency step")

    traces = {}
    for c in cores:
        with open(f"{cap}/{c['name']}/metadata") as f:
            meta = f.read()
        for key, val in (("core_name", f'"{c["name"]}"'),
                         ("core_id", str(c["core_id"])),
                         ("core_role", f'"{c["role"]}"')):
            if f"\t{key} = {val};" not in meta:
                fail(f"{c['name']}/metadata: no {key} = {val}")
        if c["role"] == "slave" and '\tcore_master = "arm0";' not in meta:
            fail(f"{c['name']}/metadata: no core_master")
        if f'\tfreq = {c["clock"]["freq_hz"]};' not in meta:
            fail(f"{c['name']}/metadata: clock frequency")
        if f'\tuuid = "{c["clock"]["uuid"]}";' not in meta:
            fail(f"{c['name']}/metadata: clock UUID")
        traces[c["core_id"]] = decode(f"{cap}/{c['name']}")
        if not traces[c["core_id"]]:
            fail(f"{c['name']}: no event")
    uuids = {c["clock"]["uuid"] for c in cores}
    if len(uuids) != len(cores):
        fail("two cores share a clock UUID")
    if errors:
        return

    # Sync rounds, by seq.
    req, recv = {}, {}
    for ts, name, f in traces[0]:
        if name == "sync_req":
            req[(f["slave"], f["seq"])] = ts
        elif name == "sync_recv":
            recv[(f["slave"], f["seq"])] = ts
    rounds = 0
    for cid, clk in clocks.items():
        ack, notify = {}, {}
        for ts, name, f in traces[cid]:
            if name == "sync_ack":
                ack[f["seq"]] = ts
            elif name == "sync_notify":
                notify[f["seq"]] = ts
        for (s, seq), t in recv.items():
            if s != cid:
                continue
            rounds += 1
            n = seq - 1
            if seq % 2 != 1 or (s, n) not in req or n not in ack or seq not in notify:
                fail(f"core {cid}: round {n} incomplete")
                continue
            # M->S: sync_req before sync_ack; S->M: sync_notify before sync_recv.
            if clk.ticks(req[(s, n)]) > ack[n]:
                fail(f"core {cid}: sync_ack {n} before its sync_req (true clocks)")
            if notify[seq] > clk.ticks(t):
                fail(f"core {cid}: sync_recv {seq} before its sync_notify (true clocks)")
        for seq in ack:
            if (cid, seq) not in req:
                fail(f"core {cid}: sync_ack {seq} without sync_req")
        answered = sum(1 for (s, _) in recv if s == cid)
        if answered < 5:
            fail(f"core {cid}: only {answered} sync rounds")
    # Messages: (sender, id) -> (send cycles, dst); receives likewise.
    sends, recvs = {}, {}
    for cid, evs in traces.items():
        for ts, name, f in evs:
            if name == "msg_send":
                key = (cid, f["id"])
                if key in sends:
                    fail(f"core {cid}: msg id {f['id']} sent twice")
                sends[key] = (ts, f["dst"], f["size"])
            elif name == "msg_recv":
                key = (f["src"], f["id"])
                if key in recvs:
                    fail(f"core {cid}: msg {key} received twice")
                recvs[key] = (ts, cid, f["size"])

    def ref_lo(cid, c):
        return c if cid == 0 else clocks[cid].first_ns(c)

    def ref_hi(cid, c):
        return c if cid == 0 else clocks[cid].first_ns(c + 1) - 1

    for key, (ts, dst, size) in sends.items():
        if key not in recvs:
            if not partial:
                fail(f"msg {key} sent, never received")
            continue
        rts, rcore, rsize = recvs[key]
        if rcore != dst or rsize != size:
            fail(f"msg {key}: sent to {dst} ({size} B), received on {rcore} ({rsize} B)")
        # The receive is not before the send on the true time line.
        if ref_hi(rcore, rts) < ref_lo(key[0], ts):
            fail(f"msg {key}: received before it was sent (true clocks)")
    for key in recvs:
        if key not in sends:
            fail(f"msg {key} received, never sent")

    wrapped = [cid for cid, evs in traces.items() if cid and
               min(e[0] for e in evs) < 1 << 32 <= max(e[0] for e in evs)]
    if not wrapped:
        fail("no 32-bit counter wrapped")
    for cid, evs in traces.items():
        if cid == 0:
            continue
        kinds = {e[1] for e in evs}
        for k in ("task_switch", "isr_enter", "isr_exit", "activity_begin",
                  "activity_end", "msg_send", "msg_recv"):
            if k not in kinds and not partial:
                fail(f"core {cid}: no {k}")
        lo, hi = ref_lo(cid, evs[0][0]), ref_hi(cid, evs[-1][0])
        if lo < truth["start_ns"] or hi > truth["end_ns"] + 1:
            fail(f"core {cid}: events outside [start_ns, end_ns] of truth.json")
    acts = {(f["activity"]) for evs in traces.values() for _, n, f in evs
            if n == "activity_begin"}
    want = {"alloc", "split", "gather"} | {f"sobel_{k}" for k in range(nr_slaves)}
    if not partial and not want <= acts:
        fail(f"activities missing: {sorted(want - acts)}")
    frames = [f for _, n, f in traces[0] if n == "frame_end"]
    print(f"{len(cores)} cores, {rounds} sync rounds, {len(sends)} messages, "
          f"{len(frames)} frames ({sum(f['status'] == 'late' for f in frames)} late), "
          f"wrapped: {[names[c] for c in wrapped]}")


if __name__ == "__main__":
    main()
    for e in errors[:30]:
        print("FAIL:", e)
    sys.exit(1 if errors else 0)
