#!/usr/bin/env python3
"""Checks a `hetrace export` Perfetto file and Chrome JSON file against
the trace they came from, as babeltrace2 reads it.

    check-export.py PERFETTO JSON BT2_TEXT [--scenario]

BT2_TEXT is `babeltrace2 --clock-cycles TRACE` (1 GHz clock: cycles are
ns). The Perfetto file is decoded here from the protobuf wire format
(no library), strictly: every packet must decode, every field must be
one the exporter is meant to write, with the right wire type, every
string field must be well-formed UTF-8, and every
interned id must have been defined on the sequence before its use.
Expected counts come from the babeltrace2 text: instants = events other
than task_switch / isr_* / func_*, slices = task switches + interrupt
entries + function entries, flows = receives whose (src, id) was sent (before or after).
In the JSON, msg_send and msg_recv are 1 ns `X` slices (cat msg, one per
event) instead of instants. Every JSON flow event (`s`, `f`) must be
enclosed by a slice of its own pid/tid (an `X` with ts <= t <= ts + dur,
or an open `B`/`E` pair): Perfetto's JSON importer and chrome://tracing
drop the others.
--scenario also checks scenario.script's exact slices, times, fields.
"""
import json
import re
import struct
import sys

# ---------------------------------------------------------------- wire

VARINT, I64, LEN, I32 = 0, 1, 2, 5


class Bad(Exception):
    pass


def varint(b, i):
    v = shift = 0
    while True:
        if i >= len(b):
            raise Bad('varint runs past the end')
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i
        if shift > 63:
            raise Bad('varint longer than 10 bytes')


def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == VARINT:
            v, i = varint(b, i)
        elif wt == I64:
            if i + 8 > len(b):
                raise Bad('fixed64 past the end')
            v = b[i:i + 8]
            i += 8
        elif wt == LEN:
            n, i = varint(b, i)
            if i + n > len(b):
                raise Bad('length %d past the end' % n)
            v = b[i:i + n]
            i += n
        elif wt == I32:
            v = b[i:i + 4]
            i += 4
        else:
            raise Bad('wire type %d' % wt)
        yield num, wt, v


# message -> field -> (name, wire type, nested message or kind, repeated)
SCHEMA = {
    'Trace': {1: ('packet', LEN, 'TracePacket', True)},
    'TracePacket': {
        8: ('timestamp', VARINT, 'u', False),
        10: ('trusted_packet_sequence_id', VARINT, 'u', False),
        11: ('track_event', LEN, 'TrackEvent', False),
        12: ('interned_data', LEN, 'InternedData', False),
        13: ('sequence_flags', VARINT, 'u', False),
        60: ('track_descriptor', LEN, 'TrackDescriptor', False),
    },
    'TrackDescriptor': {
        1: ('uuid', VARINT, 'u', False),
        2: ('name', LEN, 'str', False),
        5: ('parent_uuid', VARINT, 'u', False),
        8: ('counter', LEN, 'CounterDescriptor', False),
        11: ('child_ordering', VARINT, 'u', False),
        12: ('sibling_order_rank', VARINT, 'i64', False),
    },
    'CounterDescriptor': {6: ('unit_name', LEN, 'str', False)},
    'TrackEvent': {
        4: ('debug_annotations', LEN, 'DebugAnnotation', True),
        9: ('type', VARINT, 'u', False),
        10: ('name_iid', VARINT, 'u', False),
        11: ('track_uuid', VARINT, 'u', False),
        44: ('double_counter_value', I64, 'double', False),
        47: ('flow_ids', I64, 'fixed64', True),
        48: ('terminating_flow_ids', I64, 'fixed64', True),
    },
    'DebugAnnotation': {
        1: ('name_iid', VARINT, 'u', False),
        2: ('bool_value', VARINT, 'u', False),
        3: ('uint_value', VARINT, 'u', False),
        4: ('int_value', VARINT, 'i64', False),
        5: ('double_value', I64, 'double', False),
        6: ('string_value', LEN, 'str', False),
        7: ('pointer_value', VARINT, 'u', False),
        10: ('name', LEN, 'str', False),
        11: ('dict_entries', LEN, 'DebugAnnotation', True),
        12: ('array_values', LEN, 'DebugAnnotation', True),
    },
    'InternedData': {
        2: ('event_names', LEN, 'Interned', True),
        3: ('debug_annotation_names', LEN, 'Interned', True),
    },
    'Interned': {1: ('iid', VARINT, 'u', False), 2: ('name', LEN, 'str', False)},
}


