#!/usr/bin/env bash
# The HTML report of a 10-million-event trace (70 cores: task switches,
# interrupts, messages, a frame path; tests/paths/mktrace.c --synthetic)
# with its path analysis: wall time and file size (targets: < 30 s,
# < 20 MB), against `babeltrace2 -o dummy` reading the same trace (the
# anchor: one plain decode) as a ratio. One run each (the trace is big).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
HETRACE=${HETRACE:-$here/../build/hetrace}
N=${BENCH_EVENTS:-10000000}
CORES=${BENCH_CORES:-70}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

secs() { # wall time of "$@" in seconds
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}

"$HETRACE" gen "$here/../tests/paths/trace.yaml" -o "$tmp/g" >/dev/null
cc -std=c99 -D_POSIX_C_SOURCE=200809L -O2 -I"$tmp/g" -o "$tmp/mktrace" \
	"$here/../tests/paths/mktrace.c" "$tmp/g/barectf.c"
mkdir -p "$tmp/t"
cp "$tmp/g/metadata" "$tmp/t/"
"$tmp/mktrace" "$tmp/t" --synthetic "$N" "$CORES"
cat >"$tmp/paths.yaml" <<YAML
paths:
  frame:
    period: 10 ms
    deadline: 5 ms
    activities:
      alloc:
$(for k in $(seq 1 $((CORES - 1))); do echo "      work_$k: {after: alloc}"; done)
      gather: {after: [$(seq -s ', ' -f 'work_%g' 1 $((CORES - 1)))]}
YAML
ev=$("$HETRACE" info "$tmp/t" | sed -n 's/^total: .* \([0-9]*\) events$/\1/p')
bytes=$(du -sb "$tmp/t" | cut -f1)
tr=$(secs "$HETRACE" report -o "$tmp/r.html" --paths "$tmp/paths.yaml" "$tmp/t")
size=$(wc -c <"$tmp/r.html")
tb=$(secs babeltrace2 "$tmp/t" -o dummy)
"$HETRACE" report -o "$tmp/r.html" --paths "$tmp/paths.yaml" "$tmp/t" | sed 's/^/# /'
printf '%10s %12s %10s %12s %10s %8s\n' events "trace bytes" "report s" "report MB" "bt2 s" ratio
awk -v e="$ev" -v by="$bytes" -v tr="$tr" -v s="$size" -v tb="$tb" 'BEGIN {
	printf "%10d %12d %10.2f %12.2f %10.2f %7.2fx\n", e, by, tr, s / 1e6, tb, tr / tb
	printf "targets: report < 30 s: %s, < 20 MB: %s\n", tr < 30 ? "yes" : "NO", s < 20e6 ? "yes" : "NO"
}'
