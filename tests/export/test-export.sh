#!/usr/bin/env bash
# hetrace export on traces made here by generated tracing code (the
# three-core board, board.c): the Perfetto file decoded by hand from
# the protobuf wire format and the Chrome JSON parsed, both checked
# against what babeltrace2 reads from the same trace (check-export.py);
# scenario.script's exact slices, fields, flows and counters; a larger
# trace (interning, many packets); damaged and missing input; usage.
set -u
cd "$(dirname "$0")"
. ../lib.sh
. ./lib.sh

board_build "$w" || exit 1
board_trace "$w" sc <scenario.script || exit 1
mkdir -p "$w/big"
cp "$w/g/metadata" "$w/big/"
"$w/board" "$w/big" bench 30000 >/dev/null || exit 1

check() { # NAME TRACE [--scenario]
	local name=$1 trace=$2
	shift 2
	"$HETRACE" export "$trace" --window 2500 -o "$w/$name.pftrace" 2>"$w/$name.perr" ||
		bad "$name: perfetto export failed: $(head -3 "$w/$name.perr")"
	"$HETRACE" export "$trace" -f chrome-json --window 2500 -o "$w/$name.json" 2>"$w/$name.jerr" ||
		bad "$name: json export failed: $(head -3 "$w/$name.jerr")"
	babeltrace2 --clock-cycles "$trace" >"$w/$name.bt2" || bad "$name: babeltrace2 failed"
	python3 check-export.py "$w/$name.pftrace" "$w/$name.json" "$w/$name.bt2" "$@" ||
		bad "$name: check-export.py"
}
check scenario "$w/sc" --scenario --order cpu0,dsp1,dsp2
check big "$w/big"
board_trace "$w" early <early.script || exit 1
check early "$w/early"
# cores met slaves first: the tracks still go master, then slaves by id
board_trace "$w" order <order.script || exit 1
check order "$w/order" --order cpu0,dsp1,dsp2

# The real Perfetto schema, when protoc and Perfetto's perfetto_trace.proto
# are at hand (PERFETTO_PROTO=path; Debian packages protoc, not Perfetto's
# protos): protoc decodes the file as a perfetto.protos.Trace.
proto=${PERFETTO_PROTO:-}
for p in /usr/share/perfetto/protos/perfetto/trace/perfetto_trace.proto \
	/usr/local/share/perfetto/protos/perfetto/trace/perfetto_trace.proto; do
	[ -z "$proto" ] && [ -f "$p" ] && proto=$p
done
if ! command -v protoc >/dev/null; then
	echo "skipped the schema decode: protoc is not installed"
elif [ -z "$proto" ] || [ ! -f "$proto" ]; then
	echo "skipped the schema decode: no perfetto_trace.proto (set PERFETTO_PROTO)"
else
	protoc --proto_path="$(dirname "$proto")" --decode=perfetto.protos.Trace \
		"$(basename "$proto")" <"$w/scenario.pftrace" >"$w/scenario.txt" 2>"$w/protoc.err" ||
		bad "protoc cannot decode the trace: $(head -3 "$w/protoc.err")"
	grep -q 'sibling_order_rank' "$w/scenario.txt" || bad "protoc: no sibling_order_rank"
	grep -q 'child_ordering: EXPLICIT' "$w/scenario.txt" || bad "protoc: no explicit child ordering"
fi
grep -q ' 2 flows, .* 0 anomalies' "$w/early.perr" || bad "early: $(cat "$w/early.perr")"

# the summary counts what was written
grep -q 'perfetto: 26 events: 2 groups, 3 cores, 11 slices, 10 instants, 2 flows, 8 counter samples, 2 anomalies' \
	"$w/scenario.perr" || bad "summary: $(cat "$w/scenario.perr")"
grep -q 'msg_recv id 99 from core 2 without its msg_send' "$w/scenario.perr" ||
	bad "unmatched receive not reported"

