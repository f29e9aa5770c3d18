#!/usr/bin/env bash
# hetrace paths (and report --paths) on traces made here without a
# single instance: tasks running but no path event at all, and only
# events of a path the file does not describe. Nothing to sort, no
# worst instance to explain: exit 0, every count 0, the JSON complete,
# and the sanitized build finds nothing (qsort() of no array once
# stopped it).
set -u
cd "$(dirname "$0")"
. ../../lib.sh

"$HETRACE" gen trace.yaml -o "$w/g" >/dev/null || exit 1
cc -std=c99 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O1 -g \
	-I"$w/g" -I"$TOP" -o "$w/mktrace" mktrace.c "$w/g/barectf.c" || exit 1
mk() { # NAME: the script on stdin -> trace $w/NAME
	mkdir -p "$w/$1"
	cp "$w/g/metadata" "$w/$1/"
	"$w/mktrace" "$w/$1"
}
mk none <<'EOF'
1000000 0 switch 0 idle 1 main 10
1000000 1 switch 0 idle 2 sobel 10
5000000 1 isr_in 7
6000000 1 isr_out 7
9000000 0 switch 1 main 0 idle 0
EOF
mk other <<'EOF'
1000000 0 switch 0 idle 1 main 10
2000000 0 trigger elsewhere 0
2000000 0 begin elsewhere step 0
3000000 0 end elsewhere step 0
EOF

for t in none other; do
	timeout 20 "$HETRACE" paths --paths pipeline.yaml --all "$w/$t" >"$w/$t.txt" 2>"$w/$t.err" ||
		bad "$t: text: exit $?: $(head -3 "$w/$t.err")"
	grep -q '^path frame: 0 instances, 0 complete' "$w/$t.txt" || bad "$t: text: $(head -3 "$w/$t.txt")"
	timeout 20 "$HETRACE" paths --paths pipeline.yaml --json "$w/$t" >"$w/$t.json" 2>"$w/$t.err" ||
		bad "$t: json: exit $?: $(head -3 "$w/$t.err")"
	python3 - "$w/$t.json" "$t" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
p = r['paths'][0]
got = (p['name'], p['instances_count'], p['instances'], p['worst'], p['response']['count'],
       [a['exec']['count'] for a in p['activities']])
want = ('frame', 0, [], [], 0, [0] * 6)
if got != want:
    print('FAIL: %s json: %s, want %s' % (sys.argv[2], got, want))
    sys.exit(1)
if sys.argv[2] == 'other' and (r['path_events'], r['anomalies']['unknown_path']) != (3, 3):
    print('FAIL: other: path events %d, unknown %d' % (r['path_events'], r['anomalies']['unknown_path']))
    sys.exit(1)
PY
	timeout 60 "$HETRACE" report --paths pipeline.yaml "$w/$t" -o "$w/$t.html" >/dev/null 2>"$w/$t.err" ||
		bad "$t: report: exit $?: $(head -3 "$w/$t.err")"
done
grep -q "3 events of undescribed paths" "$w/other.txt" || bad "other: not counted: $(tail -2 "$w/other.txt")"
exit $fail
