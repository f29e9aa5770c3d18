#!/usr/bin/python3
# Writes a small synthetic capture for the merge tests: one CTF trace
# per core, each with its own clock, from one true timeline (ns):
#   arm0  master, 1 GHz, the reference (its clock is the true time)
#   dsp0  slave, 200 MHz + 80 ppm, big-endian, 32-bit event timestamps
#         that wrap, 5 events discarded, offset
#   mcu0  slave, 32.768 kHz - 150 ppm
# Events: the sync handshake (docs/events.md) with every slave each
# millisecond, application messages (arm0 -> dsp0, dsp0 -> mcu0), and
# `work` events with every field type (strings, signed, hex, bit-packed,
# big-endian, floats, enum, array, sequence, variant) and a common and
# a specific context.
# Usage: mkcapture.py OUT_CAPTURE TRUTH_JSON [OPTIONS]
#   --ms N           duration (default 50)
#   --no-sync CORE   CORE writes no sync events (and gets none); for
#                    mcu0, no application messages either
#   --dup-ack        one sync_ack of dsp0 is written twice
#   --back-recv      one sync_recv of arm0 has a seq going backwards
#   --seed N
#   --wild CORE:EVENT:K:CYCLES  the K-th (from 0) EVENT of CORE is stamped
#                    CYCLES, whatever its true time (a damaged timestamp;
#                    64-bit cores only: arm0, mcu0); repeatable
#   --clock CORE:FREQ:OFFSET_S:OFFSET  CORE's clock description as given
#                    (hostile frequencies and offsets); timestamps unchanged
#   --packed         the floats of `work` aligned on a byte (nothing is
#                    aligned beyond a byte: the merge copies the records)
#   --split CORE     CORE's packets alternate between two stream files,
#                    `stream` and `stream_1` (each numbered on its own)
#   --wide-sync      the sync_* payloads hold other members before seq and
#                    slave (a string, an array, bit-packed and big-endian
#                    integers), named `_seq` and `_slave`, bit-packed
# TRUTH_JSON: per core, its events in order: [true ns, name, fields].
import json
import math
import os
import random
import struct
import sys
import uuid as uuidmod

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ctfbits import Bits  # noqa: E402

args = sys.argv[1:]
out, truth_path = args[0], args[1]
opts = {"ms": 50, "no_sync": None, "dup_ack": False, "back_recv": False,
        "seed": 7, "wild": [], "clock": {}, "packed": False, "split": None,
        "wide": False}
i = 2
while i < len(args):
    a = args[i]
    if a == "--ms":
        opts["ms"] = int(args[i + 1]); i += 2
    elif a == "--no-sync":
        opts["no_sync"] = args[i + 1]; i += 2
    elif a == "--dup-ack":
        opts["dup_ack"] = True; i += 1
    elif a == "--back-recv":
        opts["back_recv"] = True; i += 1
    elif a == "--wild":
        c, e, k, v = args[i + 1].split(":")
        opts["wild"].append((c, e, int(k), int(v, 0))); i += 2
    elif a == "--clock":
        c, f, os_, oc = args[i + 1].split(":")
        opts["clock"][c] = (int(f, 0), int(os_, 0), int(oc, 0)); i += 2
    elif a == "--packed":
        opts["packed"] = True; i += 1
    elif a == "--wide-sync":
        opts["wide"] = True; i += 1
    elif a == "--split":
        opts["split"] = args[i + 1]; i += 2
    elif a == "--seed":
        opts["seed"] = int(args[i + 1]); i += 2
    else:
        sys.exit("mkcapture.py: unknown option " + a)
rnd = random.Random(opts["seed"])

CORES = [
    # name, id, role, master, freq, ppm, offset cycles, byte order, ts bits
    ("arm0", 0, "master", None, 1000000000, 0.0, 0, "le", 64),
    ("dsp0", 1, "slave", "arm0", 200000000, 80.0, (1 << 32) - 2000000,
     "be", 32),
    ("mcu0", 2, "slave", "arm0", 32768, -150.0, 123456789, "le", 64),
]
SLAVES = [c for c in CORES if c[2] == "slave"]


def clock(core, t_ns):
    _, _, _, _, f, ppm, off, _, _ = core
    return off + math.floor(f * (1 + ppm * 1e-6) * t_ns / 1e9)


# ---- the timeline: (true ns, core name, event name, fields)
events = {c[0]: [] for c in CORES}
span = opts["ms"] * 1000000


def ev(core, t, name, fields, ctx=None):
    events[core].append([t, name, fields, ctx])


