#!/usr/bin/env bash
# An enum value without a label ("( <unknown> : container = 0b...64
# digits )") at the end of a long compiled line: the line reserves
# nothing for the enum, so the enum writer must make its own room
# wherever the line ends in the output buffer. Lines of about 650 bytes
# are printed from 40 traces, each starting at another offset (a padding
# event with a string of another length), so that the lines cross the
# buffer's growth points at many positions; the sanitized build reports
# any write past the buffer (without the enum's own room, about half of
# the traces do). One trace is also compared with babeltrace2.
set -eu
. "$TOP/tests/ctf/print/lib.sh"

python3 - "$W/tr" <<'EOF'
import os
import sys

sys.path.insert(0, os.path.join(os.environ['TOP'], 'tests/ctf/print/corpus'))
from ctfgen import *  # noqa: E402,F403

for n in range(40):
    t = Trace(bo='le', env={'hostname': 'h'})
    pad = t.event('pad', Struct([('s', String())]))
    # a long literal (the member name) and a value that takes all of
    # its room leave little of the line's reserve to the enum
    name = 'f' * 500
    e = t.event('en', Struct([(name, Int(64)), ('e', Enum(
        Int(64, base=2), [('MAX', 2**64 - 1, None)]))]))
    evs = [(pad, 1000, {'s': 'x' * (13 * n)}, None, None)]
    for i in range(1700):
        evs.append((e, 2000 + 1000 * i, {name: 2**64 - 1, 'e': 2**63 + i},
                    None, None))
    t.write(os.path.join(sys.argv[1], str(n)),
            {'stream': [t.packet(evs, 0, evs[-1][1], 0)]})
EOF
for t in "$W"/tr/*; do
	checks=$((checks + 1))
	if ! "$HETRACE" print "$t" >/dev/null 2>"$W/err"; then
		echo "FAIL: hetrace print $t"
		grep -m 3 -E 'ERROR|WRITE|#[0-9] ' "$W/err" || tail -n 3 "$W/err"
		fails=$((fails + 1))
	fi
done
check "$W/tr/0"
finish
