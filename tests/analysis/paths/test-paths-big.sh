#!/usr/bin/env bash
# Path description files with 50,000 activities, generated here: a
# fork of two chains from a0 joined by one activity after all the
# others (a 49,999-name `after` list), read with a trace that runs a
# few of them; then the same size with errors (a repeated activity
# name, a name listed twice in the join, a cycle through every
# activity). Loading is linear (names by hash, Kahn's order with a
# heap): each run ends well within the time limit, under a memory
# limit, with every activity there or every error at its line:col.
# Then 5000 instances of the big path: refused past the bound on
# activity runs, with the position of the instance refused.
set -u
cd "$(dirname "$0")"
. ../../lib.sh

"$HETRACE" gen trace.yaml -o "$w/g" >/dev/null || exit 1
cc -std=c99 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O1 -g \
	-I"$w/g" -I"$TOP" -o "$w/mktrace" mktrace.c "$w/g/barectf.c" || exit 1
mkdir -p "$w/t"
cp "$w/g/metadata" "$w/t/"
"$w/mktrace" "$w/t" <<'EOF' || exit 1
1000000 0 switch 0 idle 1 main 10
2000000 0 trigger big 0
2000000 0 begin big a0 0
3000000 0 end big a0 0
3000000 0 begin big a49999 0
4000000 0 end big a49999 0
4000000 0 begin big join 0
5000000 0 end big join 0
EOF

N=50000
python3 - "$N" "$w" <<'PY'
import sys
n, w = int(sys.argv[1]), sys.argv[2]
def write(name, extra_key=False, twice=False, cycle=False):
    with open('%s/%s.yaml' % (w, name), 'w') as f:
        f.write('paths:\n  big:\n    deadline: 10 ms\n    activities:\n')
        f.write('      a0:%s\n' % (' {after: a%d}' % (n - 1) if cycle else ''))
        for i in range(1, n):
            f.write('      a%d: {after: a%d}\n' % (i, i - 1 if cycle or i % 2 else max(i - 2, 0)))
        names = ['a%d' % i for i in range(1, n)] + (['a7'] if twice else [])
        f.write('      join: {after: [%s]}\n' % ', '.join(names))
        if extra_key:
            f.write('      a5: {after: a0}\n')
write('big')
write('bad', extra_key=True, twice=True)
write('cycle', cycle=True)
PY

run() { # NAME CMD...: bounded time and memory
	local name=$1
	shift
	bounded 20 1500 "$@" >"$w/$name.out" 2>"$w/$name.err"
	echo $? >"$w/$name.rc"
}
run big "$HETRACE" paths --paths "$w/big.yaml" --json "$w/t"
[ "$(cat "$w/big.rc")" = 0 ] || bad "big: exit $(cat "$w/big.rc"): $(head -3 "$w/big.err")"
python3 - "$w/big.out" "$N" <<'PY' || fail=1
import json, sys
n = int(sys.argv[2])
p = json.load(open(sys.argv[1]))['paths'][0]
acts = p['activities']
errs = []
if len(acts) != n + 1:
    errs.append('%d activities, want %d' % (len(acts), n + 1))
elif acts[-1]['after'] != ['a%d' % i for i in range(1, n)] or acts[4]['after'] != ['a2']:
    errs.append('the join or a chain is wrong: %s %s' % (acts[-1]['after'][:3], acts[4]))
ran = {a['name']: a['exec']['count'] for a in acts if a['exec']['count']}
if ran != {'a0': 1, 'a49999': 1, 'join': 1} or p['instances_count'] != 1:
    errs.append('ran %s, instances %d' % (ran, p['instances_count']))
for e in errs:
    print('FAIL: big:', e)
sys.exit(1 if errs else 0)
PY

line=$((N + 6))
run bad "$HETRACE" paths --paths "$w/bad.yaml" "$w/t"
[ "$(cat "$w/bad.rc")" = 1 ] || bad "bad: exit $(cat "$w/bad.rc")"
grep -q "^$w/bad.yaml:$((line - 1)):[0-9]*: activity \`a7\` is listed twice" "$w/bad.err" ||
	bad "bad: listed twice: $(head -5 "$w/bad.err")"
grep -q "^$w/bad.yaml:$line:7: duplicate activity \`a5\` (first at line 10, column 7)" "$w/bad.err" ||
	bad "bad: duplicate: $(head -5 "$w/bad.err")"

run cycle "$HETRACE" paths --paths "$w/cycle.yaml" "$w/t"
[ "$(cat "$w/cycle.rc")" = 1 ] || bad "cycle: exit $(cat "$w/cycle.rc")"
grep -q "^$w/cycle.yaml:5:7: precedence cycle in path \`big\`: \`a0\` -> \`a49999\` -> \`a49998\` -> " "$w/cycle.err" ||
	bad "cycle: $(head -3 "$w/cycle.err" | cut -c1-300)"
# many instances of the big path: the activity runs of all instances
# are bounded (2^25 runs, 1 GiB): the 672nd instance is refused with
# its position, not 5000 x 50,001 runs (8 GB) allocated
mkdir -p "$w/many"
cp "$w/g/metadata" "$w/many/"
awk 'BEGIN { for (i = 0; i < 5000; i++) print 2000000 + i * 1000, 0, "trigger big", i }' |
	"$w/mktrace" "$w/many" || exit 1
run many "$HETRACE" paths --paths "$w/big.yaml" "$w/many"
[ "$(cat "$w/many.rc")" = 1 ] || bad "many: exit $(cat "$w/many.rc"): $(head -3 "$w/many.err")"
grep -q "^hetrace paths: file=$w/many/core0 offset=[0-9]*: a new instance of path \`big\` (50001 activities) would take the instances of $w/big.yaml past 33554432 activity runs (33550671 so far)" "$w/many.err" ||
	bad "many: $(head -3 "$w/many.err")"
exit $fail
