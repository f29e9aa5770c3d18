# SPDX-License-Identifier: MIT
"""
A tiny CTF 1.8 writer for hand-made test traces: field types are Python
tuples from which both the TSDL metadata and the binary encoding come,
so every corner of the format (variants, odd bit fields, byte orders,
enums with overlapping ranges, text arrays) can be written exactly.

Types:
  Int(size, signed=False, align=8, base=10, bo=None, enc=None, clock=None)
  Float(size)            32 or 64 (align given with align=)
  String()
  Struct([(name, type), ...], align=1)
  Array(type, n)         Seq(type, length_ref)
  Enum(int_type, [(label, lo, hi), ...])    hi None: lo only
  Variant(tag_ref, [(name, type), ...])
Values: ints/floats, bytes or str for strings, dict for structs, list
for arrays/sequences, (option, value) for variants.
"""
import os
import struct
import sys
import uuid as uuidmod

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", ".."))
from ctfbits import Bits  # noqa: E402


class T:
    def __init__(self, kind, **kw):
        self.kind = kind
        self.__dict__.update(kw)


def Int(size, signed=False, align=None, base=10, bo=None, enc=None,
        clock=None):
    if align is None:
        align = 8 if size % 8 == 0 else 1
    return T('int', size=size, signed=signed, align=align, base=base,
             bo=bo, enc=enc, clock=clock)


def Float(size, align=None, bo=None):
    return T('float', size=size, align=align or size, bo=bo)


def String(enc=None):
    return T('string', align=8, enc=enc)


def Struct(members, align=1):
    a = max([align] + [t.align for _, t in members])
    return T('struct', members=members, align=a, min_align=align)


def Array(elem, n):
    return T('array', elem=elem, n=n, align=elem.align)


def Seq(elem, ref):
    return T('seq', elem=elem, ref=ref, align=elem.align)


def Enum(cont, maps):
    return T('enum', cont=cont, maps=maps, align=cont.align)


def Variant(tag, options):
    return T('variant', tag=tag, options=options, align=1)


def tsdl(t, ind='\t'):
    if t.kind == 'int':
        s = 'integer { size = %d; align = %d; signed = %s; base = %d;' % (
            t.size, t.align, 'true' if t.signed else 'false', t.base)
        if t.bo:
            s += ' byte_order = %s;' % t.bo
        if t.enc:
            s += ' encoding = %s;' % t.enc
        if t.clock:
            s += ' map = clock.%s.value;' % t.clock
        return s + ' }'
    if t.kind == 'float':
        e, m = (8, 24) if t.size == 32 else (11, 53)
        s = 'floating_point { exp_dig = %d; mant_dig = %d; align = %d;' % (
            e, m, t.align)
        if t.bo:
            s += ' byte_order = %s;' % t.bo
        return s + ' }'
    if t.kind == 'string':
        return 'string' + (' { encoding = %s; }' % t.enc if t.enc else '')
    if t.kind == 'struct':
        s = 'struct {\n'
        for name, mt in t.members:
            s += ind + '\t' + decl(mt, name, ind + '\t') + ';\n'
        s += ind + '}'
        if t.min_align > 1:
            s += ' align(%d)' % t.min_align
        return s
    if t.kind == 'enum':
        s = 'enum : %s {\n' % tsdl(t.cont, ind)
        parts = []
        for label, lo, hi in t.maps:
            q = '"%s"' % label
            if lo is None:
                parts.append(ind + '\t' + q)
            elif hi is None:
                parts.append(ind + '\t%s = %d' % (q, lo))
            else:
                parts.append(ind + '\t%s = %d ... %d' % (q, lo, hi))
        return s + ',\n'.join(parts) + '\n' + ind + '}'
    if t.kind == 'variant':
        s = 'variant <%s> {\n' % t.tag
        for name, mt in t.options:
            s += ind + '\t' + decl(mt, name, ind + '\t') + ';\n'
        return s + ind + '}'
    raise ValueError(t.kind)


def decl(t, name, ind='\t'):
    suffix = ''
    while t.kind in ('array', 'seq'):
        suffix += '[%s]' % (t.n if t.kind == 'array' else t.ref)
        t = t.elem
    return '%s %s%s' % (tsdl(t, ind), name, suffix)


