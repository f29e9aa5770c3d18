#!/usr/bin/env bash
# --begin/--end/--timerange and --core on info, export, states,
# profile and paths (print: tests/ctf/print/test-range.sh), on the
# three-core scenario trace of tests/export (cores cpu0, dsp1, dsp2;
# events from 1000 to 10000 ns): the analyses see the range and the
# cores only (states' times add up to the range, info's counts are
# print's, export's cores and events are the ones selected); an
# unknown core is exit 1 naming the cores, a bad time exit 2 naming
# the option and the column, on every command.
set -u
cd "$(dirname "$0")"
. ../lib.sh
. ../export/lib.sh

board_build "$w" || exit 1
board_trace "$w" sc <../export/scenario.script || exit 1
T=$w/sc

# states: cpu0 from 3000 to 8000 ns: task + isr + idle + unknown = 5000
timeout 20 "$HETRACE" states --json --begin 0.000003 --end 0.000008 "$T" >"$w/st.json" 2>/dev/null ||
	bad "states range: exit $?"
# core NAME FILE: its events, first and last ns, and the sum of its times
core() {
	python3 - "$1" "$2" <<'PY'
import json, sys
for c in json.load(open(sys.argv[2]))["cores"]:
    if c["name"] == sys.argv[1]:
        print(c["events"], c["first_ns"], c["last_ns"],
              c["task_ns"] + c["isr_ns"] + c["idle_ns"] + c["unknown_ns"])
PY
}
[ "$(core cpu0 "$w/st.json")" = "11 3000 8000 5000" ] ||
	bad "states range: cpu0 (events, first, last, times added): $(core cpu0 "$w/st.json")"
# a relative range, and two cores of three
"$HETRACE" states --json --timerange +2us,+5us -c cpu0,dsp1 "$T" >"$w/st2.json" 2>/dev/null ||
	bad "states timerange: exit $?"
[ "$(core cpu0 "$w/st2.json" | cut -d' ' -f1-3)" = "9 3000 5300" ] && [ -z "$(core dsp2 "$w/st2.json")" ] ||
	bad "states timerange: cpu0 $(core cpu0 "$w/st2.json"), dsp2 $(core dsp2 "$w/st2.json")"
# one core by its id: as by its name
"$HETRACE" states -c 1 "$T" >"$w/st3.out" 2>/dev/null || bad "states -c 1: exit $?"
"$HETRACE" states -c dsp1 "$T" >"$w/st4.out" 2>/dev/null || bad "states -c dsp1: exit $?"
cmp -s "$w/st3.out" "$w/st4.out" && grep -q '^core dsp1' "$w/st3.out" &&
	[ "$(grep -c '^core' "$w/st3.out")" = 1 ] || bad "states -c 1 differs from -c dsp1"

# info: the range's counts are print's
"$HETRACE" info --begin 0.000003 --end 0.000008 "$T" >"$w/info.out" || bad "info range: exit $?"
n=$(awk '/^    events:/ { s += $2 } END { print s }' "$w/info.out")
p=$("$HETRACE" print --begin 0.000003 --end 0.000008 "$T" | wc -l)
[ "$n" = "$p" ] && [ "$n" = 15 ] || bad "info range: $n events, print $p"
grep -q 'first event: 0.000003000 s' "$w/info.out" || bad "info range: first event"

# export: the cores and events selected only
"$HETRACE" export -f chrome-json -c dsp1,cpu0 -o "$w/x.json" "$T" 2>"$w/x.err" || bad "export -c: exit $?"
grep -q ' 2 cores,' "$w/x.err" || bad "export -c: $(tail -1 "$w/x.err")"
"$HETRACE" export -f chrome-json --event 'task_*' -o "$w/y.json" "$T" 2>"$w/y.err" || bad "export --event: exit $?"
grep -q ': 6 events: .* 0 instants, 0 flows' "$w/y.err" || bad "export --event: $(tail -1 "$w/y.err")"
"$HETRACE" export -f chrome-json --begin 0.000003 --end 0.000008 -o "$w/z.json" "$T" 2>"$w/z.err" ||
	bad "export range: exit $?"
grep -q ': 15 events:' "$w/z.err" || bad "export range: $(tail -1 "$w/z.err")"

# report: the cores and the range selected only (the page's data)
"$HETRACE" report -c dsp1,cpu0 --begin 0.000003 --end 0.000008 -o "$w/r.html" "$T" 2>"$w/r.err" ||
	bad "report range: exit $?: $(head -3 "$w/r.err")"
python3 - "$w/r.html" <<'PY' || bad "report range: the page's cores or times"
import sys
sys.path.insert(0, "../export/report")
import reportdata
d = reportdata.load(sys.argv[1])
names = [c["name"] for c in d["cores"]]
assert sorted(names) == ["cpu0", "dsp1"], names
assert 3000 <= int(d["t0"]) and int(d["t0"]) + d["span"] <= 8000, (d["t0"], d["span"])
PY

# every command: an unknown core, a bad time, an end before the begin
for cmd in info states profile "export -o $w/e.json" "paths -p ../analysis/paths/pipeline.yaml" "report -o $w/r2.html"; do
	# shellcheck disable=SC2086
	expect_exit "$cmd --core dsp9" 1 "$HETRACE" $cmd --core dsp9 "$T"
	expect_err "$cmd --core dsp9" "no core 'dsp9' in the trace (cores: cpu0, dsp1, dsp2)"
	# shellcheck disable=SC2086
	usage_case "--begin '1:00': column 1" $cmd --begin 1:00 "$T"
	# shellcheck disable=SC2086
	usage_case "begin is after --end" $cmd --begin 2 --end 1 "$T"
done
exit $fail
