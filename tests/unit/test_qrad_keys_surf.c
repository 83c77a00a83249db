/* qrad's surface-light and bounce keys (ericw-tools' Quake 2 light), each
 * on a small map the test writes, compiles with the qbsp program and lights
 * with qrad_run: the luxels where the key should act are compared with the
 * same map lit without it (or with what the key stands for), so each check
 * fails when the feature is off. The map helpers are test_qrad_keys.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qrad.h"
#include "test_util.h"
#include "vfs.h"

#include "test_qrad_maps.h"

/* ------------------------------------------------------------ helpers */

static const vec3_t DOWN = {0, 0, -1};

/* A 64x64 lamp under the ceiling whose bottom face (z 224, facing down)
 * has texture tex with these flags and value; its other sides are walls. */
static void lamp_at(mw_t *w, double x, double y, const char *tex, int flags, int value)
{
    mw_box_tex(w, vec3(x - 32, y - 32, 224), vec3(x + 32, y + 32, 256), "test/wall", 0, 0, 4, tex, flags, value);
}

/* Floor luxel at (x, y) of a room whose worldspawn holds `world` (keys
 * and brushes) with `extra` entities, lit with o (texdb may be NULL). */
static double floor_at(const char *name, const char *world, const char *extra, const qrad_opts_t *o, texdb_t *texdb,
                       double x, double y, int channel)
{
    char *m = room_map(world, extra, NULL, 0, NULL, 0);
    lit_t l;
    compile_light_tex(name, m, o, texdb, &l);
    double v = luxel(&l, 0, vec3(x, y, 0), UP, channel);
    free(m);
    lit_free(&l);
    return v;
}

/* A centred lamp of this flags/value, with worldspawn keys before it. */
static double lamp_floor(const char *name, const char *keys, int flags, int value, double x, double y)
{
    mw_t w = {0};
    mw_printf(&w, "%s", keys);
    lamp_at(&w, 0, 0, "test/light", flags, value);
    qrad_opts_t o = opts0();
    double v = floor_at(name, w.buf, NULL, &o, NULL, x, y, -1);
    free(w.buf);
    return v;
}

static texdb_t *test_texdb(vfs_t **vfs, log_t *log)
{
    *vfs = vfs_create();
    q2err_t err = {0};
    if (!vfs_add_gamedir(*vfs, Q2MAP_TEST_DATA "/textures/baseq2", &err)) fail_msg("%s", err.msg);
    return texdb_create(*vfs, log);
}

/* ------------------------------------------------------------ SURF_LIGHT faces */

/* The texinfo's value is the light: twice the value, twice the light;
 * a SURF_LIGHT face of value 0 gives none. */
static void test_surflight_value(void **state)
{
    (void)state;
    double v1 = lamp_floor("val800", "", SURF_LIGHT, 800, 0, 0);
    double v2 = lamp_floor("val1600", "", SURF_LIGHT, 1600, 0, 0);
    double v0 = lamp_floor("val0", "", SURF_LIGHT, 0, 0, 0);
    if (v1 < 10 || fabs(v2 - 2 * v1) > 2) fail_msg("value 1600: %g, value 800: %g", v2, v1);
    if (v0 != 0) fail_msg("value 0 lights the floor %g", v0);
}

/* -direct scales what SURF_LIGHT faces give off: twice the scale, twice
 * the light on the floor under the lamp. */
static void test_direct_option(void **state)
{
    (void)state;
    mw_t w = {0};
    lamp_at(&w, 0, 0, "test/light", SURF_LIGHT, 800);
    qrad_opts_t o = opts0();
    double base = floor_at("direct04", w.buf, NULL, &o, NULL, 0, 0, -1);
    o.direct = 2 * o.direct;
    double twice = floor_at("direct08", w.buf, NULL, &o, NULL, 0, 0, -1);
    free(w.buf);
    if (base < 10 || fabs(twice - 2 * base) > 2) fail_msg("-direct 0.8: %g, %g at 0.4", twice, base);
}

