#!/usr/bin/env bash
# hetrace ctl, trace and profile TARGET end to end against the native
# test target (tests/runtime/serial/native-target.c, built here by its
# script): every ctl command with its values checked (status before and
# after trigger/stopper/couple, names through --elf, reboot keeping the
# settings with boot count + 1), list and dump-profile call counts equal
# to the trace-derived profile of a capture of the same calls, trace
# windows checked with babeltrace2 (only the window's calls), the
# Perfetto file checked as tests/export checks it, the flight recorder
# dumped, a rebuilt firmware's ELF (another build id) warned about, an
# unknown name answered with the nearest ones.
set -u
cd "$(dirname "$0")"
. ../../lib.sh
: "${TOP:?}"

nt_pid=
nt2_pid=
stop_targets() {
	for p in $nt_pid $nt2_pid; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
}
trap 'stop_targets; rm -rf "$w"' EXIT
HETRACE="$HETRACE_OPT" "$TOP/tests/runtime/serial/build-target.sh" "$w/nt" >/dev/null ||
	{ echo "FAIL: cannot build the native target"; exit 1; }
elf=$w/nt/native-target
# start_target SOCKET [ARGS]: the native target listening on SOCKET
start_target() {
	local sock=$1
	shift
	"$elf" --unix "$sock" "$@" >/dev/null 2>"$sock.err" &
	for _ in $(seq 100); do
		[ -S "$sock" ] && return 0
		sleep 0.05
	done
	bad "native target did not start: $(cat "$sock.err")"
}
# calls_match BEFORE AFTER PROFILE LABEL [FIB]: the calls the target
# counted between two `ctl list --json` (BEFORE, AFTER) are the ones of
# PROFILE (`hetrace profile` of a capture of one work_step call), name by
# name; work_step called once, and work_fib more than FIB times when
# given.
calls_match() {
	python3 - "$@" <<'PY'
import json, sys
l1, l2 = (json.load(open(p)) for p in sys.argv[1:3])
c1 = {f['name']: f['calls'] for f in l1['functions']}
delta = {f['name']: f['calls'] - c1.get(f['name'], 0) for f in l2['functions']}
delta = {k: v for k, v in delta.items() if v}
traced = {}
for line in open(sys.argv[3]):
    p = line.split()
    # calls, four durations of two words, the function
    if len(p) >= 10 and p[0].isdigit():
        traced[p[9]] = int(p[0])
print(sys.argv[4] + ', on target:', delta, 'traced:', traced)
assert delta.get('work_step') == 1, delta
if len(sys.argv) > 5:
    assert delta.get('work_fib', 0) > int(sys.argv[5]), delta
assert delta == traced
PY
}
start_target "$w/t.sock" --retained "$w/ret.bin" --step-us 5000
nt_pid=$!
T=unix:$w/t.sock
ctl() { bounded 20 300 "$HETRACE" ctl "$T" --elf "$elf" "$@"; }
addr() { printf '%d' "0x$(nm "$elf" | awk -v n="$1" '$3 == n { print $1 }')"; }
# jq-like: js FILE EXPR (a python expression on d, the JSON of FILE)
js() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(repr(($2,)))" "$1"; }

# status before anything: boot 1, no window, names and build id
expect_exit "status" 0 ctl status --json
cp "$w/out" "$w/s0.json"
[ "$(js "$w/s0.json" "d['boot_count'], d['trigger']['addr'], d['stopper']['addr'], d['enabled'], d['build_id_match'], d['core']")" = \
	"(1, 0, 0, True, True, 'native')" ] || bad "status before: $(cat "$w/s0.json")"
expect_exit "status text" 0 ctl status
grep -q "^build id .*(matches .*native-target)" "$w/out" || bad "status: build id: $(cat "$w/out")"
grep -q "^trigger  *none" "$w/out" || bad "status: trigger: $(cat "$w/out")"
expect_exit "hello" 0 ctl hello
grep -q "^core  *native (id 0)" "$w/out" || bad "hello: $(cat "$w/out")"
grep -q "^clock  *1000000000 Hz" "$w/out" || bad "hello clock: $(cat "$w/out")"
expect_exit "ping" 0 ctl ping abc
grep -q "^abc from $T (native) in" "$w/out" || bad "ping: $(cat "$w/out")"

