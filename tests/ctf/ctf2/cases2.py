# SPDX-License-Identifier: MIT
"""
Pairs of hand-made traces, one CTF 1.8 and one CTF 2 (ctf2gen.py), with
the same data stream files: every field class CTF 2 shares with CTF 1.8
in both byte orders (integers of odd sizes and bases, enumerations,
floats, strings, text arrays and sequences as static- and
dynamic-length strings, BLOBs, nested structures, arrays, variants),
booleans and bit arrays (CTF 1.8 integers), clocks with offsets and
odd frequencies, discarded events and lost packets.
usage: python3 cases2.py OUT_DIR   (writes OUT_DIR/ctf18/NAME and
OUT_DIR/ctf2/NAME for each case)
"""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctf2gen import *  # noqa: E402,F403
import ctfgen  # noqa: E402

out = sys.argv[1]


def both(tr, name, streams, edit=None):
    write_both(tr, os.path.join(out, 'ctf18', name),
               os.path.join(out, 'ctf2', name), streams, edit)


def types_trace(bo):
    t = Trace(bo=bo, env={'hostname': 'board-' + bo, 'domain': 'bare',
                          'n': 7},
              clock={'offset_s': 1600000000, 'offset': 77},
              ctx_extra=[('core_id', Int(32)), ('_flags', Int(8, base=16))],
              event_ctx=Struct([('cpu', Int(8)), ('mode', Int(3)),
                                ('lvl', Int(13, True))]))
    e_str = t.event('str', Struct([('s', String())]))
    e_flt = t.event('flt', Struct([('f', Float(32)), ('d', Float(64)),
                                   ('pf', Float(32, align=8))]))
    e_int = t.event('ints', Struct([
        ('h8', Int(8, True, base=16)), ('o8', Int(8, True, base=8)),
        ('b8', Int(8, True, base=2)), ('b3', Int(3, False, base=2)),
        ('h5', Int(5, True, base=16)), ('u33', Int(33)),
        ('s61', Int(61, True)), ('net', Int(32, bo='network')),
        ('le16', Int(16, bo='le')), ('u64', Int(64)),
        ('s64', Int(64, True)), ('al', Int(16, align=32))]))
    E = Enum(Int(8, base=16), [('A', 5, None), ('B', 1, 6), ('A', 1, None),
                               ('C', 3, 4)])
    SE = Enum(Int(8, True), [('N', -3, -1), ('Z', 0, None)])
    UE = Enum(Int(64), [('MAX', 2**64 - 1, None), ('LOW', 0, 9)])
    e_enum = t.event('enum', Struct([('e', E), ('se', SE), ('ue', UE)]))
    TE = Enum(Int(8), [('A', 0, None), ('B', 1, None), ('C', 2, 3),
                       ('D', 4, None)])
    V = Variant('tag', [('A', Int(16)), ('B', String()),
                        ('C', Struct([('x', Int(8)), ('y', Int(8))])),
                        ('D', Array(Int(8), 2))])
    e_var = t.event('var', Struct([('tag', TE), ('v', V)]))
    flag = Int(8)
    flag.c2 = 'bool'
    bits = Int(16, base=16)
    bits.c2 = 'bit-array'
    bmap = Int(8, base=16)
    bmap.c2 = ('bit-map', {'lo': [[0, 3]], 'hi': [[4, 7]]})
    blob = Array(Int(8), 4)
    blob.c2 = 'blob'
    dblob = Seq(Int(8), 'n')
    dblob.c2 = 'blob'
    e_nest = t.event('nest', Struct([
        ('s', Struct([('a', Int(8)), ('b', Struct([('c', String())]))])),
        ('arr', Array(Struct([('x', Int(8))]), 2)),
        ('txt', Array(Int(8, enc='UTF8'), 5)),
        ('n', Int(8)), ('sq', Seq(Int(8, enc='UTF8'), 'n')),
        ('sqi', Seq(Int(16, True), 'n')),
        ('m', Array(Array(Int(8), 2), 2)),
        ('flag', flag), ('bits', bits), ('bmap', bmap),
        ('blob', blob), ('dblob', dblob),
        ('al', Struct([('z', Int(8))], align=64))]))
    e_ctx = t.event('ctx', Struct([('_x', Int(8)), ('__y', Int(8))]),
                    context=Struct([('c', Int(8)), ('st', String())]))
    evs = []
    ts = [1000]

    def ev(idx, fields=None, ctx=None):
        ts[0] += 1234567
        evs.append((idx, ts[0], fields, ctx,
                    {'cpu': len(evs) % 4, 'mode': len(evs) % 8,
                     'lvl': (len(evs) * 37) % 8192 - 4096}))

    ev(e_str, {'s': b''})
    for b in [b'a?b', b"it's", b'\xc3\xa9', b'\xf0\x9f\x98\x80', b'\xc3(',
              b'%s %d %%']:
        ev(e_str, {'s': b})
    for f, d in [(1.0, 2.5), (float('inf'), -1e-320), (0.1, 1.0 / 3.0)]:
        ev(e_flt, {'f': f, 'd': d, 'pf': -f})
    for v in [0, 1, -1, -128, 127, 42]:
        ev(e_int, {'h8': v, 'o8': v, 'b8': v, 'b3': v & 7,
                   'h5': max(-16, min(15, v)), 'u33': abs(v) * 2**26,
                   's61': v * 2**55, 'net': v * 1000, 'le16': v & 0xffff,
                   'u64': 2**64 - 1 - abs(v), 's64': -2**63 + abs(v),
                   'al': abs(v)})
    for v in range(0, 8):
        ev(e_enum, {'e': v, 'se': [v - 4, 120, -128][v % 3],
                    'ue': [2**64 - 1, v, 77][v % 3]})
    ev(e_var, {'tag': 0, 'v': ('A', 77)})
    ev(e_var, {'tag': 1, 'v': ('B', 'b\tb')})
    ev(e_var, {'tag': 3, 'v': ('C', {'x': 1, 'y': 2})})
    ev(e_var, {'tag': 4, 'v': ('D', [9, 8])})
    for n, txt in [(0, b'abcde'), (3, b'ab\0cd'), (5, b'\x01\x02\x03\x04\x05')]:
        ev(e_nest, {'s': {'a': n, 'b': {'c': 'x'}},
                    'arr': [{'x': 1}, {'x': 2}], 'txt': txt, 'n': n,
                    'sq': (b'x\ty\0zz')[:n], 'sqi': list(range(-n, 0)),
                    'm': [[1, 2], [3, 4]], 'flag': n % 2,
                    'bits': 0xbeef + n, 'bmap': 0x5a, 'blob': [1, 2, 3, n],
                    'dblob': list(range(n)), 'al': {'z': 9}})
    ev(e_ctx, {'_x': 1, '__y': 2}, {'c': 3, 'st': 'ctx'})
    half = len(evs) // 2
    p1 = t.packet(evs[:half], 0, evs[half - 1][1], 0,
                  extra={'core_id': 7, '_flags': 0xa5})
    # two packets lost, then 5 events discarded
    p2 = t.packet(evs[half:], evs[half][1], ts[0] + 10, 3, discarded=5,
                  extra={'core_id': 7, '_flags': 0x5a})
    both(t, 'types-' + bo, {'stream': [p1, p2]})


