#!/usr/bin/env python3
# Rings for the collector's tests, built from a stopped discard ring of
# tests/collect/record/producer.c (one core, nothing drained yet).
#
#   ring-edit.py edit RING EXPECT EDIT...
#       changes the packets of RING in place and writes to EXPECT the
#       stream file a collector must make of it: the packets that pass
#       its checks, packet_size bytes each, in order; before them, when
#       the first packets fail, the loss marker (docs/transport.md) and
#       every packet renumbered when the numbering leaves no room.
#       EDIT is K:KIND, packet K (0: the oldest in the ring):
#         short    packet_size cut to content_size (the packet does not
#                  fill its slot; its events are all kept)
#         magic    packet magic 0xdeadbeef                  (rejected)
#         big      packet_size twice the slot               (rejected)
#         stream   stream_id 7, not declared                (rejected)
#         content  content_size past packet_size            (rejected)
#         seq      packet_seq_num + 5 for this packet and the later
#                  ones (the producer's numbering jumps: kept, 5 lost
#                  packets for the readers)
#   ring-edit.py check STREAM SLOT
#       walks a capture's stream file: every packet has the CTF magic,
#       stream_id 0, a packet_size of whole bytes between the header and
#       context and SLOT, content_size within it, and packet_seq_num
#       increases. Prints the number of packets.
#
# Layouts: struct ht_ring (include/hetrace/packet-ring.h): slot_size at
# byte 20, nr_slots 24, slots_off 28, head 96, tail 160. The packet
# header and context of producer.yaml's tracer: magic 0, stream_id 4,
# packet_size 12, content_size 20, timestamp_begin 28, timestamp_end 36,
# events_discarded 44, packet_seq_num 52, core_id 60, cpu_id 64; 68 bytes.
import struct
import sys

MAGIC = 0xC1FC1FC1
HC = 68
REJECTED = ("magic", "big", "stream", "content")


def u32(b, off):
    return struct.unpack_from("<I", b, off)[0]


def u64(b, off):
    return struct.unpack_from("<Q", b, off)[0]


def put64(b, off, v):
    struct.pack_into("<Q", b, off, v)


def edit(ring, expect, edits):
    with open(ring, "rb") as f:
        region = bytearray(f.read())
    slot, nr, slots_off = u32(region, 20), u32(region, 24), u32(region, 28)
    head, tail = u32(region, 96), u32(region, 160)
    count = (head - tail) & 0xFFFFFFFF
    assert 0 < count <= nr, "not a stopped, undrained ring"

    def at(k):  # offset of packet k's slot
        return slots_off + (((tail + k) & 0xFFFFFFFF) % nr) * slot

    kinds = {}
    for e in edits:
        k, kind = e.split(":")
        kinds[int(k)] = kind
    for k, kind in kinds.items():
        p = at(k)
        assert k < count and u64(region, p + 12) == slot * 8, (k, kind)
        if kind == "short":
            put64(region, p + 12, u64(region, p + 20))
        elif kind == "magic":
            struct.pack_into("<I", region, p, 0xDEADBEEF)
        elif kind == "big":
            put64(region, p + 12, slot * 16)
        elif kind == "stream":
            put64(region, p + 4, 7)
        elif kind == "content":
            put64(region, p + 20, slot * 8 + 64)
        elif kind == "seq":
            for later in range(k, count):
                put64(region, at(later) + 52, u64(region, at(later) + 52) + 5)
        else:
            sys.exit("unknown edit " + kind)
    with open(ring, "r+b") as f:
        f.write(region)

    kept = [k for k in range(count) if kinds.get(k) not in REJECTED]
    assert kept and kept[-1] == count - 1, "the newest packet must be kept"
    lost = kept[0]  # rejected before the first packet kept
    out = bytearray()
    shift = 0
    if lost:
        first = bytearray(region[at(kept[0]) : at(kept[0]) + HC])
        seq = u64(first, 52)
        if seq < lost + 1:
            shift, seq = lost + 1 - seq, 0
        else:
            seq -= lost + 1
        put64(first, 12, HC * 8)
        put64(first, 20, HC * 8)
        put64(first, 36, u64(first, 28))
        put64(first, 52, seq)
        out += first
    for k in kept:
        p = at(k)
        pkt = bytearray(region[p : p + u64(region, p + 12) // 8])
        put64(pkt, 52, u64(pkt, 52) + shift)
        out += pkt
    with open(expect, "wb") as f:
        f.write(out)


def check(stream, slot):
    with open(stream, "rb") as f:
        data = f.read()
    off, n, prev = 0, 0, -1
    while off < len(data):
        where = "%s: packet %d at byte %d" % (stream, n, off)
        if len(data) - off < HC:
            sys.exit(where + ": a partial header")
        size, content = u64(data, off + 12), u64(data, off + 20)
        if u32(data, off) != MAGIC or u64(data, off + 4) != 0:
            sys.exit(where + ": a damaged header (magic or stream_id)")
        if size % 8 or not HC * 8 <= size <= slot * 8:
            sys.exit(where + ": packet_size %d" % size)
        if not HC * 8 <= content <= size or off + size // 8 > len(data):
            sys.exit(where + ": content_size %d, packet_size %d" % (content, size))
        if u64(data, off + 52) <= prev:
            sys.exit(where + ": packet_seq_num %d after %d" % (u64(data, off + 52), prev))
        prev = u64(data, off + 52)
        off += size // 8
        n += 1
    print(n)


if sys.argv[1] == "edit":
    edit(sys.argv[2], sys.argv[3], sys.argv[4:])
elif sys.argv[1] == "check":
    check(sys.argv[2], int(sys.argv[3]))
else:
    sys.exit("usage: ring-edit.py edit RING EXPECT EDIT... | check STREAM SLOT")
