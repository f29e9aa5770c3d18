#!/usr/bin/env bash
# hetrace sim (docs/sim.md): a short run whose capture babeltrace2 decodes
# (check-capture.py: every core, sync rounds paired by seq and true to
# truth.json, messages matched by id, a 32-bit counter wrapped); Ctrl-C
# in the middle of a run leaves a readable capture, no process and no
# shared memory behind; bad options and bad capture directories (no
# shared memory left either); the board file the launcher recorded.
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

# no_shm WHAT PID: the run of process PID left no shared memory object.
no_shm() {
	[ -e "/dev/shm/hetrace-sim-$2" ] && bad "$1: /dev/shm/hetrace-sim-$2 left"
	return 0
}

# A capture that cannot be written: exit 1, the path in the message.
"$HETRACE" sim -o /dev/null/cap --cores 2 --seconds 0.2 >"$w/out" 2>"$w/err" &
pid=$!
wait $pid
rc=$?
[ "$rc" = 1 ] || bad "unwritable capture: exit $rc, expected 1"
expect_err "unwritable capture" "/dev/null/cap"
no_shm "unwritable capture" $pid

# A short run, 4 slaves: everything checked against babeltrace2 and truth.json.
"$HETRACE" sim -o "$w/cap" --cores 4 --seconds 1.5 --no-fsync >"$w/out" 2>"$w/err" &
pid=$!
if ! wait $pid; then
	bad "sim run failed: $(cat "$w/err")"
else
	cat "$w/out"
	grep -q "^hetrace sim: 5 cores" "$w/out" || bad "summary: $(head -1 "$w/out")"
	[ -s "$w/err" ] && bad "sim run: stderr: $(head -3 "$w/err")"
	python3 ./check-capture.py "$w/cap" 4 || bad "capture check"
	# The board file the launcher recorded from: the shm object named
	# after the process, a signal doorbell per slave at its pid.
	grep -q "^  shm0: {shm: /hetrace-sim-$pid, size: " "$w/cap/board.yaml" ||
		bad "board.yaml: no region /hetrace-sim-$pid: $(head -8 "$w/cap/board.yaml")"
	[ "$(grep -c 'signal: {pid: [0-9]*, signal: SIGUSR1, pin-away: true}' "$w/cap/board.yaml")" = 4 ] ||
		bad "board.yaml: not 4 signal doorbells"
	"$HETRACE" record --board "$w/cap/board.yaml" --check >"$w/check" 2>&1 ||
		bad "record --board CAPTURE/board.yaml --check: $(cat "$w/check")"
	[ "$(grep -c 'doorbell signal SIGUSR1 to pid' "$w/check")" = 4 ] ||
		bad "record --check: $(cat "$w/check")"
	[ -s "$w/cap/arm0/sync" ] || bad "no arm0/sync stream (the recorder's sync events)"
	[ -s "$w/cap/arm0/stream" ] || bad "no arm0/stream (the pipeline's events)"
fi
no_shm "sim run" $pid
# A capture is not overwritten.
"$HETRACE" sim -o "$w/cap" --cores 1 --seconds 0.2 >"$w/out" 2>"$w/err" &
pid=$!
wait $pid
rc=$?
[ "$rc" = 1 ] || bad "existing capture: exit $rc, expected 1"
[ -s "$w/err" ] || bad "existing capture: no message"
no_shm "existing capture" $pid
[ "$(grep -c "signal: {pid:" "$w/cap/board.yaml")" = 4 ] || bad "existing capture: board.yaml replaced"

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
no_shm "SIGINT" "$pid"
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
no_shm "dead slave" "$pid"
for c in arm0 dsp0 dsp1 dsp2; do
	bt2_reads "dead slave" "$w/kill/$c"
done
[ -f "$w/kill/truth.json" ] || bad "dead slave: no truth.json"

exit $fail
