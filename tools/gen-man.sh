#!/usr/bin/env bash
# Writes the man pages hetrace.1 and hetrace-COMMAND.1 for every
# subcommand into OUTDIR, with Debian's help2man, from the help texts
# (`hetrace --help`, `hetrace COMMAND --help`): the pages say what the
# program says. Deterministic: the date is SOURCE_DATE_EPOCH's (help2man
# reads it), the last commit's by default.
# Usage: tools/gen-man.sh HETRACE OUTDIR
#   HETRACE: a hetrace that runs here (for a cross build, a native one
#   of the same tree, or the target's under an emulator).
set -eu
hetrace=$1
outdir=$2
command -v help2man >/dev/null || {
	echo "gen-man.sh: help2man is missing (Debian package help2man; make deps)" >&2
	exit 1
}
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$top" log -1 --format=%ct 2>/dev/null || echo 0)
	export SOURCE_DATE_EPOCH
fi
# shellcheck disable=SC2086
version=$($hetrace --version | sed -n 's/^hetrace //p')
# shellcheck disable=SC2086
table=$($hetrace --help | sed -n 's/^  \([a-z][a-z0-9_]*\)  *\(.*\)/\1 \2/p')
[ -n "$table" ] || {
	echo "gen-man.sh: no subcommands in '$hetrace --help'" >&2
	exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$outdir"

# help2man runs PROGRAM --help: a script per page that prints the help
# as help2man reads it. "usage:" becomes its "Usage:" (the SYNOPSIS), on
# one line with its indented continuation lines, and an option whose
# value runs into its description by one space gets the two spaces that
# separate them elsewhere.
wrapper() { # FILE ARGS...: the script running `hetrace ARGS --help`
	local file=$1
	shift
	cat >"$file" <<SCRIPT
#!/bin/sh
$hetrace $* --help | sed -E -e '/^usage:/{s/^usage:/Usage:/;:a;N;s/\\n {2,}/ /;ta;P;D}' \\
	-e 's/^( {2}(-[a-zA-Z], )?| {6})(--[a-z0-9-]+( [A-Z][A-Za-z0-9_.=|,-]*)?) ([a-z(])/\\1\\3  \\5/'
SCRIPT
	chmod +x "$file"
}

seealso="$work/see-also"
{
	echo "[SEE ALSO]"
	sep=""
	while read -r name _; do
		printf '%s\\fBhetrace\\-%s\\fR(1)' "$sep" "$name"
		sep=", "
	done <<<"$table"
	echo
} >"$seealso"

wrapper "$work/hetrace"
help2man --no-info --no-discard-stderr --version-string="$version" \
	--name="tracing for heterogeneous embedded systems" \
	--include="$seealso" --output="$outdir/hetrace.1" "$work/hetrace"

while read -r name summary; do
	wrapper "$work/hetrace-$name" "$name"
	{
		echo "[SEE ALSO]"
		echo '\fBhetrace\fR(1)'
	} >"$work/see-hetrace"
	help2man --no-info --no-discard-stderr --version-string="$version" \
		--name="$summary" --include="$work/see-hetrace" \
		--output="$outdir/hetrace-$name.1" "$work/hetrace-$name"
done <<<"$table"