seq = 0
t = 300000.0
dups_done = back_done = False
while t < span - 100000:
    for s in SLAVES:
        if opts["no_sync"] in (s[0], "arm0"):
            continue
        t1 = t + rnd.uniform(2000, 5000)
        t2 = t1 + rnd.uniform(200, 1000)
        t3 = t2 + rnd.uniform(1000, 4000)
        ev("arm0", t, "sync_req", {"seq": seq, "slave": s[1]})
        ev(s[0], t1, "sync_ack", {"seq": seq})
        if opts["dup_ack"] and s[0] == "dsp0" and seq > 20 and not dups_done:
            ev(s[0], t1 + 10, "sync_ack", {"seq": seq})
            dups_done = True
        ev(s[0], t2, "sync_notify", {"seq": seq + 1})
        rs = seq + 1
        if opts["back_recv"] and seq > 40 and not back_done:
            rs = 3
            back_done = True
        ev("arm0", t3, "sync_recv", {"seq": rs, "slave": s[1]})
        seq += 2
        t = t3 + 20000
    t += 1000000 - 20000 * len(SLAVES)

mid = 0
t = 500000.0
while t < span - 100000:
    d = t + rnd.uniform(5000, 20000)
    ev("arm0", t, "msg_send", {"id": mid, "dst": 1, "size": 64})
    ev("dsp0", d, "msg_recv", {"id": mid, "src": 0, "size": 64})
    mid += 1
    if mid % 3 == 0 and opts["no_sync"] != "mcu0":
        d2 = d + rnd.uniform(40000, 90000)
        ev("dsp0", d + 1000, "msg_send", {"id": mid, "dst": 2, "size": 8})
        ev("mcu0", d2, "msg_recv", {"id": mid, "src": 1, "size": 8})
        mid += 1
    t += 370000

NAMES = ["idle", "sobel", "dma \"copy\"", "x\\y", "ünïcode", "e"]  # babeltrace2 2.0 shows a stale value for ""
STATES = ["IDLE", "RUN", "WAIT"]
for c in CORES:
    t = 100000.0 + c[1] * 777
    k = 0
    while t < span:
        st = k % 5 if k % 5 < 3 else 2
        label = STATES[min(st, 2)]
        v = {"IDLE": k * 7, "RUN": "r%d" % k, "WAIT": k % 256}[label]
        n = k % 4
        ev(c[0], t, "work", {
            "name": NAMES[k % len(NAMES)],
            "i8": (k % 256) - 128,
            "h16": (k * 4099) & 0xFFFF,
            "b3": k % 8,
            "b5": (k % 32) - 16,
            "be32": (k * 2654435761) & 0xFFFFFFFF,
            "d": k / 3.0 - 1e10 if k % 2 else -0.0 + k * 1e-300,
            "f": struct.unpack("<f", struct.pack("<f", k * 0.1 + 0.5))[0],
            "state": st,
            "arr": [k & 255, (k >> 8) & 255, 7],
            "n": n,
            "seq": [(k + j) & 0xFFFF for j in range(n)],
            "v": v,
        }, ctx={"prio": -(k % 100)})
        k += 1
        t += rnd.uniform(20000, 90000)

for c in CORES:
    events[c[0]].sort(key=lambda e: e[0])

# ---- CTF
EV_IDS = {"sync_req": 0, "sync_ack": 1, "sync_notify": 2, "sync_recv": 3,
          "msg_send": 4, "msg_recv": 5, "work": 6}


def encode_work(w, f):
    # a structure is aligned as its most aligned member
    w.align(8 if opts["packed"] else 64)
    w.string(f["name"])
    w.uint(f["i8"], 8)
    w.uint(f["h16"], 16)
    w.uint(f["b3"], 3, 1)
    w.uint(f["b5"], 5, 1)
    w.uint(f["be32"], 32, 8, "be")
    w.uint(struct.unpack("<Q", struct.pack("<d", f["d"]))[0], 64,
           8 if opts["packed"] else 64)
    w.uint(struct.unpack("<I", struct.pack("<f", f["f"]))[0], 32,
           8 if opts["packed"] else 32)
    w.uint(f["state"], 8)
    for x in f["arr"]:
        w.uint(x, 8)
    w.uint(f["n"], 32)
    for x in f["seq"]:
        w.uint(x, 16)
    label = STATES[min(f["state"], 2)]
    if label == "IDLE":
        w.uint(f["v"], 32)
    elif label == "RUN":
        w.string(f["v"])
    else:
        w.uint(f["v"], 8)


