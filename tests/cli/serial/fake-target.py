#!/usr/bin/env python3
"""A fake target on a unix socket, for what no real target does: it
speaks the serial link's frames (COBS, CRC-32: include/hetrace/
serial-proto.h) but only as far as the test needs.

    fake-target.py SOCKET MODE [LOG]

MODE:
  silent   accepts and never answers (a target that does not answer)
  hello    answers HELLO (version 1.0) and nothing else
  bad      answers HELLO, then STATUS with 10 bytes, and PROFILE with an
           empty first page pointing at index 0x77, whose page claims 17
           entries (16 at most)
  loop     answers HELLO, then PROFILE pages that never end (the next
           index is always 0)
  major9   answers HELLO as a target of protocol 9.0 (status VERSION)
  record   answers HELLO (version 1.0, the build id of $FAKE_BUILD_ID in
           hex, none when unset) and every command with status OK; writes
           each command as "NAME hex-args" to LOG (what hetrace sent)
Serves one connection after another until killed.
"""
import os
import socket
import struct
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
from serialwire import CMD, parse, reply  # noqa: E402

CMD_NAMES = {0x01: 'hello', 0x02: 'ping', 0x03: 'status', 0x04: 'enable',
             0x05: 'disable', 0x06: 'trigger', 0x07: 'stopper',
             0x08: 'couple', 0x09: 'profile', 0x0c: 'flush', 0x0f: 'clear'}


class Link:
    def __init__(self, conn):
        self.conn, self.seq, self.buf = conn, 0, b''

    def reply(self, cmd, status, tag, data):
        self.conn.sendall(reply(self.seq, cmd, status, tag, data))
        self.seq = (self.seq + 1) & 0xffff

    def frames(self):
        """Yields the good frames, (type, seq, payload), as they come."""
        while True:
            data = self.conn.recv(4096)
            if not data:
                return
            self.buf += data
            while b'\0' in self.buf:
                raw, self.buf = self.buf.split(b'\0', 1)
                if not raw:
                    continue  # a sync request
                f = parse(raw)
                if f is not None:
                    yield f


def hello_payload(major, minor, build_id):
    name = b'fake'.ljust(16, b'\0')
    return struct.pack('<BBHIQIIIB3x', major, minor, 1 | 2, 7, 1000000000,
                       0, 0, 1, len(build_id)) + build_id.ljust(20, b'\0') + name


def serve(conn, mode, log):
    link = Link(conn)
    if mode == 'silent':
        while conn.recv(4096):
            pass
        return
    build_id = bytes.fromhex(os.environ.get('FAKE_BUILD_ID', ''))
    for ftype, _, p in link.frames():
        if ftype != CMD or len(p) < 4:
            continue
        cmd, tag = p[0], struct.unpack('<H', p[2:4])[0]
        args = p[4:]
        if log:
            with open(log, 'a') as f:
                f.write('%s %s\n' % (CMD_NAMES.get(cmd, hex(cmd)), args.hex()))
        if mode == 'hello' and cmd != 0x01:
            continue
        if mode == 'bad' and cmd == 0x03:
            data, status = bytes(10), 0
        elif mode == 'bad' and cmd == 0x09:
            first = struct.unpack('<I', args[:4])[0]
            nxt, count = (0x77, 0) if first == 0 else (0xffffffff, 17)
            data, status = struct.pack('<8I', nxt, count, 0, 0, 0, 0, 0, 64), 0
        elif mode == 'loop' and cmd == 0x09:
            data, status = struct.pack('<8I', 0, 0, 0, 0, 0, 0, 0, 64), 0
        elif mode == 'major9':
            data, status = hello_payload(9, 0, build_id), 4
        elif cmd == 0x01:
            data, status = hello_payload(1, 0, build_id), 0
        elif cmd == 0x03:
            data, status = bytes(104), 0
        elif cmd == 0x09:
            data, status = struct.pack('<8I', 0xffffffff, 0, 0, 0, 0, 0, 0, 64), 0
        elif cmd == 0x02:
            data, status = args, 0
        else:
            data, status = b'', 0
        link.reply(cmd, status, tag, data)


def main():
    path, mode = sys.argv[1], sys.argv[2]
    log = sys.argv[3] if len(sys.argv) > 3 else None
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(4)
    while True:
        conn, _ = srv.accept()
        try:
            serve(conn, mode, log)
        except (ConnectionError, OSError):
            pass
        conn.close()


main()
