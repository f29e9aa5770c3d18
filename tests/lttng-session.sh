# Shared pieces of the scripts that run a private lttng-sessiond
# (sourced by platforms/lttng/test-lttng-sync.sh and
# ctf/print/corpus/ust-record.sh, bash):
#   lttng_as_user DIR  when we are root, gives DIR to the unprivileged
#                      user 65534 (every parent made searchable) and
#                      sets as_user to the command prefix that runs as
#                      that user, so the daemon neither uses nor
#                      disturbs a system one; otherwise as_user is empty
#   stop_sessiond      kills the daemon $sessiond_pid (if any): TERM,
#                      5 s to exit, then KILL
as_user=()
sessiond_pid=

lttng_as_user() {
	local d=$1
	as_user=()
	[ "$(id -u)" = 0 ] || return 0
	chmod 755 "$1"
	while d=$(dirname "$d") && [ "$d" != / ]; do
		chmod o+x "$d" 2>/dev/null || true
	done
	chown -R 65534:65534 "$1"
	as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
}

stop_sessiond() {
	[ -n "$sessiond_pid" ] || return 0
	kill "$sessiond_pid" 2>/dev/null || true
	for _ in $(seq 50); do
		kill -0 "$sessiond_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$sessiond_pid" 2>/dev/null || true
	wait "$sessiond_pid" 2>/dev/null || true
	sessiond_pid=
}
