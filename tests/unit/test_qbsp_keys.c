/* qbsp's map keys (issue 13): small maps written by the test, compiled by
 * the qbsp program, and the .bsp (or the log) checked. Each family is
 * checked with the key and without it (or with the other value), so the
 * test fails when the feature is off. Also: docs/keys.md is what
 * `qbsp -keys` prints, every honoured row names a test that exists, and
 * every `_` key in the maps under tests/data is in the table or warned
 * about. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../common/fileio.h"
#include "../../formats/bspfile.h"
#include "../../formats/bspx.h"
#include "../../formats/entities.h"
#include "../../formats/keytable.h"
#include "../../formats/mapfile.h"
#include "../../formats/q2defs.h"
#include "test_util.h"

#include "test_qbsp_maps.h"

/* ------------------------------------------------------------ bsp queries */

static int point_contents(const bsp_t *bsp, int model, vec3_t p)
{
    int n = bsp->models[model].headnode;
    while (n >= 0) {
        const dnode_t *nd = &bsp->nodes[n];
        const dplane_t *pl = &bsp->planes[nd->planenum];
        double d = pl->normal[0] * p.x + pl->normal[1] * p.y + pl->normal[2] * p.z - pl->dist;
        n = nd->children[d < 0];
    }
    return bsp->leafs[-1 - n].contents;
}

/* The entity of the bsp's lump with "model" "*m" (a copy), or one with
 * the classname when m < 0. */
static bool lump_entity(const bsp_t *bsp, int m, const char *cls, entity_t *out)
{
    entity_list_t list;
    q2err_t err;
    assert_true(entities_parse(bsp->entities, "lump", &list, &err));
    char want[16];
    snprintf(want, sizeof want, "*%d", m);
    bool found = false;
    for (int i = 0; i < list.count && !found; i++) {
        const char *mv = entity_get(&list.ents[i], "model");
        if (m >= 0 ? (mv && strcmp(mv, want) == 0) : strcmp(entity_classname(&list.ents[i]), cls) == 0) {
            *out = list.ents[i];
            memset(&list.ents[i], 0, sizeof list.ents[i]);
            found = true;
        }
    }
    entities_free(&list);
    return found;
}

/* ------------------------------------------------------ TrenchBroom layers */

/* A layer (id 5) holding a pillar, a group (id 7) inside it holding a
 * brush, a light and a func_wall in the layer/group, and a kept layer
 * (id 6) with a brush. */
static void tb_layers_map(mt_t *m, const char *omit)
{
    mt_room(m, "");
    mt_end_world(m);
    mt_printf(m, "{\n\"classname\" \"func_group\"\n\"_tb_type\" \"_tb_layer\"\n\"_tb_name\" \"hidden\"\n\"_tb_id\" \"5\"\n"
                 "\"_tb_layer_omit_from_export\" \"%s\"\n", omit);
    mt_box(m, 100, 100, 0, 140, 140, 128, "e1u1/wall", "");
    mt_printf(m, "}\n{\n\"classname\" \"func_group\"\n\"_tb_type\" \"_tb_group\"\n\"_tb_name\" \"g\"\n\"_tb_id\" \"7\"\n"
                 "\"_tb_layer\" \"5\"\n");
    mt_box(m, 300, 100, 0, 340, 140, 128, "e1u1/wall", "");
    mt_printf(m, "}\n{\n\"classname\" \"light\"\n\"origin\" \"200 200 128\"\n\"_tb_layer\" \"5\"\n}\n");
    mt_printf(m, "{\n\"classname\" \"func_wall\"\n\"_tb_group\" \"7\"\n");
    mt_box(m, 300, 300, 0, 340, 340, 128, "e1u1/wall", "");
    mt_printf(m, "}\n{\n\"classname\" \"func_group\"\n\"_tb_type\" \"_tb_layer\"\n\"_tb_name\" \"shown\"\n\"_tb_id\" \"6\"\n"
                 "\"_tb_layer_omit_from_export\" \"0\"\n");
    mt_box(m, 100, 300, 0, 140, 340, 128, "e1u1/wall", "");
    mt_printf(m, "}\n");
}

