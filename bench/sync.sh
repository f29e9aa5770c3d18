#!/usr/bin/env bash
# Clock sync: pairs per second of the convex-hull fit against
# the absolute target of 1 million pairs/s (no peer tool to anchor on:
# the ratio is to the target), maps per second, and the error against
# exact truth falling as rounds grow from 10 to 10,000.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
lib=$(dirname "$HETRACE")/libhetrace.a
cc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$here/.." -I"$here/../include" \
	-I"$here/../tests/sync" -o "$work/bench" "$here/sync/bench.c" "$lib" \
	-lyaml -ldw -lelf -lm -lpthread
"$work/bench" "${SYNC_ROUNDS:-1000000}"
