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




def wal(w, h, size_pixels=None, ofs0=100, name=b"bad"):
    hdr = name.ljust(32, b"\0") + struct.pack("<II", w, h) + struct.pack("<4I", ofs0, 0, 0, 0)
    hdr += b"".ljust(32, b"\0") + struct.pack("<iii", 0, 0, 0)
    n = w * h if size_pixels is None else size_pixels
    return hdr + bytes(i & 0xFF for i in range(n))


def png_chunk(t, data):
    return struct.pack(">I", len(data)) + t + data + struct.pack(">I", zlib.crc32(t + data) & 0xFFFFFFFF)


def png(w, h, rows=None, ihdr_w=None):
    raw = b"".join(b"\0" + bytes((x * 7) & 0xFF for x in range(w * 3)) for _ in range(h)) if rows is None else rows
    ihdr = struct.pack(">IIBBBBB", w if ihdr_w is None else ihdr_w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(raw)) +
            png_chunk(b"IEND", b""))


def tga(imgtype, w, h, bits, body, cmaptype=0, cmaplen=0):
    return struct.pack("<BBBHHBHHHHBB", 0, cmaptype, imgtype, 0, cmaplen, 24 if cmaptype else 0, 0, 0, w, h,
                       bits, 0x20) + body


def pcx(w, h, body, palette=True, bits=8):
    hdr = struct.pack("<BBBBHHHHHH", 0x0A, 5, 1, bits, 0, 0, w - 1, h - 1, 72, 72)
    hdr += bytes(48) + bytes([0, 1]) + struct.pack("<HH", w, 1)
    hdr = hdr.ljust(128, b"\0")
    return hdr + body + ((b"\x0c" + bytes(768)) if palette else b"")


def texture_files():
    good = wal(16, 16)
    write("truncated.wal", good[:100 + 100])
    write("short_header.wal", good[:60])
    write("huge_dims.wal", wal(0x40000000, 0x40000000, size_pixels=64))
    write("zero_width.wal", wal(0, 16, size_pixels=0))
    write("offset_outside.wal", wal(16, 16, ofs0=5000))
    write("offset_in_header.wal", wal(16, 16, ofs0=10))
    p = png(8, 8)
    write("truncated.png", p[:len(p) // 2])
    bad = bytearray(p)
    bad[20] ^= 0xFF  # inside IHDR: the chunk CRC no longer matches
    write("bad_crc.png", bytes(bad))
    write("short_rows.png", png(8, 8, rows=b"\0" * 10))
    write("huge.png", png(8, 8, ihdr_w=1000000))
    write("not_png.png", b"GIF89a" + bytes(100))
    write("truncated.tga", tga(2, 4, 4, 24, bytes(20)))
    write("rle_overrun.tga", tga(10, 2, 2, 24, bytes([0x80 | 9, 1, 2, 3])))
    write("rle_truncated.tga", tga(10, 4, 4, 32, bytes([0x83, 1, 2, 3, 4])))
    write("colormapped.tga", tga(1, 2, 2, 8, bytes(4 * 3 + 4), cmaptype=1, cmaplen=4))
    write("bits16.tga", tga(2, 2, 2, 16, bytes(8)))
    write("cmap_past_end.tga", tga(2, 2, 2, 24, bytes(4), cmaptype=1, cmaplen=60000))
    write("truncated.pcx", pcx(16, 16, bytes([0xC5, 1]) * 3))
    write("no_palette.pcx", pcx(4, 4, bytes(16) + bytes(769), palette=False)[:-1] + b"\x00")
    write("bits4.pcx", pcx(4, 4, bytes(16), bits=4))
    write("unknown_flag.wal_json", b'{\n  "contents": ["WATER"],\n  "flags": ["NODRAW", "SPARKLY"]\n}\n')
    write("bad_syntax.wal_json", b'{\n  "flags": ["NODRAW"]\n  "value": 3\n}\n')
    write("trailing.wal_json", b'{ "value": 3 }\n}\n')
    write("bad_value.wal_json", b'{\n\n  "value": "bright"\n}\n')
    write("deep.wal_json", b'{ "x": ' + b"[" * 100 + b"]" * 100 + b" }")


if __name__ == "__main__":
    vfs_files()
    texture_files()
