#!/usr/bin/env bash
# hetrace ctl against fake targets (fake-target.py) for what no real
# target does: one that never answers (a timeout naming the command,
# in bounded time), one that answers HELLO only, one that speaks
# protocol 9.0 (both versions named); the bytes a command puts on the
# line (a Thumb function's address with bit 0 set, as the hooks see
# it: checked against readelf when arm-none-eabi-gcc is there); the
# build id compared with the ELF's (a warning, an error with
# --strict-build-id, a note when the target sends none); an unknown
# function name (the nearest names, exit 2, nothing sent); usage errors.
set -u
cd "$(dirname "$0")"
. ../../lib.sh

fake_pid=
start_fake() { # SOCKET MODE [LOG]
	rm -f "$1"
	python3 fake-target.py "$@" &
	fake_pid=$!
	for _ in $(seq 100); do
		[ -S "$1" ] && return 0
		sleep 0.05
	done
	bad "fake target $2 did not start"
}
stop_fake() {
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null && wait "$fake_pid" 2>/dev/null
	fake_pid=
}
trap 'stop_fake; rm -rf "$w"' EXIT

# A target that accepts and stays silent: the first exchange times out,
# named, for the command asked; well within the guard.
start_fake "$w/s.sock" silent
expect_exit "silent target" 1 bounded 20 200 "$HETRACE" ctl "unix:$w/s.sock" --timeout 300 status
expect_err "silent target" "no reply to 'hello' in 0.3 s (sent first, for 'status')"
stop_fake

# It answers HELLO, then nothing: the timeout names the command itself.
start_fake "$w/h.sock" hello
expect_exit "mute after hello" 1 bounded 20 200 "$HETRACE" ctl "unix:$w/h.sock" --timeout 300 status
expect_err "mute after hello" "no reply to 'status' in 0.3 s"
expect_exit "mute after hello: ping" 1 bounded 20 200 "$HETRACE" ctl "unix:$w/h.sock" --timeout 200 ping
expect_err "mute after hello: ping" "no reply to 'ping' in 0.2 s"
stop_fake

# A target of another protocol major: both versions in the message.
start_fake "$w/v.sock" major9
expect_exit "version mismatch" 1 bounded 20 200 "$HETRACE" ctl "unix:$w/v.sock" status
expect_err "version mismatch" "protocol version mismatch: the target speaks 9.0, hetrace 1.0"
stop_fake

# Replies shorter than their layout, pages that claim too much or never
# end: a message naming the command, exit 1, bounded time and memory.
start_fake "$w/x.sock" bad
expect_exit "short status" 1 bounded 20 200 "$HETRACE" ctl "unix:$w/x.sock" status
expect_err "short status" "reply to 'status' has 10 bytes, expected at least 104"
expect_exit "17 entries" 1 bounded 20 200 "$HETRACE" ctl "unix:$w/x.sock" list
expect_err "17 entries" "profile page at index 119: 17 entries in 32 bytes"
stop_fake
start_fake "$w/l.sock" loop
expect_exit "endless pages" 1 bounded 20 200 "$HETRACE" ctl "unix:$w/l.sock" dump-profile
expect_err "endless pages" "the profile pages do not end"
expect_exit "endless pages: profile TARGET" 1 bounded 20 200 "$HETRACE" profile "unix:$w/l.sock"
expect_err "endless pages: profile TARGET" "the profile pages do not end"
stop_fake

# Nothing listening: a clear failure, not a hang.
expect_exit "no target" 1 bounded 20 200 "$HETRACE" ctl "unix:$w/none.sock" status
expect_err "no target" "none.sock"

# An ELF: the Cortex-M3 one when the cross compiler is there (Thumb:
# the symbol's value has bit 0 set and so has what the hooks receive),
# else a native one.
cat >"$w/fw.c" <<'C'
void __cyg_profile_func_enter(void *fn, void *site) __attribute__((no_instrument_function));
void __cyg_profile_func_exit(void *fn, void *site) __attribute__((no_instrument_function));
void *volatile last;
void __cyg_profile_func_enter(void *fn, void *site) { last = fn; (void)site; }
void __cyg_profile_func_exit(void *fn, void *site) { last = fn; (void)site; }
int process_frame(int x) { return x * 3; }
int process_line(int x) { return x + 1; }
int main(void) { return process_frame(2) + process_line(1); }
C
if command -v arm-none-eabi-gcc >/dev/null; then
	arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -O2 -finstrument-functions \
		-nostartfiles -specs=nosys.specs -Wl,-e,main -Wl,--build-id \
		"$w/fw.c" -o "$w/fw.elf" || exit 1
	thumb=1
else
	cc -O2 -no-pie -Wl,--build-id "$w/fw.c" -o "$w/fw.elf" || exit 1
	thumb=0
fi
sym() { readelf -sW "$w/fw.elf" | awk -v n="$1" '$8 == n && $4 == "FUNC" { print $2; exit }'; }
le64() { python3 -c "import struct,sys; print(struct.pack('<Q', int(sys.argv[1], 16)).hex())" "$1"; }
pf=$(sym process_frame)
main_addr=$(sym main)
[ "$thumb" = 0 ] || [ $((0x$pf & 1)) = 1 ] || bad "Thumb symbol without bit 0: $pf"
elf_id=$(readelf -n "$w/fw.elf" | awk '/Build ID/ { print $3 }')
[ -n "$elf_id" ] || bad "no build id in fw.elf"

