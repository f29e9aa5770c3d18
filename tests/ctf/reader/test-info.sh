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
# usage errors
set +e
"$HETRACE" info >/dev/null 2>&1
[ $? = 2 ] || { echo "FAIL: no argument must exit 2"; exit 1; }
"$HETRACE" info "$tmp/nonexistent" >/dev/null 2>&1
[ $? = 1 ] || { echo "FAIL: missing trace must exit 1"; exit 1; }
echo ok
