/* qrad's entity keys (ericw-tools, arghrad), each on a small map the test
 * writes, compiles with the qbsp program and lights with qrad_run: the
 * luxels where the key should act are compared with the same map lit
 * without the key, so each check fails when the feature is off. */
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

#include "test_qrad_maps.h"

/* ------------------------------------------------------------ minlight */

static void test_minlight(void **state)
{
    (void)state;
    qrad_opts_t o = opts0();
    lit_t a, b, c, d;
    /* A dark room: no light entity at all. */
    char *m0 = room_map(NULL, NULL, NULL, 0, NULL, 0);
    compile_light("min_off", m0, &o, &a);
    int lo, hi;
    luxel_range(&a, 0, 0, &lo, &hi);
    assert_int_equal(hi, 0);
    /* ericw-tools' Quake 2 scale: 0.2 is 0.2 * 128 = 25.6. */
    char *m1 = room_map("\"_minlight\" \"0.2\"\n", NULL, NULL, 0, NULL, 0);
    compile_light("min_on", m1, &o, &b);
    luxel_range(&b, 0, 0, &lo, &hi);
    if (lo < 25 || hi > 26) fail_msg("_minlight 0.2: luxels %d..%d, expected 25..26", lo, hi);
    /* -minlight overrides worldspawn; _minlight_color tints it. */
    qrad_opts_t o2 = opts0();
    o2.minlight = 0.5;
    char *m2 = room_map("\"_minlight\" \"0.2\"\n\"_minlight_color\" \"255 0 0\"\n", NULL, NULL, 0, NULL, 0);
    compile_light("min_opt", m2, &o2, &c);
    luxel_range(&c, 0, 0, &lo, &hi);
    if (lo < 63 || hi > 65) fail_msg("-minlight 0.5: red %d..%d, expected 64", lo, hi);
    luxel_range(&c, 0, 1, &lo, &hi);
    assert_int_equal(hi, 0);
    /* A bmodel takes worldspawn's unless it has its own, and
     * _minlight_exclude leaves its texture out. */
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"func_wall\"\n\"_minlight\" \"0.5\"\n");
    mw_box(&w, vec3(-96, -32, 0), vec3(-32, 32, 64), "test/pillar");
    mw_printf(&w, "}\n{\n\"classname\" \"func_wall\"\n\"_minlight_exclude\" \"test/dark\"\n");
    mw_box(&w, vec3(32, -32, 0), vec3(96, 32, 64), "test/dark");
    mw_printf(&w, "}\n");
    char *m3 = room_map("\"_minlight\" \"0.2\"\n", w.buf, NULL, 0, NULL, 0);
    compile_light("min_models", m3, &o, &d);
    luxel_range(&d, 1, 0, &lo, &hi);
    if (lo < 63 || hi > 65) fail_msg("func_wall _minlight 0.5: %d..%d, expected 64", lo, hi);
    luxel_range(&d, 2, 0, &lo, &hi);
    if (hi != 0) fail_msg("_minlight_exclude: excluded faces reach %d", hi);
    luxel_range(&d, 0, 0, &lo, &hi);
    if (lo < 25 || hi > 26) fail_msg("world with bmodels: %d..%d, expected 25..26", lo, hi);
    free(w.buf);
    free(m0);
    free(m1);
    free(m2);
    free(m3);
    lit_free(&a);
    lit_free(&b);
    lit_free(&c);
    lit_free(&d);
}

/* arghrad's worldspawn _ambient: added to every luxel, one level or r g b. */
static void test_arghrad_ambient(void **state)
{
    (void)state;
    qrad_opts_t o = opts0();
    lit_t a, b;
    char *m1 = room_map("\"_ambient\" \"10\"\n", NULL, NULL, 0, NULL, 0);
    compile_light("amb1", m1, &o, &a);
    int lo, hi;
    luxel_range(&a, 0, 1, &lo, &hi);
    if (lo != 10 || hi != 10) fail_msg("_ambient 10: %d..%d", lo, hi);
    char *m2 = room_map("\"_ambient\" \"20 5 0\"\n", NULL, NULL, 0, NULL, 0);
    compile_light("amb2", m2, &o, &b);
    luxel_range(&b, 0, 0, &lo, &hi);
    assert_true(lo == 20 && hi == 20);
    luxel_range(&b, 0, 2, &lo, &hi);
    assert_true(hi == 0);
    free(m1);
    free(m2);
    lit_free(&a);
    lit_free(&b);
}

