#!/usr/bin/env bash
# Every tests/gen/bad/NAME.yaml is an invalid configuration: `hetrace gen`
# must exit 1, print exactly NAME.expect on stderr (every message,
# file:line:column first) and write nothing into the output directory.
# Files named *.inc.yaml are only included by the others.
set -eu
: "${HETRACE:?path to the hetrace CLI}"
: "${TOP:?top of the source tree}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$TOP/tests/gen/bad"
fail=0
count=0
for cfg in *.yaml; do
	case "$cfg" in *.inc.yaml) continue ;; esac
	name=${cfg%.yaml}
	count=$((count + 1))
	out="$tmp/out-$name"
	mkdir "$out"
	rc=0
	"$HETRACE" gen "$cfg" -o "$out" >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
	if [ "$rc" != 1 ]; then
		echo "FAIL $cfg: exit status $rc, expected 1"
		fail=1
	fi
	if [ ! -f "$name.expect" ]; then
		echo "FAIL $cfg: no $name.expect"
		fail=1
	elif ! diff -u "$name.expect" "$tmp/stderr" >"$tmp/diff"; then
		echo "FAIL $cfg: stderr differs from $name.expect:"
		cat "$tmp/diff"
		fail=1
	fi
	if [ -s "$tmp/stdout" ]; then
		echo "FAIL $cfg: unexpected output on stdout"
		fail=1
	fi
	if [ -n "$(ls -A "$out")" ]; then
		echo "FAIL $cfg: files written into the output directory:"
		ls -lAR "$out"
		fail=1
	fi
	# Nothing is created either when the output directory does not exist.
	"$HETRACE" gen "$cfg" -o "$tmp/absent-$name" >/dev/null 2>&1 || true
	if [ -e "$tmp/absent-$name" ]; then
		echo "FAIL $cfg: created the output directory"
		fail=1
	fi
done
if [ "$count" -lt 10 ]; then
	echo "FAIL: only $count bad configurations found"
	fail=1
fi
[ "$fail" = 0 ] && echo "$count bad configurations rejected as expected"
exit "$fail"
