#!/usr/bin/env bash
# Every tests/gen/bad/NAME.yaml is an invalid configuration: `hetrace gen`
# must exit 1, print exactly NAME.expect on stderr (every message,
# file:line:column first) and write nothing into the output directory.
# Files named *.inc.yaml are only included by the others.
set -eu
: "${HETRACE:?path to the hetrace CLI}"
: "${TOP:?top of the source tree}"
# shellcheck source=../lib.sh
. "$TOP/tests/lib.sh"

cd "$TOP/tests/gen/bad"
count=0
for cfg in *.yaml; do
	case "$cfg" in *.inc.yaml) continue ;; esac
	name=${cfg%.yaml}
	count=$((count + 1))
	out="$w/out-$name"
	mkdir "$out"
	rc=0
	"$HETRACE" gen "$cfg" -o "$out" >"$w/stdout" 2>"$w/stderr" || rc=$?
	if [ "$rc" != 1 ]; then
		bad "$cfg: exit status $rc, expected 1"
	fi
	if [ ! -f "$name.expect" ]; then
		bad "$cfg: no $name.expect"
	elif ! diff -u "$name.expect" "$w/stderr" >"$w/diff"; then
		bad "$cfg: stderr differs from $name.expect:"
		cat "$w/diff"
	fi
	if [ -s "$w/stdout" ]; then
		bad "$cfg: unexpected output on stdout"
	fi
	if [ -n "$(ls -A "$out")" ]; then
		bad "$cfg: files written into the output directory:"
		ls -lAR "$out"
	fi
	# Nothing is created either when the output directory does not exist.
	"$HETRACE" gen "$cfg" -o "$w/absent-$name" >/dev/null 2>&1 || true
	if [ -e "$w/absent-$name" ]; then
		bad "$cfg: created the output directory"
	fi
done
[ "$count" -ge 10 ] || bad "only $count bad configurations found"
[ "$fail" = 0 ] && echo "$count bad configurations rejected as expected"
exit "$fail"
