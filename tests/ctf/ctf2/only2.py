# SPDX-License-Identifier: MIT
"""
CTF 2 traces of the field classes CTF 1.8 cannot write (no twin for
babeltrace2 2.0 to read): variable-length integers (unsigned, signed,
with mappings, as the length of a dynamic array and of a dynamic-length
string, as a variant's selector), optionals (selected by a boolean and
by an integer in ranges; there and absent), UTF-16 and UTF-32 strings
(null-terminated, static- and dynamic-length, both byte orders). The
expected text of each event's payload is written from the values
encoded, as babeltrace2 2.1's pretty printer shows these classes
(src/plugins/text/pretty/print.c: integers as integers, an absent
optional "<none>", a present one "{ VALUE }", strings as UTF-8).
Then damaged data, each a trace whose second packet holds one bad
record after a good one, the stream file s1 beside it whole.

usage: python3 only2.py OUT_DIR
Writes OUT_DIR/good (and OUT_DIR/good.expect: one payload text per line),
OUT_DIR/NAME for each damaged case with OUT_DIR/bad-cases: one line per
case, "NAME<TAB>the offset (bytes) of the damage<TAB>a regular
expression its message matches".
"""
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctf2gen  # noqa: E402
import ctfgen  # noqa: E402
from ctf2gen import *  # noqa: E402,F403

out = sys.argv[1]


# ---- the field classes, as ctfgen types of kinds of their own ----

def VarInt(signed=False, maps=None, base=10):
    return ctfgen.T('varint', signed=signed, maps=maps, base=base, align=8)


def UStr(enc, n=None, ref=None):
    """n: static length in bytes; ref: a dynamic one; neither:
    null-terminated."""
    return ctfgen.T('ustr', enc=enc, n=n, ref=ref, align=8)


def Opt(ref, ft, ranges=None):
    return ctfgen.T('opt', ref=ref, ft=ft, ranges=ranges, align=1)


def leb128(v, signed):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        done = (v == 0 and not b & 0x40) or (v == -1 and b & 0x40) \
            if signed else v == 0
        out.append(b if done else b | 0x80)
        if done:
            return bytes(out)


def ustr_bytes(t, v):
    """The bytes of string value @v (text, or raw bytes) of type @t."""
    if isinstance(v, bytes):
        return v
    unit = 2 if '16' in t.enc else 4
    b = v.encode(t.enc)
    if t.n is None and t.ref is None:
        return b + b'\0' * unit
    if t.n is not None:
        return (b + b'\0' * t.n)[:t.n]
    return b


_encode = ctfgen.encode


def encode(w, t, v):
    if t.kind == 'varint':
        w.align(8)
        w.put_bytes(v if isinstance(v, bytes) else leb128(v, t.signed))
    elif t.kind == 'ustr':
        w.align(8)
        w.put_bytes(ustr_bytes(t, v))
    elif t.kind == 'opt':
        if v is not None:
            encode(w, t.ft, v)
    else:
        _encode(w, t, v)


ctfgen.encode = encode
_fc = ctf2gen.fc


def fc(t, trace_bo, roles=None, name=None, scope=None):
    if t.kind == 'varint':
        j = {'type': 'variable-length-%s-integer' %
             ('signed' if t.signed else 'unsigned')}
        if roles and name in roles:
            j['roles'] = [roles[name]]
        if t.base != 10:
            j['preferred-display-base'] = t.base
        if t.maps:
            m = {}
            for label, rng in enum_values(t.maps):
                m.setdefault(label, []).append(rng)
            j['mappings'] = m
        return j
    if t.kind == 'ustr':
        j = {'type': 'null-terminated-string', 'encoding': t.enc}
        if t.n is not None:
            j.update(type='static-length-string', length=t.n)
        elif t.ref is not None:
            j.update(type='dynamic-length-string',
                     **{'length-field-location': {'path': [t.ref]}})
        return j
    if t.kind == 'opt':
        j = {'type': 'optional',
             'selector-field-location': {'path': [t.ref]},
             'field-class': fc(t.ft, trace_bo, None, None, scope)}
        if t.ranges:
            j['selector-field-ranges'] = t.ranges
        return j
    return _fc(t, trace_bo, roles, name, scope)


ctf2gen.fc = fc


# ---- the expected text (babeltrace2's pretty printer) ----

def esc(s):
    o = ''
    for ch in s:
        if ch in '\\\'"?':
            o += '\\' + ch
        elif ord(ch) < 32 or ord(ch) == 127:
            o += {'\0': '\\0', '\a': '\\a', '\b': '\\b', '\x1b': '\\e',
                  '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t',
                  '\v': '\\v'}.get(ch, '\\x%02x' % ord(ch))
        else:
            o += ch
    return '"' + o + '"'


