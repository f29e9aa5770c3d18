# The instrumented driver (drv.c) of the tests in this folder, sourced
# after tests/lib.sh: build_drv OUT EXTRA_FLAGS... builds it against the
# example's generated tracer (examples/instrument/config.yaml) with the
# sanitizers in $SAN; only drv.c is instrumented.
"$HETRACE" gen "$TOP/examples/instrument/config.yaml" -o "$w/g" >/dev/null
build_drv() {
	local out=$1 o
	shift
	mkdir -p "$w/o"
	for src in "$TOP/runtime/instrument.c" "$TOP/runtime/packet-ring.c" \
		"$TOP/runtime/port.c" "$TOP/examples/instrument/trace-glue.c" \
		"$w/g/hti-trace.c"; do
		o="$w/o/$(basename "$src" .c).o"
		cc -std=c11 -O2 -g -Wall -Wextra -Werror $SAN "$@" \
			-I"$TOP/include" -I"$w/g" -I"$TOP/examples/instrument" \
			-DHT_PORT_INSTR_TLS=__thread -c "$src" -o "$o"
	done
	cc -std=c11 -O2 -g -Wall -Wextra -Werror $SAN "$@" -finstrument-functions \
		-I"$TOP/include" -I"$TOP/examples/instrument" -c drv.c -o "$w/o/drv.o"
	cc $SAN "$@" -pthread -o "$out" "$w/o"/*.o
	rm -rf "$w/o"
}
