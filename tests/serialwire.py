# SPDX-License-Identifier: MIT
# The serial link's wire format (include/hetrace/serial-proto.h,
# docs/serial.md) for the Python test clients, fake targets and line
# proxies: frame types, command numbers, COBS, frames with their CRC-32.
# Written from the header alone and kept independent of the C codec
# (runtime/serial-frame.c), so that a mistake shared by hetrace's target
# and host code does not pass unseen. Python's zlib.crc32 is the same
# CRC-32 (IEEE 802.3). Import with tests/ on sys.path, as for
# bt2values.py.
import struct
import zlib

# Frame types (enum ht_sp_type): target -> host below 0x10.
HELLO, PACKET, SYNC, REPLY, LOG, CMD = 0x01, 0x02, 0x03, 0x04, 0x05, 0x10

# Commands (enum ht_sp_cmd) by the names the clients take.
CMDS = {"hello": 0x01, "ping": 0x02, "status": 0x03, "enable": 0x04,
        "disable": 0x05, "trigger": 0x06, "stopper": 0x07, "couple": 0x08,
        "profile": 0x09, "profile-to-trace": 0x0a, "dump": 0x0b,
        "flush": 0x0c, "metadata": 0x0d, "reboot": 0x0e, "clear": 0x0f}

# A frame's body: u8 type, u8 flags, u16 seq, payload, u32 CRC.
HDR, CRC = 4, 4


def crc32(data):
    return zlib.crc32(data) & 0xffffffff


def cobs_encode(body):
    """body's COBS bytes and the 0x00 that ends the frame."""
    out, blk = bytearray(), bytearray()
    for b in body:
        if b == 0:
            out.append(len(blk) + 1)
            out += blk
            blk = bytearray()
            continue
        blk.append(b)
        # A full block (code 255) has no implicit 0x00 after it.
        if len(blk) == 254:
            out.append(255)
            out += blk
            blk = bytearray()
    out.append(len(blk) + 1)
    out += blk
    return bytes(out) + b"\0"


def cobs_decode(data):
    """data: a frame without its 0x00. The body, or None when malformed
    (a 0x00 code, a block running past the end)."""
    out, i = bytearray(), 0
    while i < len(data):
        code = data[i]
        blk = data[i + 1:i + code]
        if code == 0 or len(blk) != code - 1:
            return None
        out += blk
        i += code
        if code != 255 and i < len(data):
            out.append(0)
    return bytes(out)


def frame(ftype, seq, payload):
    """A whole frame on the wire: type, seq (wraps at 16 bits), payload,
    CRC, COBS, 0x00."""
    body = struct.pack("<BBH", ftype, 0, seq & 0xffff) + payload
    return cobs_encode(body + struct.pack("<I", crc32(body)))


def command(seq, cmd, tag, args=b""):
    """A CMD frame: cmd, tag (echoed in the reply), args."""
    return frame(CMD, seq, struct.pack("<BBH", cmd, 0, tag & 0xffff) + args)


def reply(seq, cmd, status, tag, data=b""):
    """A REPLY frame, as a target answers cmd."""
    return frame(REPLY, seq, struct.pack("<BBH", cmd, status, tag) + data)


def parse(raw):
    """raw: a frame without its 0x00. (type, seq, payload) of a good
    frame; None when COBS, length or CRC is wrong."""
    body = cobs_decode(raw)
    if body is None or len(body) < HDR + CRC or \
            crc32(body[:-CRC]) != struct.unpack("<I", body[-CRC:])[0]:
        return None
    return body[0], struct.unpack("<H", body[2:4])[0], body[HDR:-CRC]
