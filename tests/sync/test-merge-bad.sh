#!/usr/bin/env bash
# hetrace sync on bad captures: a core without sync messages (absent:
# no trace unless --allow-unsynced, then merged on its own clock and
# marked), duplicated and backward sequence numbers (reported, ignored),
# a damaged and a truncated stream (named with file and offset, the
# rest merged, exit 1), a core missing, no capture at all, usage errors.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
py=/usr/bin/python3
# run NAME EXPECTED_STATUS ARGS...: output in $w/NAME.out (stdout+stderr)
run() {
	local name=$1 want=$2 rc=0
	shift 2
	"$HETRACE" sync "$@" >"$w/$name.out" 2>&1 || rc=$?
	[ "$rc" = "$want" ] || bad "$name: exit $rc, want $want: $(head -5 "$w/$name.out")"
	grep -q 'AddressSanitizer\|runtime error' "$w/$name.out" && bad "$name: sanitizer report"
	return 0
}
has() { grep -q -- "$2" "$w/$1.out" || bad "$1: no '$2' in: $(head -20 "$w/$1.out")"; }

# 1. a core without any sync message: absent
$py "$here/mkcapture.py" "$w/nosync" "$w/nosync.json" --no-sync mcu0
run absent 1 "$w/nosync" -o "$w/absent"
has absent 'mcu0 *absent .*UNSYNCHRONIZED'
has absent 'no trace written.*--allow-unsynced'
[ -e "$w/absent/metadata" ] && bad "absent: a trace was written"
run allowed 0 "$w/nosync" -o "$w/allowed" --allow-unsynced
has allowed 'mcu0 *absent .*UNSYNCHRONIZED'
has allowed 'merged UNSYNCHRONIZED on its own clock'
$py "$here/check-merge.py" "$w/allowed" "$w/nosync.json" arm0=1 dsp0=5000 --unsynced mcu0 ||
	bad "allowed: merged trace"

# 2. a duplicated sync_ack, a sync_recv going backwards
$py "$here/mkcapture.py" "$w/dup" "$w/dup.json" --dup-ack --back-recv
run dup 0 "$w/dup" -o "$w/dup-out"
has dup 'dsp0: 1 x duplicated sequence number'
has dup 'arm0: 1 x inconsistent sequence number'
has dup 'file=.*dup/dsp0/stream offset=[0-9]*: core dsp0: sync_ack repeats sequence number'
has dup 'file=.*dup/arm0/stream offset=[0-9]*: core arm0: sync_recv has a sequence number going backwards'
has dup 'mcu0 *accurate'
has dup 'dsp0 *accurate'

# 3. damaged streams: a packet with a bad magic, a truncated file
$py "$here/mkcapture.py" "$w/cap" "$w/truth.json"
cp -r "$w/cap" "$w/magic"
$py - "$w/magic/mcu0/stream" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off = 0
for i in range(2):
    off += struct.unpack_from("<Q", d, off + 24)[0] // 8
struct.pack_into("<I", d, off, 0xDEADBEEF)
open(sys.argv[1], "wb").write(d)
PY
run magic 1 "$w/magic" -o "$w/magic-out"
has magic 'file=.*magic/mcu0/stream offset=[0-9]*: wrong packet magic'
has magic 'mcu0: 1 x damaged packet'
has magic 'damaged packet(s) skipped: the result is incomplete'
n=$(babeltrace2 "$w/magic-out" 2>/dev/null | wc -l)
[ "$n" -gt 2000 ] || bad "magic: the rest was not merged ($n events)"
cp -r "$w/cap" "$w/trunc"
truncate -s 30000 "$w/trunc/mcu0/stream"
run trunc 1 "$w/trunc" -o "$w/trunc-out"
has trunc 'file=.*trunc/mcu0/stream offset=[0-9]*: .*past the end of the file'
n=$(babeltrace2 "$w/trunc-out" 2>/dev/null | wc -l)
[ "$n" -gt 2500 ] || bad "trunc: the rest was not merged ($n events)"

# 4. a core missing: the slaves' master
cp -r "$w/cap" "$w/nomaster"
rm -r "$w/nomaster/arm0"
run nomaster 1 "$w/nomaster" -o "$w/nomaster-out"
has nomaster "its master 'arm0' is not in the capture"
has nomaster 'nomaster/dsp0/metadata'
# a slave missing: the master's events name a core id that is not there
cp -r "$w/cap" "$w/noslave"
rm -r "$w/noslave/mcu0"
run noslave 1 "$w/noslave" -o "$w/noslave-out"
has noslave 'core core_id 2 cannot be read: .*slave = 2'
run noslave-allow 0 "$w/noslave" -o "$w/noslave-out" --allow-unsynced
has noslave-allow 'slave = 2 names no core of the capture'

# 5. no capture, an unknown reference, an existing output, usage
# (an empty directory: host/ctf/ctf-set.c's qsort(NULL, 0) upsets UBSan; the
# reader's owner has it)
run empty 1 "$w/nothing" -o "$w/empty-out"
has empty 'nothing'
run noref 1 "$w/cap" -o "$w/noref" --reference dsp9
has noref '\-\-reference dsp9: no core of that name'
run exists 1 "$w/cap" -o "$w/dup-out"
has exists 'already holds a trace'
run force 0 "$w/cap" -o "$w/dup-out" --force
run usage 2
run usage2 2 "$w/cap"
run usage3 2 "$w/cap" -o x --bogus
run help 0 --help
has help 'usage: hetrace sync'

[ $fail = 0 ] && echo "test-merge-bad: ok"
exit $fail
