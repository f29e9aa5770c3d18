#!/usr/bin/env bash
# Builds the function-tracing demo into OUT_DIR:
#   examples/instrument/build.sh OUT_DIR [HETRACE]
# then: OUT_DIR/demo OUT_DIR/trace/main 20
#       hetrace profile OUT_DIR/trace --elf OUT_DIR/demo --callgraph
# The tracer (generated code, glue, runtime) is compiled without
# -finstrument-functions; demo.c and util.c with it, util.c excluded by
# file and swap() by name (gcc's documented exclude lists).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$1
HETRACE=${2:-${HETRACE:-$top/build/hetrace}}
CC=${CC:-cc}
CFLAGS=${CFLAGS:--O2 -g}
mkdir -p "$out/gen" "$out/trace"
"$HETRACE" gen "$here/config.yaml" -o "$out/gen" >/dev/null
cp "$out/gen/metadata" "$out/trace/metadata"
inc="-I$top/include -I$out/gen -I$here"
warn="-std=c11 -Wall -Wextra -Werror"
# The tracer: never instrumented. One ht_instr per thread (__thread).
for src in "$top/runtime/instrument.c" "$top/runtime/packet-ring.c" \
	"$top/runtime/port.c" "$here/trace-glue.c" "$out/gen/hti-trace.c"; do
	$CC $warn $CFLAGS $inc -DHT_PORT_INSTR_TLS=__thread -c "$src" \
		-o "$out/$(basename "$src" .c).o"
done
# The program: instrumented, with the two exclude lists.
instr="-finstrument-functions
  -finstrument-functions-exclude-file-list=util.c
  -finstrument-functions-exclude-function-list=swap"
# shellcheck disable=SC2086
$CC $warn $CFLAGS $instr $inc -c "$here/demo.c" -o "$out/demo.o"
# shellcheck disable=SC2086
$CC $warn $CFLAGS $instr $inc -c "$here/util.c" -o "$out/util.o"
$CC $CFLAGS -pthread -o "$out/demo" "$out/demo.o" "$out/util.o" \
	"$out/trace-glue.o" "$out/hti-trace.o" "$out/instrument.o" \
	"$out/packet-ring.o" "$out/port.o"
