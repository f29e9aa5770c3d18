#!/usr/bin/env python3
"""Writes a barectf 3 configuration for the gen tests and prints where a
marked value is (LINE:COL), for the expected message.

Usage: cfg-gen.py OUT.yaml [KEY=VALUE]...
Keys (each VALUE is YAML text, written as it is):
  file-name, ident     the `prefix` mapping (default tr_ / tracing)
  stream, stream2      the two data stream type names (default s, t)
  event, event2        event record type names of `stream` (e, f)
  event3               an event record type of `stream2` (g)
  clock, clock2        clock type names (clk, clk2)
  c-type               `$c-type` of `clock` (uint64_t)
  member, member2      payload member names of `event` (a, b)
  nested               a member of a structure inside `event`'s payload
                       (x), and of the elements of an array of structures
                       (mark=nested: the former, nested2: the latter)
  mark=KEY             print LINE:COL of KEY's value
The stream `stream` is the default one; `clock` is its clock.
"""
import sys

out = sys.argv[1]
v = {
    "file-name": "tracing", "ident": "tr_", "stream": "s", "stream2": "t",
    "event": "e", "event2": "f", "event3": "g", "clock": "clk",
    "clock2": "clk2", "c-type": "uint64_t", "member": "a", "member2": "b",
    "nested": "x",
}
mark = None
for arg in sys.argv[2:]:
    k, _, val = arg.partition("=")
    if k == "mark":
        mark = val
    elif k in v:
        v[k] = val
    else:
        sys.exit(f"cfg-gen.py: unknown key {k}")

lines = []
where = {}


def put(text, key=None):
    if key is not None:
        # a key written twice: KEY marks the first, KEY2 the second
        where[key + "2" if key in where else key] = (
            len(lines) + 1, text.index("@") + 1)
        text = text.replace("@", v[key])
    lines.append(text)


put("--- !<tag:barectf.org,2020/3/config>")
put("options:")
put("  code-generation:")
put("    prefix:")
put("      identifier: @", "ident")
put("      file-name: @", "file-name")
put("trace:")
put("  type:")
put("    native-byte-order: le")
put("    clock-types:")
put("      @:", "clock")
put("        $c-type: @", "c-type")
put("      @: {}", "clock2")
put("    data-stream-types:")
put("      @:", "stream")
put("        $is-default: true")
put("        $default-clock-type-name: " + v["clock"])
put("        event-record-types:")
put("          @:", "event")
put("            payload-field-type:")
put("              class: struct")
put("              members:")
put("                - @: {field-type: {class: uint, size: 8}}", "member")
put("                - @: {field-type: {class: uint, size: 8}}", "member2")
put("                - st:")
put("                    field-type:")
put("                      class: struct")
put("                      members:")
put("                        - @: {field-type: {class: uint, size: 8}}", "nested")
put("                - arr:")
put("                    field-type:")
put("                      class: static-array")
put("                      length: 2")
put("                      element-field-type:")
put("                        class: struct")
put("                        members:")
put("                          - @: {field-type: {class: uint, size: 8}}", "nested")
put("          @:", "event2")
put("            payload-field-type:")
put("              class: struct")
put("              members:")
put("                - v: {field-type: {class: uint, size: 16}}")
put("      @:", "stream2")
put("        event-record-types:")
put("          @:", "event3")
put("            payload-field-type:")
put("              class: struct")
put("              members:")
put("                - v: {field-type: {class: uint, size: 16}}")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
if mark:
    print("%d:%d" % where[mark])
