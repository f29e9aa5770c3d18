#!/usr/bin/env bash
# Configurations whose generated C would not compile, built here, are
# refused with file:line:column, exit 1, nothing written: names that
# collide once prefixed (a stream's function and another stream's
# event's, the default stream's macro and a structure tag, two
# parameters once nested structures are flattened), names in the
# runtime's `ht_`/`HT_` names, member names written as they are that C
# or its headers already use, identifiers too long for the emitter,
# `$c-type`s that are no C arithmetic type name. Accepted edge cases
# (C keywords where the C code prefixes them, names differing only in
# case, the longest identifier) generate C that compiles.
set -u
: "${TOP:?top of the source tree}"
# shellcheck source=../lib.sh
. "$TOP/tests/lib.sh"
gencfg() { python3 "$TOP/tests/gen/cfg-gen.py" "$@"; }
mkdir "$w/run" && cd "$w/run" || exit 1

# refused WHAT PATTERN MARK KEY=VALUE...: `hetrace gen` exits 1, its
# first message is at MARK's position and matches PATTERN (with @ for
# "cfg.yaml:LINE:COL"), nothing is written.
refused() {
	local what=$1 want=$2 mark=$3 pos
	shift 3
	pos=$(gencfg cfg.yaml "$@" "mark=$mark")
	rm -rf out
	mkdir out
	expect_exit "$what" 1 timeout 20 "$HETRACE" gen cfg.yaml -o out
	head -1 "$w/err" | grep -q -- "^${want//@/cfg.yaml:$pos}" ||
		bad "$what: message: $(head -3 "$w/err")"
	[ -z "$(ls -A out)" ] || bad "$what: wrote $(ls -A out)"
}

# compiles WHAT KEY=VALUE...: generated and compiled, strict C99 and
# GNU C11 (where `linux` is a macro), -Wall -Wextra -Werror.
compiles() {
	local what=$1 std
	shift
	gencfg cfg.yaml "$@"
	rm -rf out
	expect_exit "$what" 0 timeout 20 "$HETRACE" gen cfg.yaml -o out
	for std in "-std=c99 -pedantic" "-std=gnu11"; do
		# shellcheck disable=SC2086
		cc $std -Wall -Wextra -Werror -Iout -c out/tracing.c -o out.o \
			2>"$w/cc" || bad "$what ($std): $(head -5 "$w/cc")"
	done
}

refused "stream function = event function" \
	"@: the open function of a data stream type is \`tr_s_trace_open_packet\`, the same C name as the tracing function of an event record type (cfg.yaml:" \
	stream2 event=open_packet stream2=s_trace
refused "default macro = structure tag" \
	"@: the context structure of a data stream type is \`tr_trace_x_ctx\`, the same C name as the default stream's tracing macro" \
	stream2 event=x_ctx stream2=trace_x
refused "prefix in the runtime's names" \
	"@: identifier prefix \`ht_\` is in the runtime's names (\`ht_\`, \`HT_\`)" \
	ident ident=ht_
refused "stream name makes a runtime name" \
	"@: the context structure of a data stream type, \`ht_s_ctx\`, falls in the runtime's names" \
	stream ident=h stream=t_s
pos=$(gencfg cfg.yaml mark=member member=st_x)
refused "flattened parameters" \
	"@: a parameter is \`p_st_x\`, the same C name as a parameter (cfg.yaml:$pos)" \
	nested member=st_x nested=x
for name in int while NULL linux UINT8_MAX INTPTR_MIN __x _Xy ht_x HT_X bool; do
	refused "array structure member $name" \
		"@: member of a structure in an array \`$name\` is written as it is in the generated C" \
		nested2 "nested=$name"
done
long=$(printf 's%.0s' $(seq 125))
refused "identifier too long" \
	"@: the context structure of a data stream type, \`tr_sss.*\`, is longer than 127 characters" \
	stream "stream=$long"
for t in '"uint64_t; int x"' 'unsigned long long long' void '"uint32_t *"' \
	'struct foo' 'long double double' 'signed unsigned' 'foo bar' \
	'"int\n#include <x>"' "''" 'const uint32_t' 'short long' \
	'unsigned float' 'char int' '"uint64_t)"' 9x; do
	refused "\$c-type $t" "@: \`\\\$c-type\`: expected a C integer type name" c-type "c-type=$t"
done

compiles "defaults"
for t in uint64_t 'unsigned long long' unsigned long 'unsigned short int' \
	'signed char' 'long double' double _Bool int8_t 'long long int'; do
	compiles "\$c-type $t" "c-type=$t"
done
compiles "C keywords where the code prefixes them" \
	event=int event2=while event3=for member=linux member2=NULL clock=int \
	clock2=unix nested=x stream2=static
compiles "names differing in case" stream=s stream2=S event=e event2=E \
	clock=c clock2=C
compiles "one-letter prefix without underscore" ident=x
# tr_<stream>_close_packet, 127 characters
compiles "longest identifier" "stream=$(printf 's%.0s' $(seq 111))"

[ "$fail" = 0 ] && echo "configurations whose C would not compile are refused"
exit "$fail"
