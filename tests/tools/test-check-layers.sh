#!/usr/bin/env bash
# tools/check-layers.sh: the tree as it is passes; a copy of it with one
# broken rule at a time fails, naming the file and line of the include.
set -eu
cd "$TOP"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT

tools/check-layers.sh "$TOP" >"$w/out" || {
	cat "$w/out"
	echo "the tree itself breaks the include rules"
	exit 1
}

# A copy of the C files and the boards' tracer configurations (no .git:
# the checker walks the folder).
copy() {
	rm -rf "$w/t"
	mkdir -p "$w/t"
	git ls-files -- '*.c' '*.h' '*.S' 'platforms/*.yaml' | while read -r f; do
		mkdir -p "$w/t/$(dirname "$f")"
		cp "$f" "$w/t/$f"
	done
}

# expect_bad FILE LINE-TEXT MESSAGE-PART: adds LINE-TEXT at the top of
# FILE in a fresh copy; the checker must fail and name FILE:1.
expect_bad() {
	local file=$1 text=$2 part=$3
	copy
	{ echo "$text"; cat "$w/t/$file"; } >"$w/t/$file.new"
	mv "$w/t/$file.new" "$w/t/$file"
	if tools/check-layers.sh "$w/t" >"$w/out" 2>&1; then
		cat "$w/out"
		echo "not caught: '$text' in $file"
		exit 1
	fi
	grep -q "^$file:1: .*$part" "$w/out" || {
		cat "$w/out"
		echo "'$text' in $file: the message does not name $file:1 and '$part'"
		exit 1
	}
	echo "caught: $file: $text"
}

# The copy as it is passes: the checker reads the folder, not git.
copy
tools/check-layers.sh "$w/t" >"$w/out"

expect_bad host/ctf/ctf-set.c '#include "host/export/export.h"' 'ctf may not include export'
expect_bad host/sync/merge.c '#include "host/analysis/states.h"' 'sync may not include analysis'
expect_bad host/collect/capture-writer.c '#include "host/sync/capture-reader.h"' 'collect may not include sync'
expect_bad common/error.c '#include "host/ctf/ctf-reader.h"' 'common may not include ctf'
expect_bad gen/emit/emit-c.c '#include "host/ctf/ctf-reader.h"' 'gen may not include ctf'
expect_bad runtime/sync-slave.c '#include <stdio.h>' 'not a freestanding header'
expect_bad runtime/sync-slave.c '#include "common/error.h"' 'runtime may not include common'
expect_bad platforms/sim/target/slave.c '#include "host/collect/capture-writer.h"' 'target may not include collect'
expect_bad platforms/qemu/target/main.c '#include "platforms/sim/board.h"' 'board qemu includes board sim'
expect_bad host/export/report.c '#include "../../common/error.h"' 'no relative paths'
expect_bad host/analysis/states.c '#include "error.h"' 'common/error.h: name it from the top'
echo "ok"
