#!/usr/bin/env python3
# A faulty serial line between a host tool and a target, for the serial
# firmware tests:
#   line-proxy.py LISTEN_PATH TARGET_PATH [--garbage-at N] [--drop-at M]
# Listens on the unix socket LISTEN_PATH; for each client, connects to
# the unix socket TARGET_PATH (QEMU's -serial unix:...) and copies bytes
# both ways. In the target -> host direction, once N bytes went through
# it inserts 61 bytes of garbage (no 0x00 among them, so the host's
# decoder sees one long bad frame), and it drops the byte at offset M.
# Prints what it did on stderr. Ends when its client leaves.
import os
import select
import socket
import sys


def main():
    listen, target = sys.argv[1], sys.argv[2]
    garbage_at = drop_at = -1
    a = sys.argv[3:]
    while a:
        k = a.pop(0)
        if k == "--garbage-at":
            garbage_at = int(a.pop(0))
        elif k == "--drop-at":
            drop_at = int(a.pop(0))
    if os.path.exists(listen):
        os.unlink(listen)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(listen)
    srv.listen(1)
    cli, _ = srv.accept()
    tgt = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    tgt.connect(target)
    up = 0  # target -> host bytes seen
    try:
        up = copy(cli, tgt, garbage_at, drop_at)
    except (ConnectionResetError, BrokenPipeError):
        pass  # the client left
    sys.stderr.write("line-proxy: %d bytes from the target\n" % up)
    cli.close()
    tgt.close()


def copy(cli, tgt, garbage_at, drop_at):
    up = 0
    while True:
        r, _, _ = select.select([cli, tgt], [], [])
        if cli in r:
            d = cli.recv(65536)
            if not d:
                break
            tgt.sendall(d)
        if tgt in r:
            d = tgt.recv(65536)
            if not d:
                break
            out = bytearray()
            for b in d:
                if up == garbage_at:
                    out += bytes((0x41 + i % 26) | 0x80 for i in range(61))
                    sys.stderr.write("line-proxy: 61 garbage bytes at %d\n" % up)
                if up == drop_at:
                    sys.stderr.write("line-proxy: byte %d dropped\n" % up)
                else:
                    out.append(b)
                up += 1
            cli.sendall(bytes(out))
    return up


if __name__ == "__main__":
    main()