/* ------------------------------------------------------------ shadows */

/* A light at (0 0 200); a 64-unit pillar brush entity at x 64..128 stands
 * between it and the floor point (160, 0): its mirror (-160, 0) is open. */
static void shadow_pair(const char *name, const char *cls, const char *keys, bool origin_brush, double *shadowed,
                        double *mirror)
{
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 200\"\n\"light\" \"400\"\n}\n");
    mw_printf(&w, "{\n\"classname\" \"%s\"\n%s", cls, keys);
    mw_box(&w, vec3(64, -32, 40), vec3(128, 32, 104), "test/pillar");
    if (origin_brush) mw_box_contents(&w, vec3(88, -8, 64), vec3(104, 8, 80), "test/origin", CONTENTS_ORIGIN);
    mw_printf(&w, "}\n");
    char *m = room_map(NULL, w.buf, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    lit_t l;
    compile_light(name, m, &o, &l);
    *shadowed = luxel(&l, 0, vec3(160, 0, 0), UP, -1);
    *mirror = luxel(&l, 0, vec3(-160, 0, 0), UP, -1);
    free(m);
    free(w.buf);
    lit_free(&l);
}

static void test_bmodel_shadow(void **state)
{
    (void)state;
    double s, m;
    shadow_pair("shadow_off", "func_wall", "", false, &s, &m);
    if (m < 20 || s < 0.75 * m) fail_msg("func_wall without _shadow: %g under it, %g at the mirror", s, m);
    shadow_pair("shadow_on", "func_wall", "\"_shadow\" \"1\"\n", false, &s, &m);
    if (m < 20 || s > 0.25 * m) fail_msg("func_wall _shadow 1: %g under it, %g at the mirror", s, m);
    /* A rotating bmodel is stored around its origin brush and traced at
     * the entity's origin. */
    shadow_pair("shadow_rot", "func_rotating", "\"_shadow\" \"1\"\n", true, &s, &m);
    if (m < 20 || s > 0.25 * m) fail_msg("func_rotating _shadow 1: %g under it, %g at the mirror", s, m);
    /* _shadowself alone does not shadow the world. */
    shadow_pair("shadow_self", "func_wall", "\"_shadowself\" \"1\"\n", false, &s, &m);
    if (s < 0.75 * m) fail_msg("func_wall _shadowself 1 shadows the world: %g vs %g", s, m);
    /* A light whose shadow channel the bmodel is not on goes through it. */
    shadow_pair("shadow_chan", "func_wall", "\"_shadow\" \"1\"\n\"_object_channel_mask\" \"3\"\n", false, &s, &m);
    if (s > 0.25 * m) fail_msg("channel 3 caster, channel 1 light: %g vs %g", s, m);
}

/* A caster with these keys between the light and a bmodel plate lying on
 * the floor: the plate's top under the shadow against its mirror. */
static void plate_shadow(const char *name, const char *keys, double *shadowed, double *mirror)
{
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 200\"\n\"light\" \"400\"\n}\n");
    mw_printf(&w, "{\n\"classname\" \"func_wall\"\n%s", keys);
    mw_box(&w, vec3(64, -32, 40), vec3(128, 32, 104), "test/pillar");
    mw_printf(&w, "}\n{\n\"classname\" \"func_wall\"\n");
    mw_box(&w, vec3(-224, -64, 0), vec3(224, 64, 8), "test/plate");
    mw_printf(&w, "}\n");
    char *m = room_map(NULL, w.buf, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    lit_t l;
    compile_light(name, m, &o, &l);
    *shadowed = luxel(&l, 2, vec3(160, 0, 8), UP, -1);
    *mirror = luxel(&l, 2, vec3(-160, 0, 8), UP, -1);
    free(m);
    free(w.buf);
    lit_free(&l);
}

