#!/usr/bin/env python3
# A small, independent client of the serial link's wire format
# (include/hetrace/serial-proto.h, in Python: tests/serialwire.py): the
# firmware tests check the QEMU serial firmware with it as well as with
# hetrace, so a mistake shared by hetrace's two sides (target and host
# code) does not pass unseen.
#   serial-client.py TARGET CMD...     TARGET: unix:PATH or pty:PATH
# CMDs, run in order: hello | status | ping | sync N | trigger ADDR |
#   stopper ADDR | couple ADDR | clear | enable | disable | flush |
#   reboot | wait-hello | packets S | record DIR S | profile | cont MON
# Prints one line per result ("status boot_count=1 trigger=0x..." etc.).
import os
import select
import socket
import struct
import sys
import termios
import time
import tty

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
from serialwire import CMDS, HELLO, LOG, PACKET, REPLY, SYNC, command, \
    parse  # noqa: E402


class Line:
    def __init__(self, target):
        self.buf, self.pos, self.seq, self.tag = bytearray(), 0, 0, 1
        self.frames, self.bad, self.logs, self.packets = [], 0, [], []
        if target.startswith("unix:"):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(target[5:])
            self.fd = s.fileno()
            self.sock = s
        else:
            self.fd = os.open(target[4:] if target.startswith("pty:") else target,
                              os.O_RDWR | os.O_NOCTTY)
            tty.setraw(self.fd)
            termios.tcflush(self.fd, termios.TCIOFLUSH)
        # A lone 0x00 is a sync request: never send one here but in sync().

    def write(self, b):
        os.write(self.fd, b)

    def read_frame(self, timeout):
        end = time.time() + timeout
        while True:
            i = self.buf.find(b"\0", self.pos)
            if i >= 0:
                raw, self.pos = bytes(self.buf[self.pos:i]), i + 1
                if not raw:
                    continue
                f = parse(raw)
                if f is None:
                    self.bad += 1
                    continue
                t, _, pl = f
                if t == LOG:
                    self.logs.append(pl.decode(errors="replace"))
                elif t == PACKET:
                    self.packets.append(pl)
                return t, pl
            left = end - time.time()
            if left <= 0:
                return None, None
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                d = os.read(self.fd, 65536)
                if not d:
                    raise SystemExit("serial-client: the line closed")
                # Drop what was decoded, then append: no copy per frame.
                del self.buf[:self.pos]
                self.pos = 0
                self.buf += d

    def command(self, name, args=b"", timeout=3.0):
        return self.command_raw(CMDS[name], args, timeout, name)

    def command_raw(self, cmd, args=b"", timeout=3.0, name=None, tries=1):
        # tries > 1 only for idempotent reads (a metadata chunk by its
        # offset): on a faulty line the command or its reply can be lost
        # to damage, and the target drops a damaged command unanswered.
        for _ in range(tries):
            tag = self.tag = (self.tag + 1) & 0xFFFF
            self.write(command(self.seq, cmd, tag, args))
            self.seq = (self.seq + 1) & 0xFFFF
            end = time.time() + timeout
            while time.time() < end:
                t, pl = self.read_frame(end - time.time())
                if t == REPLY and pl[0] == cmd and struct.unpack("<H", pl[2:4])[0] == tag:
                    return pl[1], pl[4:]
        raise SystemExit("serial-client: no reply to '%s' in %.1f s (%d tries)" %
                         (name or hex(cmd), timeout, tries))

    def sync(self):
        t0 = time.monotonic_ns()
        self.write(b"\0")
        end = time.time() + 2
        while time.time() < end:
            t, pl = self.read_frame(end - time.time())
            if t == SYNC:
                n, _, tt = struct.unpack("<IIQ", pl[:16])
                return t0, time.monotonic_ns(), n, tt
        raise SystemExit("serial-client: no SYNC frame")


def status(pl):
    names = ("state ring_mode nr_slots slots_used slot_size boot_count").split()
    d = dict(zip(names, struct.unpack("<6I", pl[:24])))
    d["events"], d["discarded"], d["trigger"] = struct.unpack("<QQQ", pl[24:48])
    d["trigger_nth"] = struct.unpack("<I", pl[48:52])[0]
    d["trigger_caller"], d["stopper"] = struct.unpack("<QQ", pl[56:72])
    for i, k in enumerate("packets_sent frames_sent rx_frames rx_errors rx_lost sync_rounds".split()):
        d[k] = struct.unpack("<I", pl[72 + 4 * i:76 + 4 * i])[0]
    return d


