#!/usr/bin/env bash
# Bad and hostile CTF 2 metadata (bad2.py writes each trace): JSON
# syntax errors at their line:column, fragments out of order, unknown
# and unsupported field classes named (128-bit integers, odd bit orders,
# unknown encodings), optionals whose selector is missing or not an
# integer, roles on signed variable-length integers, bad
# properties at their JSON path, unresolvable field locations, JSON
# without record separators and binary data named for what they are;
# JSON nested thousands deep, field classes nested past 64, an alias
# bomb and 300000 members end in bounded time and memory. Each: exit 1
# from `print` and `info`, "FILE:LINE:COL: fragment N: JSON-PATH:
# message" (the guard: 20 s and 1 GiB); the good trace the cases come
# from is read.
set -u
. "$TOP/tests/lib.sh"

python3 "$TOP/tests/ctf/ctf2/bad2.py" "$w/t" || bad "bad2.py failed"

run() { # WHAT WANT CMD...: tests/lib.sh's bounded_expect in 1024 MiB
	bounded_expect "$1" "$2" 1024 "${@:3}"
}

cd "$w/t" || exit 1
run "good print" 0 "$HETRACE" print good
[ "$(wc -l <"$w/out")" = 5 ] || bad "good: $(wc -l <"$w/out") events, expected 5"
babeltrace2 good18 >"$w/bt.out" 2>/dev/null
run "good print" 0 "$HETRACE" print good
cmp -s "$w/out" "$w/bt.out" || bad "good: differs from babeltrace2 on the CTF 1.8 twin"
n=0
while IFS=$'\t' read -r name pat; do
	n=$((n + 1))
	for cmd in print info; do
		run "$name $cmd" 1 "$HETRACE" "$cmd" "$name"
		grep -qE -- "^hetrace $cmd: (cannot decode packet: file=)?$name/.*$pat" "$w/err" ||
			bad "$name $cmd: message: $(head -c 300 "$w/err")"
	done
done <cases
[ "$n" -gt 20 ] || bad "only $n cases"
# one bad trace among good ones: the set is refused, named
run "bad among good" 1 "$HETRACE" print good optional-no-selector
expect_err "bad among good" "optional-no-selector/metadata:.*cannot find the field 'nothere'"
exit $fail