def text(t, v):
    if getattr(t, 'c2', None) == 'bool':
        return 'true' if v else 'false'
    if t.kind in ('varint', 'int') and getattr(t, 'maps', None):
        labels = [lb for lb, (lo, hi) in enum_values(t.maps)
                  if lo <= v <= hi]
        lab = ', '.join('"%s"' % x for x in labels) or '<unknown>'
        return '( %s : container = %d )' % (lab, v)
    if t.kind in ('varint', 'int'):
        if t.base == 16:
            return '0x%X' % (v & 0xffffffffffffffff)
        return str(v)
    if t.kind == 'enum':
        return text(ctfgen.T('int', maps=t.maps, base=10), v)
    if t.kind == 'ustr':
        return esc(v.split('\0')[0])
    if t.kind == 'string':
        return esc(v)
    if t.kind == 'opt':
        return '<none>' if v is None else '{ %s }' % text(t.ft, v)
    if t.kind == 'variant':
        name, x = v
        return '{ %s }' % text(dict(t.options)[name], x)
    if t.kind == 'seq' and t.elem.enc == 'UTF8':
        return esc(v)
    if t.kind in ('seq', 'array'):
        if not v:
            return '[ ]'
        return '[ ' + ', '.join('[%d] = %s' % (i, text(t.elem, x))
                                for i, x in enumerate(v)) + ' ]'
    if t.kind == 'struct':
        if not t.members:
            return '{ }'
        return '{ ' + ', '.join('%s = %s' % (n, text(mt, v[n]))
                                for n, mt in t.members) + ' }'
    raise ValueError(t.kind)


def write2(tr, d, streams):
    os.makedirs(d, exist_ok=True)
    for name, packets in streams.items():
        with open(os.path.join(d, name), 'wb') as f:
            for p in packets:
                f.write(p)
    with open(os.path.join(d, 'metadata'), 'w') as f:
        f.write(metadata2(tr))


# ---- the good trace ----

flag = Int(8)
flag.c2 = 'bool'
E = [('zero', 0, None), ('small', 1, 10), ('big', 2**40, 2**64 - 1)]
payload = Struct([
    ('u', VarInt()), ('s', VarInt(True)), ('h', VarInt(base=16)),
    ('e', VarInt(maps=E)),
    ('vn', VarInt()), ('arr', Seq(Int(16), 'vn')),
    ('sn', VarInt()), ('txt', Seq(Int(8, enc='UTF8'), 'sn')),
    ('sel', VarInt(maps=[('A', 0, None), ('B', 1, 5)])),
    ('v', Variant('sel', [('A', Int(8)), ('B', String())])),
    ('flag', flag), ('o1', Opt('flag', Int(16))),
    ('k', Int(8)), ('o2', Opt('k', String(), [[1, 5], [9, 9]])),
    ('o3', Opt('k', Struct([('x', VarInt()), ('w', UStr('utf-16le'))]),
               [[0, 0]])),
    ('w16', UStr('utf-16le')), ('w16be', UStr('utf-16be', n=12)),
    ('n32', Int(8)), ('w32', UStr('utf-32le', ref='n32')),
    ('w32be', UStr('utf-32be')),
])
t = Trace(env={'hostname': 'c2'}, clock={'offset_s': 0}, uuid=False)
e = t.event('c2only', payload)
words = ['', 'a', 'caf\u00e9', 'z\U0001F600z', '\u65e5\u672c\tx',
         'abcdef']
U = [0, 1, 127, 128, 300, 2**32, 2**63, 2**64 - 1]
S = [0, -1, 63, -64, 64, -65, -2**63, 2**63 - 1]
values = []
for i in range(len(U)):
    w = words[i % len(words)]
    n = i % 4
    k = [0, 3, 9, 7][i % 4]
    values.append({
        'u': U[i], 's': S[i], 'h': U[-1 - i], 'e': [0, 5, 11, 2**41][i % 4],
        'vn': n, 'arr': list(range(n)), 'sn': len(w.encode()), 'txt': w,
        'sel': i % 3, 'v': ('A', i) if i % 3 == 0 else ('B', 's%d' % i),
        'flag': i % 2, 'o1': 1000 + i if i % 2 else None,
        'k': k, 'o2': 'k%d' % k if k in (3, 9) else None,
        'o3': {'x': i * 1000, 'w': w} if k == 0 else None,
        'w16': w, 'w16be': w[:3], 'n32': 4 * len(w), 'w32': w,
        'w32be': w[::-1]})
evs = [(e, 1000 * (i + 1), v) for i, v in enumerate(values)]
good = os.path.join(out, 'good')
write2(t, good, {'s0': [t.packet(evs[:4], 0, 4000, 0),
                        t.packet(evs[4:], 5000, 9000, 1)]})
with open(os.path.join(out, 'good.expect'), 'w') as f:
    for v in values:
        f.write(text(payload, v) + '\n')


