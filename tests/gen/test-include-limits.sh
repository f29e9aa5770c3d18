#!/usr/bin/env bash
# `$include` diamonds, built here: files f0 .. fN-1, each including the
# next one twice, ask for 2^N inclusions. With N = 30 `hetrace gen` must
# stop at its bound on the number of files included; when sequences
# append (enumeration mappings), at its bound on the bytes merged; both
# with file:line:column naming the `$include`, exit 1, in well under the
# time limit, within a small address space (the optimized build: a
# sanitizer cannot run under `ulimit -v`), writing nothing. A small
# diamond is still a valid configuration.
set -u
: "${TOP:?top of the source tree}"
# shellcheck source=../lib.sh
. "$TOP/tests/lib.sh"
. "$TOP/tests/gen/refused.sh"

# diamond DIR N LEAF: DIR/main.yaml includes f0.yaml twice; fI.yaml
# includes fI+1.yaml twice; the last one holds LEAF (trace type text).
diamond() {
	mkdir -p "$1"
	python3 - "$@" <<'PY'
import sys
d, n, leaf = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for i in range(n):
    with open(f"{d}/f{i}.yaml", "w") as f:
        if i + 1 < n:
            f.write(f"$include: [f{i + 1}.yaml, f{i + 1}.yaml]\n")
        else:
            f.write(leaf)
with open(f"{d}/main.yaml", "w") as f:
    f.write("""--- !<tag:barectf.org,2020/3/config>
trace:
  type:
    $include: [f0.yaml, f0.yaml]
    native-byte-order: le
    data-stream-types:
      s:
        $is-default: true
        event-record-types:
          e:
            payload-field-type:
              class: struct
              members:
                - v: counter
""")
PY
}

alias_leaf='$field-type-aliases:
  counter:
    class: uint
    size: 24
'
diamond "$w/d30" 30 "$alias_leaf"
gen_refused "diamond of 30 files" "$w/d30/main.yaml" \
	"/f[0-9]*\.yaml:1:1[0-9]: \`\$include\` of \`f[0-9]*\.yaml\`: more than 4096 files included in all"

# Sequences append: every level doubles the mappings of `big`.
enum_leaf=$(python3 -c '
print("$field-type-aliases:\n  counter:\n    class: uint\n    size: 24\n"
      "  big:\n    class: uenum\n    size: 32\n    mappings:\n      A: ["
      + ", ".join(str(i) for i in range(20000)) + "]")')
diamond "$w/grow" 11 "$enum_leaf"
gen_refused "diamond of appending sequences" "$w/grow/main.yaml" \
	"/f[0-9]*\.yaml:1:[0-9]*: \`\$include\` of \`f[0-9]*\.yaml\`: the includes of this configuration read and merge more than 128 MiB"

# A small diamond is a configuration like any other.
diamond "$w/d5" 5 "$alias_leaf"
expect_exit "diamond of 5 files" 0 "$HETRACE" gen "$w/d5/main.yaml" -o "$w/d5-out" --metadata-only
grep -q "size = 24;" "$w/d5-out/metadata" 2>/dev/null ||
	bad "diamond of 5 files: the included alias is not in the metadata"

[ "$fail" = 0 ] && echo "include diamonds bounded with the position of the include"
exit "$fail"
