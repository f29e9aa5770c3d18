#!/usr/bin/env bash
# A generated tracer whose back end fills and stays full (discarding
# mode): every record not written is counted in events_discarded as
# barectf 3.1 counts it, and the platform's final packet carries the
# count: babeltrace2's "Tracer discarded N events" plus the records
# printed equal the records traced, for hetrace's and barectf's output
# of one configuration (tests/gen/runtime/full.c; their record headers
# differ, so do the numbers of records a packet holds).
set -eu
cd "$(dirname "$0")"
. ../lib.sh
CFLAGS="-std=c99 -pedantic -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined"

"$HETRACE" gen runtime/rt.yaml -o "$w/h" >/dev/null
gens=h
if command -v barectf >/dev/null; then
	mkdir -p "$w/b"
	(cd "$w/b" && barectf generate "$OLDPWD/runtime/rt.yaml" >/dev/null) && gens="h b"
fi

# run GEN N MAX_PACKETS: discarded count as babeltrace2 reports it.
run() {
	local g=$1 t=$w/$1/t-$2-$3
	mkdir -p "$t"
	cp "$w/$g/metadata" "$t/"
	timeout 20 "$w/$g/full" "$t/main" "$2" "$3" >"$t.out" || bad "$g: driver exited $?"
	timeout 20 babeltrace2 "$t" >"$t.txt" 2>"$t.err" || bad "$g: babeltrace2 failed: $(head -3 "$t.err")"
	ticks=$(grep -c ' tick: ' "$t.txt" || true)
	disc=$(cat "$t.txt" "$t.err" | sed -n 's/.*WARNING: Tracer discarded \([0-9]*\) events.*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }')
	[ "$disc" = "$(awk '$1 == "discarded" { print $2 }' "$t.out")" ] ||
		bad "$g $2/$3: babeltrace2 reports $disc discarded, the stream counted $(cat "$t.out")"
	[ $((ticks + disc)) = "$2" ] || bad "$g $2/$3: $ticks printed + $disc discarded != $2 traced"
	# Nothing else lost: the first records are the first ticks.
	[ "$(sed -n 's/.* tick: .*{ n = \([0-9]*\) }$/\1/p' "$t.txt" | head -n "$ticks" | tr '\n' ' ')" = "$(seq -s ' ' 0 $((ticks - 1))) " ] ||
		bad "$g $2/$3: the kept ticks are not the first ones"
}

# barectf's output has static functions a driver may not use.
extra_h="" extra_b="-Wno-unused-function"
for g in $gens; do
	extra=extra_$g
	# shellcheck disable=SC2086
	cc $CFLAGS ${!extra} -I"$w/$g" -I. -o "$w/$g/full" runtime/full.c "$w/$g/barectf.c"
	for case in "200 3" "1000 1" "50 10"; do
		# shellcheck disable=SC2086
		run "$g" $case
		echo "$g $case: $ticks printed + $disc discarded"
	done
	# A back end that never fills: nothing discarded, no warning.
	[ "$disc" = 0 ] || bad "$g: discarded $disc with room for everything"
done
exit $fail
