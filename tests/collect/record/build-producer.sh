# Sourced by the tests of tests/collect/record (after tests/lib.sh, in
# this folder, with $TOP): generates producer.yaml's tracer into $w/g
# and builds the C helpers named in "$@" (producer, hostile) into
# $w/NAME, with the sanitizers; ring-io.so is the LD_PRELOAD library
# that logs (and can cut) the collector's reads of a ring file.
"$HETRACE" gen producer.yaml -o "$w/g" >/dev/null
for helper in "$@"; do
	if [ "$helper" = ring-io.so ]; then
		cc -shared -fPIC -O1 -Wall -Wextra -Werror -o "$w/ring-io.so" \
			ring-io.c -ldl || { echo "FAIL: cannot build ring-io.c"; exit 1; }
		# The library goes first, before a sanitized hetrace's runtime.
		export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"
		continue
	fi
	cc -std=c99 -Wall -Wextra -Werror -O1 -g \
		-fsanitize=address,undefined -fno-sanitize-recover=undefined \
		-I"$w/g" -I"$TOP/include" -I"$TOP" -DMETADATA_PATH="\"$w/g/metadata\"" \
		-o "$w/$helper" "$helper.c" "$w/g/barectf.c" \
		"$TOP/runtime/packet-ring.c" "$TOP/runtime/port.c" ||
		{ echo "FAIL: cannot build $helper.c"; exit 1; }
done