/* _surflightskyscale scales sky faces that emit, and only them. */
static void test_surflightskyscale(void **state)
{
    (void)state;
    int sky = SURF_SKY | SURF_LIGHT;
    double base = lamp_floor("sky1", "", sky, 800, 0, 0);
    double twice = lamp_floor("sky2", "\"_surflightskyscale\" \"2\"\n", sky, 800, 0, 0);
    double none = lamp_floor("sky0", "\"_surflightskyscale\" \"0\"\n", sky, 800, 0, 0);
    double other = lamp_floor("skyo", "\"_surflightscale\" \"0\"\n", sky, 800, 0, 0);
    double plain = lamp_floor("skyp", "\"_surflightskyscale\" \"0\"\n", SURF_LIGHT, 800, 0, 0);
    if (base < 10 || fabs(twice - 2 * base) > 2) fail_msg("_surflightskyscale 2: %g, %g without", twice, base);
    if (none != 0) fail_msg("_surflightskyscale 0: sky still lights %g", none);
    if (fabs(other - base) > 1) fail_msg("_surflightscale 0 changed the sky's light: %g, %g", other, base);
    if (plain < 10) fail_msg("_surflightskyscale 0 darkened a face that is not sky: %g", plain);
}

/* _surflight_atten 2: the light fades as if twice as far (a quarter). */
static void test_surflight_atten(void **state)
{
    (void)state;
    double v0 = lamp_floor("att1", "", SURF_LIGHT, 1600, 0, 0);
    double v2 = lamp_floor("att2", "\"_surflight_atten\" \"2\"\n", SURF_LIGHT, 1600, 0, 0);
    if (v0 < 20 || fabs(v2 - v0 / 4) > 1.5) fail_msg("_surflight_atten 2: %g, %g without", v2, v0);
}

/* _surflight_rescale 1: light leaving at a grazing angle is half, not
 * nothing: a wall beside the lamp gets about twice as much. */
static void test_surflight_rescale(void **state)
{
    (void)state;
    qrad_opts_t o = opts0();
    lit_t a, b;
    for (int k = 0; k < 2; k++) {
        mw_t w = {0};
        mw_printf(&w, "%s", k ? "\"_surflight_rescale\" \"1\"\n" : "");
        lamp_at(&w, 0, 0, "test/light", SURF_LIGHT, 3000);
        char *m = room_map(w.buf, NULL, NULL, 0, NULL, 0);
        compile_light_tex(k ? "resc1" : "resc0", m, &o, NULL, k ? &b : &a);
        free(m);
        free(w.buf);
    }
    double w0 = luxel(&a, 0, vec3(256, 0, 128), vec3(-1, 0, 0), -1);
    double w1 = luxel(&b, 0, vec3(256, 0, 128), vec3(-1, 0, 0), -1);
    if (w0 < 5 || w1 < 1.6 * w0) fail_msg("_surflight_rescale 1: wall %g, %g without", w1, w0);
    lit_free(&a);
    lit_free(&b);
}

/* _surflight_minlight_scale: an emitting face is lit at least value x
 * scale in its colour (0.5 grey without textures), on the world from
 * worldspawn's key and on a brush entity from its own. */
static void test_surflight_minlight_scale(void **state)
{
    (void)state;
    qrad_opts_t o = opts0();
    lit_t a, b;
    for (int k = 0; k < 2; k++) {
        mw_t w = {0};
        mw_printf(&w, "%s", k ? "\"_surflight_minlight_scale\" \"1\"\n" : "");
        lamp_at(&w, 0, 0, "test/light", SURF_LIGHT, 100);
        mw_t e = {0};
        mw_printf(&e, "{\n\"classname\" \"func_wall\"\n%s", k ? "\"_surflight_minlight_scale\" \"2\"\n" : "");
        lamp_at(&e, 160, 0, "test/light", SURF_LIGHT, 100);
        mw_printf(&e, "}\n");
        char *m = room_map(w.buf, e.buf, NULL, 0, NULL, 0);
        compile_light_tex(k ? "mls1" : "mls0", m, &o, NULL, k ? &b : &a);
        free(m);
        free(w.buf);
        free(e.buf);
    }
    double off = luxel(&a, 0, vec3(0, 0, 224), DOWN, -1), on = luxel(&b, 0, vec3(0, 0, 224), DOWN, -1);
    double boff = luxel(&a, 1, vec3(160, 0, 224), DOWN, -1), bon = luxel(&b, 1, vec3(160, 0, 224), DOWN, -1);
    if (off > 5 || fabs(on - 50) > 1) fail_msg("_surflight_minlight_scale 1: lamp face %g, %g without", on, off);
    if (boff > 5 || fabs(bon - 100) > 1) fail_msg("func_wall _surflight_minlight_scale 2: %g, %g without", bon, boff);
    lit_free(&a);
    lit_free(&b);
}