def main():
    line = Line(sys.argv[1])
    args = sys.argv[2:]
    while args:
        c = args.pop(0)
        if c == "hello":
            st, pl = line.command("hello", bytes([1, 0]))
            boot = struct.unpack("<I", pl[24:28])[0]
            bid = pl[32:32 + pl[28]].hex()
            print("hello status=%d major=%d minor=%d core=%d hz=%d boot_count=%d name=%s build_id=%s" % (
                st, pl[0], pl[1], struct.unpack("<I", pl[4:8])[0],
                struct.unpack("<Q", pl[8:16])[0], boot,
                pl[52:68].rstrip(b"\0").decode(), bid))
        elif c == "status":
            st, pl = line.command("status")
            d = status(pl)
            print("status " + " ".join("%s=%s" % (k, hex(v) if k in ("trigger", "stopper") else v)
                                       for k, v in d.items()))
        elif c == "ping":
            st, pl = line.command("ping", b"hello-ping")
            print("ping status=%d echo=%s" % (st, pl.decode()))
        elif c in ("trigger", "stopper", "couple"):
            a = int(args.pop(0), 0)
            arg = struct.pack("<QIIQ", a, 0, 0, 0) if c == "trigger" else struct.pack("<Q", a)
            st, _ = line.command(c, arg)
            print("%s status=%d" % (c, st))
        elif c in ("clear", "enable", "disable", "flush"):
            st, _ = line.command(c)
            print("%s status=%d" % (c, st))
        elif c == "reboot":
            st, _ = line.command("reboot")
            print("reboot status=%d" % st)
        elif c == "wait-hello":
            end = time.time() + 10
            while time.time() < end:
                t, pl = line.read_frame(end - time.time())
                if t == HELLO:
                    print("boot hello boot_count=%d" % struct.unpack("<I", pl[24:28])[0])
                    break
            else:
                raise SystemExit("serial-client: no HELLO in 10 s")
        elif c == "sync":
            n = int(args.pop(0))
            best = None
            for _ in range(n):
                t0, t1, k, tt = line.sync()
                best = min(best or t1 - t0, t1 - t0)
            print("sync rounds=%d best_rtt_us=%.1f" % (n, best / 1000.0))
        elif c == "record":
            # record DIR SECONDS: DIR/metadata (HT_SPC_METADATA) and
            # DIR/stream (the PACKET payloads, in order): a CTF trace. A
            # second record into the same DIR appends to its stream.
            d, secs = args.pop(0), float(args.pop(0))
            os.makedirs(d, exist_ok=True)
            meta, off = bytearray(), 0
            while True:
                st, pl = line.command_raw(CMDS["metadata"], struct.pack("<I", off),
                                        name="metadata", tries=3)
                total = struct.unpack("<I", pl[4:8])[0]
                meta += pl[8:]
                off = len(meta)
                if off >= total or len(pl) <= 8:
                    break
            open(os.path.join(d, "metadata"), "wb").write(bytes(meta))
            end = time.time() + secs
            while time.time() < end:
                line.read_frame(end - time.time())
            line.command("flush")
            end = time.time() + 0.5
            while time.time() < end:
                line.read_frame(end - time.time())
            with open(os.path.join(d, "stream"), "ab") as f:
                for pk in line.packets:
                    f.write(pk)
            print("record packets=%d bad=%d" % (len(line.packets), line.bad))
            line.packets = []
        elif c == "cont":
            # cont MONITOR_PATH: starts a QEMU begun with -S (HMP "cont").
            m = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            m.connect(args.pop(0))
            m.settimeout(5)
            # Past the greeting, then the command and its prompt back.
            got = b""
            while b"(qemu)" not in got:
                got += m.recv(4096)
            m.sendall(b"cont\n")
            got = b""
            while b"(qemu)" not in got:
                got += m.recv(4096)
            m.close()
        elif c == "profile":
            # The on-target profile, paged: "profile ADDR=CALLS ...".
            first, calls = 0, {}
            while first != 0xFFFFFFFF:
                st, pl = line.command_raw(CMDS["profile"], struct.pack("<I", first))
                if st != 0:
                    raise SystemExit("serial-client: profile: status %d" % st)
                first, count = struct.unpack("<II", pl[:8])
                for i in range(count):
                    e = pl[32 + 40 * i:72 + 40 * i]
                    a, n = struct.unpack("<QI", e[:12])
                    calls[a] = calls.get(a, 0) + n
            print("profile " + " ".join("0x%x=%d" % kv for kv in sorted(calls.items())))
        elif c == "packets":
            end = time.time() + float(args.pop(0))
            while time.time() < end:
                line.read_frame(end - time.time())
            print("packets n=%d bytes=%d bad=%d" % (len(line.packets),
                                                   sum(len(p) for p in line.packets), line.bad))
        else:
            raise SystemExit("serial-client: unknown command %s" % c)
    for l in line.logs:
        print("log " + l.rstrip("\n"))


if __name__ == "__main__":
    main()
