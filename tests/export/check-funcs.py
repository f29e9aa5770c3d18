#!/usr/bin/env python3
"""Checks the function slices of `hetrace export --elf` (Perfetto and
Chrome JSON) against the records babeltrace2 reads and the ELF's
symbols, for a relocated (PIE) program.

    check-funcs.py BT2_TEXT NM_TEXT LINK_BASE PERFETTO JSON [--raw]

BT2_TEXT is `babeltrace2 --clock-cycles TRACE` of a 1 GHz trace with
func_base / func_entry / func_exit records (one core, one thread);
NM_TEXT is `nm --defined-only ELF`; LINK_BASE the ELF's lowest load
address (0 for a PIE). Expected: every call with the name of the symbol
at (addr - (func_base - LINK_BASE)), its begin, end and depth. --raw:
the ELF does not match: every name must be the raw address.
"""
import importlib.util
import json
import os
import re
import sys

spec = importlib.util.spec_from_file_location(
    'check_export', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'check-export.py'))
ce = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ce)


def main():
    bt2, nm, link_base, pf, js = sys.argv[1:6]
    raw = '--raw' in sys.argv
    link_base = int(link_base, 0)
    syms = {}
    for line in open(nm):
        p = line.split()
        if len(p) == 3 and p[1] in 'tTwW':
            syms[int(p[0], 16)] = p[2]
    rec = re.compile(r'^\[(\d+)\] .* (func_base|func_entry|func_exit): .*\{ (?:base|addr) = (0x[0-9A-Fa-f]+)')
    bias, stack, want = None, [], []
    for line in open(bt2):
        m = rec.match(line)
        if not m:
            continue
        t, ev, a = int(m.group(1)), m.group(2), int(m.group(3), 16)
        if ev == 'func_base':
            bias = a - link_base
        elif ev == 'func_entry':
            stack.append((a, t))
        else:
            # the records of this program are balanced
            b, t0 = stack.pop()
            assert b == a, 'unbalanced records'
            want.append([a, t0, t, len(stack)])
    errors = []
    if bias is None:
        errors.append('no func_base record in the trace')
        bias = 0
    if stack or not want:
        errors.append('records: %d calls, %d open' % (len(want), len(stack)))
    for w in want:
        name = None if raw else syms.get(w[0] - bias)
        if not raw and name is None:
            errors.append('0x%x is not a symbol start of the ELF' % w[0])
        w[0] = name or '0x%x' % w[0]
    want = sorted(tuple(w) for w in want)

    # Perfetto: the slices on the "<core> functions" track
    trace = ce.decode('Trace', open(pf, 'rb').read())
    tracks, names, stacks, got = {}, {}, {}, []
    for p in trace['packet']:
        if p.get('sequence_flags', 0) & 1:
            names.clear()
        if 'track_descriptor' in p:
            tracks[p['track_descriptor']['uuid']] = p['track_descriptor']['name']
        for e in p.get('interned_data', {}).get('event_names', []):
            names[e['iid']] = e['name']
        te = p.get('track_event')
        if not te or not tracks.get(te.get('track_uuid'), '').endswith(' functions'):
            continue
        st = stacks.setdefault(te['track_uuid'], [])
        if te.get('type') == 1:
            st.append((names[te['name_iid']], p['timestamp']))
        elif te.get('type') == 2:
            n, b = st.pop()
            got.append((n, b, p['timestamp'], len(st)))
    got.sort()
    if got != want:
        diff = [x for x in got if x not in set(want)][:5]
        errors.append('perfetto: %d function slices, want %d; first differing: %s'
                      % (len(got), len(want), diff))
    # JSON: X events (ts and dur in us, three decimals: exact ns)
    doc = json.load(open(js))
    xs = [e for e in doc['traceEvents'] if e['ph'] == 'X' and e.get('cat') == 'function']
    gj = sorted((e['name'], round(e['ts'] * 1000), round((e['ts'] + e['dur']) * 1000)) for e in xs)
    wj = sorted(w[:3] for w in want)
    if gj != wj:
        diff = [x for x in gj if x not in set(wj)][:5]
        errors.append('json: %d X events, want %d; first differing: %s' % (len(gj), len(wj), diff))
    names_seen = sorted({w[0] for w in want})
    print('functions: %d calls, names %s' % (len(want), ' '.join(names_seen[:8])))
    for e in errors:
        print('FAIL:', e)
    sys.exit(1 if errors else 0)


main()