/* ------------------------------------------------------------ templates */

/* Quake 2 style ("_surflight_radiosity" 1, the default): a "_surface"
 * light makes every face of that texture emit as a SURF_LIGHT face of its
 * value, in its colour, and does not light by itself. */
static void test_surface_template_radiosity(void **state)
{
    (void)state;
    qrad_opts_t o = opts0();
    mw_t w = {0};
    lamp_at(&w, 0, 0, "test/lamp", 0, 0);
    mw_t s = {0};
    lamp_at(&s, 0, 0, "test/lamp", SURF_LIGHT, 800);
    const char *tmpl = "{\n\"classname\" \"light\"\n\"origin\" \"-200 -200 32\"\n\"light\" \"800\"\n"
                       "\"_surface\" \"test/lamp\"\n}\n";
    const char *plain = "{\n\"classname\" \"light\"\n\"origin\" \"-200 -200 32\"\n\"light\" \"800\"\n}\n";
    double t0 = floor_at("tr_t", w.buf, tmpl, &o, NULL, 0, 0, -1);
    double s0 = floor_at("tr_s", s.buf, NULL, &o, NULL, 0, 0, -1);
    double t1 = floor_at("tr_t1", w.buf, tmpl, &o, NULL, -200, -200, -1);
    double s1 = floor_at("tr_s1", s.buf, NULL, &o, NULL, -200, -200, -1);
    double p1 = floor_at("tr_p1", w.buf, plain, &o, NULL, -200, -200, -1);
    if (s0 < 10 || fabs(t0 - s0) > 1) fail_msg("template: floor %g, SURF_LIGHT face of the same value %g", t0, s0);
    if (fabs(t1 - s1) > 1 || p1 < t1 + 50) fail_msg("the template lights by itself: %g (%g as a light)", t1, p1);
    const char *red = "{\n\"classname\" \"light\"\n\"origin\" \"-200 -200 32\"\n\"light\" \"800\"\n"
                      "\"_surface\" \"test/lamp\"\n\"_color\" \"255 0 0\"\n}\n";
    double r = floor_at("tr_r", w.buf, red, &o, NULL, 0, 0, 0), g = floor_at("tr_g", w.buf, red, &o, NULL, 0, 0, 1);
    if (r < 10 || g != 0) fail_msg("red template: red %g green %g", r, g);
    free(w.buf);
    free(s.buf);
}

/* Quake 1 style (worldspawn "_surflight_radiosity" 0): the template light
 * is copied _surface_offset (2) units in front of every piece of the face
 * cut at 128-unit multiples (a 64-unit square centred on 0 is cut in four),
 * shining along the face's normal with _surface_spotlight 1. */
static void test_surface_template_q1(void **state)
{
    (void)state;
    qrad_opts_t o = opts0();
    mw_t w = {0};
    mw_printf(&w, "\"_surflight_radiosity\" \"0\"\n");
    lamp_at(&w, 0, 0, "test/lamp", 0, 0);
    mw_t p = {0};
    lamp_at(&p, 0, 0, "test/lamp", 0, 0);
    double results[2][2];
    static const double offsets[2] = {2, 34};
    for (int k = 0; k < 2; k++) {
        char tmpl[256];
        snprintf(tmpl, sizeof tmpl,
                 "{\n\"classname\" \"light\"\n\"origin\" \"-200 -200 32\"\n\"light\" \"300\"\n"
                 "\"_surface\" \"test/lamp\"\n%s}\n",
                 k ? "\"_surface_offset\" \"34\"\n" : "");
        mw_t pl = {0};
        for (int c = 0; c < 4; c++)
            mw_printf(&pl, "{\n\"classname\" \"light\"\n\"origin\" \"%d %d %g\"\n\"light\" \"300\"\n}\n",
                      c & 1 ? 16 : -16, c & 2 ? 16 : -16, 224 - offsets[k]);
        char name[32];
        snprintf(name, sizeof name, "q1t%d", k);
        results[0][k] = floor_at(name, w.buf, tmpl, &o, NULL, 100, 0, -1);
        snprintf(name, sizeof name, "q1p%d", k);
        results[1][k] = floor_at(name, p.buf, pl.buf, &o, NULL, 100, 0, -1);
        free(pl.buf);
    }
    for (int k = 0; k < 2; k++)
        if (results[1][k] < 20 || fabs(results[0][k] - results[1][k]) > 1)
            fail_msg("Q1 template (offset %g): floor %g, four lights there %g", offsets[k], results[0][k],
                     results[1][k]);
    const char *spot = "{\n\"classname\" \"light\"\n\"origin\" \"-200 -200 32\"\n\"light\" \"300\"\n"
                       "\"_surface\" \"test/lamp\"\n\"_surface_spotlight\" \"1\"\n\"_cone\" \"20\"\n}\n";
    double under = floor_at("q1s0", w.buf, spot, &o, NULL, 0, 0, -1);
    double aside = floor_at("q1s1", w.buf, spot, &o, NULL, 150, 0, -1);
    if (under < 20 || aside > 1) fail_msg("_surface_spotlight 1: under %g, aside %g", under, aside);
    free(w.buf);
    free(p.buf);
}

