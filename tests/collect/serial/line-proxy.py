#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A line between the host and a target (unix sockets), that damages
what the target sends when told to:

  line-proxy.py LISTEN_PATH TARGET_PATH [ACTION...]

It listens on LISTEN_PATH, and once the host connected, connects to
TARGET_PATH and copies bytes both ways. The target -> host direction is
cut into frames (at each 0x00); ACTIONs apply to the PACKET frames
counted from the host's connection:
  garbage@N   256 random bytes (0x00 among them) before packet frame N
  drop@N      packet frame N loses one byte in its middle
  reboot@N    a REBOOT command (docs/serial.md) goes to the target after
              packet frame N
It prints one line per action done on stdout ("dropped 1 byte of packet
frame 12"), and exits when either side closes.
"""
import os
import random
import select
import socket
import struct
import sys
import zlib

PACKET = 0x02


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


def command(cmd, seq, tag):
    body = struct.pack("<BBH", 0x10, 0, seq) + struct.pack("<BBH", cmd, 0, tag)
    return cobs_encode(body + struct.pack("<I", zlib.crc32(body)))


def main():
    listen, target = sys.argv[1], sys.argv[2]
    actions = {}
    for a in sys.argv[3:]:
        what, n = a.split("@")
        actions.setdefault(int(n), []).append(what)
    rnd = random.Random(17)
    ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ls.bind(listen)
    ls.listen(1)
    host, _ = ls.accept()
    tgt = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    tgt.connect(target)
    try:
        relay(host, tgt, actions, rnd)
    except OSError:
        pass
    os._exit(0)


def relay(host, tgt, actions, rnd):
    pending = bytearray()  # target bytes not yet cut into a frame
    packets = 0
    while True:
        r, _, _ = select.select([host, tgt], [], [])
        if host in r:
            d = host.recv(65536)
            if not d:
                break
            tgt.sendall(d)
        if tgt in r:
            d = tgt.recv(65536)
            if not d:
                break
            pending += d
            out = bytearray()
            while True:
                z = pending.find(b"\0")
                if z < 0:
                    break
                f = bytes(pending[:z + 1])
                del pending[:z + 1]
                # The type is the body's first byte: after the COBS code.
                if len(f) > 2 and f[0] > 1 and f[1] == PACKET:
                    packets += 1
                    acts = actions.pop(packets, [])
                    if "garbage" in acts:
                        out += bytes(rnd.randrange(256) for _ in range(256))
                        print(f"garbage before packet frame {packets}",
                              flush=True)
                    if "drop" in acts:
                        m = len(f) // 2
                        f = f[:m] + f[m + 1:]
                        print(f"dropped 1 byte of packet frame {packets}",
                              flush=True)
                    out += f
                    if "reboot" in acts:
                        tgt.sendall(command(0x0e, 0x7000, 0x7000))
                        print(f"reboot after packet frame {packets}",
                              flush=True)
                else:
                    out += f
            host.sendall(out)


main()