static void test_key_tb_layer_omit(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t on, off;
    tb_layers_map(&m, "1");
    compile_mt("tb_omit", &m, NULL, &on);
    tb_layers_map(&m, "0");
    compile_mt("tb_keep", &m, NULL, &off);
    need_bsp(&on);
    need_bsp(&off);

    vec3_t pillar = vec3(120, 120, 64), grouped = vec3(320, 120, 64), kept = vec3(120, 320, 64);
    /* Omitted: no brush of the layer or its group, no entity of it. */
    assert_int_equal(point_contents(&on.bsp, 0, pillar) & CONTENTS_SOLID, 0);
    assert_int_equal(point_contents(&on.bsp, 0, grouped) & CONTENTS_SOLID, 0);
    assert_int_not_equal(point_contents(&on.bsp, 0, kept) & CONTENTS_SOLID, 0);
    assert_int_equal(on.bsp.nummodels, 1);
    entity_t e;
    assert_false(lump_entity(&on.bsp, -1, "light", &e));
    assert_false(lump_entity(&on.bsp, -1, "func_wall", &e));
    assert_int_equal(count_lines_with(on.log, "3 brushes and 2 entities", "_tb_layer_omit_from_export"), 1);
    /* 6 room walls + the kept layer's brush. */
    assert_int_equal(on.bsp.numbrushes, 7);

    /* The same map with the layer shown: everything is compiled. */
    assert_int_not_equal(point_contents(&off.bsp, 0, pillar) & CONTENTS_SOLID, 0);
    assert_int_not_equal(point_contents(&off.bsp, 0, grouped) & CONTENTS_SOLID, 0);
    assert_int_equal(off.bsp.nummodels, 2);
    assert_true(lump_entity(&off.bsp, -1, "light", &e));
    entity_free(&e);
    assert_int_equal(count_lines_with(off.log, "left out", NULL), 0);
    result_free(&on);
    result_free(&off);
}

/* `_tb_layer_omit_from_export` on worldspawn leaves out TrenchBroom's
 * default layer: worldspawn's own brushes and the entities in no layer. */
static void test_key_tb_default_layer(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t r;
    mt_printf(&m, "{\n\"classname\" \"worldspawn\"\n\"_tb_layer_omit_from_export\" \"1\"\n");
    mt_box(&m, 100, 100, 0, 140, 140, 128, "e1u1/wall", "");
    mt_printf(&m, "}\n{\n\"classname\" \"light\"\n\"origin\" \"200 200 128\"\n}\n");
    mt_printf(&m, "{\n\"classname\" \"func_group\"\n\"_tb_type\" \"_tb_layer\"\n\"_tb_id\" \"2\"\n");
    mt_box(&m, -16, -16, -16, 528, 528, 0, "e1u1/floor", "");
    mt_box(&m, -16, -16, 256, 528, 528, 272, "e1u1/ceil", "");
    mt_box(&m, -16, -16, 0, 0, 528, 256, "e1u1/wall", "");
    mt_box(&m, 512, -16, 0, 528, 528, 256, "e1u1/wall", "");
    mt_box(&m, 0, -16, 0, 512, 0, 256, "e1u1/wall", "");
    mt_box(&m, 0, 512, 0, 512, 528, 256, "e1u1/wall", "");
    mt_printf(&m, "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"32 32 40\"\n\"_tb_layer\" \"2\"\n}\n");
    compile_mt("tb_default", &m, NULL, &r);
    need_bsp(&r);
    assert_int_equal(point_contents(&r.bsp, 0, vec3(120, 120, 64)) & CONTENTS_SOLID, 0);
    assert_int_not_equal(point_contents(&r.bsp, 0, vec3(-8, 256, 128)) & CONTENTS_SOLID, 0);
    entity_t e;
    assert_false(lump_entity(&r.bsp, -1, "light", &e));
    assert_true(lump_entity(&r.bsp, -1, "info_player_start", &e));
    entity_free(&e);
    assert_int_equal(count_lines_with(r.log, "1 brushes and 1 entities", NULL), 1);
    result_free(&r);
}

/* Groups and layers are func_groups: their brushes join the world model
 * and the entities are not written. */
static void test_key_tb_group_merge(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t r;
    tb_layers_map(&m, "0");
    compile_mt("tb_merge", &m, NULL, &r);
    need_bsp(&r);
    assert_int_not_equal(point_contents(&r.bsp, 0, vec3(320, 120, 64)) & CONTENTS_SOLID, 0);
    entity_t e;
    assert_false(lump_entity(&r.bsp, -1, "func_group", &e));
    /* The func_wall inside the group stays a model of its own. */
    assert_true(lump_entity(&r.bsp, 1, NULL, &e));
    assert_string_equal(entity_classname(&e), "func_wall");
    entity_free(&e);
    result_free(&r);
}

