#!/usr/bin/env bash
# Records LTTng-UST traces of corpus/ust-app.c with a private
# lttng-sessiond: its own HOME/LTTNG_HOME under WORK, run as an
# unprivileged user when we are root (so it neither uses nor disturbs a
# system session daemon in /var/run/lttng), killed at the end whatever
# happens. Every lttng command has a time limit.
# usage: ust-record.sh WORK N_ITERATIONS test|bench
#   test:  WORK/out/uid (per-UID buffers, plus a tiny discard-mode
#          channel that loses events) and WORK/out/pid (per-PID buffers)
#   bench: WORK/out/bench, one channel with big buffers
set -eu
here=$(cd "$(dirname "$0")" && pwd)
L=$1
n=$2
mode=$3

mkdir -p "$L/home" "$L/out"
cp "$here/ust-app.c" "$here/ust-tp.h" "$L/"
cc -O2 -I"$L" -o "$L/ust-app" "$L/ust-app.c" -llttng-ust -ldl -lpthread

# shellcheck source=../../../lttng-session.sh
. "$here/../../../lttng-session.sh"
lttng_as_user "$L"
export HOME="$L/home" LTTNG_HOME="$L/home"

trap stop_sessiond EXIT

lt() { timeout 20 "${as_user[@]}" env HOME="$HOME" LTTNG_HOME="$HOME" lttng "$@" >/dev/null; }

"${as_user[@]}" env HOME="$HOME" LTTNG_HOME="$HOME" \
	lttng-sessiond --no-kernel >"$L/sessiond.log" 2>&1 &
sessiond_pid=$!
for _ in $(seq 100); do
	lt list >/dev/null 2>&1 && break
	sleep 0.1
done
lt list

if [ "$mode" = test ]; then
	lt create uid --output="$L/out/uid"
	lt enable-channel -u --subbuf-size=4096 --num-subbuf=2 --discard tiny
	lt enable-event -u -c tiny 'hetrace_test:simple'
	lt enable-channel -u big
	lt enable-event -u -c big 'hetrace_test:*'
	lt add-context -u -c big -t vpid -t procname -t vtid
	lt start
	lt create pid --output="$L/out/pid"
	lt enable-channel -u --buffers-pid ch
	lt enable-event -u -c ch 'hetrace_test:*'
	lt start
	sessions="uid pid"
else
	lt create bench --output="$L/out/bench"
	lt enable-channel -u --subbuf-size=4M --num-subbuf=16 big
	lt enable-event -u -c big 'hetrace_test:*'
	lt start
	sessions=bench
fi
(cd "$L" && LTTNG_UST_REGISTER_TIMEOUT=5000 timeout 120 "${as_user[@]}" ./ust-app "$n")
for s in $sessions; do
	lt stop "$s"
	lt destroy "$s"
done
stop_sessiond
