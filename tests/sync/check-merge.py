#!/usr/bin/python3
# Checks a merged trace (hetrace sync output) through babeltrace2's
# Python bindings against the timeline mkcapture.py wrote:
# - every event of every core is there, in the core's order, with every
#   field (payload, common and specific context) equal to what was
#   traced;
# - each event's time is within TOL ns of its true time (per core);
# - no message (msg_*, sync handshake) is received before it was sent;
# - the discarded events reach babeltrace2; the env names every core.
# Usage: check-merge.py TRACE TRUTH_JSON [core=TOL_NS ...] [--unsynced CORE]
import json
import os
import sys

import bt2

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bt2values import value  # noqa: E402

trace, truth_path = sys.argv[1], sys.argv[2]
tol = {}
unsynced = set()
args = sys.argv[3:]
while args:
    a = args.pop(0)
    if a == "--unsynced":
        unsynced.add(args.pop(0))
    else:
        k, v = a.split("=")
        tol[k] = float(v)
truth = json.load(open(truth_path))
by_id = {v["id"]: k for k, v in truth.items()}
errors = []


def err(msg):
    if len(errors) < 30:
        errors.append(msg)


got = {k: [] for k in truth}
order = []  # (ts, core, name, fields) in babeltrace2's order
discarded = {}
env = None
for msg in bt2.TraceCollectionMessageIterator(trace):
    if isinstance(msg, bt2._DiscardedEventsMessageConst):
        cid = int(msg.stream.trace.environment and 0 or 0)
        name = msg.stream.name or ""
        discarded[name] = discarded.get(name, 0) + (msg.count or 0)
        continue
    if not isinstance(msg, bt2._EventMessageConst):
        continue
    ev = msg.event
    if env is None:
        env = dict(ev.stream.trace.environment.items())
    cid = int(ev.packet.context_field["core_id"])
    core = by_id.get(cid)
    if core is None:
        err("event with core_id %d, not a core of the capture" % cid)
        continue
    ts = msg.default_clock_snapshot.ns_from_origin
    fields = value(ev.payload_field)
    ctx = value(ev.common_context_field)
    spec = value(ev.specific_context_field) if ev.specific_context_field is not None else None
    got[core].append((ts, ev.name, fields, ctx, spec))
    order.append((ts, core, ev.name, fields))

total = 0
for core, t in truth.items():
    want = t["events"]
    have = got[core]
    total += len(have)
    if len(want) != len(have):
        err("%s: %d events traced, %d in the merged trace" %
            (core, len(want), len(have)))
    for i, (w, h) in enumerate(zip(want, have)):
        tns, name, fields = w
        if h[1] != name or h[2] != fields:
            err("%s: event %d: traced %s %r, merged %s %r" %
                (core, i, name, fields, h[1], h[2]))
            continue
        if core in tol and abs(h[0] - tns) > tol[core]:
            err("%s: event %d (%s): merged at %d ns, true time %.1f ns "
                "(more than %g ns off)" % (core, i, name, h[0], tns, tol[core]))
    prev = None
    for h in have:
        if prev is not None and h[0] < prev:
            err("%s: events out of order in its stream" % core)
            break
        prev = h[0]

# messages: the send before the receive
sends, recvs = {}, {}
for ts, core, name, f in order:
    cid = truth[core]["id"]
    if name == "msg_send":
        sends[("m", cid, f["id"])] = ts
    elif name == "msg_recv":
        recvs[("m", f["src"], f["id"])] = ts
    elif name == "sync_req":
        sends[("d", f["slave"], f["seq"])] = ts
    elif name == "sync_ack":
        recvs[("d", cid, f["seq"])] = ts
    elif name == "sync_notify":
        sends[("u", cid, f["seq"])] = ts
    elif name == "sync_recv":
        recvs[("u", f["slave"], f["seq"])] = ts
pairs = 0
for k, r in recvs.items():
    if k not in sends:
        continue
    involved = {by_id.get(k[1])}
    if involved & unsynced:
        continue
    pairs += 1
    if r < sends[k]:
        err("message %r received at %d ns, before its send at %d ns" %
            (k, r, sends[k]))
if pairs == 0 and not unsynced:
    err("no message pairs found in the merged trace")

# discarded events
for core, t in truth.items():
    want = t["discarded"]
    have = sum(v for k, v in discarded.items() if k.endswith(core))
    if want != have:
        err("%s: %d events discarded, babeltrace2 reports %d" %
            (core, want, have))

# env
if env is None:
    err("no event at all")
else:
    for core, t in truth.items():
        if env.get("core_%d_name" % t["id"]) != core:
            err("env core_%d_name = %r, want %r" %
                (t["id"], env.get("core_%d_name" % t["id"]), core))
    if env.get("sync_reference") != "arm0":
        err("env sync_reference = %r" % env.get("sync_reference"))
    for core in unsynced:
        q = env.get("core_%d_sync" % truth[core]["id"], "")
        if "unsynchronized" not in q:
            err("env core_%d_sync = %r: not marked unsynchronized" %
                (truth[core]["id"], q))
        if core not in env.get("sync_unsynced_cores", ""):
            err("env sync_unsynced_cores = %r lacks %s" %
                (env.get("sync_unsynced_cores"), core))

for e in errors:
    print("FAIL:", e)
print("checked %d events, %d messages" % (total, pairs))
sys.exit(1 if errors else 0)