/* _surflight_group: a template of a group emits only from faces of brush
 * entities of no group or its own. */
static void test_surflight_group(void **state)
{
    (void)state;
    qrad_opts_t o = opts0();
    mw_t e = {0};
    for (int k = 0; k < 2; k++) {
        mw_printf(&e, "{\n\"classname\" \"func_wall\"\n\"_surflight_group\" \"%d\"\n", k + 1);
        lamp_at(&e, k ? 128 : -128, 0, "test/lamp", 0, 0);
        mw_printf(&e, "}\n");
    }
    lit_t a, b;
    for (int g = 0; g < 2; g++) {
        mw_t w = {0};
        mw_printf(&w, "%s{\n\"classname\" \"light\"\n\"origin\" \"0 -200 32\"\n\"light\" \"1600\"\n"
                      "\"_surface\" \"test/lamp\"\n\"_surflight_group\" \"%d\"\n}\n",
                  e.buf, g);
        char *m = room_map(NULL, w.buf, NULL, 0, NULL, 0);
        compile_light_tex(g ? "grp1" : "grp0", m, &o, NULL, g ? &b : &a);
        free(m);
        free(w.buf);
    }
    double a1 = luxel(&a, 0, vec3(-128, 0, 0), UP, -1), a2 = luxel(&a, 0, vec3(128, 0, 0), UP, -1);
    double b1 = luxel(&b, 0, vec3(-128, 0, 0), UP, -1), b2 = luxel(&b, 0, vec3(128, 0, 0), UP, -1);
    if (a1 < 20 || fabs(a1 - a2) > 0.1 * a1) fail_msg("template of no group: floor %g and %g", a1, a2);
    if (b1 < 2 * b2 + 10) fail_msg("template of group 1: floor under group 1 %g, under group 2 %g", b1, b2);
    free(e.buf);
    lit_free(&a);
    lit_free(&b);
}

/* A brush entity's _surflight_color, _surflight_style and
 * _surflight_targetname change what its faces emit from a template. */