/* ------------------------------------------------------- inside faces */

static void mirror_map(mt_t *m, const char *v)
{
    mt_room(m, "");
    mt_end_world(m);
    /* Water (contents from the face line), a fence and mist, each once
     * with the key and once without. */
    mt_printf(m, "{\n\"classname\" \"func_group\"\n\"_mirrorinside\" \"%s\"\n", v);
    mt_box(m, 64, 64, 0, 128, 128, 64, "e1u1/water", " 32 0 0");
    mt_printf(m, "}\n{\n\"classname\" \"func_detail_fence\"\n\"_mirrorinside\" \"%s\"\n", v);
    mt_box(m, 192, 64, 0, 256, 128, 64, "e1u1/fence", "");
    mt_printf(m, "}\n{\n\"classname\" \"func_detail_illusionary\"\n\"_mirrorinside\" \"%s\"\n", v);
    mt_box(m, 320, 64, 0, 384, 128, 64, "e1u1/mist", "");
    mt_printf(m, "}\n{\n\"classname\" \"func_detail_fence\"\n");
    mt_box(m, 192, 300, 0, 256, 364, 64, "e1u1/fence", "");
    mt_printf(m, "}\n{\n\"classname\" \"func_detail_illusionary\"\n");
    mt_box(m, 320, 300, 0, 384, 364, 64, "e1u1/mist", "");
    mt_printf(m, "}\n");
}

static void test_key_mirrorinside(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t on, off;
    mirror_map(&m, "1");
    compile_mt("mirror_on", &m, NULL, &on);
    mirror_map(&m, "0");
    compile_mt("mirror_off", &m, NULL, &off);
    need_bsp(&on);
    need_bsp(&off);
    const vec3_t up = vec3(0, 0, 1), down = vec3(0, 0, -1), any = vec3(0, 0, 0);
    const vec3_t tops[3] = {vec3(96, 96, 64), vec3(224, 96, 64), vec3(352, 96, 64)};
    for (int i = 0; i < 3; i++) {
        /* _mirrorinside 1: the top is drawn from above and from inside. */
        assert_int_equal(faces_at(&on.bsp, tops[i], up), 1);
        assert_int_equal(faces_at(&on.bsp, tops[i], down), 1);
        /* _mirrorinside 0: from above only. */
        assert_int_equal(faces_at(&off.bsp, tops[i], up), 1);
        assert_int_equal(faces_at(&off.bsp, tops[i], down), 0);
    }
    /* Without the key: ericw-tools' Quake 2 defaults, off for fences and
     * func_detail_illusionary (test_qbsp_keys2 checks every contents). */
    assert_int_equal(faces_at(&on.bsp, vec3(224, 332, 64), any), 1);
    assert_int_equal(faces_at(&on.bsp, vec3(352, 332, 64), any), 1);
    assert_int_equal(faces_at(&off.bsp, vec3(224, 332, 64), any), 1);
    result_free(&on);
    result_free(&off);
}

/* Two overlapping water brushes: with _noclipfaces the face of one inside
 * the other is drawn; without, water meets water and nothing is. */
static void noclip_map(mt_t *m, bool key)
{
    mt_room(m, "");
    mt_end_world(m);
    mt_printf(m, "{\n\"classname\" \"func_group\"\n%s", key ? "\"_noclipfaces\" \"1\"\n" : "");
    mt_box(m, 64, 64, 0, 192, 192, 64, "e1u1/water", " 32 0 0");
    mt_box(m, 128, 64, 0, 256, 192, 64, "e1u1/water", " 32 0 0");
    mt_printf(m, "}\n");
}

static void test_key_noclipfaces(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t on, off;
    noclip_map(&m, true);
    compile_mt("noclip_on", &m, NULL, &on);
    noclip_map(&m, false);
    compile_mt("noclip_off", &m, NULL, &off);
    need_bsp(&on);
    need_bsp(&off);
    /* Inside both brushes, on the second's west side and the first's east side. */
    vec3_t west = vec3(128, 128, 32), east = vec3(192, 128, 32);
    assert_true(faces_at(&on.bsp, west, vec3(0, 0, 0)) >= 1);
    assert_true(faces_at(&on.bsp, east, vec3(0, 0, 0)) >= 1);
    assert_int_equal(faces_at(&off.bsp, west, vec3(0, 0, 0)), 0);
    assert_int_equal(faces_at(&off.bsp, east, vec3(0, 0, 0)), 0);
    /* The water surface is there either way. */
    assert_true(faces_at(&off.bsp, vec3(160, 128, 64), vec3(0, 0, 1)) == 1);
    result_free(&on);
    result_free(&off);
}

