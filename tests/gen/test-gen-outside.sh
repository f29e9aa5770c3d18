#!/usr/bin/env bash
# Every file `hetrace gen` writes stays inside -o DIR. Configurations
# built here whose `file-name` prefix would leave it (`../x`, an
# absolute path, `a/b`) or break the generated `#include "..."` and
# header guard (a quote, a backslash, a newline, a space, an empty or
# hidden name, a name too long for the file system) are refused with
# file:line:column, exit 1, and nothing is written anywhere. Accepted
# edge cases compile. A runtime directory inside DIR that is a symbolic
# link to elsewhere is refused, nothing written; an output file that is
# a symbolic link is replaced, its target left alone.
set -u
: "${TOP:?top of the source tree}"
# shellcheck source=../lib.sh
. "$TOP/tests/lib.sh"
gencfg() { python3 "$TOP/tests/gen/cfg-gen.py" "$@"; }
cd "$w" || exit 1
mkdir -p "$w/run/sub" && cd "$w/run/sub" || exit 1

long=$(printf 'n%.0s' $(seq 201))
for name in '"../x"' '/tmp/hetrace-gen-abs' 'a/b' '..' '.hidden' '"a\"b"' \
	"'a\\b'" '"a\nb"' "''" '"a b"' '"a+b"' "$long"; do
	pos=$(timeout 20 python3 "$TOP/tests/gen/cfg-gen.py" cfg.yaml "file-name=$name" mark=file-name)
	rm -rf out
	mkdir out
	expect_exit "file-name $name" 1 timeout 20 "$HETRACE" gen cfg.yaml -o out
	expect_err "file-name $name" "^cfg.yaml:$pos: \`file-name\`: expected a plain file name"
	[ -z "$(ls -A out)" ] && [ ! -e ../x.h ] && [ ! -e /tmp/hetrace-gen-abs.h ] &&
		[ -z "$(ls -A ..| grep -v '^sub$')" ] ||
		bad "file-name $name: files written: $(ls -A out ..)"
	[ "$(wc -l <"$w/err")" = 1 ] || bad "file-name $name: $(cat "$w/err")"
done

# A NUL inside a YAML string would cut the name short in C: refused
# by the YAML reader itself.
pos=$(gencfg cfg.yaml 'file-name="x\0/../../y"' mark=file-name)
rm -rf out
expect_exit "file-name with a NUL" 1 "$HETRACE" gen cfg.yaml -o out
expect_err "file-name with a NUL" "^cfg.yaml:$pos: invalid YAML: a NUL character in a scalar"
[ -e out ] && bad "file-name with a NUL: created the output directory"

# Accepted: letters, digits, `_`, `-`, `.` (not first); the C compiles.
for name in fw-trace a.b-c_d 1st "${long%n}"; do
	gencfg cfg.yaml "file-name=$name"
	rm -rf out
	expect_exit "file-name $name" 0 "$HETRACE" gen cfg.yaml -o out
	[ -f "out/$name.h" ] && [ -f "out/$name.c" ] || bad "file-name $name: $(ls out)"
	for std in "-std=c99 -pedantic" "-std=gnu11"; do
		# shellcheck disable=SC2086
		cc $std -Wall -Wextra -Werror -Iout -c "out/$name.c" -o out.o 2>"$w/cc" ||
			bad "file-name $name ($std) does not compile: $(head -5 "$w/cc")"
	done
done

# A runtime directory that is a symbolic link to elsewhere.
gencfg cfg.yaml
rm -rf out outside
mkdir out outside
ln -s ../outside out/hetrace
expect_exit "runtime directory a symbolic link" 1 "$HETRACE" gen cfg.yaml -o out
expect_err "runtime directory a symbolic link" "cannot write into \`out/hetrace\`: a symbolic link"
[ -z "$(ls -A outside)" ] || bad "symbolic link: written outside: $(ls outside)"
[ "$(ls -A out)" = hetrace ] || bad "symbolic link: written into out: $(ls -A out)"

# An output file that is a symbolic link: replaced, never written through.
rm -rf out
mkdir out
echo keep >victim
ln -s ../victim out/tracing.h
expect_exit "output file a symbolic link" 0 "$HETRACE" gen cfg.yaml -o out --no-runtime
[ "$(cat victim)" = keep ] || bad "output file a symbolic link: written through"
[ -f out/tracing.h ] && [ ! -L out/tracing.h ] || bad "output file a symbolic link: not replaced"

[ "$fail" = 0 ] && echo "gen writes only inside its output directory"
exit "$fail"
