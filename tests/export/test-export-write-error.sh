#!/usr/bin/env bash
# A write error during `export` (both formats) or `report` leaves no
# file that looks like an output: everything goes to a temporary file
# next to the output, renamed over it only once whole
# (host/export/out-file.h). A file size limit (`ulimit -f`, SIGXFSZ
# ignored so that write() fails with EFBIG) and, when this runs as
# root, a full 64 KiB tmpfs (ENOSPC): exit 1, a message naming the
# output and the reason, no output file afterwards or the previous one
# there untouched, no temporary file left. Then the same exports with
# room: the output replaced, with the usual mode.
set -u
cd "$(dirname "$0")"
. ../lib.sh
. ./lib.sh

board_build "$w" || exit 1
mkdir -p "$w/t" "$w/out"
cp "$w/g/metadata" "$w/t/"
"$w/board" "$w/t" bench 30000 >/dev/null || exit 1

cmd() { # KIND OUTPUT: the command writing OUTPUT
	case $1 in
	perfetto | chrome-json) echo "$HETRACE" export -f "$1" "$w/t" -o "$2" ;;
	report) echo "$HETRACE" report "$w/t" -o "$2" ;;
	esac
}
# check WHAT DIR REASON: the outputs in DIR after failing runs
check() {
	local what=$1 dir=$2 reason=$3 kind
	for kind in perfetto chrome-json report; do
		# a previous output to keep, and none at all
		echo "previous $kind" >"$dir/old.$kind"
		for name in "old.$kind" "new.$kind"; do
			# shellcheck disable=SC2046
			(
				ulimit -f "$LIMIT_KB"
				trap '' XFSZ
				exec timeout 60 $(cmd "$kind" "$dir/$name")
			) >/dev/null 2>"$w/err"
			rc=$?
			[ "$rc" = 1 ] || bad "$what $kind $name: exit $rc: $(cat "$w/err")"
			grep -q "$dir/$name.*$reason" "$w/err" ||
				bad "$what $kind $name: message: $(cat "$w/err")"
		done
		[ "$(cat "$dir/old.$kind")" = "previous $kind" ] ||
			bad "$what $kind: the previous output changed: $(head -c 100 "$dir/old.$kind" | tr -cd "[:print:]")"
		[ ! -e "$dir/new.$kind" ] || bad "$what $kind: a failed output exists ($(stat -c %s "$dir/new.$kind") bytes)"
	done
	left=$(find "$dir" -mindepth 1 ! -name 'old.*')
	[ -z "$left" ] || bad "$what: files left: $left"
}

LIMIT_KB=64
check "ulimit -f" "$w/out" "File too large"

# a full file system (root only: mounting a small tmpfs)
mkdir -p "$w/full"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs "$w/full" 2>/dev/null; then
	trap 'umount "$w/full" 2>/dev/null; rm -rf "$w"' EXIT
	LIMIT_KB=unlimited
	check "full tmpfs" "$w/full" "No space left on device"
	umount "$w/full"
else
	echo "note: not root or no tmpfs mount: the full file system case is not run"
fi

# with room: written, the previous output replaced, mode 0666 & ~umask
umask 022
for kind in perfetto chrome-json report; do
	echo "previous" >"$w/out/old.$kind"
	# shellcheck disable=SC2046
	$(cmd "$kind" "$w/out/old.$kind") >/dev/null 2>"$w/err" || bad "$kind: exit $?: $(cat "$w/err")"
	[ "$(stat -c '%a' "$w/out/old.$kind")" = 644 ] || bad "$kind: mode $(stat -c '%a' "$w/out/old.$kind")"
	[ "$(stat -c %s "$w/out/old.$kind")" -gt 100000 ] || bad "$kind: not replaced"
done
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$w/out/old.chrome-json" || bad "chrome-json: not JSON"
left=$(find "$w/out" -mindepth 1 ! -name 'old.*')
[ -z "$left" ] || bad "files left: $left"
exit $fail