static void test_key_omitbrushes(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t r;
    mt_room(&m, "");
    mt_end_world(&m);
    mt_printf(&m, "{\n\"classname\" \"func_wall\"\n\"_omitbrushes\" \"1\"\n");
    mt_box(&m, 100, 100, 0, 140, 140, 64, "e1u1/wall", "");
    mt_printf(&m, "}\n{\n\"classname\" \"func_wall\"\n");
    mt_box(&m, 300, 100, 0, 340, 140, 64, "e1u1/wall", "");
    mt_printf(&m, "}\n");
    compile_mt("omitbrushes", &m, NULL, &r);
    need_bsp(&r);
    /* Only the second func_wall is a model. */
    assert_int_equal(r.bsp.nummodels, 2);
    assert_true(r.bsp.models[1].mins[0] > 290 && r.bsp.models[1].maxs[0] < 350);
    assert_int_equal(count_lines_with(r.log, "1 brushes of _omitbrushes", NULL), 1);
    result_free(&r);
}

/* -------------------------------------------------------- external maps */

static void test_key_external_map(void **state)
{
    (void)state;
    /* The prefab: a 32x16x16 box in worldspawn and an 8-unit cube in a
     * func_group (both imported), and a light (ignored). */
    mt_t p = {0};
    mt_printf(&p, "{\n\"classname\" \"worldspawn\"\n");
    mt_box(&p, 0, 0, 0, 32, 16, 16, "e1u1/wall", "");
    mt_printf(&p, "}\n{\n\"classname\" \"func_group\"\n");
    mt_box(&p, 0, 0, 16, 8, 8, 24, "e1u1/wall", "");
    mt_printf(&p, "}\n{\n\"classname\" \"light\"\n\"origin\" \"0 0 0\"\n}\n");
    write_file("prefab.map", p.s);
    free(p.s);

    mt_t m = {0};
    result_t r, miss, badv;
    mt_room(&m, "");
    mt_end_world(&m);
    mt_printf(&m, "{\n\"classname\" \"misc_external_map\"\n\"origin\" \"256 256 64\"\n\"_external_map\" \"prefab.map\"\n"
                  "\"_external_map_classname\" \"func_wall\"\n\"_external_map_angle\" \"90\"\n"
                  "\"_external_map_scale\" \"2\"\n\"targetname\" \"door1\"\n}\n");
    compile_mt("external", &m, NULL, &r);
    need_bsp(&r);
    assert_int_equal(r.bsp.nummodels, 2);
    /* Scaled by 2 and turned 90 degrees about z: x in [-32,0], y in
     * [0,64], z in [0,48], then moved to the origin. */
    const float want_min[3] = {224, 256, 64}, want_max[3] = {256, 320, 112};
    for (int i = 0; i < 3; i++) {
        assert_true(fabs(r.bsp.models[1].mins[i] - want_min[i]) <= 1.01);
        assert_true(fabs(r.bsp.models[1].maxs[i] - want_max[i]) <= 1.01);
    }
    entity_t e;
    assert_true(lump_entity(&r.bsp, 1, NULL, &e));
    assert_string_equal(entity_classname(&e), "func_wall");
    assert_string_equal(entity_get(&e, "targetname"), "door1");
    entity_free(&e);
    assert_false(lump_entity(&r.bsp, -1, "light", &e));

    /* A missing file: an error naming both files and the line, no bsp. */
    mt_room(&m, "");
    mt_end_world(&m);
    mt_printf(&m, "{\n\"classname\" \"misc_external_map\"\n\"origin\" \"256 256 64\"\n\"_external_map\" \"nothere.map\"\n}\n");
    compile_mt("external_missing", &m, NULL, &miss);
    assert_int_not_equal(miss.status, 0);
    assert_false(miss.have_bsp);
    assert_int_equal(count_lines_with(miss.log, "external_missing.map:", "nothere.map"), 1);
    /* The key's line: room (2 + 6*8 lines) + player start (4) + 4. */
    assert_int_equal(count_lines_with(miss.log, "external_missing.map:59:", "not found"), 1);

    /* Bad values: warned about (entity, key, line), defaults used. */
    mt_room(&m, "");
    mt_end_world(&m);
    mt_printf(&m, "{\n\"classname\" \"misc_external_map\"\n\"origin\" \"256 256 64\"\n\"_external_map\" \"prefab.map\"\n"
                  "\"_external_map_scale\" \"-2\"\n\"_external_map_angles\" \"up down x\"\n}\n");
    compile_mt("external_bad", &m, NULL, &badv);
    need_bsp(&badv);
    assert_int_equal(count_lines_with(badv.log, "external_bad.map:60:", "\"_external_map_scale\" \"-2\""), 1);
    assert_int_equal(count_lines_with(badv.log, "external_bad.map:61:", "\"_external_map_angles\" \"up down x\""), 1);
    /* Scale 1, no rotation: the box's world bounds are at the origin. The
     * prefab became a func_group, so it is part of the world. */
    assert_int_equal(badv.bsp.nummodels, 1);
    assert_int_not_equal(point_contents(&badv.bsp, 0, vec3(272, 264, 72)) & CONTENTS_SOLID, 0);
    assert_int_equal(point_contents(&badv.bsp, 0, vec3(300, 264, 72)) & CONTENTS_SOLID, 0);
    result_free(&r);
    result_free(&miss);
    result_free(&badv);
}