types_trace('le')
types_trace('be')

# a clock at 100 MHz with no Unix epoch origin, packets at any byte
t = Trace(env={'hostname': 'slow'}, uuid=False,
          clock={'freq': 100000000, 'offset_s': 12, 'offset': 3,
                 'absolute': 'false', 'precision': 4})
e0 = t.event('e', Struct([('a', Int(8)), ('s', Int(3)),
                          ('al', Int(16, align=32)), ('d', Float(64))]))
ps = [t.packet([(e0, 10 * (4 * k + i),
                 {'a': k, 's': i, 'al': 77, 'd': 0.5})
                for i in range(4)], 40 * k, 40 * k + 39, k, pad_bits=8)
      for k in range(3)]
both(t, 'slow-clock', {'s': ps})


# LTTng's event header: a 5-bit id (31: extended) then a variant of a
# 27-bit timestamp (compact) or a 32-bit id and a 64-bit timestamp
class LttngTrace(Trace):
    def eh_type(self):
        c = self.clock['name']
        tag = Enum(Int(5), [('compact', 0, 30), ('extended', 31, None)])
        v = Variant('id', [
            ('compact', Struct([('timestamp', Int(27, clock=c))])),
            ('extended', Struct([('id', Int(32)),
                                 ('timestamp', Int(64, clock=c))]))])
        t = Struct([('id', tag), ('v', v)])
        t.lttng = True
        return t


