#!/usr/bin/env bash
# hetrace sync on a capture with a core it knows of and cannot read:
# its metadata deleted, truncated or emptied, its stream file a dangling
# link or a FIFO, its directory gone (only the master's events name its
# core id). Each is exit 1 naming the core, the file and why, in
# bounded time and memory; --allow-unsynced merges the rest, names the
# core in a warning, on stdout, in the env and in the report, and keeps
# every event of the other cores.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
py=/usr/bin/python3
. "$here/sync-lib.sh"

# events NAME CORE: the events of CORE in the merged trace NAME-out
events() {
	babeltrace2 "$w/$1-out" 2>/dev/null | grep -c "core_id = $2[, ]"
}

$py "$here/mkcapture.py" "$w/cap" "$w/truth.json"
run good 0 "$w/cap" -o "$w/good-out"
arm=$(events good 0)
dsp=$(events good 1)
[ "$arm" -gt 1000 ] && [ "$dsp" -gt 1000 ] || bad "good: $arm, $dsp events"

# case NAME SETUP MESSAGE: the capture broken by SETUP (run in the copy)
# fails naming MESSAGE; with --allow-unsynced mcu0 is left out, the others
# are all there.
case_missing() {
	local name=$1 setup=$2 msg=$3
	cp -r "$w/cap" "$w/$name"
	(cd "$w/$name" && eval "$setup")
	run "$name" 1 "$w/$name" -o "$w/$name-no"
	has "$name" err "core mcu0 cannot be read: .*$msg"
	has "$name" err 'allow-unsynced leaves'
	[ -e "$w/$name-no/metadata" ] && bad "$name: a trace was written"
	run "$name-allow" 0 "$w/$name" -o "$w/$name-allow-out" --allow-unsynced \
		-r "$w/$name.json"
	has "$name-allow" err "warning: core mcu0 cannot be read and is left out"
	has "$name-allow" out "^mcu0: MISSING, left out: "
	grep -aq "sync_missing_cores = \"mcu0" "$w/$name-allow-out/metadata" ||
		bad "$name: no sync_missing_cores in the env"
	$py - "$w/$name.json" <<'PY' || bad "$name: report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["missing_cores"][0]["name"] == "mcu0", r["missing_cores"]
assert "mcu0" in r["missing_cores"][0]["file"]
PY
	[ "$(events "$name-allow" 0)" = "$arm" ] || bad "$name: arm0 events lost"
	[ "$(events "$name-allow" 1)" = "$dsp" ] || bad "$name: dsp0 events lost"
}
case_missing nometa 'rm mcu0/metadata' 'mcu0: no metadata file'
case_missing truncmeta 'truncate -s 700 mcu0/metadata' "mcu0/metadata: .*mcu0/metadata:[0-9]*:[0-9]*: "
case_missing emptymeta ': >mcu0/metadata' 'mcu0/metadata: '
case_missing dangling 'rm mcu0/stream && ln -s /nonexistent/x mcu0/stream' \
	'mcu0/stream: stream file cannot be read: No such file'
case_missing fifo 'mv mcu0/stream mcu0/stream0 && mkfifo mcu0/stream' \
	'mcu0/stream: not a regular file'
if [ "$(id -u)" != 0 ]; then
	case_missing noperm 'chmod 000 mcu0/stream' \
		'mcu0/stream: stream file cannot be read: Permission denied'
fi

# the directory gone: the master's sync_req names core id 2
cp -r "$w/cap" "$w/gone"
rm -r "$w/gone/mcu0"
run gone 1 "$w/gone" -o "$w/gone-out"
has gone err 'core core_id 2 cannot be read: .*gone/arm0/stream: offset=[0-9]*: core arm0: sync_req names it (slave = 2)'
run gone-allow 0 "$w/gone" -o "$w/gone-allow-out" --allow-unsynced
has gone-allow out '^core_id 2: MISSING'
[ "$(events gone-allow 1)" = "$dsp" ] || bad "gone: dsp0 events lost"

# nothing readable at all
mkdir -p "$w/none/a"
echo x >"$w/none/a/stream"
run none 1 "$w/none" -o "$w/none-out"
has none err 'no readable core: .*none/a: no metadata file'

[ $fail = 0 ] && echo "test-sync-missing: ok"
exit $fail
