#!/usr/bin/env bash
# The sync rounds over the line keep causality when an answer comes
# late: a fake target (fake-target.py latesync) answers the third sync
# request 1.3 s late (after the host's 1 s timeout), and the answers
# after it wait behind it. The late answer then arrives while the next
# round waits: it must not be paired with that round's request (its
# target time is earlier than that request). Every traced pair is
# checked against the target's own stamps: sync_req(n) at or before the
# target's t(n), sync_recv(n + 1) at or after it.
set -u
cd "$(dirname "$0")"
: "${TOP:=$(cd ../../.. && pwd)}"
. ../../lib.sh
. ./serial-lib.sh

# Any TSDL that parses: the native target's (generated, not built).
"$HETRACE" gen "$TOP/tests/runtime/serial/native-target.yaml" -o "$w/gen" >/dev/null ||
	bad "gen"
python3 fake-target.py "$w/late.sock" latesync "$w/gen/metadata" >"$w/target.txt" &
pids="$pids $!"
wait_sock "$w/late.sock"
cap=$w/cap
expect_exit "late" 0 bounded 30 200 "$HETRACE" record --serial "unix:$w/late.sock" \
	-o "$cap" --seconds 3
expect_err "late" "no reply to 'sync' in 1.0 s"
[ "$(json sync timeouts)" = 1 ] || bad "late: timeouts $(json sync timeouts)"
[ "$(json sync unused)" = 1 ] || bad "late: unused $(json sync unused)"
[ "$(json sync rounds)" -ge 10 ] || bad "late: rounds $(json sync rounds)"
babeltrace2 --clock-cycles "$cap/host" >"$w/host.txt" 2>"$w/bt.err" ||
	bad "late: babeltrace2: $(head -3 "$w/bt.err")"
python3 - "$w/target.txt" "$w/host.txt" <<'PY' || bad "late: causality"
import re, sys
t = {int(n): int(v) for _, n, v in (l.split() for l in open(sys.argv[1]))}
pairs = 0
for l in open(sys.argv[2]):
    m = re.match(r"\[(\d+)\] .* (sync_req|sync_recv): .*seq = (\d+), slave = 3 }", l)
    if not m:
        continue
    c, ev, seq = int(m[1]), m[2], int(m[3])
    n = seq if ev == "sync_req" else seq - 1
    if ev == "sync_req" and c > t[n] or ev == "sync_recv" and c < t[n]:
        print(f"{ev}({seq}) at {c}, the target's t({n}) {t[n]}")
        sys.exit(1)
    pairs += 1
assert pairs >= 20, pairs
PY
exit $fail