NARROW_SYNC = """event { name = "sync_req"; id = 0; stream_id = 0; fields := struct { uint32_t seq; uint32_t slave; }; };
event { name = "sync_ack"; id = 1; stream_id = 0; fields := struct { uint32_t seq; }; };
event { name = "sync_notify"; id = 2; stream_id = 0; fields := struct { uint32_t seq; }; };
event { name = "sync_recv"; id = 3; stream_id = 0; fields := struct { uint32_t seq; uint32_t slave; }; };
"""
# (req/recv: after a string, an array, a 3-bit and a big-endian signed
# 16-bit integer, seq on 32 bits aligned on 32, slave on 7 bits; ack/notify:
# seq on 29 bits after 3 bits, in the trace's byte order)
WIDE_REQ = """struct { string tag; uint8_t arr[3];
	integer { size = 3; align = 1; signed = false; } b3;
	integer { size = 16; align = 8; signed = true; byte_order = be; } s16;
	integer { size = 32; align = 32; signed = false; } _seq;
	integer { size = 7; align = 1; signed = false; } _slave; }"""
WIDE_ACK = """struct { integer { size = 3; align = 1; signed = false; } b3;
	integer { size = 29; align = 1; signed = false; } _seq; }"""
WIDE_SYNC = """event { name = "sync_req"; id = 0; stream_id = 0; fields := %s; };
event { name = "sync_ack"; id = 1; stream_id = 0; fields := %s; };
event { name = "sync_notify"; id = 2; stream_id = 0; fields := %s; };
event { name = "sync_recv"; id = 3; stream_id = 0; fields := %s; };
""" % (WIDE_REQ, WIDE_ACK, WIDE_ACK, WIDE_REQ)


def encode_sync(w, name, f):
    if not opts["wide"]:
        w.uint(f["seq"], 32)
        if name in ("sync_req", "sync_recv"):
            w.uint(f["slave"], 32)
        return
    if name in ("sync_req", "sync_recv"):
        # (a structure is aligned as its most aligned member: _seq)
        w.align(32)
        w.string("round %d" % f["seq"])
        for x in (1, 2, f["seq"] & 0xff):
            w.uint(x, 8)
        w.uint(5, 3, 1)
        w.uint(-(f["seq"] % 300) & 0xffff, 16, 8, "be")
        w.uint(f["seq"], 32, 32)
        w.uint(f["slave"], 7, 1)
    else:
        w.uint(6, 3, 1)
        w.uint(f["seq"], 29, 1)


def metadata(c, tuuid, cuuid):
    name, cid, role, master, freq, _, _, bo, tsbits = c
    ck = opts["clock"].get(name, (freq, 0, 0))
    env = 'core_name = "%s"; core_id = %d; core_role = "%s";' % (
        name, cid, role)
    if master:
        env += ' core_master = "%s";' % master
    return """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
trace {
	major = 1; minor = 8;
	uuid = "%(tuuid)s";
	byte_order = %(bo)s;
	packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; };
};
env { domain = "bare"; tracer_name = "mkcapture"; %(env)s };
clock { name = %(name)s_clk; uuid = "%(cuuid)s"; freq = %(cfreq)d;%(cos)s offset = %(coc)d; };
typealias integer { size = 64; align = 8; signed = false; map = clock.%(name)s_clk.value; } := ts64;
typealias integer { size = %(tsbits)d; align = 8; signed = false; map = clock.%(name)s_clk.value; } := tsev;
stream {
	id = 0;
	packet.context := struct {
		uint64_t packet_size; uint64_t content_size;
		ts64 timestamp_begin; ts64 timestamp_end;
		uint64_t events_discarded; uint64_t packet_seq_num; uint32_t core_id;
	};
	event.header := struct { uint32_t id; tsev timestamp; };
	event.context := struct { integer { size = 16; align = 8; signed = true; } prio; };
};
%(sync_events)sevent { name = "msg_send"; id = 4; stream_id = 0; fields := struct { uint64_t id; uint32_t dst; uint32_t size; }; };
event { name = "msg_recv"; id = 5; stream_id = 0; fields := struct { uint64_t id; uint32_t src; uint32_t size; }; };
event {
	name = "work"; id = 6; stream_id = 0; loglevel = 3;
	model.emf.uri = "https://example.com/work";
	context := struct { uint16_t cookie; };
	fields := struct {
		string name;
		integer { size = 8; align = 8; signed = true; } i8;
		integer { size = 16; align = 8; signed = false; base = 16; } h16;
		integer { size = 3; align = 1; signed = false; } b3;
		integer { size = 5; align = 1; signed = true; } b5;
		integer { size = 32; align = 8; signed = false; byte_order = be; } be32;
		floating_point { exp_dig = 11; mant_dig = 53; align = %(falign64)d; } d;
		floating_point { exp_dig = 8; mant_dig = 24; align = %(falign32)d; } f;
		enum : uint8_t { IDLE = 0, RUN = 1, WAIT = 2 ... 4 } state;
		uint8_t arr[3];
		uint32_t n;
		uint16_t seq[n];
		variant <state> { uint32_t IDLE; string RUN; uint8_t WAIT; } v;
	};
};
""" % {"tuuid": tuuid, "cuuid": cuuid, "bo": bo, "env": env, "name": name,
       "cfreq": ck[0], "cos": " offset_s = %d;" % ck[1] if name in opts["clock"] else "", "coc": ck[2], "tsbits": tsbits,
       "sync_events": WIDE_SYNC if opts["wide"] else NARROW_SYNC,
       "falign64": 8 if opts["packed"] else 64,
       "falign32": 8 if opts["packed"] else 32}