# the same records under an event header of LEB128 integers (the event
# record class id and the timestamp): the same text as the good trace
class VarHeaderTrace(Trace):
    def eh_type(self):
        return Struct([('id', VarInt()), ('timestamp', VarInt())])


vt = VarHeaderTrace(env={'hostname': 'c2'}, clock={'offset_s': 0},
                    uuid=False)
vt.event('c2only', payload)
write2(vt, os.path.join(out, 'varhdr'),
       {'s0': [vt.packet(evs[:4], 0, 4000, 0),
               vt.packet(evs[4:], 5000, 9000, 1)]})

# a payload of a fixed shape (no variant, optional or sequence): the
# text formatter compiles its line once
ft = Trace(env={'hostname': 'flat'}, clock={'offset_s': 0}, uuid=False)
fpay = Struct([('u', VarInt()), ('s', VarInt(True)), ('x', Int(8)),
               ('flag', flag),
               ('w', UStr('utf-16le')), ('w32', UStr('utf-32be', n=8)),
               ('e', VarInt(maps=E))])
fe = ft.event('flat', fpay)
fvals = [{'u': U[i], 's': S[i], 'x': i, 'flag': i % 3 // 2 * 7,
          'w': words[i % len(words)],
          'w32': words[i % len(words)][:2], 'e': [0, 5, 11, 2**41][i % 4]}
         for i in range(len(U))]
write2(ft, os.path.join(out, 'flat'),
       {'s0': [ft.packet([(fe, 10 * i, v) for i, v in enumerate(fvals)],
                         0, 100, 0)]})
with open(os.path.join(out, 'flat.expect'), 'w') as f:
    for v in fvals:
        f.write(text(fpay, v) + '\n')

# ---- damaged data: one bad record in the second packet ----

bt = Trace(env={'hostname': 'bad'}, clock={'offset_s': 0}, uuid=False)
bpay = Struct([('u', VarInt()), ('s', VarInt(True)),
               ('w', UStr('utf-16le')), ('w32', UStr('utf-32be', n=8)),
               ('k', Int(8)), ('o', Opt('k', VarInt(), [[1, 1]]))])
be = bt.event('b', bpay)
ok = {'u': 1, 's': -1, 'w': 'ok', 'w32': 'ok', 'k': 1, 'o': 5}
cases = []


def bad_case(name, pattern, bad_value, back=0):
    """@bad_value: the payload of the bad record (the good one with
    raw bytes somewhere); the damage is at the first byte that differs
    from the good record's encoding, less @back bytes."""
    p1 = bt.packet([(be, 10, ok), (be, 20, ok)], 0, 20, 0)
    p2 = bt.packet([(be, 30, ok), (be, 40, bad_value)], 30, 40, 1)
    p2ok = bt.packet([(be, 30, ok), (be, 40, ok)], 30, 40, 1)
    # past the packet header and context (their sizes differ)
    hdr = len(bt.packet([], 0, 0, 0))
    at = len(p1) + next(i for i in range(hdr, min(len(p2), len(p2ok)))
                        if p2[i] != p2ok[i]) - back
    s1 = bt.packet([(be, 15, ok), (be, 35, ok), (be, 45, ok)], 15, 45, 0)
    write2(bt, os.path.join(out, name), {'s0': [p1, p2], 's1': [s1]})
    cases.append((name, at, pattern))


def with_(**kw):
    v = dict(ok)
    v.update(kw)
    return v


bad_case('leb-long', r"variable-length integer 'u' is longer than 10 bytes",
         with_(u=b'\x80' * 10 + b'\x01'))
bad_case('leb-wide', r"variable-length integer 'u' does not fit in 64 bits",
         with_(u=b'\xff' * 9 + b'\x02'))
bad_case('leb-swide', r"variable-length integer 's' does not fit in 64 bits",
         with_(s=b'\xff' * 9 + b'\x3f'))
bad_case('leb-opt', r"variable-length integer 'o' .*longer than 10 bytes",
         with_(o=b'\xff' * 12 + b'\x00'))
bad_case('utf16-lone', r"UTF-16 string 'w': invalid code unit 0xD800 "
         r"\(a lone surrogate\)", with_(w=b'o\0\x00\xd8k\0\0\0'))
bad_case('utf16-low', r"UTF-16 string 'w': invalid code unit 0xDC00",
         with_(w=b'\x00\xdc\0\0'))
bad_case('utf32-big', r"UTF-32 string 'w32': invalid code unit 0x110000",
         with_(w32=b'\x00\x11\x00\x00\0\0\0\0'), back=1)
with open(os.path.join(out, 'bad-cases'), 'w') as f:
    for name, at, pattern in cases:
        f.write('%s\t%d\t%s\n' % (name, at, pattern))