def decode(msg, b):
    out = {}
    for num, wt, v in fields(b):
        if num not in SCHEMA[msg]:
            raise Bad('%s: unexpected field %d' % (msg, num))
        name, want_wt, kind, rep = SCHEMA[msg][num]
        if wt != want_wt:
            raise Bad('%s.%s: wire type %d, want %d' % (msg, name, wt, want_wt))
        if kind == 'u':
            val = v
        elif kind == 'i64':
            val = v - (1 << 64) if v >= 1 << 63 else v
        elif kind == 'str':
            try:
                val = v.decode('utf-8')  # strict: protobuf strings are UTF-8
            except UnicodeDecodeError as e:
                raise Bad('%s.%s: not UTF-8: %s' % (msg, name, e))
        elif kind == 'double':
            val = struct.unpack('<d', v)[0]
        elif kind == 'fixed64':
            val = struct.unpack('<Q', v)[0]
        else:
            val = decode(kind, v)
        if rep:
            out.setdefault(name, []).append(val)
        elif name in out:
            raise Bad('%s.%s: repeated' % (msg, name))
        else:
            out[name] = val
    return out


# ------------------------------------------------------------ the trace

def read_bt2(path):
    """Events as (ns, name, core_id, fields dict of ints/strings)."""
    # [ts] (+delta) [hostname ]name: { core_id = N, cpu_id = N }, { fields }
    line_re = re.compile(r'^\[(\d+)\] \(\+[^)]*\) (?:\S+ )?(\w+): '
                         r'\{ core_id = (\d+)(?:, cpu_id = (\d+))? \}(?:, \{ (.*) \})?$')
    evs = []
    for line in open(path, encoding='utf-8'):
        m = line_re.match(line.rstrip('\n'))
        if not m:
            raise SystemExit('cannot parse babeltrace2 line: ' + line)
        if m.group(4) is not None and m.group(4) != m.group(3):
            raise SystemExit('cpu_id is not core_id: ' + line)
        f = {}
        for k, v in re.findall(r'(\w+) = ("(?:[^"\\]|\\.)*"|-?\d+)', m.group(5) or ''):
            f[k] = v if v.startswith('"') else int(v)
        evs.append((int(m.group(1)), m.group(2), int(m.group(3)), f))
    return evs


SLICE_EVENTS = {'task_switch', 'isr_enter', 'isr_exit', 'func_entry', 'func_exit'}


def expected(evs):
    # a receive may precede its send (within a synchronization error)
    sends = {(core, f['id']) for _, name, core, f in evs if name == 'msg_send'}
    flows = sum(1 for _, name, core, f in evs
                if name == 'msg_recv' and (f['src'], f['id']) in sends)
    n = lambda k: sum(1 for e in evs if e[1] == k)
    return {
        'instants': sum(1 for e in evs if e[1] not in SLICE_EVENTS),
        'slices': n('task_switch') + n('isr_enter') + n('func_entry'),
        'flows': flows,
        'cores': len({e[2] for e in evs}),
        'messages': n('msg_send') + n('msg_recv'),
    }


# ------------------------------------------------------------- perfetto

# hetrace-addr fields (gen/include/hetrace-functions.yaml) and function
# slices' addresses: pointer values in the protobuf
POINTERS = {'addr', 'base', 'call_site'}