truth = {}
for c in CORES:
    name, cid, _, _, _, _, _, bo, tsbits = c
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    tu = uuidmod.UUID(int=rnd.getrandbits(128), version=4)
    cu = uuidmod.UUID(int=rnd.getrandbits(128), version=4)
    with open(os.path.join(d, "metadata"), "w") as f:
        f.write(metadata(c, str(tu), str(cu)))
    p = "<" if bo == "le" else ">"
    evs = events[name]
    wild = {}
    for wc, we, wk, wv in opts["wild"]:
        if wc == name:
            idx = [j for j, e in enumerate(evs) if e[1] == we][wk]
            wild[idx] = wv
    stamps = [wild.get(j, clock(c, e[0])) for j, e in enumerate(evs)]
    kept = []
    discarded = 0
    seqn = 0
    data = bytearray()
    data1 = bytearray()
    split = opts["split"] == name
    per = 40
    i = 0
    while i < len(evs):
        chunk = evs[i:i + per]
        cstamps = stamps[i:i + per]
        i += per
        if name == "dsp0" and seqn == 3:
            # five work events lost in this packet
            lost = [e for e in chunk if e[1] == "work"][:5]
            keep = [j for j, e in enumerate(chunk)
                    if not any(e is x for x in lost)]
            chunk = [chunk[j] for j in keep]
            cstamps = [cstamps[j] for j in keep]
            discarded += len(lost)
        w = Bits(bo)
        w.uint(0xC1FC1FC1, 32)
        for b in tu.bytes:
            w.uint(b, 8)
        w.uint(0, 32)
        ctx_pos = w.pos
        for _ in range(6):
            w.uint(0, 64)
        w.uint(cid, 32)
        for e, ts in zip(chunk, cstamps):
            w.align(8)
            w.uint(EV_IDS[e[1]], 32)
            w.uint(ts, tsbits)
            w.uint(e[3]["prio"] if e[3] else 0, 16)
            f = e[2]
            if e[1] == "work":
                w.uint(0xBEEF & (len(kept) * 31), 16)  # cookie
                encode_work(w, f)
            elif e[1].startswith("sync_"):
                encode_sync(w, e[1], f)
            elif e[1] == "msg_send":
                w.uint(f["id"], 64); w.uint(f["dst"], 32); w.uint(f["size"], 32)
            else:
                w.uint(f["id"], 64); w.uint(f["src"], 32); w.uint(f["size"], 32)
            kept.append([e[0], e[1], f])
        content = w.pos
        size = (content + 7) // 8 * 8
        tb = min(cstamps) if chunk else 0
        te = max(cstamps) if chunk else tb
        w.buf.extend(b"\0" * (size // 8 - len(w.buf)))
        struct.pack_into(p + "QQQQQQ", w.buf, ctx_pos // 8, size, content,
                         tb, te, discarded, seqn // 2 if split else seqn)
        if split and seqn % 2:
            data1 += w.buf
        else:
            data += w.buf
        seqn += 1
    with open(os.path.join(d, "stream"), "wb") as f:
        f.write(data)
    if split:
        with open(os.path.join(d, "stream_1"), "wb") as f:
            f.write(data1)
    truth[name] = {"id": cid, "events": kept, "discarded": discarded}
with open(truth_path, "w") as f:
    json.dump(truth, f)
