#!/usr/bin/env python3
"""Writes the malformed archives and images in this directory.

Each file breaks one rule the readers check (see test_formats_vfs.c and
test_formats_textures.c for the error each must produce). They are small,
made for this project, and committed so the tests need no generator; run
this script again only to change them. Licence: GPL-2.0-or-later, as the
project."""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def pak(entries, dirofs=None, dirlen=None, magic=b"PACK", raw_dir=None):
    body = b""
    d = b""
    for name, data in entries:
        pos = 12 + len(body)
        body += data
        d += name.encode().ljust(56, b"\0")[:56] + struct.pack("<ii", pos, len(data))
    if raw_dir is not None:
        d = raw_dir
    ofs = 12 + len(body) if dirofs is None else dirofs
    ln = len(d) if dirlen is None else dirlen
    return magic + struct.pack("<ii", ofs, ln) + body + d


def zipfile(entries, cd_ofs=None, lho_override=None, usize_override=None, crc_override=None,
            method_override=None, local_sig=0x04034B50):
    out = b""
    cd = b""
    for name, data, method in entries:
        crc = zlib.crc32(data) & 0xFFFFFFFF
        if method == 8:
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            comp = c.compress(data) + c.flush()
        else:
            comp = data
        m = method if method_override is None else method_override
        lho = len(out)
        n = name.encode()
        out += struct.pack("<IHHHHHIIIHH", local_sig, 20, 0, m, 0, 0, crc, len(comp), len(data), len(n), 0) + n + comp
        usize = len(data) if usize_override is None else usize_override
        crc2 = crc if crc_override is None else crc_override
        lho2 = lho if lho_override is None else lho_override
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, m, 0, 0, crc2, len(comp), usize,
                          len(n), 0, 0, 0, 0, 0, lho2) + n
    ofs = len(out) if cd_ofs is None else cd_ofs
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(cd), ofs, 0)
    return out + cd + eocd


def vfs_files():
    a = [("textures/a.txt", b"hello")]
    write("dir_outside.pak", pak(a, dirofs=4000))
    write("dir_notmultiple.pak", pak(a, dirlen=65) + b"\0")
    p = bytearray(pak(a))
    struct.pack_into("<i", p, len(p) - 4, 100000)  # filelen past the end
    write("entry_outside.pak", bytes(p))
    write("unterminated_name.pak", pak([("x" * 60, b"data")]))
    write("negative_dir.pak", pak(a, dirofs=-1))
    write("no_header.pak", pak(a, magic=b"PAKK"))

    txt = b"hello hello hello hello hello hello"
    z = [("a.txt", txt, 8)]
    write("cd_outside.zip", zipfile(z, cd_ofs=50000))
    write("bomb_claim.zip", zipfile(z, usize_override=0x7FFFFFFF))
    write("local_outside.zip", zipfile(z, lho_override=40000))
    write("bad_local_sig.zip", zipfile(z, local_sig=0x04034B51))
    write("bad_method.zip", zipfile([("a.txt", txt, 0)], method_override=12))
    write("bad_crc.zip", zipfile(z, crc_override=0x12345678))
    write("short_inflate.zip", zipfile(z, usize_override=1000))
    write("no_eocd.zip", b"PK\3\4" + bytes(range(200)))
    write("zip64.zip", zipfile(z, cd_ofs=0xFFFFFFFF))


if __name__ == "__main__":
    vfs_files()
