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
