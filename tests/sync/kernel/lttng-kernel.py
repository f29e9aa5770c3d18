#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes an LTTng kernel trace (CTF 1.8) laid out as lttng-modules 2.13
writes one: the metadata declares the kernel's event names and fields
(sched_switch, sched_wakeup, sched_waking, irq_handler_entry/exit,
softirq_entry/exit/raise, syscall_entry_*/syscall_exit_*), the
"large" event header (16-bit id, compact 32-bit or extended 64-bit
timestamp), a packet context with cpu_id, and the env of a kernel
session (domain = "kernel", tracer_name = "lttng-modules"). One stream
file per CPU (channel0_<cpu>), packets padded to 4 KiB.

usage: lttng-kernel.py OUT EVENTS.json [--clock-name monotonic]
         [--offset-s S] [--offset CYCLES] [--freq HZ] [--hostname H]
         [--packet-events N] [--discard CPU:N] [--damage CPU:PACKET]

EVENTS.json: [[cpu, timestamp (clock cycles), name, {field: value}], ...]
in time order per CPU. --discard puts N discarded events in the second
packet's events_discarded of that CPU; --damage writes that packet
(index from 0) with a wrong magic.
"""
import argparse
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
from ctfbits import Bits  # noqa: E402

MAGIC = 0xC1FC1FC1
UUID = bytes(range(0x10, 0x20))
CLOCK_UUID = "7b3c2f0e-1d2a-4b5c-8d6e-0f1a2b3c4d5e"

# field kinds: (tsdl, writer)
COMM = "comm"  # char[16], UTF8
STR = "string"
STATE = "state"  # enum : int64 task state

def I(size, signed, base=10):
    return ("int", size, signed, base)

TASK_STATES = [
    ("TASK_RUNNING", 0), ("TASK_INTERRUPTIBLE", 1),
    ("TASK_UNINTERRUPTIBLE", 2), ("TASK_STOPPED", 4), ("TASK_TRACED", 8),
    ("EXIT_DEAD", 16), ("EXIT_ZOMBIE", 32), ("TASK_PARKED", 64),
    ("TASK_DEAD", 128), ("TASK_WAKEKILL", 256), ("TASK_WAKING", 512),
    ("TASK_NOLOAD", 1024), ("TASK_NEW", 2048),
]

SYSCALLS = {
    "read": ([("fd", I(32, False)), ("count", I(64, False))],
             [("ret", I(64, True)), ("buf", I(64, False, 16))]),
    "write": ([("fd", I(32, False)), ("buf", I(64, False, 16)),
               ("count", I(64, False))], [("ret", I(64, True))]),
    "openat": ([("dfd", I(32, True)), ("filename", STR),
                ("flags", I(32, True)), ("mode", I(16, False))],
               [("ret", I(64, True))]),
    "close": ([("fd", I(32, False))], [("ret", I(64, True))]),
    "futex": ([("uaddr", I(64, False, 16)), ("op", I(32, True)),
               ("val", I(32, False)), ("utime", I(64, False, 16)),
               ("uaddr2", I(64, False, 16)), ("val3", I(32, False))],
              [("ret", I(64, True)), ("uaddr", I(64, False, 16)),
               ("uaddr2", I(64, False, 16))]),
}

EVENTS = [
    ("sched_switch", [("prev_comm", COMM), ("prev_tid", I(32, True)),
                      ("prev_prio", I(32, True)), ("prev_state", STATE),
                      ("next_comm", COMM), ("next_tid", I(32, True)),
                      ("next_prio", I(32, True))]),
    ("sched_wakeup", [("comm", COMM), ("tid", I(32, True)),
                      ("prio", I(32, True)), ("target_cpu", I(32, True))]),
    ("sched_waking", [("comm", COMM), ("tid", I(32, True)),
                      ("prio", I(32, True)), ("target_cpu", I(32, True))]),
    ("irq_handler_entry", [("irq", I(32, True)), ("name", STR)]),
    ("irq_handler_exit", [("irq", I(32, True)), ("ret", I(32, True))]),
    ("softirq_entry", [("vec", I(32, False))]),
    ("softirq_exit", [("vec", I(32, False))]),
    ("softirq_raise", [("vec", I(32, False))]),
]
for _n, (_entry, _exit) in SYSCALLS.items():
    EVENTS.append(("syscall_entry_" + _n, _entry))
    EVENTS.append(("syscall_exit_" + _n, _exit))
EVENT_ID = {n: i for i, (n, _) in enumerate(EVENTS)}
EVENT_FIELDS = dict(EVENTS)


def int_tsdl(size, signed, base=10, enc="none"):
    return ("integer { size = %d; align = 8; signed = %d; encoding = %s; "
            "base = %d; }" % (size, 1 if signed else 0, enc, base))


def field_tsdl(name, kind):
    if kind == COMM:
        return "%s _%s[16];" % (int_tsdl(8, True, 10, "UTF8"), name)
    if kind == STR:
        return "string _%s;" % name
    if kind == STATE:
        maps = ", ".join('"%s" = %d' % m for m in TASK_STATES)
        return "enum : %s { %s } _%s;" % (int_tsdl(64, True), maps, name)
    _, size, signed, base = kind
    return "%s _%s;" % (int_tsdl(size, signed, base), name)


def metadata(a):
    env = [("hostname", '"%s"' % a.hostname), ("domain", '"kernel"'),
           ("sysname", '"Linux"'), ("kernel_release", '"6.1.0-hetrace"'),
           ("kernel_version", '"#1 SMP PREEMPT_DYNAMIC"'),
           ("tracer_name", '"lttng-modules"'), ("tracer_major", "2"),
           ("tracer_minor", "13"), ("tracer_patchlevel", "0"),
           ("trace_buffering_scheme", '"global"'),
           ("trace_name", '"hetrace-kernel"'),
           ("trace_creation_datetime", '"20260101T000000+0000"')]
    clk = a.clock_name
    out = ["/* CTF 1.8 */", "",
           "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;",
           "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;",
           "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;",
           "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;",
           "typealias integer { size = 64; align = 8; signed = false; } := unsigned long;",
           "",
           "trace {", "\tmajor = 1;", "\tminor = 8;",
           '\tuuid = "%s";' % fmt_uuid(UUID), "\tbyte_order = le;",
           "\tpacket.header := struct {", "\t\tuint32_t magic;",
           "\t\tuint8_t  uuid[16];", "\t\tuint32_t stream_id;",
           "\t\tuint64_t stream_instance_id;", "\t};", "};", "",
           "env {"] + ["\t%s = %s;" % e for e in env] + ["};", "",
           "clock {", "\tname = \"%s\";" % clk,
           '\tuuid = "%s";' % CLOCK_UUID,
           '\tdescription = "Monotonic Clock";',
           "\tfreq = %d; /* Frequency, in Hz */" % a.freq,
           "\toffset_s = %d;" % a.offset_s,
           "\toffset = %d;" % a.offset, "};", ""]
    for size, al in ((32, 8), (64, 8)):
        out += ["typealias integer {",
                "\tsize = %d; align = %d; signed = false;" % (size, al),
                "\tmap = clock.%s.value;" % clk,
                "} := uint%d_clock_%s_t;" % (size, clk), ""]
    out += ["struct packet_context {",
            "\tuint64_clock_%s_t timestamp_begin;" % clk,
            "\tuint64_clock_%s_t timestamp_end;" % clk,
            "\tuint64_t content_size;", "\tuint64_t packet_size;",
            "\tuint64_t packet_seq_num;", "\tunsigned long events_discarded;",
            "\tuint32_t cpu_id;", "};", "",
            "struct event_header_large {",
            "\tenum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;",
            "\tvariant <id> {", "\t\tstruct {",
            "\t\t\tuint32_clock_%s_t timestamp;" % clk, "\t\t} compact;",
            "\t\tstruct {", "\t\t\tuint32_t id;",
            "\t\t\tuint64_clock_%s_t timestamp;" % clk, "\t\t} extended;",
            "\t} v;", "} align(8);", "",
            "stream {", "\tid = 0;",
            "\tevent.header := struct event_header_large;",
            "\tpacket.context := struct packet_context;", "};", ""]
    for i, (name, fields) in enumerate(EVENTS):
        out += ["event {", '\tname = "%s";' % name, "\tid = %d;" % i,
                "\tstream_id = 0;", "\tfields := struct {"]
        out += ["\t\t" + field_tsdl(n, k) for n, k in fields]
        out += ["\t};", "};", ""]
    return "\n".join(out)


def fmt_uuid(b):
    h = b.hex()
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def put_field(b, kind, v):
    if kind == COMM:
        raw = v.encode()[:15]
        b.put_bytes(raw + b"\0" * (16 - len(raw)))
    elif kind == STR:
        b.string(v)
    elif kind == STATE:
        b.uint(v, 64)
    else:
        b.uint(v, kind[1])


def packet(cpu, seq, events, discarded, ts_begin, ts_end, bad_magic):
    b = Bits("le")
    b.uint(0xBADC0FFE if bad_magic else MAGIC, 32)
    b.put_bytes(UUID)
    b.uint(0, 32)
    b.uint(cpu, 64)
    b.uint(ts_begin, 64)
    b.uint(ts_end, 64)
    sizes = b.pos
    b.uint(0, 64)  # content_size, patched below
    b.uint(0, 64)  # packet_size
    b.uint(seq, 64)
    b.uint(discarded, 64)
    b.uint(cpu, 32)
    last = ts_begin
    for _, ts, name, fields in events:
        eid = EVENT_ID[name]
        b.align(8)
        if last <= ts < last + (1 << 32) and eid < 65535:
            b.uint(eid, 16)
            b.uint(ts & 0xFFFFFFFF, 32)
        else:
            b.uint(65535, 16)
            b.uint(eid, 32)
            b.uint(ts, 64)
        last = ts
        for fname, kind in EVENT_FIELDS[name]:
            put_field(b, kind, fields[fname])
    content = b.pos
    total = (content + 4096 * 8 - 1) // (4096 * 8) * 4096 * 8
    buf = bytearray(b.buf) + b"\0" * (total // 8 - len(b.buf))
    struct.pack_into("<QQ", buf, sizes // 8, content, total)
    return bytes(buf)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("events")
    p.add_argument("--clock-name", default="monotonic")
    p.add_argument("--offset-s", type=int, default=0)
    p.add_argument("--offset", type=int, default=0)
    p.add_argument("--freq", type=int, default=1000000000)
    p.add_argument("--hostname", default="arm0-linux")
    p.add_argument("--packet-events", type=int, default=8)
    p.add_argument("--discard", action="append", default=[])
    p.add_argument("--damage", action="append", default=[])
    a = p.parse_args()
    with open(a.events) as f:
        evs = json.load(f)
    for e in evs:
        if e[2] not in EVENT_ID:
            sys.exit("unknown event %s" % e[2])
        missing = [n for n, _ in EVENT_FIELDS[e[2]] if n not in e[3]]
        if missing:
            sys.exit("event %s lacks %s" % (e[2], missing))
    discard = {int(c): int(n) for c, n in (d.split(":") for d in a.discard)}
    damage = {(int(c), int(k)) for c, k in (d.split(":") for d in a.damage)}
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "metadata"), "w") as f:
        f.write(metadata(a) + "\n")
    cpus = sorted({e[0] for e in evs})
    for cpu in cpus:
        mine = [e for e in evs if e[0] == cpu]
        data = bytearray()
        k = 0
        for seq, i in enumerate(range(0, len(mine), a.packet_events)):
            chunk = mine[i:i + a.packet_events]
            begin = chunk[0][1]
            end = chunk[-1][1]
            disc = discard.get(cpu, 0) if seq >= 1 else 0
            data += packet(cpu, seq, chunk, disc, begin, end,
                           (cpu, seq) in damage)
            k += 1
        with open(os.path.join(a.out, "channel0_%d" % cpu), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