# trigger with conditions, stopper, couple: status says each, by name
expect_exit "trigger" 0 ctl trigger work_sort --nth 3 --caller work_step
expect_exit "status after trigger" 0 ctl status --json
[ "$(js "$w/out" "d['trigger']['addr'], d['trigger']['name'], d['trigger']['nth'], d['trigger']['caller'], d['trigger']['caller_name']")" = \
	"($(addr work_sort), 'work_sort', 3, $(addr work_step), 'work_step')" ] || bad "status after trigger: $(cat "$w/out")"
expect_exit "status text after trigger" 0 ctl status
grep -q "^trigger  *work_sort (0x[0-9a-f]*), call 3 only, from work_step" "$w/out" || bad "status trigger line: $(cat "$w/out")"
expect_exit "stopper" 0 ctl stopper work_fib
expect_exit "status after stopper" 0 ctl status --json
[ "$(js "$w/out" "d['stopper']['addr'], d['stopper']['name'], d['trigger']['name']")" = \
	"($(addr work_fib), 'work_fib', 'work_sort')" ] || bad "status after stopper: $(cat "$w/out")"
expect_exit "couple" 0 ctl couple work_step
expect_exit "status after couple" 0 ctl status --json
[ "$(js "$w/out" "d['trigger']['name'], d['stopper']['name'], d['trigger']['nth']")" = \
	"('work_step', 'work_step', 0)" ] || bad "status after couple: $(cat "$w/out")"

# reboot: boot count + 1, the window kept (retained RAM)
expect_exit "reboot" 0 ctl reboot
grep -q "rebooted, boot count 2 (settings restored from retained RAM)" "$w/out" || bad "reboot: $(cat "$w/out" "$w/err")"
expect_exit "status after reboot" 0 ctl status --json
[ "$(js "$w/out" "d['boot_count'], d['retained'], d['trigger']['name'], d['stopper']['name']")" = \
	"(2, True, 'work_step', 'work_step')" ] || bad "status after reboot: $(cat "$w/out")"

# clear, disable, enable
expect_exit "clear" 0 ctl clear
expect_exit "status after clear" 0 ctl status --json
[ "$(js "$w/out" "d['trigger']['addr'], d['stopper']['addr']")" = "(0, 0)" ] || bad "status after clear: $(cat "$w/out")"
expect_exit "disable" 0 ctl disable
expect_exit "status after disable" 0 ctl status --json
[ "$(js "$w/out" "d['enabled']")" = "(False,)" ] || bad "status after disable: $(cat "$w/out")"
expect_exit "enable" 0 ctl enable
expect_exit "status after enable" 0 ctl status --json
[ "$(js "$w/out" "d['enabled']")" = "(True,)" ] || bad "status after enable: $(cat "$w/out")"

# The on-target profile against a capture of the same calls: frozen
# (disabled), listed; a trace whose window is one call of work_step
# (the 40th from the enable, its callees included: the on-target
# profile counts only inside the window); listed again. The difference
# is that call's tree, which the capture's trace-derived profile must
# count the same.
ctl disable >/dev/null || bad "disable"
expect_exit "list before" 0 ctl list --json
cp "$w/out" "$w/l1.json"
expect_exit "trace one call" 0 bounded 60 300 "$HETRACE" trace "$T" --elf "$elf" --trigger work_step \
	--nth 40 --stopper work_step --seconds 1 -q -o "$w/c1" --perfetto "$w/c1.pftrace"
cp "$w/out" "$w/c1.out"
expect_exit "list after" 0 ctl list --json
cp "$w/out" "$w/l2.json"
bounded 20 300 "$HETRACE" profile "$w/c1" --elf "$elf" -n 0 >"$w/p1" 2>/dev/null || bad "profile of the capture"
calls_match "$w/l1.json" "$w/l2.json" "$w/p1" "one call" 1 ||
	bad "on-target counts differ from the capture's"
grep -q "^trace: [0-9]* events ([0-9]* func_entry, [0-9]* func_exit)" "$w/c1.out" || bad "trace summary: $(cat "$w/c1.out")"
grep -q "^lost: 0 events discarded by the target, 0 packets lost, 0 frames lost on the line, 0 bad frames" "$w/c1.out" ||
	bad "trace losses: $(cat "$w/c1.out")"
