#!/usr/bin/env bash
# hetrace print == babeltrace2 on LTTng-UST 2.13 traces recorded during
# the test: per-UID and per-PID buffers, a tiny discard-mode channel that
# loses events, two threads (two CPUs' streams).
#
# The test runs its own lttng-sessiond with its own HOME/LTTNG_HOME in
# a temporary directory, as an unprivileged user when run as root (so it
# neither uses nor disturbs a system session daemon in /var/run/lttng),
# and always kills it at the end. Every lttng command has a time limit.
set -eu
. "$TOP/tests/print/lib.sh"

for tool in lttng lttng-sessiond; do
	command -v "$tool" >/dev/null || {
		echo "$tool is missing (scripts/deps.sh check: lttng-tools)"
		exit 1
	}
done
dpkg-query -W -f='${Status}' liblttng-ust-dev 2>/dev/null | grep -q "ok installed" || {
	echo "liblttng-ust-dev is missing (scripts/deps.sh check)"
	exit 1
}

chmod 755 "$W"
L="$W/lttng"
mkdir -p "$L/home" "$L/out"
cp "$TOP/tests/print/corpus/ust-app.c" "$TOP/tests/print/corpus/ust-tp.h" "$L/"
cc -O1 -I"$L" -o "$L/ust-app" "$L/ust-app.c" -llttng-ust -ldl -lpthread

as_user=()
if [ "$(id -u)" = 0 ]; then
	chown -R 65534:65534 "$L"
	as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
export HOME="$L/home" LTTNG_HOME="$L/home"

sessiond_pid=
stop_sessiond() {
	if [ -n "$sessiond_pid" ]; then
		kill "$sessiond_pid" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$sessiond_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$sessiond_pid" 2>/dev/null || true
		sessiond_pid=
	fi
}
trap 'stop_sessiond; ht_print_cleanup' EXIT

lt() { timeout 20 "${as_user[@]}" env HOME="$HOME" LTTNG_HOME="$HOME" lttng "$@" >/dev/null; }

"${as_user[@]}" env HOME="$HOME" LTTNG_HOME="$HOME" \
	lttng-sessiond --no-kernel >"$L/sessiond.log" 2>&1 &
sessiond_pid=$!
for _ in $(seq 100); do
	lt list >/dev/null 2>&1 && break
	sleep 0.1
done
lt list

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
(cd "$L" && LTTNG_UST_REGISTER_TIMEOUT=5000 timeout 60 "${as_user[@]}" ./ust-app 3000)
lt stop uid
lt stop pid
lt destroy uid
lt destroy pid
stop_sessiond

find "$L/out" -name metadata | sort
n=$(babeltrace2 "$L/out" 2>/dev/null | wc -l)
echo "$n events recorded"
[ "$n" -gt 6000 ]

for t in "$L"/out/uid/ust/uid/*/64-bit "$L"/out/pid/ust/pid/*; do
	check "$t"
done
check_all "$L/out"
finish
