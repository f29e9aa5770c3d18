#!/usr/bin/env bash
# Runs every benchmark (bench/*.sh but this one and lib.sh, their
# shared start); each prints its own table of hetrace against its
# anchor, as ratios.
#
# The tables also go to bench/results.md, the one place the documents
# cite figures from: a header saying what produced it (command, date,
# commit, machine), then one section per benchmark ("## print") with its
# output verbatim. The file is written under a temporary name and
# renamed at the end, so an interrupted run leaves the previous results
# whole; a benchmark that fails keeps its section, marked with its exit
# status.
# usage: bench/run.sh [BUILD]   (BUILD: the build directory, default build)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILD=${1:-build}
export HETRACE=${HETRACE:-$here/../$BUILD/hetrace}
results=$here/results.md

# The commit is read before the run: the results describe the tree the
# benchmarks were built from, and results.md itself does not count as a
# change to it.
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] &&
	[ -n "$(git -C "$top" status --porcelain -- . ':!bench/results.md' 2>/dev/null)" ]; then
	commit="$commit (with uncommitted changes)"
fi
work=$(mktemp -d)
tmp=$(mktemp "$here/.results.md.XXXXXX")
trap 'rm -rf "$work" "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
{
	echo "# Benchmark results"
	echo
	echo "Written by \`bench/run.sh $BUILD\` (what \`make bench\` runs). Each"
	echo "section is the output of the benchmark it is named after: hetrace"
	echo "and its anchor measured in the same run."
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- commit: $commit"
	echo "- machine: $(nproc) CPUs, ${cpu:-CPU model unknown}"
	echo "- load average at start: $(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo unknown)"
} >"$tmp"

status=0
for b in "$here"/*.sh; do
	name=$(basename "$b" .sh)
	case $name in run | lib) continue ;; esac
	echo "== $name"
	"$b" | tee "$work/out"
	rc=${PIPESTATUS[0]}
	echo
	{
		echo
		echo "## $name"
		echo
		echo '```'
		cat "$work/out"
		echo '```'
		if [ "$rc" -ne 0 ]; then
			echo
			echo "**Failed** (exit status $rc): the table above is incomplete."
		fi
	} >>"$tmp"
	[ "$rc" -eq 0 ] || status=1
done

chmod 644 "$tmp"
mv -f "$tmp" "$results"
echo "results: $results"
exit $status
