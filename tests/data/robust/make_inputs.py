#!/usr/bin/env python3
"""Writes the hand-made broken inputs of tests/integration/robust_programs.sh
into this directory (the outputs are committed; rerun after changing this).

.map files are written from scratch here. .bsp and .prt files are mutations of
../bsp/q2tools-220_q2_door.bsp and .prt (GPL-2.0-or-later, see ../bsp/README.md),
so they are derived works under the same licence.
Usage: python3 tests/data/robust/make_inputs.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
BSP_SRC = os.path.join(HERE, "..", "bsp", "q2tools-220_q2_door.bsp")
PRT_SRC = os.path.join(HERE, "..", "bsp", "q2tools-220_q2_door.prt")
TEX = "e1u1/floor1_3"

# Outward normal -> two edge directions a, b with cross(a, b) along the normal,
# because the .map reader takes the plane normal as cross(p0 - p1, p2 - p1).
AXES = {
    (1, 0, 0): ((0, 1, 0), (0, 0, 1)), (-1, 0, 0): ((0, 0, 1), (0, 1, 0)),
    (0, 1, 0): ((0, 0, 1), (1, 0, 0)), (0, -1, 0): ((1, 0, 0), (0, 0, 1)),
    (0, 0, 1): ((1, 0, 0), (0, 1, 0)), (0, 0, -1): ((0, 1, 0), (1, 0, 0)),
}


def fmt(v):
    return "%g" % v if isinstance(v, float) else str(v)


def side(normal, point, tex=TEX):
    a, b = AXES[normal]
    p1 = point
    p0 = tuple(p + d for p, d in zip(p1, a))
    p2 = tuple(p + d for p, d in zip(p1, b))
    pts = " ".join("( %s )" % " ".join(fmt(c) for c in p) for p in (p0, p1, p2))
    return "%s %s 0 0 0 1 1\n" % (pts, tex)


def box(mins, maxs, tex=TEX, drop=()):
    out = "{\n"
    for i, n in enumerate(sorted(AXES)):
        if i in drop:
            continue
        pt = tuple(maxs[k] if n[k] > 0 else mins[k] for k in range(3))
        out += side(n, pt, tex)
    return out + "}\n"


def room(lo=-256, hi=256, t=16):
    """Six walls around the cube [lo, hi]^3."""
    b = ""
    for ax in range(3):
        for sign in (-1, 1):
            mins = [lo - t] * 3
            maxs = [hi + t] * 3
            if sign < 0:
                maxs[ax] = lo
            else:
                mins[ax] = hi
            b += box(mins, maxs)
    return b


def world(brushes, keys=""):
    return '{\n"classname" "worldspawn"\n%s%s}\n' % (keys, brushes)


def point(classname, origin, extra=""):
    return '{\n"classname" "%s"\n"origin" "%s"\n%s}\n' % (classname, origin, extra)


def good_map():
    return world(room()) + point("info_player_start", "0 0 0") + point("light", "0 0 128", '"light" "300"\n')


def write(name, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(HERE, name), mode) as f:
        f.write(data)


def maps():
    g = good_map()
    write("good_room.map", "// a valid sealed room, the base of the broken ones\n" + g)
    # Every brush open (one side missing): nothing is left to compile.
    open_room = ""
    for ax in range(6):
        open_room += box((-300 + 100 * ax, -16, -16), (-250 + 100 * ax, 16, 16), drop=(ax,))
    write("map_open_brushes.map", world(open_room))
    # A slab of no thickness (min == max on one axis) as the only brush.
    write("map_no_volume.map", world(box((0, 0, 0), (64, 64, 0))))
    # Infinite / huge coordinates (NaN is in ../bad/).
    write("map_inf_coordinate.map", world(room()).replace("( 272 ", "( inf ", 1))
    write("map_huge_coordinate.map", world(room() + box((10**9, 0, 0), (10**9 + 64, 64, 64))))
    # A brush and an entity beyond Quake 2's +-4096 world.
    write("map_brush_beyond_world.map", world(room() + box((5000, 0, 0), (5064, 64, 64))))
    write("map_entity_beyond_world.map", world(room()) + point("info_player_start", "0 0 0")
          + point("light", "0 0 5000", '"light" "300"\n'))
    # Three collinear points.
    write("map_collinear.map", world(room() + "{\n( 0 0 0 ) ( 1 1 1 ) ( 2 2 2 ) %s 0 0 0 1 1\n}\n" % TEX))
    # The player start outside the sealed room: the map leaks (-leaktest fails).
    write("map_entity_outside.map", world(room()) + point("info_player_start", "0 0 0")
          + point("light", "4000 0 0", '"light" "300"\n'))
    # Truncated in the middle of a brush (last 40% cut).
    write("map_truncated.map", g[:int(len(g) * 0.6)])
    write("map_empty.map", "")
    write("map_only_comments.map", "// nothing here\n// at all\n")
    # First entity is not the world.
    write("map_no_worldspawn.map", point("light", "0 0 0") + world(room()))
    # A key of 300 characters and a value of 5000.
    write("map_long_key.map", world(room(), '"%s" "1"\n' % ("k" * 300)))
    write("map_long_value.map", world(room(), '"message" "%s"\n' % ("v" * 5000)))
    # Texture name longer than 32 bytes on a brush entity (world case is in ../bad/).
    write("map_long_texture_entity.map", world(room())
          + '{\n"classname" "func_wall"\n' + box((0, 0, 0), (32, 32, 32), tex="x" * 40) + "}\n")
    # A brush with 10^6 side lines would be slow to write; 300 identical planes.
    write("map_many_same_planes.map", world(room() + "{\n" + side((1, 0, 0), (0, 0, 0)) * 300 + "}\n"))
    # Brace never closed at the end of the world entity.
    write("map_unclosed_entity.map", g.replace("}\n{\n\"classname\" \"info_player_start\"", "{\n\"classname\" \"info_player_start\"", 1))
    # Brush in a point entity key position: a key without value.
    write("map_key_no_value.map", world(room(), '"message"\n'))
    # UTF-16 file (a common editor mistake).
    write("map_utf16.map", g.encode("utf-16"))
    # Compiler keys (issue 13): a prefab file that is not there, or is a
    # directory (errors naming the map and line), a prefab that is the map
    # itself (its brushes once more), and bad values (warned, defaults).
    ext = '{\n"classname" "misc_external_map"\n"origin" "0 0 64"\n"_external_map" "%s"\n}\n'
    write("map_external_missing.map", g + ext % "no_such_prefab.map")
    write("map_external_dir.map", g + ext % ".")
    write("map_external_self.map", g + ext % "map_external_self.map")
    write("map_key_bad_values.map", world(room(), '"_tb_layer_omit_from_export" "nan"\n"_sunlight" "5"\n')
          + point("info_player_start", "0 0 0")
          + '{\n"classname" "func_wall"\n"_mirrorinside" "yes"\n"_noclipfaces" "-3"\n"_omitbrushes" "1e9"\n'
          + box((0, 0, 0), (32, 32, 32)) + "}\n"
          + '{\n"classname" "misc_external_map"\n"origin" "0 0 64"\n"_external_map" "map_key_bad_values.map"\n'
          + '"_external_map_scale" "0 0 0"\n"_external_map_angles" "1e999 0 0"\n"_external_map_classname" "func_wall"\n}\n')
    # qbsp's CSG, inside-face and group lighting keys with bad values (issue
    # 13): qbsp warns naming entity, key and line and uses the default (the
    # lighting keys are not passed to qrad).
    write("map_group_key_bad_values.map", world(room())
          + point("info_player_start", "0 0 0")
          + '{\n"classname" "func_detail"\n"_chop_order" "first"\n"_chop" "2"\n"_mirrorinside" "maybe"\n'
            '"_minlight" "bright"\n"_phong_angle" "400"\n"_minlight_color" "red"\n'
            '"_world_units_per_luxel" "-8"\n"_object_channel_mask" "1.5"\n'
          + box((-64, -64, -256), (64, 64, -192)) + "}\n")
    # Light keys with bad values (issue 13): words for numbers, negative
    # scales, angles out of range, masks that are not integers. qrad warns
    # naming entity, key and line, uses the defaults, and lights the map.
    write("map_bad_light_keys.map",
          world(room(), '"_minlight" "dark"\n"_dirt" "1"\n"_dirtscale" "-2"\n"_dirtangle" "200"\n'
                '"_sunlight3" "lots"\n"_sun_angle" "45 -120"\n"_ambient" "-5"\n"_bounce" "x"\n')
          + point("info_player_start", "0 0 0")
          + point("light", "0 0 128", '"light" "300"\n"_light_channel_mask" "1.5"\n"_deviance" "-4"\n'
                  '"_samples" "many"\n"_bouncescale" "-1"\n"_falloff" "nan"\n"_dirt" "2"\n')
          + '{\n"classname" "func_wall"\n"_phong_angle" "400"\n"_minlight" "1e999"\n'
            '"_object_channel_mask" "x"\n"_minlight_color" "red"\n"_shadow" "yes"\n'
          + box((-64, -64, -256), (64, 64, -192)) + "}\n")
    # The light, sun and bmodel keys of test_qrad_keys_lights with bad values.
    write("map_bad_light_keys2.map",
          world(room(), '"_dist" "0"\n"_range" "lots"\n"_gamma" "-1"\n"_spotlightautofalloff" "1.5"\n'
                '"_sunlight_dirt" "2"\n"_sunlight2_dirt" "x"\n"_sun_vector" "0 0 0"\n"_sun_style" "-3"\n'
                '"_sunlight" "50"\n"_maxlight" "-1"\n')
          + point("info_player_start", "0 0 0")
          + point("light", "0 0 128", '"light" "300"\n"mangle" "0 -90 0"\n"_cone" "60"\n"_softangle" "wide"\n'
                  '"_dirt" "1"\n"_dirtscale" "-1"\n"_dirtgain" "nan"\n"_nostaticlight" "0.5"\n"_fade" "-2"\n'
                  '"_distance" "far"\n"_angwait" "5"\n')
          + point("light", "0 0 200", '"_sun" "1"\n"light" "20"\n"style" "300"\n"_dirt" "1.5"\n')
          + '{\n"classname" "func_wall"\n"_lightignore" "2"\n"_minlight_mottle" "yes"\n'
            '"_phong_angle_concave" "400"\n"_maxlight" "3"\n'
          + box((-64, -64, -256), (64, 64, -192)) + "}\n")

    # Surface-light keys with bad values (issue 13): the same checks, with a
    # SURF_LIGHT lamp (flags 1, value 800 on its bottom face) and a template.
    lamp = box((-32, -32, 224), (32, 32, 256)).replace(
        "( -32 -31 224 ) ( -32 -32 224 ) ( -31 -32 224 ) %s 0 0 0 1 1" % TEX,
        "( -32 -31 224 ) ( -32 -32 224 ) ( -31 -32 224 ) %s 0 0 0 1 1 0 1 800" % TEX)
    write("map_bad_surflight_keys.map",
          world(room() + lamp, '"_surflightscale" "bright"\n"_surflightskyscale" "-2"\n"_surflight_atten" "-1"\n'
                '"_surflight_rescale" "maybe"\n"_surflight_minlight_scale" "1e999"\n"_surflight_radiosity" "2"\n'
                '"_tex_saturation_boost" "nan"\n')
          + point("info_player_start", "0 0 0")
          + point("light", "-200 -200 32", '"light" "300"\n"_surface" "e1u1/floor1_3"\n"_surface_radiosity" "0"\n'
                  '"_surface_offset" "far"\n"_surface_spotlight" "yes"\n"_surflight_group" "-3"\n')
          + '{\n"classname" "func_wall"\n"_surflight_color" "red"\n"_surflight_style" "300"\n"_surflight_atten" "x"\n'
          + box((-64, -64, -256), (64, 64, -192)) + "}\n")


LUMP = {"entities": 0, "planes": 1, "vertexes": 2, "visibility": 3, "nodes": 4,
        "texinfo": 5, "faces": 6, "lighting": 7, "leafs": 8, "models": 13}


def lump(data, n):
    return struct.unpack_from("<ii", data, 8 + 8 * n)


def set_lump(data, n, ofs, length):
    struct.pack_into("<ii", data, 8 + 8 * n, ofs, length)


def bsps():
    base = open(BSP_SRC, "rb").read()
    prt = open(PRT_SRC, "rb").read()
    write("good.bsp", base)
    write("good.prt", prt)

    def mut(name, fn):
        d = bytearray(base)
        fn(d)
        write(name, bytes(d))

    write("bsp_truncated.bsp", base[:len(base) // 3])
    write("bsp_header_only.bsp", base[:8])
    mut("bsp_lump_2gb.bsp", lambda d: set_lump(d, LUMP["faces"], lump(d, LUMP["faces"])[0], 0x7ffffff0))
    mut("bsp_texinfo_1e9.bsp", lambda d: set_lump(d, LUMP["texinfo"], lump(d, LUMP["texinfo"])[0], 76 * 10**9 % 2**31 // 76 * 76))

    def nan_plane(d):
        ofs = lump(d, LUMP["planes"])[0]
        struct.pack_into("<f", d, ofs, float("nan"))
    mut("bsp_plane_nan.bsp", nan_plane)

    def inf_vertex(d):
        ofs = lump(d, LUMP["vertexes"])[0]
        struct.pack_into("<f", d, ofs + 4, float("inf"))
    mut("bsp_vertex_inf.bsp", inf_vertex)

    def ent_unterminated(d):
        ofs, n = lump(d, LUMP["entities"])
        s = bytes(d[ofs:ofs + n])
        i = s.index(b'"classname"')
        d[ofs + i + len('"classname"') - 1] = ord("x")  # the closing quote goes
    mut("bsp_entities_unterminated.bsp", ent_unterminated)

    def light_nan(d):
        ofs, n = lump(d, LUMP["entities"])
        s = bytes(d[ofs:ofs + n]).rstrip(b"\0")
        extra = b'{\n"classname" "light"\n"origin" "nan 0 0"\n"light" "nan"\n}\n'
        # Append the entity by moving the lump to the end of the file.
        newlump = s + extra + b"\0"
        d.extend(b"\0" * ((-len(d)) % 4))
        set_lump(d, LUMP["entities"], len(d), len(newlump))
        d.extend(newlump)
    mut("bsp_light_nan.bsp", light_nan)

    def face_lightofs(d):
        ofs, n = lump(d, LUMP["faces"])
        struct.pack_into("<i", d, ofs + 16, 0x7fffff00)  # lightofs of face 0
    mut("bsp_face_lightofs.bsp", face_lightofs)

    def model_headnode(d):
        ofs, n = lump(d, LUMP["models"])
        struct.pack_into("<i", d, ofs + 36, 10**9)
    mut("bsp_model_headnode_1e9.bsp", model_headnode)

    def vis_clusters(d):
        ofs, n = lump(d, LUMP["visibility"])
        if n >= 4:
            struct.pack_into("<i", d, ofs, 10**9)
    mut("bsp_vis_1e9.bsp", vis_clusters)

    # .prt files that do not belong to good.bsp.
    lines = prt.decode().split("\n")
    lines[1] = str(int(lines[1]) + 5)  # more clusters than the bsp's leaves have
    write("prt_more_clusters.prt", "\n".join(lines))
    lines = prt.decode().split("\n")
    lines[1] = "1000000000"
    write("prt_1e9_clusters.prt", "\n".join(lines))
    write("prt_empty.prt", "")
    write("prt_quake1_header.prt", "PRT1\n2\n1\n4 0 1 (0 0 0) (0 1 0) (0 1 1) (0 0 1)\n")
    other = open(os.path.join(HERE, "..", "bsp", "q2tools-220_q2_liquids.prt"), "rb").read()
    write("prt_other_map.prt", other)
    write("prt_garbage.prt", bytes(range(256)) * 4)

    write("not_a_png.png", b"this is not a png\n")
    write("pts_garbage.pts", "1 2 three\nnan nan nan\n")


if __name__ == "__main__":
    maps()
    bsps()
