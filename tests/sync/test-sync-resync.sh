#!/usr/bin/env bash
# hetrace sync on what hetrace sync wrote (env sync_reference): refused
# with exit 1 naming the trace's metadata, whether given as the capture
# or found inside one; no output written; in bounded time and memory.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
py=/usr/bin/python3
. "$here/sync-lib.sh"

$py "$here/mkcapture.py" "$w/cap" "$w/truth.json"
"$HETRACE" sync "$w/cap" -o "$w/synced" >/dev/null 2>"$w/err" || bad "sync: $(cat "$w/err")"
grep -aq 'sync_reference = "arm0"' "$w/synced/metadata" || bad "no sync_reference in the env"

for c in synced inside; do
	[ $c = inside ] && { cp -r "$w/cap" "$w/inside"; cp -r "$w/synced" "$w/inside/merged"; }
	expect_exit "$c" 1 bounded 20 4000 "$HETRACE" sync "$w/$c" -o "$w/$c-again"
	expect_err "$c" "$c.*/metadata: already synchronized by hetrace sync (env sync_reference = \"arm0\")"
	[ -e "$w/$c-again" ] && bad "$c: an output was written"
	grep -q 'AddressSanitizer\|runtime error' "$w/err" && bad "$c: sanitizer report"
done
# --no-merge and --allow-unsynced refuse it too
expect_exit no-merge 1 "$HETRACE" sync "$w/synced" --no-merge
expect_err no-merge 'already synchronized'
expect_exit allow 1 "$HETRACE" sync "$w/synced" -o "$w/x" --allow-unsynced
expect_err allow 'already synchronized'

[ $fail = 0 ] && echo "test-sync-resync: ok"
exit $fail
