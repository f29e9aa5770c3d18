#!/usr/bin/env bash
# A few seconds of the ring stress run (ring-stress.sh; the long run is
# bench/ring-stress.sh): producer and collector on different CPUs, the
# indices wrapping past 2^32, discard and overwrite modes, with
# "written + discarded = produced" (events and packets) checked exactly.
set -u
cd "$(dirname "$0")"
. ../../lib.sh
timeout 120 bash ./ring-stress.sh "$HETRACE" "$w/stress" 1000000 1024 8 50 || fail=1
exit $fail