plain_encode = ctfgen.encode


def lttng_encode(w, t, v):
    if getattr(t, 'lttng', False) and 'v' not in v:
        idx, ts = v['id'], v['timestamp']
        # extended when the id does not fit or every fourth event
        if idx >= 31 or ts % 4 == 0:
            v = {'id': 31, 'v': ('extended', {'id': idx, 'timestamp': ts})}
        else:
            v = {'id': idx, 'v': ('compact',
                                  {'timestamp': ts & (2**27 - 1)})}
    plain_encode(w, t, v)


ctfgen.encode = lttng_encode
t = LttngTrace(env={'hostname': 'lt', 'domain': 'ust'},
               event_ctx=Struct([('vpid', Int(32, True))]))
evs_cls = [t.event('ust:e%d' % i, Struct([('x', Int(32))]))
           for i in range(40)]
evs = [(evs_cls[(i * 7) % 40], 1000 + i * 50000001 + (i % 3),
        {'x': i}, None, {'vpid': 100 + i % 2}) for i in range(60)]
both(t, 'lttng-header', {'ch_0': [t.packet(evs[:30], 0, evs[29][1], 0),
                                  t.packet(evs[30:], evs[30][1],
                                           evs[59][1], 1)]})


# the same layout said in other CTF 2 ways: field class aliases (one
# used in another), an absolute field location, a relative one that
# climbs out of a structure (a null path item), a clock with a UID
t = Trace(env={'hostname': 'alias'}, uuid=False,
          clock={'uuid': '"0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9"'})
e0 = t.event('e', Struct([
    ('n', Int(8)),
    ('inner', Struct([('k', Int(8)), ('a', Seq(Int(16), 'n'))])),
    ('tag', Enum(Int(8), [('A', 0, None), ('B', 1, None)])),
    ('v', Variant('tag', [('A', Int(8)), ('B', String())]))]))
evs = [(e0, 10 * i, {'n': i, 'inner': {'k': 7, 'a': list(range(i))},
                     'tag': i % 2, 'v': ('B', 'b%d' % i) if i % 2
                     else ('A', i)}) for i in range(4)]


def aliases(frags):
    u8 = {'type': 'fixed-length-unsigned-integer', 'length': 8,
          'byte-order': 'little-endian', 'alignment': 8}
    frags[1:1] = [
        {'type': 'field-class-alias', 'name': 'u8', 'field-class': u8},
        {'type': 'field-class-alias', 'name': 'pair', 'field-class': {
            'type': 'structure', 'member-classes': [
                {'name': 'k', 'field-class': 'u8'},
                {'name': 'a', 'field-class': {
                    'type': 'dynamic-length-array',
                    'length-field-location': {'path': [None, 'n']},
                    'element-field-class': {
                        'type': 'fixed-length-unsigned-integer',
                        'length': 16, 'byte-order': 'little-endian',
                        'alignment': 8}}}]}}]
    m = frags[-1]['payload-field-class']['member-classes']
    m[0]['field-class'] = 'u8'
    m[1]['field-class'] = 'pair'
    m[3]['field-class']['selector-field-location'] = {
        'origin': 'event-record-payload', 'path': ['tag']}


both(t, 'aliases', {'s': [t.packet(evs, 0, 40, 0)]}, aliases)