static void test_surflight_color_style(void **state)
{
    (void)state;
    qrad_opts_t o = opts0();
    const char *tmpl = "{\n\"classname\" \"light\"\n\"origin\" \"0 -200 32\"\n\"light\" \"800\"\n"
                       "\"_surface\" \"test/lamp\"\n}\n";
    lit_t l;
    mw_t e = {0};
    mw_printf(&e, "%s{\n\"classname\" \"func_wall\"\n\"_surflight_color\" \"0 0 255\"\n", tmpl);
    lamp_at(&e, -128, 0, "test/lamp", 0, 0);
    mw_printf(&e, "}\n{\n\"classname\" \"func_wall\"\n\"_surflight_style\" \"3\"\n");
    lamp_at(&e, 160, 160, "test/lamp", 0, 0);
    mw_printf(&e, "}\n{\n\"classname\" \"func_wall\"\n\"_surflight_targetname\" \"sw\"\n");
    lamp_at(&e, -160, 160, "test/lamp", 0, 0);
    mw_printf(&e, "}\n{\n\"classname\" \"light\"\n\"origin\" \"0 200 32\"\n\"light\" \"10\"\n"
                  "\"targetname\" \"sw\"\n}\n");
    char *m = room_map(NULL, e.buf, NULL, 0, NULL, 0);
    compile_light_tex("colsty", m, &o, NULL, &l);
    double r = luxel(&l, 0, vec3(-128, 0, 0), UP, 0), bl = luxel(&l, 0, vec3(-128, 0, 0), UP, 2);
    if (bl < 20 || r > 0.1 * bl) fail_msg("_surflight_color 0 0 255: red %g blue %g", r, bl);
    int f = find_face(&l.bsp, 0, vec3(160, 160, 0), UP);
    assert_true(f >= 0);
    bool has3 = false;
    for (int k = 0; k < MAXLIGHTMAPS; k++) has3 |= l.bsp.faces[f].styles[k] == 3;
    if (!has3) fail_msg("_surflight_style 3: the floor under it has no style 3");
    /* _surflight_targetname: the style qbsp gave the light named "sw". */
    entity_list_t ents;
    q2err_t err;
    assert_true(entities_parse(l.bsp.entities, "lump", &ents, &err));
    int sw = -1;
    for (int i = 0; i < ents.count; i++)
        if (entity_get(&ents.ents[i], "targetname") && !strcmp(entity_get(&ents.ents[i], "targetname"), "sw"))
            sw = atoi(entity_get(&ents.ents[i], "style") ? entity_get(&ents.ents[i], "style") : "0");
    entities_free(&ents);
    if (sw < 32) fail_msg("qbsp gave the switchable light style %d", sw);
    f = find_face(&l.bsp, 0, vec3(-160, 160, 0), UP);
    assert_true(f >= 0);
    bool hassw = false;
    for (int k = 0; k < MAXLIGHTMAPS; k++) hassw |= l.bsp.faces[f].styles[k] == sw;
    if (!hassw) fail_msg("_surflight_targetname sw: the floor under it has no style %d", sw);
    free(m);
    free(e.buf);
    lit_free(&l);
}

/* ------------------------------------------------------------ bounce, preset */

/* _bouncecolorscale 0 bounces grey off a blue floor; the default bounces
 * the texture's colour. */
static void test_bouncecolorscale(void **state)
{
    (void)state;
    FILE *lf = tmpfile();
    log_t log;
    log_init(&log, LOG_QUIET, lf, lf);
    vfs_t *vfs;
    texdb_t *db = test_texdb(&vfs, &log);
    double ch[2][3];
    for (int k = 0; k < 2; k++) {
        const char *light = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"400\"\n"
                            "\"mangle\" \"0 -90 0\"\n\"_cone\" \"30\"\n}\n";
        char *m = room_map(k ? "\"_bouncecolorscale\" \"0\"\n" : NULL, light, "lq/floor_blue_a", 0, NULL, 0);
        qrad_opts_t o = opts0();
        o.bounce = 2;
        lit_t l;
        compile_light_tex(k ? "bcs0" : "bcs1", m, &o, db, &l);
        for (int c = 0; c < 3; c++) ch[k][c] = luxel(&l, 0, vec3(0, 0, 256), DOWN, c);
        free(m);
        lit_free(&l);
    }
    if (ch[0][2] < ch[0][0] + 3) fail_msg("blue floor bounces red %g blue %g", ch[0][0], ch[0][2]);
    if (ch[1][2] < 3 || fabs(ch[1][2] - ch[1][0]) > 1)
        fail_msg("_bouncecolorscale 0: ceiling red %g blue %g", ch[1][0], ch[1][2]);
    texdb_free(db);
    vfs_free(vfs);
    fclose(lf);
}

/* "_bounce" "-1" on a brush entity: it reflects no light into the
 * bounces (a lit func_wall slab under a spotlight leaves the ceiling dark;
 * the slab casts shadows, so the world's floor under it is not lit). */
static void test_bmodel_nobounce(void **state)
{
    (void)state;
    double ceil[2];
    for (int k = 0; k < 2; k++) {
        mw_t e = {0};
        mw_printf(&e, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"400\"\n"
                      "\"mangle\" \"0 -90 0\"\n\"_cone\" \"30\"\n}\n{\n\"classname\" \"func_wall\"\n\"_shadow\" \"1\"\n%s",
                  k ? "\"_bounce\" \"-1\"\n" : "");
        mw_box_tex(&e, vec3(-200, -200, 0), vec3(200, 200, 8), "test/slab", 0, 0, -1, NULL, 0, 0);
        mw_printf(&e, "}\n");
        char *m = room_map(NULL, e.buf, NULL, 0, NULL, 0);
        qrad_opts_t o = opts0();
        o.bounce = 2;
        lit_t l;
        compile_light(k ? "nob1" : "nob0", m, &o, &l);
        ceil[k] = luxel(&l, 0, vec3(0, 0, 256), DOWN, -1);
        free(m);
        free(e.buf);
        lit_free(&l);
    }
    if (ceil[0] < 6 || ceil[1] > 0.25 * ceil[0]) fail_msg("_bounce -1 on the slab: ceiling %g, %g without", ceil[1], ceil[0]);
}

