#!/usr/bin/env bash
# hetrace states on traces made here by generated tracing code (the
# three-core board of tests/export): the tables against golden files
# whose numbers were worked out by hand (docs/views.md walks through
# scenario's cpu0), unmatched begin/end events counted and named, a
# core without task_switch said so, damaged and missing input, usage.
set -u
cd "$(dirname "$0")"
. ../../lib.sh
. ../../export/lib.sh

board_build "$w" || exit 1
board_trace "$w" sc <../../export/scenario.script || exit 1
board_trace "$w" bad <../../export/bad.script || exit 1

golden() { # NAME ARGS...: stdout vs NAME.expect, exit 0
	local name=$1
	shift
	if ! "$HETRACE" states "$@" >"$w/$name.out" 2>"$w/$name.err"; then
		bad "$name: exit status $?: $(head -3 "$w/$name.err")"
	fi
	[ -n "${UPDATE_GOLDEN:-}" ] && cp "$w/$name.out" "$name.expect"
	diff -u "$name.expect" "$w/$name.out" || bad "$name: output differs"
}

golden scenario --window 2500 "$w/sc"
golden bad "$w/bad"
golden core-dsp1 --core dsp1 "$w/sc"
golden core-2 --core 2 "$w/sc"

# anomalies: each one named with its file and offset, on stderr
for pat in \
	'stream_0 offset=91: core cpu0 at 1500 ns: isr_exit irq 4 without isr_enter' \
	'core cpu0 at 3000 ns: irq 5 entered at 2500 ns has no exit: closed here' \
	'core cpu0 at 3500 ns: func_exit 0x4444 without func_entry' \
	'task_switch prev_tid 7 but tid 5 was running' \
	'core cpu0 at 7000 ns: irq 8 entered at 6000 ns has no exit: closed at the end'; do
	grep -qF "$pat" "$w/bad.err" || bad "bad: no warning '$pat'"
done
grep -qF 'stream_1 offset=142: core dsp1 at 6500 ns: msg_recv id 99 from core 2 without its msg_send' \
	"$w/scenario.err" || bad "scenario: unmatched receive not reported"
grep -qF 'core dsp2 at 9500 ns: msg_send id 3 to no receive' "$w/scenario.err" ||
	bad "scenario: unmatched send not reported"

# the pending-send table is bounded: the oldest send is evicted
board_trace "$w" evict <../../export/evict.script || exit 1
"$HETRACE" states --pending 2 "$w/evict" >"$w/evict.out" 2>"$w/evict.err" || bad "evict: exit status"
grep -qx 'messages: 3 sent, 3 received, 2 matched, 1 received without a send, 1 sent without a receive (1 evicted)' \
	"$w/evict.out" || bad "evict: $(tail -1 "$w/evict.out")"
grep -q 'msg_send id 1 to no receive (evicted from the pending table)' "$w/evict.err" || bad "evict: not reported"
"$HETRACE" states "$w/evict" | grep -qx 'messages: 3 sent, 3 received, 3 matched, 0 received without a send, 0 sent without a receive (0 evicted)' ||
	bad "evict: default table"

# receives at or before their send time (sync error) still match
board_trace "$w" early <../../export/early.script || exit 1
"$HETRACE" states "$w/early" 2>"$w/early.err" | grep -qx 'messages: 2 sent, 2 received, 2 matched, 0 received without a send, 0 sent without a receive (0 evicted)' ||
	bad "early: messages not matched"
[ -s "$w/early.err" ] && bad "early: warnings: $(cat "$w/early.err")"

# damaged input: a stream cut in the middle of a packet
mkdir -p "$w/cut"
cp "$w/sc/metadata" "$w/cut/"
cp "$w/sc/stream_1" "$w/sc/stream_2" "$w/cut/"
head -c 100 "$w/sc/stream_0" >"$w/cut/stream_0"
"$HETRACE" states "$w/cut" >"$w/cut.out" 2>"$w/cut.err"
rc=$?
[ "$rc" = 1 ] || bad "cut: exit $rc, want 1"
grep -q 'stream_0' "$w/cut.err" || bad "cut: message does not name the file: $(cat "$w/cut.err")"
grep -q '^core dsp1' "$w/cut.out" || bad "cut: the other cores are not shown"

# --json: the same numbers in ns (docs/views.md walks through cpu0),
# the windows of each core adding up to its known time
"$HETRACE" states --json --window 2500 "$w/sc" >"$w/sc.json" 2>/dev/null || bad "json: exit status"
python3 - "$w/sc.json" <<'PY' || bad "json: values"
import json, sys
d = json.load(open(sys.argv[1]))
cores = {c['name']: c for c in d['cores']}
c = cores['cpu0']
got = (c['id'], c['role'], c['events'], c['first_ns'], c['last_ns'], c['task_ns'],
       c['isr_ns'], c['idle_ns'], c['unknown_ns'], c['context_switches'], c['interrupts'])
assert got == (0, 'master', 18, 1000, 10000, 6200, 800, 2000, 0, 4, 3), got
t = {x['name']: (x['kind'], x['id'], x['run_ns'], x['slices'], x['max_slice_ns']) for x in c['tasks']}
assert t['ctl'] == ('task', 5, 2500, 1, 3000) and t['idle'] == ('idle', 0, 2000, 2, 1300), t
assert cores['dsp2']['has_tasks'] is False and cores['dsp2']['unknown_ns'] == 7500
for name, c in cores.items():
    win = [x for x in d['windows'] if x['core'] == name]
    for k in ('task_ns', 'isr_ns', 'idle_ns'):
        assert sum(x[k] for x in win) == c[k], (name, k)
m = d['messages']
assert (m['sent'], m['matched'], m['received_without_send']) == (3, 2, 1), m
PY
# with --core: that core only, no message totals
"$HETRACE" states --json --core dsp1 "$w/sc" 2>/dev/null |
	python3 -c "import json,sys; d=json.load(sys.stdin); assert [c['name'] for c in d['cores']] == ['dsp1'] and 'messages' not in d" ||
	bad "json --core dsp1"

# missing input, unknown core, usage
"$HETRACE" states "$w/nothing" >/dev/null 2>"$w/none.err"
[ $? = 1 ] || bad "missing trace: exit status"
grep -q nothing "$w/none.err" || bad "missing trace: message: $(cat "$w/none.err")"
"$HETRACE" states --core dsp9 "$w/sc" >/dev/null 2>"$w/core.err"
[ $? = 1 ] || bad "unknown core: exit status"
grep -q "no core 'dsp9'" "$w/core.err" || bad "unknown core: message"
for args in "--pending 0 $w/sc" "--window 0 $w/sc" "--window -5 $w/sc" "--window x $w/sc" "" "--bogus $w/sc"; do
	# shellcheck disable=SC2086
	"$HETRACE" states $args >/dev/null 2>&1
	[ $? = 2 ] || bad "usage '$args': exit status, want 2"
done
"$HETRACE" states --help | grep -q -- '--window' || bad "--help"
exit $fail