# what CTF 2 adds around the classes and CTF 1.8 cannot say, as the
# specification's examples write it: attributes and namespaces, UIDs,
# a clock whose origin is not the Unix epoch but its own, its accuracy,
# options without a name, an event record class without a payload
t = Trace(env={'hostname': 'spec'}, uuid=False,
          clock={'absolute': 'false', 'offset_s': 1605112699,
                 'offset': 2878388, 'precision': 100})
e0 = t.event('lttng:e', Struct([('tag', Enum(Int(8), [('X', 0, None)])),
                                ('v', Variant('tag', [('X', Int(8))]))]))
e1 = t.event('empty')
evs = [(e0, 5, {'tag': 0, 'v': ('X', 3)}), (e1, 6)]


def spec_style(frags):
    attrs = {'my.org,2024': {'note': 'ignored', 'n': [1, 2]}}
    for f in frags:
        f['attributes'] = attrs
        if f['type'] in ('clock-class', 'data-stream-class',
                         'event-record-class'):
            f['namespace'] = 'my.org,2024'
            f['uid'] = 'uid-%s' % f['type']
        if f['type'] == 'clock-class':
            f['origin'] = {'namespace': 'my.org,2024', 'name': 'boot',
                           'uid': 'boot-7'}
            f['accuracy'] = 1000
            f['description'] = 'a clock'
    m = frags[-2]['payload-field-class']['member-classes']
    m[0]['attributes'] = attrs
    m[1]['field-class']['options'][0]['attributes'] = attrs
    m[1]['field-class']['options'][0].pop('name')


both(t, 'spec-style', {'s': [t.packet(evs, 0, 10, 0)]}, spec_style)

# LTTng 2.14's log level and EMF URI: CTF 1.8 event properties, CTF 2
# attributes in LTTng's namespace (babeltrace2 reads both the same way)
t = Trace(env={'hostname': 'lvl', 'domain': 'ust'}, uuid=False)
e0 = t.event('ust:lvl', Struct([('x', Int(8))]),
             extra='\tloglevel = 13;\n'
                   '\tmodel.emf.uri = "http://example.com/emf";\n')
e1 = t.event('ust:nolvl', Struct([('x', Int(8))]), extra='\tloglevel = 2;\n')
e2 = t.event('ust:plain', Struct([('x', Int(8))]))
evs = [(e, 10 * i + 10, {'x': i}) for i, e in enumerate([e0, e1, e2, e0])]


def lttng_attributes(frags):
    ecs = [f for f in frags if f['type'] == 'event-record-class']
    ecs[0]['attributes'] = {'lttng.org,2009': {
        'log-level': 13, 'emf-uri': 'http://example.com/emf'},
        'x.org,1': {'log-level': 'not this one'}}
    ecs[1]['attributes'] = {'lttng.org,2009': {'log-level': 2}}
    ecs[2]['attributes'] = {'x.org,1': {'log-level': 5}}


both(t, 'lttng-loglevel', {'s': [t.packet(evs, 0, 50, 0)]}, lttng_attributes)

# a data stream class with a default clock class and no field with its
# timestamps (the CTF 2 fields lose their roles): every event is at the
# clock's value 0, as a CTF 1.8 trace whose timestamps are all 0
t = Trace(env={'hostname': 'nots'}, uuid=False,
          clock={'offset_s': 1000, 'offset': 5})
e0 = t.event('e', Struct([('x', Int(16))]))
evs = [(e0, 0, {'x': i}) for i in range(5)]


def no_timestamp_roles(frags):
    for f in frags:
        if f['type'] != 'data-stream-class':
            continue
        for key in ('packet-context-field-class',
                    'event-record-header-field-class'):
            for m in f[key]['member-classes']:
                if 'timestamp' in m['name']:
                    m['field-class'].pop('roles', None)


both(t, 'no-timestamps', {'s': [t.packet(evs[:2], 0, 0, 0),
                                t.packet(evs[2:], 0, 0, 1)]},
     no_timestamp_roles)
