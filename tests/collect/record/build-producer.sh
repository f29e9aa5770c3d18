# Sourced by the tests of tests/collect/record (after tests/lib.sh, in
# this folder, with $TOP): generates producer.yaml's tracer into $w/g
# and builds the C helpers named in "$@" (producer, hostile) into
# $w/NAME, with the sanitizers.
"$HETRACE" gen producer.yaml -o "$w/g" >/dev/null
for helper in "$@"; do
	cc -std=c99 -Wall -Wextra -Werror -O1 -g \
		-fsanitize=address,undefined -fno-sanitize-recover=undefined \
		-I"$w/g" -I"$TOP/include" -I"$TOP" -DMETADATA_PATH="\"$w/g/metadata\"" \
		-o "$w/$helper" "$helper.c" "$w/g/barectf.c" \
		"$TOP/runtime/packet-ring.c" "$TOP/runtime/port.c" ||
		{ echo "FAIL: cannot build $helper.c"; exit 1; }
done
