# Shared start of the test scripts (sourced by tests/*/test-*.sh, bash,
# after `set -u` or `set -eu`):
#   $HETRACE    must be set (tests/run.sh sets it)
#   $w          a work directory, removed when the script exits
#   bad MSG...  prints "FAIL: MSG..." and sets fail=1; the script goes on
#               and ends with `exit $fail`
: "${HETRACE:?}"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# expect_exit WHAT CODE CMD...: runs CMD, its stdout in $w/out and its
# stderr in $w/err; a failure when it does not exit with CODE.
expect_exit() {
	local what=$1 want=$2 rc
	shift 2
	"$@" >"$w/out" 2>"$w/err"
	rc=$?
	[ "$rc" = "$want" ] || bad "$what: exit $rc, expected $want"
}

# expect_err WHAT PATTERN: a failure when no line of $w/err matches
# PATTERN (a grep basic regular expression); the message shows $w/err.
expect_err() {
	grep -q -- "$2" "$w/err" || bad "$1: message: $(cat "$w/err")"
}

# usage_case EXPECTED-TEXT SUBCOMMAND ARGS...: `hetrace SUBCOMMAND
# ARGS...` is a usage error: exit 2, EXPECTED-TEXT on stderr.
usage_case() {
	local want=$1
	shift
	expect_exit "$*" 2 "$HETRACE" "$@"
	grep -q -- "$want" "$w/err" || bad "$*: no '$want' in: $(head -2 "$w/err")"
}

# bt2_reads WHAT TRACE: a failure when babeltrace2 cannot read TRACE.
bt2_reads() {
	babeltrace2 "$2" >/dev/null 2>"$w/bt.err" ||
		bad "$1: $2 unreadable by babeltrace2: $(head -3 "$w/bt.err")"
}

# wait_for_dir DIR: waits up to 5 s for DIR to exist.
wait_for_dir() {
	for _ in $(seq 100); do
		[ -d "$1" ] && return 0
		sleep 0.05
	done
}

# bounded SECS MB CMD...: runs CMD under a time limit and a memory bound
# of MB megabytes: the address space (ulimit -v), or for a sanitized
# binary, which reserves its shadow memory as address space, the
# resident size (ASan's hard_rss_limit_mb).
bounded() {
	local secs=$1 mb=$2
	shift 2
	if grep -qa __asan_init "$1" 2>/dev/null; then
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:hard_rss_limit_mb=$mb" timeout "$secs" "$@"
	else
		(
			ulimit -v $((mb * 1024))
			exec timeout "$secs" "$@"
		)
	fi
}

# bounded_expect WHAT WANT MB CMD...: CMD within 20 s and MB MiB
# (bounded), its stdout in $w/out and its stderr in $w/err; a failure
# (bad, naming WHAT) unless it exits with WANT.
bounded_expect() {
	local what=$1 want=$2 mb=$3 rc
	shift 3
	bounded 20 "$mb" "$@" >"$w/out" 2>"$w/err"
	rc=$?
	[ "$rc" = 124 ] && bad "$what: still running after 20 s"
	[ "$rc" = "$want" ] || bad "$what: exit $rc, expected $want: $(head -c 300 "$w/err")"
}
