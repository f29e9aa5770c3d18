#!/usr/bin/env bash
# Runs every benchmark (bench/*.sh but this one); each prints its own
# table of hetrace against its anchor, as ratios.
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-build}
export HETRACE=${HETRACE:-$here/../$BUILD/hetrace}
status=0
for b in "$here"/*.sh; do
	[ "$(basename "$b")" = run.sh ] && continue
	echo "== $(basename "$b" .sh)"
	"$b" || status=1
	echo
done
exit $status
