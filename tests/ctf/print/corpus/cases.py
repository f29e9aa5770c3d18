# SPDX-License-Identifier: MIT
"""
Hand-made CTF traces for the print tests (written with ctfgen.py):
every field type in both byte orders, odd bit fields, variants, enums
with overlapping ranges, text arrays, every string byte, special
floats, env/loglevel/emf header fields, discarded events and lost
packets, clocks with offsets and odd frequencies.
usage: python3 cases.py OUT_DIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctfgen import *  # noqa: E402,F403

out = sys.argv[1]


def types_trace(bo, path):
    t = Trace(bo=bo, env={'hostname': 'board-' + bo, 'domain': 'bare'},
              ctx_extra=[('core_id', Int(32)), ('_flags', Int(8, base=16))],
              event_ctx=Struct([('cpu', Int(8)), ('mode', Int(3)),
                                ('lvl', Int(13, True))]))
    e_str = t.event('str', Struct([('s', String())]))
    e_flt = t.event('flt', Struct([('f', Float(32)), ('d', Float(64)),
                                   ('pf', Float(32, align=8)),
                                   ('bd', Float(64, align=8))]))
    e_int = t.event('ints', Struct([
        ('h8', Int(8, True, base=16)), ('o8', Int(8, True, base=8)),
        ('b8', Int(8, True, base=2)), ('h64', Int(64, True, base=16)),
        ('o64', Int(64, False, base=8)), ('b3', Int(3, False, base=2)),
        ('h5', Int(5, True, base=16)), ('s7', Int(7, True)),
        ('u33', Int(33)), ('s61', Int(61, True)),
        ('net', Int(32, bo='network')), ('le16', Int(16, bo='le')),
        ('be16', Int(16, bo='be')), ('u64', Int(64)), ('s64', Int(64, True)),
        ('al', Int(16, align=32))]))
    E = Enum(Int(8, base=16), [('A', 5, None), ('B', 1, 6), ('A', 1, None),
                               ('C', 3, 4), ('D', 4, None)])
    SE = Enum(Int(8, True), [('N', -3, -1), ('Z', 0, None),
                             ('BIG', 100, 127)])
    UE = Enum(Int(64), [('MAX', 2**64 - 1, None), ('LOW', 0, 9)])
    BE = Enum(Int(4, base=2), [('one', 1, None), ('auto', None, None)])
    e_enum = t.event('enum', Struct([('e', E), ('se', SE), ('ue', UE),
                                     ('be', BE)]))
    TE = Enum(Int(8), [('A', 0, None), ('B', 1, None), ('C', 2, None),
                       ('D', 3, None), ('E', 4, None)])
    V = Variant('tag', [('A', Int(16)), ('B', String()),
                        ('C', Struct([('x', Int(8)), ('y', Int(8))])),
                        ('D', Struct([])),
                        ('E', Array(Int(8), 2))])
    e_var = t.event('var', Struct([('tag', TE), ('v', V)]))
    e_empty = t.event('emptys', Struct([]))
    e_nothing = t.event('nothing')
    e_nest = t.event('nest', Struct([
        ('s', Struct([('a', Int(8)), ('b', Struct([('c', String())]))])),
        ('arr', Array(Struct([('x', Int(8))]), 2)),
        ('txt', Array(Int(8, enc='UTF8'), 5)),
        ('n', Int(8)), ('sq', Seq(Int(8, enc='UTF8'), 'n')),
        ('sq2', Seq(Int(8, enc='ASCII'), 'n')),
        ('sqi', Seq(Int(16, True), 'n')),
        ('m', Array(Array(Int(8), 2), 2)),
        ('e0', Array(Int(32), 0)),
        ('sa', Array(String(), 2))]))
    e_ctx = t.event('ctx', Struct([('_x', Int(8)), ('__y', Int(8)),
                                   ('z_', Int(8))]),
                    context=Struct([('c', Int(8)), ('st', String())]))
    e_ectx = t.event('emptyctx', Struct([('a', Int(8))]),
                     context=Struct([]))
    evs = []
    ts = [1000 if bo == 'le' else 1001]

    def ev(idx, fields=None, ctx=None):
        ts[0] += 1234567
        evs.append((idx, ts[0], fields, ctx,
                    {'cpu': len(evs) % 4, 'mode': len(evs) % 8,
                     'lvl': (len(evs) * 37) % 8192 - 4096}))

    # babeltrace2 2.0 prints a stale value for an empty string when the
    # event object is recycled: the empty one comes first
    ev(e_str, {'s': b''})
    ev(e_str, {'s': bytes(range(1, 256))})
    for b in [b'a?b', b"it's", b'\xc3\xa9', b'\xe2\x82\xac',
              b'\xf0\x9f\x98\x80', b'\xc3', b'\xc3(', b'\xed\xa0\x80',
              b'\x80', b'%s %d %%', b'{ } [ ] = ,']:
        ev(e_str, {'s': b})
    nan = float('nan')
    inf = float('inf')
    for f, d in [(1.0, 2.5), (nan, nan), (inf, -inf), (-nan, 1e-320),
                 (123456.0, 1234567.0), (0.0001, 0.00001),
                 (3.4028234663852886e+38, 1.7976931348623157e+308),
                 (1.401298464324817e-45, 5e-324), (2.5, 0.5),
                 (1234.5678, 99999.99), (12345.678, 123456.7),
                 (-0.0, -0.0), (1e-5, 999999.5), (0.1, 1.0 / 3.0),
                 (100000.0, 1e16)]:
        ev(e_flt, {'f': f, 'd': d, 'pf': -f, 'bd': d / 7})
    for v in [0, 1, -1, -128, 127, 5, 42, -77]:
        ev(e_int, {'h8': v, 'o8': v, 'b8': v, 'h64': v * 0x123456789,
                   'o64': abs(v) * 12345 + (2**63 if v < 0 else 0),
                   'b3': v & 7, 'h5': max(-16, min(15, v)),
                   's7': max(-64, min(63, v)), 'u33': abs(v) * 2**26,
                   's61': v * 2**55, 'net': v * 1000, 'le16': v & 0xffff,
                   'be16': (v * 3) & 0xffff, 'u64': 2**64 - 1 - abs(v),
                   's64': -2**63 + abs(v), 'al': abs(v)})
    for v in range(0, 12):
        ev(e_enum, {'e': v, 'se': [v - 4, 120, -128][v % 3],
                    'ue': [2**64 - 1, v, 77][v % 3], 'be': v % 4})
    ev(e_var, {'tag': 0, 'v': ('A', 77)})
    ev(e_var, {'tag': 1, 'v': ('B', 'b\tb')})
    ev(e_var, {'tag': 2, 'v': ('C', {'x': 1, 'y': 2})})
    ev(e_var, {'tag': 3, 'v': ('D', {})})
    ev(e_var, {'tag': 4, 'v': ('E', [9, 8])})
    ev(e_empty, {})
    ev(e_nothing)
    # n = 0 first: babeltrace2 2.0 prints a stale value for an empty
    # text sequence in a recycled event object
    for n, txt in [(0, b'abcde'), (3, b'ab\0cd'), (5, b'\x01\x02\x03\x04\x05')]:
        ev(e_nest, {'s': {'a': n, 'b': {'c': 'x'}},
                    'arr': [{'x': 1}, {'x': 2}], 'txt': txt, 'n': n,
                    'sq': (b'x\ty\0zz')[:n], 'sq2': (b'\x01\x80z\x7fq')[:n],
                    'sqi': list(range(-n, 0)), 'm': [[1, 2], [3, 4]],
                    'e0': [], 'sa': ['p', 'q"']})
    ev(e_ctx, {'_x': 1, '__y': 2, 'z_': 3}, {'c': 3, 'st': 'ctx'})
    ev(e_ectx, {'a': 5}, {})
    half = len(evs) // 2
    p1 = t.packet(evs[:half], 0, evs[half - 1][1], 0,
                  extra={'core_id': 7, '_flags': 0xa5})
    p2 = t.packet(evs[half:], evs[half][1], ts[0] + 10, 1,
                  extra={'core_id': 7, '_flags': 0x5a})
    t.write(path, {'stream': [p1, p2]})


types_trace('le', os.path.join(out, 'types-le'))
types_trace('be', os.path.join(out, 'types-be'))

# packets that end (and the next begins) at any byte: alignment is
# relative to the packet's beginning, not to the file
t = Trace(env={'hostname': 'unaligned'})
e0 = t.event('e', Struct([('a', Int(8)), ('s', Int(3)),
                          ('al', Int(16, align=32)), ('d', Float(64)),
                          ('z', Int(8))]))
ps = [t.packet([(e0, 10 * (4 * k + i),
                 {'a': k, 's': i, 'al': 77, 'd': 0.5, 'z': 9})
                for i in range(4)], 40 * k, 40 * k + 39, k, pad_bits=8)
      for k in range(5)]
t.write(os.path.join(out, 'unaligned-packets'), {'s': ps})

# header fields: env hostname/domain/procname/vpid, loglevel, emf
t = Trace(env={'domain': 'ust', 'hostname': 'hh', 'procname': 'pp',
               'vpid': 42, 'trace_name': 'tn'})
e0 = t.event('x', Struct([('a', Int(8))]),
             extra='\tloglevel = 4;\n\tmodel.emf.uri = "http://e/f";\n')
e1 = t.event('y', Struct([('a', Int(8))]))
levels = []
for lv in range(0, 15):
    levels.append(t.event('lvl%d' % lv, None, extra='\tloglevel = %d;\n' % lv))
evs = [(e0, 100, {'a': 1}), (e1, 200, {'a': 2})]
evs += [(e, 300 + i) for i, e in enumerate(levels)]
t.write(os.path.join(out, 'env'), {'s0': [t.packet(evs, 50, 400, 0)]})

# discarded events, lost packets, with and without a UUID
for name, uu in (('lossy-nouuid', False), ('lossy-uuid', True)):
    t = Trace(env={'domain': 'bare', 'hostname': 'hh'}, uuid=uu)
    e0 = t.event('x', Struct([('a', Int(8))]))
    ps = [t.packet([(e0, 100, {'a': 1})], 50, 150, 0, discarded=0),
          t.packet([(e0, 200, {'a': 2})], 160, 250, 1, discarded=1),
          t.packet([(e0, 300, {'a': 3})], 260, 350, 3, discarded=1),
          t.packet([(e0, 400, {'a': 4})], 360, 450, 4, discarded=5),
          t.packet([(e0, 500, {'a': 5})], 460, 550, 6, discarded=9),
          t.packet([(e0, 600, {'a': 6})], 560, 650, 7, discarded=9),
          t.packet([(e0, 3000000000, {'a': 7})], 2999999999, 3000000001,
                   12, discarded=1000)]
    t.write(os.path.join(out, name), {
        's0': ps,
        's1': [t.packet([(e0, 120, {'a': 9})], 110, 130, 5, discarded=3)],
        'a0': [t.packet([(e0, 125, {'a': 10})], 111, 126, 0)]})

# clocks: 1 kHz with offsets, 3 GHz, not from the Unix epoch
for name, clk, stamps in (
        ('clock-khz', dict(freq=1000, offset_s=1700000000, offset=123),
         [0, 1, 999, 1000, 86400 * 1000 + 5]),
        ('clock-3ghz', dict(freq=3000000000, offset_s=1, offset=7),
         [10, 11, 3000000000, 3000000001, 2**40]),
        ('clock-rel', dict(freq=1000000000, absolute='false',
                           offset_s=3600 * 30),
         [0, 5, 10**12]),
        ('clock-neg', dict(freq=1000000000, offset_s=-10),
         [0, 5, 10**10, 10**10 + 1])):
    t = Trace(env={'hostname': name}, clock=clk)
    e0 = t.event('tick', Struct([('n', Int(32))]))
    evs = [(e0, s, {'n': i}) for i, s in enumerate(stamps)]
    t.write(os.path.join(out, name),
            {'s': [t.packet(evs, stamps[0], stamps[-1], 0)]})

# two traces under one directory, interleaved in time
for host, base in (('alpha', 0), ('beta', 5)):
    t = Trace(env={'hostname': host, 'domain': 'bare'})
    e0 = t.event('ping', Struct([('seq', Int(16))]))
    evs = [(e0, 10 * i + base, {'seq': i}) for i in range(20)]
    t.write(os.path.join(out, 'pair', host, 'core0'),
            {'stream': [t.packet(evs[:10], 0, 99 + base, 0),
                        t.packet(evs[10:], 100 + base, 300, 1)]})
