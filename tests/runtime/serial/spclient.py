#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A small client of the serial link (docs/serial.md), independent of
the C codec (the wire format: tests/serialwire.py). Used by
test-native-target.sh:

  spclient.py unix:PATH COMMAND [ARGS...]

Commands print one line per result (key=value) and exit 0, or print a
message and exit 1:
  hello | status | ping | enable | disable | clear | flush | reboot
  trigger ADDR [NTH [CALLER]] | stopper ADDR | couple ADDR
  profile                      every page: "func ADDR CALLS" lines
  metadata FILE                the TSDL metadata into FILE, CRC checked
  record DIR SECONDS           metadata, 2 sync rounds, the PACKET frames
                               as DIR/metadata and DIR/stream (CTF)
  sync N                       N sync rounds: "sync n t" lines
  dump DIR                     DUMP_TRACE into DIR/stream
  raw HEX                      sends bytes as they are (garbage)
"""
import os
import socket
import struct
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
from serialwire import CMDS, HELLO, LOG, PACKET, REPLY, SYNC, command, \
    crc32, parse  # noqa: E402


class Link:
    def __init__(self, target, timeout=5.0):
        assert target.startswith("unix:")
        path = target[5:]
        deadline = time.time() + timeout
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.s.connect(path)
                break
            except OSError:
                self.s.close()
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        self.buf = bytearray()
        self.seq = 0
        self.tag = 0x100
        self.packets = []
        self.logs = []
        self.hellos = []
        self.bad = 0

    def send(self, data):
        self.s.sendall(data)

    def next_frame(self, timeout):
        """(type, seq, payload) or None on timeout."""
        deadline = time.time() + timeout
        while True:
            z = self.buf.find(b"\0")
            if z >= 0:
                raw = bytes(self.buf[:z])
                del self.buf[:z + 1]
                if not raw:
                    continue
                f = parse(raw)
                if f is None:
                    self.bad += 1
                    continue
                return f
            left = deadline - time.time()
            if left <= 0:
                return None
            self.s.settimeout(left)
            try:
                d = self.s.recv(65536)
            except socket.timeout:
                return None
            if not d:
                raise EOFError("the target closed the line")
            self.buf += d

    def dispatch(self, f):
        t, _, p = f
        if t == PACKET:
            self.packets.append(p)
        elif t == LOG:
            self.logs.append(p)
        elif t == HELLO:
            self.hellos.append(p)

    def command(self, cmd, args=b"", timeout=5.0):
        """(status, data) of the reply."""
        self.tag = (self.tag + 1) & 0xffff
        self.send(command(self.seq, cmd, self.tag, args))
        self.seq += 1
        deadline = time.time() + timeout
        while True:
            f = self.next_frame(max(0.0, deadline - time.time()))
            if f is None:
                raise TimeoutError("no reply to command %d" % cmd)
            if f[0] == REPLY and f[2][0] == cmd and \
                    struct.unpack("<H", f[2][2:4])[0] == self.tag:
                return f[2][1], f[2][4:]
            self.dispatch(f)

    def sync(self, timeout=2.0):
        self.send(b"\0")
        deadline = time.time() + timeout
        while True:
            f = self.next_frame(max(0.0, deadline - time.time()))
            if f is None:
                raise TimeoutError("no SYNC frame")
            if f[0] == SYNC:
                n, _, t = struct.unpack("<IIQ", f[2])
                return n, t
            self.dispatch(f)

    def pump(self, seconds):
        end = time.time() + seconds
        while time.time() < end:
            f = self.next_frame(end - time.time())
            if f is not None:
                self.dispatch(f)


def parse_hello(p):
    (major, minor, flags, core, hz, msize, mcrc, boots, bidlen) = \
        struct.unpack("<BBHIQIIIB", p[:29])
    return {"major": major, "minor": minor, "flags": flags, "core_id": core,
            "clock_hz": hz, "metadata_size": msize,
            "metadata_crc": "%08x" % mcrc, "boot_count": boots,
            "build_id": p[32:32 + bidlen].hex(),
            "name": p[52:68].rstrip(b"\0").decode()}


STATUS_FIELDS = [("state", "I", 0), ("ring_mode", "I", 4),
                 ("nr_slots", "I", 8), ("slots_used", "I", 12),
                 ("slot_size", "I", 16), ("boot_count", "I", 20),
                 ("events", "Q", 24), ("discarded", "Q", 32),
                 ("trigger", "Q", 40), ("trigger_nth", "I", 48),
                 ("trigger_caller", "Q", 56), ("stopper", "Q", 64),
                 ("packets_sent", "I", 72), ("frames_sent", "I", 76),
                 ("rx_frames", "I", 80), ("rx_errors", "I", 84),
                 ("rx_lost", "I", 88), ("sync_rounds", "I", 92),
                 ("now", "Q", 96)]


def parse_status(p):
    return {k: struct.unpack_from("<" + f, p, o)[0]
            for k, f, o in STATUS_FIELDS}


def show(d):
    for k, v in d.items():
        print("%s=%s" % (k, hex(v) if k in ("trigger", "stopper",
                                            "trigger_caller") else v))


def get_metadata(link):
    text = bytearray()
    total = None
    while total is None or len(text) < total:
        st, d = link.command(CMDS["metadata"], struct.pack("<I", len(text)))
        if st != 0:
            raise RuntimeError("metadata: status %d" % st)
        off, total = struct.unpack("<II", d[:8])
        if off != len(text) or (len(d) == 8 and len(text) < total):
            raise RuntimeError("metadata: bad chunk at %d" % off)
        text += d[8:]
    return bytes(text)


def main(argv):
    link = Link(argv[1])
    cmd = argv[2]
    a = argv[3:]
    if cmd == "hello":
        st, d = link.command(CMDS["hello"], bytes([1, 0]))
        print("status=%d" % st)
        show(parse_hello(d))
    elif cmd == "hello-major":
        st, d = link.command(CMDS["hello"], bytes([int(a[0]), 0]))
        print("status=%d" % st)
        show(parse_hello(d))
    elif cmd == "status":
        st, d = link.command(CMDS["status"])
        print("status=%d" % st)
        print("size=%d" % len(d))
        show(parse_status(d))
    elif cmd in ("enable", "disable", "clear", "flush", "reboot",
                 "profile-to-trace"):
        st, d = link.command(CMDS[cmd])
        print("status=%d" % st)
        if cmd == "reboot":
            # The target resets and says HELLO again on the same line.
            deadline = time.time() + 10
            while not link.hellos and time.time() < deadline:
                link.pump(0.2)
            if link.hellos:
                show(parse_hello(link.hellos[0]))
    elif cmd == "ping":
        st, d = link.command(CMDS["ping"], bytes(a[0], "ascii"))
        print("status=%d" % st)
        print("data=%s" % d.decode())
    elif cmd == "trigger":
        nth = int(a[1], 0) if len(a) > 1 else 0
        caller = int(a[2], 0) if len(a) > 2 else 0
        st, _ = link.command(CMDS["trigger"],
                             struct.pack("<QIIQ", int(a[0], 0), nth, 0,
                                         caller))
        print("status=%d" % st)
    elif cmd in ("stopper", "couple"):
        st, _ = link.command(CMDS[cmd], struct.pack("<Q", int(a[0], 0)))
        print("status=%d" % st)
    elif cmd == "raw-cmd":
        st, d = link.command(int(a[0], 0), bytes.fromhex(a[1]) if len(a) > 1
                             else b"")
        print("status=%d" % st)
        print("size=%d" % len(d))
    elif cmd == "profile":
        first = 0
        while first != 0xffffffff:
            st, d = link.command(CMDS["profile"], struct.pack("<I", first))
            if st != 0:
                print("status=%d" % st)
                return 1
            first, count = struct.unpack("<II", d[:8])
            for i in range(count):
                addr, calls = struct.unpack_from("<QI", d, 32 + 40 * i)
                print("func %#x %d" % (addr, calls))
    elif cmd == "metadata":
        text = get_metadata(link)
        st, d = link.command(CMDS["hello"], bytes([1, 0]))
        h = parse_hello(d)
        if "%08x" % crc32(text) != h["metadata_crc"] or \
                len(text) != h["metadata_size"]:
            print("metadata does not match HELLO's size and CRC")
            return 1
        with open(a[0], "wb") as f:
            f.write(text)
        print("size=%d" % len(text))
    elif cmd == "record":
        os.makedirs(a[0], exist_ok=True)
        with open(os.path.join(a[0], "metadata"), "wb") as f:
            f.write(get_metadata(link))
        # Two sync rounds: their sync_ack / sync_notify are in the trace.
        for _ in range(2):
            n, t = link.sync()
            print("sync %d %d" % (n, t))
        link.pump(float(a[1]))
        st, _ = link.command(CMDS["flush"])
        link.pump(0.5)
        with open(os.path.join(a[0], "stream"), "wb") as f:
            for p in link.packets:
                f.write(p)
        print("packets=%d" % len(link.packets))
        print("bad=%d" % link.bad)
    elif cmd == "dump":
        os.makedirs(a[0], exist_ok=True)
        with open(os.path.join(a[0], "metadata"), "wb") as f:
            f.write(get_metadata(link))
        st, d = link.command(CMDS["dump"], timeout=20)
        print("status=%d" % st)
        sent, lost = struct.unpack("<II", d[:8])
        with open(os.path.join(a[0], "stream"), "wb") as f:
            for p in link.packets:
                f.write(p)
        print("sent=%d" % sent)
        print("overwritten=%d" % lost)
        print("packets=%d" % len(link.packets))
    elif cmd == "sync":
        for _ in range(int(a[0])):
            n, t = link.sync()
            print("sync %d %d" % (n, t))
    elif cmd == "raw":
        link.send(bytes.fromhex(a[0]))
    else:
        print("unknown command " + cmd)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