# unmatched begin/end: every slice ends, none is negative (checked by
# check-export.py through the same path as above)
board_trace "$w" bad <bad.script || exit 1
"$HETRACE" export "$w/bad" -o "$w/bad.pftrace" 2>"$w/bad.err" || bad "bad: export failed"
grep -q '6 slices, 1 instants, 0 flows, 1 counter samples, 6 anomalies' "$w/bad.err" || bad "bad: anomalies: $(tail -1 "$w/bad.err")"

# function names from an ELF file's symbols (--elf)
cat >"$w/prog.c" <<'C'
int alpha(int x) { return x + 1; }
int beta(int x) { return alpha(x) * 2; }
int main(void) { return beta(1) == 4 ? 0 : 1; }
C
cc -O0 -g -fno-pie -no-pie -o "$w/prog" "$w/prog.c" || exit 1
a=$(nm "$w/prog" | awk '$3 == "alpha" { print $1 }')
b=$(nm "$w/prog" | awk '$3 == "beta" { print $1 }')
board_trace "$w" fn <<EOF2 || exit 1
1 1000 task_switch 0 idle 3 worker 1
1 1100 func_entry $b 0
1 1200 func_entry $a $b
1 1300 func_exit $a $b
1 1400 func_exit $b 0
1 1500 func_entry 123456 0
1 1600 func_exit 123456 0
EOF2
"$HETRACE" export -q -f chrome-json --elf "$w/prog" "$w/fn" -o "$w/fn.json" || bad "elf: export failed"
got=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s@%s" % (e["name"], e["ts"]) for e in sorted(d["traceEvents"], key=lambda e: e.get("ts", 0)) if e["ph"] == "X"))' "$w/fn.json")
[ "$got" = "beta@1.1 alpha@1.2 0x123456@1.5" ] || bad "elf: function slices: $got"
"$HETRACE" export -q --elf "$w/prog" "$w/fn" -o "$w/fn.pftrace" || bad "elf: perfetto export failed"
grep -qa beta "$w/fn.pftrace" || bad "elf: perfetto: no name beta"
"$HETRACE" export --elf "$w/nothing.elf" "$w/fn" -o "$w/fn2.pftrace" 2>"$w/elf.err"
[ $? = 1 ] || bad "missing elf: exit status"
grep -q nothing.elf "$w/elf.err" || bad "missing elf: message: $(cat "$w/elf.err")"

# damaged input: reported with the file, exit 1, the rest still written
mkdir -p "$w/cut"
cp "$w/sc/metadata" "$w/sc/stream_1" "$w/sc/stream_2" "$w/cut/"
head -c 100 "$w/sc/stream_0" >"$w/cut/stream_0"
"$HETRACE" export "$w/cut" -o "$w/cut.pftrace" 2>"$w/cut.err"
rc=$?
[ "$rc" = 1 ] || bad "cut: exit $rc, want 1"
grep -q 'file=.*stream_0 offset=0' "$w/cut.err" || bad "cut: message: $(cat "$w/cut.err")"
[ -s "$w/cut.pftrace" ] || bad "cut: nothing written"

# missing input, unwritable output, usage
"$HETRACE" export "$w/nothing" -o "$w/x.pftrace" 2>"$w/none.err"
[ $? = 1 ] || bad "missing trace: exit status"
grep -q nothing "$w/none.err" || bad "missing trace: message"
"$HETRACE" export "$w/sc" -o "$w/no/such/dir/x" 2>"$w/out.err"
[ $? = 1 ] || bad "unwritable output: exit status"
grep -q 'no/such/dir' "$w/out.err" || bad "unwritable output: message"
for args in "$w/sc" "-f svg -o $w/x $w/sc" "-o $w/x --window 0 $w/sc" "-o $w/x"; do
	# shellcheck disable=SC2086
	"$HETRACE" export $args >/dev/null 2>&1
	[ $? = 2 ] || bad "usage '$args': exit status, want 2"
done
"$HETRACE" export --help | grep -q chrome-json || bad "--help lists no formats"
exit $fail
