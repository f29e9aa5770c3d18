#!/usr/bin/env bash
# The reader's memory does not grow with the trace: `hetrace info` and
# `hetrace print` peak at about the same resident size on a 48 MiB and
# a 192 MiB trace (tests/ctf/reader/bigtrace.c). The optimized build is
# measured (AddressSanitizer's own memory would blur the figure). The
# generator's output is checked against babeltrace2 first.
set -eu
H=${HETRACE_OPT:-$HETRACE}
w=$(mktemp -d "${TMPDIR:-/tmp}/ht-mem.XXXXXX")
trap 'rm -rf "$w"' EXIT
cc -O2 -Wall -Wextra -Werror -o "$w/bigtrace" "$TOP/tests/ctf/reader/bigtrace.c"
cc -O2 -Wall -Wextra -Werror -o "$w/maxrss" "$TOP/tests/ctf/reader/maxrss.c"

"$w/bigtrace" "$w/t1" 1 >/dev/null
babeltrace2 "$w/t1" >"$w/bt.txt"
"$H" print "$w/t1" >"$w/ht.txt"
cmp "$w/bt.txt" "$w/ht.txt"
[ "$(wc -l <"$w/ht.txt")" -gt 30000 ]
rm -rf "$w/t1" "$w/bt.txt" "$w/ht.txt"

fail=0
for mb in 48 192; do
	ev=$("$w/bigtrace" "$w/t$mb" "$mb" | sed -n 's/.*, \([0-9]*\) events$/\1/p')
	got=$("$H" info "$w/t$mb" | sed -n 's/^total: .* \([0-9]*\) events$/\1/p')
	[ "$ev" = "$got" ] || { echo "info: $got events, expected $ev"; fail=1; }
	for cmd in info print; do
		kb=$("$w/maxrss" "$H" "$cmd" "$w/t$mb")
		echo "$cmd ${mb} MiB: peak $kb KiB"
		eval "rss_${cmd}_$mb=$kb"
	done
	rm -rf "$w/t$mb"
done
# many streams read at once (one trace, 16 stream files of 8 MiB, as a
# capture of many cores read by several sets at once): each stream
# keeps at most about 4 MiB mapped, not its whole file (was 6 MiB)
"$w/bigtrace" "$w/t8" 8 >/dev/null
mkdir "$w/m16"
cp "$w/t8/metadata" "$w/m16/"
for i in $(seq -w 0 15); do
	cp "$w/t8/stream" "$w/m16/s$i"
done
rm -rf "$w/t8"
for cmd in info print; do
	kb=$("$w/maxrss" "$H" "$cmd" "$w/m16")
	echo "$cmd 16 streams of 8 MiB: peak $kb KiB"
	if [ "$kb" -gt $((16 * 5120)) ]; then
		echo "FAIL: $cmd keeps too much mapped: $kb KiB for 16 streams"
		fail=1
	fi
done
rm -rf "$w/m16"

# flat: at most 3 MiB more on 4 times the data (both traces are larger
# than the window of mapped file the reader keeps per stream, 4 MiB plus
# its margin), and small in absolute
for cmd in info print; do
	small=$(eval echo "\$rss_${cmd}_48")
	big=$(eval echo "\$rss_${cmd}_192")
	if [ "$big" -gt $((small + 3072)) ] || [ "$big" -gt 32768 ]; then
		echo "FAIL: $cmd grows: $small KiB on 48 MiB, $big KiB on 192 MiB"
		fail=1
	fi
done
exit $fail
