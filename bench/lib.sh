# Shared start of the benchmark scripts (sourced by bench/*.sh, bash,
# after `set -eu` and `here=$(cd "$(dirname "$0")" && pwd)`):
#   $top      the top of the tree
#   $HETRACE  the CLI to measure (default: build/hetrace)
#   $work     a work directory, removed when the script exits
#   best RUNS CMD...  prints the least wall time, in seconds, of RUNS
#             runs of CMD (its output and exit status are ignored)
#   measure_lttng EVENTS LABEL  records an LTTng-UST trace of about
#             EVENTS events and runs the script's `measure lttng TRACE`
#             on it; says LABEL is skipped when lttng-tools is missing
top=$(cd "$here/.." && pwd)
HETRACE=${HETRACE:-$top/build/hetrace}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

best() {
	local runs=$1 b="" t0 t1 t
	shift
	for _ in $(seq "$runs"); do
		t0=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s.%N)
		t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
		if [ -z "$b" ] || awk -v a="$t" -v b="$b" 'BEGIN { exit !(a < b) }'; then
			b=$t
		fi
	done
	echo "$b"
}

measure_lttng() {
	if ! command -v lttng-sessiond >/dev/null; then
		echo "$2: lttng-tools missing (scripts/deps.sh lttng), skipped"
		return 0
	fi
	# two threads, two events per iteration
	timeout 300 "$top/tests/ctf/print/corpus/ust-record.sh" "$work/ust" \
		$(($1 / 4)) bench >/dev/null
	measure lttng "$work/ust/out/bench"
}
