#!/usr/bin/env bash
# Strings that are not UTF-8 in a trace (task names and a string field
# holding overlong forms, lone continuation bytes, a surrogate, cut
# sequences, 0xFF, a cut sequence right before the string's NUL) next
# to valid 2-, 3- and 4-byte UTF-8: both exports stay valid. The Chrome
# JSON is read by python's json module from strict UTF-8; the Perfetto
# file is decoded by check-export.py, whose string fields must be
# strict UTF-8; each string is the WHATWG replacement of its bytes
# (python's errors="replace": one U+FFFD per maximal subpart), valid
# UTF-8 kept as it is. The report's embedded JSON too.
set -u
cd "$(dirname "$0")"
. ../lib.sh
. ./lib.sh

board_build "$w" || exit 1
mkdir -p "$w/t"
cp "$w/g/metadata" "$w/t/"
# the script has bytes that are not text: written by python, fed to the
# board driver directly (no grep/sort on it)
python3 - "$w/labels" >"$w/script" <<'PY'
import sys
labels = [
    b'ok\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80',  # valid 2, 3, 4 bytes
    b'over\xc0\xaf\xe0\x80\xaf\xf0\x80\x80\xaf',  # overlong forms
    b'lone\x80\xbfx',  # continuation bytes alone
    b'sur\xed\xa0\x80r',  # a surrogate
    b'cut\xe2\x82.\xf0\x9f\x98.',  # sequences cut short
    b'ff\xff\xfe',  # never in UTF-8
    b'end\xe2',  # cut right before the NUL
    b'\xf4\x90\x80\x80big',  # above U+10FFFF
]
out = sys.stdout.buffer
out.write(b'0 1000 task_switch 0 idle 5 t\xe9sk\xff 3\n')
t = 2000
for i, l in enumerate(labels):
    out.write(b'0 %d sample %d 0 %s\n' % (t, i, l))
    t += 100
out.write(b'0 5000 task_switch 5 t\xe9sk\xff 0 idle 0\n')
with open(sys.argv[1], 'w', encoding='utf-8') as f:
    for l in labels:
        f.write(l.decode('utf-8', 'replace') + '\n')
PY
"$w/board" "$w/t" <"$w/script" >/dev/null || exit 1

timeout 20 "$HETRACE" export "$w/t" -o "$w/t.pftrace" 2>"$w/perr" ||
	bad "perfetto export: $(cat "$w/perr")"
timeout 20 "$HETRACE" export -f chrome-json "$w/t" -o "$w/t.json" 2>"$w/jerr" ||
	bad "json export: $(cat "$w/jerr")"
timeout 60 "$HETRACE" report "$w/t" -o "$w/t.html" >/dev/null 2>"$w/rerr" ||
	bad "report: $(cat "$w/rerr")"

python3 - "$w/t.pftrace" "$w/t.json" "$w/t.html" "$w/labels" <<'PY' || fail=1
import importlib.util, json, re, sys
spec = importlib.util.spec_from_file_location('ce', 'check-export.py')
ce = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ce)
pf, js, html, labels = sys.argv[1:]
want = open(labels, encoding='utf-8').read().split('\n')[:-1]
task = b't\xe9sk\xff'.decode('utf-8', 'replace')
errs = []

# Chrome JSON: strict UTF-8 text, the labels replaced as python does
def strict_json(path, text=None):
    try:
        return json.loads(text if text is not None else open(path, 'rb').read().decode('utf-8'))
    except (UnicodeDecodeError, ValueError) as e:
        errs.append('%s: not strict UTF-8 JSON: %s' % (path, e))
        return None
doc = strict_json(js)
if doc:
    got = [e['args']['label'] for e in sorted(doc['traceEvents'], key=lambda e: e.get('ts', 0))
           if e.get('name') == 'sample']
    if got != want:
        errs.append('json labels %r, want %r' % (got, want))
    if not any(e.get('name') == task for e in doc['traceEvents']):
        errs.append('json: no slice named %r' % task)

# Perfetto: every string field decodes as strict UTF-8 (ce.decode)
try:
    trace = ce.decode('Trace', open(pf, 'rb').read())
except ce.Bad as e:
    errs.append('perfetto: %s' % e)
    trace = {}
strs, names = [], set()
for p in trace.get('packet', []):
    for e in p.get('interned_data', {}).get('event_names', []):
        names.add(e['name'])
    for a in p.get('track_event', {}).get('debug_annotations', []):
        if 'string_value' in a:
            strs.append(a['string_value'])
if strs != want:
    errs.append('perfetto labels %r, want %r' % (strs, want))
if task not in names:
    errs.append('perfetto: no event name %r in %r' % (task, names))

# the report's data: one JSON object, strict UTF-8
try:
    page = open(html, 'rb').read().decode('utf-8')
except UnicodeDecodeError as e:
    errs.append('report: the page is not UTF-8: %s' % e)
    page = ''
m = re.search(r'<script id="ht-data" type="application/json">\n(.*?)\n</script>', page, re.S)
data = strict_json(html, m.group(1)) if m else None
if not data:
    errs.append('report: no valid data')
elif task not in [s['n'] for s in data['states']]:
    errs.append('report: no state %r' % task)

for e in errs:
    print('FAIL:', e)
sys.exit(1 if errs else 0)
PY
exit $fail
