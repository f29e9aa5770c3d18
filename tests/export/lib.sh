# Shared by the export and states tests (sourced): builds the board
# driver from board.yaml with hetrace gen, and makes traces from event
# scripts (board.c says the script syntax).
#   board_build DIR        generated code and the driver in DIR
#   board_trace DIR NAME   stdin: script (any order: sorted by time,
#                          stable) -> trace DIR/NAME
: "${HETRACE:?}" "${TOP:?}"
board_build() {
	mkdir -p "$1/g"
	"$HETRACE" gen "$TOP/tests/export/board.yaml" -o "$1/g" >/dev/null
	cc -std=c99 -Wall -Wextra -Werror -O1 -g -I"$1/g" -I"$TOP" -o "$1/board" \
		"$TOP/tests/export/board.c" "$1/g/barectf.c"
}
board_trace() {
	rm -rf "${1:?}/$2"
	mkdir -p "$1/$2"
	cp "$1/g/metadata" "$1/$2/"
	grep -v '^#' | sort -s -n -k2,2 | "$1/board" "$1/$2" >/dev/null
}
