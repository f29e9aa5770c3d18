#!/usr/bin/env bash
# YAML nested far too deep, built here: flow sequences and mappings
# 100,000 deep, block sequences a million deep (`- - - ...`), block
# mappings nested by indentation, and an alias that copies a deep node
# deeper still. Each is refused with file:line:column, exit 1, in well
# under the time limit and within a small address space (the optimized
# build: a sanitizer cannot run under `ulimit -v`), and nothing is
# written. A document just inside the limit still loads.
set -u
: "${TOP:?top of the source tree}"
# shellcheck source=../lib.sh
. "$TOP/tests/lib.sh"
. "$TOP/tests/gen/refused.sh"
hdr='--- !<tag:barectf.org,2020/3/config>'

# limited WHAT CFG PATTERN: refused (gen_refused), and by the sanitized
# build with the same answer (no time or memory limit here beyond the
# test's own).
limited() {
	gen_refused "$@"
	expect_exit "$1 (sanitized)" 1 "$HETRACE" gen "$2" -o "$w/o"
	grep -q -- "$3" "$w/err" || bad "$1 (sanitized): message: $(head -c 300 "$w/err")"
}

cd "$w" || exit 1
python3 - "$hdr" <<'PY'
import sys
hdr = sys.argv[1]
n = 100000
def write(name, body):
    with open(name, "w") as f:
        f.write(hdr + "\n" + body)
write("flow-seq.yaml", "trace: " + "[" * n + "]" * n + "\n")
write("flow-map.yaml", "trace: " + "{a: " * n + "1" + "}" * n + "\n")
# a comment and quoted scalars holding brackets do not count
write("flow-mixed.yaml", "# [[[[ {{{{\ntrace: " + "['[', \"{\", " * n + "x" + "]" * n + "\n")
write("block-seq.yaml", "trace:\n" + "- " * 1000000 + "1\n")
write("block-map.yaml", "".join(" " * i + "a:\n" for i in range(2000)) + " " * 2000 + "b: 1\n")
# 200 levels anchored, then copied at depth 200: 400 levels once
# expanded (the copy has the anchored node's positions)
write("alias-deep.yaml", "a: &d " + "[" * 200 + "]" * 200 + "\nb: " + "[" * 199 + "*d" + "]" * 199 + "\n")
# 255 nested sequences under the root mapping: 256 levels, the limit
write("at-limit.yaml", "x: " + "[" * 255 + "]" * 255 + "\n")
PY

# The 256th `[` after `trace: ` is the 257th collection (the root
# mapping is the first): column 7 + 256.
limited "flow sequences" flow-seq.yaml "^flow-seq.yaml:2:263: invalid YAML: collections nested more than 256 deep"
limited "flow mappings" flow-map.yaml "^flow-map.yaml:2:1028: invalid YAML: collections nested more than 256 deep"
limited "flow, quotes and comments" flow-mixed.yaml "^flow-mixed.yaml:3:.*: invalid YAML: collections nested more than 256 deep"
limited "block sequences" block-seq.yaml "^block-seq.yaml:3:511: invalid YAML: collections nested more than 256 deep"
limited "block mappings" block-map.yaml "^block-map.yaml:258:257: invalid YAML: collections nested more than 256 deep"
limited "alias copied deeper" alias-deep.yaml "^alias-deep.yaml:2:[0-9]*: invalid YAML: nested more than 256 deep once aliases are expanded"

# At the limit the text is YAML like any other: the configuration's own
# problems are reported (no `trace`), not the nesting.
expect_exit "at the limit" 1 "$HETRACE" gen at-limit.yaml -o "$w/o"
expect_err "at the limit" "^at-limit.yaml:2:1: unknown key \`x\` in configuration"
grep -q "nested" "$w/err" && bad "at the limit: refused for its nesting: $(cat "$w/err")"

[ "$fail" = 0 ] && echo "deeply nested YAML refused with its position"
exit "$fail"
