#!/usr/bin/env bash
# hetrace record --board against a real board built here: board-slaves.c
# creates a POSIX shm region holding N slaves' rings and mailboxes and
# forks the slaves, each tracing with the real runtime (include/hetrace,
# runtime/) and answering its mailbox when its doorbell rings: a signal,
# a byte on a unix socket, a word written into the region, a byte on a
# serial line (a pseudo terminal). The board
# file, written here with ${NAME} placeholders, is recorded, the capture
# synchronized by hetrace sync and read by babeltrace2 (check-board.py:
# every tick, the master's rounds, the slaves on the master's time).
# Then: the ring directory instead of explicit rings, a slave that never
# ACKs (exit 1 naming the core and its doorbell, the others kept), a
# slave that stops answering mid-run (kill -STOP: exit 1 with the time,
# its packets kept), --seconds while the slaves run on, Ctrl-C, and a
# master ring whose metadata does not fit the recorder's sync events.
set -u
cd "$(dirname "$0")"
: "${TOP:=$(cd ../../.. && pwd)}"
. ../../lib.sh
shm="/ht-board-$$"
cleanup() {
	[ -n "${slaves_pid:-}" ] && { pkill -CONT -P "$slaves_pid"; kill "$slaves_pid"; } 2>/dev/null
	rm -rf "$w"
	rm -f /dev/shm/"${shm#/}"*
	true
}
trap cleanup EXIT
py=/usr/bin/python3

"$HETRACE" gen slave.yaml -o "$w/g" >/dev/null || { echo "FAIL: gen slave.yaml"; exit 1; }
cc -std=c99 -Wall -Wextra -Werror -O1 -g \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-I"$w/g" -I"$TOP/include" -I"$TOP" -DMETADATA_PATH="\"$w/g/metadata\"" \
	-o "$w/board-slaves" board-slaves.c "$w/g/barectf.c" \
	"$TOP/runtime/packet-ring.c" "$TOP/runtime/port.c" \
	"$TOP/runtime/sync-slave.c" "$TOP/runtime/ring-directory.c" ||
	{ echo "FAIL: cannot build board-slaves.c"; exit 1; }

# start ARGS... N: the slaves in the background; returns once they run
# (their pids in $w/ready: "dspI PID").
start() {
	rm -f "$w/ready"
	"$w/board-slaves" -S "$w" -r "$w/ready" "$@" >"$w/slaves.out" 2>&1 &
	slaves_pid=$!
	for _ in $(seq 1000); do
		[ -e "$w/ready" ] && return 0
		sleep 0.01
	done
	bad "board-slaves did not start: $(cat "$w/slaves.out")"
	return 1
}
finish() { wait "$slaves_pid"; slaves_pid=; }
pid() { awk -v c="$1" '$1 == c { print $2 }' "$w/ready"; }
pty() { awk -v c="$1" '$1 == c { print $3 }' "$w/ready"; }

# board N [ring: directory]: the board file of N slaves, each with the
# doorbell of $bells (signal, socket, mmio or serial) in turn.
board() {
	local n=$1 dir=${2:-} i b
	{
		echo "board: \"test-\${KIND}\""
		echo "regions:"
		echo "  shm0: {shm: \"\${SHM}\", size: \"\${SIZE}\"}"
		echo "sync: {period: 10ms, timeout: 50ms, burst: 4, stall: \"\${STALL}\"}"
		[ -n "$dir" ] && echo "ring-directory: {region: shm0, offset: 0x8000}"
		echo "cores:"
		echo "  - {name: arm0, role: master}"
		for i in $(seq 0 $((n - 1))); do
			b=$(echo "$bells" | cut -d, -f$((i + 1)))
			echo "  - name: dsp$i"
			echo "    role: slave"
			if [ -n "$dir" ]; then
				echo "    ring: directory"
			else
				printf '    ring: {region: shm0, offset: 0x%x, size: 256K}\n' $((0x10000 + i * 0x40000))
				printf '    mailbox: {region: shm0, offset: 0x%x}\n' $((0x1000 + i * 256))
			fi
			case $b in
			signal) echo "    doorbell: {signal: {pid: \"\${PID$i}\", signal: SIGUSR1, pin-away: true}}" ;;
			socket) echo "    doorbell: {socket: {path: \"\${DIR}/dsp$i.sock\", byte: 0x21, log: \"\${DIR}/dsp$i.log\"}}" ;;
			serial) echo "    doorbell: {serial: {device: \"\${PTY$i}\", baud: 115200, byte: 0x21, log: \"\${DIR}/dsp$i.log\"}}" ;;
			mmio) printf '    doorbell: {mmio: {region: shm0, offset: 0x%x, width: 64, value: 1}}\n' $((0x800 + i * 8)) ;;
			esac
		done
	} >"$w/board.yaml"
}