/* ------------------------------------------------------------- regions */

static void region_map(mt_t *m, const char *region_tex, double rx0, double rx1)
{
    mt_room(m, "");
    mt_box(m, 100, 100, 0, 140, 140, 64, "e1u1/wall", "");
    mt_box(m, 400, 100, 0, 440, 140, 64, "e1u1/wall", "");
    if (region_tex) mt_box(m, rx0, -32, -32, rx1, 544, 288, region_tex, "");
    mt_end_world(m);
}

static void test_key_region(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t on, off;
    region_map(&m, "e1u1/region", -32, 256);
    compile_mt("region_on", &m, NULL, &on);
    region_map(&m, NULL, 0, 0);
    compile_mt("region_off", &m, NULL, &off);
    need_bsp(&on);
    need_bsp(&off);
    vec3_t in = vec3(120, 120, 32), out = vec3(420, 120, 32);
    assert_int_not_equal(point_contents(&on.bsp, 0, in) & CONTENTS_SOLID, 0);
    assert_int_equal(point_contents(&on.bsp, 0, out) & CONTENTS_SOLID, 0);
    assert_int_not_equal(point_contents(&off.bsp, 0, out) & CONTENTS_SOLID, 0);
    /* The east wall and the outer pillar: 2 brushes left out; the region
     * brush itself is never compiled (no face of it). */
    assert_int_equal(count_lines_with(on.log, "2 world brushes left out", "region"), 1);
    assert_int_equal(on.bsp.numbrushes, off.bsp.numbrushes - 2);
    result_free(&on);
    result_free(&off);
}

static void test_key_antiregion(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t r;
    region_map(&m, "antiregion", 380, 460);
    compile_mt("antiregion", &m, NULL, &r);
    need_bsp(&r);
    /* The antiregion box spans the room's height, so it touches the
     * floor, ceiling and the two side walls too: those go with the pillar. */
    assert_int_equal(point_contents(&r.bsp, 0, vec3(420, 120, 32)) & CONTENTS_SOLID, 0);
    assert_int_not_equal(point_contents(&r.bsp, 0, vec3(120, 120, 32)) & CONTENTS_SOLID, 0);
    assert_int_not_equal(point_contents(&r.bsp, 0, vec3(-8, 256, 128)) & CONTENTS_SOLID, 0);
    assert_int_equal(count_lines_with(r.log, "world brushes left out", "antiregion"), 1);
    result_free(&r);
}

/* ------------------------------------------- keys that qrad reads per model */

