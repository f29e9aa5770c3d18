#!/usr/bin/env bash
# print --begin/--end/--timerange/--clock-offset(-ns)/--core/--event.
# A three-core trace written here (fixed-size packets, core_id in the
# packet context named by env core_<id>_name, events discarded and a
# packet lost mid-stream, ties across cores): for each range the output
# (and the discarded warnings) is babeltrace2's for the same options;
# --core is babeltrace2's output of the trace with that core's stream
# only; --event is the full print's lines of those events. A big trace
# (tests/ctf/reader/bigtrace.c, 1024 packets, read by bisection): the
# windows equal the full print cut to them. Bad times, unknown cores
# and an end before the begin are usage errors naming the argument and
# the column.
set -u
. "$TOP/tests/ctf/print/lib.sh"
. "$TOP/tests/lib.sh"

python3 - "$W/t" "$TOP/tests/ctf/print/corpus" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from ctfgen import Trace, Struct, Int
out = sys.argv[1]
env = {'domain': 'test', 'hostname': 'box',
       'core_0_name': 'arm0', 'core_1_name': 'dsp0', 'core_2_name': 'dsp1'}
t = Trace(env=env, clock={'offset_s': 1700000000},
          ctx_extra=[('core_id', Int(32))])
tick = t.event('tick', Struct([('v', Int(32))]))
msg = t.event('hetrace:msg_send', Struct([('to', Int(32))]))
streams = {}
for core in range(3):
    pkts, seq, disc = [], 0, 0
    for p in range(40):
        base = 1000000 * p + 1000
        evs = []
        for k in range(20):
            ts = base + 40000 * k + (0 if k % 5 == 0 else 7 * core)
            evs.append((msg if k % 3 == 0 else tick, ts, {'v': k, 'to': core}))
        if p == 17 and core == 1:
            disc += 5  # events lost before this packet
        if p == 23 and core == 2:
            seq += 1   # a packet lost
        pkts.append((evs, base, seq, disc, core))
        seq += 1
    streams['stream_%d' % core] = pkts
# packets of one size (found by bisection), and of varying sizes (walked)
for name, pad in (('', 8 * 2048), ('-var', 64)):
    t.write(out + name, {f: [t.packet(e, b, b + 999000, q, d,
                                      extra={'core_id': c}, pad_bits=pad)
                             for (e, b, q, d, c) in ps]
                         for f, ps in streams.items()})
PY
T="$W/t"
S=1700000000
# windows: inside a packet, across packets, over the lost data, before
# the start, after the end, one open side each, a single timestamp
for r in "$S.005000000 $S.005200000" "$S.003500000 $S.009100000" \
	"$S.016900000 $S.024100000" "$S $S.000500000" \
	"$S.041000000 $S.050000000" "$S.039000000 -" "- $S.000200000" \
	"$S.012041007 $S.012041007"; do
	set -- $r
	opts=()
	[ "$1" != - ] && opts+=(--begin "$1")
	[ "$2" != - ] && opts+=(--end "$2")
	check "$T" -- "${opts[@]}"
	check "$T" -- "${opts[@]}" --clock-seconds
done
check "$T-var" -- --begin "$S.016900000" --end "$S.024100000"
check "$T-var" -- --begin "$S.030000000"
check "$T" -- --timerange "$S.002,$S.003"
check "$T" -- "--timerange=[$S.030,$S.0305]"
check "$T" -- --begin 22:13:20.010 --end 22:13:20.0101 --clock-gmt
check "$T" -- --begin "2023-11-14 22:13:20.02" --end 22:13:20.021 --clock-gmt
TZ=Asia/Kolkata check "$T" -- --begin 03:43:20.02 --end 03:43:20.021
for o in "--clock-offset 3" "--clock-offset -2" "--clock-offset-ns 1500" \
	"--clock-offset-ns -2500000000" "--clock-offset 1 --clock-offset-ns 7"; do
	# shellcheck disable=SC2086
	check "$T" -- $o --clock-seconds --begin "$S.011" --end "$((S + 5)).021"
	# shellcheck disable=SC2086
	check "$T" -- $o
done

# a relative time: after the first packet's beginning (S.000001000)
"$HETRACE" print --begin +4ms --end +4.2ms "$T" >"$W/rel.out" 2>&1 || bad "+4ms"
babeltrace2 --begin "$S.004001" --end "$S.004201" "$T" >"$W/rel.bt"
cmp -s "$W/rel.out" "$W/rel.bt" || bad "+4ms..+4.2ms differs: $(diff "$W/rel.bt" "$W/rel.out" | head -3)"

