#!/usr/bin/env bash
# hetrace sync on a synthetic three-core capture (mkcapture.py: a 1 GHz
# master, a big-endian 200 MHz DSP whose 32-bit timestamps wrap, a
# 32 kHz MCU): the merged trace, read by babeltrace2's Python bindings,
# has every event with every field, each within its tolerance of the
# true time, no message received before it was sent, the discarded
# events and the env (check-merge.py); hetrace's reader reads it too;
# the stdout table and the JSON report say what was fitted.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
py=/usr/bin/python3

$py "$here/mkcapture.py" "$w/cap" "$w/truth.json"
"$HETRACE" sync "$w/cap" -o "$w/out" --report "$w/sync.json" >"$w/stdout" 2>"$w/stderr" ||
	bad "sync failed: $(cat "$w/stderr")"
cat "$w/stdout"
# tolerances: the reference exactly; the DSP within its bound (~2.4 us);
# the MCU within one 30.5 us tick plus its bound
$py "$here/check-merge.py" "$w/out" "$w/truth.json" arm0=1 dsp0=5000 mcu0=40000 ||
	bad "merged trace does not match the capture"

grep -Eq '^arm0 +reference ' "$w/stdout" || bad "arm0 is not the reference"
grep -Eq '^dsp0 +accurate ' "$w/stdout" || bad "dsp0 not accurate"
grep -Eq '^mcu0 +accurate ' "$w/stdout" || bad "mcu0 not accurate"
grep -q 'dsp0: 5 discarded event' "$w/stdout" || bad "discarded events not reported"
grep -q 'merged: 3539 events, 3 streams' "$w/stdout" || bad "merge summary"

# hetrace's own reader: every event, nothing damaged
n=$("$HETRACE" print "$w/out" 2>"$w/print.err" | wc -l)
[ "$n" = 3539 ] || bad "hetrace print reads $n events, want 3539: $(head -3 "$w/print.err")"

# the report: per slave the fit, pairs on both sides, bounds over time
$py - "$w/sync.json" <<'PY' || bad "report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["reference"] == "arm0", r["reference"]
cores = {c["name"]: c for c in r["cores"]}
for name, freq in (("dsp0", 200000000), ("mcu0", 32768)):
    c = cores[name]
    assert c["quality"] == "accurate", (name, c["quality"])
    assert c["clock"]["freq_hz"] == freq
    assert c["parent"] == "arm0"
    f = c["fit"]
    assert f["min_line"] and f["max_line"] and f["segments"], name
    assert len(f["lower"]) == c["pairs_down"] and len(f["upper"]) == c["pairs_up"], name
    # each point [child, parent]: every valid line passes between them
    b = c["bounds"]
    assert len(b) > 100 and all(lo <= est <= hi for _, lo, est, hi in b), name
    assert c["half_width_ns"] < (5000 if name == "dsp0" else 40000), c["half_width_ns"]
    assert c["order_violations"] == 0, name
assert cores["mcu0"]["order_fixed"] > 0  # coarse receives moved within their tick
assert cores["dsp0"]["discarded_events"] == 5
print("report ok")
PY

# the same capture, the same bytes
"$HETRACE" sync "$w/cap" -o "$w/out2" >/dev/null 2>&1 || bad "second run"
for f in metadata arm0 dsp0 mcu0; do
	cmp -s "$w/out/$f" "$w/out2/$f" || bad "$f differs between two runs"
done

# --reference: the DSP's clock as the time base
"$HETRACE" sync "$w/cap" -o "$w/out3" --reference dsp0 >"$w/stdout3" 2>&1 || bad "--reference dsp0: $(cat "$w/stdout3")"
grep -Eq '^dsp0 +reference ' "$w/stdout3" || bad "--reference dsp0 not the reference"
grep -q 'sync_reference = "dsp0"' "$w/out3/metadata" || bad "--reference: env"
[ "$(babeltrace2 "$w/out3" 2>/dev/null | wc -l)" = 3539 ] || bad "--reference dsp0: babeltrace2"

[ $fail = 0 ] && echo "test-merge-basic: ok"
exit $fail
