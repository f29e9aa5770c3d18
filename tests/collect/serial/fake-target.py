#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Targets that misbehave, on a unix socket (docs/serial.md):

  fake-target.py PATH MODE

  garbage   random bytes forever (0x00 among them), no frame
  silent    reads what the host sends, answers nothing
  version   answers HELLO as a target speaking protocol 2.0
  latesync METADATA
            a target with no packets that answers HELLO, METADATA (the
            file METADATA) and FLUSH, and sync requests in order, each
            stamped on CLOCK_MONOTONIC when it came ("sync N T" lines on
            stdout); the answer to the third request is sent 1.3 s late
            (the ones after it wait behind it, as on a real line)
Serves one host, then exits when the host goes.
"""
import os
import random
import select
import socket
import struct
import sys
import time
import zlib

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
from serialwire import SYNC, cobs_decode, frame, reply  # noqa: E402


def latesync(c, meta):
    hello = struct.pack("<BBHIQIII", 1, 0, 0, 3, 1000000000, len(meta),
                        zlib.crc32(meta), 0) + bytes(24) + \
        b"late".ljust(16, b"\0")
    buf, seq, n, queue = bytearray(), 0, 0, []  # queue: (due, frame)
    while True:
        wait = max(0.0, queue[0][0] - time.monotonic()) if queue else None
        r, _, _ = select.select([c], [], [], wait)
        now = time.monotonic()
        while queue and queue[0][0] <= now:
            c.sendall(queue.pop(0)[1])
        if not r:
            continue
        d = c.recv(4096)
        if not d:
            return
        t = time.monotonic_ns()
        buf += d
        while b"\0" in buf:
            z = buf.index(b"\0")
            raw, buf = bytes(buf[:z]), buf[z + 1:]
            if not raw:
                print(f"sync {n} {t}", flush=True)
                due = now + 1.3 if n == 4 else now
                if queue:
                    due = max(due, queue[-1][0])
                queue.append((due, frame(SYNC, seq, struct.pack("<IIQ", n, 0, t))))
                seq, n = seq + 1, n + 2
                continue
            body = cobs_decode(raw)
            if not body or len(body) < 12 or body[0] != 0x10:
                continue
            cmd, tag = body[4], struct.unpack("<H", body[6:8])[0]
            data = b""
            if cmd == 1:
                data = hello
            elif cmd == 13:
                off = struct.unpack("<I", body[8:12])[0]
                data = struct.pack("<II", off, len(meta)) + meta[off:off + 512]
            queue.append((queue[-1][0] if queue else now,
                          reply(seq, cmd, 0, tag, data)))
            seq += 1
        while queue and queue[0][0] <= time.monotonic():
            c.sendall(queue.pop(0)[1])


def main():
    path, mode = sys.argv[1], sys.argv[2]
    ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ls.bind(path)
    ls.listen(1)
    c, _ = ls.accept()
    rnd = random.Random(17)
    try:
        if mode == "garbage":
            while True:
                c.sendall(rnd.randbytes(65536))
        elif mode == "silent":
            while c.recv(4096):
                pass
        elif mode == "latesync":
            latesync(c, open(sys.argv[3], "rb").read())
        elif mode == "version":
            buf = bytearray()
            while True:
                d = c.recv(4096)
                if not d:
                    break
                buf += d
                if b"\0" not in buf:
                    continue
                # The host's first command is HELLO, tag 1.
                hello = struct.pack("<BBHIQIII", 2, 0, 0, 3, 1000000, 0, 0,
                                    0) + bytes(4 + 20) + b"v2".ljust(16, b"\0")
                c.sendall(reply(0, 1, 4, 1, hello))
                buf.clear()
    except (BrokenPipeError, ConnectionResetError):
        pass
    os._exit(0)


main()
