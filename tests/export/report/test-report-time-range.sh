#!/usr/bin/env bash
# Times at both ends of int64_t, each consistent with its packet (so
# not damage): a trace whose clock starts 10 s before its origin
# (offset_s = -10: dsp1 at about -10 s) while cpu0's clock reads up to
# 2^63 cycles and past, and a trace whose only core sits at INT64_MAX.
# Times past the clock's range are refused by the reader (exit 1,
# "time out of range", the file and packet named); with -k they are
# INT64_MAX ns, so the report's axis spans more than INT64_MAX ns:
# `report`, `states --window` and `export` compute it unsigned (the
# sanitized build stops at any signed overflow), the page's span, first
# and last times exact, every core there.
set -u
cd "$(dirname "$0")"
. ../../lib.sh
. ../lib.sh

board_build "$w" || exit 1
board_trace "$w" wide <<'EOF' || exit 1
0 9223372036854770000 task_switch 0 idle 5 ctl 3
0 9223372036854775000 isr_enter 7
0 9223372036854775807 isr_exit 7
0 9223372036854776000 task_switch 5 ctl 0 idle 0
1 1000 task_switch 0 idle 9 dsp 1
1 2000 msg_send 1 0 8
1 3000 task_switch 9 dsp 0 idle 0
EOF
sed -i 's/offset_s = 0;/offset_s = -10;/' "$w/wide/metadata"
board_trace "$w" end <<'EOF' || exit 1
0 9223372036854775808 task_switch 0 idle 5 ctl 3
0 9223372036854775900 task_switch 5 ctl 0 idle 0
EOF

run() { # NAME CMD...: 20 MB per file written, 4 GB of memory, 60 s
	local name=$1
	shift
	(
		ulimit -f 20000
		trap '' XFSZ
		bounded 60 4000 "$@" >"$w/$name.out" 2>"$w/$name.err"
	)
	rc=$?
	[ "$rc" = 1 ] || bad "$name: exit $rc, want 1: $(head -5 "$w/$name.err")"
	grep -q "time out of range: file=$w/[a-z]*/stream_0 packet=0 offset=0: " "$w/$name.err" ||
		bad "$name: no 'time out of range' naming the stream: $(head -3 "$w/$name.err")"
}
for t in wide end; do
	run "$t-report" "$HETRACE" report "$w/$t" -o "$w/$t.html"
	run "$t-states" "$HETRACE" states -k --window 1000000 "$w/$t"
	run "$t-perfetto" "$HETRACE" export "$w/$t" -o "$w/$t.pftrace"
	run "$t-json" "$HETRACE" export -f chrome-json "$w/$t" -o "$w/$t.json"
done

python3 - "$w/wide.html" "$w/end.html" <<'PY' || fail=1
import json, re, sys
errs = []
def data(path):
    page = open(path, encoding='utf-8').read()
    m = re.search(r'<script id="ht-data" type="application/json">\n(.*?)\n</script>', page, re.S)
    return json.loads(m.group(1))
M = 2**63 - 1
d = data(sys.argv[1])
t0 = -10 * 10**9 + 1000
want = {'dsp1': (0, 2000), 'cpu0': (9223372036854770000 - 10**10 - t0, M - t0)}
got = {c['name']: (c['first'], c['last']) for c in d['cores']}
if (int(d['t0']), d['span']) != (t0, M - t0):
    errs.append('wide: t0 %s span %s, want %d %d' % (d['t0'], d['span'], t0, M - t0))
if got != want:
    errs.append('wide: cores %s, want %s' % (got, want))
e = data(sys.argv[2])
if (int(e['t0']), e['span'], [c['name'] for c in e['cores']]) != (M - 1, 1, ['cpu0']):
    errs.append('end: t0 %s span %s cores %s' % (e['t0'], e['span'], [c['name'] for c in e['cores']]))
for x in errs:
    print('FAIL:', x)
sys.exit(1 if errs else 0)
PY
grep -q '^core dsp1 (id 1, slave): 3 events, -9.999999000 .. -9.999997000 s (span 2.000 us)' "$w/wide-states.out" ||
	bad "wide states: $(grep '^core' "$w/wide-states.out")"
grep -q '^core cpu0 (id 0, master): 4 events, 9223372026.854770000 .. 9223372036.854775807 s (span 10.000 s)' "$w/wide-states.out" ||
	bad "wide states: $(grep '^core' "$w/wide-states.out")"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$w/wide.json" || bad "wide: JSON"
exit $fail
