#!/usr/bin/env python3
"""Names where two files differ, for scripts/crossbuild-compare: for a .bsp
(IBSP 38 or QBSP, with or without a BSPX block) the first standard lump
that differs, in the header's order, then the first BSPX lump by name,
with the count of differing bytes; bytes between lumps (padding) last. For
any other file the offset of the first differing byte.

    bspdiff.py A B      prints one short word ("same" when equal)
"""
import struct
import sys

NAMES = ["entities", "planes", "vertexes", "visibility", "nodes", "texinfo", "faces",
         "lighting", "leafs", "leaffaces", "leafbrushes", "edges", "surfedges", "models",
         "brushes", "brushsides", "pop", "areas", "areaportals"]


def lumps(data):
    """{name: bytes} of the standard lumps and the BSPX ones, or None."""
    if len(data) < 8 + 8 * len(NAMES) or data[:4] not in (b"IBSP", b"QBSP"):
        return None
    out, ends = {}, []
    for i, name in enumerate(NAMES):
        ofs, n = struct.unpack_from("<ii", data, 8 + 8 * i)
        if ofs < 0 or n < 0 or ofs + n > len(data):
            return None
        out[name] = data[ofs:ofs + n]
        if n:
            ends.append((name, ofs + n))
    # The BSPX block starts after the last lump (or the last but POP),
    # rounded up to 4 bytes (docs/formats.md, "BSPX").
    for skip in (None, "pop"):
        end = max([e for nm, e in ends if nm != skip] or [0])
        at = (end + 3) & ~3
        if data[at:at + 4] == b"BSPX" and at + 8 <= len(data):
            (count,) = struct.unpack_from("<I", data, at + 4)
            for j in range(count):
                p = at + 8 + 32 * j
                if p + 32 > len(data):
                    break
                name = data[p:p + 24].split(b"\0")[0].decode("ascii", "replace")
                ofs, n = struct.unpack_from("<II", data, p + 24)
                out["bspx:" + name] = data[ofs:ofs + n]
            break
    return out


def differing_bytes(a, b):
    return sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))


def describe(a, b):
    if a == b:
        return "same"
    la, lb = lumps(a), lumps(b)
    if la is None or lb is None:
        at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        return "byte@%d" % at
    if a[:8] != b[:8]:
        return "header"
    for name in list(la) + [n for n in lb if n not in la]:
        x, y = la.get(name), lb.get(name)
        if x is None or y is None:
            return "%s(missing)" % name
        if x != y:
            return "%s(%dB)" % (name, differing_bytes(x, y))
    return "padding(%dB)" % differing_bytes(a, b)


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as fa, open(sys.argv[2], "rb") as fb:
        print(describe(fa.read(), fb.read()))
