# SPDX-License-Identifier: MIT
# Shared by the Python writers of test traces (ctf/print/corpus/ctfgen.py,
# sync/mkcapture.py): a CTF bit writer. Import with tests/ on sys.path,
# as for bt2values.py.


class Bits:
    """A CTF bit writer: pos counts bits from the packet's start; each
    field is written little-endian (least significant bit first) or
    big-endian (most significant bit first); the buffer grows, zeroed,
    as far as the last bit written."""

    def __init__(self, bo):
        self.bo = bo
        self.buf = bytearray()
        self.pos = 0

    def align(self, a):
        """Zero bits up to the next multiple of a bits."""
        self.put(0, -self.pos % a, "le")

    def put(self, v, size, bo):
        """The size low bits of v, in byte order bo ("le" or "be")."""
        v &= (1 << size) - 1
        need = (self.pos + size + 7) // 8
        if len(self.buf) < need:
            self.buf.extend(b"\0" * (need - len(self.buf)))
        for i in range(size):
            k = self.pos + i
            if bo == "le":
                if (v >> i) & 1:
                    self.buf[k // 8] |= 1 << (k % 8)
            else:
                if (v >> (size - 1 - i)) & 1:
                    self.buf[k // 8] |= 0x80 >> (k % 8)
        self.pos += size

    def put_bytes(self, b):
        """Bytes b at a byte boundary."""
        assert self.pos % 8 == 0
        self.buf += b
        self.pos += 8 * len(b)

    def uint(self, v, size, align=8, bo=None):
        """An unsigned integer field aligned to align bits, in byte order
        bo (the writer's by default)."""
        self.align(align)
        self.put(v, size, bo or self.bo)

    def string(self, s):
        """A null-terminated UTF-8 string field."""
        self.align(8)
        self.put_bytes(s.encode() + b"\0")
