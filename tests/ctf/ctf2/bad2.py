# SPDX-License-Identifier: MIT
"""
Bad and hostile CTF 2 metadata: a good trace (ctf2gen.py) whose
metadata is changed in one way per case, the data stream kept.
usage: python3 bad2.py OUT_DIR
Writes OUT_DIR/good and OUT_DIR/NAME for each case, and OUT_DIR/cases:
one line per case, "NAME<TAB>a regular expression its message matches".
"""
import json
import os
import shutil
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctf2gen import *  # noqa: E402,F403

out = sys.argv[1]
t = Trace(env={'hostname': 'bad'}, uuid=False)
e0 = t.event('e', Struct([('n', Int(8)), ('a', Seq(Int(16), 'n')),
                          ('s', String())]))
evs = [(e0, 100 * i, {'n': 2, 'a': [i, i + 1], 's': 'x%d' % i})
       for i in range(5)]
good = os.path.join(out, 'good')
write_both(t, os.path.join(out, 'good18'), good,
           {'s0': [t.packet(evs, 0, 500, 0)]})
base = [json.loads(f) for f in open(os.path.join(good, 'metadata')).read()
        .split(RS) if f.strip()]
cases = []


def payload(frags):
    return frags[-1]['payload-field-class']['member-classes']


def case(name, pattern, text=None, edit=None):
    """@text: the metadata; else @edit(fragments) changes a copy of the
    good ones, written one per line."""
    d = os.path.join(out, name)
    os.makedirs(d)
    shutil.copy(os.path.join(good, 's0'), d)
    if text is None:
        frags = json.loads(json.dumps(base))
        edit(frags)
        text = ''.join(RS + json.dumps(f) + '\n' for f in frags)
    mode = 'wb' if isinstance(text, bytes) else 'w'
    with open(os.path.join(d, 'metadata'), mode) as f:
        f.write(text)
    cases.append((name, pattern))


good_text = ''.join(RS + json.dumps(f) + '\n' for f in base)
lines = good_text.split('\n')
# JSON syntax: the position of the error in the file
case('json-syntax', r'metadata:4:[0-9]+: fragment 4: \$: bad JSON',
     '\n'.join(lines[:3] + [lines[3][:40] + ' ]' + lines[3][40:]] +
               lines[4:]))
case('json-truncated', r'fragment 5: \$: bad JSON: unexpected end',
     good_text[:-30])
case('json-trailing', r'metadata:1:36: fragment 1: \$: bad JSON: unexpected '
     'character',
     good_text.replace('}\n', '} x\n', 2))
case('no-preamble', r"fragment 1: \$: the first fragment is a 'trace-class'",
     edit=lambda f: f.pop(0))
case('version-3', r'fragment 1: \$: CTF version 3 is not supported',
     edit=lambda f: f[0].update(version=3))
case('extension', r"extension 'x.org,ext' is not supported",
     edit=lambda f: f[0].update(extensions={'x.org,ext': {}}))
case('unknown-fragment', r"fragment 3: \$: unknown fragment type 'clock'",
     edit=lambda f: f[2].update(type='clock'))


def set_fc(i, fc):
    def edit(frags):
        payload(frags)[i]['field-class'] = fc
    return edit


P = r'fragment 5: \$\.payload-field-class\.member-classes\[%d\]\.field-class'
case('optional-no-selector', r"cannot find the field 'nothere' of optional "
     r"'s'", edit=set_fc(2, {'type': 'optional', 'field-class':
                             {'type': 'null-terminated-string'},
                             'selector-field-location':
                             {'path': ['nothere']}}))
case('optional-str-selector', r"the field 's' of optional 'o' is not an "
     r"integer", edit=lambda f: payload(f).append(
         {'name': 'o', 'field-class': {
             'type': 'optional', 'field-class': {'type': 'structure'},
             'selector-field-location': {'path': ['s']}}}))
case('utf7', P % 2 + r"\.encoding: unknown encoding 'utf-7'", edit=set_fc(
    2, {'type': 'null-terminated-string', 'encoding': 'utf-7'}))
case('vl-int-role', P % 0 + r"\.roles: only unsigned integers have roles",
     edit=set_fc(0, {'type': 'variable-length-signed-integer',
                     'roles': ['packet-magic-number']}))
case('unknown-fc', P % 2 + r"\.type: unknown field class type 'text'",
     edit=set_fc(2, {'type': 'text'}))
case('int-128', P % 0 + r'\.length: a fixed-length bit array of 128 bits '
     'is not supported', edit=set_fc(0, {
         'type': 'fixed-length-unsigned-integer', 'length': 128,
         'byte-order': 'little-endian'}))
case('no-byte-order', P % 0 + r": missing property 'byte-order'",
     edit=set_fc(0, {'type': 'fixed-length-unsigned-integer',
                     'length': 8}))