static void test_key_bmodel_keys_reach_qrad(void **state)
{
    (void)state;
    mt_t m = {0};
    result_t r;
    mt_room(&m, "\"_sunlight\" \"100\"\n");
    mt_end_world(&m);
    mt_printf(&m, "{\n\"classname\" \"func_wall\"\n\"_phong\" \"1\"\n\"_phong_angle\" \"60\"\n\"_minlight\" \"0.25\"\n"
                  "\"_shadow\" \"1\"\n\"_lmscale\" \"2\"\n\"_world_units_per_luxel\" \"8\"\n\"_light_channel_mask\" \"2\"\n");
    mt_box(&m, 100, 100, 0, 140, 140, 64, "e1u1/wall", "");
    mt_printf(&m, "}\n{\n\"classname\" \"func_door\"\n\"_minlight\" \"0.1\"\n\"_dirt\" \"-1\"\n");
    mt_box(&m, 300, 100, 0, 340, 140, 64, "e1u1/wall", "");
    mt_printf(&m, "}\n{\n\"classname\" \"func_group\"\n\"_minlight\" \"0.5\"\n");
    mt_box(&m, 300, 300, 0, 340, 340, 64, "e1u1/wall", "");
    mt_printf(&m, "}\n");
    compile_mt("bmodel_keys", &m, NULL, &r);
    need_bsp(&r);
    static const char *const want1[][2] = {{"classname", "func_wall"}, {"_phong", "1"}, {"_phong_angle", "60"},
                                           {"_minlight", "0.25"}, {"_shadow", "1"}, {"_lmscale", "2"},
                                           {"_world_units_per_luxel", "8"}, {"_light_channel_mask", "2"}, {"model", "*1"}};
    entity_t e;
    assert_true(lump_entity(&r.bsp, 1, NULL, &e));
    assert_int_equal(e.numpairs, 9);
    for (int i = 0; i < 9; i++) assert_string_equal(entity_get(&e, want1[i][0]), want1[i][1]);
    entity_free(&e);
    assert_true(lump_entity(&r.bsp, 2, NULL, &e));
    assert_string_equal(entity_classname(&e), "func_door");
    assert_string_equal(entity_get(&e, "_minlight"), "0.1");
    assert_string_equal(entity_get(&e, "_dirt"), "-1");
    entity_free(&e);
    assert_true(lump_entity(&r.bsp, -1, "worldspawn", &e));
    assert_string_equal(entity_get(&e, "_sunlight"), "100");
    entity_free(&e);
    /* The func_group's key reaches qrad in the side file bmodel_keys.groupkeys
     * (its brushes joined the world), so no warning; the bsp has no lump of
     * q2map's own. */
    assert_int_equal(count_lines_with(r.log, "(func_group): key \"_minlight\"", "warning:"), 0);
    assert_false(bspx_has_lump(&r.bsp, "Q2MAP_GROUPKEYS"));
    char side[Q2_PATH_MAX];
    snprintf(side, sizeof side, "%s/bmodel_keys.groupkeys", tmpdir);
    assert_true(file_exists(side));
    result_free(&r);
}

/* ---------------------------------------------------- warnings, values */

static void test_key_unread_warning(void **state)
{
    (void)state;
    const char *text = "{\n"                              /* 1 */
                       "\"classname\" \"worldspawn\"\n"   /* 2 */
                       "\"_bogus_key\" \"1\"\n"           /* 3 */
                       "\"_wateralpha\" \"0.5\"\n"        /* 4 */
                       "\"_tb_textures\" \"textures/e1u1\"\n"
                       "\"_bogus_key\" \"2\"\n"           /* 6: same key again */
                       "\"_sunlight\" \"100\"\n";         /* 7 */
    mt_t m = {0};
    mt_printf(&m, "%s", text);
    mt_box(&m, -16, -16, -16, 528, 528, 0, "e1u1/floor", "");
    mt_box(&m, -16, -16, 256, 528, 528, 272, "e1u1/ceil", "");
    mt_box(&m, -16, -16, 0, 0, 528, 256, "e1u1/wall", "");
    mt_box(&m, 512, -16, 0, 528, 528, 256, "e1u1/wall", "");
    mt_box(&m, 0, -16, 0, 512, 0, 256, "e1u1/wall", "");
    mt_box(&m, 0, 512, 0, 512, 528, 256, "e1u1/wall", "");
    mt_printf(&m, "}\n{\n\"classname\" \"light\"\n\"origin\" \"64 64 64\"\n\"_project_fov\" \"4\"\n\"_sunlight\" \"5\"\n}\n");
    mt_printf(&m, "{\n\"classname\" \"info_player_start\"\n\"origin\" \"32 32 40\"\n\"_tb_group\" \"3\"\n}\n");
    result_t r;
    compile_mt("warn", &m, NULL, &r);
    need_bsp(&r);
    assert_int_equal(count_lines_with(r.log, "warn.map:3: entity 0 (worldspawn): key \"_bogus_key\"", "no Quake 2 compiler"), 1);
    assert_int_equal(count_lines_with(r.log, "\"_bogus_key\"", NULL), 1);
    assert_int_equal(count_lines_with(r.log, "warn.map:4: entity 0 (worldspawn): key \"_wateralpha\"", "meaningless"), 1);
    assert_int_equal(count_lines_with(r.log, "_tb_", NULL), 0);
    assert_int_equal(count_lines_with(r.log, "warn.map:60: entity 1 (light): key \"_project_fov\"", "not honoured"), 1);
    assert_int_equal(count_lines_with(r.log, "warn.map:61: entity 1 (light): key \"_sunlight\"", "read only on worldspawn"), 1);
    assert_int_equal(count_lines_with(r.log, "\"_sunlight\"", NULL), 1);
    result_free(&r);
}