def perfetto_core_order(tracks):
    """Core track names in the order the explicit ranks give."""
    groups = [d for d in tracks.values() if 'parent_uuid' not in d]
    gids = {g['uuid'] for g in groups}
    key = lambda d: d.get('sibling_order_rank', 0)
    order = []
    for g in sorted(groups, key=key):
        kids = [d for d in tracks.values() if d.get('parent_uuid') == g['uuid']]
        order += [d['name'] for d in sorted(kids, key=key)]
    return order


def json_core_order(evs):
    """Core thread names in process_sort_index, thread_sort_index order."""
    psort, tsort, tname = {}, {}, {}
    for e in evs:
        if e['ph'] != 'M':
            continue
        if e['name'] == 'process_sort_index':
            psort[e['pid']] = e['args']['sort_index']
        elif e['name'] == 'thread_sort_index':
            tsort[(e['pid'], e['tid'])] = e['args']['sort_index']
        elif e['name'] == 'thread_name':
            tname[(e['pid'], e['tid'])] = e['args']['name']
    missing = [n for k, n in tname.items() if k not in tsort or k[0] not in psort]
    threads = sorted(tname, key=lambda k: (psort.get(k[0], 0), tsort.get(k, 0)))
    return [tname[k] for k in threads], missing

def check_perfetto(path, evs, exp, scenario, order, fail):
    data = open(path, 'rb').read()
    trace = decode('Trace', data)
    packets = trace.get('packet', [])
    if not packets:
        fail('perfetto: no packets')
        return
    if packets[0].get('sequence_flags') != 1:
        fail('perfetto: the first packet does not clear the incremental state')
    names, annots = {}, {}
    tracks = {}
    open_slices = {}  # track -> stack of (name, ts)
    slices, instants, counters = [], [], []
    flow_out, flow_in = {}, []
    last_ts = {}
    for k, p in enumerate(packets):
        if p.get('trusted_packet_sequence_id') != 1:
            fail('perfetto: packet %d: no trusted_packet_sequence_id' % k)
        flags = p.get('sequence_flags', 0)
        if flags & 1:
            names.clear()
            annots.clear()
        if 'track_descriptor' in p:
            d = p['track_descriptor']
            if d['uuid'] in tracks:
                fail('perfetto: track %d described twice' % d['uuid'])
            if 'parent_uuid' in d and d['parent_uuid'] not in tracks:
                fail('perfetto: track %s before its parent' % d.get('name'))
            tracks[d['uuid']] = d
            if 'sibling_order_rank' not in d:
                fail('perfetto: track %s without sibling_order_rank' % d.get('name'))
            if 'counter' not in d and d.get('child_ordering') != 3:
                fail('perfetto: track %s: child_ordering %s, want 3 (explicit)'
                     % (d.get('name'), d.get('child_ordering')))
        if 'interned_data' in p:
            for e in p['interned_data'].get('event_names', []):
                names[e['iid']] = e['name']
            for e in p['interned_data'].get('debug_annotation_names', []):
                annots[e['iid']] = e['name']
        if 'track_event' not in p:
            continue
        te = p['track_event']
        if p.get('trusted_packet_sequence_id') != 1 or not flags & 2:
            fail('perfetto: packet %d: track event without the sequence flags' % k)
        ts = p.get('timestamp')
        if ts is None:
            fail('perfetto: packet %d: no timestamp' % k)
            continue
        tr = te.get('track_uuid')
        if tr not in tracks:
            fail('perfetto: packet %d: unknown track %s' % (k, tr))
            continue
        name = None
        if 'name_iid' in te:
            if te['name_iid'] not in names:
                fail('perfetto: packet %d: name iid %d not interned' % (k, te['name_iid']))
            name = names.get(te['name_iid'])
        args = {}
        for a in te.get('debug_annotations', []):
            if a['name_iid'] not in annots:
                fail('perfetto: packet %d: annotation iid not interned' % k)
            v = [a[x] for x in ('uint_value', 'int_value', 'string_value',
                                'double_value', 'bool_value', 'pointer_value') if x in a]
            args[annots.get(a['name_iid'])] = v[0] if v else a
            if annots.get(a['name_iid']) in POINTERS and 'pointer_value' not in a:
                fail('perfetto: packet %d: %s is not a pointer value: %s'
                     % (k, annots.get(a['name_iid']), a))
        t = te.get('type')
        if t != 4:
            if ts < last_ts.get(tr, 0):
                fail('perfetto: track %s: time goes back at packet %d' % (tracks[tr]['name'], k))
            last_ts[tr] = ts
        if t == 1:
            open_slices.setdefault(tr, []).append((name, ts, args))
        elif t == 2:
            st = open_slices.get(tr)
            if not st:
                fail('perfetto: packet %d: slice end without begin' % k)
                continue
            n, b, a = st.pop()
            slices.append((tracks[tr]['name'], n, b, ts, len(st), 'no_end_event' in args))
        elif t == 3:
            instants.append((tracks[tr]['name'], name, ts, args))
            for f in te.get('flow_ids', []):
                flow_out.setdefault(f, []).append((tr, ts, name))
            if te.get('terminating_flow_ids'):
                fail('perfetto: terminating flow ids (every end carries flow_ids)')
        elif t == 4:
            if 'counter' not in tracks[tr]:
                fail('perfetto: counter value on a non-counter track')
            v = te.get('double_counter_value')
            if v is None or not 0 <= v <= 100:
                fail('perfetto: counter value %r' % v)
            counters.append((tracks[tr]['name'], ts, v))
        else:
            fail('perfetto: packet %d: event type %r' % (k, t))
    for tr, st in open_slices.items():
        if st:
            fail('perfetto: track %s: %d slices never end' % (tracks[tr]['name'], len(st)))
    matched = 0
    for f, ends in flow_out.items():
        if len(ends) > 2:
            fail('perfetto: flow %x on %d events' % (f, len(ends)))
        if len(ends) == 2:
            if ends[0][0] == ends[1][0] or {ends[0][2], ends[1][2]} != {'msg_send', 'msg_recv'}:
                fail('perfetto: flow %x: not a send and a receive on two tracks' % f)
            matched += 1
    groups = [d for d in tracks.values() if 'parent_uuid' not in d]
    cores = [d for d in tracks.values()
             if d.get('parent_uuid') in {g['uuid'] for g in groups}]
    got = {'instants': len(instants), 'slices': len(slices),
           'flows': matched, 'cores': len(cores)}
    for k in exp:
        if k in got and got[k] != exp[k]:
            fail('perfetto: %s: %d, want %d' % (k, got[k], exp[k]))
    for s in slices:
        if s[3] < s[2]:
            fail('perfetto: negative slice %r' % (s,))
    if not counters:
        fail('perfetto: no counter samples')
    if order and perfetto_core_order(tracks) != order:
        fail('perfetto: core order %s, want %s' % (perfetto_core_order(tracks), order))
    print('perfetto: %d packets, %d tracks (%d groups, %d cores), %d slices, '
          '%d instants, %d flows, %d counter samples'
          % (len(packets), len(tracks), len(groups), len(cores), len(slices),
             len(instants), matched, len(counters)))
    if not scenario:
        return
    want = sorted([
        ('cpu0', 'ctl', 1000, 4000, 0, False),
        ('cpu0', 'irq 7', 2000, 2500, 1, False),
        ('cpu0', 'irq 9', 2100, 2200, 2, False),
        ('cpu0', 'idle', 4000, 5300, 0, False),
        ('cpu0', 'irq 3', 5000, 5300, 1, False),
        ('cpu0', 'net', 5300, 9000, 0, False),
        ('cpu0', 'idle', 9000, 10000, 0, True),
        ('cpu0 functions', '0x4010', 3100, 3400, 0, False),
        ('cpu0 functions', '0x4020', 3200, 3300, 1, False),
        ('dsp1', 'dsp', 1500, 6000, 0, False),
        ('dsp1', 'idle', 6000, 10000, 0, True),
    ])
    if sorted(slices) != want:
        fail('perfetto: slices:\n  got  %s\n  want %s' % (sorted(slices), want))
    gnames = sorted(g['name'] for g in groups)
    if gnames != ['master', 'slave']:
        fail('perfetto: groups %s' % gnames)
    parent = {d['name']: tracks[d['parent_uuid']]['name'] for d in cores}
    if parent != {'cpu0': 'master', 'dsp1': 'slave', 'dsp2': 'slave'}:
        fail('perfetto: core groups %s' % parent)
    sample = [i for i in instants if i[1] == 'sample' and i[0] == 'cpu0']
    if len(sample) != 1 or sample[0][2] != 8000 or \
            sample[0][3] != {'value': 42, 'delta': -7, 'label': 'a"b\\c'}:
        fail('perfetto: cpu0 sample: %s' % sample)
    cnt = sorted((c[0], c[1], round(c[2], 2)) for c in counters)
    want_cnt = [('cpu0 utilization', 1000, 100.0), ('cpu0 utilization', 3500, 60.0),
                ('cpu0 utilization', 6000, 100.0), ('cpu0 utilization', 8500, 33.33),
                ('dsp1 utilization', 1000, 100.0), ('dsp1 utilization', 3500, 100.0),
                ('dsp1 utilization', 6000, 0.0), ('dsp1 utilization', 8500, 0.0)]
    if cnt != want_cnt:
        fail('perfetto: counters %s' % cnt)


