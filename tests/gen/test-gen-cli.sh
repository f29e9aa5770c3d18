#!/usr/bin/env bash
# hetrace gen's command line: exit codes (0 / 1 / 2), --help, the files
# written for each output option, -I lookup, that a failing run leaves
# an existing output directory as it was, and that gen-boot (the build's
# generator) agrees with it.
set -eu
: "${HETRACE:?path to the hetrace CLI}"
: "${TOP:?top of the source tree}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
good="$TOP/tests/gen/good/all-types.yaml"

check() { # check DESCRIPTION EXPECTED-STATUS COMMAND...
	local what=$1 want=$2 rc=0
	shift 2
	"$@" >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL $what: exit status $rc, expected $want"
		sed 's/^/    /' "$tmp/stderr"
		fail=1
	fi
}

listing() {
	(cd "$1" && find . -type f | LC_ALL=C sort | tr '\n' ' ')
}

expect_files() { # expect_files DESCRIPTION DIR FILES...
	local what=$1 dir=$2 got want
	shift 2
	got=$(listing "$dir")
	want=$(printf '%s\n' "$@" | LC_ALL=C sort | tr '\n' ' ')
	if [ "$got" != "$want" ]; then
		echo "FAIL $what: wrote [$got], expected [$want]"
		fail=1
	fi
}

check "--help" 0 "$HETRACE" gen --help
grep -q -- '--metadata-only' "$tmp/stdout" || {
	echo "FAIL --help: no option list on stdout"
	fail=1
}
check "no argument" 2 "$HETRACE" gen
check "no -o" 2 "$HETRACE" gen "$good"
check "unknown option" 2 "$HETRACE" gen --bogus "$good" -o "$tmp/x"
check "two configs" 2 "$HETRACE" gen "$good" "$good" -o "$tmp/x"
check "missing config" 1 "$HETRACE" gen "$tmp/nope.yaml" -o "$tmp/x"
grep -q "nope.yaml:1:1: cannot read the configuration" "$tmp/stderr" || {
	echo "FAIL missing config: message: $(cat "$tmp/stderr")"
	fail=1
}
[ -e "$tmp/x" ] && { echo "FAIL: usage errors created the output directory"; fail=1; }

runtime=$(cd "$TOP/include" && ls hetrace/*.h)

check "full" 0 "$HETRACE" gen "$good" -o "$tmp/full"
expect_files "full" "$tmp/full" ./tracing.h ./tracing.c ./metadata \
	$(printf './%s\n' $runtime)
for h in $runtime; do
	cmp -s "$TOP/include/$h" "$tmp/full/$h" || {
		echo "FAIL full: $h is not a copy of include/$h"
		fail=1
	}
done

check "--header-only" 0 "$HETRACE" gen "$good" -o "$tmp/ho" --header-only --no-runtime
expect_files "--header-only" "$tmp/ho" ./tracing.h ./metadata

check "--metadata-only" 0 "$HETRACE" gen "$good" -o "$tmp/mo/deeper" --metadata-only
expect_files "--metadata-only" "$tmp/mo/deeper" ./metadata

check "--no-runtime" 0 "$HETRACE" gen "$good" -o "$tmp/nr" --no-runtime
expect_files "--no-runtime" "$tmp/nr" ./tracing.h ./tracing.c ./metadata

# -I: an include found only through -I, searched after the including
# file's directory.
mkdir -p "$tmp/cfg" "$tmp/incdir"
cat >"$tmp/incdir/extra.yaml" <<'YAML'
$field-type-aliases:
  counter:
    class: uint
    size: 24
YAML
cat >"$tmp/cfg/c.yaml" <<'YAML'
--- !<tag:barectf.org,2020/3/config>
trace:
  type:
    native-byte-order: le
    $include: extra.yaml
    data-stream-types:
      s:
        event-record-types:
          e:
            payload-field-type:
              class: struct
              members:
                - n: counter
YAML
check "-I missing" 1 "$HETRACE" gen "$tmp/cfg/c.yaml" -o "$tmp/i1" --metadata-only
check "-I" 0 "$HETRACE" gen "$tmp/cfg/c.yaml" -I "$tmp/incdir" -o "$tmp/i2" --metadata-only
grep -q "size = 24;" "$tmp/i2/metadata" || {
	echo "FAIL -I: the included alias is not in the metadata"
	fail=1
}

# A failing run leaves an existing directory untouched.
cp -r "$tmp/full" "$tmp/keep"
before=$(cd "$tmp/keep" && find . -type f -exec md5sum {} + | LC_ALL=C sort)
check "bad config over existing output" 1 "$HETRACE" gen \
	"$TOP/tests/gen/bad/misspelled-keys.yaml" -o "$tmp/keep"
after=$(cd "$tmp/keep" && find . -type f -exec md5sum {} + | LC_ALL=C sort)
[ "$before" = "$after" ] || {
	echo "FAIL: a failing run changed the output directory"
	fail=1
}

# A write that fails part way: nothing of the run is left behind, and
# the message names the file.
mkdir -p "$tmp/partial"
touch "$tmp/partial/hetrace"
check "runtime directory is a file" 1 "$HETRACE" gen "$good" -o "$tmp/partial"
grep -q "cannot create \`$tmp/partial/hetrace/.*\`: Not a directory" \
	"$tmp/stderr" || {
	echo "FAIL partial write: message: $(cat "$tmp/stderr")"
	fail=1
}
expect_files "partial write" "$tmp/partial" ./hetrace
check "output under a file" 1 "$HETRACE" gen "$good" -o "$tmp/partial/hetrace/x"
grep -q "^hetrace gen: cannot create \`$tmp/partial/hetrace/x\`" \
	"$tmp/stderr" || {
	echo "FAIL output under a file: message: $(cat "$tmp/stderr")"
	fail=1
}

# gen-boot, the build's generator, writes what `hetrace gen` writes and
# reports an invalid configuration the same way.
boot="$TOP/${BUILD:-build}/tools/gen-boot"
case "${BUILD:-build}" in /*) boot="$BUILD/tools/gen-boot" ;; esac
check "gen-boot" 0 "$boot" gen "$good" -o "$tmp/boot" --no-runtime
diff -r "$tmp/nr" "$tmp/boot" >/dev/null || {
	echo "FAIL gen-boot: its output differs from hetrace gen's"
	fail=1
}
check "gen-boot usage" 2 "$boot" gen "$good"
bad="$TOP/tests/gen/bad/misspelled-keys.yaml"
check "gen-boot bad config" 1 "$boot" gen "$bad" -o "$tmp/boot-bad"
cp "$tmp/stderr" "$tmp/boot-stderr"
check "bad config" 1 "$HETRACE" gen "$bad" -o "$tmp/boot-bad"
cmp -s "$tmp/stderr" "$tmp/boot-stderr" || {
	echo "FAIL gen-boot bad config: messages differ from hetrace gen's"
	fail=1
}

[ "$fail" = 0 ] && echo "hetrace gen command line: all checks passed"
exit "$fail"