static void test_key_bad_values(void **state)
{
    (void)state;
    mt_t m = {0};
    mt_room(&m, "\"_tb_layer_omit_from_export\" \"maybe\"\n");
    mt_end_world(&m);
    mt_printf(&m, "{\n\"classname\" \"func_detail_fence\"\n\"_mirrorinside\" \"yes\"\n\"_noclipfaces\" \"2\"\n");
    mt_box(&m, 192, 64, 0, 256, 128, 64, "e1u1/fence", "");
    mt_printf(&m, "}\n{\n\"classname\" \"func_wall\"\n\"_omitbrushes\" \"1.5\"\n");
    mt_box(&m, 300, 100, 0, 340, 140, 64, "e1u1/wall", "");
    mt_printf(&m, "}\n{\n\"classname\" \"func_group\"\n\"_tb_type\" \"_tb_layer\"\n\"_tb_id\" \"1\"\n"
                  "\"_tb_layer_omit_from_export\" \"1e400\"\n");
    mt_box(&m, 100, 300, 0, 140, 340, 64, "e1u1/wall", "");
    mt_printf(&m, "}\n");
    result_t r;
    compile_mt("badvalues", &m, NULL, &r);
    need_bsp(&r);
    assert_int_equal(count_lines_with(r.log, "badvalues.map:3: entity 0 (worldspawn): key \"_tb_layer_omit_from_export\" \"maybe\"", "using 0"), 1);
    assert_int_equal(count_lines_with(r.log, "badvalues.map:59: entity 2 (func_detail_fence): key \"_mirrorinside\" \"yes\"", "using the default"), 1);
    assert_int_equal(count_lines_with(r.log, "badvalues.map:60: entity 2 (func_detail_fence): key \"_noclipfaces\" \"2\"", "using 0"), 1);
    assert_int_equal(count_lines_with(r.log, "key \"_omitbrushes\" \"1.5\"", "using 0"), 1);
    assert_int_equal(count_lines_with(r.log, "key \"_tb_layer_omit_from_export\" \"1e400\"", "using 0"), 1);
    /* Defaults in effect: the fence is one-sided (ericw-tools' Quake 2
     * default), the func_wall and the layer's brush are compiled. */
    assert_int_equal(faces_at(&r.bsp, vec3(224, 96, 64), vec3(0, 0, 0)), 1);
    assert_int_equal(r.bsp.nummodels, 2);
    assert_int_not_equal(point_contents(&r.bsp, 0, vec3(120, 320, 32)) & CONTENTS_SOLID, 0);
    result_free(&r);
}

/* ------------------------------------------------------------ the table */

/* docs/keys.md is exactly what `qbsp -keys` writes. */
static void test_keytable_docs(void **state)
{
    (void)state;
    char cmd[2 * Q2_PATH_MAX], out[Q2_PATH_MAX], doc[Q2_PATH_MAX];
    snprintf(out, sizeof out, "%s/keys.md", tmpdir);
    snprintf(cmd, sizeof cmd, "'%s/qbsp' -keys > '%s'", Q2MAP_BIN_DIR, out);
    assert_int_equal(system(cmd), 0);
    snprintf(doc, sizeof doc, "%s/../../docs/keys.md", Q2MAP_TEST_DATA);
    char *a = read_text(out), *b = read_text(doc);
    assert_non_null(a);
    if (!b) fail_msg("docs/keys.md is missing: run build/bin/qbsp -keys > docs/keys.md");
    if (strcmp(a, b) != 0) fail_msg("docs/keys.md differs from `qbsp -keys`: regenerate it");
    free(a);
    free(b);
}

/* Concatenated text of every test source. */
static void append_dir(const char *dir, const char *ext, char **all, size_t *n)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < strlen(ext) || strcmp(de->d_name + len - strlen(ext), ext) != 0) continue;
        char p[Q2_PATH_MAX + 256];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        char *t = read_text(p);
        if (!t) continue;
        /* The file's own name counts too (an integration script is one test). */
        size_t tl = strlen(t), nl = len - strlen(ext);
        *all = realloc(*all, *n + nl + tl + 3);
        memcpy(*all + *n, de->d_name, nl);
        (*all)[*n + nl] = '\n';
        memcpy(*all + *n + nl + 1, t, tl);
        (*all)[*n + nl + 1 + tl] = '\n';
        *n += nl + tl + 2;
        (*all)[*n] = 0;
        free(t);
    }
    closedir(d);
}

