#!/usr/bin/env python3
# Damages a copy of the "basic" test trace (mktrace.sh basic) in one way.
# Usage: corrupt.py KIND TRACE_DIR
# The main stream has 512-byte packets; its packet header is magic (0),
# uuid (4), stream_id (20); its context packet_size (28), content_size
# (36), ... The damage goes to packet 5 (byte 2560).
import os
import re
import struct
import sys

kind, d = sys.argv[1], sys.argv[2]
main = os.path.join(d, "main")
meta = os.path.join(d, "metadata")
PKT = 5 * 512


def poke(off, fmt, val):
    with open(main, "r+b") as f:
        f.seek(off)
        f.write(struct.pack(fmt, val))


def edit_meta(fn):
    with open(meta) as f:
        text = f.read()
    with open(meta, "w") as f:
        f.write(fn(text))


if kind == "truncated":
    os.truncate(main, PKT + 300)
elif kind == "magic":
    poke(PKT, "<I", 0xDEADBEEF)
elif kind == "packet-size":
    poke(PKT + 28, "<Q", 1 << 40)
elif kind == "content-size":
    poke(PKT + 36, "<Q", 8192)
elif kind == "event-id":
    # event `empty` (id 0 of the main stream) leaves the metadata
    edit_meta(lambda t: t.replace('event {\n\tstream_id = 1;\n\tid = 0;\n'
                                  '\tname = "empty";\n};\n', "", 1))
elif kind == "syntax":
    edit_meta(lambda t: t.replace("\tminor = 8;\n", "\tminor = 8 8;\n", 1))
elif kind == "wide-int":
    edit_meta(lambda t: t.replace("size = 64;", "size = 128;", 1))
else:
    sys.exit("unknown damage " + kind)
