#!/usr/bin/env bash
# End to end against the real tools: for every driver interop/NAME.c and
# its configuration NAME.yaml, hetrace gen + the driver write a trace that
# babeltrace2 must print exactly as NAME.expect says (the values the
# driver traced). Unless NAME.yaml is hetrace-only (a line
# "# hetrace-only" in it), the same driver is also built against barectf
# 3.1's output for the same configuration, and babeltrace2 must print the
# same lines for both, with packets of several sizes. The header-only
# output must give the same trace as the header + source output.
set -eu
cd "$(dirname "$0")"
. ../lib.sh
export TZ=UTC
CC=${CC:-cc}
DRV_CFLAGS="-std=c99 -pedantic -Wall -Wextra -Werror -g -fsanitize=address,undefined -fno-sanitize-recover=undefined"

# build NAME DIR [EXTRA_SOURCES...]: the driver against DIR's output.
build() {
	local name=$1 dir=$2
	shift 2
	$CC $DRV_CFLAGS -I"$dir" -I. -o "$dir/drv" "interop/$name.c" "$@"
}

# run DIR PACKET_SIZE OUT: a trace in DIR/trace, babeltrace2's text in OUT.
run() {
	local dir=$1 size=$2 out=$3
	rm -rf "$dir/trace"
	mkdir -p "$dir/trace"
	cp "$dir/metadata" "$dir/trace/metadata"
	"$dir/drv" "$dir/trace/stream" "$size"
	babeltrace2 "$dir/trace" >"$out" 2>"$out.err" || {
		bad "babeltrace2 failed on $dir/trace:"
		head -5 "$out.err"
	}
}

for cfg in interop/*.yaml; do
	name=$(basename "$cfg" .yaml)
	[ -f "interop/$name.c" ] || continue
	echo "== $name"
	h="$w/$name-h"
	mkdir -p "$h"
	"$HETRACE" gen "$cfg" -o "$h"
	build "$name" "$h" "$h/barectf.c"
	run "$h" 4096 "$w/$name.txt"
	if ! diff -u "interop/$name.expect" "$w/$name.txt"; then
		bad "$name: babeltrace2's output differs from interop/$name.expect"
	fi

	# Header-only: the same bytes on disk as header + source.
	ho="$w/$name-ho"
	mkdir -p "$ho"
	"$HETRACE" gen --header-only "$cfg" -o "$ho"
	[ ! -e "$ho/barectf.c" ] || bad "$name: --header-only wrote a source file"
	build "$name" "$ho"
	run "$ho" 4096 "$w/$name-ho.txt"
	cmp -s "$h/trace/stream" "$ho/trace/stream" ||
		bad "$name: header-only output wrote a different trace"

	grep -q '^# hetrace-only' "$cfg" && continue

	# barectf 3.1 on the same configuration and driver.
	b="$w/$name-b"
	hn="$w/$name-hn"
	mkdir -p "$b" "$hn"
	(cd "$b" && barectf generate "$OLDPWD/$cfg" >/dev/null)
	$CC -std=c99 -g -w -I"$b" -I. -o "$b/drv" "interop/$name.c" "$b/barectf.c"
	"$HETRACE" gen --no-core-id "$cfg" -o "$hn"
	build "$name" "$hn" "$hn/barectf.c"
	for size in 4096 512 256; do
		run "$b" $size "$w/$name-b-$size.txt"
		run "$hn" $size "$w/$name-hn-$size.txt"
		if ! diff -u "$w/$name-b-$size.txt" "$w/$name-hn-$size.txt"; then
			bad "$name: barectf and hetrace traces print differently (packets of $size bytes)"
		fi
	done
	# barectf's record header layout, asked for by the configuration.
	if ! grep -q '^options:' "$cfg"; then
		bl="$w/$name-bl"
		mkdir -p "$bl"
		awk 'NR == 1 { print; print "options:\n  hetrace:\n    event-header: barectf\n    core-id: false"; next } { print }' \
			"$cfg" >"$w/$name-bl.yaml"
		"$HETRACE" gen "$w/$name-bl.yaml" -o "$bl"
		grep -q 'variant' "$bl/metadata" && bad "$name: barectf layout still compact"
		build "$name" "$bl" "$bl/barectf.c"
		for size in 4096 256; do
			run "$bl" $size "$w/$name-bl-$size.txt"
			run "$b" $size "$w/$name-b-$size.txt"
			diff -u "$w/$name-b-$size.txt" "$w/$name-bl-$size.txt" >/dev/null ||
				bad "$name: barectf layout prints differently from barectf ($size-byte packets)"
		done
		cmp -s "$b/trace/stream" "$bl/trace/stream" && echo "$name: barectf layout: same bytes as barectf"
	fi

	# Smaller records: the compact header must make the stream smaller.
	bs=$(stat -c %s "$b/trace/stream")
	hs=$(stat -c %s "$hn/trace/stream")
	echo "$name: stream bytes with 256-byte packets: barectf $bs, hetrace $hs"
done
exit $fail
