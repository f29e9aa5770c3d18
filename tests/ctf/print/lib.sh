# SPDX-License-Identifier: MIT
# Helpers of the print tests: compare `hetrace print` with babeltrace2.
# Sourced by tests/ctf/print/test-*.sh (bash, set -eu) with $HETRACE and $TOP.

W=$(mktemp -d "${TMPDIR:-/tmp}/ht-print.XXXXXX")
fails=0
checks=0
ht_print_cleanup() { rm -rf "$W"; }
trap ht_print_cleanup EXIT

command -v babeltrace2 >/dev/null || {
	echo "babeltrace2 is missing (scripts/deps.sh check)"
	exit 1
}

# Every option set the output must be identical for.
OPTSETS=(
	""
	"--clock-seconds"
	"--clock-cycles"
	"--clock-date"
	"--clock-gmt"
	"--clock-date --clock-gmt"
	"--clock-seconds --no-delta"
	"--no-delta"
	"--names=all"
	"--names=none"
	"--names=payload"
	"--names=context,scope"
	"--names=payload,context,scope,header"
	"--names=header --no-delta --clock-cycles"
	"--fields=all"
	"--fields=trace,loglevel,emf"
	"--fields=all --names=all"
	"--fields=trace:domain,trace:vpid --names=header"
)

# check TRACE... [-- OPTIONS...]: stdout identical, and the same
# "WARNING: Tracer ..." lines on stderr.
check() {
	local args=() opts=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		args+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	opts=("$@")
	checks=$((checks + 1))
	if ! babeltrace2 "${opts[@]}" "${args[@]}" >"$W/bt.out" 2>"$W/bt.err"; then
		echo "babeltrace2 failed: ${opts[*]} ${args[*]}"
		tail -n 5 "$W/bt.err"
		fails=$((fails + 1))
		return 0
	fi
	local rc=0
	"$HETRACE" print "${opts[@]}" "${args[@]}" >"$W/ht.out" 2>"$W/ht.err" || rc=$?
	if [ "$rc" != 0 ]; then
		echo "FAIL: hetrace print exited $rc: ${opts[*]} ${args[*]}"
		tail -n 5 "$W/ht.err"
		fails=$((fails + 1))
		return 0
	fi
	if ! cmp -s "$W/bt.out" "$W/ht.out"; then
		echo "FAIL: stdout differs: ${opts[*]} ${args[*]}"
		diff "$W/bt.out" "$W/ht.out" | head -n 8 | cut -c 1-300
		fails=$((fails + 1))
		return 0
	fi
	# babeltrace2's own diagnostics are logging lines; its messages to
	# the user are the discarded-data warnings and the negative time one
	# (hetrace also reports packets lost before a stream's first packet,
	# numbered past 0, of which babeltrace2 says nothing)
	grep -E '^(WARNING: Tracer|\[warning\])' "$W/bt.err" >"$W/bt.warn" || true
	grep -E '^(WARNING: Tracer|\[warning\])' "$W/ht.err" |
		grep -v "^WARNING: Tracer discarded [0-9]* packets\? before \[.*\] (the stream's first packet is number " >"$W/ht.warn" || true
	if ! cmp -s "$W/bt.warn" "$W/ht.warn"; then
		echo "FAIL: discarded warnings differ: ${opts[*]} ${args[*]}"
		diff "$W/bt.warn" "$W/ht.warn" | head -n 8 | cut -c 1-300
		fails=$((fails + 1))
		return 0
	fi
	if grep -Ev '^(WARNING: Tracer|\[warning\])' "$W/ht.err" | grep -q .; then
		echo "FAIL: unexpected stderr: ${opts[*]} ${args[*]}"
		head -n 5 "$W/ht.err"
		fails=$((fails + 1))
	fi
}

# check_all TRACE...: check with every option set, and in two time zones.
check_all() {
	local o
	for o in "${OPTSETS[@]}"; do
		# shellcheck disable=SC2086
		check "$@" -- $o
	done
	TZ=America/Montreal check "$@" --
	TZ=Asia/Kolkata check "$@" -- --clock-date
}

# barectf_build NAME: generates config tests/ctf/print/corpus/NAME.yaml and
# builds its driver NAME.c into $W/NAME/NAME.
barectf_build() {
	local d="$W/$1"
	mkdir -p "$d"
	(cd "$d" && barectf generate "$TOP/tests/ctf/print/corpus/$1.yaml" >/dev/null)
	cc -O1 -w -I"$d" -I"$TOP/tests/ctf/print/corpus" -o "$d/$1" \
		"$TOP/tests/ctf/print/corpus/$1.c" "$d/barectf.c"
}

# check_cut WHAT TRACE MESSAGE EVENT N: `hetrace print TRACE` of a
# trace whose last record is damaged exits 1 within 20 s and 1000 MiB
# (bounded, from tests/lib.sh), says MESSAGE (a grep pattern) on
# stderr and prints the N good records of class EVENT before it.
check_cut() {
	local what=$1 trace=$2 msg=$3 event=$4 n=$5 rc=0
	bounded 20 1000 "$HETRACE" print "$trace" >"$W/cut.out" 2>"$W/cut.err" || rc=$?
	checks=$((checks + 1))
	if [ "$rc" != 1 ]; then
		echo "FAIL: $what: exit $rc, not 1"
		fails=$((fails + 1))
	fi
	checks=$((checks + 1))
	if ! grep -q "$msg" "$W/cut.err"; then
		echo "FAIL: $what: message"
		cat "$W/cut.err"
		fails=$((fails + 1))
	fi
	checks=$((checks + 1))
	if [ "$(grep -c " $event: " "$W/cut.out")" != "$n" ]; then
		echo "FAIL: $what: the $n good records are not all printed"
		cat "$W/cut.out"
		fails=$((fails + 1))
	fi
}

finish() {
	echo "$checks checks, $fails failed"
	[ "$fails" = 0 ]
}
