#!/usr/bin/env bash
# hetrace sim (docs/sim.md): a short run whose capture babeltrace2 decodes
# (check-capture.py: every core, sync rounds paired by seq and true to
# truth.json, messages matched by id, a 32-bit counter wrapped); Ctrl-C
# in the middle of a run leaves a readable capture, no process and no
# shared memory behind; bad options and bad capture directories.
set -u
cd "$(dirname "$0")"
. ../../lib.sh

# Usage errors: exit 2 and a message naming the problem.
usage_case "-o CAPTURE is required" sim --cores 2
usage_case "from 1 to 128, got '0'" sim -o "$w/x" --cores 0
usage_case "from 1 to 128, got '129'" sim -o "$w/x" --slaves 129
usage_case "got '2.5'" sim -o "$w/x" --cores 2.5
usage_case "duration from 0.05 to 3600, got 'abc'" sim -o "$w/x" --seconds abc
usage_case "unknown option '--bogus'" sim -o "$w/x" --bogus
usage_case "needs a value" sim -o
usage_case "unexpected argument 'extra'" sim -o "$w/x" extra
usage_case "from 1 to 100, got '0'" sim -o "$w/x" --sync-burst 0
usage_case "from 0 to 100000, got '-5'" sim -o "$w/x" --idle-spin-us -5
[ ! -e "$w/x" ] || bad "a usage error created the capture"
"$HETRACE" sim --help >"$w/out" || bad "sim --help: exit $?"
grep -q "^usage: hetrace sim -o CAPTURE" "$w/out" || bad "sim --help: no usage line"

# A capture that cannot be written: exit 1, the path in the message.
expect_exit "unwritable capture" 1 "$HETRACE" sim -o /dev/null/cap --cores 2 --seconds 0.2
expect_err "unwritable capture" "/dev/null/cap"

# A short run, 4 slaves: everything checked against babeltrace2 and truth.json.
if ! "$HETRACE" sim -o "$w/cap" --cores 4 --seconds 1.5 --no-fsync >"$w/out" 2>"$w/err"; then
	bad "sim run failed: $(cat "$w/err")"
else
	cat "$w/out"
	grep -q "^hetrace sim: 5 cores" "$w/out" || bad "summary: $(head -1 "$w/out")"
	[ -s "$w/err" ] && bad "sim run: stderr: $(head -3 "$w/err")"
	python3 ./check-capture.py "$w/cap" 4 || bad "capture check"
fi
# A capture is not overwritten.
expect_exit "existing capture" 1 "$HETRACE" sim -o "$w/cap" --cores 1 --seconds 0.2
[ -s "$w/err" ] || bad "existing capture: no message"

# Ctrl-C (SIGINT to the whole process group, as a terminal sends it).
# (With the idle spin on: the interrupts that find a slave spinning.)
setsid "$HETRACE" sim -o "$w/int" --cores 3 --seconds 60 --no-fsync --idle-spin-us 30 >"$w/out" 2>"$w/err" &
pid=$!
wait_for_dir "$w/int/dsp2"
sleep 1
pgrep -g "$pid" >"$w/procs" || true
[ "$(wc -l <"$w/procs")" = 4 ] || bad "SIGINT: expected 4 processes, got: $(cat "$w/procs")"
kill -INT -- "-$pid"
start=$(date +%s)
wait "$pid"
rc=$?
[ "$rc" = 0 ] || bad "SIGINT: exit $rc: $(cat "$w/err")"
[ $(($(date +%s) - start)) -lt 10 ] || bad "SIGINT: slow stop"
grep -q "(interrupted)" "$w/out" || bad "SIGINT: summary: $(head -1 "$w/out")"
left=$(pgrep -g "$pid" || true)
[ -z "$left" ] || bad "SIGINT: processes left: $left"
for p in $(cat "$w/procs"); do
	[ -d "/proc/$p" ] && bad "SIGINT: process $p still there"
done
ls /dev/shm 2>/dev/null | grep -q hetrace && bad "SIGINT: shared memory left in /dev/shm"
python3 ./check-capture.py "$w/int" 3 --partial || bad "SIGINT: capture check"

# A slave that dies: exit 1 naming it, nothing left behind, every core's
# trace still readable (the dead core's open packet is lost).
setsid "$HETRACE" sim -o "$w/kill" --cores 3 --seconds 60 --no-fsync >"$w/out" 2>"$w/err" &
pid=$!
wait_for_dir "$w/kill/dsp2"
sleep 0.5
victim=$(pgrep -g "$pid" -x sim-dsp1 || true)
[ -n "$victim" ] || bad "no process sim-dsp1 in the group: $(pgrep -a -g "$pid")"
[ -n "$victim" ] && kill -KILL "$victim"
wait "$pid"
rc=$?
[ "$rc" = 1 ] || bad "dead slave: exit $rc, expected 1"
expect_err "dead slave" "slave dsp1 died"
left=$(pgrep -g "$pid" || true)
[ -z "$left" ] || bad "dead slave: processes left: $left"
for c in arm0 dsp0 dsp1 dsp2; do
	bt2_reads "dead slave" "$w/kill/$c"
done
[ -f "$w/kill/truth.json" ] || bad "dead slave: no truth.json"

exit $fail
