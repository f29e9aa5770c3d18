#!/usr/bin/env bash
# A short libFuzzer run of the TSDL parser and the packet decoder in
# every `make check` (`make fuzz` is the long run): each fuzzer built
# with clang, AddressSanitizer and UBSan, FUZZ_SECONDS (default 15) from
# the seeds in tests/ctf/fuzz/seeds. Any crash, hang, leak or sanitizer
# report fails.
set -eu
command -v clang >/dev/null || {
	echo "clang is missing (scripts/deps.sh check)"
	exit 1
}
secs=${FUZZ_SECONDS:-15}
out="$TOP/$BUILD/fuzz-check"
mkdir -p "$out"
cd "$TOP"
# the reader's sources (the writer is not fuzzed)
lib="$(ls host/ctf/ctf-*.c host/ctf/tsdl-*.c | grep -v ctf-writer) common/buf.c common/error.c common/path.c"
for src in tests/ctf/fuzz/fuzz-*.c; do
	n=$(basename "$src" .c)
	# shellcheck disable=SC2086
	clang -std=c11 -D_DEFAULT_SOURCE -D_GNU_SOURCE -O1 -g -Wall -Wextra \
		-Werror -Iinclude -I"$TOP" -Itests/ctf/fuzz \
		-fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -o "$out/$n" "$src" $lib
	rm -rf "$out/$n.corpus"
	mkdir -p "$out/$n.corpus"
	if ! "$out/$n" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$out/$n-" "$out/$n.corpus" \
		"tests/ctf/fuzz/seeds/$n" >"$out/$n.log" 2>&1; then
		tail -n 40 "$out/$n.log"
		echo "fuzz $n: FAILED (artifacts in $out)"
		exit 1
	fi
	tail -n 1 "$out/$n.log"
done
