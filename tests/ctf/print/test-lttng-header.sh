#!/usr/bin/env bash
# hetrace print == babeltrace2 on traces with LTTng's compact event
# header (a 5-bit id and 27 bits of timestamp, or id 31 then the full
# id and a 64-bit timestamp), which the decoder reads in one load:
# ids past 30, timestamps whose low 27 bits wrap, gaps of 2^27 ns and
# more (extended headers), several packets and streams; and a header
# cut by the packet's end, reported with the file and the offset.
set -eu
. "$TOP/tests/lib.sh"
. "$TOP/tests/ctf/print/lib.sh"
# both libraries' work directories ($w: tests/lib.sh, bounded())
trap 'rm -rf "$w" "$W"' EXIT

python3 - "$W" "$TOP/tests/ctf/print/corpus" <<'PY'
import os
import random
import sys

sys.path.insert(0, sys.argv[2])
from ctfgen import Int, String, Struct, Trace  # noqa: E402

out = sys.argv[1]
rnd = random.Random(27)

t = Trace(header='lttng', env={'domain': 'ust', 'hostname': 'h'})
classes = []
for k in range(34):
    if k % 3 == 0:
        f = Struct([('i', Int(32, signed=True))])
    elif k % 3 == 1:
        f = Struct([('s', String()), ('u', Int(16))])
    else:
        f = None
    classes.append((t.event('ev%d' % k, f), k % 3))


def value(kind, i):
    if kind == 0:
        return {'i': -i * 7919}
    if kind == 1:
        return {'s': 'e%d' % i, 'u': i & 0xffff}
    return None


def stream(seed, n, start):
    """n events in packets of 40, with small gaps, gaps across 2^27
    boundaries and gaps of 2^27 ns or more."""
    r = random.Random(seed)
    ts = start
    evs = []
    for i in range(n):
        g = r.random()
        if g < 0.05:
            ts += (1 << 27) + r.randrange(1 << 20)
        elif g < 0.10:
            ts += (1 << 27) - 1 - r.randrange(4)
        elif g < 0.20:
            # next: just past a multiple of 2^27
            ts = ((ts >> 27) + 1 << 27) + r.randrange(3)
        else:
            ts += r.randrange(1, 5000)
        # mostly ids below 31 (compact), some above (extended)
        idx, kind = classes[r.randrange(34) if r.random() < 0.2
                            else r.randrange(31)]
        evs.append((idx, ts, value(kind, i)))
    pkts = []
    for k in range(0, n, 40):
        part = evs[k:k + 40]
        begin = evs[k - 1][1] if k else start
        pkts.append(t.packet(part, begin, part[-1][1], k // 40))
    return pkts


t.write(os.path.join(out, 'lttng'),
        {'chan_0': stream(1, 800, 1000), 'chan_1': stream(2, 600, 5000)})

# the last record's header cut: the content ends 2 bytes into it
t = Trace(header='lttng')
e = t.event('x', Struct([('i', Int(32))]))
p = t.packet([(e, 100 + i, {'i': i}) for i in range(5)], 50, 200, 0)
with open(os.path.join(out, 'cut.offset'), 'w') as f:
    f.write('%d\n' % len(p))
t.write(os.path.join(out, 'cut'), {'stream': [p]})
PY

check_all "$W/lttng"

# the cut header: the packet's content_size (bits, after the magic, the
# UUID, the stream id and two timestamps: byte 40) loses the last
# record's payload and half its header
python3 - "$W/cut/stream" <<'PY'
import struct
import sys

path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
content = struct.unpack_from('<Q', data, 40)[0]
# the last record: a 4-byte compact header, a 4-byte payload
struct.pack_into('<Q', data, 40, content - 6 * 8)
open(path, 'wb').write(data)
PY
check_cut "a cut header" "$W/cut" "file=$W/cut/stream offset=[0-9]*" x 4
finish
