#!/usr/bin/python3
"""Checks a board recorded by test-board-record.sh and synchronized by
hetrace sync: every slave's ticks n = 0, 1, ... without a gap (exactly
TICKS of them when the slave said how many it traced), the master's
sync_req and sync_recv as many as record.json's rounds and answered, and
the slaves' ticks on the master's time once synchronized (their clocks
run 1, 2, 3... s ahead).

    check-board.py SYNCED_TRACE RECORD_JSON [CORE=TICKS]...
"""
import json
import os
import statistics
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
import bt2  # noqa: E402
from bt2values import value  # noqa: E402

trace, record = sys.argv[1], json.load(open(sys.argv[2]))
want_ticks = dict(a.split("=") for a in sys.argv[3:])
names = {c["core_id"]: c["name"] for c in record["cores"] if "core_id" in c}
ticks, times, counts = {}, {}, {}
for msg in bt2.TraceCollectionMessageIterator(trace):
    if type(msg) is not bt2._EventMessageConst:
        continue
    ev = msg.event
    core = names.get(int(ev.packet.context_field["core_id"]), "?")
    counts.setdefault(core, {}).setdefault(ev.name, 0)
    counts[core][ev.name] += 1
    times.setdefault(core, []).append(msg.default_clock_snapshot.ns_from_origin)
    if ev.name == "tick":
        ticks.setdefault(core, []).append(value(ev.payload_field["n"]))

fail = 0


def bad(msg):
    global fail
    print("FAIL: check-board: " + msg)
    fail = 1


master = [c for c in record["cores"] if c["role"] == "master"][0]["name"]
rounds = answered = 0
for c in record["cores"]:
    if c["role"] != "slave":
        continue
    name = c["name"]
    n = ticks.get(name, [])
    if not n:
        bad(f"{name}: no ticks")
        continue
    if n != list(range(len(n))):
        bad(f"{name}: ticks not 0..{len(n) - 1} in order")
    if name in want_ticks and len(n) != int(want_ticks[name]):
        bad(f"{name}: {len(n)} ticks, the slave traced {want_ticks[name]}")
    s = c["sync"]
    # sync_req is traced before the doorbell rings; a doorbell that
    # failed (the slave gone at the end) posted no request.
    rounds += s.get("rounds", 0) + s.get("raise_errors", 0)
    answered += s.get("answered", 0)
    if c["ring"]["packets"] <= 0:
        bad(f"{name}: record.json says no packets")
    # Synchronized: the slave's events sit within the master's span.
    off = (statistics.median(times[name]) - statistics.median(times[master])) / 1e9
    if abs(off) > 0.5:
        bad(f"{name}: {off:.3f} s from the master once synchronized")
mc = counts.get(master, {})
if mc.get("sync_req", 0) != rounds:
    bad(f"{master}: {mc.get('sync_req', 0)} sync_req, record.json says {rounds} rounds and failed doorbells")
if mc.get("sync_recv", 0) != answered:
    bad(f"{master}: {mc.get('sync_recv', 0)} sync_recv, record.json says {answered} answered")
print("check-board: " + ", ".join(f"{k} {len(v)} ticks" for k, v in sorted(ticks.items()))
      + f", {master} {rounds} rounds")
sys.exit(fail)
