#!/usr/bin/env bash
# One corrupted event time must not become the trace's span
# (docs/views.md, "Damaged times"). The board's scenario is traced
# again with three samples at absurd times the generated code writes
# as they come (a clock read gone wrong): 2^62 ns in the middle of
# dsp1's packet, INT64_MAX - 5 ns in the middle of dsp2's, and 2^62 ns
# as cpu0's first event (its packet's timestamp_begin then lies after
# its timestamp_end). `export` (both formats, 1 us counter windows)
# and `states -k --window` (-k: a reader that calls the event after a
# damaged time "time going back" reads on) run under a timeout, a
# memory and a file size limit:
# they end quickly, write about what the clean trace gives, exit 1,
# name each damaged event (file and offset), and every good event,
# slice, flow and window of the clean trace is still there.
set -u
cd "$(dirname "$0")"
. ../lib.sh
. ./lib.sh

board_build "$w" || exit 1
board_trace "$w" clean <scenario.script || exit 1
# the damaged traces: the same script, sorted, with the absurd samples
# put in by hand (board_trace would sort them to the end). "mid": in
# the middle of dsp1's and dsp2's packets; "first": cpu0's first event
# (which holds back cpu0's whole stream in the time-ordered reading:
# the cores come in another order and the window grid starts at dsp1's
# first time, so only the events and slices compare)
grep -v '^#' scenario.script | sort -s -n -k2,2 >"$w/sorted"
awk '
{ print }
$1 == 1 && $2 == 3500 { print "1 4611686018427387904 sample 8 0 mid" }
$1 == 2 && $2 == 2000 { print "2 9223372036854775802 sample 9 0 max" }
' "$w/sorted" >"$w/mid.script"
awk 'NR == 1 { print "0 4611686018427387904 sample 7 0 first" } { print }' \
	"$w/sorted" >"$w/first.script"
for t in mid first; do
	mkdir -p "$w/$t"
	cp "$w/g/metadata" "$w/$t/"
	"$w/board" "$w/$t" <"$w/$t.script" >/dev/null || exit 1
done

# at most 4 MiB per file written (SIGXFSZ ignored: a write past it
# fails), 1 GB of memory, 20 s
run() { # NAME CMD...: stdout in $w/NAME.out, stderr in $w/NAME.err
	local name=$1
	shift
	(
		ulimit -f 4096
		trap '' XFSZ
		bounded 20 1000 "$@" >"$w/$name.out" 2>"$w/$name.err"
	)
	echo $? >"$w/$name.rc"
}
for t in clean mid first; do
	for fmt in perfetto chrome-json; do
		run "$t-$fmt" "$HETRACE" export -f "$fmt" --window 1000 "$w/$t" -o "$w/$t.$fmt"
	done
	run "$t-states" "$HETRACE" states -k --window 1000 "$w/$t"
done

for cmd in perfetto chrome-json states; do
	[ "$(cat "$w/clean-$cmd.rc")" = 0 ] || bad "clean $cmd: exit $(cat "$w/clean-$cmd.rc"): $(head -3 "$w/clean-$cmd.err")"
	for t in mid first; do
		rc=$(cat "$w/$t-$cmd.rc")
		[ "$rc" = 1 ] || bad "$t $cmd: exit $rc, want 1: $(head -3 "$w/$t-$cmd.err")"
		if [ $t = mid ]; then
			set -- 'stream_1 offset=[0-9]*: core dsp1 at 3500 ns: damaged time 4611686018427387904 ns' \
				'stream_2 offset=[0-9]*: core dsp2 at 2000 ns: damaged time 9223372036854775802 ns' \
				'2 events with a damaged time'
		else
			set -- 'stream_0 offset=[0-9]*: core cpu0 at .*damaged time 4611686018427387904 ns.*event skipped' \
				'1 events with a damaged time'
		fi
		for want; do
			grep -q "$want" "$w/$t-$cmd.err" || bad "$t $cmd: no '$want' in: $(cat "$w/$t-$cmd.err")"
		done
		if [ $cmd = states ]; then
			size=$(wc -c <"$w/$t-states.out")
			clean=$(wc -c <"$w/clean-states.out")
		else
			size=$(stat -c %s "$w/$t.$cmd")
			clean=$(stat -c %s "$w/clean.$cmd")
		fi
		[ "$size" -lt $((clean + 1024)) ] || bad "$t $cmd: $size bytes, the clean trace gives $clean"
	done
done

# nothing of the clean trace lost: every JSON record (threads by name;
# "mid" the utilization counters too); the damaged samples kept at
# their core's last good time (dsp1, dsp2) or dropped (cpu0's first
# event, with no time before it)
python3 - "$w/clean.chrome-json" "$w/mid.chrome-json" "$w/first.chrome-json" <<'PY' || fail=1
import json, sys
def records(path, counters):
    evs = json.load(open(path))['traceEvents']
    names = {(e['pid'], e['tid']): e['args']['name'] for e in evs
             if e.get('ph') == 'M' and e['name'] == 'thread_name'}
    out = []
    for e in evs:
        if e['ph'] == 'M' or (e['ph'] == 'C' and not counters):
            continue
        e = dict(e, thread=names[e['pid'], e['tid']])
        del e['pid'], e['tid']
        out.append(json.dumps(e, sort_keys=True))
    return out
errs = []
for path, counters, want in ((sys.argv[2], True, [('dsp1', 3.5, 'mid'), ('dsp2', 2.0, 'max')]),
                             (sys.argv[3], False, [])):
    clean, bad = records(sys.argv[1], counters), records(path, counters)
    lost = set(clean) - set(bad)
    extra = [json.loads(e) for e in set(bad) - set(clean)]
    got = sorted((e['thread'], e['ts'], e['args']['label']) for e in extra if e.get('name') == 'sample')
    if lost:
        errs.append('%s: records lost: %s' % (path, sorted(lost)))
    if got != want or len(extra) != len(want):
        errs.append('%s: damaged samples %s, records the clean trace has not: %s' % (path, got, extra))
for e in errs:
    print('FAIL:', e)
sys.exit(1 if errs else 0)
PY
# states: the same windows and totals as the clean trace ("first": the
# same totals), each core's span that of its good events
# (rows in another order: dsp1's and dsp2's come late, held back; the
# two damaged samples count as events of their cores)
sed -e 's/^\(core dsp1 .*\): 5 events/\1: 6 events/' \
	-e 's/^\(core dsp2 .*\): 3 events/\1: 4 events/' "$w/clean-states.out" | sort >"$w/clean.rows"
grep -v 'damaged times' "$w/mid-states.out" | sort >"$w/mid.rows"
cmp -s "$w/clean.rows" "$w/mid.rows" ||
	bad "mid states: $(diff "$w/clean.rows" "$w/mid.rows" | head -5)"
sed -n '/^core/,$p' "$w/clean-states.out" | sort >"$w/clean.totals"
sed -n '/^core/,$p' "$w/first-states.out" | grep -v 'damaged times' | sort >"$w/first.totals"
cmp -s "$w/clean.totals" "$w/first.totals" ||
	bad "first states: $(diff "$w/clean.totals" "$w/first.totals" | head -5)"
grep -q '^  damaged times 1 ' "$w/mid-states.out" || bad "mid states: no damaged times line"
exit $fail