/* Mean channel of the luxel nearest p in the face's lightmap of this
 * style (model 0); -1 when the face has no such style. */
static double luxel_style(const lit_t *l, vec3_t p, vec3_t n, int style)
{
    const bsp_t *bsp = &l->bsp;
    int f = find_face(bsp, 0, p, n);
    assert_true(f >= 0);
    int slot = -1;
    for (int k = 0; k < MAXLIGHTMAPS && bsp->faces[f].styles[k] != 255; k++)
        if (bsp->faces[f].styles[k] == style) slot = k;
    if (slot < 0) return -1;
    const uint8_t *px = luxel_rgb(bsp, f, p, slot);
    return (px[0] + px[1] + px[2]) / 3.0;
}

/* _bouncestyled 1: a styled light's light bounces into its style (the
 * ceiling above a styled spotlight's pool gets a lightmap of that style);
 * without it only style 0 bounces. */
static void test_bouncestyled(void **state)
{
    (void)state;
    double ceil[2];
    for (int k = 0; k < 2; k++) {
        const char *light = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"400\"\n"
                            "\"mangle\" \"0 -90 0\"\n\"_cone\" \"30\"\n\"style\" \"5\"\n}\n";
        char *m = room_map(k ? "\"_bouncestyled\" \"1\"\n" : NULL, light, NULL, 0, NULL, 0);
        qrad_opts_t o = opts0();
        o.bounce = 2;
        lit_t l;
        compile_light(k ? "bsty1" : "bsty0", m, &o, &l);
        ceil[k] = luxel_style(&l, vec3(0, 0, 256), DOWN, 5);
        if (luxel_style(&l, vec3(0, 0, 0), UP, 5) < 100) fail_msg("the styled spotlight does not light the floor");
        if (luxel(&l, 0, vec3(0, 0, 256), DOWN, -1) != 0) fail_msg("style-0 light on the ceiling");
        free(m);
        lit_free(&l);
    }
    if (ceil[0] > 0) fail_msg("without _bouncestyled the ceiling has style-5 light %g", ceil[0]);
    if (ceil[1] < 6) fail_msg("_bouncestyled 1: ceiling style 5 %g", ceil[1]);
}

/* _tex_saturation_boost 1: the blue floor bounces a bluer light (more
 * blue to red on the ceiling above it). */
static void test_tex_saturation_boost(void **state)
{
    (void)state;
    FILE *lf = tmpfile();
    log_t log;
    log_init(&log, LOG_QUIET, lf, lf);
    vfs_t *vfs;
    texdb_t *db = test_texdb(&vfs, &log);
    double ratio[2];
    for (int k = 0; k < 2; k++) {
        const char *light = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"400\"\n"
                            "\"mangle\" \"0 -90 0\"\n\"_cone\" \"30\"\n}\n";
        char *m = room_map(k ? "\"_tex_saturation_boost\" \"1\"\n" : NULL, light, "lq/floor_blue_a", 0, NULL, 0);
        qrad_opts_t o = opts0();
        o.bounce = 2;
        lit_t l;
        compile_light_tex(k ? "tsb1" : "tsb0", m, &o, db, &l);
        double r = luxel(&l, 0, vec3(0, 0, 256), DOWN, 0), b = luxel(&l, 0, vec3(0, 0, 256), DOWN, 2);
        if (b < 3) fail_msg("ceiling blue %g", b);
        ratio[k] = b / (r + 1);
        free(m);
        lit_free(&l);
    }
    if (ratio[1] < 1.2 * ratio[0]) fail_msg("_tex_saturation_boost 1: blue/red %g, %g without", ratio[1], ratio[0]);
    texdb_free(db);
    vfs_free(vfs);
    fclose(lf);
}

