#!/usr/bin/env bash
# hetrace demo: the simulated board end to end (sim, sync, paths, report,
# export). The summary names every core's sync quality, the frame
# latencies and the late frames with what delayed them; every file is
# there and readable; a second run into the same directory works.
set -eu
. "$(dirname "$0")/../lib.sh"

run() {
	if ! "$HETRACE" demo -o "$w/demo" --cores 3 --seconds 1.5 >"$w/out" 2>"$w/err"; then
		bad "hetrace demo failed: $(tail -5 "$w/err")"
		return
	fi
	for core in dsp0 dsp1 dsp2; do
		grep -Eq "^$core +accurate " "$w/out" || bad "$core is not accurate: $(grep "^$core " "$w/out")"
	done
	grep -Eq '^arm0 +reference ' "$w/out" || bad "no reference line"
	grep -Eq '^frame: [0-9]+ instances, [0-9]+ met the deadline, [1-9][0-9]* missed it' "$w/out" ||
		bad "no frame line with late frames"
	grep -Eq '^latency: min .* max ' "$w/out" || bad "no latency line"
	# Frame 9 is preempted on dsp1 and dsp2 by the high-priority task.
	grep -Eq '^  late: frame 9 took .*task hiprio [0-9.]+ ms on (dsp1, dsp2|dsp2, dsp1)' "$w/out" ||
		bad "frame 9 not explained: $(grep 'frame 9 ' "$w/out")"
	# Every late frame listed says what delayed it.
	if grep -E '^  late: ' "$w/out" | grep -Ev 'deadline: '; then
		bad "a late frame listed without its cause"
	fi
	# The slaves' instrumented Sobel code, named from hetrace's own ELF.
	grep -Eq '^ +[0-9]+ .* sim_sobel_stripe  sobel\.c:[0-9]+$' "$w/out" ||
		bad "no named function in the profile: $(grep -A3 '^== dsp0' "$w/out")"
	for f in capture/truth.json synced/metadata sync.json report.html trace.perfetto-trace; do
		[ -s "$w/demo/$f" ] || bad "$f missing"
	done
	n=$(babeltrace2 "$w/demo/synced" | wc -l)
	merged=$(sed -n 's/^merged: \([0-9]*\) events.*/\1/p' "$w/out")
	[ "$n" = "$merged" ] || bad "babeltrace2 reads $n events, sync says $merged"
	grep -q '</html>' "$w/demo/report.html" || bad "report.html is cut"
}

run
run # the files of the first run are replaced
"$HETRACE" demo --help | grep -q '^usage: hetrace demo' || bad "--help"
set +e
"$HETRACE" demo extra >/dev/null 2>&1
[ $? = 2 ] || bad "an extra argument is not a usage error"
# A directory that cannot be made: exit 1, the message names it.
: >"$w/file"
"$HETRACE" demo -o "$w/file/demo" >/dev/null 2>"$w/err"
[ $? = 1 ] || bad "an impossible directory does not exit 1"
grep -q "cannot create $w/file/demo" "$w/err" || bad "no message naming the directory: $(cat "$w/err")"
# A step that fails (sim refuses 129 slave cores) stops the demo: exit 1.
"$HETRACE" demo -o "$w/demo9" --cores 129 >"$w/out" 2>"$w/err"
[ $? = 1 ] || bad "a failing step does not exit 1"
grep -q 'from 1 to 128' "$w/err" || bad "the failing step's message is missing: $(cat "$w/err")"
grep -q '^== one clock' "$w/out" && bad "the demo went on after a failing step"
set -e
[ $fail = 0 ] && echo "hetrace demo: summary, files and a second run checked"
exit $fail
