#!/usr/bin/env bash
# The HTML report of a 10-million-event trace (70 cores: task switches,
# interrupts, messages, a frame path; tests/analysis/paths/mktrace.c --synthetic)
# with its path analysis: wall time and file size (targets: < 30 s,
# < 20 MB), against `babeltrace2 -o dummy` reading the same trace (the
# anchor: one plain decode) as a ratio; then a trace of the same size
# with function calls (function rows, --elf). One run each (the traces
# are big).
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

"$HETRACE" gen "$here/../tests/analysis/paths/trace.yaml" -o "$tmp/g" >/dev/null
cc -std=c99 -D_POSIX_C_SOURCE=200809L -O2 -I"$tmp/g" -I"$here/.." -o "$tmp/mktrace" \
	"$here/../tests/analysis/paths/mktrace.c" "$tmp/g/barectf.c"
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

# The same size with function calls (tests/export/board.c's bench
# pattern on 3 cores: a call per 8 events, 1.25 M calls per 10 M
# events): the function rows under each core, names from --elf (the
# driver's ELF, which names nothing: the cost of the names' first pass
# is in).
rm -rf "$tmp/t"
export TOP=$here/..
# shellcheck source=../tests/export/lib.sh
. "$TOP/tests/export/lib.sh"
board_build "$tmp/b" >/dev/null
cc -std=c99 -O2 -I"$tmp/b/g" -I"$TOP" -o "$tmp/b/board" "$TOP/tests/export/board.c" "$tmp/b/g/barectf.c"
mkdir -p "$tmp/f"
cp "$tmp/b/g/metadata" "$tmp/f/"
"$tmp/b/board" "$tmp/f" bench "$N" >/dev/null
fev=$("$HETRACE" info "$tmp/f" | sed -n 's/^total: .* \([0-9]*\) events$/\1/p')
fbytes=$(du -sb "$tmp/f" | cut -f1)
ftr=$(secs "$HETRACE" report -o "$tmp/f.html" --elf "$tmp/b/board" "$tmp/f")
fsize=$(wc -c <"$tmp/f.html")
ftb=$(secs babeltrace2 "$tmp/f" -o dummy)
"$HETRACE" report -o "$tmp/f.html" --elf "$tmp/b/board" "$tmp/f" 2>/dev/null | sed 's/^/# /'

printf '%-10s %10s %12s %10s %12s %10s %8s\n' trace events "trace bytes" "report s" "report MB" "bt2 s" ratio
awk -v e="$ev" -v by="$bytes" -v tr="$tr" -v s="$size" -v tb="$tb" \
	-v fe="$fev" -v fby="$fbytes" -v ftr="$ftr" -v fs="$fsize" -v ftb="$ftb" -v c="$CORES" 'BEGIN {
	printf "%-10s %10d %12d %10.2f %12.2f %10.2f %7.2fx\n", c " cores", e, by, tr, s / 1e6, tb, tr / tb
	printf "%-10s %10d %12d %10.2f %12.2f %10.2f %7.2fx\n", "calls", fe, fby, ftr, fs / 1e6, ftb, ftr / ftb
	ok = tr < 30 && ftr < 30 ? "yes" : "NO"
	printf "targets: report < 30 s: %s, < 20 MB: %s\n", ok, s < 20e6 && fs < 20e6 ? "yes" : "NO"
}'
