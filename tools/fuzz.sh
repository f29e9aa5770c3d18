#!/usr/bin/env bash
# Runs each libFuzzer target for SECONDS from its seeds
# (tests/<area>/fuzz/seeds/fuzz-NAME/) and the corpus kept in OUT/NAME.corpus.
# Any crash, hang (10 s per input), leak, sanitizer report or RSS above
# 2 GB fails, with the last lines of the log and the artifact's path.
# Usage: tools/fuzz.sh SECONDS OUT tests/<area>/fuzz/fuzz-NAME.c...
set -eu
secs=$1
out=$2
shift 2
mkdir -p "$out"
for src in "$@"; do
	n=$(basename "$src" .c)
	seeds="$(dirname "$src")/seeds/$n"
	mkdir -p "$out/$n.corpus"
	[ -d "$seeds" ] || seeds=""
	echo "fuzz $n for $secs s"
	# shellcheck disable=SC2086
	if ! "$out/$n" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=262144 -artifact_prefix="$out/$n-" "$out/$n.corpus" \
		$seeds >"$out/$n.log" 2>&1; then
		tail -n 40 "$out/$n.log"
		echo "fuzz $n: FAILED (log and artifacts in $out)"
		exit 1
	fi
	tail -n 1 "$out/$n.log"
done
