#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A line between the host and a target, that damages what the target
sends when told to:

  line-proxy.py LISTEN TARGET [ACTION...]

LISTEN: a unix socket path the host connects to, `tcp`: a TCP port
on 127.0.0.1 printed as the first line of stdout, or `pty`: a
pseudo-terminal whose slave path is printed so. TARGET: the target's unix socket, or its pty slave (/dev/...).
Once the host is there (connected, or 0.2 s after the pty was made),
the bytes are copied both ways. The target -> host direction is cut into
frames (at each 0x00); ACTIONs apply to the PACKET frames counted from
then on:
  garbage@N   256 random bytes (0x00 among them) before packet frame N
  drop@N      packet frame N loses one byte in its middle
  reboot@N    a REBOOT command (docs/serial.md) goes to the target after
              packet frame N
  dropreply@N REPLY frame N (counted from the first) loses one byte
It prints one line per action done ("dropped 1 byte of packet frame
12"), and exits when either side closes.
"""
import os
import random
import select
import socket
import struct
import sys
import time
import tty
import zlib

PACKET = 0x02
REPLY = 0x04


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


def write_all(fd, data):
    while data:
        n = os.write(fd, data)
        data = data[n:]


def open_host(listen):
    if listen == "pty":
        m, s = os.openpty()
        tty.setraw(s)
        print(os.ttyname(s), flush=True)
        time.sleep(0.2)
        return m, s
    if listen == "tcp":
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.bind(("127.0.0.1", 0))
        ls.listen(1)
        print(ls.getsockname()[1], flush=True)
    else:
        ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ls.bind(listen)
        ls.listen(1)
    c, _ = ls.accept()
    return c.detach(), None


def open_target(target):
    if target.startswith("/dev/"):
        fd = os.open(target, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(fd)
        return fd
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(target)
    return s.detach()


def relay(host, tgt, actions, rnd):
    pending = bytearray()  # target bytes not yet cut into a frame
    packets = replies = 0
    while True:
        r, _, _ = select.select([host, tgt], [], [])
        if host in r:
            d = os.read(host, 65536)
            if not d:
                return
            write_all(tgt, d)
        if tgt not in r:
            continue
        d = os.read(tgt, 65536)
        if not d:
            return
        pending += d
        out = bytearray()
        while True:
            z = pending.find(b"\0")
            if z < 0:
                break
            f = bytes(pending[:z + 1])
            del pending[:z + 1]
            # The type is the body's first byte, after the COBS code.
            if len(f) > 2 and f[0] > 1 and f[1] == REPLY:
                replies += 1
                if "dropreply" in actions.get(-replies, []):
                    m = len(f) // 2
                    f = f[:m] + f[m + 1:]
                    print(f"dropped 1 byte of reply frame {replies}", flush=True)
            if not (len(f) > 2 and f[0] > 1 and f[1] == PACKET):
                out += f
                continue
            packets += 1
            acts = actions.pop(packets, [])
            if "garbage" in acts:
                out += bytes(rnd.randrange(256) for _ in range(256))
                print(f"garbage before packet frame {packets}", flush=True)
            if "drop" in acts:
                m = len(f) // 2
                f = f[:m] + f[m + 1:]
                print(f"dropped 1 byte of packet frame {packets}", flush=True)
            out += f
            if "reboot" in acts:
                write_all(tgt, command(0x0e, 0x7000, 0x7000))
                print(f"reboot after packet frame {packets}", flush=True)
        write_all(host, bytes(out))


def main():
    actions = {}
    for a in sys.argv[3:]:
        what, n = a.split("@")
        # replies are keyed by their negated number, packets by theirs
        key = -int(n) if what == "dropreply" else int(n)
        actions.setdefault(key, []).append(what)
    host, keep = open_host(sys.argv[1])
    tgt = open_target(sys.argv[2])
    try:
        relay(host, tgt, actions, random.Random(17))
    except OSError:
        pass
    os._exit(0)


main()