/* -preset ericw's surface lights: value x the texture's average colour,
 * none from a texture that cannot be loaded (qrad's default: 0.5 grey). */
static void test_preset_ericw_surflights(void **state)
{
    (void)state;
    FILE *lf = tmpfile();
    log_t log;
    log_init(&log, LOG_QUIET, lf, lf);
    vfs_t *vfs;
    texdb_t *db = test_texdb(&vfs, &log);
    qrad_opts_t d = opts0(), e = opts0();
    e.direct = 0.65;
    e.surflight_texcolor = true;
    e.surflight_minlight_scale = 1;
    double v[2][2], lampface[2][2];
    for (int t = 0; t < 2; t++) {
        mw_t w = {0};
        lamp_at(&w, 0, 0, t ? "lq/floor_blue_a" : "test/missing", SURF_LIGHT, 800);
        char *m = room_map(w.buf, NULL, NULL, 0, NULL, 0);
        for (int k = 0; k < 2; k++) {
            lit_t l;
            char name[16];
            snprintf(name, sizeof name, "pe_%d%d", t, k);
            compile_light_tex(name, m, k ? &e : &d, db, &l);
            v[t][k] = luxel(&l, 0, vec3(0, 0, 0), UP, 2);
            lampface[t][k] = luxel(&l, 0, vec3(0, 0, 224), DOWN, 2);
            lit_free(&l);
        }
        free(m);
        free(w.buf);
    }
    if (v[0][0] < 10) fail_msg("default: a missing texture's surface light gives %g", v[0][0]);
    if (v[0][1] != 0) fail_msg("ericw: a missing texture's surface light gives %g", v[0][1]);
    if (v[1][1] < 10) fail_msg("ericw: a found texture's surface light gives %g", v[1][1]);
    /* ericw's _surflight_minlight_scale 1: the lamp is lit by its own light
     * (value 800 x its colour: full blue), not a texture it cannot load. */
    if (lampface[1][0] > 5 || lampface[1][1] < 250 || lampface[0][1] != 0)
        fail_msg("lamp face blue: default %g, ericw %g, ericw without the texture %g", lampface[1][0], lampface[1][1],
                 lampface[0][1]);
    texdb_free(db);
    vfs_free(vfs);
    fclose(lf);
}

/* ------------------------------------------------------------ robustness */

/* Words for numbers, negative scales, out-of-range integers: a warning
 * naming entity, key and line, then the default. */
static void test_surf_bad_values(void **state)
{
    (void)state;
    mw_t w = {0};
    mw_printf(&w, "\"_surflightscale\" \"bright\"\n\"_surflightskyscale\" \"-2\"\n\"_surflight_atten\" \"-1\"\n"
                  "\"_surflight_rescale\" \"maybe\"\n\"_surflight_minlight_scale\" \"x\"\n"
                  "\"_surflight_radiosity\" \"2\"\n");
    lamp_at(&w, 0, 0, "test/light", SURF_LIGHT, 800);
    mw_t e = {0};
    mw_printf(&e, "{\n\"classname\" \"func_wall\"\n\"_surflight_group\" \"1.5\"\n\"_surflight_color\" \"blue\"\n"
                  "\"_surflight_style\" \"300\"\n\"_surflight_atten\" \"nan\"\n");
    lamp_at(&e, 160, 160, "test/lamp", 0, 0);
    mw_printf(&e, "}\n{\n\"classname\" \"light\"\n\"origin\" \"-200 -200 32\"\n\"light\" \"300\"\n"
                  "\"_surface\" \"test/lamp\"\n\"_surface_radiosity\" \"q2\"\n}\n"
                  "{\n\"classname\" \"light\"\n\"origin\" \"200 -200 32\"\n\"light\" \"100\"\n"
                  "\"_surface\" \"test/lamp\"\n\"_surface_radiosity\" \"0\"\n\"_surface_offset\" \"far\"\n"
                  "\"_surface_spotlight\" \"yes\"\n}\n");
    char *m = room_map(w.buf, e.buf, NULL, 0, NULL, 0);
    lit_t l;
    qrad_opts_t o = opts0();
    compile_light("surfbad", m, &o, &l);
    static const char *const keys[] = {"_surflightscale", "_surflightskyscale", "_surflight_atten",
                                       "_surflight_rescale", "_surflight_minlight_scale", "_surflight_radiosity",
                                       "_surflight_group", "_surflight_color", "_surflight_style",
                                       "_surface_radiosity", "_surface_offset", "_surface_spotlight"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        char want[96];
        snprintf(want, sizeof want, "\"%s\" \"", keys[k]);
        const char *p = strstr(l.log, want);
        if (!p) fail_msg("no warning for %s in:\n%s", keys[k], l.log);
        const char *bol = p;
        while (bol > l.log && bol[-1] != '\n') bol--;
        if (!strstr(bol, "entity ") || !strstr(bol, ", line ")) fail_msg("warning for %s lacks entity/line", keys[k]);
    }
    /* The defaults were used: the lamp lights the floor as without the keys. */
    double v = luxel(&l, 0, vec3(0, 0, 0), UP, -1);
    double ref = lamp_floor("surfbad_ref", "", SURF_LIGHT, 800, 0, 0);
    if (fabs(v - ref) > 40 || v < 10) fail_msg("bad keys: floor %g, %g without them", v, ref);
    free(m);
    free(w.buf);
    free(e.buf);
    lit_free(&l);
}

