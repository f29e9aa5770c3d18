#!/usr/bin/env bash
# Switch functions promoted to task switches (docs/instrument.md, "Task
# switches"): tests/runtime/instrument/drv.c runs main and three
# coroutine tasks switching with swapcontext() inside sched_switch(),
# the configured switch function; each task yields in the middle of a
# call. Checked: func_task_switch records (count, prev/next pairs, in
# the order the program switches), func_task_name once per task,
# func_entry/func_exit balanced per task (one shadow stack per task on
# the target: the on-target profile's counts), and `hetrace states`
# showing the task slices named from the name table.
# Built with UBSan only: ASan does not follow swapcontext stacks.
set -eu
cd "$(dirname "$0")"
. ../../lib.sh
: "${TOP:=$(cd ../../.. && pwd)}"
: "${HETRACE_OPT:=$HETRACE}"

SAN="-fsanitize=undefined -fno-sanitize-recover=undefined"
. ./drv-lib.sh
build_drv "$w/drv"

N=50
run() { # MODE: trace in $w/MODE, program output $w/MODE.out, text $w/MODE.txt
	mkdir -p "$w/$1"
	cp "$w/g/metadata" "$w/$1/"
	timeout 20 "$w/drv" "$1" "$w/$1/main" $N >"$w/$1.out" || bad "$1: drv exited $?"
	babeltrace2 --clock-cycles "$w/$1" >"$w/$1.txt" 2>"$w/$1.err" ||
		bad "$1: babeltrace2 failed: $(head -3 "$w/$1.err")"
}
addr_of() { awk -v f="$1" '$1 == "addr" && $2 == f { print toupper($3) }' "$2" | sed 's/^0X/0x/'; }

run tasks
sw=$((3 * N + 4))
[ "$(grep -c ' func_task_switch: ' "$w/tasks.txt")" = $sw ] ||
	bad "tasks: $(grep -c ' func_task_switch: ' "$w/tasks.txt") func_task_switch, want $sw"
# The switches in the program's order: main -> alpha, then alpha ->
# beta -> gamma -> alpha ... and gamma -> main at the end.
grep ' func_task_switch: ' "$w/tasks.txt" |
	sed 's/.*prev_tid = \([0-9]*\), next_tid = \([0-9]*\), next_prio = \(-*[0-9]*\) }.*/\1 \2 \3/' >"$w/sw.txt"
awk -v n=$sw 'NR == 1 && !($1 == 10 && $2 == 11) { print "first: " $0; bad = 1 }
	NR > 1 && $1 != last { print "line " NR ": prev " $1 " after next " last; bad = 1 }
	NR > 1 && NR < n - 1 && $2 != ($1 == 13 ? 11 : $1 + 1) { print "line " NR ": " $0; bad = 1 }
	$3 != 13 - $2 { print "line " NR ": prio " $3; bad = 1 }
	{ last = $2 } END { if (!($1 == 13 && $2 == 10)) { print "last: " $0; bad = 1 } exit bad }' "$w/sw.txt" ||
	bad "tasks: switch sequence"
for t in "10, prio = 3, name = \"main\"" "11, prio = 2, name = \"alpha\"" \
	"12, prio = 1, name = \"beta\"" "13, prio = 0, name = \"gamma\""; do
	[ "$(grep -c "func_task_name: .*{ tid = $t }" "$w/tasks.txt")" = 1 ] || bad "tasks: name record tid = $t"
done
# Records carry the running task: per tid, every exit matches the
# innermost entry (tid from the common context); 3 calls stay open per
# task (task_body, yield_next, sched_switch).
awk '/ func_(entry|exit): / {
	match($0, /tid = [0-9]+/); t = substr($0, RSTART + 6, RLENGTH - 6)
	match($0, /addr = 0x[0-9A-F]+/); a = substr($0, RSTART + 7, RLENGTH - 7)
	if ($0 ~ / func_entry: /) { st[t, ++d[t]] = a; next }
	if (d[t] == 0 || st[t, d[t]] != a) { print "tid " t ": exit " a " unmatched"; bad = 1; next }
	d[t]--
}
END { for (t in d) if (t != 10 && d[t] != 3) { print "tid " t ": " d[t] " open"; bad = 1 }
	if (d[10] != 0) { print "main: " d[10] " open"; bad = 1 }
	exit bad }' "$w/tasks.txt" || bad "tasks: entries and exits per task"
ss=$(addr_of sched_switch "$w/tasks.out")
ou=$(addr_of co_round "$w/tasks.out")
grep -q "func_profile: .*{ addr = $ss, calls = $sw," "$w/tasks.txt" || bad "tasks: on-target sched_switch calls"
grep -q "func_profile: .*{ addr = $ou, calls = $((3 * N))," "$w/tasks.txt" || bad "tasks: on-target co_round calls"
# One shadow stack per task: nothing unbalanced but the 9 calls open.
grep -q "func_profile_stats: .*{ lost_calls = 0, deep_calls = 0, unbalanced = 9, nested = 0 }" "$w/tasks.txt" ||
	bad "tasks: on-target stats: $(grep func_profile_stats "$w/tasks.txt")"
# co_round() is timed across its yields: its inclusive time covers the
# rounds of the other tasks, so it is more than its exclusive time.
grep "func_profile: .*{ addr = $ou," "$w/tasks.txt" | awk '{
	match($0, /incl = [0-9]+/); i = substr($0, RSTART + 7, RLENGTH - 7)
	match($0, /excl = [0-9]+/); e = substr($0, RSTART + 7, RLENGTH - 7)
	exit !(i + 0 > 0 && e + 0 > 0) }' || bad "tasks: co_round not timed"

# The host: task slices from func_task_switch, named from func_task_name.
bounded 20 2000 "$HETRACE_OPT" states "$w/tasks" >"$w/states.txt" 2>"$w/states.err" ||
	bad "tasks: states failed: $(head -3 "$w/states.err")"
for t in "11 alpha" "12 beta" "13 gamma" "10 main"; do
	set -- $t
	awk -v id="$1" -v nm="$2" '$1 == "task" && $2 == id && $3 == nm { f = 1 } END { exit !f }' "$w/states.txt" ||
		bad "tasks: states does not name tid $1 $2"
done
[ "$(awk -v N=$N '$1 == "task" && $2 ~ /^1[1-3]$/ && $7 == N + 1' "$w/states.txt" | wc -l)" = 3 ] ||
	bad "tasks: not N + 1 slices of each coroutine task"
set --
grep -q "context switches $sw," "$w/states.txt" ||
	bad "tasks: states context switches: $(grep -i switch "$w/states.txt")"
grep -q ' ? ' "$w/states.txt" && bad "tasks: an unnamed task in states"

# The core's shared stack (tasks registered without a stack): the same
# records, the calls of the outgoing task closed at each switch.
run tasks-shared
[ "$(grep -c ' func_task_switch: ' "$w/tasks-shared.txt")" = $sw ] || bad "tasks-shared: func_task_switch count"
st=$(grep func_profile_stats "$w/tasks-shared.txt" | sed 's/.*unbalanced = \([0-9]*\),.*/\1/')
[ "$st" -gt 9 ] || bad "tasks-shared: unbalanced $st, the switches closed no call"

exit $fail
