# Shared by the tests/sync tests of broken captures (sourced after
# tests/lib.sh):
#   run NAME WANT ARGS...  `hetrace sync ARGS...` under 20 s and 4 GB,
#                          stdout in $w/NAME.out, stderr in $w/NAME.err;
#                          a failure unless it exits WANT, or on any
#                          sanitizer report
#   has NAME EXT PATTERN   a failure unless $w/NAME.EXT matches PATTERN
#   sync_way NAME WAY WANT VAR CAPTURE
#                          `hetrace sync CAPTURE` under 20 s and 2 GB, with
#                          VAR=1 in its environment unless VAR is empty,
#                          writing $w/NAME.WAY (the trace), .json (the
#                          report), .out and .err; a failure unless it
#                          exits WANT
run() {
	local name=$1 want=$2 rc=0
	shift 2
	bounded 20 4000 "$HETRACE" sync "$@" \
		>"$w/$name.out" 2>"$w/$name.err" || rc=$?
	[ "$rc" = "$want" ] || bad "$name: exit $rc, want $want: $(head -3 "$w/$name.err")"
	grep -q 'AddressSanitizer\|runtime error' "$w/$name.err" &&
		bad "$name: sanitizer report: $(grep -m2 'runtime error\|Sanitizer' "$w/$name.err")"
	return 0
}
has() { grep -q -- "$3" "$w/$1.$2" || bad "$1: no '$3' in $2: $(head -5 "$w/$1.$2")"; }
sync_way() {
	local name=$1 way=$2 want=$3 var=$4 cap=$5 rc=0
	(
		if [ -n "$var" ]; then
			export "$var=1"
		fi
		bounded 20 2000 "$HETRACE" sync "$cap" \
			-o "$w/$name.$way" --report "$w/$name.$way.json" \
			>"$w/$name.$way.out" 2>"$w/$name.$way.err"
	) || rc=$?
	[ "$rc" = "$want" ] ||
		bad "$name ($way): exit $rc, want $want: $(head -3 "$w/$name.$way.err")"
	return 0
}
