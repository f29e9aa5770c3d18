# SPDX-License-Identifier: MIT
"""
CTF 2 metadata for the hand-made traces of ctfgen.py: the same Trace
object (types, clock, env, events) written as a CTF 2 JSON text
sequence, so one set of data stream files makes two traces, a CTF 1.8
one (TSDL) and a CTF 2 one, whose `print` output must be the same.

CTF 2 only field classes come from hints on ctfgen types:
  Int(...).c2 = 'bool' | 'bit-array' | ('bit-map', {flag: [[lo, hi]]})
  Array(Int(8), n).c2 = 'blob'      Seq(Int(8), ref).c2 = 'blob'
Arrays and sequences of 8-bit UTF-8 integers become static- and
dynamic-length strings; enumerations integers with mappings; variants
select their options by the ranges of the tag's labels.
usage: write_both(trace, dir_ctf18, dir_ctf2, streams)
"""
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'print', 'corpus'))
from ctfgen import *  # noqa: E402,F403

RS = '\x1e'

PC_ROLES = {
    'timestamp_begin': 'default-clock-timestamp',
    'timestamp_end': 'packet-end-default-clock-timestamp',
    'content_size': 'packet-content-length',
    'packet_size': 'packet-total-length',
    'events_discarded': 'discarded-event-record-counter-snapshot',
    'packet_seq_num': 'packet-sequence-number',
}
EH_ROLES = {'id': 'event-record-class-id',
            'timestamp': 'default-clock-timestamp'}
PH_ROLES = {'magic': 'packet-magic-number',
            'stream_id': 'data-stream-class-id',
            'stream_instance_id': 'data-stream-id'}


def c2name(n):
    """The CTF 2 name of TSDL name @n: babeltrace2 shows a TSDL name
    without one leading '_' (the escape of keywords)."""
    return n[1:] if n.startswith('_') else n


def enum_values(maps):
    """TSDL labels with their ranges ((label, [[lo, hi]]) in order)."""
    out, nxt = [], 0
    for label, lo, hi in maps:
        if lo is None:
            lo = nxt
        if hi is None:
            hi = lo
        nxt = hi + 1
        out.append((label, [lo, hi]))
    return out


def bo_name(t, trace_bo):
    bo = t.bo or trace_bo
    return 'big-endian' if bo in ('be', 'network') else 'little-endian'


def fc(t, trace_bo, roles=None, name=None, scope=None):
    """The CTF 2 field class of ctfgen type @t; @roles maps member
    names to roles; @scope is the enclosing structures (innermost
    last), to find a variant's tag."""
    scope = scope or []
    hint = getattr(t, 'c2', None)
    if t.kind == 'int':
        j = {'length': t.size, 'byte-order': bo_name(t, trace_bo),
             'alignment': t.align}
        if hint == 'bool':
            j['type'] = 'fixed-length-boolean'
            return j
        if hint == 'bit-array':
            j['type'] = 'fixed-length-bit-array'
            return j
        if isinstance(hint, tuple) and hint[0] == 'bit-map':
            j['type'] = 'fixed-length-bit-map'
            j['flags'] = hint[1]
            return j
        j['type'] = ('fixed-length-signed-integer' if t.signed
                     else 'fixed-length-unsigned-integer')
        if t.base != 10:
            j['preferred-display-base'] = t.base
        if roles and name in roles:
            j['roles'] = [roles[name]]
        return j
    if t.kind == 'enum':
        j = fc(t.cont, trace_bo, roles, name, scope)
        m = {}
        for label, rng in enum_values(t.maps):
            m.setdefault(label, []).append(rng)
        j['mappings'] = m
        return j
    if t.kind == 'float':
        return {'type': 'fixed-length-floating-point-number',
                'length': t.size, 'byte-order': bo_name(t, trace_bo),
                'alignment': t.align}
    if t.kind == 'string':
        return {'type': 'null-terminated-string'}
    if t.kind == 'struct':
        j = {'type': 'structure', 'member-classes': [
            {'name': c2name(n), 'field-class': fc(mt, trace_bo, roles, n,
                                           scope + [t])}
            for n, mt in t.members]}
        if t.min_align > 1:
            j['minimum-alignment'] = t.min_align
        return j
    if t.kind in ('array', 'seq'):
        e = t.elem
        text = (e.kind == 'int' and e.size == 8 and e.enc == 'UTF8'
                and e.align == 8)
        if t.kind == 'array':
            if text or hint == 'blob':
                return {'type': 'static-length-' +
                        ('string' if text else 'blob'), 'length': t.n}
            return {'type': 'static-length-array', 'length': t.n,
                    'element-field-class': fc(e, trace_bo, None, None,
                                              scope)}
        loc = {'path': [c2name(x) for x in t.ref.split('.')]}
        if text or hint == 'blob':
            return {'type': 'dynamic-length-' +
                    ('string' if text else 'blob'),
                    'length-field-location': loc}
        return {'type': 'dynamic-length-array', 'length-field-location': loc,
                'element-field-class': fc(e, trace_bo, None, None, scope)}
    if t.kind == 'variant':
        tag = None
        for s in reversed(scope):
            for n, mt in s.members:
                if n == t.tag:
                    tag = mt
            if tag:
                break
        ranges = {}
        for label, rng in enum_values(tag.maps):
            ranges.setdefault(label, []).append(rng)
        return {'type': 'variant', 'selector-field-location':
                {'path': [c2name(t.tag)]},
                'options': [{'name': c2name(n),
                             'field-class': fc(mt, trace_bo, roles, n,
                                               scope),
                             'selector-field-ranges': ranges.get(n, [])}
                            for n, mt in t.options if n in ranges]}
    raise ValueError(t.kind)