# record N KIND STALL ARGS...: hetrace record --board with the defines
# of the running slaves; output in $w/out and $w/err.
record() {
	local n=$1 kind=$2 stall=$3 i defs=()
	shift 3
	for i in $(seq 0 $((n - 1))); do
		defs+=(-D "PID$i=$(pid dsp$i)" -D "PTY$i=$(pty dsp$i)")
	done
	expect_exit "$kind" "$want" bounded 60 1024 "$HETRACE" record -q \
		--board "$w/board.yaml" -o "$w/cap-$kind" "${defs[@]}" \
		-D KIND="$kind" -D SHM="$shm" -D SIZE=$((0x10000 + n * 0x40000)) \
		-D STALL="$stall" -D DIR="$w" "$@"
}

# json CAPTURE EXPR: a value of CAPTURE/record.json (python on `r`).
json() { "$py" -c "import json, sys; r = json.load(open(sys.argv[1])); print($2)" "$1/record.json"; }

# 1. Four slaves, one per doorbell kind; the rings stop when the slaves
#    end, and so does the recording.
bells=signal,socket,mmio,serial
board 4
start -d "$bells" -t 2 "$shm" 4 && {
	want=0 record 4 mixed 1s
	finish
	cap="$w/cap-mixed"
	[ "$(json "$cap" 'r["complete"]')" = True ] || bad "mixed: record.json: not complete: $(cat "$cap/record.json")"
	for i in 0 1 2 3; do
		[ "$(json "$cap" "r['cores'][$((i + 1))]['sync']['status']")" = ok ] ||
			bad "mixed: dsp$i: sync status: $(cat "$cap/record.json")"
	done
	cmp -s "$w/board.yaml" "$cap/board.yaml" || bad "mixed: CAPTURE/board.yaml differs from the board file"
	[ -f "$cap/arm0/sync" ] && [ -f "$cap/arm0/metadata" ] || bad "mixed: no arm0/sync"
	grep -q "hello from dsp1" "$w/dsp1.log" || bad "mixed: the socket's log: $(cat "$w/dsp1.log" 2>&1)"
	grep -q "hello from dsp3 on a uart" "$w/dsp3.log" || bad "mixed: the serial line's log: $(cat "$w/dsp3.log" 2>&1)"
	expect_exit "mixed: sync" 0 "$HETRACE" sync "$cap" -o "$w/synced-mixed"
	for i in 0 1 2 3; do
		grep -Eq "^dsp$i +accurate .* -$((i + 1))\.000 s " "$w/out" ||
			bad "mixed: dsp$i not synchronized at -$((i + 1)) s: $(cat "$w/out")"
	done
	"$py" check-board.py "$w/synced-mixed" "$cap/record.json" \
		$(awk '/^dsp[0-9]+ ticks / { print $1 "=" $3 }' "$w/slaves.out") || bad "mixed: check-board.py"
}

# 2. The ring directory: the slaves publish their rings and mailboxes.
bells=signal,signal
board 2 directory
start -R -d signal -t 1 "$shm" 2 && {
	want=0 record 2 directory 1s
	finish
	expect_exit "directory: sync" 0 "$HETRACE" sync "$w/cap-directory" -o "$w/synced-dir"
	"$py" check-board.py "$w/synced-dir" "$w/cap-directory/record.json" \
		$(awk '/^dsp[0-9]+ ticks / { print $1 "=" $3 }' "$w/slaves.out") || bad "directory: check-board.py"
}

# 3. dsp1 never answers its socket doorbell: exit 1 within about the
#    stall (0.5 s), naming the core and the mechanism; the capture says
#    it is not complete, dsp0's packets are kept.
bells=signal,socket
board 2
start -d signal,socket -t 5 -x 1 "$shm" 2 && {
	start_s=$(date +%s.%N)
	want=1 record 2 noack 500ms
	took=$(echo "$(date +%s.%N) - $start_s" | bc)
	expect_err "noack" "dsp1: no ACK to [0-9]* sync requests in 0\.[5-9] s (doorbell: socket byte 0x21 on $w/dsp1.sock)"
	[ "$(echo "$took < 4" | bc)" = 1 ] || bad "noack: took $took s (stall 0.5 s)"
	cap="$w/cap-noack"
	[ "$(json "$cap" 'r["complete"]')" = False ] || bad "noack: record.json says complete"
	[ "$(json "$cap" 'r["cores"][2]["sync"]["status"]')" = no-ack ] || bad "noack: dsp1 status: $(cat "$cap/record.json")"
	json "$cap" 'r["error"]' | grep -q "dsp1: no ACK" || bad "noack: record.json error: $(cat "$cap/record.json")"
	[ "$(json "$cap" 'r["cores"][1]["ring"]["packets"]')" -gt 0 ] || bad "noack: dsp0 kept no packets"
	bt2_reads "noack: dsp0" "$cap/dsp0"
	finish
}

