# Shared by the tests/sync tests of broken captures (sourced after
# tests/lib.sh):
#   run NAME WANT ARGS...  `hetrace sync ARGS...` under 20 s and 4 GB,
#                          stdout in $w/NAME.out, stderr in $w/NAME.err;
#                          a failure unless it exits WANT, or on any
#                          sanitizer report
#   has NAME EXT PATTERN   a failure unless $w/NAME.EXT matches PATTERN
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