static void test_shadow_worldonly(void **state)
{
    (void)state;
    double s, m;
    plate_shadow("plate_all", "\"_shadow\" \"1\"\n", &s, &m);
    if (m < 20 || s > 0.25 * m) fail_msg("_shadow 1 on a bmodel plate: %g under it, %g at the mirror", s, m);
    plate_shadow("plate_world", "\"_shadowworldonly\" \"1\"\n", &s, &m);
    if (s < 0.75 * m) fail_msg("_shadowworldonly shadows a bmodel: %g under it, %g at the mirror", s, m);
    /* ... and still the world. */
    shadow_pair("worldonly", "func_wall", "\"_shadowworldonly\" \"1\"\n", false, &s, &m);
    if (s > 0.25 * m) fail_msg("_shadowworldonly: world floor %g under it, %g at the mirror", s, m);
}

/* ------------------------------------------------------------ channels */

static void test_light_channels(void **state)
{
    (void)state;
    /* Two pillars; the only light is on channel 2. The one on channel 2
     * receives it, the one on the default channel 1 and the world do not. */
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"400\"\n"
                  "\"_light_channel_mask\" \"2\"\n}\n");
    mw_printf(&w, "{\n\"classname\" \"func_wall\"\n\"_object_channel_mask\" \"2\"\n");
    mw_box(&w, vec3(-160, -32, 0), vec3(-96, 32, 64), "test/pillar");
    mw_printf(&w, "}\n{\n\"classname\" \"func_wall\"\n");
    mw_box(&w, vec3(96, -32, 0), vec3(160, 32, 64), "test/pillar");
    mw_printf(&w, "}\n");
    char *m = room_map(NULL, w.buf, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    lit_t l;
    compile_light("channels", m, &o, &l);
    double on = luxel(&l, 1, vec3(-128, 0, 64), UP, -1), off = luxel(&l, 2, vec3(128, 0, 64), UP, -1);
    double floor = luxel(&l, 0, vec3(0, 0, 0), UP, -1);
    if (on < 50) fail_msg("channel-2 model gets %g from the channel-2 light", on);
    if (off != 0) fail_msg("channel-1 model gets %g from a channel-2 light", off);
    if (floor != 0) fail_msg("world (channel 1) gets %g from a channel-2 light", floor);
    free(m);
    free(w.buf);
    lit_free(&l);
}

/* ------------------------------------------------------------ dirt */

static void dirt_run(const char *name, const char *world, const char *lightkeys, int optdirt, double *near,
                     double *far)
{
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 224\"\n\"light\" \"400\"\n%s}\n", lightkeys);
    char *m;
    /* A box on the floor, in the world. */
    mw_t wb = {0};
    mw_printf(&wb, "%s", world);
    wb.len = strlen(wb.buf ? wb.buf : "");
    mw_t brush = {0};
    mw_box(&brush, vec3(-32, -32, 0), vec3(32, 32, 64), "test/box");
    mw_printf(&wb, "%s", brush.buf);
    m = room_map(wb.buf, w.buf, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    o.dirt = optdirt;
    lit_t l;
    compile_light(name, m, &o, &l);
    *near = luxel(&l, 0, vec3(40, 0, 0), UP, -1);
    *far = luxel(&l, 0, vec3(0, 180, 0), UP, -1);
    free(m);
    free(w.buf);
    free(wb.buf);
    free(brush.buf);
    lit_free(&l);
}

static void test_dirt(void **state)
{
    (void)state;
    double n0, f0, n1, f1, n2, f2, n3, f3;
    dirt_run("dirt_off", "", "", 0, &n0, &f0);
    dirt_run("dirt_on", "\"_dirt\" \"1\"\n", "", 0, &n1, &f1);
    if (n0 < 40 || n1 > 0.85 * n0) fail_msg("_dirt 1: floor by the box %g, without %g", n1, n0);
    /* The open floor far from everything keeps most of its light. */
    if (f1 < 0.9 * f0) fail_msg("_dirt 1 darkens the open floor: %g vs %g", f1, f0);
    dirt_run("dirt_opt", "", "", 1, &n2, &f2);
    if (n2 > 0.85 * n0) fail_msg("-dirt: %g vs %g", n2, n0);
    /* A light with _dirt -1 lights the dirt away. */
    dirt_run("dirt_light_off", "\"_dirt\" \"1\"\n", "\"_dirt\" \"-1\"\n", 0, &n3, &f3);
    if (fabs(n3 - n0) > 1) fail_msg("light _dirt -1: %g, expected %g", n3, n0);
    (void)f2;
    (void)f3;
}