case('bit-order', P % 0 + r"\.bit-order: bit order 'last-to-first' with "
     "byte order 'little-endian' is not supported", edit=set_fc(0, {
         'type': 'fixed-length-unsigned-integer', 'length': 8,
         'byte-order': 'little-endian', 'bit-order': 'last-to-first'}))
case('length-string', P % 0 + r'\.length: expected an unsigned integer, '
     'found a string', edit=set_fc(0, {
         'type': 'fixed-length-unsigned-integer', 'length': '8',
         'byte-order': 'little-endian'}))
case('bad-align', P % 0 + r'\.alignment: must be a power of two',
     edit=set_fc(0, {'type': 'fixed-length-unsigned-integer', 'length': 8,
                     'byte-order': 'little-endian', 'alignment': 3}))
case('bad-location', r"cannot find the field 'nope'", edit=set_fc(1, {
    'type': 'dynamic-length-array', 'length-field-location':
    {'path': ['nope']}, 'element-field-class': {
        'type': 'fixed-length-unsigned-integer', 'length': 8,
        'byte-order': 'little-endian'}}))
case('bad-origin', P % 1 + r"\.length-field-location: unknown origin "
     "'payload'", edit=set_fc(1, {
         'type': 'dynamic-length-array', 'length-field-location':
         {'origin': 'payload', 'path': ['n']}, 'element-field-class': {
             'type': 'fixed-length-unsigned-integer', 'length': 8,
             'byte-order': 'little-endian'}}))
case('no-alias', P % 2 + r": no field class alias 'str' before",
     edit=set_fc(2, 'str'))
case('no-stream', r'fragment 5: \$: no data stream class 4 before',
     edit=lambda f: f[-1].update({'data-stream-class-id': 4}))
case('no-clock', r"\.default-clock-class-id: no clock class 'c9' before",
     edit=lambda f: f[3].update({'default-clock-class-id': 'c9'}))
case('dup-event', r'fragment 6: \$: duplicate event record class id 0',
     edit=lambda f: f.append(f[-1]))
case('dup-member', P % 1 + r"^\[\]*: duplicate member name 'n'|"
     r"member-classes\[1\]: duplicate member name 'n'",
     edit=lambda f: payload(f)[1].update(name='n'))
case('root-not-struct', r'\$\.payload-field-class: a scope.s field class '
     'must be a structure', edit=lambda f: f[-1].update({
         'payload-field-class': {'type': 'null-terminated-string'}}))
case('not-json-seq', r'JSON without record separators: neither TSDL',
     good_text.replace(RS, ''))
case('binary', r'binary data \(byte 0x01 at offset 0\): neither TSDL',
     b'\x01\x02\x00\x00garbage')

# hostile: nesting, alias expansion, long inputs
deep = {'type': 'null-terminated-string'}
for i in range(5000):
    deep = {'type': 'structure', 'member-classes': [
        {'name': 'm', 'field-class': deep}]}
sys.setrecursionlimit(100000)
case('deep-json', r'metadata:5:[0-9]+: fragment 5: \$: bad JSON: '
     'nesting too deep', edit=set_fc(2, deep))
deep = {'type': 'null-terminated-string'}
for i in range(64):
    deep = {'type': 'static-length-array', 'length': 1,
            'element-field-class': deep}
case('deep-fc', r'field classes nested more than 64 deep',
     edit=set_fc(2, deep))


def alias_bomb(frags):
    a = [{'type': 'field-class-alias', 'name': 'a0',
          'field-class': {'type': 'fixed-length-unsigned-integer',
                          'length': 8, 'byte-order': 'little-endian'}}]
    for i in range(1, 60):
        a.append({'type': 'field-class-alias', 'name': 'a%d' % i,
                  'field-class': {'type': 'structure', 'member-classes': [
                      {'name': 'x', 'field-class': 'a%d' % (i - 1)},
                      {'name': 'y', 'field-class': 'a%d' % (i - 1)}]}})
    frags[1:1] = a
    payload(frags)[2]['field-class'] = 'a59'


case('alias-bomb', r'the type is too large', edit=alias_bomb)


def many_members(n):
    def edit(frags):
        payload(frags).extend({'name': 'm%d' % i, 'field-class': {
            'type': 'fixed-length-boolean', 'length': 8,
            'byte-order': 'little-endian'}} for i in range(n))
    return edit


# json-c's tree is about 20 times the text: a fragment is bounded
case('huge-fragment', r'fragment 5: \$: a fragment of [0-9]+ bytes is not '
     r'supported \(at most 16 MiB\)', edit=many_members(300000))
# below the bound: read, then the records are too short for the payload
case('many-members', r"s0 offset=[0-9]+: field 'm[0-9]+' \(8 bits\) goes "
     'past the end of the packet content', edit=many_members(100000))

with open(os.path.join(out, 'cases'), 'w') as f:
    for name, pattern in cases:
        f.write('%s\t%s\n' % (name, pattern))