# 4. dsp0 stops (SIGSTOP) 0.8 s into the run: reported stopped at about
#    0.8 s, the run goes on to --seconds 2.5, its packets are kept, exit 1.
bells=signal,signal
board 2
start -d signal -t 4 -X 0@0.8 "$shm" 2 && {
	want=1 record 2 stopped 500ms --seconds 2.5
	expect_err "stopped" "dsp0: stopped answering at [0-9.]* s (its packets so far are kept)"
	cap="$w/cap-stopped"
	[ "$(json "$cap" 'r["cores"][1]["sync"]["status"]')" = stopped ] || bad "stopped: dsp0 status: $(cat "$cap/record.json")"
	at=$(json "$cap" 'r["cores"][1]["sync"]["stopped_at_s"]')
	[ "$(echo "$at > 0.4 && $at < 1.4" | bc)" = 1 ] || bad "stopped: stopped at $at s, want about 0.8"
	[ "$(json "$cap" 'r["cores"][2]["sync"]["status"]')" = ok ] || bad "stopped: dsp1 status: $(cat "$cap/record.json")"
	secs=$(json "$cap" 'r["seconds"]')
	[ "$(echo "$secs >= 2.5 && $secs < 4" | bc)" = 1 ] || bad "stopped: recorded $secs s, want --seconds 2.5"
	[ "$(json "$cap" 'r["cores"][1]["ring"]["packets"]')" -gt 0 ] || bad "stopped: dsp0 kept no packets"
	babeltrace2 "$cap/dsp0" >"$w/stopped.txt" 2>/dev/null || bad "stopped: babeltrace2 cannot read dsp0"
	n=$(grep -c ' tick: ' "$w/stopped.txt")
	[ "$n" -gt 1000 ] || bad "stopped: dsp0: $n ticks kept"
	pkill -CONT -P "$slaves_pid"
	finish
}

# 5. Ctrl-C while the slaves run: the recording ends, says the signal,
#    and the capture is complete and synchronizes.
bells=signal,mmio
board 2
start -d signal,mmio -t 3 "$shm" 2 && {
	"$HETRACE" record --board "$w/board.yaml" -o "$w/cap-int" \
		-D "PID0=$(pid dsp0)" -D KIND=int -D SHM="$shm" \
		-D SIZE=$((0x10000 + 2 * 0x40000)) -D STALL=1s -D DIR="$w" \
		>"$w/int.out" 2>"$w/int.err" &
	rec=$!
	sleep 1.5
	kill -INT "$rec"
	rc=0
	timeout 20 tail --pid="$rec" -f /dev/null || bad "int: record did not end"
	wait "$rec" || rc=$?
	[ "$rc" = 0 ] || bad "int: exit $rc: $(cat "$w/int.err")"
	grep -q "stopped by signal 2" "$w/int.err" || bad "int: $(cat "$w/int.err")"
	grep -q "^dsp1: sync ok: " "$w/int.out" || bad "int: summary: $(cat "$w/int.out")"
	[ "$(json "$w/cap-int" 'r["complete"]')" = True ] || bad "int: record.json: $(cat "$w/cap-int/record.json")"
	expect_exit "int: sync" 0 "$HETRACE" sync "$w/cap-int" -o "$w/synced-int"
	finish
}

# 6. A master ring whose metadata declares the sync events otherwise
#    than the recorder writes them (here: a slave's tracer) is refused
#    before anything is recorded.
bells=signal
board 1
sed -i 's/^  - {name: arm0, role: master}$/  - {name: arm0, role: master, ring: {region: shm0, offset: 0x50000, size: 256K}}/' "$w/board.yaml"
start -d signal -t 1 "$shm" 2 && {
	want=1 record 2 master-ring 1s
	expect_err "master-ring" "core 'arm0': its ring's metadata does not declare sync_req and sync_recv as the recorder writes them"
	[ ! -e "$w/cap-master-ring" ] || bad "master-ring: a capture directory was created"
	finish
}

exit $fail