/* Every key of this file in one map: -threads 1 and 2 write the same
 * lighting, byte for byte. */
static void test_surf_threads(void **state)
{
    (void)state;
    mw_t w = {0};
    mw_printf(&w, "\"_surflight_rescale\" \"1\"\n\"_surflight_atten\" \"1.5\"\n\"_surflight_minlight_scale\" \"0.5\"\n"
                  "\"_surflightskyscale\" \"0.5\"\n\"_bouncestyled\" \"1\"\n");
    lamp_at(&w, 0, 0, "test/light", SURF_LIGHT, 1200);
    lamp_at(&w, -160, 100, "test/sky", SURF_LIGHT | SURF_SKY, 600);
    mw_t e = {0};
    mw_printf(&e, "{\n\"classname\" \"func_wall\"\n\"_surflight_group\" \"2\"\n\"_surflight_color\" \"255 128 0\"\n");
    lamp_at(&e, 160, 160, "test/lamp", 0, 0);
    mw_printf(&e, "}\n{\n\"classname\" \"light\"\n\"origin\" \"-200 -200 32\"\n\"light\" \"500\"\n"
                  "\"_surface\" \"test/lamp\"\n}\n{\n\"classname\" \"light\"\n\"origin\" \"200 -200 32\"\n"
                  "\"light\" \"200\"\n\"_surface\" \"test/wall\"\n\"_surface_radiosity\" \"0\"\n\"_bouncescale\" \"0.5\"\n}\n"
                  "{\n\"classname\" \"light\"\n\"origin\" \"100 100 64\"\n\"light\" \"300\"\n\"style\" \"7\"\n}\n");
    char *m = room_map(w.buf, e.buf, NULL, 0, NULL, 0);
    lit_t a, b;
    qrad_opts_t o1 = opts0(), o2 = opts0();
    o1.threads = 1, o2.threads = 2;
    o1.bounce = o2.bounce = 2;
    compile_light("thr1", m, &o1, &a);
    compile_light("thr2", m, &o2, &b);
    assert_int_equal(a.bsp.lightdatasize, b.bsp.lightdatasize);
    assert_memory_equal(a.bsp.lightdata, b.bsp.lightdata, a.bsp.lightdatasize);
    free(m);
    free(w.buf);
    free(e.buf);
    lit_free(&a);
    lit_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_surflight_value),
        cmocka_unit_test(test_direct_option),
        cmocka_unit_test(test_surflightskyscale),
        cmocka_unit_test(test_surflight_atten),
        cmocka_unit_test(test_surflight_rescale),
        cmocka_unit_test(test_surflight_minlight_scale),
        cmocka_unit_test(test_surface_template_radiosity),
        cmocka_unit_test(test_surface_template_q1),
        cmocka_unit_test(test_surflight_group),
        cmocka_unit_test(test_surflight_color_style),
        cmocka_unit_test(test_bouncecolorscale),
        cmocka_unit_test(test_bmodel_nobounce),
        cmocka_unit_test(test_bouncestyled),
        cmocka_unit_test(test_tex_saturation_boost),
        cmocka_unit_test(test_preset_ericw_surflights),
        cmocka_unit_test(test_surf_bad_values),
        cmocka_unit_test(test_surf_threads),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
