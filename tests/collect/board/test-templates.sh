#!/usr/bin/env bash
# The board file templates (examples/boards/*.yaml, docs/porting.md):
# each passes `hetrace record --board FILE --check` with every
# placeholder defined (dummy values chosen by the placeholder's suffix),
# and leaving any one placeholder undefined is an error at its
# file:line:col naming it, exit 1. Each run within 20 s and 512 MB.
set -u
. "$(dirname "$0")/../../lib.sh"

top=$(cd "$(dirname "$0")/../../.." && pwd)
templates=("$top"/examples/boards/*.yaml)
for want in zynqmp-a53-r5 stm32mp1-a7-m4 imx8m-a53-m4; do
	[ -f "$top/examples/boards/$want.yaml" ] || bad "no template $want.yaml"
done

# The placeholders of FILE outside comments, one "NAME LINE COL" per
# first occurrence, in order.
placeholders() {
	python3 - "$1" <<'PY'
import re, sys
seen = set()
for n, line in enumerate(open(sys.argv[1]), 1):
    # A YAML comment starts at a '#' at the line's start or after a blank.
    code = re.split(r'(?:^|\s)#', line, maxsplit=1)[0]
    for m in re.finditer(r'\$\{([A-Za-z0-9_]+)\}', code):
        if m.group(1) not in seen:
            seen.add(m.group(1))
            print(m.group(1), n, m.start() + 1)
PY
}

# A dummy value for placeholder NAME, by its suffix (the templates'
# naming convention; a new suffix must be added here).
dummy() {
	case $1 in
	*_UIO_SIZE) echo 4K ;;
	RING_SIZE) echo 1M ;;
	*_SIZE) echo 16M ;;
	*_BASE) echo 0x40000000 ;;
	*_UIO) echo /dev/uio0 ;;
	*_OFFSET) echo 0x8 ;;
	*_BIT) echo 0x1 ;;
	*_DEV) echo /dev/ttyS1 ;;
	*) return 1 ;;
	esac
}

for f in "${templates[@]}"; do
	t=$(basename "$f")
	placeholders "$f" >"$w/ph" || bad "$t: cannot list its placeholders"
	[ -s "$w/ph" ] || bad "$t: no placeholders (addresses must be \${NAME})"
	defs=()
	while read -r name line col; do
		v=$(dummy "$name") || {
			bad "$t:$line:$col: placeholder $name: no dummy value for its suffix"
			continue
		}
		defs+=(--define "$name=$v")
	done <"$w/ph"

	rc=0
	bounded 20 512 "$HETRACE" record --board "$f" --check "${defs[@]}" \
		>"$w/out" 2>"$w/err" || rc=$?
	[ "$rc" = 0 ] || bad "$t: --check with every placeholder defined: exit $rc: $(head -c 400 "$w/err")"

	# Each placeholder left undefined in turn: its own position, its name.
	while read -r name line col; do
		left=()
		for ((i = 0; i < ${#defs[@]}; i += 2)); do
			[ "${defs[i + 1]%%=*}" = "$name" ] || left+=("${defs[i]}" "${defs[i + 1]}")
		done
		rc=0
		bounded 20 512 "$HETRACE" record --board "$f" --check "${left[@]}" \
			>"$w/out" 2>"$w/err" || rc=$?
		[ "$rc" = 1 ] || bad "$t: $name undefined: exit $rc, expected 1: $(head -c 300 "$w/err")"
		grep -q -- "$f:$line:$col:.*$name" "$w/err" ||
			bad "$t: $name undefined: expected '$f:$line:$col: ... $name', got: $(head -c 300 "$w/err")"
	done <"$w/ph"
done

exit $fail