/* Every honoured row names a test that exists: a test function or a
 * case label in tests/unit or tests/integration. */
static void test_keytable_tests_exist(void **state)
{
    (void)state;
    char dir[Q2_PATH_MAX];
    char *all = NULL;
    size_t n = 0;
    snprintf(dir, sizeof dir, "%s/../unit", Q2MAP_TEST_DATA);
    append_dir(dir, ".c", &all, &n);
    snprintf(dir, sizeof dir, "%s/../integration", Q2MAP_TEST_DATA);
    append_dir(dir, ".sh", &all, &n);
    assert_non_null(all);
    int count, honoured = 0;
    const keyrow_t *rows = keytable_rows(&count);
    for (int i = 0; i < count; i++) {
        const keyrow_t *r = &rows[i];
        if (r->status == KS_HONOURED) {
            honoured++;
            if (!r->test[0] || !strstr(all, r->test))
                fail_msg("key table row %s is honoured but its test \"%s\" is not in tests/", r->name, r->test);
        }
        /* A test name promises a test: only honoured rows carry one. */
        if (r->status != KS_HONOURED && r->test[0]) fail_msg("row %s names a test but is not honoured", r->name);
        for (int j = 0; j < i; j++)
            if (rows[j].kind == r->kind && strcmp(rows[j].name, r->name) == 0) fail_msg("row %s twice", r->name);
    }
    assert_true(honoured > 20);
    free(all);
}

/* Every `_` key of the maps under tests/data is in the table, or qbsp
 * warns about it when compiling that map. */
static void check_map_keys(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".map") != 0) continue;
        char p[Q2_PATH_MAX + 256];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        map_t map;
        q2err_t err;
        if (!map_read_file(p, &map, &err)) continue; /* the broken-input corpora */
        char unknown[64][64];
        int nu = 0;
        for (int e = 0; e < map.numentities; e++)
            for (int k = 0; k < map.entities[e].ent.numpairs; k++) {
                const char *key = map.entities[e].ent.pairs[k].key;
                if (key[0] != '_' || keytable_find(key, KIND_KEY)) continue;
                bool dup = false;
                for (int u = 0; u < nu && !dup; u++) dup = strcmp(unknown[u], key) == 0;
                if (!dup && nu < 64) snprintf(unknown[nu++], sizeof unknown[0], "%s", key);
            }
        map_free(&map);
        if (!nu) continue;
        char *text = read_text(p);
        result_t r;
        char name[Q2_PATH_MAX];
        snprintf(name, sizeof name, "keys_%.*s", (int)(len - 4), de->d_name);
        compile_text(name, text, "-onlyents", &r);
        free(text);
        for (int u = 0; u < nu; u++) {
            char k[96];
            snprintf(k, sizeof k, "key \"%.63s\"", unknown[u]);
            if (count_lines_with(r.log, k, "warning:") < 1) fail_msg("%s: key %s is neither in the table nor warned about", p, unknown[u]);
        }
        result_free(&r);
    }
    closedir(d);
}

static void test_keytable_map_keys(void **state)
{
    (void)state;
    static const char *const dirs[] = {"map", "qbsp", "robust", "qrad", "bad"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char dir[Q2_PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s", Q2MAP_TEST_DATA, dirs[i]);
        DIR *d = opendir(dir);
        if (!d) continue;
        closedir(d);
        check_map_keys(dir);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_tb_layer_omit),  cmocka_unit_test(test_key_tb_group_merge),
        cmocka_unit_test(test_key_tb_default_layer),
        cmocka_unit_test(test_key_mirrorinside),   cmocka_unit_test(test_key_noclipfaces),
        cmocka_unit_test(test_key_omitbrushes),    cmocka_unit_test(test_key_external_map),
        cmocka_unit_test(test_key_region),         cmocka_unit_test(test_key_antiregion),
        cmocka_unit_test(test_key_bmodel_keys_reach_qrad), cmocka_unit_test(test_key_unread_warning),
        cmocka_unit_test(test_key_bad_values),     cmocka_unit_test(test_keytable_docs),
        cmocka_unit_test(test_keytable_tests_exist), cmocka_unit_test(test_keytable_map_keys),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
