# Sourced by the tests/gen tests of configurations gen must refuse
# (after tests/lib.sh):
#   gen_refused WHAT CFG PATTERN   `hetrace gen CFG` with the optimized
#       build, within 20 s and 512 MB (bounded), must exit 1 with at most
#       5 lines on stderr, one matching PATTERN, and write nothing; its
#       stderr stays in $w/err.
gen_refused() {
	local what=$1 cfg=$2 want=$3 rc=0
	rm -rf "$w/o"
	bounded 20 512 "${HETRACE_OPT:-$HETRACE}" gen "$cfg" -o "$w/o" \
		>"$w/out.txt" 2>"$w/err" || rc=$?
	[ "$rc" = 1 ] || bad "$what: exit $rc, expected 1 ($(head -c 300 "$w/err"))"
	grep -q -- "$want" "$w/err" || bad "$what: message: $(head -c 300 "$w/err")"
	[ "$(wc -l <"$w/err")" -le 5 ] || bad "$what: $(wc -l <"$w/err") messages"
	[ -e "$w/o" ] && bad "$what: wrote into the output directory"
	return 0
}
