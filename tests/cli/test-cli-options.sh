#!/usr/bin/env bash
# The command line (docs/cli.md): every numeric option of every command
# refuses a negative value, garbage, a number followed by garbage and a
# value out of range with exit 2 and a message naming the option and the
# value (demo's are sim's); a good value is accepted (the command then fails later, on its
# missing input: exit 1, no word about the option). --elf is checked the
# same way in the four commands that take it. `hetrace help COMMAND`
# prints COMMAND's help.
set -u
cd "$(dirname "$0")"
. ../lib.sh

nowhere=$w/nosuch

# CMD NAME OPTION GOOD OUT ARGS...: NAME is the option's name in the
# message (the long name; OPTION may be a short letter or an alias).
numeric() {
	local cmd=$1 name=$2 opt=$3 good=$4 out=$5
	shift 5
	local v rc
	for v in -1 abc 12x "$out"; do
		"$HETRACE" "$cmd" "$opt" "$v" "$@" >"$w/out" 2>"$w/err"
		rc=$?
		[ "$rc" = 2 ] || bad "$cmd $opt $v: exit $rc, expected 2"
		grep -qF -- "--$name: " "$w/err" && grep -qF -- "'$v'" "$w/err" ||
			bad "$cmd $opt $v: the message names neither --$name nor '$v': $(head -2 "$w/err")"
	done
	"$HETRACE" "$cmd" "$opt" "$good" "$@" >"$w/out" 2>"$w/err"
	rc=$?
	[ "$rc" = 1 ] || bad "$cmd $opt $good: exit $rc, expected 1 (the missing input): $(head -2 "$w/err")"
	grep -qF -- "--$name: " "$w/err" && bad "$cmd $opt $good: refused: $(head -2 "$w/err")"
}

trace=("$nowhere")
numeric info top --top 5 1000001 "${trace[@]}"
numeric info top -n 0 99999999999999999999999 "${trace[@]}"
numeric states window --window 1000 0 "${trace[@]}"
numeric states window -w 1000 9223372036854775808 "${trace[@]}"
numeric states pending --pending 10 1073741825 "${trace[@]}"
numeric paths worst --worst 3 100001 -p "$nowhere" "${trace[@]}"
numeric paths worst -n 3 0 -p "$nowhere" "${trace[@]}"
numeric profile top --top 5 100000001 "${trace[@]}"
numeric profile top -n 0 100000001 "${trace[@]}"
numeric export window --window 1000 0 -o "$w/e.json" "${trace[@]}"
numeric export window -w 1000 0 -o "$w/e.json" "${trace[@]}"
numeric report budget --budget 14 4097 -o "$w/r.html" "${trace[@]}"
numeric report budget -b 14 0 -o "$w/r.html" "${trace[@]}"
numeric sync max-pairs --max-pairs 10 4294967296 --no-merge "$nowhere"
numeric hull reference --reference 0 4294967296 "$nowhere"
numeric hull window --window 8 1001 "$nowhere"
numeric hull rate --rate 1=1000000 1=0 "$nowhere"
numeric record interval --interval 5 10001 -o "$w/rec" "$nowhere"
numeric record interval -i 5 10001 -o "$w/rec" "$nowhere"
numeric record duration --duration 0.5 2e9 -o "$w/rec" "$nowhere"
numeric record duration -d 0.5 0 -o "$w/rec" "$nowhere"
sim=(-o /dev/null/cap)
numeric sim cores --cores 2 129 "${sim[@]}"
numeric sim duration --duration 0.2 3601 "${sim[@]}"
numeric sim duration -d 0.2 0.01 "${sim[@]}"
numeric sim duration --seconds 0.2 3601 "${sim[@]}"
numeric sim frame-ms --frame-ms 33 10001 "${sim[@]}"
numeric sim deadline-ms --deadline-ms 16 0.05 "${sim[@]}"
numeric sim sync-ms --sync-ms 10 10001 "${sim[@]}"
numeric sim preempt-every --preempt-every 10 1000001 "${sim[@]}"
numeric sim sync-burst --sync-burst 3 101 "${sim[@]}"
numeric sim idle-spin-us --idle-spin-us 5 100001 "${sim[@]}"
# demo hands --cores and --duration to its sim step: a value sim refuses
# is that step failing (exit 1, tests/demo), with sim's message.
for opt in --cores --duration -d --seconds; do
	"$HETRACE" demo -o "$w/demo" "$opt" 12x >"$w/out" 2>"$w/err"
	rc=$?
	[ "$rc" = 1 ] || bad "demo $opt 12x: exit $rc, expected 1"
	grep -qF "hetrace sim: --" "$w/err" && grep -qF "got '12x'" "$w/err" ||
		bad "demo $opt 12x: no message from sim: $(head -2 "$w/err")"
