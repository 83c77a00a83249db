#!/usr/bin/env python3
"""Writes a small Quake 2 game folder for tests: ROOT/baseq2/pak0.pak holding
textures/e1u1/wall1_1.wal, a 16x16 .wal whose surface flags and value
(SURF_LIGHT, 300) reach the bsp's texinfo, and a loose
ROOT/baseq2/textures/e1u1/floor1_3.wal (SURF_LIGHT, 150), so a compile that
found the game data, in the pak and beside it, writes different bytes from
one that did not.

    mkgame.py ROOT
"""
import os
import struct
import sys

root = sys.argv[1]
game = os.path.join(root, "baseq2")
os.makedirs(game, exist_ok=True)

def make_wal(name, value):
    w = h = 16
    mips = [w * h >> (2 * i) for i in range(4)]
    offsets, pos = [], 100
    for m in mips:
        offsets.append(pos)
        pos += m
    wal = name.ljust(32, b"\0") + struct.pack("<II", w, h) + struct.pack("<4I", *offsets)
    wal += b"\0" * 32 + struct.pack("<iii", 1, 0, value)  # animname, flags (SURF_LIGHT), contents, value
    return wal + bytes([7]) * sum(mips)


wal = make_wal(b"e1u1/wall1_1", 300)
os.makedirs(os.path.join(game, "textures", "e1u1"), exist_ok=True)
with open(os.path.join(game, "textures", "e1u1", "floor1_3.wal"), "wb") as f:
    f.write(make_wal(b"e1u1/floor1_3", 150))

name = b"textures/e1u1/wall1_1.wal"
data_ofs = 12
dir_ofs = data_ofs + len(wal)
entry = name.ljust(56, b"\0") + struct.pack("<ii", data_ofs, len(wal))
pak = b"PACK" + struct.pack("<ii", dir_ofs, len(entry)) + wal + entry
with open(os.path.join(game, "pak0.pak"), "wb") as f:
    f.write(pak)
