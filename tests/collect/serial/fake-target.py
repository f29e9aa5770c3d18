#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Targets that misbehave, on a unix socket (docs/serial.md):

  fake-target.py PATH MODE

  garbage   random bytes forever (0x00 among them), no frame
  silent    reads what the host sends, answers nothing
  version   answers HELLO as a target speaking protocol 2.0
Serves one host, then exits when the host goes.
"""
import os
import random
import socket
import struct
import sys
import zlib


def cobs_encode(body):
    out, blk = bytearray(), bytearray()
    for b in body:
        if b == 0:
            out.append(len(blk) + 1)
            out += blk
            blk = bytearray()
            continue
        blk.append(b)
        if len(blk) == 254:
            out.append(255)
            out += blk
            blk = bytearray()
    out.append(len(blk) + 1)
    out += blk
    return bytes(out) + b"\0"


def frame(ftype, seq, payload):
    body = struct.pack("<BBH", ftype, 0, seq) + payload
    return cobs_encode(body + struct.pack("<I", zlib.crc32(body)))


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
                c.sendall(frame(0x04, 0, struct.pack("<BBH", 1, 4, 1) + hello))
                buf.clear()
    except (BrokenPipeError, ConnectionResetError):
        pass
    os._exit(0)


main()
