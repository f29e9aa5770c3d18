#!/usr/bin/env bash
# hetrace's extensions end to end: code generated for
# good/all-types.yaml (nested structures, static arrays of structures,
# per-field byte order, bit fields, every other field type) traces known
# values; babeltrace2 must read them back through hetrace's metadata
# exactly as extensions/all-types.expect says.
set -eu
: "${HETRACE:?path to the hetrace CLI}"
: "${TOP:?top of the source tree}"
command -v babeltrace2 >/dev/null || { echo "babeltrace2 is needed"; exit 1; }

w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cd "$TOP/tests/gen"

"$HETRACE" gen good/all-types.yaml -o "$w/g"
cc -std=c99 -pedantic -Wall -Wextra -Werror -O1 -g \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-I"$w/g" -I. -o "$w/drv" extensions/all-types.c "$w/g/tracing.c"
mkdir "$w/trace"
"$w/drv" "$w/trace/stream"
cp "$w/g/metadata" "$w/trace/metadata"
TZ=UTC babeltrace2 --clock-gmt "$w/trace" >"$w/out"
if ! diff -u extensions/all-types.expect "$w/out"; then
	echo "FAIL: babeltrace2's reading differs from extensions/all-types.expect"
	exit 1
fi
echo "all-types: $(wc -l <"$w/out") event records read back as traced"