# dump-profile and profile TARGET: hetrace profile's columns, list's counts
expect_exit "dump-profile" 0 ctl dump-profile -n 0 --sort calls
cp "$w/out" "$w/dp"
grep -q "^-- on-target profile (read from $T" "$w/dp" || bad "dump-profile title: $(head -3 "$w/dp")"
grep -qx "$(grep -m1 ' calls  *incl  ' "$w/p1")" "$w/dp" || bad "dump-profile columns differ from hetrace profile's"
grep -q "^   lost: 0 calls (function table full), 0 calls below the stack" "$w/dp" || bad "dump-profile loss line: $(cat "$w/dp")"
python3 - "$w/l2.json" "$w/dp" <<'PY' || bad "dump-profile counts differ from list"
import json, sys
want = {f['name']: f['calls'] for f in json.load(open(sys.argv[1]))['functions']}
got = {}
for line in open(sys.argv[2]):
    p = line.split()
    if len(p) >= 10 and p[0].isdigit():
        got[p[9]] = int(p[0])
assert got == want, (got, want)
PY
expect_exit "profile TARGET" 0 bounded 20 300 "$HETRACE" profile "$T" --elf "$elf" -n 0 --sort calls
sed 1d "$w/out" >"$w/pt"
sed 1d "$w/dp" | cmp -s - "$w/pt" || bad "profile TARGET differs from dump-profile: $(diff <(sed 1d "$w/dp") "$w/pt")"
# the Perfetto file: tests/export's function check; the target is not
# relocated (no -pie) and its func_base went out at boot, long before
# this capture: the check is given bias 0 through a func_base line
babeltrace2 --clock-cycles "$w/c1/native" >"$w/c1.bt" || bad "babeltrace2 cannot read the capture"
{ echo "[0] (+?.?????????) func_base: { core_id = 0, cpu_id = 0 }, { base = 0x400000 }"; cat "$w/c1.bt"; } >"$w/c1.bt0"
"$HETRACE" export -q -f chrome-json --elf "$elf" "$w/c1/native" -o "$w/c1.json" || bad "json export"
nm --defined-only "$elf" >"$w/nm"
python3 "$TOP/tests/export/check-funcs.py" "$w/c1.bt0" "$w/nm" 0x400000 "$w/c1.pftrace" "$w/c1.json" >"$w/cf" ||
	bad "check-funcs.py: $(cat "$w/cf")"

# A window by trigger and stopper: babeltrace2 sees only work_sort's
# calls (and its callee's), each window opened by work_sort's entry.
ctl clear >/dev/null
expect_exit "trace window" 0 bounded 60 300 "$HETRACE" trace "$T" --elf "$elf" --trigger work_sort \
	--stopper work_sort --seconds 0.5 -q -o "$w/c2"
cp "$w/out" "$w/c2.out"
babeltrace2 "$w/c2/native" >"$w/c2.bt" || bad "babeltrace2: window capture"
sort_a=$(printf '0x%X' "$(addr work_sort)")
swap_a=$(printf '0x%X' "$(addr work_swap)")
n_in=$(grep -c "func_\(entry\|exit\): .*addr = \($sort_a\|$swap_a\)[,} ]" "$w/c2.bt")
n_all=$(grep -c "func_\(entry\|exit\):" "$w/c2.bt")
n_sort=$(grep -c "func_entry: .*addr = $sort_a," "$w/c2.bt")
[ "$n_all" -gt 0 ] && [ "$n_in" = "$n_all" ] || bad "window: $n_in of $n_all records are work_sort's or work_swap's"
grep -q "^window: opened $n_sort times by work_sort" "$w/c2.out" || bad "window count ($n_sort): $(cat "$w/c2.out")"
# couple: each window is one outermost call of the recursive work_fib
# (its inner exits do not close it), nothing else is recorded
expect_exit "trace couple" 0 bounded 60 300 "$HETRACE" trace "$T" --elf "$elf" --couple work_fib \
	--seconds 0.5 -q -o "$w/c3"
