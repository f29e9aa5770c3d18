#!/usr/bin/env bash
# Makes test CTF traces with barectf 3 (Debian's python3-barectf): a
# config, `barectf generate`, a small writer with a file platform.
# Usage: tests/ctf/reader/mktrace.sh KIND OUTDIR [EVENTS]
#   KIND: basic (two streams, every field type, bit-packed ints,
#         discarded events, a lost packet) or be16 (16-bit
#         event timestamps that wrap, 4-bit ids, 1 MHz clock with offset)
# The trace goes to OUTDIR/trace (metadata + stream files).
set -eu
kind=$1
out=$2
n=${3:-1000}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/gen" "$out/trace"
cd "$out/gen"

# What every kind shares: the prefix bt_ (bt.c, bt.h), little-endian.
cat >config.yaml <<'EOF'
--- !<tag:barectf.org,2020/3/config>
options:
  code-generation:
    prefix:
      identifier: bt_
      file-name: bt
trace:
  type:
    native-byte-order: little-endian
EOF
case "$kind" in
basic)
	cat >>config.yaml <<'EOF'
    $include: [stdint.yaml, stdreal.yaml, stdmisc.yaml]
    uuid: auto
    clock-types:
      clk:
        frequency: 1000000000
        offset:
          seconds: 1700000000
        origin-is-unix-epoch: true
        $c-type: uint64_t
    data-stream-types:
      main:
        $is-default: true
        $default-clock-type-name: clk
        $features:
          packet:
            sequence-number-field-type: true
        event-record-types:
          ints:
            payload-field-type:
              class: structure
              members:
                - u8: uint8
                - u16: uint16
                - u32: uint32
                - u64: uint64
                - s8: int8
                - s64: int64
                - b5: {field-type: {class: unsigned-integer, size: 5, alignment: 1}}
                - n3: {field-type: {class: signed-integer, size: 3, alignment: 1}}
                - hex: {field-type: {class: unsigned-integer, size: 12, alignment: 1, preferred-display-base: hexadecimal}}
          things:
            log-level: 4
            payload-field-type:
              class: structure
              members:
                - color:
                    field-type:
                      class: unsigned-enumeration
                      size: 8
                      mappings:
                        RED: [0]
                        GREEN: [1]
                        BLUE: [[2, 5]]
                - f: float
                - d: double
                - name: str
                - arr: {field-type: {class: static-array, length: 3, element-field-type: uint16}}
                - seq: {field-type: {class: dynamic-array, element-field-type: uint8}}
          empty: {}
      aux:
        $default-clock-type-name: clk
        event-record-types:
          tick:
            payload-field-type:
              class: structure
              members:
                - v: int32
EOF
	;;
be16)
	cat >>config.yaml <<'EOF'
    $include: [stdint.yaml, stdmisc.yaml]
    clock-types:
      mhz:
        frequency: 1000000
        offset:
          seconds: 100
          cycles: 1500000
        $c-type: uint64_t
    data-stream-types:
      core:
        $is-default: true
        $default-clock-type-name: mhz
        $features:
          packet:
            sequence-number-field-type: true
          event-record:
            type-id-field-type: {class: unsigned-integer, size: 4, alignment: 1}
            timestamp-field-type: {class: unsigned-integer, size: 16, alignment: 1}
        event-record-types:
          small:
            payload-field-type:
              class: structure
              members:
                - a: {field-type: {class: unsigned-integer, size: 7, alignment: 1}}
                - b: {field-type: {class: signed-integer, size: 13, alignment: 1}}
                - c: uint32
          text:
            payload-field-type:
              class: structure
              members:
                - s: str
EOF
	;;
*)
	echo "unknown kind $kind" >&2
	exit 2
	;;
esac

barectf generate config.yaml >/dev/null
# no dates in the metadata: the same trace every time
sed -i 's/^\(\t*\)barectf_gen_date = ".*";/\1barectf_gen_date = "0";/' metadata
sed -i 's/^\(\t*\)uuid = ".*";/\1uuid = "01234567-89ab-cdef-0123-456789abcdef";/' metadata
cp "$here/barectf-platform.h" platform.h
cp "$here/driver-$kind.c" driver.c
cc -O1 -w -I. -o writer driver.c bt.c
./writer "$out/trace" "$n"
cp metadata "$out/trace/metadata"
