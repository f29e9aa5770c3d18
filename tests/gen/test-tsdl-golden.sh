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
# shellcheck source=../lib.sh
. "$TOP/tests/lib.sh"

cd "$TOP/tests/gen/good"
count=0

strip_meta() {
	sed -n '/^trace {/,$p' "$1" | sed '/^env {/,/^};/d'
}

for cfg in *.yaml; do
	name=${cfg%.yaml}
	count=$((count + 1))
	out="$w/$name"
	if ! "$HETRACE" gen "$cfg" -o "$out" --metadata-only 2>"$w/stderr"; then
		bad "$cfg: hetrace gen failed:"
		cat "$w/stderr"
		continue
	fi
	if [ "$(ls -A "$out")" != metadata ]; then
		bad "$cfg: --metadata-only wrote more than metadata: $(ls -A "$out")"
	fi
	if [ "${HT_UPDATE_GOLDEN:-}" = 1 ]; then
		cp "$out/metadata" "$name.metadata.expect"
	fi
	if ! diff -u "$name.metadata.expect" "$out/metadata"; then
		bad "$cfg: metadata differs from $name.metadata.expect"
	fi
	"$HETRACE" gen "$cfg" -o "$out-again" --metadata-only
	if ! cmp -s "$out/metadata" "$out-again/metadata"; then
		bad "$cfg: two runs gave different metadata"
	fi
	if command -v babeltrace2 >/dev/null; then
		if ! babeltrace2 "$out" >"$w/bt.out" 2>&1; then
			bad "$cfg: babeltrace2 rejects the metadata:"
			tail -n 20 "$w/bt.out"
		fi
	else
		echo "note: babeltrace2 not found, metadata not parsed"
	fi
	if grep -q '^# compare: barectf' "$cfg"; then
		if ! command -v barectf >/dev/null; then
			echo "note: barectf not found, $cfg not compared"
			continue
		fi
		mkdir "$w/barectf-$name"
		cp -r . "$w/barectf-$name/src"
		(cd "$w/barectf-$name" && barectf generate -m . -c . -H . "src/$cfg" >/dev/null)
		"$HETRACE" gen "$cfg" -o "$out-nocore" --metadata-only --no-core-id
		if ! diff -u <(strip_meta "$w/barectf-$name/metadata") \
			<(strip_meta "$out-nocore/metadata"); then
			bad "$cfg: metadata differs from barectf's"
		fi
	fi
done
[ "$count" -ge 3 ] || bad "only $count good configurations found"
[ "$fail" = 0 ] && echo "$count configurations give their golden metadata"
exit "$fail"
