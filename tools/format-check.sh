#!/usr/bin/env bash
# Fails, listing the files, when a C file git tracks differs from what
# clang-format makes of it (.clang-format). `make format` fixes them.
set -eu
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || {
	echo "format-check: clang-format is not installed (scripts/deps.sh check installs it)" >&2
	exit 2
}
bad=$(git ls-files -- '*.c' '*.h' | while read -r f; do
	clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"
done)
if [ -n "$bad" ]; then
	echo "format-check: not formatted as .clang-format says (run 'make format'):" >&2
	printf '  %s\n' $bad >&2
	exit 1
fi
echo "format-check: $(git ls-files -- '*.c' '*.h' | wc -l) files formatted"
