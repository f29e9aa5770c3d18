#!/usr/bin/env bash
# Export speed and memory: `hetrace export --format perfetto` (and
# chrome-json) against the anchor `babeltrace2 -o dummy` reading the
# same trace, on traces of the three-core board (tests/export/board.c,
# bench pattern: task switches, interrupts, calls, samples, matched
# messages between cores) at two sizes. Prints events/s, the ratio to
# babeltrace2 and the peak RSS (flat in trace size is the goal; target
# >= 5 M events/s for perfetto). Best of 3 runs each. Rates are per
# CPU second (user + sys): on a shared machine the wall time mostly
# measures the other jobs; the wall time of the best run is shown too.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export HETRACE=${HETRACE:-$here/../build/hetrace}
export TOP=$here/..
SIZES=${BENCH_EXPORT_EVENTS:-1000000 4000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../tests/export/lib.sh
. "$TOP/tests/export/lib.sh"
board_build "$tmp" >/dev/null
# the driver at -O2: only the trace is measured, but make it quickly
cc -std=c99 -O2 -I"$tmp/g" -I"$TOP" -o "$tmp/board" "$TOP/tests/export/board.c" "$tmp/g/barectf.c"

best() { # "cpu_seconds peak_rss_kb wall_seconds": the run with least CPU of 3
	local b="" m="" e="" t r u s x
	for _ in 1 2 3; do
		/usr/bin/time -o "$tmp/time" -f '%U %S %M %e' "$@" >/dev/null 2>&1 || true
		read -r u s r x <<<"$(tail -n 1 "$tmp/time")"
		t=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
		if [ -z "$b" ] || awk -v a="$t" -v b="$b" 'BEGIN { exit !(a < b) }'; then
			b=$t
			m=$r
			e=$x
		fi
	done
	echo "$b $m $e"
}

printf '%-12s %10s %9s %13s %13s %7s %8s %8s %7s\n' format events "MB out" \
	"hetrace ev/s" "bt2 ev/s" ratio "RSS MB" "bt2 RSS" "wall s"
for n in $SIZES; do
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t"
	cp "$tmp/g/metadata" "$tmp/t/"
	"$tmp/board" "$tmp/t" bench "$n" >/dev/null
	ev=$("$HETRACE" info "$tmp/t" | sed -n 's/^total: .* \([0-9]*\) events$/\1/p')
	read -r tb mb _ <<<"$(best babeltrace2 "$tmp/t" -o dummy)"
	for fmt in perfetto chrome-json perfetto+elf; do
		# +elf: function names from an ELF file (here the driver's,
		# which names nothing). The board's records have no
		# func_base and no `addr`: the bias is known from the start,
		# so the names cost a scan of the record classes and the
		# lookups, not a first pass (docs/views.md)
		args=(-f "${fmt%+elf}")
		[ "$fmt" = perfetto+elf ] && args+=(--elf "$tmp/board")
		read -r th mh wh <<<"$(best "$HETRACE" export -q "${args[@]}" "$tmp/t" -o "$tmp/out")"
		bytes=$(stat -c %s "$tmp/out")
		awk -v f="$fmt" -v e="$ev" -v by="$bytes" -v th="$th" -v tb="$tb" \
			-v mh="$mh" -v mb="$mb" -v wh="$wh" 'BEGIN {
			if (th <= 0) th = 0.005
			if (tb <= 0) tb = 0.005
			printf "%-12s %10d %9.1f %13.0f %13.0f %6.1fx %8.1f %8.1f %7.2f\n", f, e,
				by / 1e6, e / th, e / tb, tb / th, mh / 1024, mb / 1024, wh
		}'
	done
	rm -f "$tmp/out"
done
