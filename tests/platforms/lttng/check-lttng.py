#!/usr/bin/python3
# Checks `hetrace sync CAPTURE --master-lttng LTTNG -o MERGED` through
# babeltrace2's Python bindings (docs/lttng.md):
# - the merged trace has one clock, the LTTng trace's: same name,
#   frequency, offsets and UUID;
# - the LTTng core's events are the LTTng trace's, one for one: same
#   names, clock values (cycles and ns from origin), cpu_id, common
#   context (vpid, vtid, procname) and payload;
# - every slave core's events are all there, in their order, with their
#   fields (payload and contexts) as the capture has them;
# - every message (sync_req/sync_ack, sync_notify/sync_recv,
#   msg_send/msg_recv) is received at or after its send;
# - the env names every core (core_<id>_name, _role, _master) and keeps
#   the LTTng trace's env (hostname, tracer_name, ...).
# Usage: check-lttng.py CAPTURE LTTNG_TRACE_DIR MERGED LTTNG_CORE
import os
import sys

import bt2

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from bt2values import value  # noqa: E402

capture, lttng, merged, lt_core = sys.argv[1:5]
errors = []


def err(msg):
    if len(errors) < 30:
        errors.append(msg)


def short(name):
    return name.rsplit(":", 1)[-1]


def events(path):
    """(ev tuple list, clock class, env) of every event under path."""
    out = []
    cc = None
    env = None
    for msg in bt2.TraceCollectionMessageIterator(path):
        if not isinstance(msg, bt2._EventMessageConst):
            continue
        ev = msg.event
        snap = msg.default_clock_snapshot
        cc = snap.clock_class
        if env is None:
            env = dict((k, v if isinstance(v, int) else str(v))
                       for k, v in ev.stream.trace.environment.items())
        pctx = value(ev.packet.context_field) if ev.packet else {}
        out.append({
            "name": ev.name,
            "cycles": snap.value,
            "ns": snap.ns_from_origin,
            "pctx": pctx,
            "ctx": value(ev.common_context_field),
            "spec": value(ev.specific_context_field),
            "payload": value(ev.payload_field),
        })
    return out, cc, env


orig, occ, oenv = events(lttng)
got, mcc, menv = events(merged)
if not orig:
    err("the LTTng trace %s has no event" % lttng)

# The clock: the LTTng trace's own.
for attr in ("name", "frequency", "uuid", "origin_is_unix_epoch"):
    if getattr(occ, attr) != getattr(mcc, attr):
        err("merged clock %s = %r, LTTng clock %r" %
            (attr, getattr(mcc, attr), getattr(occ, attr)))
if (occ.offset.seconds, occ.offset.cycles) != (mcc.offset.seconds,
                                               mcc.offset.cycles):
    err("merged clock offset (%d s, %d) != LTTng (%d s, %d)" %
        (mcc.offset.seconds, mcc.offset.cycles, occ.offset.seconds,
         occ.offset.cycles))

# Cores by id from the env.
names = {}
for k, v in menv.items():
    if k.startswith("core_") and k.endswith("_name"):
        names[int(k[5:-5])] = v
lt_ids = [i for i, n in names.items() if n == lt_core]
if len(lt_ids) != 1:
    err("env names no core %s: %r" % (lt_core, names))
    lt_id = -1
else:
    lt_id = lt_ids[0]
for k in ("hostname", "tracer_name", "domain"):
    if k in oenv and menv.get(k) != oenv[k]:
        err("env %s = %r, LTTng trace has %r" % (k, menv.get(k), oenv[k]))
if menv.get("sync_reference") != lt_core:
    err("env sync_reference = %r" % menv.get("sync_reference"))

by_core = {}
for e in got:
    by_core.setdefault(e["pctx"].get("core_id"), []).append(e)

# The LTTng core: unchanged.
mine = by_core.get(lt_id, [])
if len(mine) != len(orig):
    err("%s: %d events in the merged trace, %d in the LTTng trace" %
        (lt_core, len(mine), len(orig)))
for i, (a, b) in enumerate(zip(orig, mine)):
    pa = {k: v for k, v in a["pctx"].items() if k == "cpu_id"}
    pb = {k: v for k, v in b["pctx"].items() if k == "cpu_id"}
    for k in ("name", "cycles", "ns", "ctx", "spec", "payload"):
        if a[k] != b[k]:
            err("%s event %d (%s): %s %r, LTTng trace %r" %
                (lt_core, i, a["name"], k, b[k], a[k]))
            break
    if pa != pb:
        err("%s event %d: packet context %r, LTTng trace %r" %
            (lt_core, i, pb, pa))

# The slaves: every event, in order, with its fields.
for cid, name in sorted(names.items()):
    if cid == lt_id:
        continue
    if menv.get("core_%d_master" % cid) != lt_core:
        err("%s: env core_%d_master = %r" %
            (name, cid, menv.get("core_%d_master" % cid)))
    src, _, _ = events("%s/%s" % (capture, name))
    dst = by_core.get(cid, [])
    if len(src) != len(dst):
        err("%s: %d events merged, %d captured" % (name, len(dst), len(src)))
    for i, (a, b) in enumerate(zip(src, dst)):
        if (a["name"], a["ctx"], a["spec"], a["payload"]) != \
                (b["name"], b["ctx"], b["spec"], b["payload"]):
            err("%s event %d: %r != captured %r" % (name, i, b, a))
            break
    for i in range(1, len(dst)):
        if dst[i]["ns"] < dst[i - 1]["ns"]:
            err("%s: event %d goes back in time" % (name, i))
            break

# Every message received after it was sent.
sends, recvs = {}, {}
for e in got:
    core = e["pctx"].get("core_id")
    p = e["payload"] or {}
    n = short(e["name"])
    if n == "sync_req":
        sends[("d", p["slave"], p["seq"])] = e["ns"]
    elif n == "sync_ack":
        recvs[("d", core, p["seq"])] = e["ns"]
    elif n == "sync_notify":
        sends[("u", core, p["seq"])] = e["ns"]
    elif n == "sync_recv":
        recvs[("u", p["slave"], p["seq"])] = e["ns"]
    elif n == "msg_send":
        sends[("m", core, p["id"])] = e["ns"]
    elif n == "msg_recv":
        recvs[("m", p["src"], p["id"])] = e["ns"]
pairs = late = 0
for k, t in recvs.items():
    if k in sends:
        pairs += 1
        if t < sends[k]:
            late += 1
            err("message %r received at %d ns, before its send at %d ns" %
                (k, t, sends[k]))
lt_pairs = sum(1 for k in recvs if k in sends and
               (k[0] == "m" and (k[1] == lt_id) or k[0] != "m"))
print("LTTng core %s: %d events unchanged; %d slave cores; %d messages "
      "matched, %d received before sent" %
      (lt_core, len(mine), len(names) - 1, pairs, late))
if pairs < 100:
    err("only %d messages matched" % pairs)
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
