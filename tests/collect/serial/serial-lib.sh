# Shared by the tests of tests/collect/serial (sourced after tests/lib.sh):
#   build_target          builds the native test target into $w/nt
#                         (tests/runtime/serial/build-target.sh; with ASan
#                         when $HETRACE is an ASan build)
#   start_target ARGS...  starts it in the background: $tpid (also added
#                         to $pids), its output in $w/nt.out; waits for
#                         its socket or pty
#   pids                  the processes started in the background: each
#                         test adds its own; killed at exit, then $w is
#                         removed
#   wait_sock PATH        waits up to 5 s for a socket
#   json KEY...           a value of $cap/record.json (python path)
#   bt2_lost TRACE        the packets babeltrace2 says were discarded
pids=
trap 'kill $pids 2>/dev/null; rm -rf "$w"' EXIT

build_target() {
	local san=
	grep -qa __asan_init "$HETRACE" 2>/dev/null && san=1
	SAN=$san HETRACE=$HETRACE "$TOP/tests/runtime/serial/build-target.sh" \
		"$w/nt" >"$w/build.log" 2>&1 || {
		cat "$w/build.log"
		echo "FAIL: cannot build the native target"
		exit 1
	}
}

wait_sock() {
	for _ in $(seq 100); do
		[ -S "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

start_target() {
	"$w/nt/native-target" "$@" >"$w/nt.out" 2>"$w/nt.err" &
	tpid=$!
	pids="$pids $tpid"
	case "$*" in
	*--pty*)
		for _ in $(seq 100); do
			[ -s "$w/nt.out" ] && break
			sleep 0.05
		done
		;;
	*--unix*) wait_sock "$2" ;;
	esac
}

json() {
	python3 - "$cap/record.json" "$@" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = v[int(k)] if isinstance(v, list) else v[k]
print(json.dumps(v) if isinstance(v, (bool, type(None))) else v)
PY
}

bt2_lost() {
	babeltrace2 "$1" 2>&1 >/dev/null |
		sed -n 's/.*Tracer discarded \([0-9]*\) packet.*/\1/p' |
		awk '{s += $1} END {print s + 0}'
}