done
qemu=(-o "$w/q" --fw-dir "$nowhere" --qemu-arm "$nowhere" --qemu-riscv "$nowhere"
	--work "$w/qrun" --no-fsync -q)
numeric qemu shift --shift 2 11 "${qemu[@]}"
numeric qemu sync-ms --sync-ms 5 10001 "${qemu[@]}"
numeric qemu repeat --repeat 2 5 "${qemu[@]}"
numeric qemu extra-ms --extra-ms 10 3600001 "${qemu[@]}"

# --elf [CORE=]FILE: one parser, one message, one limit.
for cmd in print profile export report; do
	args=("$nowhere")
	case $cmd in export | report) args+=(-o "$w/$cmd.out") ;; esac
	for v in "" "main="; do
		"$HETRACE" "$cmd" --elf "$v" "${args[@]}" >"$w/out" 2>"$w/err"
		rc=$?
		[ "$rc" = 2 ] || bad "$cmd --elf '$v': exit $rc, expected 2"
		grep -qF -- "--elf: expected [CORE=]FILE, got '$v'" "$w/err" ||
			bad "$cmd --elf '$v': message: $(head -2 "$w/err")"
	done
	many=()
	for i in $(seq 65); do many+=(-e "$nowhere"); done
	"$HETRACE" "$cmd" "${many[@]}" "${args[@]}" >"$w/out" 2>"$w/err"
	rc=$?
	[ "$rc" = 2 ] && grep -qF -- "--elf: more than 64" "$w/err" ||
		bad "$cmd: 65 --elf: exit $rc: $(head -2 "$w/err")"
	"$HETRACE" "$cmd" --elf "main=$nowhere" "${args[@]}" >"$w/out" 2>"$w/err"
	rc=$?
	[ "$rc" = 1 ] && grep -qF "$nowhere" "$w/err" ||
		bad "$cmd --elf main=MISSING: exit $rc: $(head -2 "$w/err")"
done

# hetrace help [COMMAND]
"$HETRACE" help >"$w/out" 2>"$w/err" || bad "help: exit $?"
grep -q '^commands:' "$w/out" || bad "help: no command list"
cmds=$(sed -n 's/^  \([a-z][a-z0-9_]*\)  .*/\1/p' "$w/out")
[ "$(echo "$cmds" | wc -w)" -ge 14 ] || bad "help: $(echo "$cmds" | wc -w) commands listed"
for cmd in $cmds; do
	"$HETRACE" help "$cmd" >"$w/out" 2>"$w/err"
	rc=$?
	[ "$rc" = 0 ] || bad "help $cmd: exit $rc"
	"$HETRACE" "$cmd" --help >"$w/want" 2>/dev/null
	cmp -s "$w/out" "$w/want" || bad "help $cmd: not $cmd --help"
	grep -q "^usage: hetrace $cmd" "$w/out" || bad "help $cmd: no usage line"
done
"$HETRACE" help nosuch >"$w/out" 2>"$w/err"
rc=$?
[ "$rc" = 2 ] || bad "help nosuch: exit $rc, expected 2"
grep -q "unknown command 'nosuch'" "$w/err" || bad "help nosuch: message: $(head -1 "$w/err")"
[ -s "$w/out" ] && bad "help nosuch: wrote on stdout"

exit $fail
