#!/usr/bin/env bash
# hetrace info on barectf traces made at run time: golden output
# (info-KIND.expect) and the event count babeltrace2 sees.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for kind in basic be16; do
	"$TOP/tests/ctf/reader/mktrace.sh" "$kind" "$tmp/$kind" 1000
	(cd "$tmp/$kind" && "$HETRACE" info trace) >"$tmp/$kind.out"
	if ! diff -u "$TOP/tests/ctf/reader/info-$kind.expect" "$tmp/$kind.out"; then
		echo "FAIL: info $kind differs from info-$kind.expect"
		exit 1
	fi
	bt=$(babeltrace2 "$tmp/$kind/trace" 2>/dev/null | wc -l)
	ht=$(sed -n 's/^total: .* streams, \([0-9]*\) events$/\1/p' "$tmp/$kind.out")
	if [ "$bt" != "$ht" ]; then
		echo "FAIL: $kind: babeltrace2 sees $bt events, hetrace info $ht"
		exit 1
	fi
	echo "ok $kind ($ht events)"
done
# several traces found recursively under one directory
mkdir -p "$tmp/set/b/c"
cp -r "$tmp/basic/trace" "$tmp/set/a"
cp -r "$tmp/be16/trace" "$tmp/set/b/c/core"
"$HETRACE" info "$tmp/set" >"$tmp/all.out"
grep -q '^total: 2 traces, 3 streams, 2200 events$' "$tmp/all.out"
# --json: the same numbers, times in ns; the text's first/last event and
# counts per stream read back from the JSON
"$HETRACE" info --json -n 3 "$tmp/set" >"$tmp/all.json"
python3 - "$tmp/all.json" "$tmp/all.out" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
streams = [s for t in d['traces'] for s in t['streams']]
assert len(d['traces']) == 2 and len(streams) == 3, d
assert sum(s['events'] for s in streams) == 2200
assert all(len(s['event_types']) <= 3 for s in streams)
text = open(sys.argv[2]).read()
firsts = [int(a) * 10**9 + int(b) for a, b in re.findall(r'first event: (\d+)\.(\d{9}) s', text)]
assert sorted(firsts) == sorted(s['first_ns'] for s in streams), (firsts, streams)
for t in d['traces']:
    assert t['byte_order'] in ('little-endian', 'big-endian') and t['clocks'], t
PY
# usage errors
set +e
"$HETRACE" info >/dev/null 2>&1
[ $? = 2 ] || { echo "FAIL: no argument must exit 2"; exit 1; }
"$HETRACE" info "$tmp/nonexistent" >/dev/null 2>&1
[ $? = 1 ] || { echo "FAIL: missing trace must exit 1"; exit 1; }
echo ok
