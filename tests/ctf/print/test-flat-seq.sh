#!/usr/bin/env bash
# hetrace print == babeltrace2 on records whose scopes are flat with
# sequences (fixed runs, strings, arrays and sequences of fixed
# elements: the decoder keeps their fields per stream and lays them out
# again only from the first sequence whose length changed): lengths
# that repeat, change, drop to zero; sequences of integers, of text,
# of structures; one in the stream's event context; a record past the
# kept fields' limit (the general path); and a sequence cut by the
# packet's end, reported with the file and the offset as before.
set -eu
. "$TOP/tests/lib.sh"
. "$TOP/tests/ctf/print/lib.sh"
# both libraries' work directories ($w: tests/lib.sh, bounded())
trap 'rm -rf "$w" "$W"' EXIT

python3 - "$W" "$TOP/tests/ctf/print/corpus" <<'PY'
import os
import sys

sys.path.insert(0, sys.argv[2])
from ctfgen import (Array, Float, Int, Seq, String, Struct,  # noqa: E402
                    Trace)

out = sys.argv[1]


def payload():
    return Struct([
        ('a', Int(32, signed=True)), ('s', String()), ('n', Int(8)),
        ('sq', Seq(Int(32, signed=True), 'n')),
        ('t', Seq(Int(8, enc='UTF8'), 'n')),
        ('h', Int(16, base=16)), ('arr', Array(Int(16), 3)),
        ('m', Int(8)),
        ('pts', Seq(Struct([('x', Int(16)), ('y', Int(8, signed=True))]),
                    'm')),
        ('d', Float(64)), ('tail', Int(64, signed=True))])


def value(i, n, m):
    return {'a': -i * 1001, 's': ['x', 'a\tb', 'long string %d' % i][i % 3],
            'n': n, 'sq': [i * (k + 1) - 50 for k in range(n)],
            't': (b'hello world' * 3)[:n], 'h': i * 77 & 0xffff,
            'arr': [i, i + 1, 65535 - i], 'm': m,
            'pts': [{'x': k + i, 'y': -k} for k in range(m)],
            'd': i / 7.0, 'tail': -(2 ** 62) + i}


# lengths that repeat (the layout kept), change, drop to zero
lens = [0, 0, 1, 1, 3, 3, 3, 0, 2, 5, 5, 1, 0, 4, 4, 4, 2, 2, 0, 7]

t = Trace(event_ctx=Struct([('cn', Int(8)), ('cs', Seq(Int(16), 'cn'))]))
e = t.event('fs', payload())
big = t.event('big', Struct([('k', Int(16)), ('b', Seq(Int(8), 'k')),
                             ('after', Int(32))]))
evs = []
for i, n in enumerate(lens):
    m = lens[(i * 7) % len(lens)]
    cn = lens[(i * 3) % len(lens)]
    evs.append((e, 100 + 10 * i, value(i, n, m), None,
                {'cn': cn, 'cs': list(range(cn))}))
    if i % 5 == 4:
        # 2000 elements: more fields than a scope keeps (the general
        # path decodes it), then small again
        k = 2000 if i % 10 == 4 else 3
        evs.append((big, 105 + 10 * i,
                    {'k': k, 'b': [(j * 7) & 0xff for j in range(k)],
                     'after': i}, None, {'cn': 1, 'cs': [9]}))
half = len(evs) // 2
p1 = t.packet(evs[:half], 0, evs[half - 1][1], 0)
p2 = t.packet(evs[half:], evs[half][1], 10000, 1)
t.write(os.path.join(out, 'flatseq'), {'stream': [p1, p2]})

# bit fields around the sequences: a position left off a byte by an
# odd number of 12-bit elements, by a 3-bit field or by nothing (no
# element), then members aligned to 8, 16 and 32 bits
t = Trace()
e = t.event('bits', Struct([
    ('b3', Int(3)), ('n', Int(5)), ('sq', Seq(Int(12), 'n')),
    ('x', Int(16)), ('s', String()), ('k', Int(4)),
    ('q', Seq(Int(8, enc='UTF8'), 'k')), ('c', Int(3)),
    ('y', Int(32, align=32)), ('z', Int(7)), ('w', Seq(Int(16), 'n')),
    ('end', Int(8))]))
evs = []
for i in range(60):
    n = (i * 7) % 6
    # not 0: babeltrace2 2.0 prints an empty text sequence after a
    # bit field with the previous record's text
    k = 1 + (i * 5) % 3
    evs.append((e, 100 + i, {
        'b3': i & 7, 'n': n, 'sq': [(i * 37 + j) & 0xfff for j in range(n)],
        'x': i * 1000 & 0xffff, 's': 'v%d' % i, 'k': k,
        'q': (b'abcd')[:k], 'c': (i + 1) & 7, 'y': i * 100003,
        'z': i & 127, 'w': [j + i for j in range(n)], 'end': 255 - i}))
t.write(os.path.join(out, 'flatbits'),
        {'stream': [t.packet(evs[:30], 0, 129, 0),
                    t.packet(evs[30:], 130, 200, 1)]})

# a packet whose last record's sequence goes past the content: its
# length byte says 200 elements of 32 bits, 3 are there
t = Trace()
e = t.event('fs', payload())
good = [(e, 100 + i, value(i, n, 1)) for i, n in enumerate([2, 3, 3])]
p = bytearray(t.packet(good + [(e, 200, value(9, 3, 1))], 0, 300, 0))
with open(os.path.join(out, 'cut.offset'), 'w') as f:
    f.write('%d\n' % len(p))
t.write(os.path.join(out, 'cut'), {'stream': [bytes(p)]})
PY

check_all "$W/flatseq"
check_all "$W/flatbits"

# the cut sequence: the length of the last record's 'sq' is patched to
# 200 (its 'n' byte follows the string "x"... found by the reader's own
# message: the record offset must be named, the good records printed)
python3 - "$W/cut/stream" <<'PY'
import sys

path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
# the last record's string 'x' (value(9, ...): 9 % 3 == 0) then n = 3
i = data.rfind(b'x\x00\x03')
assert i > 0
data[i + 2] = 200
open(path, 'wb').write(data)
PY
check_cut "a cut sequence" "$W/cut" \
	"cannot decode packet: file=$W/cut/stream offset=[0-9]*: sequence 'sq' of 200 elements does not fit in the packet content" \
	fs 3
finish
