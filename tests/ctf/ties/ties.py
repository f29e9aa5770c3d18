# SPDX-License-Identifier: MIT
"""
Traces whose events share timestamps across streams and traces, to
check that `hetrace print` orders ties as babeltrace2's muxer does.
usage: ties.py OUT_DIR   (writes one trace set per subdirectory)

Built with the CTF writer of the print tests (ctfgen.py), extended to
several stream classes, optional stream_instance_id and UUID, and
events with log levels and EMF URIs.
"""
import os
import random
import sys
import uuid as uuidmod

sys.dont_write_bytecode = True
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "print", "corpus"))
sys.path.insert(0, os.path.join(here, "..", ".."))
from ctfbits import Bits  # noqa: E402
from ctfgen import Int, String, Struct, encode, tsdl  # noqa: E402


class TieTrace:
    """A trace: stream classes `scs` (ids), event classes
    (name, stream class, log level or None, EMF URI or None), packet
    headers with a stream_instance_id when `instance`."""

    def __init__(self, env, uuid=None, scs=(0,), instance=True):
        self.env = env
        self.uuid = uuid
        self.scs = scs
        self.instance = instance
        self.events = []
        self.clock = 'c0'

    def event(self, name, sc=0, loglevel=None, emf=None):
        self.events.append((name, sc, loglevel, emf))
        return len(self.events) - 1

    def hdr_type(self):
        m = [('magic', Int(32))]
        if self.uuid:
            m.append(('uuid', T_UUID))
        m.append(('stream_id', Int(32)))
        if self.instance:
            m.append(('stream_instance_id', Int(64)))
        return Struct(m)

    def pc_type(self):
        c = self.clock
        return Struct([('timestamp_begin', Int(64, clock=c)),
                       ('timestamp_end', Int(64, clock=c)),
                       ('content_size', Int(64)), ('packet_size', Int(64)),
                       ('events_discarded', Int(64)),
                       ('packet_seq_num', Int(64))])

    def eh_type(self):
        return Struct([('id', Int(32)),
                       ('timestamp', Int(64, clock=self.clock))])

    payload = Struct([('seq', Int(32)), ('src', String()),
                      ('v', Int(64, signed=True)),
                      ('s', String())])

    def metadata(self):
        out = '/* CTF 1.8 */\n\ntrace {\n\tmajor = 1;\n\tminor = 8;\n'
        out += '\tbyte_order = le;\n'
        if self.uuid:
            out += '\tuuid = "%s";\n' % self.uuid
        out += '\tpacket.header := %s;\n};\n\n' % tsdl(self.hdr_type())
        out += 'env {\n'
        for k, v in self.env.items():
            out += ('\t%s = "%s";\n' if isinstance(v, str) else
                    '\t%s = %d;\n') % (k, v)
        out += '};\n\nclock {\n\tname = c0;\n\tfreq = 1000000000;\n'
        out += '\toffset_s = 1600000000;\n\tabsolute = true;\n};\n\n'
        for sc in self.scs:
            out += 'stream {\n\tid = %d;\n' % sc
            out += '\tpacket.context := %s;\n' % tsdl(self.pc_type())
            out += '\tevent.header := %s;\n};\n\n' % tsdl(self.eh_type())
        for i, (name, sc, ll, emf) in enumerate(self.events):
            out += 'event {\n\tname = "%s";\n\tid = %d;\n' % (name, i)
            out += '\tstream_id = %d;\n' % sc
            if ll is not None:
                out += '\tloglevel = %d;\n' % ll
            if emf is not None:
                out += '\tmodel.emf.uri = "%s";\n' % emf
            out += '\tfields := %s;\n};\n\n' % tsdl(self.payload)
        return out

    def packet(self, sc, inst, events, ts_begin, ts_end, seq, discarded=0):
        """events: (event class, timestamp, payload dict)"""
        w = Bits('le')
        hdr = {'magic': 0xc1fc1fc1, 'stream_id': sc,
               'stream_instance_id': inst}
        if self.uuid:
            hdr['uuid'] = list(self.uuid.bytes)
        encode(w, self.hdr_type(), hdr)
        pc = {'timestamp_begin': ts_begin, 'timestamp_end': ts_end,
              'content_size': 0, 'packet_size': 0,
              'events_discarded': discarded, 'packet_seq_num': seq}
        pc_pos = w.pos
        encode(w, self.pc_type(), pc)
        for ec, ts, fields in events:
            encode(w, self.eh_type(), {'id': ec, 'timestamp': ts})
            encode(w, self.payload, dict(fields, src=self.src))
        pc['content_size'] = w.pos
        w.align(64)
        pc['packet_size'] = w.pos
        w2 = Bits('le')
        encode(w2, self.pc_type(), pc)
        w.buf[pc_pos // 8:pc_pos // 8 + len(w2.buf)] = w2.buf
        return bytes(w.buf)

    def write(self, path, streams):
        """streams: {file name: (stream class, instance id, [packet
        events, ...])}; packets are cut where the list says, their
        times span their events, a few report discarded events."""
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, 'metadata'), 'w') as f:
            f.write(self.metadata())
        for name, (sc, inst, packets) in streams.items():
            self.src = os.path.join(os.path.basename(path), name)
            with open(os.path.join(path, name), 'wb') as f:
                total = 0
                for seq, evs in enumerate(packets):
                    disc = 3 if seq % 2 else 0
                    total += disc
                    f.write(self.packet(sc, inst, evs, evs[0][1],
                                        evs[-1][1], seq, total))


