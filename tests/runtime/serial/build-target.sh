#!/usr/bin/env bash
# Builds the native test target (native-target.c: a Linux process that
# acts as an MCU on a serial line) into OUT_DIR/native-target:
#   tests/runtime/serial/build-target.sh OUT_DIR
# CC and CFLAGS come from the environment (default: cc, -O2 -g); SAN=1
# adds ASan and UBSan. HETRACE is the hetrace binary (default
# build/hetrace). The tracer, the runtime and the glue are not
# instrumented; native-workload.c is (-finstrument-functions). Linked
# with a GNU build id and without -pie (nm's addresses are the run-time
# ones, as on an MCU).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=${1:?usage: build-target.sh OUT_DIR}
HETRACE=${HETRACE:-$top/build/hetrace}
CC=${CC:-cc}
CFLAGS=${CFLAGS:--O2 -g}
san=
if [ -n "${SAN:-}" ]; then
	san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
fi
mkdir -p "$out/gen" "$out/obj"
"$HETRACE" gen "$here/native-target.yaml" -o "$out/gen" >/dev/null
"$top/tools/embed-text.sh" "$out/gen/metadata" "$out/gen/nt-metadata.c" nt_metadata
warn="-Wall -Wextra -Werror"
inc="-I$top/include -I$out/gen -I$here"
# shellcheck disable=SC2086
for src in "$top"/runtime/*.c "$out/gen/nt-trace.c" "$out/gen/nt-metadata.c"; do
	$CC -std=c99 $warn $CFLAGS $san -fno-pie $inc -c "$src" \
		-o "$out/obj/$(basename "$src" .c).o"
done
# shellcheck disable=SC2086
$CC -std=c11 $warn $CFLAGS $san -fno-pie $inc -c "$here/native-target.c" \
	-o "$out/obj/native-target.o"
# shellcheck disable=SC2086
$CC -std=c11 $warn $CFLAGS $san -fno-pie -finstrument-functions $inc \
	-c "$here/native-workload.c" -o "$out/obj/native-workload.o"
# shellcheck disable=SC2086
$CC $CFLAGS $san -no-pie -Wl,--build-id -o "$out/native-target" \
	"$out"/obj/*.o
cp "$out/gen/metadata" "$out/metadata"
