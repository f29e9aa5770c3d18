#!/usr/bin/env bash
# hetrace print == babeltrace2 on hand-made traces (corpus/cases.py):
# every field type in both byte orders, variants, enums, text arrays,
# every string byte, special floats, header fields, discarded events,
# lost packets, odd clocks, two traces in one directory.
set -eu
. "$TOP/tests/ctf/print/lib.sh"

python3 "$TOP/tests/ctf/print/corpus/cases.py" "$W/tr"
for t in "$W"/tr/*; do
	check_all "$t"
done
# several paths at once; a path inside a trace set
check "$W/tr/types-le" "$W/tr/types-be"
check "$W/tr/pair" -- --fields=trace
check "$W/tr/pair/alpha" "$W/tr/pair/beta/core0" -- --fields=all --names=all
finish
