#!/usr/bin/env bash
# hetrace sync (scan, fit, merge, write) against babeltrace2 reading,
# muxing and writing the same capture as a CTF trace (`-o ctf -w DIR`,
# the anchor; `-o dummy`, muxing without writing, on an extra line), on
# synthetic captures (bench/merge/gen.c): 64 cores (64 streams) at two
# sizes, with the peak anonymous and file-mapped memory of each run
# (streaming: the anonymous memory must stay flat as the trace grows),
# and the handshake pairs per second end to end on a two-core capture.
# Rates are per CPU second (user + system). Goals: hetrace >= 20 M
# events/s and >= 8x the anchor; >= 1 M pairs/s with the merge written.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
cc -O2 -std=c11 -Wall -Wextra -Werror -o "$work/gen" "$here/merge/gen.c"

# run CMD...: prints "cpu_seconds peak_anon_kB peak_file_kB": user +
# system time (the machine is shared: wall time says more about the
# neighbours), the memory polled from /proc
run() {
	local tpid pid="" a f ma=0 mf=0
	/usr/bin/time -f "%U %S" -o "$work/time" "$@" >/dev/null 2>&1 &
	tpid=$!
	while kill -0 "$tpid" 2>/dev/null; do
		[ -z "$pid" ] && pid=$(pgrep -P "$tpid" | head -1 || true)
		if [ -n "$pid" ]; then
			a=$(awk '/^RssAnon/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
			f=$(awk '/^RssFile/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
			[ -n "$a" ] && [ "$a" -gt "$ma" ] && ma=$a
			[ -n "$f" ] && [ "$f" -gt "$mf" ] && mf=$f
		fi
		sleep 0.01
	done
	wait "$tpid" || true
	# (the last line: time puts "Command exited with non-zero status"
	# before the times of a command that failed)
	awk -v ma="$ma" -v mf="$mf" 'END { printf "%.3f %d %d\n", $1 + $2, ma, mf }' "$work/time"
}
least_cpu() { # CMD...: the run with least CPU of 5 (its memory too)
	local i r b=""
	for i in 1 2 3 4 5; do
		r=$(run "$@")
		if [ -z "$b" ] || awk -v x="${r%% *}" -v y="${b%% *}" 'BEGIN { exit !(x < y) }'; then
			b=$r
		fi
	done
	echo "$b"
}

printf '%-40s %12s %12s %8s\n' "merge (anchor: babeltrace2 -o ctf)" babeltrace2 hetrace ratio
declare -A anon
for per in 20000 80000; do
	cap=$work/cap-$per
	n=$("$work/gen" "$cap" 64 "$per")
	mb=$(du -sm "$cap" | cut -f1)
	b=$(least_cpu babeltrace2 "$cap" -o ctf -w "$work/bt-$per")
	d=$(least_cpu babeltrace2 "$cap" -o dummy)
	h=$(least_cpu "$HETRACE" sync "$cap" -o "$work/out-$per" --force)
	"$HETRACE" sync "$cap" -o "$work/out-$per" --force >"$work/sync.txt" 2>&1 ||
		{ echo "hetrace sync failed:"; tail -5 "$work/sync.txt"; exit 1; }
	bt=${b%% *}
	ht=${h%% *}
	set -- $h
	anon[$per]=$2
	printf '%-40s %12s %12s %8s\n' "64 streams, $n events ($mb MB): events/s" \
		"$(awk -v n="$n" -v t="$bt" 'BEGIN { printf "%.2f M", n / t / 1e6 }')" \
		"$(awk -v n="$n" -v t="$ht" 'BEGIN { printf "%.2f M", n / t / 1e6 }')" \
		"$(awk -v a="$bt" -v b="$ht" 'BEGIN { printf "%.2fx", a / b }')"
	printf '%-40s %12s %12s\n' "  peak memory: anonymous / file-mapped" \
		"$(set -- $b; echo "$(($2 / 1024)) / $(($3 / 1024)) MB")" \
		"$(echo "$(($2 / 1024)) / $(($3 / 1024)) MB")"
	printf '%-40s %12s %12s %8s\n' "  babeltrace2 -o dummy (no writing)" \
		"$(awk -v n="$n" -v t="${d%% *}" 'BEGIN { printf "%.2f M", n / t / 1e6 }')" "" \
		"$(awk -v a="${d%% *}" -v b="$ht" 'BEGIN { printf "%.2fx", a / b }')"
	rm -rf "$work/out-$per" "$work/bt-$per"
done
printf '%-40s %12s %12s %8s\n' "hetrace anonymous memory, 4x the events" \
	"${anon[20000]} kB" "${anon[80000]} kB" \
	"$(awk -v a="${anon[20000]}" -v b="${anon[80000]}" 'BEGIN { printf "%.2f", b / a }')"

# pairs per second: 2 cores, a handshake round every 1.5 us
cap=$work/pairs
"$work/gen" "$cap" 2 1000000 1500 >/dev/null
# (the pairs column of core1's row, the second last; the rows of its
# pieces, if any, follow it)
pairs=$("$HETRACE" sync "$cap" --no-merge | awk '$1 == "core1" { print $(NF - 1); exit }')
f=$(least_cpu "$HETRACE" sync "$cap" --no-merge)
m=$(least_cpu "$HETRACE" sync "$cap" -o "$work/pairs-out" --force)
printf '%-40s %12s %12s %8s\n' "pairs/s end to end ($pairs pairs)" "" \
	"$(awk -v n="$pairs" -v t="${f%% *}" 'BEGIN { printf "%.2f M", n / t / 1e6 }')" ">=1M"
printf '%-40s %12s %12s %8s\n' "  with the merge written" "" \
	"$(awk -v n="$pairs" -v t="${m%% *}" 'BEGIN { printf "%.2f M", n / t / 1e6 }')" ">=1M"
