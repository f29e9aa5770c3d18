#!/usr/bin/env python3
"""Checks a `hetrace qemu --light` capture and its synchronized trace
against values computed here: babeltrace2 decodes every core; the
firmware's SHA-256 of each permutation of "barectf", pisum and quicksort
events carry exactly the values the workload computes; every message and
handshake round is ordered on the merged clock (docs/qemu.md).
Usage: check-qemu.py CAPTURE MERGED-TRACE [CORE...]"""
import hashlib
import itertools
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from bt2text import text_lines  # noqa: E402

sys.setrecursionlimit(100000)
# [ts] (+delta) [hostname ]name: ... (a synchronized trace has a hostname)
LINE = re.compile(r"^\[(\d+)\] \(\+[^)]*\) (?:\S+ )?(\w+): (.*)$")
FIELD = re.compile(r"(\w+) = (\"[^\"]*\"|[-\w.]+)")
errors = []


def bad(msg):
    errors.append(msg)
    print("FAIL:", msg)


def events(path):
    evs = []
    for m in text_lines(path, LINE, bad):
        f = {k: v.strip('"') for k, v in FIELD.findall(m.group(3))}
        evs.append((int(m.group(1)), m.group(2), f))
    return evs


def expected():
    perms = ["".join(p) for p in itertools.permutations(sorted("barectf"))]
    h0 = [int.from_bytes(hashlib.sha256(p.encode()).digest()[:4], "big")
          for p in perms]
    acc = 0
    for v in h0:
        acc ^= v
    s = 0.0
    for k in range(1, 10001):
        s += 1.0 / (float(k) * float(k))
    return h0, acc, int(s * 1e9)


def qsort_calls(n):
    x, a = 12345, []
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0xffffffff
        a.append((x >> 1) % 100000)
    calls = [0]

    def qs(lo, hi):
        calls[0] += 1
        if lo >= hi:
            return
        pivot = a[lo + (hi - lo) // 2]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        qs(lo, j)
        qs(i, hi)

    qs(0, n - 1)
    assert a == sorted(a)
    return calls[0]


def check_core(cap, core, h0, acc, pisum):
    evs = events(f"{cap}/{core}")
    names = [e[1] for e in evs]
    hashes = [e[2] for e in evs if e[1] == "sha_hash"]
    if len(hashes) != 5040:
        bad(f"{core}: {len(hashes)} sha_hash events, expected 5040")
    for i, f in enumerate(hashes[:5040]):
        if int(f["index"]) != i or int(f["h0"]) != h0[i]:
            bad(f"{core}: sha_hash #{i}: {f}, expected index {i} h0 {h0[i]}")
            break
    ends = {int(f["kind"]): f for _, n, f in evs if n == "job_end"}
    if int(ends.get(1, {}).get("result", -1)) != acc:
        bad(f"{core}: SHA job result {ends.get(1)}, expected {acc}")
    reps = [f for _, n, f in evs if n == "pisum_rep"]
    if not reps or any(int(f["sum_e9"]) != pisum for f in reps):
        bad(f"{core}: pisum_rep {reps[:2]}, expected sum_e9 {pisum}")
    calls = [f for _, n, f in evs if n == "qsort_call"]
    begins = [f for _, n, f in evs if n == "job_begin" and f["kind"] == "3"]
    if begins:
        n = int(begins[0]["arg"])
        want = qsort_calls(n)
        if len(calls) != want or int(ends.get(3, {}).get("result", -1)) != want:
            bad(f"{core}: {len(calls)} qsort_call events, result "
                f"{ends.get(3)}, expected {want} calls for {n} ints")
        if calls and (calls[0]["lo"], calls[0]["hi"]) != ("0", str(n - 1)):
            bad(f"{core}: first qsort_call {calls[0]}")
    else:
        bad(f"{core}: no quicksort job")
    if names.count("sync_ack") < 10 or names.count("sync_ack") != names.count("sync_notify"):
        bad(f"{core}: {names.count('sync_ack')} sync_ack, "
            f"{names.count('sync_notify')} sync_notify")
    print(f"{core}: {len(evs)} events decoded; 5040 hashes, pisum {pisum}, "
          f"{len(calls)} quicksort calls, {names.count('sync_ack')} handshakes: ok")


def check_merged(trace):
    evs = events(trace)
    sends, recvs, reqs, acks, notes, rcvs = {}, {}, {}, {}, {}, {}
    for ts, n, f in evs:
        core = int(f["core_id"])
        if n == "msg_send":
            sends[(core, int(f["id"]))] = ts
        elif n == "msg_recv":
            recvs[(int(f["src"]), int(f["id"]))] = ts
        elif n == "sync_req":
            reqs[(int(f["slave"]), int(f["seq"]))] = ts
        elif n == "sync_ack":
            acks[(core, int(f["seq"]))] = ts
        elif n == "sync_notify":
            notes[(core, int(f["seq"]))] = ts
        elif n == "sync_recv":
            rcvs[(int(f["slave"]), int(f["seq"]))] = ts
    late = [k for k in recvs if k not in sends or recvs[k] < sends[k]]
    if late or not recvs:
        bad(f"merged: {len(late)} of {len(recvs)} messages unmatched or "
            f"received before sent: {late[:3]}")
    order = [k for k in acks if k in reqs and acks[k] < reqs[k]]
    order += [k for k in rcvs if k in notes and rcvs[k] < notes[k]]
    if order:
        bad(f"merged: handshake messages out of order: {order[:3]}")
    print(f"merged: {len(evs)} events, {len(recvs)} messages, "
          f"{len(acks)} handshakes, all in order")


def main():
    cap, merged = sys.argv[1], sys.argv[2]
    cores = sys.argv[3:] or ["cm3", "rv32"]
    h0, acc, pisum = expected()
    for core in cores:
        check_core(cap, core, h0, acc, pisum)
    if events(f"{cap}/linux") == []:
        bad("linux: no events")
    if merged != "-":
        check_merged(merged)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
