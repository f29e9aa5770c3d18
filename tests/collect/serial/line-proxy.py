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
  noise@B     61 bytes of garbage with no 0x00 among them (the host's
              decoder sees one long bad frame) before the target's byte
              B (counted from 0, as they come, frames or not)
  dropbyte@B  the target's byte B is lost
It prints one line per action done ("dropped 1 byte of packet frame
12"), and exits when either side closes.
"""
import os
import random
import select
import socket
import sys
import time
import tty

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
from serialwire import CMDS, PACKET, REPLY, command  # noqa: E402


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
        if os.path.exists(listen):
            os.unlink(listen)
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


def damage_bytes(d, up, actions):
    """The noise@B and dropbyte@B actions on d, the target's bytes from
    offset up on."""
    out = bytearray()
    for i, b in enumerate(d):
        acts = actions.get(("byte", up + i), [])
        if "noise" in acts:
            out += bytes((0x41 + k % 26) | 0x80 for k in range(61))
            print(f"61 garbage bytes at byte {up + i}", flush=True)
        if "dropbyte" in acts:
            print(f"dropped byte {up + i}", flush=True)
        else:
            out.append(b)
    return bytes(out)


def relay(host, tgt, actions, rnd):
    pending = bytearray()  # target bytes not yet cut into a frame
    packets = replies = 0
    byte_actions = any(isinstance(k, tuple) for k in actions)
    up = 0  # bytes read from the target
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
        n = len(d)
        if byte_actions:
            d = damage_bytes(d, up, actions)
        up += n
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
                write_all(tgt, command(0x7000, CMDS["reboot"], 0x7000))
                print(f"reboot after packet frame {packets}", flush=True)
        write_all(host, bytes(out))


def main():
    actions = {}
    for a in sys.argv[3:]:
        what, n = a.split("@")
        # replies are keyed by their negated number, packets by theirs,
        # byte offsets by ("byte", B)
        if what in ("noise", "dropbyte"):
            key = ("byte", int(n))
        else:
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