# The target's build id is the ELF's: no warning; the trigger's bytes
# are the symbol values (Thumb bit included), nth and caller.
FAKE_BUILD_ID=$elf_id start_fake "$w/r.sock" record "$w/r.log"
expect_exit "trigger" 0 bounded 20 200 "$HETRACE" ctl "unix:$w/r.sock" --elf "$w/fw.elf" trigger process_frame --nth 3 --caller main
grep -q "warning\|note" "$w/err" && bad "matching build id: $(cat "$w/err")"
want="trigger $(le64 "$pf")03000000""00000000$(le64 "$main_addr")"
grep -qx "$want" "$w/r.log" || bad "trigger bytes: want '$want', log: $(cat "$w/r.log")"
grep -q "process_frame (0x0*$(printf %x $((0x$pf))))" "$w/out" || bad "trigger output: $(cat "$w/out")"
expect_exit "stopper by address" 0 "$HETRACE" ctl "unix:$w/r.sock" --elf "$w/fw.elf" stopper "0x$pf"
grep -qx "stopper $(le64 "$pf")" "$w/r.log" || bad "stopper bytes: $(cat "$w/r.log")"
grep -q "stopper process_frame" "$w/out" || bad "stopper by address not named: $(cat "$w/out")"
expect_exit "clear the trigger" 0 "$HETRACE" ctl "unix:$w/r.sock" trigger none
grep -qx "trigger $(printf '0%.0s' $(seq 48))" "$w/r.log" || bad "trigger none: $(cat "$w/r.log")"

# An unknown name: the nearest names, exit 2, nothing sent.
: >"$w/r.log"
expect_exit "unknown name" 2 bounded 20 200 "$HETRACE" ctl "unix:$w/r.sock" --elf "$w/fw.elf" trigger procss_frame
expect_err "unknown name" "trigger: unknown function 'procss_frame' in .*fw.elf; nearest: process_frame"
expect_exit "unknown prefix" 2 "$HETRACE" ctl "unix:$w/r.sock" --elf "$w/fw.elf" couple process
expect_err "unknown prefix" "nearest: process_frame, process_line\|nearest: process_line, process_frame"
expect_exit "unknown caller" 2 "$HETRACE" ctl "unix:$w/r.sock" --elf "$w/fw.elf" trigger process_frame --caller mian
expect_err "unknown caller" "caller: unknown function 'mian'.*nearest: main"
expect_exit "name without --elf" 2 "$HETRACE" ctl "unix:$w/r.sock" stopper process_frame
expect_err "name without --elf" "needs the firmware's ELF (--elf FW)\|names need the firmware's ELF"
[ -s "$w/r.log" ] && bad "a command was sent for a bad name: $(cat "$w/r.log")"
stop_fake

# Another build id: a warning (names may be wrong); an error with
# --strict-build-id; none from the target: a note.
FAKE_BUILD_ID=00112233445566778899aabbccddeeff00112233 start_fake "$w/b.sock" record
expect_exit "build id mismatch" 0 "$HETRACE" ctl "unix:$w/b.sock" --elf "$w/fw.elf" status
expect_err "build id mismatch" "warning: .*fw.elf: build id $elf_id differs from the target's 00112233445566778899aabbccddeeff00112233: .*may be wrong"
grep -q "DIFFERENT" "$w/out" || bad "status: no DIFFERENT build id: $(cat "$w/out")"
expect_exit "--strict-build-id" 1 "$HETRACE" ctl "unix:$w/b.sock" --elf "$w/fw.elf" --strict-build-id status
expect_err "--strict-build-id" "differs from the target's.*--strict-build-id"
expect_exit "status --json" 0 "$HETRACE" ctl "unix:$w/b.sock" --elf "$w/fw.elf" status --json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['build_id_match'] is False and d['core'] == 'fake', d" "$w/out" ||
	bad "status --json: $(cat "$w/out")"
stop_fake
start_fake "$w/n.sock" record
expect_exit "no build id" 0 "$HETRACE" ctl "unix:$w/n.sock" --elf "$w/fw.elf" hello
expect_err "no build id" "note: the target sent no build id"
stop_fake

# Usage errors: exit 2, before any line is opened.
usage_case "unknown command 'stat'" ctl "unix:$w/x.sock" stat
usage_case "no COMMAND given" ctl "unix:$w/x.sock"
usage_case "no TARGET given" ctl
usage_case "--nth is not an option of 'stopper'" ctl "unix:$w/x.sock" stopper f --nth 2
usage_case "'dump-trace' needs -o CAPTURE" ctl "unix:$w/x.sock" dump-trace
usage_case "'trigger' takes one FUNC" ctl "unix:$w/x.sock" trigger
usage_case "--json is not an option of 'ping'" ctl "unix:$w/x.sock" ping --json
usage_case "bad --sort key" ctl "unix:$w/x.sock" dump-profile --sort fast
usage_case "--timeout" ctl "unix:$w/x.sock" --timeout 0 status
usage_case "-o CAPTURE is required" trace "unix:$w/x.sock"
usage_case "--couple F is --trigger F --stopper F" trace "unix:$w/x.sock" --couple f --trigger g -o "$w/c"
usage_case "--nth and --caller are conditions of --trigger" trace "unix:$w/x.sock" --nth 2 -o "$w/c"
usage_case "no TARGET given" trace -o "$w/c"
usage_case "a live target takes one --elf FW" profile "unix:$w/x.sock" --callgraph
usage_case "--timeout and --strict-build-id are for a live TARGET" profile "$w" --timeout 5
# the trace's names are checked before the line: nothing listens here
expect_exit "trace: unknown name" 2 "$HETRACE" trace "unix:$w/x.sock" --elf "$w/fw.elf" --trigger proces -o "$w/c"
expect_err "trace: unknown name" "trigger: unknown function 'proces'.*nearest: process_frame, process_line"
exit $fail