T_UUID = None


def uuid_of(rng):
    return uuidmod.UUID(int=rng.getrandbits(128))


def tie_events(rng, classes, n, times, per_packet=40):
    """n events of the given classes at times drawn, in order, from a
    few values (so that other streams hit the same ones), cut in
    packets."""
    # no empty string: babeltrace2 2.0.4 prints an empty string field
    # with the value of an earlier event of the class
    ts = sorted(rng.choice(times) for _ in range(n))
    evs = [(rng.choice(classes), t,
            {'seq': i, 'v': rng.randrange(-5, 5), 's': 'x' * rng.randrange(1, 4)})
           for i, t in enumerate(ts)]
    return [evs[i:i + per_packet] for i in range(0, n, per_packet)]


def main(out):
    global T_UUID
    from ctfgen import Array
    T_UUID = Array(Int(8), 16)
    rng = random.Random(19)
    times = [1000 + 10 * k for k in range(30)]

    # kernel-like: one trace, one stream class, CPUs whose instance ids
    # are not in file name order
    t = TieTrace({'hostname': 'k', 'domain': 'kernel'}, uuid_of(rng))
    cls = [t.event(n, loglevel=ll) for n, ll in
           (('sched_switch', None), ('irq_entry', 3), ('irq_exit', 3),
            ('syscall', 7))]
    t.write(os.path.join(out, 'kernel', 'trace'),
            {'channel0_%d' % c: (0, inst, tie_events(rng, cls, 300, times))
             for c, inst in enumerate((2, 0, 3, 1))})

    # no stream_instance_id: babeltrace2 numbers the streams of a trace
    # in file name order, two stream classes interleaved
    t = TieTrace({'hostname': 'auto'}, uuid_of(rng), scs=(0, 1),
                 instance=False)
    c0 = [t.event('a%d' % i, sc=0) for i in range(3)]
    c1 = [t.event('b%d' % i, sc=1, emf='u%d' % i) for i in range(3)]
    t.write(os.path.join(out, 'auto', 'trace'),
            {name: (sc, 0, tie_events(rng, c1 if sc else c0, 200, times))
             for name, sc in (('a', 1), ('b', 0), ('c', 1), ('d', 0),
                              ('e', 0))})

    # UST per-PID buffers: a trace per process under one tree, each
    # with its own UUID, the same host name and stream ids
    for pid in (4242, 311, 77, 1000):
        t = TieTrace({'hostname': 'u', 'domain': 'ust', 'vpid': pid},
                     uuid_of(rng))
        cls = [t.event('app:ev%d' % i, loglevel=13) for i in range(3)]
        t.write(os.path.join(out, 'ust', 'pid', 'app-%d-20260101' % pid),
                {'ch_%d' % c: (0, c, tie_events(rng, cls, 150, times))
                 for c in range(2)})

    # traces without a UUID: the trace names decide (host names given
    # in the reverse order of the directories; two share one)
    for d, host in (('t1', 'zeta'), ('t2', 'alpha'), ('t3', 'alpha'),
                    ('t4', 'mid')):
        t = TieTrace({'hostname': host, 'trace_name': 'n' + d}, None)
        cls = [t.event('ev%d' % i) for i in range(2)]
        t.write(os.path.join(out, 'nouuid', d),
                {'s%d' % c: (0, c, tie_events(rng, cls, 120, times))
                 for c in range(2)})

    # traces with no host name and no UUID
    for d in ('p', 'q'):
        t = TieTrace({'domain': 'bare'}, None, instance=False)
        cls = [t.event('ev')]
        t.write(os.path.join(out, 'anon', d),
                {'s%d' % c: (0, 0, tie_events(rng, cls, 100, times))
                 for c in range(2)})


if __name__ == '__main__':
    main(sys.argv[1])