/* _minlight_dirt: the floor by a box gets less of the minlight. */
static void test_minlight_dirt(void **state)
{
    (void)state;
    mw_t w = {0};
    mw_printf(&w, "\"_minlight\" \"0.5\"\n\"_minlight_dirt\" \"1\"\n\"_dirtdepth\" \"64\"\n");
    mw_box(&w, vec3(-32, -32, 0), vec3(32, 32, 64), "test/box");
    char *m = room_map(w.buf, NULL, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    lit_t l;
    compile_light("mindirt", m, &o, &l);
    double near = luxel(&l, 0, vec3(40, 0, 0), UP, -1), open = luxel(&l, 0, vec3(0, 180, 0), UP, -1);
    if (fabs(open - 64) > 1 || near > 0.9 * open) fail_msg("_minlight_dirt: %g by the box, %g in the open", near, open);
    free(m);
    free(w.buf);
    lit_free(&l);
}

/* ------------------------------------------------------------ phong */

/* The largest jump between the luxels either side of an edge of an
 * octagonal pillar, lit from one side. */
static double edge_jump(const lit_t *l, int m, double cx)
{
    double worst = 0;
    for (int k = 0; k < 8; k++) {
        double a0 = (k + 0.5) * M_PI / 4, a1 = (k + 1.5) * M_PI / 4, ae = (k + 1) * M_PI / 4;
        double R = 96 / cos(M_PI / 8); /* corner radius */
        vec3_t corner = vec3(cx + R * cos(ae), R * sin(ae), 32);
        vec3_t n0 = vec3(cos(a0), sin(a0), 0), n1 = vec3(cos(a1), sin(a1), 0);
        /* 4 units either side of the corner, on each face. */
        vec3_t t0 = vec_normalize(vec_cross(UP, n0), NULL), t1 = vec_normalize(vec_cross(UP, n1), NULL);
        vec3_t p0 = vec_ma(corner, -4, t0), p1 = vec_ma(corner, 4, t1);
        if (find_face(&l->bsp, m, p0, n0) < 0 || find_face(&l->bsp, m, p1, n1) < 0) continue;
        double v0 = luxel(l, m, p0, n0, -1), v1 = luxel(l, m, p1, n1, -1);
        if (v0 < 5 || v1 < 5) continue; /* a face turned away from the light */
        worst = fmax(worst, fabs(v0 - v1));
    }
    return worst;
}

static void test_phong(void **state)
{
    (void)state;
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 -236 64\"\n\"light\" \"400\"\n}\n");
    mw_printf(&w, "{\n\"classname\" \"func_wall\"\n\"_phong\" \"1\"\n");
    mw_prism(&w, -128, 0, 96, 0, 64, 8, "test/pillar");
    mw_printf(&w, "}\n{\n\"classname\" \"func_wall\"\n");
    mw_prism(&w, 128, 0, 96, 0, 64, 8, "test/pillar");
    mw_printf(&w, "}\n");
    char *m = room_map(NULL, w.buf, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    lit_t l;
    compile_light("phong", m, &o, &l);
    double smooth = edge_jump(&l, 1, -128), flat = edge_jump(&l, 2, 128);
    if (flat < 10) fail_msg("flat pillar: edges jump only %g", flat);
    if (smooth > 0.5 * flat) fail_msg("_phong 1 pillar: edges jump %g, flat one %g", smooth, flat);
    lit_free(&l);
    /* -nosmooth overrides the key. */
    o.smooth = 0;
    o.smooth_set = true;
    compile_light("phong_off", m, &o, &l);
    double forced = edge_jump(&l, 1, -128);
    if (forced < 0.8 * flat) fail_msg("-nosmooth: _phong pillar still smooth (%g vs %g)", forced, flat);
    lit_free(&l);
    free(m);
    free(w.buf);
}

/* ------------------------------------------------------------ sky */

static void test_sunlight3(void **state)
{
    (void)state;
    /* The room's floor is sky; a slab floats in the middle. Its underside
     * sees only the lower sky. */
    mw_t w = {0};
    mw_box(&w, vec3(-64, -64, 96), vec3(64, 64, 112), "test/slab");
    lit_t a, b;
    qrad_opts_t o = opts0();
    char *m0 = room_map(w.buf, NULL, "test/sky", SURF_SKY, NULL, 0);
    compile_light("sun3_off", m0, &o, &a);
    mw_t w2 = {0};
    mw_printf(&w2, "\"_sunlight3\" \"100\"\n%s", w.buf);
    char *m1 = room_map(w2.buf, NULL, "test/sky", SURF_SKY, NULL, 0);
    compile_light("sun3_on", m1, &o, &b);
    vec3_t down = vec3(0, 0, -1);
    double off = luxel(&a, 0, vec3(0, 0, 96), down, -1), on = luxel(&b, 0, vec3(0, 0, 96), down, -1);
    double top = luxel(&b, 0, vec3(0, 0, 112), UP, -1);
    if (off != 0) fail_msg("slab underside without _sunlight3: %g", off);
    if (on < 30) fail_msg("_sunlight3 100: slab underside %g", on);
    if (top > 0.2 * on) fail_msg("_sunlight3 lights the slab's top (%g vs %g under)", top, on);
    free(m0);
    free(m1);
    free(w.buf);
    free(w2.buf);
    lit_free(&a);
    lit_free(&b);
}

static void test_several_suns(void **state)
{
    (void)state;
    /* A sky ceiling; suns straight down. Worldspawn's sun, then one more
     * from a "_sun" "1" light: the floor gets both. */
    lit_t a, b;
    qrad_opts_t o = opts0();
    char *m0 = room_map("\"_sunlight\" \"60\"\n\"_sun_mangle\" \"0 -90 0\"\n", NULL, NULL, 0, "test/sky", SURF_SKY);
    compile_light("suns1", m0, &o, &a);
    char *m1 = room_map("\"_sunlight\" \"60\"\n\"_sun_mangle\" \"0 -90 0\"\n",
                        "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"_sun\" \"1\"\n\"light\" \"40\"\n"
                        "\"mangle\" \"0 -90 0\"\n}\n",
                        NULL, 0, "test/sky", SURF_SKY);
    compile_light("suns2", m1, &o, &b);
    double one = luxel(&a, 0, vec3(0, 0, 0), UP, -1), two = luxel(&b, 0, vec3(0, 0, 0), UP, -1);
    if (fabs(one - 60) > 1.5 || fabs(two - 100) > 1.5) fail_msg("suns: %g with one (60), %g with two (100)", one, two);
    free(m0);
    free(m1);
    lit_free(&a);
    lit_free(&b);
    /* arghrad: _sun_angle aims the first sun, _sun2_light/_sun2_angle add
     * a second; a sun aimed at the wall (pitch 0) leaves the floor dark. */
    char *m2 = room_map("\"_sunlight\" \"60\"\n\"_sun_angle\" \"0 -90\"\n\"_sun2_light\" \"30\"\n"
                        "\"_sun2_angle\" \"45 -90\"\n\"_sun3_light\" \"50\"\n\"_sun3_angle\" \"0 0\"\n",
                        NULL, NULL, 0, "test/sky", SURF_SKY);
    compile_light("suns3", m2, &o, &a);
    double three = luxel(&a, 0, vec3(0, 0, 0), UP, -1);
    if (fabs(three - 90) > 1.5) fail_msg("_sun_angle + _sun2 + a level _sun3: floor %g, expected 90", three);
    free(m2);
    lit_free(&a);
}

static void test_sun_diffuse(void **state)
{
    (void)state;
    /* Sun straight down through a sky ceiling; a roof (world brush) hides
     * the floor's x > 0 half. arghrad's _sun_diffuse glows into the shadow
     * near its edge and fades within about 64 units. */
    mw_t w = {0};
    mw_box(&w, vec3(0, -256, 200), vec3(256, 256, 216), "test/roof");
    mw_t k1 = {0}, k2 = {0};
    mw_printf(&k1, "\"_sunlight\" \"100\"\n\"_sun_mangle\" \"0 -90 0\"\n%s", w.buf);
    mw_printf(&k2, "\"_sunlight\" \"100\"\n\"_sun_mangle\" \"0 -90 0\"\n\"_sun_diffuse\" \"80\"\n"
                   "\"_sun_diffwait\" \"1\"\n%s",
              w.buf);
    char *m0 = room_map(k1.buf, NULL, NULL, 0, "test/sky", SURF_SKY);
    char *m1 = room_map(k2.buf, NULL, NULL, 0, "test/sky", SURF_SKY);
    lit_t a, b;
    qrad_opts_t o = opts0();
    compile_light("diff_off", m0, &o, &a);
    compile_light("diff_on", m1, &o, &b);
    double edge0 = luxel(&a, 0, vec3(24, 0, 0), UP, -1), edge1 = luxel(&b, 0, vec3(24, 0, 0), UP, -1);
    double deep1 = luxel(&b, 0, vec3(200, 0, 0), UP, -1);
    if (edge0 > 2) fail_msg("shadow edge without _sun_diffuse: %g", edge0);
    if (edge1 < 5) fail_msg("_sun_diffuse 80: shadow edge %g", edge1);
    if (deep1 > 2) fail_msg("_sun_diffuse reaches deep into the shadow: %g", deep1);
    free(m0);
    free(m1);
    free(w.buf);
    free(k1.buf);
    free(k2.buf);
    lit_free(&a);
    lit_free(&b);
}

/* ------------------------------------------------------------ falloff */

static void test_falloff_delay(void **state)
{
    (void)state;
    lit_t l;
    qrad_opts_t o = opts0();
    /* delay 2 (1/x^2) and 5 (1/(1+x/128)^2) at 128 units straight below,
     * in two rooms' worth of floor: lights far apart, walls between. */
    char *m2 = room_map(NULL, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 129\"\n\"light\" \"200\"\n\"delay\" \"5\"\n}\n",
                        NULL, 0, NULL, 0);
    compile_light("delay5", m2, &o, &l);
    double v5 = luxel(&l, 0, vec3(0, 0, 0), UP, -1);
    /* 200 * (128 / (128 + 128))^2 = 50 */
    if (fabs(v5 - 50) > 2) fail_msg("delay 5 at 128 units: %g, expected 50", v5);
    lit_free(&l);
    /* ericw's _falloff: a linear light that reaches 0 at that distance. */
    char *mf = room_map(NULL, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 65\"\n\"light\" \"200\"\n\"_falloff\" \"128\"\n}\n",
                        NULL, 0, NULL, 0);
    compile_light("falloff", mf, &o, &l);
    double vf = luxel(&l, 0, vec3(0, 0, 0), UP, -1), vfar = luxel(&l, 0, vec3(160, 0, 0), UP, -1);
    if (fabs(vf - 100) > 2) fail_msg("_falloff 128 at 64 units: %g, expected 100", vf);
    if (vfar != 0) fail_msg("_falloff 128: %g beyond 128 units", vfar);
    lit_free(&l);
    /* ericw's _anglescale: (1 - a) + a cos instead of the cosine. At
     * (64, 0) under a light 64 up, d = 90.5 and cos = 0.707. */
    char *ma = room_map("\"_anglescale\" \"0.5\"\n",
                        "{\n\"classname\" \"light\"\n\"origin\" \"0 0 65\"\n\"light\" \"200\"\n}\n", NULL, 0, NULL, 0);
    compile_light("anglescale", ma, &o, &l);
    double va = luxel(&l, 0, vec3(64, 0, 0), UP, -1);
    double want = (200 - sqrt(64.0 * 64 + 64 * 64)) * (0.5 + 0.5 * 64 / sqrt(64.0 * 64 + 64 * 64));
    if (fabs(va - want) > 2.5) fail_msg("worldspawn _anglescale 0.5: %g, expected %.1f", va, want);
    lit_free(&l);
    free(ma);
    /* delay 4, local minlight: a floor at its level where it is seen,
     * never more. With another light it lifts only the darker luxels. */
    char *m4 = room_map(NULL,
                        "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"40\"\n\"delay\" \"4\"\n}\n"
                        "{\n\"classname\" \"light\"\n\"origin\" \"-200 0 64\"\n\"light\" \"200\"\n}\n",
                        NULL, 0, NULL, 0);
    compile_light("delay4", m4, &o, &l);
    double far4 = luxel(&l, 0, vec3(200, 0, 0), UP, -1), near4 = luxel(&l, 0, vec3(-200, 0, 0), UP, -1);
    if (fabs(far4 - 40) > 1) fail_msg("delay 4: dark floor %g, expected 40", far4);
    if (near4 < 100) fail_msg("delay 4 lowered a bright luxel to %g", near4);
    lit_free(&l);
    free(m2);
    free(mf);
    free(m4);
}

/* ------------------------------------------------------------ soft shadows */

/* Luxels of the floor row y = 0 between shadow and light (10%..90% of the
 * lit level) beside a pillar. */
static int penumbra_luxels(const lit_t *l)
{
    double lit = luxel(l, 0, vec3(-160, 0, 0), UP, -1);
    int n = 0;
    for (int x = 120; x <= 250; x += 16) {
        double v = luxel(l, 0, vec3(x, 0, 0), UP, -1), ref = luxel(l, 0, vec3(-x, 0, 0), UP, -1);
        (void)lit;
        if (v > 0.1 * ref && v < 0.9 * ref) n++;
    }
    return n;
}

static void test_deviance(void **state)
{
    (void)state;
    mw_t wb = {0};
    mw_box(&wb, vec3(64, -256, 40), vec3(80, 256, 120), "test/pillar");
    lit_t a, b;
    qrad_opts_t o = opts0();
    char *m0 = room_map(wb.buf, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 160\"\n\"light\" \"600\"\n}\n", NULL, 0,
                        NULL, 0);
    char *m1 = room_map(wb.buf,
                        "{\n\"classname\" \"light\"\n\"origin\" \"0 0 160\"\n\"light\" \"600\"\n"
                        "\"_deviance\" \"40\"\n\"_samples\" \"24\"\n}\n",
                        NULL, 0, NULL, 0);
    compile_light("dev_off", m0, &o, &a);
    compile_light("dev_on", m1, &o, &b);
    int hard = penumbra_luxels(&a), soft = penumbra_luxels(&b);
    if (soft < hard + 2) fail_msg("_deviance 40: %d penumbra luxels, %d without", soft, hard);
    /* Brightness is kept: the open floor below agrees within 5%. */
    double v0 = luxel(&a, 0, vec3(-100, 0, 0), UP, -1), v1 = luxel(&b, 0, vec3(-100, 0, 0), UP, -1);
    if (fabs(v1 - v0) > 0.05 * v0 + 1) fail_msg("_deviance changed brightness: %g vs %g", v1, v0);
    free(m0);
    free(m1);
    free(wb.buf);
    lit_free(&a);
    lit_free(&b);
}

/* ------------------------------------------------------------ surface lights */

static void test_surflightscale(void **state)
{
    (void)state;
    mw_t w = {0};
    mw_box_tex(&w, vec3(-32, -32, 224), vec3(32, 32, 256), "test/wall", 0, 0, 4, "test/light", SURF_LIGHT, 800);
    mw_t w2 = {0};
    mw_printf(&w2, "\"_surflightscale\" \"2\"\n%s", w.buf);
    char *m0 = room_map(w.buf, NULL, NULL, 0, NULL, 0), *m1 = room_map(w2.buf, NULL, NULL, 0, NULL, 0);
    lit_t a, b;
    qrad_opts_t o = opts0();
    compile_light("surf1", m0, &o, &a);
    compile_light("surf2", m1, &o, &b);
    double v0 = luxel(&a, 0, vec3(0, 0, 0), UP, -1), v1 = luxel(&b, 0, vec3(0, 0, 0), UP, -1);
    if (v0 < 10 || fabs(v1 - 2 * v0) > 2) fail_msg("_surflightscale 2: %g, %g without", v1, v0);
    free(m0);
    free(m1);
    free(w.buf);
    free(w2.buf);
    lit_free(&a);
    lit_free(&b);
}

/* ------------------------------------------------------------ bounce */

/* A spotlight straight down lights only the floor; the ceiling above gets
 * nothing but bounced light. */
static double ceiling_bounce(const char *name, const char *world, const char *lightkeys)
{
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"400\"\n"
                  "\"mangle\" \"0 -90 0\"\n\"_cone\" \"30\"\n%s}\n",
              lightkeys);
    char *m = room_map(world, w.buf, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    o.bounce = 2;
    lit_t l;
    compile_light(name, m, &o, &l);
    double v = luxel(&l, 0, vec3(0, 0, 256), vec3(0, 0, -1), -1);
    free(m);
    free(w.buf);
    lit_free(&l);
    return v;
}

static void test_bounce_keys(void **state)
{
    (void)state;
    double base = ceiling_bounce("b_base", NULL, "");
    if (base < 6) fail_msg("ceiling gets %g from bounces", base);
    double off = ceiling_bounce("b_world0", "\"_bounce\" \"0\"\n", "");
    if (off != 0) fail_msg("worldspawn _bounce 0: ceiling %g", off);
    double none = ceiling_bounce("b_light0", NULL, "\"_bouncescale\" \"0\"\n");
    if (none > 1) fail_msg("light _bouncescale 0: ceiling %g", none);
    double half = ceiling_bounce("b_half", NULL, "\"_bouncescale\" \"0.5\"\n");
    if (fabs(half - base / 2) > 1.5) fail_msg("light _bouncescale 0.5: ceiling %g, all of it %g", half, base);
    double ws = ceiling_bounce("b_wscale", "\"_bouncescale\" \"0.5\"\n", "");
    if (ws > 0.75 * base) fail_msg("worldspawn _bouncescale 0.5: ceiling %g, at 1 %g", ws, base);
}

/* ------------------------------------------------------------ bad values */

static void test_bad_values(void **state)
{
    (void)state;
    /* Words for numbers, negative scales, angles out of range, masks that
     * are not integers: each is a warning naming the entity, the key and
     * its line, and the default is used. */
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"300\"\n"
                  "\"_light_channel_mask\" \"1.5\"\n\"_deviance\" \"-4\"\n\"_samples\" \"many\"\n"
                  "\"_bouncescale\" \"-1\"\n}\n");
    mw_printf(&w, "{\n\"classname\" \"func_wall\"\n\"_phong_angle\" \"400\"\n\"_minlight\" \"dark\"\n"
                  "\"_object_channel_mask\" \"x\"\n\"_minlight_color\" \"red\"\n");
    mw_box(&w, vec3(96, -32, 0), vec3(160, 32, 64), "test/pillar");
    mw_printf(&w, "}\n");
    char *m = room_map("\"_dirtscale\" \"-2\"\n\"_dirtangle\" \"200\"\n\"_sunlight3\" \"lots\"\n"
                       "\"_sun_angle\" \"45 -120\"\n\"_ambient\" \"-5\"\n\"_dirt\" \"1\"\n",
                       w.buf, NULL, 0, NULL, 0);
    lit_t l;
    qrad_opts_t o = opts0();
    compile_light("bad", m, &o, &l);
    static const char *const keys[] = {"_light_channel_mask", "_deviance", "_samples", "_bouncescale", "_phong_angle",
                                       "_minlight", "_object_channel_mask", "_minlight_color", "_dirtscale",
                                       "_dirtangle", "_sunlight3", "_sun_angle", "_ambient"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        char want[96];
        snprintf(want, sizeof want, "\"%s\" \"", keys[k]);
        const char *p = strstr(l.log, want);
        if (!p) fail_msg("no warning for %s in:\n%s", keys[k], l.log);
        /* The warning names the entity and a line. */
        const char *bol = p;
        while (bol > l.log && bol[-1] != '\n') bol--;
        if (!strstr(bol, "entity ") || !strstr(bol, ", line ")) fail_msg("warning for %s lacks entity/line", keys[k]);
    }
    /* The light kept its defaults: the floor under it is lit as usual. */
    double v = luxel(&l, 0, vec3(0, 0, 0), UP, -1);
    if (v < 100) fail_msg("light with bad keys lights the floor %g", v);
    free(m);
    free(w.buf);
    lit_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minlight),       cmocka_unit_test(test_arghrad_ambient),
        cmocka_unit_test(test_bmodel_shadow),  cmocka_unit_test(test_light_channels),
        cmocka_unit_test(test_dirt),           cmocka_unit_test(test_phong),
        cmocka_unit_test(test_sunlight3),      cmocka_unit_test(test_several_suns),
        cmocka_unit_test(test_sun_diffuse),    cmocka_unit_test(test_falloff_delay),
        cmocka_unit_test(test_deviance),       cmocka_unit_test(test_surflightscale),
        cmocka_unit_test(test_shadow_worldonly), cmocka_unit_test(test_minlight_dirt),
        cmocka_unit_test(test_bounce_keys),    cmocka_unit_test(test_bad_values),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