# --core: babeltrace2's print of the core's stream alone
for sel in "dsp0:stream_1" "1:stream_1" "arm0,dsp1:stream_0 stream_2"; do
	cores=${sel%%:*}
	rm -rf "$W/only" && mkdir "$W/only" && cp "$T/metadata" "$W/only/"
	for f in ${sel#*:}; do cp "$T/$f" "$W/only/"; done
	babeltrace2 --begin "$S.010" "$W/only" 2>/dev/null | sed 's/^\(\[[^]]*\]\) (+[^)]*)/\1/' >"$W/core.bt"
	"$HETRACE" print --core "$cores" --begin "$S.010" "$T" 2>/dev/null | sed 's/^\(\[[^]]*\]\) (+[^)]*)/\1/' >"$W/core.ht"
	cmp -s "$W/core.bt" "$W/core.ht" && [ -s "$W/core.ht" ] ||
		bad "--core $cores: $(diff "$W/core.bt" "$W/core.ht" | head -3)"
done

# --event: the lines of those events in the full print
"$HETRACE" print --no-delta "$T" 2>/dev/null >"$W/all.out"
"$HETRACE" print --no-delta --event 'msg_*' "$T" 2>/dev/null >"$W/ev.out"
grep ' hetrace:msg_send: ' "$W/all.out" >"$W/ev.want"
cmp -s "$W/ev.want" "$W/ev.out" && [ -s "$W/ev.out" ] || bad "--event msg_*"
"$HETRACE" print --no-delta --event 'hetrace:*' --event tick "$T" 2>/dev/null >"$W/ev2.out"
cmp -s "$W/all.out" "$W/ev2.out" || bad "--event hetrace:* --event tick"
"$HETRACE" print --event nothing "$T" 2>/dev/null >"$W/ev3.out"
[ ! -s "$W/ev3.out" ] || bad "--event nothing printed events"

# usage errors: the argument and the column
usage_case "'12:6x': column 4" print --begin 12:6x "$T"
usage_case "--end '1.5x': column 4" print --end 1.5x "$T"
usage_case "'+10m': column 4: expected a unit" print --begin +10m "$T"
usage_case "--timerange '1': column 2" print --timerange 1 "$T"
usage_case "cannot be used with --timerange" print --timerange 1,2 --begin 1 "$T"
usage_case "begin is after --end" print --begin 2 --end 1 "$T"
usage_case "clock-offset: expected a whole number" print --clock-offset 1.5 "$T"
expect_exit "unknown core" 1 "$HETRACE" print --core dsp9 "$T"
expect_err "unknown core" "no core 'dsp9' in the trace (cores: arm0, dsp0, dsp1)"

# the big trace: 1024 packets of 64 KiB, windows read by bisection,
# against the full print cut to them (and babeltrace2 for one)
cc -O2 -o "$W/bigtrace" "$TOP/tests/ctf/reader/bigtrace.c"
"$W/bigtrace" "$W/big" 64 >/dev/null
"$HETRACE" print --clock-seconds --no-delta "$W/big" >"$W/big.all"
# one event's time: a window of one timestamp
one=$(sed -n '1000000{s/^\[[0-9]*\(\.[0-9]*\)\].*/0\1/p;q}' "$W/big.all")
for r in "0.000001000 0.000002000" "0.100000000 0.101000000" \
	"0.150000001 0.150300000" "0.209078000 0.300000000" \
	"$one $one"; do
	set -- $r
	bounded 20 400 "$HETRACE" print --clock-seconds --no-delta \
		--begin "$S${1#0}" --end "$S${2#0}" "$W/big" >"$W/big.ht" ||
		bad "big $r: exit $?"
	awk -v b="$S${1#0}" -v e="$S${2#0}" '{ t = substr($1, 2, 20); if (t >= b && t <= e) print }' \
		"$W/big.all" >"$W/big.want"
	[ -s "$W/big.want" ] || bad "big $r: empty window"
	cmp -s "$W/big.want" "$W/big.ht" || bad "big $r: $(diff "$W/big.want" "$W/big.ht" | head -3)"
done
check "$W/big" -- --begin "$S.1234" --end "$S.1236"

# a damaged packet where the bisection looks first (packet 512 of
# 1024): the stream is walked instead; with -k the window after it is
# the full print's, cut, and the damage is reported (exit 1)
printf 'XXXX' | dd of="$W/big/stream" bs=1 seek=$((512 * 65536)) conv=notrunc 2>/dev/null
"$HETRACE" print -k --clock-seconds --no-delta "$W/big" >"$W/dmg.all" 2>/dev/null
for r in "0.150000001 0.150300000" "0.100000000 0.110000000"; do
	set -- $r
	rc=0
	bounded 20 400 "$HETRACE" print -k --clock-seconds --no-delta \
		--begin "$S${1#0}" --end "$S${2#0}" "$W/big" >"$W/dmg.ht" 2>"$W/dmg.err" || rc=$?
	awk -v b="$S${1#0}" -v e="$S${2#0}" '{ t = substr($1, 2, 20); if (t >= b && t <= e) print }' \
		"$W/dmg.all" >"$W/dmg.want"
	[ -s "$W/dmg.want" ] || bad "damaged $r: empty window"
	cmp -s "$W/dmg.want" "$W/dmg.ht" || bad "damaged $r: $(diff "$W/dmg.want" "$W/dmg.ht" | head -3)"
	[ "$rc" = 1 ] && grep -q "wrong packet magic" "$W/dmg.err" ||
		bad "damaged $r: exit $rc, $(head -2 "$W/dmg.err")"
done

finish || fail=1
exit $fail