def encode(w, t, v):
    w.align(t.align)
    if t.kind == 'int':
        bo = t.bo or w.bo
        if bo == 'network':
            bo = 'be'
        if t.size % 8 == 0 and w.pos % 8 == 0 and bo == 'be':
            w.put_bytes((v & ((1 << t.size) - 1)).to_bytes(t.size // 8, 'big'))
        elif t.size % 8 == 0 and w.pos % 8 == 0:
            w.put_bytes((v & ((1 << t.size) - 1)).to_bytes(t.size // 8,
                                                            'little'))
        else:
            w.put(v, t.size, bo)
    elif t.kind == 'float':
        bo = t.bo or w.bo
        fmt = ('<' if bo == 'le' else '>') + ('f' if t.size == 32 else 'd')
        raw = struct.pack(fmt, v)
        w.put_bytes(raw)
    elif t.kind == 'string':
        if isinstance(v, str):
            v = v.encode('utf-8', 'surrogateescape')
        w.put_bytes(v + b'\0')
    elif t.kind == 'struct':
        for name, mt in t.members:
            encode(w, mt, v[name])
    elif t.kind in ('array', 'seq'):
        if isinstance(v, (bytes, str)):
            if isinstance(v, str):
                v = v.encode('utf-8', 'surrogateescape')
            v = list(v)
        for x in v:
            encode(w, t.elem, x)
    elif t.kind == 'enum':
        encode(w, t.cont, v)
    elif t.kind == 'variant':
        name, x = v
        encode(w, dict(t.options)[name], x)
    else:
        raise ValueError(t.kind)


class Trace:
    """One trace: clock, env, one stream class, event classes."""
    count = 0

    def __init__(self, bo='le', env=None, clock=None, uuid=True,
                 ctx_extra=None, event_ctx=None, header='large'):
        self.bo = bo
        self.env = env if env is not None else {'domain': 'test'}
        self.clock = dict(name='c0', freq=1000000000, offset_s=0,
                          offset=0, absolute='true', precision=0)
        if clock:
            self.clock.update(clock)
        # babeltrace2 merges traces sharing a UUID: one per trace
        Trace.count += 1
        self.uuid = uuidmod.UUID('12345678-1234-5678-9abc-%012x' %
                                 Trace.count) if uuid else None
        self.ctx_extra = ctx_extra or []
        self.event_ctx = event_ctx
        self.events = []
        self.header = header

    def event(self, name, fields=None, context=None, extra=''):
        self.events.append((name, fields, context, extra))
        return len(self.events) - 1

    def pc_type(self):
        c = self.clock['name']
        m = [('timestamp_begin', Int(64, clock=c)),
             ('timestamp_end', Int(64, clock=c)),
             ('content_size', Int(64)), ('packet_size', Int(64)),
             ('events_discarded', Int(64)), ('packet_seq_num', Int(64))]
        return Struct(m + self.ctx_extra)

    def eh_type(self):
        c = self.clock['name']
        if self.header == 'lttng':
            # LTTng's compact event header: a 5-bit id, then 27 bits of
            # timestamp, or id 31 and the full id and timestamp
            return Struct([
                ('id', Enum(Int(5), [('compact', 0, 30),
                                     ('extended', 31, None)])),
                ('v', Variant('id', [
                    ('compact', Struct([('timestamp', Int(27, clock=c))])),
                    ('extended', Struct([('id', Int(32)),
                                         ('timestamp', Int(64, clock=c))]))
                ]))], align=8)
        return Struct([('id', Int(32)), ('timestamp', Int(64, clock=c))])

    def eh_value(self, idx, ts, last):
        """The event header of event class idx at time ts, the previous
        time in the packet being last."""
        if self.header != 'lttng':
            return {'id': idx, 'timestamp': ts}
        # compact when the low 27 bits tell the time from the last one
        if idx < 31 and 0 <= ts - last < 1 << 27:
            return {'id': idx,
                    'v': ('compact', {'timestamp': ts & ((1 << 27) - 1)})}
        return {'id': 31, 'v': ('extended', {'id': idx, 'timestamp': ts})}

    def metadata(self):
        out = '/* CTF 1.8 */\n\n'
        out += 'trace {\n\tmajor = 1;\n\tminor = 8;\n'
        out += '\tbyte_order = %s;\n' % self.bo
        if self.uuid:
            out += '\tuuid = "%s";\n' % self.uuid
        hdr = [('magic', Int(32))]
        if self.uuid:
            hdr.append(('uuid', Array(Int(8), 16)))
        hdr.append(('stream_id', Int(32)))
        out += '\tpacket.header := %s;\n};\n\n' % tsdl(Struct(hdr), '\t')
        out += 'env {\n'
        for k, v in self.env.items():
            if isinstance(v, str):
                out += '\t%s = "%s";\n' % (k, v)
            else:
                out += '\t%s = %d;\n' % (k, v)
        out += '};\n\nclock {\n'
        for k, v in self.clock.items():
            out += '\t%s = %s;\n' % (k, v)
        out += '};\n\n'
        out += 'stream {\n\tid = 0;\n'
        out += '\tpacket.context := %s;\n' % tsdl(self.pc_type(), '\t')
        out += '\tevent.header := %s;\n' % tsdl(self.eh_type(), '\t')
        if self.event_ctx:
            out += '\tevent.context := %s;\n' % tsdl(self.event_ctx, '\t')
        out += '};\n\n'
        for i, (name, fields, context, extra) in enumerate(self.events):
            out += 'event {\n\tname = "%s";\n\tid = %d;\n\tstream_id = 0;\n' % (
                name, i)
            out += extra
            if context:
                out += '\tcontext := %s;\n' % tsdl(context, '\t')
            if fields:
                out += '\tfields := %s;\n' % tsdl(fields, '\t')
            out += '};\n\n'
        return out

    def packet(self, events, ts_begin, ts_end, seq, discarded=0,
               extra=None, pad_bits=64):
        """events: list of (event index, timestamp, fields value,
        context value, event-context value). The packet is padded to
        a multiple of pad_bits (8: the next packet may start at any
        byte, which CTF allows)."""
        w = Bits(self.bo)
        hdr = {'magic': 0xc1fc1fc1, 'stream_id': 0}
        htype = [('magic', Int(32))]
        if self.uuid:
            htype.append(('uuid', Array(Int(8), 16)))
            hdr['uuid'] = list(self.uuid.bytes)
        htype.append(('stream_id', Int(32)))
        encode(w, Struct(htype), hdr)
        pc = {'timestamp_begin': ts_begin, 'timestamp_end': ts_end,
              'content_size': 0, 'packet_size': 0,
              'events_discarded': discarded, 'packet_seq_num': seq}
        pc.update(extra or {})
        pc_pos = w.pos
        encode(w, self.pc_type(), pc)
        last = ts_begin
        for ev in events:
            idx, ts, fields, ctx, ectx = (tuple(ev) + (None,) * 5)[:5]
            encode(w, self.eh_type(), self.eh_value(idx, ts, last))
            last = ts
            if self.event_ctx:
                encode(w, self.event_ctx, ectx)
            name, ftype, ctype, _ = self.events[idx]
            if ctype:
                encode(w, ctype, ctx)
            if ftype:
                encode(w, ftype, fields)
        content = w.pos
        # tracers pad packets (barectf: to its buffer, LTTng: to pages)
        w.align(pad_bits)
        size = w.pos
        # patch the sizes in (they are byte-aligned 64-bit fields)
        pc['content_size'] = content
        pc['packet_size'] = size
        w2 = Bits(self.bo)
        w2.pos = 0
        encode(w2, self.pc_type(), pc)
        off = pc_pos // 8
        w.buf[off:off + len(w2.buf)] = w2.buf[:len(w2.buf)]
        return bytes(w.buf)

    def write(self, path, streams):
        """streams: {file name: [packet bytes, ...]}"""
        import os
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, 'metadata'), 'w') as f:
            f.write(self.metadata())
        for name, packets in streams.items():
            with open(os.path.join(path, name), 'wb') as f:
                for p in packets:
                    f.write(p)
