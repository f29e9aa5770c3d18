#!/usr/bin/env bash
# LTTng-UST on the master (docs/lttng.md): a private lttng-sessiond
# records the simulated board's master process (`hetrace sim --lttng`,
# hetrace's provider libhetrace-lttng.so) while the slaves trace with
# hetrace's runtime; `hetrace sync --master-lttng` puts the slaves on
# the LTTng clock; babeltrace2 checks the result (check-lttng.py and
# its text output of the LTTng events, before and after).
# Bad input: an LTTng trace without the provider's events, one from
# another run, clocks that cannot be kept or mapped, two LTTng traces,
# a directory without one, a session daemon that cannot start.
#
# The session daemon runs with its own HOME/LTTNG_HOME under a
# temporary directory, as an unprivileged user when we are root (a
# root sessiond would be the system's, in /var/run/lttng), and is
# killed at the end, pass or fail; every lttng command has a time
# limit, so nothing here can hang.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../lib.sh
. "$here/../../lib.sh"

for tool in lttng lttng-sessiond babeltrace2; do
	command -v "$tool" >/dev/null || {
		echo "FAIL: $tool is missing (scripts/deps.sh check)"
		exit 1
	}
done
provider=$(dirname "$HETRACE")/libhetrace-lttng.so
[ -e "$provider" ] || {
	echo "FAIL: $provider was not built (liblttng-ust-dev missing?)"
	exit 1
}

# shellcheck source=../../lttng-session.sh
. "$here/../../lttng-session.sh"
trap 'stop_sessiond; rm -rf "$w"' EXIT
mkdir -p "$w/home" "$w/lttng"
lttng_as_user "$w"
export HOME="$w/home" LTTNG_HOME="$w/home"
run() { "${as_user[@]}" env HOME="$HOME" LTTNG_HOME="$HOME" "$@"; }
lt() { timeout 20 "${as_user[@]}" env HOME="$HOME" LTTNG_HOME="$HOME" lttng "$@" >>"$w/lttng.log" 2>&1; }

# Starts a session daemon whose home is $1; fails (with the reason)
# when it is not answering within 10 s.
start_sessiond() {
	local home=$1
	"${as_user[@]}" env HOME="$home" LTTNG_HOME="$home" \
		timeout 300 lttng-sessiond --no-kernel >"$w/sessiond.log" 2>&1 &
	sessiond_pid=$!
	for _ in $(seq 100); do
		if timeout 5 "${as_user[@]}" env HOME="$home" LTTNG_HOME="$home" \
			lttng list >/dev/null 2>&1; then
			return 0
		fi
		kill -0 "$sessiond_pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "lttng-sessiond cannot start (home $home): $(tail -n 3 "$w/sessiond.log")"
	stop_sessiond
	return 1
}