# ---------------------------------------------------------------- json

def flows_unbound(evs):
    """The flow events (s, f) no slice of the same pid/tid encloses."""
    us = lambda t: round(t * 1000)  # exact ns: ts has 3 decimals
    spans = {}  # (pid, tid) -> [(begin, end)] in ns
    for e in evs:
        if e['ph'] == 'X':
            spans.setdefault((e['pid'], e['tid']), []).append(
                (us(e['ts']), us(e['ts']) + us(e['dur'])))
    stacks = {}
    for e in sorted((e for e in evs if e['ph'] in 'BE'), key=lambda e: e['ts']):
        st = stacks.setdefault((e['pid'], e['tid']), [])
        if e['ph'] == 'B':
            st.append(us(e['ts']))
        elif st:
            spans.setdefault((e['pid'], e['tid']), []).append(
                (st.pop(), us(e['ts'])))
    bad = []
    for e in evs:
        if e['ph'] not in 'sf':
            continue
        t = us(e['ts'])
        if not any(b <= t <= end for b, end in spans.get((e['pid'], e['tid']), [])):
            bad.append(e)
    return bad


def check_json(path, exp, nr_counters_min, order, fail):
    doc = json.load(open(path, encoding='utf-8'))
    evs = doc['traceEvents']
    by = {}
    for e in evs:
        by.setdefault(e['ph'], []).append(e)
        if e['ph'] != 'M' and not isinstance(e.get('ts'), (int, float)):
            fail('json: event without ts: %s' % e)
    n = lambda ph: len(by.get(ph, []))
    if n('B') != n('E'):
        fail('json: %d B, %d E' % (n('B'), n('E')))
    # messages (cat msg) are slices for the flows to bind to: instants
    # in the other views
    nm = sum(1 for e in by.get('X', []) if e.get('cat') == 'msg')
    got = {'slices': n('B') + n('X') - nm, 'instants': n('i') + nm,
           'messages': nm, 'flows': n('f'),
           'cores': sum(1 for m in by.get('M', []) if m['name'] == 'thread_name'
                        and not m['args']['name'].endswith((' functions', ' messages')))}
    for k in exp:
        if got[k] != exp[k]:
            fail('json: %s: %d, want %d' % (k, got[k], exp[k]))
    if n('s') != n('f') or {e['id'] for e in by.get('s', [])} != {e['id'] for e in by.get('f', [])}:
        fail('json: flow starts and ends differ')
    if n('C') < nr_counters_min:
        fail('json: %d counter samples' % n('C'))
    # B/E nest per thread, in time order
    stacks = {}
    for e in sorted((e for e in evs if e['ph'] in 'BE'), key=lambda e: e['ts']):
        st = stacks.setdefault((e['pid'], e['tid']), [])
        if e['ph'] == 'B':
            st.append(e)
        elif not st:
            fail('json: E without B at %s' % e['ts'])
        else:
            st.pop()
    unbound = flows_unbound(evs)
    if unbound:
        fail('json: %d of %d flow events have no enclosing slice on their '
             'thread, e.g. %s' % (len(unbound), n('s') + n('f'), unbound[0]))
    if n('s') + n('f') != 2 * exp['flows']:
        fail('json: %d flow events for %d matched messages'
             % (n('s') + n('f'), exp['flows']))
    threads, missing = json_core_order(evs)
    if missing:
        fail('json: threads without a sort index: %s' % missing)
    cores = [t for t in threads if not t.endswith((' functions', ' messages'))]
    if order and cores != order:
        fail('json: core order %s, want %s' % (cores, order))
    for i, t in enumerate(threads):
        # a core's functions and messages threads right after it
        if t.endswith((' functions', ' messages')) and \
                threads[i - 1].split(' ')[0] != t.split(' ')[0]:
            fail('json: thread %s is not next to its core: %s' % (t, threads))
    print('json: %d events: %s' % (len(evs), ' '.join('%s=%d' % (k, len(v)) for k, v in sorted(by.items()))))
    return by


