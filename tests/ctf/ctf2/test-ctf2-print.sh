#!/usr/bin/env bash
# hetrace print and info on CTF 2 traces == babeltrace2 2.0 and hetrace
# on the same traces written as CTF 1.8 (cases2.py: one description, two
# metadata streams, the same data stream files): every shared field
# class in both byte orders, booleans, bit arrays and maps, BLOBs,
# static- and dynamic-length strings, variants, LTTng's compact/extended
# event header, clocks with offsets, discarded events and lost packets.
set -eu
. "$TOP/tests/ctf/print/lib.sh"

python3 "$TOP/tests/ctf/ctf2/cases2.py" "$W/tr"

# check2 NAME OPTIONS...: babeltrace2 on the CTF 1.8 trace, hetrace on
# the CTF 2 one: stdout identical, the same warnings (the paths aside).
check2() {
	local name=$1 rc=0
	shift
	checks=$((checks + 1))
	(cd "$W/tr/ctf18" && babeltrace2 "$@" "$name") >"$W/bt.out" 2>"$W/bt.err" || {
		echo "babeltrace2 failed: $* $name"
		fails=$((fails + 1))
		return 0
	}
	# the boolean (nest's flag, just before bits = 0xBE..) is an
	# integer in the CTF 1.8 twin; babeltrace2 2.1 prints a CTF 2
	# boolean as true or false
	sed -i -E 's/( |= )0(, (bits = )?0xBE)/\1false\2/; s/( |= )1(, (bits = )?0xBE)/\1true\2/' "$W/bt.out"
	(cd "$W/tr/ctf2" && timeout 20 "$HETRACE" print "$@" "$name") \
		>"$W/ht.out" 2>"$W/ht.err" || rc=$?
	if [ "$rc" != 0 ]; then
		echo "FAIL: hetrace print exited $rc: $* $name"
		head -n 3 "$W/ht.err"
		fails=$((fails + 1))
		return 0
	fi
	if ! cmp -s "$W/bt.out" "$W/ht.out"; then
		echo "FAIL: stdout differs: $* $name"
		diff "$W/bt.out" "$W/ht.out" | head -n 8 | cut -c 1-300
		fails=$((fails + 1))
		return 0
	fi
	grep '^WARNING: Tracer' "$W/bt.err" | sed 's|/tr/ctf18/|/tr/ctf2/|' >"$W/bt.warn" || true
	grep '^WARNING: Tracer' "$W/ht.err" >"$W/ht.warn" || true
	if ! cmp -s "$W/bt.warn" "$W/ht.warn"; then
		echo "FAIL: warnings differ: $* $name"
		diff "$W/bt.warn" "$W/ht.warn" | head -n 4 | cut -c 1-300
		fails=$((fails + 1))
	fi
}

for d in "$W"/tr/ctf2/*; do
	name=${d##*/}
	for o in "${OPTSETS[@]}"; do
		# shellcheck disable=SC2086
		check2 "$name" $o
	done
	# info: the same report but for the path
	checks=$((checks + 1))
	(cd "$W/tr/ctf18" && "$HETRACE" info "$name") >"$W/i18" 2>&1
	(cd "$W/tr/ctf2" && timeout 20 "$HETRACE" info "$name") >"$W/i2" 2>&1 || {
		echo "FAIL: hetrace info $name failed: $(head -2 "$W/i2")"
		fails=$((fails + 1))
	}
	if ! cmp -s "$W/i18" "$W/i2"; then
		echo "FAIL: info differs: $name"
		diff "$W/i18" "$W/i2" | head -n 6
		fails=$((fails + 1))
	fi
done

# a variant selected by a plain integer (CTF 1.8 needs an enumeration):
# the aliases trace with its tag's mappings removed prints the same but
# for the tag
checks=$((checks + 1))
cp -r "$W/tr/ctf2/aliases" "$W/int-selector"
python3 - "$W/int-selector/metadata" <<'PY'
import json, sys
RS = '\x1e'
p = sys.argv[1]
frags = [json.loads(f) for f in open(p).read().split(RS) if f.strip()]
del frags[-1]['payload-field-class']['member-classes'][2]['field-class']['mappings']
open(p, 'w').write(''.join(RS + json.dumps(f) + '\n' for f in frags))
PY
(cd "$W/tr/ctf2" && "$HETRACE" print aliases) |
	sed -E 's/tag = \( "[AB]" : container = ([0-9]+) \)/tag = \1/' >"$W/want"
(cd "$W" && timeout 20 "$HETRACE" print int-selector) >"$W/got" 2>&1 || true
if ! cmp -s "$W/want" "$W/got" || ! grep -q 'tag = 1, v = { "b1" }' "$W/got"; then
	echo "FAIL: integer selector: $(diff "$W/want" "$W/got" | head -5)"
	fails=$((fails + 1))
fi
finish