# A session daemon that cannot start (its home is not writable): the
# start fails quickly and says so.
mkdir -p "$w/badhome" && chmod 500 "$w/badhome"
[ ${#as_user[@]} = 0 ] && chmod 000 "$w/badhome"
t0=$(date +%s)
if start_sessiond "$w/badhome/sub" >"$w/bad-start.out"; then
	bad "a session daemon started with an unusable home"
	stop_sessiond
fi
grep -q "lttng-sessiond cannot start" "$w/bad-start.out" ||
	bad "no message for a session daemon that cannot start"
[ $(($(date +%s) - t0)) -le 15 ] || bad "the failed start took more than 15 s"

start_sessiond "$HOME" || {
	echo "FAIL: the session daemon cannot start: no LTTng test possible"
	exit 1
}

# main: per-UID buffers, every provider event, LTTng's usual contexts.
# nopairs: a filter that no provider event passes (no pairs).
# pid: per-PID buffers, one trace per process (two runs).
lt create main --output="$w/lttng/main"
lt enable-channel -u ch
lt enable-event -u -c ch 'hetrace:*'
lt add-context -u -c ch -t vpid -t vtid -t procname
lt start
lt create nopairs --output="$w/lttng/nopairs"
lt enable-event -u 'hetrace:*' --filter 'seq == 4294967295 && slave == 4294967295'
lt start
lt create pid --output="$w/lttng/pid"
lt enable-channel -u --buffers-pid ch
lt enable-event -u -c ch 'hetrace:*'
lt start

# lttng-ust's own allocations are not freed at exit (LeakSanitizer).
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
run LTTNG_UST_REGISTER_TIMEOUT=5000 timeout 60 "$HETRACE" sim -o "$w/cap" \
	--lttng --cores 4 --seconds 1.5 --no-fsync -q ||
	bad "hetrace sim --lttng failed"
lt stop main
lt destroy main
lt stop nopairs
lt destroy nopairs
# another run of the board, recorded by the per-PID session only; its
# trace is the one that was not there before it
find "$w/lttng/pid" -name metadata | sort >"$w/pid-before"
run LTTNG_UST_REGISTER_TIMEOUT=5000 timeout 60 "$HETRACE" sim -o "$w/cap2" \
	--lttng --cores 2 --seconds 0.5 --no-fsync -q ||
	bad "hetrace sim --lttng (second run) failed"
lt stop pid
lt destroy pid
stop_sessiond

# --lttng without the provider: a clear message, exit 1.
HETRACE_LTTNG_PROVIDER=$w/none.so timeout 20 "$HETRACE" sim -o "$w/cap-np" \
	--lttng --cores 1 --seconds 0.2 --no-fsync -q 2>"$w/np.err" &&
	bad "sim --lttng without a provider succeeded"
grep -q "cannot load hetrace's LTTng-UST provider" "$w/np.err" ||
	bad "sim --lttng without a provider: $(cat "$w/np.err")"

ust=$(dirname "$(find "$w/lttng/main" -name metadata | head -n 1)")
[ -n "$ust" ] && [ -d "$ust" ] || {
	echo "FAIL: the LTTng session wrote no trace"
	cat "$w/lttng.log"
	exit 1
}

# The sync: the LTTng trace stands for arm0 (the capture's master).
if "$HETRACE" sync "$w/cap" --master-lttng "$w/lttng/main" -o "$w/out" \
	--report "$w/sync.json" >"$w/sync.out" 2>"$w/sync.err"; then
	:
else
	bad "sync --master-lttng: exit $?: $(cat "$w/sync.err")"
fi
cat "$w/sync.out"
n=$(grep -Ec '^dsp[0-3] +accurate ' "$w/sync.out" || true)
[ "$n" = 4 ] || bad "$n of 4 slaves accurate"
grep -q "^arm0: LTTng-UST trace .*kept" "$w/sync.out" || bad "no LTTng line"
grep -q "the capture's trace .*arm0 is left out" "$w/sync.err" ||
	bad "the replaced core is not reported"
/usr/bin/python3 "$here/check-lttng.py" "$w/cap" "$ust" "$w/out" arm0 ||
	bad "check-lttng.py"

# babeltrace2's text of the LTTng events, before and after: the same
# lines once the merged packet context's core_id is set aside.
for opt in "" "--clock-cycles"; do
	# shellcheck disable=SC2086
	babeltrace2 --no-delta $opt "$ust" >"$w/before.txt"
	# shellcheck disable=SC2086
	babeltrace2 --no-delta $opt "$w/out" | grep ' hetrace:' |
		sed 's/{ core_id = 0, /{ /' >"$w/after.txt"
	if ! cmp -s "$w/before.txt" "$w/after.txt"; then
		bad "babeltrace2 $opt: the LTTng events changed"
		diff "$w/before.txt" "$w/after.txt" | head -n 6
	fi
done
echo "babeltrace2: $(wc -l <"$w/before.txt") LTTng events identical"
# hetrace print reads the result as babeltrace2 does.
"$HETRACE" print "$w/out" >"$w/print.txt" 2>&1 || bad "hetrace print failed"
babeltrace2 "$w/out" >"$w/bt.txt"
cmp -s "$w/print.txt" "$w/bt.txt" || bad "hetrace print differs from babeltrace2"

# An LTTng trace inside the capture is found without --master-lttng.
cp -r "$w/cap" "$w/cap-in"
cp -r "$w/lttng/main" "$w/cap-in/lttng"
"$HETRACE" sync "$w/cap-in" -o "$w/out-in" >"$w/in.out" 2>"$w/in.err" ||
	bad "sync of a capture holding the LTTng trace: $(cat "$w/in.err")"
[ "$(grep -Ec '^dsp[0-3] +accurate ' "$w/in.out")" = 4 ] ||
	bad "LTTng trace inside the capture: $(cat "$w/in.out")"

# An LTTng trace without the provider's events: no pairs, no trace
# unless --allow-unsynced, then the slaves are marked.
"$HETRACE" sync "$w/cap" --master-lttng "$w/lttng/nopairs" -o "$w/np" \
	>"$w/np.out" 2>"$w/np.err" && bad "sync without pairs succeeded"
grep -q "no pairs: the LTTng-UST trace .* has no event of hetrace's provider" \
	"$w/np.err" || bad "no-pairs message: $(cat "$w/np.err")"
[ ! -e "$w/np/metadata" ] || bad "a trace was written without pairs"
"$HETRACE" sync "$w/cap" --master-lttng "$w/lttng/nopairs" -o "$w/np" \
	--allow-unsynced >"$w/np.out" 2>"$w/np.err" ||
	bad "sync --allow-unsynced without pairs: $(cat "$w/np.err")"
[ "$(grep -c 'absent .*UNSYNCHRONIZED' "$w/np.out")" = 4 ] ||
	bad "unsynchronized slaves not marked"
babeltrace2 -o ctf-metadata "$w/np" | grep -q 'sync_unsynced_cores = "dsp0,dsp1,dsp2,dsp3"' ||
	bad "env sync_unsynced_cores"
[ "$(babeltrace2 "$w/np" | wc -l)" -gt 1000 ] || bad "babeltrace2 on the unsynced merge"

# The LTTng trace of another run: the fit fails, clearly.
other=$(find "$w/lttng/pid" -name metadata | sort | comm -13 "$w/pid-before" -)
[ "$(echo "$other" | wc -l)" = 1 ] && [ -n "$other" ] ||
	bad "the second run's LTTng trace: '$other'"
other=$(dirname "$other")
"$HETRACE" sync "$w/cap" --master-lttng "$other" -o "$w/other" \
	>"$w/other.out" 2>"$w/other.err" && bad "sync with another run's LTTng trace succeeded"
grep -q "no clock transform fits its messages (fail) (was the LTTng-UST trace recorded" \
	"$w/other.err" || bad "other run: $(cat "$w/other.err")"
# two LTTng traces (per-PID buffers of two runs)
"$HETRACE" sync "$w/cap" --master-lttng "$w/lttng/pid" -o "$w/two" \
	2>"$w/two.err" >/dev/null && bad "two LTTng traces accepted"
grep -q "a second LTTng-UST trace" "$w/two.err" || bad "two: $(cat "$w/two.err")"
# a directory without an LTTng trace
"$HETRACE" sync "$w/cap" --master-lttng "$w/cap2/dsp0" -o "$w/none" \
	2>"$w/none.err" >/dev/null && bad "a hetrace trace accepted as LTTng"
grep -q "not an LTTng-UST trace" "$w/none.err" || bad "none: $(cat "$w/none.err")"
"$HETRACE" sync "$w/cap" --master-lttng "$w/missing" -o "$w/none" \
	2>"$w/none.err" >/dev/null && bad "a missing LTTng directory accepted"
grep -q "missing" "$w/none.err" || bad "missing: $(cat "$w/none.err")"

# Clocks that cannot be kept or mapped: the LTTng trace with its
# metadata as text, changed.
mangle() { # NAME SED-EXPRESSION
	mkdir -p "$w/$1"
	cp "$ust"/* "$w/$1/" 2>/dev/null || true
	babeltrace2 -o ctf-metadata "$ust" | sed "$2" >"$w/$1/metadata"
}
# (the offset in cycles zeroed: in ns at 1 MHz it is out of range)
mangle mhz 's/freq = 1000000000;/freq = 1000000;/; s/^\(\t*\)offset = [0-9]*;/\1offset = 0;/'
"$HETRACE" sync "$w/cap" --master-lttng "$w/mhz" -o "$w/mhz-out" \
	2>"$w/mhz.err" >/dev/null && bad "a 1 MHz LTTng clock accepted"
grep -q "reference clock monotonic cannot be kept: its frequency is 1000000 Hz" \
	"$w/mhz.err" || bad "mhz: $(cat "$w/mhz.err")"
mangle noclock '/map = clock\.monotonic\.value;/d; /^clock {/,/^};/d'
"$HETRACE" sync "$w/cap" --master-lttng "$w/noclock" -o "$w/nc-out" \
	2>"$w/nc.err" >/dev/null && bad "an LTTng trace without clock accepted"
grep -q "core arm0 has no clock" "$w/nc.err" || bad "noclock: $(cat "$w/nc.err")"

[ $fail = 0 ] && echo "test-lttng-sync: ok"
exit $fail