def main():
    pf, js, bt2 = sys.argv[1:4]
    scenario = '--scenario' in sys.argv
    # --order CORE,CORE,...: the display order (master, kernel, slaves)
    order = None
    if '--order' in sys.argv:
        order = sys.argv[sys.argv.index('--order') + 1].split(',')
    errors = []
    fail = errors.append
    evs = read_bt2(bt2)
    exp = expected(evs)
    print('from babeltrace2: %d events, expect %s' % (len(evs), exp))
    try:
        check_perfetto(pf, evs, exp, scenario, order, fail)
    except Bad as e:
        fail('perfetto: does not decode: %s' % e)
    by = check_json(js, exp, 1, order, fail)
    if scenario:
        i = [e for e in by['i'] if e['name'] == 'sample' and e['tid'] == 1]
        if len(i) != 1 or i[0]['ts'] != 8.0 or i[0]['args'] != {'value': 42, 'delta': -7, 'label': 'a"b\\c'}:
            fail('json: cpu0 sample %s' % i)
        x = sorted((e['name'], e['ts'], e['dur']) for e in by['X']
                   if e['cat'] == 'function')
        if x != [('0x4010', 3.1, 0.3), ('0x4020', 3.2, 0.1)]:
            fail('json: functions %s' % x)
        m = sorted((e['name'], e['ts'], e['dur']) for e in by['X']
                   if e['cat'] == 'msg')
        # every message, matched or not (6.5 and 9.5 are not), its
        # fields in args
        if m != [('msg_recv', 3.5, 0.001), ('msg_recv', 6.5, 0.001),
                 ('msg_recv', 7.5, 0.001), ('msg_send', 3.0, 0.001),
                 ('msg_send', 7.0, 0.001), ('msg_send', 9.5, 0.001)]:
            fail('json: message slices %s' % m)
        a = [e['args'] for e in by['X'] if e['cat'] == 'msg' and e['ts'] == 6.5]
        if a != [{'id': 99, 'src': 2, 'size': 8}]:
            fail('json: unmatched msg_recv args %s' % a)
    for e in errors:
        print('FAIL:', e)
    sys.exit(1 if errors else 0)


if __name__ == '__main__':
    main()
