#!/usr/bin/env bash
# TSDL golden tests: for every tests/gen/good/NAME.yaml, `hetrace gen
# --metadata-only` must write exactly NAME.metadata.expect, the same bytes
# on a second run, and babeltrace2 must parse it. Configurations marked
# `# compare: barectf` must give barectf 3.1's metadata (with
# --no-core-id; the header comment and env block aside).
# Set HT_UPDATE_GOLDEN=1 to rewrite the .expect files after a reviewed
# change.
set -eu
: "${HETRACE:?path to the hetrace CLI}"
: "${TOP:?top of the source tree}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$TOP/tests/gen/good"
fail=0
count=0

strip_meta() {
	sed -n '/^trace {/,$p' "$1" | sed '/^env {/,/^};/d'
}

for cfg in *.yaml; do
	name=${cfg%.yaml}
	count=$((count + 1))
	out="$tmp/$name"
	if ! "$HETRACE" gen "$cfg" -o "$out" --metadata-only 2>"$tmp/stderr"; then
		echo "FAIL $cfg: hetrace gen failed:"
		cat "$tmp/stderr"
		fail=1
		continue
	fi
	if [ "$(ls -A "$out")" != metadata ]; then
		echo "FAIL $cfg: --metadata-only wrote more than metadata: $(ls -A "$out")"
		fail=1
	fi
	if [ "${HT_UPDATE_GOLDEN:-}" = 1 ]; then
		cp "$out/metadata" "$name.metadata.expect"
	fi
	if ! diff -u "$name.metadata.expect" "$out/metadata"; then
		echo "FAIL $cfg: metadata differs from $name.metadata.expect"
		fail=1
	fi
	"$HETRACE" gen "$cfg" -o "$out-again" --metadata-only
	if ! cmp -s "$out/metadata" "$out-again/metadata"; then
		echo "FAIL $cfg: two runs gave different metadata"
		fail=1
	fi
	if command -v babeltrace2 >/dev/null; then
		if ! babeltrace2 "$out" >"$tmp/bt.out" 2>&1; then
			echo "FAIL $cfg: babeltrace2 rejects the metadata:"
			tail -n 20 "$tmp/bt.out"
			fail=1
		fi
	else
		echo "note: babeltrace2 not found, metadata not parsed"
	fi
	if grep -q '^# compare: barectf' "$cfg"; then
		if ! command -v barectf >/dev/null; then
			echo "note: barectf not found, $cfg not compared"
			continue
		fi
		mkdir "$tmp/barectf-$name"
		cp -r . "$tmp/barectf-$name/src"
		(cd "$tmp/barectf-$name" && barectf generate -m . -c . -H . "src/$cfg" >/dev/null)
		"$HETRACE" gen "$cfg" -o "$out-nocore" --metadata-only --no-core-id
		if ! diff -u <(strip_meta "$tmp/barectf-$name/metadata") \
			<(strip_meta "$out-nocore/metadata"); then
			echo "FAIL $cfg: metadata differs from barectf's"
			fail=1
		fi
	fi
done
if [ "$count" -lt 3 ]; then
	echo "FAIL: only $count good configurations found"
	fail=1
fi
[ "$fail" = 0 ] && echo "$count configurations give their golden metadata"
exit "$fail"