cp "$w/out" "$w/c3.out"
babeltrace2 "$w/c3/native" >"$w/c3.bt" || bad "babeltrace2: couple capture"
fib_a=$(printf '0x%X' "$(addr work_fib)")
windows=$(python3 - "$w/c3.bt" "$fib_a" <<'PY'
import re, sys
recs = re.findall(r'(func_entry|func_exit): .*addr = (0x[0-9A-F]+)', open(sys.argv[1]).read())
assert recs and all(a == sys.argv[2] for _, a in recs), 'records of other functions'
# a window's first packet may have gone out while the recording started:
# skip up to the first outermost entry, then every window is whole
depth, windows, started = 0, 0, False
for ev, a in recs:
    if ev == 'func_entry':
        if depth == 0:
            windows += 1
            started = True
        depth += 1
    elif started:
        depth -= 1
        assert depth >= 0
print(windows)
PY
) || bad "couple window"
[ "${windows:-0}" -gt 1 ] || bad "couple: $windows windows"
grep -q "^window: opened [0-9]* times by work_fib" "$w/c3.out" || bad "couple summary: $(cat "$w/c3.out")"

# A window that opens at the first call after the enable: its packets
# come while the recorder still asks for HELLO and the metadata, and
# are kept all the same (the on-target counts equal the capture's).
ctl disable >/dev/null || bad "disable"
expect_exit "list before (nth 1)" 0 ctl list --json
cp "$w/out" "$w/l5.json"
expect_exit "trace the first call" 0 bounded 60 300 "$HETRACE" trace "$T" --elf "$elf" --trigger work_step \
	--nth 1 --stopper work_step --seconds 1 -q -o "$w/c6"
expect_exit "list after (nth 1)" 0 ctl list --json
cp "$w/out" "$w/l6.json"
bounded 20 300 "$HETRACE" profile "$w/c6" --elf "$elf" -n 0 >"$w/p6" 2>/dev/null || bad "profile of the nth-1 capture"
calls_match "$w/l5.json" "$w/l6.json" "$w/p6" "first window" ||
	bad "the first window's calls are not all in the capture"

# An unknown name: the nearest, exit 2
expect_exit "unknown name" 2 ctl trigger work_srot
expect_err "unknown name" "unknown function 'work_srot' in .*native-target; nearest: work_sort"
expect_exit "unknown name in trace" 2 "$HETRACE" trace "$T" --elf "$elf" --stopper work -o "$w/x"
expect_err "unknown name in trace" "nearest: work_fib, work_loop, work_sort, work_step, work_swap"

# The same firmware rebuilt otherwise: another build id, a warning
CFLAGS="-O1 -g" HETRACE="$HETRACE_OPT" "$TOP/tests/runtime/serial/build-target.sh" "$w/nt2" >/dev/null ||
	bad "cannot rebuild the native target"
expect_exit "other ELF" 0 bounded 20 300 "$HETRACE" ctl "$T" --elf "$w/nt2/native-target" status
expect_err "other ELF" "warning: .*nt2/native-target: build id [0-9a-f]* differs from the target's [0-9a-f]*: .*may be wrong"
expect_exit "other ELF, strict" 1 "$HETRACE" ctl "$T" --elf "$w/nt2/native-target" --strict-build-id status

# The flight recorder: dump-trace writes a capture babeltrace2 reads
start_target "$w/o.sock" --overwrite --step-us 2000
nt2_pid=$!
sleep 0.3
expect_exit "dump-trace" 0 bounded 60 300 "$HETRACE" ctl "unix:$w/o.sock" dump-trace -o "$w/c4"
grep -q "^[1-9][0-9]* packets ([0-9]* bytes) into $w/c4/native" "$w/out" || bad "dump-trace: $(cat "$w/out" "$w/err")"
bt2_reads "dump-trace" "$w/c4/native"
babeltrace2 "$w/c4/native" 2>/dev/null | grep -q "func_entry" || bad "dump-trace: no func_entry"
# a streaming target has no flight recorder to dump
expect_exit "dump-trace, streaming" 1 ctl dump-trace -o "$w/c5"
expect_err "dump-trace, streaming" "not a flight recorder"
exit $fail