def metadata2(tr):
    """The CTF 2 metadata of ctfgen Trace @tr."""
    frags = []
    pre = {'type': 'preamble', 'version': 2}
    if tr.uuid:
        pre['uuid'] = list(tr.uuid.bytes)
    frags.append(pre)
    hdr = [('magic', Int(32))]
    if tr.uuid:
        u = Array(Int(8), 16)
        u.c2 = 'blob'
        hdr.append(('uuid', u))
    hdr.append(('stream_id', Int(32)))
    ph = fc(Struct(hdr), tr.bo, PH_ROLES)
    if tr.uuid:
        ph['member-classes'][1]['field-class']['roles'] = [
            'metadata-stream-uuid']
    frags.append({'type': 'trace-class', 'environment': tr.env,
                  'packet-header-field-class': ph})
    c = tr.clock
    clk = {'type': 'clock-class', 'id': c['name'], 'name': c['name'],
           'frequency': int(c['freq']), 'precision': int(c['precision']),
           'offset-from-origin': {'seconds': int(c['offset_s']),
                                  'cycles': int(c['offset'])}}
    if 'uuid' in c:
        clk['uid'] = c['uuid'].strip('"')
    if str(c['absolute']) == 'true':
        clk['origin'] = 'unix-epoch'
    frags.append(clk)
    dsc = {'type': 'data-stream-class', 'id': 0,
           'default-clock-class-id': c['name'],
           'packet-context-field-class': fc(tr.pc_type(), tr.bo, PC_ROLES),
           'event-record-header-field-class': fc(tr.eh_type(), tr.bo,
                                                 EH_ROLES)}
    if tr.event_ctx:
        dsc['event-record-common-context-field-class'] = fc(tr.event_ctx,
                                                            tr.bo)
    frags.append(dsc)
    for i, (name, fields, context, extra) in enumerate(tr.events):
        e = {'type': 'event-record-class', 'id': i,
             'data-stream-class-id': 0, 'name': name}
        if context:
            e['specific-context-field-class'] = fc(context, tr.bo)
        if fields:
            e['payload-field-class'] = fc(fields, tr.bo)
        frags.append(e)
    return ''.join(RS + json.dumps(f, indent=1) + '\n' for f in frags)


def write_both(tr, d18, d2, streams, edit=None):
    """@edit(fragments), when given, changes the CTF 2 fragments (a
    list of dicts) before they are written."""
    tr.write(d18, streams)
    tr.write(d2, streams)
    text = metadata2(tr)
    if edit:
        frags = [json.loads(f) for f in text.split(RS) if f.strip()]
        edit(frags)
        text = ''.join(RS + json.dumps(f) + '\n' for f in frags)
    with open(os.path.join(d2, 'metadata'), 'w') as f:
        f.write(text)
