#!/usr/bin/env python3
"""Generates the malformed-input corpus in this directory.

Each file breaks one rule. EXPECTED.tsv lists, per file: the kind (bsp, map,
prt) and a phrase the error message must contain, so the tests check that
each input gets its own specific message, not just some failure.

The bsps are mutations of ../bsp/q2tools-220_q2_areaportal.bsp (GPL-2.0-or-
later, see ../bsp/README.md); the .map and .prt files are written here.
Run from anywhere: python3 tests/data/bad/make_bad.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "..", "bsp", "q2tools-220_q2_areaportal.bsp")

LUMPS = ["entities", "planes", "vertexes", "visibility", "nodes", "texinfo", "faces", "lighting",
         "leafs", "leaffaces", "leafbrushes", "edges", "surfedges", "models", "brushes",
         "brushsides", "pop", "areas", "areaportals"]
L = {name: i for i, name in enumerate(LUMPS)}

expected = []


def emit(name, kind, data, phrase):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    expected.append((name, kind, phrase))


class Bsp:
    def __init__(self, data):
        self.data = bytearray(data)

    def lump(self, name):
        i = L[name]
        return struct.unpack_from("<ii", self.data, 8 + 8 * i)

    def set_lump(self, name, ofs, length):
        struct.pack_into("<ii", self.data, 8 + 8 * L[name], ofs, length)

    def put(self, lump, index, recsize, field_ofs, fmt, value):
        ofs, length = self.lump(lump)
        assert (index + 1) * recsize <= length, (lump, index)
        struct.pack_into(fmt, self.data, ofs + index * recsize + field_ofs, value)

    def get(self, lump, index, recsize, field_ofs, fmt):
        ofs, _ = self.lump(lump)
        return struct.unpack_from(fmt, self.data, ofs + index * recsize + field_ofs)[0]

    def count(self, lump, recsize):
        return self.lump(lump)[1] // recsize

    def bytes(self):
        return bytes(self.data)


def base():
    with open(BASE, "rb") as f:
        return Bsp(f.read())


def bsp_cases():
    raw = base().bytes()
    size = len(raw)
    emit("bsp_empty.bsp", "bsp", b"", "truncated")
    emit("bsp_trunc_100.bsp", "bsp", raw[:100], "truncated")
    emit("bsp_trunc_half.bsp", "bsp", raw[: size // 2], "lies outside")
    emit("bsp_trunc_quarter.bsp", "bsp", raw[: size // 4], "lies outside")
    # The last lump ends at the end of the file, so one byte less cuts it.
    ends = [sum(base().lump(n)) for n in LUMPS]
    assert max(ends) == size
    emit("bsp_trunc_minus1.bsp", "bsp", raw[: size - 1], "lies outside")

    b = base(); b.data[0:4] = b"RIFF"
    emit("bsp_bad_ident.bsp", "bsp", b.bytes(), "not a Quake 2 .bsp")
    # IBSP records under the extended format's ident: QBSP's nodes are 44
    # bytes, and this file's 40 nodes (1120 bytes) are not a multiple.
    b = base(); b.data[0:4] = b"QBSP"
    emit("bsp_qbsp_ident.bsp", "bsp", b.bytes(), "44-byte QBSP records")
    b = base(); struct.pack_into("<i", b.data, 4, 37)
    emit("bsp_version_37.bsp", "bsp", b.bytes(), "unsupported IBSP version 37")

    b = base(); b.set_lump("planes", size + 100, b.lump("planes")[1])
    emit("bsp_lump_outside.bsp", "bsp", b.bytes(), "lump planes")
    b = base(); b.set_lump("faces", -8, b.lump("faces")[1])
    emit("bsp_negative_offset.bsp", "bsp", b.bytes(), "offset -8")
    b = base(); b.set_lump("edges", b.lump("edges")[0], -4)
    emit("bsp_negative_length.bsp", "bsp", b.bytes(), "length -4")
    b = base(); b.set_lump("lighting", 160, 0x7FFFFFF0)
    emit("bsp_lump_2gb.bsp", "bsp", b.bytes(), "length 2147483632")
    b = base(); o, n = b.lump("planes"); b.set_lump("planes", o, n - 1)
    emit("bsp_lump_not_multiple.bsp", "bsp", b.bytes(), "not a multiple")

    # Index errors (found by bsp_check).
    b = base(); b.put("nodes", 0, 28, 0, "<i", 99999)
    emit("bsp_node_plane.bsp", "bsp", b.bytes(), "node 0: plane 99999 out of range")
    b = base(); b.put("nodes", 0, 28, 4, "<i", 5000)
    emit("bsp_node_child.bsp", "bsp", b.bytes(), "node 0: child 0 is node 5000")
    b = base(); b.put("nodes", 0, 28, 8, "<i", -30000)
    emit("bsp_node_leaf_child.bsp", "bsp", b.bytes(), "is leaf 29999, out of range")
    # Point a child of the root's child back at the root.
    b = base()
    c0 = b.get("nodes", 0, 28, 4, "<i")
    assert c0 > 0
    b.put("nodes", c0, 28, 4, "<i", 0)
    emit("bsp_node_cycle.bsp", "bsp", b.bytes(), "reached twice")
    b = base(); b.put("models", 0, 48, 36, "<i", 70000)
    emit("bsp_model_headnode.bsp", "bsp", b.bytes(), "model 0: head node 70000 out of range")

    b = base(); b.put("faces", 0, 20, 4, "<i", 10000000)
    emit("bsp_face_firstedge.bsp", "bsp", b.bytes(), "face 0: surfedges 10000000")
    b = base(); b.put("faces", 0, 20, 8, "<h", 2)
    emit("bsp_face_two_edges.bsp", "bsp", b.bytes(), "face 0: 2 edges")
    b = base(); b.put("faces", 0, 20, 10, "<h", 3000)
    emit("bsp_face_texinfo.bsp", "bsp", b.bytes(), "face 0: texinfo 3000 out of range")
    b = base(); b.put("faces", 0, 20, 0, "<H", 60000)
    emit("bsp_face_plane.bsp", "bsp", b.bytes(), "face 0: plane 60000 out of range")
    b = base()
    first = b.get("faces", 0, 20, 4, "<i")
    se = b.get("surfedges", first + 1, 4, 0, "<i")
    b.put("surfedges", first + 1, 4, 0, "<i", -se)
    emit("bsp_face_open_loop.bsp", "bsp", b.bytes(), "not a closed loop")
    b = base(); b.put("surfedges", 0, 4, 0, "<i", 99999)
    emit("bsp_surfedge_range.bsp", "bsp", b.bytes(), "surfedge 0: edge 99999 out of range")
    b = base(); b.put("surfedges", 0, 4, 0, "<i", -2**31)
    emit("bsp_surfedge_intmin.bsp", "bsp", b.bytes(), "surfedge 0: edge -2147483648 out of range")
    b = base(); b.put("edges", 1, 4, 0, "<H", 60000)
    emit("bsp_edge_vertex.bsp", "bsp", b.bytes(), "edge 1: vertex 60000 out of range")

    b = base(); b.put("texinfo", 0, 76, 72, "<i", 5000)
    emit("bsp_texinfo_next.bsp", "bsp", b.bytes(), "texinfo 0: nexttexinfo 5000 out of range")
    b = base(); b.put("texinfo", 0, 76, 72, "<i", 1); b.put("texinfo", 1, 76, 72, "<i", 1)
    emit("bsp_texinfo_loop.bsp", "bsp", b.bytes(), "texinfo 0: nexttexinfo chain enters a loop")
    b = base(); b.put("texinfo", 2, 76, 0, "<f", float("nan"))
    emit("bsp_texinfo_nan.bsp", "bsp", b.bytes(), "texinfo 2: texture vectors not finite")
    b = base(); b.put("planes", 3, 20, 4, "<f", float("nan"))
    emit("bsp_plane_nan.bsp", "bsp", b.bytes(), "plane 3: not finite")

    b = base(); b.put("leafs", 0, 28, 0, "<i", 0)
    emit("bsp_leaf0_not_solid.bsp", "bsp", b.bytes(), "leaf 0: contents 0x0 is not solid")
    nleafs = b.count("leafs", 28)
    b = base(); b.put("leafs", nleafs - 1, 28, 4, "<h", 500)
    emit("bsp_leaf_cluster.bsp", "bsp", b.bytes(), "leaf %d: cluster 500 out of range" % (nleafs - 1))
    b = base(); b.put("leafs", 1, 28, 6, "<h", 40)
    emit("bsp_leaf_area.bsp", "bsp", b.bytes(), "leaf 1: area 40 out of range")
    b = base(); b.put("leaffaces", 0, 2, 0, "<H", 65000)
    emit("bsp_leafface_range.bsp", "bsp", b.bytes(), "leafface 0: face 65000 out of range")
    b = base(); b.put("leafbrushes", 0, 2, 0, "<H", 65000)
    emit("bsp_leafbrush_range.bsp", "bsp", b.bytes(), "leafbrush 0: brush 65000 out of range")
    b = base(); b.put("brushsides", 0, 4, 0, "<H", 65000)
    emit("bsp_brushside_plane.bsp", "bsp", b.bytes(), "brushside 0: plane 65000 out of range")
    b = base(); b.put("brushes", 0, 12, 4, "<i", 100000)
    emit("bsp_brush_sides.bsp", "bsp", b.bytes(), "brush 0: sides")

    # Visibility: header is numclusters, then [PVS, PHS] offsets per cluster.
    b = base(); vo, vl = b.lump("visibility")
    struct.pack_into("<i", b.data, vo + 4, vl + 1000)
    emit("bsp_vis_offset.bsp", "bsp", b.bytes(), "cluster 0 PVS offset outside the lump")
    b = base(); vo, vl = b.lump("visibility")
    struct.pack_into("<i", b.data, vo, 100000)
    emit("bsp_vis_numclusters.bsp", "bsp", b.bytes(), "claims 100000 clusters")
    b = base(); vo, vl = b.lump("visibility")
    struct.pack_into("<i", b.data, vo, 10**9)
    emit("bsp_vis_1e9_clusters.bsp", "bsp", b.bytes(), "claims 1000000000 clusters")
    b = base(); vo, vl = b.lump("visibility")
    struct.pack_into("<i", b.data, vo, -1)
    emit("bsp_vis_negative_clusters.bsp", "bsp", b.bytes(), "claims -1 clusters")
    # A zero run longer than the row: 0x00 0xff at the start of cluster 0's
    # PVS row (11 clusters -> 2 bytes per row).
    b = base(); vo, vl = b.lump("visibility")
    row = struct.unpack_from("<i", b.data, vo + 4)[0]
    b.data[vo + row] = 0
    b.data[vo + row + 1] = 0xFF
    emit("bsp_vis_bad_rle.bsp", "bsp", b.bytes(), "cluster 0 PVS row does not decompress")

    b = base(); lo, ll = b.lump("lighting")
    b.put("faces", 0, 20, 16, "<i", ll)
    emit("bsp_lightofs_past_end.bsp", "bsp", b.bytes(), "face 0: lightmap at %d" % ll)
    b = base(); b.put("faces", 0, 20, 16, "<i", -5)
    emit("bsp_lightofs_negative.bsp", "bsp", b.bytes(), "face 0: lightofs -5 is negative")

    # Area portals: each area lists (portalnum, otherarea) pairs.
    b = base()
    na = b.count("areas", 8)
    nap = b.count("areaportals", 8)
    assert na == 3 and nap == 2, (na, nap)
    b.put("areaportals", 0, 8, 4, "<i", 77)
    emit("bsp_areaportal_otherarea.bsp", "bsp", b.bytes(), "leads to area 77, out of range")
    b = base(); b.put("areaportals", 0, 8, 0, "<i", 9)
    emit("bsp_areaportal_asymmetric.bsp", "bsp", b.bytes(), "no matching portal")
    b = base(); b.put("areas", 1, 8, 4, "<i", 50)
    emit("bsp_area_range.bsp", "bsp", b.bytes(), "area 1: portals 50")

    # An entity lump that does not parse: a value without quotes.
    b = base(); eo, el = b.lump("entities")
    text = b'{\n"classname" worldspawn\n}\n'
    b.data[eo:eo + el] = text + b" " * (el - len(text) - 1) + b"\0"
    emit("bsp_entities_unquoted.bsp", "bsp", b.bytes(), "has no quoted value")


MAP_HEAD = '// Game: Quake 2\n{\n"classname" "worldspawn"\n{\n'
SIDE = "( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) e1u1/floor1_3 0 0 0 1 1\n"


def map_cases():
    emit("map_missing_brace.map", "map", MAP_HEAD + SIDE * 3 + "}\n", "map_missing_brace.map:9:1: expected")
    emit("map_bad_number.map", "map", MAP_HEAD + "( 0 0 0 ) ( 0 1x 0 ) ( 1 0 0 ) t 0 0 0 1 1\n}\n}\n",
         "map_bad_number.map:5:15: expected y coordinate of point 2 (a number) but found '1x'")
    emit("map_nan_coordinate.map", "map", MAP_HEAD + "( 0 0 0 ) ( 0 1 0 ) ( 1 nan 0 ) t 0 0 0 1 1\n}\n}\n",
         "map_nan_coordinate.map:5:25: y coordinate of point 3 'nan' is not a finite number")
    emit("map_unterminated_string.map", "map", '{\n"classname" "worldspawn\n}\n',
         "map_unterminated_string.map:2:13: unterminated quoted string")
    emit("map_too_few_points.map", "map", MAP_HEAD + "( 0 0 0 ) ( 0 1 0 ) t 0 0 0 1 1\n}\n}\n",
         "map_too_few_points.map:5:21: expected '(' but found 't'")
    emit("map_brushdef.map", "map", MAP_HEAD + "brushDef\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) ( ( 1 0 0 ) ( 0 1 0 ) ) t\n}\n}\n}\n",
         "map_brushdef.map:5:1: brushDef")
    emit("map_missing_scale.map", "map", MAP_HEAD + "( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1\n}\n}\n",
         "map_missing_scale.map:6:1: expected texture y scale")
    emit("map_top_level_word.map", "map", "worldspawn\n", "map_top_level_word.map:1:1: expected '{'")
    emit("map_texture_too_long.map", "map", MAP_HEAD + "( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) " + "x" * 80 + " 0 0 0 1 1\n}\n}\n",
         "map_texture_too_long.map:5:31: texture name")
    emit("map_valve_bracket.map", "map", MAP_HEAD + "( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t [ 1 0 0 0 [ 0 -1 0 0 ] 0 1 1\n}\n}\n",
         "map_valve_bracket.map:5:43: expected ']'")
    emit("map_two_trailing.map", "map", MAP_HEAD + "( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) t 0 0 0 1 1 8 0\n}\n}\n",
         "map_two_trailing.map:6:1: expected surface value")
    emit("map_binary.map", "map", b"{\n\"classname\" \"worldspawn\"\n{\n( \x01\x02 0 0 )\n}\n}\n",
         "map_binary.map:4:3: expected x coordinate of point 1 (a number)")


def prt_cases():
    # The base bsp has 11 clusters; these portal files are meant to sit next
    # to it.
    quad = "(0 0 0) (0 64 0) (0 64 64) (0 0 64)"
    emit("prt_bad_header.prt", "prt", "PRT3\n11\n1\n4 0 1 %s\n" % quad, "bad.prt:1:1: bad header".replace("bad.prt", "prt_bad_header.prt"))
    emit("prt_counts_more.prt", "prt", "PRT1\n11\n1\n4 0 1 %s\n4 1 2 %s\n" % (quad, quad),
         "prt_counts_more.prt:5:1: counts do not match")
    emit("prt_counts_fewer.prt", "prt", "PRT1\n11\n3\n4 0 1 %s\n" % quad,
         "prt_counts_fewer.prt:5:1: truncated")
    emit("prt_cluster_range.prt", "prt", "PRT1\n11\n1\n4 0 11 %s\n" % quad,
         "prt_cluster_range.prt:4:5: portal 0: cluster 11 is out of range")
    emit("prt_nan.prt", "prt", "PRT1\n11\n1\n4 0 1 (0 0 0) (0 nan 0) (0 64 64) (0 0 64)\n",
         "prt_nan.prt:4:18: y coordinate of point 2 of portal 0 'nan' is not a finite number")
    emit("prt_truncated.prt", "prt", "PRT1\n11\n1\n4 0 1 (0 0 0) (0 64 0) (0 6", "prt_truncated.prt:4:28: truncated portal file")
    emit("prt_1e9_portals.prt", "prt", "PRT1\n11\n1000000000\n4 0 1 %s\n" % quad,
         "prt_1e9_portals.prt:3:1: the header claims 1000000000 portals")
    emit("prt_1e9_points.prt", "prt", "PRT1\n11\n1\n1000000000 0 1 %s\n" % quad,
         "prt_1e9_points.prt:4:1: portal 0 has 1000000000 points (more than")
    emit("prt_negative_clusters.prt", "prt", "PRT1\n-11\n0\n", "prt_negative_clusters.prt:2:1: the number of clusters -11 is negative")
    emit("prt_quake1.prt", "prt", "PRT2\n11\n11\n0\n", "prt_quake1.prt:1:1: 'PRT2' is a Quake 1 portal format")
    emit("prt_two_points.prt", "prt", "PRT1\n11\n1\n2 0 1 (0 0 0) (0 64 0)\n",
         "prt_two_points.prt:4:1: portal 0 has 2 points")


def main():
    for name in os.listdir(HERE):
        if name.endswith((".bsp", ".map", ".prt")):
            os.remove(os.path.join(HERE, name))
    bsp_cases()
    map_cases()
    prt_cases()
    with open(os.path.join(HERE, "EXPECTED.tsv"), "w") as f:
        f.write("# file\tkind\tphrase the error must contain\n")
        for name, kind, phrase in expected:
            f.write("%s\t%s\t%s\n" % (name, kind, phrase))
    print("%d malformed inputs" % len(expected))


if __name__ == "__main__":
    main()
