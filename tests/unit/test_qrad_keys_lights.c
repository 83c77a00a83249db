/* qrad's light, sun, dome and dirt keys (ericw-tools, q2tools-220,
 * arghrad) and the options -ambient, -maxlight, -bounce and -soft, each on
 * a small map the test writes, compiles with the qbsp program and lights:
 * the luxels where the key acts are compared with the map lit without it
 * (or with the formula's value), so each check fails with the feature off.
 * An alias is shown to light exactly as its main key does (the same
 * lighting lump and face styles). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspx.h"
#include "qrad.h"
#include "test_qrad_util.h"
#include "test_util.h"

#include "test_qrad_maps.h"

static const vec3_t DOWN = {0, 0, -1};

/* The whole lighting result: the lump and every face's styles. */
static bool same_lighting(const lit_t *a, const lit_t *b)
{
    if (a->bsp.lightdatasize != b->bsp.lightdatasize || a->bsp.numfaces != b->bsp.numfaces) return false;
    if (memcmp(a->bsp.lightdata, b->bsp.lightdata, (size_t)a->bsp.lightdatasize)) return false;
    for (int f = 0; f < a->bsp.numfaces; f++)
        if (memcmp(a->bsp.faces[f].styles, b->bsp.faces[f].styles, MAXLIGHTMAPS) ||
            a->bsp.faces[f].lightofs != b->bsp.faces[f].lightofs)
            return false;
    return true;
}

/* Lights the room with worldspawn keys `world` and entities `extra` (and
 * the given floor and ceiling), returns the luxel at p facing n. */
static double room_luxel(const char *name, const char *world, const char *extra, const char *ceil_tex, int ceil_flags,
                         vec3_t p, vec3_t n, int channel, lit_t *keep)
{
    char *m = room_map(world, extra, NULL, 0, ceil_tex, ceil_flags);
    qrad_opts_t o = opts0();
    lit_t l;
    compile_light(name, m, &o, &l);
    double v = luxel(&l, 0, p, n, channel);
    free(m);
    if (keep) *keep = l;
    else lit_free(&l);
    return v;
}

/* Asserts that two maps (a main key and its alias) light the same, and
 * returns the floor centre's luxel. */
static double alias_pair(const char *name, const char *world_a, const char *extra_a, const char *world_b,
                         const char *extra_b, const char *ceil_tex, int ceil_flags)
{
    char na[128], nb[128];
    snprintf(na, sizeof na, "%s_a", name);
    snprintf(nb, sizeof nb, "%s_b", name);
    lit_t a, b;
    double v = room_luxel(na, world_a, extra_a, ceil_tex, ceil_flags, vec3(0, 0, 0), UP, -1, &a);
    room_luxel(nb, world_b, extra_b, ceil_tex, ceil_flags, vec3(0, 0, 0), UP, -1, &b);
    if (!same_lighting(&a, &b)) fail_msg("%s: the alias does not light as the main key", name);
    lit_free(&a);
    lit_free(&b);
    return v;
}

#define LIGHT65 "{\n\"classname\" \"light\"\n\"origin\" \"0 0 65\"\n"

/* ------------------------------------------------------------ dirt */

/* A 64-unit box on the floor at the centre, a light high above; the floor
 * 8 units from the box and 48 from it. */
static void dirt_box(const char *name, const char *world, const char *lightkeys, double *near, double *mid)
{
    mw_t w = {0}, e = {0};
    mw_printf(&w, "%s", world);
    mw_box(&w, vec3(-32, -32, 0), vec3(32, 32, 64), "test/box");
    mw_printf(&e, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 224\"\n\"light\" \"400\"\n%s}\n", lightkeys);
    char *m = room_map(w.buf, e.buf, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    lit_t l;
    compile_light(name, m, &o, &l);
    *near = luxel(&l, 0, vec3(40, 0, 0), UP, -1);
    *mid = luxel(&l, 0, vec3(88, 0, 0), UP, -1);
    free(m);
    free(w.buf);
    free(e.buf);
    lit_free(&l);
}

static void test_dirt_world_keys(void **state)
{
    (void)state;
    double n0, m0, n1, m1, n, m;
    dirt_box("dw_off", "", "", &n0, &m0);
    dirt_box("dw_on", "\"_dirt\" \"1\"\n", "", &n1, &m1);
    if (n0 < 40 || n1 > 0.85 * n0) fail_msg("_dirt 1: %g by the box, %g without", n1, n0);
    /* _dirtscale 0.5: fainter, still some. */
    dirt_box("dw_scale", "\"_dirt\" \"1\"\n\"_dirtscale\" \"0.5\"\n", "", &n, &m);
    if (n < n1 + 3 || n > n0 - 2) fail_msg("_dirtscale 0.5: %g (1: %g, none: %g)", n, n1, n0);
    /* _dirtgain 0.5: darker, reaching further (the average occlusion is
     * below 1, so a smaller power is larger). */
    dirt_box("dw_gain", "\"_dirt\" \"1\"\n\"_dirtgain\" \"0.5\"\n", "", &n, &m);
    if (n > n1 - 3 || m > m1 - 1) fail_msg("_dirtgain 0.5: %g and %g (gain 1: %g and %g)", n, m, n1, m1);
    /* _dirtangle 20: a narrow cone upwards misses the box beside. */
    dirt_box("dw_angle", "\"_dirt\" \"1\"\n\"_dirtangle\" \"20\"\n", "", &n, &m);
    if (n < n1 + 3) fail_msg("_dirtangle 20: %g by the box, 88 degrees: %g", n, n1);
    /* _dirtdepth 24: the box 48 units away is out of reach, and nearer it
     * darkens less. */
    dirt_box("dw_depth", "\"_dirt\" \"1\"\n\"_dirtdepth\" \"24\"\n", "", &n, &m);
    if (fabs(m - m0) > 1 || m1 > m0 - 2 || n < n1 + 3)
        fail_msg("_dirtdepth 24: %g and %g (128: %g and %g, none %g and %g)", n, m, n1, m1, n0, m0);
    /* _dirtmode 1: jittered rays, another pattern, the same darkening. */
    lit_t a, b;
    mw_t w = {0};
    mw_box(&w, vec3(-32, -32, 0), vec3(32, 32, 64), "test/box");
    mw_t w0 = {0}, w1 = {0};
    mw_printf(&w0, "\"_dirt\" \"1\"\n%s", w.buf);
    mw_printf(&w1, "\"_dirt\" \"1\"\n\"_dirtmode\" \"1\"\n%s", w.buf);
    const char *light = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 224\"\n\"light\" \"400\"\n}\n";
    room_luxel("dw_mode0", w0.buf, light, NULL, 0, vec3(40, 0, 0), UP, -1, &a);
    double nm = room_luxel("dw_mode1", w1.buf, light, NULL, 0, vec3(40, 0, 0), UP, -1, &b);
    if (same_lighting(&a, &b)) fail_msg("_dirtmode 1 lights as _dirtmode 0");
    if (nm > 0.85 * n0) fail_msg("_dirtmode 1: %g by the box, %g without dirt", nm, n0);
    lit_free(&a);
    lit_free(&b);
    free(w.buf);
    free(w0.buf);
    free(w1.buf);
}

static void test_dirt_light_keys(void **state)
{
    (void)state;
    double n0, m0, n1, m1, n, m;
    dirt_box("dl_off", "", "", &n0, &m0);
    /* A light's own _dirt 1, worldspawn without dirt. */
    dirt_box("dl_on", "", "\"_dirt\" \"1\"\n", &n1, &m1);
    if (n1 > 0.85 * n0) fail_msg("light _dirt 1: %g by the box, %g without", n1, n0);
    /* Its own _dirtscale: 0 lights the dirt away, 0.5 halfway. */
    dirt_box("dl_scale0", "", "\"_dirt\" \"1\"\n\"_dirtscale\" \"0\"\n", &n, &m);
    if (fabs(n - n0) > 1) fail_msg("light _dirtscale 0: %g, %g without dirt", n, n0);
    dirt_box("dl_scale", "\"_dirt\" \"1\"\n", "\"_dirtscale\" \"0.5\"\n", &n, &m);
    if (n < n1 + 3 || n > n0 - 2) fail_msg("light _dirtscale 0.5: %g (1: %g, none: %g)", n, n1, n0);
    /* Its own _dirtgain, over worldspawn's. */
    dirt_box("dl_gain", "\"_dirt\" \"1\"\n\"_dirtgain\" \"2\"\n", "\"_dirtgain\" \"0.5\"\n", &n, &m);
    if (n > n1 - 3) fail_msg("light _dirtgain 0.5 over worldspawn's 2: %g, gain 1: %g", n, n1);
}

/* Sun straight down through a sky ceiling, a box on the floor. */
static double sun_box(const char *name, const char *keys, vec3_t p)
{
    mw_t w = {0};
    mw_printf(&w, "%s", keys);
    mw_box(&w, vec3(-32, -32, 0), vec3(32, 32, 64), "test/box");
    double v = room_luxel(name, w.buf, NULL, "test/sky", SURF_SKY, p, UP, -1, NULL);
    free(w.buf);
    return v;
}

static void test_sun_dirt(void **state)
{
    (void)state;
    const char *sun = "\"_sunlight\" \"100\"\n\"_sun_mangle\" \"0 -90 0\"\n";
    char k[512];
    double off = sun_box("sd_off", sun, vec3(40, 0, 0));
    snprintf(k, sizeof k, "%s\"_sunlight_dirt\" \"1\"\n", sun);
    double on = sun_box("sd_on", k, vec3(40, 0, 0));
    if (off < 90 || on > 0.85 * off) fail_msg("_sunlight_dirt 1: %g by the box, %g without", on, off);
    snprintf(k, sizeof k, "%s\"_dirt\" \"1\"\n\"_sunlight_dirt\" \"-1\"\n", sun);
    double clean = sun_box("sd_clean", k, vec3(40, 0, 0));
    if (fabs(clean - off) > 1) fail_msg("_dirt 1, _sunlight_dirt -1: sun %g, %g without dirt", clean, off);
    /* The domes: _sunlight2_dirt. */
    const char *dome = "\"_sunlight2\" \"100\"\n";
    double d0 = sun_box("sd2_off", dome, vec3(40, 0, 0));
    snprintf(k, sizeof k, "%s\"_sunlight2_dirt\" \"1\"\n", dome);
    double d1 = sun_box("sd2_on", k, vec3(40, 0, 0));
    if (d0 < 20 || d1 > 0.85 * d0) fail_msg("_sunlight2_dirt 1: dome %g by the box, %g without", d1, d0);
    snprintf(k, sizeof k, "%s\"_dirt\" \"1\"\n\"_sunlight2_dirt\" \"-1\"\n", dome);
    double d2 = sun_box("sd2_clean", k, vec3(40, 0, 0));
    if (fabs(d2 - d0) > 1) fail_msg("_dirt 1, _sunlight2_dirt -1: dome %g, %g without dirt", d2, d0);
}

/* ------------------------------------------------------------ light entities */

static void test_softangle(void **state)
{
    (void)state;
    /* A spot straight down, _cone 30 (half angle); _softangle 30 is the
     * full angle of the inner cone (15 degrees each side). At 22.5 degrees
     * off the axis the light is (cos 22.5 - cos 30) / (cos 15 - cos 30)
     * of the hard spot's. */
    const char *hard = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 129\"\n\"light\" \"300\"\n\"mangle\" \"0 -90 0\"\n"
                       "\"_cone\" \"30\"\n}\n";
    const char *soft = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 129\"\n\"light\" \"300\"\n\"mangle\" \"0 -90 0\"\n"
                       "\"_cone\" \"30\"\n\"_softangle\" \"30\"\n}\n";
    lit_t a, b;
    room_luxel("soft_off", NULL, hard, NULL, 0, vec3(0, 0, 0), UP, -1, &a);
    room_luxel("soft_on", NULL, soft, NULL, 0, vec3(0, 0, 0), UP, -1, &b);
    double c0 = luxel(&a, 0, vec3(0, 0, 0), UP, -1), c1 = luxel(&b, 0, vec3(0, 0, 0), UP, -1);
    if (c0 < 100 || fabs(c1 - c0) > 1) fail_msg("_softangle: centre %g, hard spot %g", c1, c0);
    /* The luxel at x = 48: its angle off the axis, from the sample 1 above. */
    double ang = atan2(48, 128), c = cos(ang);
    double want = (c - cos(30 * M_PI / 180)) / (cos(15 * M_PI / 180) - cos(30 * M_PI / 180));
    double e0 = luxel(&a, 0, vec3(48, 0, 0), UP, -1), e1 = luxel(&b, 0, vec3(48, 0, 0), UP, -1);
    if (e0 < 50 || fabs(e1 - want * e0) > 2) fail_msg("_softangle 30 at %.1f degrees: %g, hard %g (want %.1f)",
                                                    ang * 180 / M_PI, e1, e0, want * e0);
    lit_free(&a);
    lit_free(&b);
}

static void test_nostaticlight(void **state)
{
    (void)state;
    double on = room_luxel("nostatic_off", NULL, LIGHT65 "\"light\" \"200\"\n}\n", NULL, 0, vec3(0, 0, 0), UP, -1, NULL);
    double off = room_luxel("nostatic_on", NULL, LIGHT65 "\"light\" \"200\"\n\"_nostaticlight\" \"1\"\n}\n", NULL, 0,
                            vec3(0, 0, 0), UP, -1, NULL);
    if (on < 100 || off != 0) fail_msg("_nostaticlight 1: floor %g, %g without", off, on);
    /* A sun light with it gives no sun. */
    const char *sunlight = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"_sun\" \"1\"\n\"light\" \"60\"\n"
                           "\"mangle\" \"0 -90 0\"\n\"_nostaticlight\" \"1\"\n}\n";
    double sun = room_luxel("nostatic_sun", NULL, sunlight, "test/sky", SURF_SKY, vec3(0, 0, 0), UP, -1, NULL);
    if (sun != 0) fail_msg("_nostaticlight 1 on a _sun light: floor %g", sun);
}

static void test_world_light_scales(void **state)
{
    (void)state;
    /* Linear light 200 (100) at 64 units: 136 (36). */
    const char *l200 = LIGHT65 "\"light\" \"200\"\n}\n", *l100 = LIGHT65 "\"light\" \"100\"\n}\n";
    double base = room_luxel("ws_base", NULL, l200, NULL, 0, vec3(0, 0, 0), UP, -1, NULL);
    if (fabs(base - 136) > 1.5) fail_msg("light 200 at 64 units: %g", base);
    /* _dist 2: the fade distance halves, 200 - 2 * 64. */
    double dist = room_luxel("ws_dist", "\"_dist\" \"2\"\n", l200, NULL, 0, vec3(0, 0, 0), UP, -1, NULL);
    if (fabs(dist - 72) > 1.5) fail_msg("_dist 2: %g, expected 72", dist);
    /* _range 1 doubles the brightness, not the fade distance: 2 * 36, and
     * still nothing beyond 100 units. */
    lit_t l;
    double range = room_luxel("ws_range", "\"_range\" \"1\"\n", l100, NULL, 0, vec3(0, 0, 0), UP, -1, &l);
    double beyond = luxel(&l, 0, vec3(96, 0, 0), UP, -1);
    lit_free(&l);
    if (fabs(range - 72) > 1.5 || beyond != 0) fail_msg("_range 1: %g (expected 72), %g at 115 units", range, beyond);
    /* _gamma 2: 255 sqrt(36 / 255). */
    double gamma = room_luxel("ws_gamma", "\"_gamma\" \"2\"\n", l100, NULL, 0, vec3(0, 0, 0), UP, -1, NULL);
    double want = 255 * sqrt(36 / 255.0);
    if (fabs(gamma - want) > 1.5) fail_msg("_gamma 2: %g, expected %.1f", gamma, want);
}

static void test_maxlight(void **state)
{
    (void)state;
    /* Light 300 at 64 units: 236 on the floor. Worldspawn _maxlight 0.5
     * (Quake 2 scale, 1 = 128) clamps it to 64; a func_wall's own 0.25 to 32
     * while the world keeps its light. */
    const char *l300 = LIGHT65 "\"light\" \"300\"\n}\n";
    lit_t l;
    room_luxel("maxl_ws", "\"_maxlight\" \"0.5\"\n", l300, NULL, 0, vec3(0, 0, 0), UP, -1, &l);
    int lo, hi;
    luxel_range(&l, 0, 0, &lo, &hi);
    lit_free(&l);
    if (hi != 64) fail_msg("worldspawn _maxlight 0.5: brightest %d, expected 64", hi);
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 129\"\n\"light\" \"300\"\n}\n");
    mw_printf(&w, "{\n\"classname\" \"func_wall\"\n\"_maxlight\" \"0.25\"\n");
    mw_box(&w, vec3(-96, -32, 0), vec3(-32, 32, 64), "test/pillar");
    mw_printf(&w, "}\n");
    double floor = room_luxel("maxl_model", NULL, w.buf, NULL, 0, vec3(0, 0, 0), UP, -1, &l);
    luxel_range(&l, 1, 0, &lo, &hi);
    lit_free(&l);
    free(w.buf);
    if (hi != 32 || floor < 100) fail_msg("func_wall _maxlight 0.25: brightest %d (expected 32), floor %g", hi, floor);
}

static void test_spotlightautofalloff(void **state)
{
    (void)state;
    /* A spot aimed at an info_null on the floor 129 units below: with
     * _spotlightautofalloff the linear light reaches 0 there. */
    const char *spot = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 129\"\n\"light\" \"300\"\n\"target\" \"t1\"\n"
                       "\"_cone\" \"40\"\n}\n{\n\"classname\" \"info_null\"\n\"origin\" \"0 0 0\"\n\"targetname\" \"t1\"\n}\n";
    double plain = room_luxel("autofall_off", NULL, spot, NULL, 0, vec3(0, 0, 0), UP, -1, NULL);
    double aut = room_luxel("autofall_on", "\"_spotlightautofalloff\" \"1\"\n", spot, NULL, 0, vec3(0, 0, 0), UP, -1, NULL);
    if (plain < 150 || aut > 5) fail_msg("_spotlightautofalloff 1: floor %g, %g without", aut, plain);
}

static void test_suntexture(void **state)
{
    (void)state;
    const char *fmt = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"_sun\" \"1\"\n\"light\" \"60\"\n"
                      "\"mangle\" \"0 -90 0\"\n\"_suntexture\" \"%s\"\n}\n";
    char a[512], b[512];
    snprintf(a, sizeof a, fmt, "test/sky");
    snprintf(b, sizeof b, fmt, "test/othersky");
    double lit = room_luxel("suntex_match", NULL, a, "test/sky", SURF_SKY, vec3(0, 0, 0), UP, -1, NULL);
    double dark = room_luxel("suntex_other", NULL, b, "test/sky", SURF_SKY, vec3(0, 0, 0), UP, -1, NULL);
    if (fabs(lit - 60) > 1.5 || dark != 0) fail_msg("_suntexture: %g through its sky, %g through another", lit, dark);
}

static void test_arghrad_light_keys(void **state)
{
    (void)state;
    /* _fade is wait, _distance is ericw's _falloff distance, _angfade and
     * _angwait are twice the _anglescale (ericw's -arghradcompat). */
    double v = alias_pair("fade", NULL, LIGHT65 "\"light\" \"200\"\n\"wait\" \"2\"\n}\n", NULL,
                          LIGHT65 "\"light\" \"200\"\n\"_fade\" \"2\"\n}\n", NULL, 0);
    if (fabs(v - 72) > 1.5) fail_msg("_fade 2: %g, expected 72", v);
    v = alias_pair("distance", NULL, LIGHT65 "\"light\" \"200\"\n\"_falloff\" \"128\"\n}\n", NULL,
                   LIGHT65 "\"light\" \"200\"\n\"_distance\" \"128\"\n}\n", NULL, 0);
    if (fabs(v - 100) > 1.5) fail_msg("_distance 128: %g, expected 100", v);
    alias_pair("angfade", NULL, LIGHT65 "\"light\" \"200\"\n\"_anglescale\" \"0.25\"\n}\n", NULL,
               LIGHT65 "\"light\" \"200\"\n\"_angfade\" \"0.5\"\n}\n", NULL, 0);
    alias_pair("angwait", NULL, LIGHT65 "\"light\" \"200\"\n\"_anglescale\" \"0.25\"\n}\n", NULL,
               LIGHT65 "\"light\" \"200\"\n\"_angwait\" \"0.5\"\n}\n", NULL, 0);
    /* ... which differs from the plain cosine at 45 degrees. */
    double plain = room_luxel("angplain", NULL, LIGHT65 "\"light\" \"200\"\n}\n", NULL, 0, vec3(64, 0, 0), UP, -1, NULL);
    double ang = room_luxel("angwait1", NULL, LIGHT65 "\"light\" \"200\"\n\"_angwait\" \"0.5\"\n}\n", NULL, 0,
                            vec3(64, 0, 0), UP, -1, NULL);
    double d = sqrt(2.0) * 64, want = (200 - d) * (0.75 + 0.25 * 64 / d);
    if (fabs(ang - want) > 2.5 || ang < plain + 5) fail_msg("_angwait 0.5 at 45 degrees: %g (want %.1f), plain %g", ang, want, plain);
}

static void test_light_keys(void **state)
{
    (void)state;
    /* _light is light. */
    double v = alias_pair("lightkey", NULL, LIGHT65 "\"light\" \"200\"\n}\n", NULL, LIGHT65 "\"_light\" \"200\"\n}\n",
                          NULL, 0);
    if (fabs(v - 136) > 1.5) fail_msg("_light 200: %g", v);
    /* _color: a red light has no green. */
    double g = room_luxel("color", NULL, LIGHT65 "\"light\" \"200\"\n\"_color\" \"255 0 0\"\n}\n", NULL, 0,
                          vec3(0, 0, 0), UP, 1, NULL);
    double r = room_luxel("color_r", NULL, LIGHT65 "\"light\" \"200\"\n\"_color\" \"255 0 0\"\n}\n", NULL, 0,
                          vec3(0, 0, 0), UP, 0, NULL);
    if (g != 0 || fabs(r - 136) > 1.5) fail_msg("_color 255 0 0: red %g, green %g", r, g);
    /* _style is style: the light goes to that style's lightmap. */
    lit_t l;
    alias_pair("style", NULL, LIGHT65 "\"light\" \"200\"\n\"style\" \"5\"\n}\n", NULL,
               LIGHT65 "\"light\" \"200\"\n\"_style\" \"5\"\n}\n", NULL, 0);
    room_luxel("style1", NULL, LIGHT65 "\"light\" \"200\"\n\"_style\" \"5\"\n}\n", NULL, 0, vec3(0, 0, 0), UP, -1, &l);
    int f = find_face(&l.bsp, 0, vec3(0, 0, 0), UP);
    assert_true(f >= 0);
    if (l.bsp.faces[f].styles[1] != 5 || luxel(&l, 0, vec3(0, 0, 0), UP, -1) != 0)
        fail_msg("_style 5: face styles %d %d, style-0 light %g", l.bsp.faces[f].styles[0], l.bsp.faces[f].styles[1],
                 luxel(&l, 0, vec3(0, 0, 0), UP, -1));
    lit_free(&l);
    /* target, mangle and _mangle make a spot: outside its cone the floor
     * is dark, under it lit. */
    const char *spot_t = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 129\"\n\"light\" \"300\"\n\"target\" \"t\"\n"
                         "\"_cone\" \"20\"\n}\n{\n\"classname\" \"info_null\"\n\"origin\" \"0 0 0\"\n"
                         "\"targetname\" \"t\"\n}\n";
    const char *spot_m = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 129\"\n\"light\" \"300\"\n"
                         "\"mangle\" \"0 -90 0\"\n\"_cone\" \"20\"\n}\n";
    const char *spot_u = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 129\"\n\"light\" \"300\"\n"
                         "\"_mangle\" \"0 -90 0\"\n\"_cone\" \"20\"\n}\n";
    const char *point = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 129\"\n\"light\" \"300\"\n}\n";
    double pt = room_luxel("spot_pt", NULL, point, NULL, 0, vec3(96, 0, 0), UP, -1, NULL);
    double tc = room_luxel("spot_tc", NULL, spot_t, NULL, 0, vec3(0, 0, 0), UP, -1, NULL);
    double to = room_luxel("spot_to", NULL, spot_t, NULL, 0, vec3(96, 0, 0), UP, -1, NULL);
    if (pt < 50 || to != 0 || tc < 150) fail_msg("target spot: %g under it, %g outside (point light %g)", tc, to, pt);
    double mc = room_luxel("spot_mc", NULL, spot_m, NULL, 0, vec3(0, 0, 0), UP, -1, NULL);
    double mo = room_luxel("spot_mo", NULL, spot_m, NULL, 0, vec3(96, 0, 0), UP, -1, NULL);
    if (mo != 0 || fabs(mc - tc) > 1) fail_msg("mangle spot: %g under it, %g outside (target: %g)", mc, mo, tc);
    alias_pair("mangle", NULL, spot_m, NULL, spot_u, NULL, 0);
    /* wait scales the fade distance; _wait is wait. */
    v = alias_pair("wait", NULL, LIGHT65 "\"light\" \"200\"\n\"wait\" \"2\"\n}\n", NULL,
                   LIGHT65 "\"light\" \"200\"\n\"_wait\" \"2\"\n}\n", NULL, 0);
    if (fabs(v - 72) > 1.5) fail_msg("wait 2: %g, expected 72", v);
    /* _anglesense is _anglescale (on a light and on worldspawn). */
    alias_pair("anglesense", NULL, LIGHT65 "\"light\" \"200\"\n\"_anglescale\" \"0.5\"\n}\n", NULL,
               LIGHT65 "\"light\" \"200\"\n\"_anglesense\" \"0.5\"\n}\n", NULL, 0);
    alias_pair("anglesense_ws", "\"_anglescale\" \"0.5\"\n", LIGHT65 "\"light\" \"200\"\n}\n", "\"_anglesense\" \"0.5\"\n",
               LIGHT65 "\"light\" \"200\"\n}\n", NULL, 0);
    double as = room_luxel("anglesense1", "\"_anglesense\" \"0.5\"\n", LIGHT65 "\"light\" \"200\"\n}\n", NULL, 0,
                           vec3(64, 0, 0), UP, -1, NULL);
    double pl = room_luxel("anglesense0", NULL, LIGHT65 "\"light\" \"200\"\n}\n", NULL, 0, vec3(64, 0, 0), UP, -1, NULL);
    if (as < pl + 5) fail_msg("_anglesense 0.5: %g at 45 degrees, cosine %g", as, pl);
}

/* ------------------------------------------------------------ suns and domes */

#define SKY "test/sky", SURF_SKY

static void test_sun_keys(void **state)
{
    (void)state;
    lit_t l;
    /* q2tools: "_sun" names the entity the sun shines from, towards its
     * target: here 45 degrees down, so the open floor gets cos 45 of it. */
    const char *pair = "{\n\"classname\" \"info_null\"\n\"targetname\" \"sunfrom\"\n\"target\" \"sunto\"\n"
                       "\"origin\" \"-200 0 200\"\n}\n{\n\"classname\" \"info_null\"\n\"targetname\" \"sunto\"\n"
                       "\"origin\" \"0 0 0\"\n}\n";
    double slant = room_luxel("sun_q2", "\"_sun\" \"sunfrom\"\n\"_sun_light\" \"60\"\n", pair, SKY, vec3(0, 0, 0), UP, -1,
                              NULL);
    double down = room_luxel("sun_q2down", "\"_sun_light\" \"60\"\n", pair, SKY, vec3(0, 0, 0), UP, -1, NULL);
    if (fabs(slant - 60 * cos(M_PI / 4)) > 1.5 || fabs(down - 60) > 1.5)
        fail_msg("_sun: floor %g (want %.1f); _sun_light 60 alone: %g", slant, 60 * cos(M_PI / 4), down);
    /* arghrad's _sun_target is _sun. */
    alias_pair("sun_target", "\"_sun\" \"sunfrom\"\n\"_sun_light\" \"60\"\n", pair,
               "\"_sun_target\" \"sunfrom\"\n\"_sun_light\" \"60\"\n", pair, SKY);
    /* _sun_color. */
    room_luxel("sun_color", "\"_sun_light\" \"60\"\n\"_sun_color\" \"255 0 0\"\n", NULL, SKY, vec3(0, 0, 0), UP, -1, &l);
    double r = luxel(&l, 0, vec3(0, 0, 0), UP, 0), g = luxel(&l, 0, vec3(0, 0, 0), UP, 1);
    lit_free(&l);
    if (fabs(r - 60) > 1.5 || g != 0) fail_msg("_sun_color 255 0 0: red %g, green %g", r, g);
    /* _sunlight_mangle is _sun_mangle. */
    double v = alias_pair("sunlight_mangle", "\"_sunlight\" \"60\"\n\"_sun_mangle\" \"0 -60 0\"\n", NULL,
                          "\"_sunlight\" \"60\"\n\"_sunlight_mangle\" \"0 -60 0\"\n", NULL, SKY);
    if (fabs(v - 60 * sin(M_PI / 3)) > 1.5) fail_msg("_sunlight_mangle 0 -60 0: %g", v);
    /* _sunlight_color. */
    room_luxel("sunlight_color", "\"_sunlight\" \"60\"\n\"_sunlight_color\" \"0 255 0\"\n", NULL, SKY, vec3(0, 0, 0),
               UP, -1, &l);
    r = luxel(&l, 0, vec3(0, 0, 0), UP, 0), g = luxel(&l, 0, vec3(0, 0, 0), UP, 1);
    lit_free(&l);
    if (r != 0 || fabs(g - 60) > 1.5) fail_msg("_sunlight_color 0 255 0: red %g, green %g", r, g);
    /* _sun_ambient is _sunlight2. */
    v = alias_pair("sun_ambient", "\"_sunlight2\" \"50\"\n", NULL, "\"_sun_ambient\" \"50\"\n", NULL, SKY);
    if (v < 20) fail_msg("_sun_ambient 50: floor %g", v);
    /* ericw's _sun2 and _sun2_color; arghrad's _sun4_light .. _sun9_light. */
    room_luxel("sun2", "\"_sunlight\" \"60\"\n\"_sun2\" \"40\"\n\"_sun2_mangle\" \"0 -90 0\"\n\"_sun2_color\" \"255 0 0\"\n",
               NULL, SKY, vec3(0, 0, 0), UP, -1, &l);
    r = luxel(&l, 0, vec3(0, 0, 0), UP, 0), g = luxel(&l, 0, vec3(0, 0, 0), UP, 1);
    lit_free(&l);
    if (fabs(r - 100) > 1.5 || fabs(g - 60) > 1.5) fail_msg("_sun2 40 red: red %g (100), green %g (60)", r, g);
    for (int n = 4; n <= 9; n++) {
        char k[256], name[32];
        snprintf(k, sizeof k, "\"_sunlight\" \"60\"\n\"_sun%d_light\" \"30\"\n\"_sun%d_angle\" \"0 -90\"\n", n, n);
        snprintf(name, sizeof name, "sun%d", n);
        v = room_luxel(name, k, NULL, SKY, vec3(0, 0, 0), UP, -1, NULL);
        if (fabs(v - 90) > 1.5) fail_msg("_sun%d_light 30: floor %g, expected 90", n, v);
    }
    /* arghrad's _sun_vector: the direction the light travels, over any
     * angle; level, it misses the floor. */
    v = alias_pair("sun_vector", "\"_sunlight\" \"60\"\n\"_sun_mangle\" \"0 -90 0\"\n", NULL,
                   "\"_sunlight\" \"60\"\n\"_sun_vector\" \"0 0 -1\"\n", NULL, SKY);
    double level = room_luxel("sun_vector_level", "\"_sunlight\" \"60\"\n\"_sun_mangle\" \"0 -90 0\"\n\"_sun_vector\" \"1 0 0\"\n",
                              NULL, SKY, vec3(0, 0, 0), UP, -1, NULL);
    if (fabs(v - 60) > 1.5 || level != 0) fail_msg("_sun_vector: down %g, level %g", v, level);
    /* arghrad's _sun_style: the sun's light in that style's lightmap. */
    room_luxel("sun_style", "\"_sunlight\" \"60\"\n\"_sun_style\" \"7\"\n", NULL, SKY, vec3(0, 0, 0), UP, -1, &l);
    int f = find_face(&l.bsp, 0, vec3(0, 0, 0), UP);
    assert_true(f >= 0);
    const uint8_t *px = tb_luxel(&l.bsp, f, 1, 0, 0);
    if (l.bsp.faces[f].styles[1] != 7 || luxel(&l, 0, vec3(0, 0, 0), UP, -1) != 0 || !px || px[0] < 55)
        fail_msg("_sun_style 7: styles %d %d, style 0 %g", l.bsp.faces[f].styles[0], l.bsp.faces[f].styles[1],
                 luxel(&l, 0, vec3(0, 0, 0), UP, -1));
    lit_free(&l);
}

/* Luxels of the floor row y = 0 between the sun's shadow and light (10%
 * to 90% of the open floor's) under a roof edge at x = 0. */
static int sun_penumbra(const char *name, const char *keys)
{
    mw_t w = {0};
    mw_printf(&w, "\"_sunlight\" \"100\"\n\"_sun_mangle\" \"0 -90 0\"\n%s", keys);
    mw_box(&w, vec3(0, -256, 200), vec3(256, 256, 216), "test/roof");
    lit_t l;
    room_luxel(name, w.buf, NULL, SKY, vec3(0, 0, 0), UP, -1, &l);
    double open = luxel(&l, 0, vec3(-200, 0, 0), UP, -1);
    int n = 0;
    for (int x = -96; x <= 96; x += 16) {
        double v = luxel(&l, 0, vec3(x, 0, 0), UP, -1);
        if (v > 0.1 * open && v < 0.9 * open) n++;
    }
    lit_free(&l);
    free(w.buf);
    return n;
}

static void test_sun_penumbra_and_diffwait(void **state)
{
    (void)state;
    int hard = sun_penumbra("pen_off", ""), soft = sun_penumbra("pen_on", "\"_sunlight_penumbra\" \"10\"\n");
    if (soft < hard + 2) fail_msg("_sunlight_penumbra 10: %d penumbra luxels, %d without", soft, hard);
    /* arghrad's _sun_difwait (and _sun_diffade) are _sun_diffwait. */
    mw_t w = {0};
    mw_box(&w, vec3(0, -256, 200), vec3(256, 256, 216), "test/roof");
    char a[1024], b[1024], c[1024];
    const char *sun = "\"_sunlight\" \"100\"\n\"_sun_mangle\" \"0 -90 0\"\n\"_sun_diffuse\" \"80\"\n";
    snprintf(a, sizeof a, "%s\"_sun_diffwait\" \"2\"\n%s", sun, w.buf);
    snprintf(b, sizeof b, "%s\"_sun_difwait\" \"2\"\n%s", sun, w.buf);
    snprintf(c, sizeof c, "%s\"_sun_diffade\" \"2\"\n%s", sun, w.buf);
    alias_pair("difwait", a, NULL, b, NULL, SKY);
    alias_pair("diffade", a, NULL, c, NULL, SKY);
    /* ... and 2 fades faster than 1: 24 units into the shadow. */
    char d[1024];
    snprintf(d, sizeof d, "%s%s", sun, w.buf);
    double w1 = room_luxel("difw1", d, NULL, SKY, vec3(24, 0, 0), UP, -1, NULL);
    double w2 = room_luxel("difw2", b, NULL, SKY, vec3(24, 0, 0), UP, -1, NULL);
    if (w1 < 5 || w2 > w1 - 2) fail_msg("_sun_difwait 2: %g at 24 units in the shadow, 1: %g", w2, w1);
    free(w.buf);
}

static void test_dome_colors(void **state)
{
    (void)state;
    lit_t l;
    /* _sunlight2_color and its alias _sunlight_color2. */
    double v = alias_pair("dome2_color", "\"_sunlight2\" \"80\"\n\"_sunlight2_color\" \"255 0 0\"\n", NULL,
                          "\"_sunlight2\" \"80\"\n\"_sunlight_color2\" \"255 0 0\"\n", NULL, SKY);
    room_luxel("dome2_c", "\"_sunlight2\" \"80\"\n\"_sunlight2_color\" \"255 0 0\"\n", NULL, SKY, vec3(0, 0, 0), UP, -1, &l);
    double g = luxel(&l, 0, vec3(0, 0, 0), UP, 1);
    lit_free(&l);
    if (v < 10 || g != 0) fail_msg("_sunlight2_color 255 0 0: mean %g, green %g", v, g);
    /* _sunlight3_color and _sunlight_color3: a slab over a sky floor. */
    mw_t w = {0};
    mw_box(&w, vec3(-64, -64, 96), vec3(64, 64, 112), "test/slab");
    char a[1024], b[1024];
    snprintf(a, sizeof a, "\"_sunlight3\" \"100\"\n\"_sunlight3_color\" \"0 0 255\"\n%s", w.buf);
    snprintf(b, sizeof b, "\"_sunlight3\" \"100\"\n\"_sunlight_color3\" \"0 0 255\"\n%s", w.buf);
    lit_t x, y;
    char *ma = room_map(a, NULL, "test/sky", SURF_SKY, NULL, 0), *mb = room_map(b, NULL, "test/sky", SURF_SKY, NULL, 0);
    qrad_opts_t o = opts0();
    compile_light("dome3_a", ma, &o, &x);
    compile_light("dome3_b", mb, &o, &y);
    if (!same_lighting(&x, &y)) fail_msg("_sunlight_color3 does not light as _sunlight3_color");
    double red = luxel(&x, 0, vec3(0, 0, 96), DOWN, 0), blue = luxel(&x, 0, vec3(0, 0, 96), DOWN, 2);
    if (red != 0 || blue < 30) fail_msg("_sunlight3_color 0 0 255: slab underside red %g, blue %g", red, blue);
    lit_free(&x);
    lit_free(&y);
    free(ma);
    free(mb);
    free(w.buf);
}

/* ------------------------------------------------------------ bmodel keys */

static void test_lightignore(void **state)
{
    (void)state;
    const char *fmt = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 200\"\n\"light\" \"300\"\n}\n"
                      "{\n\"classname\" \"func_wall\"\n%s";
    mw_t a = {0}, b = {0};
    mw_printf(&a, fmt, "");
    mw_box(&a, vec3(-32, -32, 0), vec3(32, 32, 64), "test/pillar");
    mw_printf(&a, "}\n");
    mw_printf(&b, fmt, "\"_lightignore\" \"1\"\n\"_minlight\" \"0.2\"\n");
    mw_box(&b, vec3(-32, -32, 0), vec3(32, 32, 64), "test/pillar");
    mw_printf(&b, "}\n");
    lit_t x, y;
    room_luxel("lignore_off", NULL, a.buf, NULL, 0, vec3(0, 0, 0), UP, -1, &x);
    room_luxel("lignore_on", NULL, b.buf, NULL, 0, vec3(0, 0, 0), UP, -1, &y);
    double lit = luxel(&x, 1, vec3(0, 0, 64), UP, -1);
    int lo, hi;
    luxel_range(&y, 1, 0, &lo, &hi);
    double floor = luxel(&y, 0, vec3(100, 0, 0), UP, -1);
    if (lit < 100 || lo < 25 || hi > 26 || floor < 50)
        fail_msg("_lightignore 1 with _minlight 0.2: model %d..%d (lit without: %g), world floor %g", lo, hi, lit, floor);
    lit_free(&x);
    lit_free(&y);
    free(a.buf);
    free(b.buf);
}

static void test_minlight_mottle(void **state)
{
    (void)state;
    lit_t a, b, c;
    room_luxel("mottle_off", "\"_minlight\" \"0.2\"\n", NULL, NULL, 0, vec3(0, 0, 0), UP, -1, &a);
    room_luxel("mottle_on", "\"_minlight\" \"0.2\"\n\"_minlight_mottle\" \"1\"\n", NULL, NULL, 0, vec3(0, 0, 0), UP, -1, &b);
    room_luxel("mottle_alias", "\"_minlight\" \"0.2\"\n\"_minlightMottle\" \"1\"\n", NULL, NULL, 0, vec3(0, 0, 0), UP, -1,
               &c);
    int lo0, hi0, lo1, hi1;
    luxel_range(&a, 0, 0, &lo0, &hi0);
    luxel_range(&b, 0, 0, &lo1, &hi1);
    /* ericw: minlight plus a noise of 0..47. */
    if (lo0 != hi0 || lo1 < 25 || hi1 > 26 + 48 || hi1 - lo1 < 15)
        fail_msg("_minlight_mottle: %d..%d (without %d..%d)", lo1, hi1, lo0, hi0);
    if (!same_lighting(&b, &c)) fail_msg("_minlightMottle does not light as _minlight_mottle");
    lit_free(&a);
    lit_free(&b);
    lit_free(&c);
}

static void test_model_key_aliases(void **state)
{
    (void)state;
    /* _mincolor is _minlight_color. */
    double v = alias_pair("mincolor", "\"_minlight\" \"0.5\"\n\"_minlight_color\" \"255 0 0\"\n", NULL,
                          "\"_minlight\" \"0.5\"\n\"_mincolor\" \"255 0 0\"\n", NULL, NULL, 0);
    if (fabs(v - 64 / 3.0) > 1) fail_msg("_mincolor 255 0 0 at 0.5: mean %g", v);
    /* _selfshadow is _shadowself: a func_wall of a plate and a slab above
     * it shadows its own plate. */
    const char *fmt = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 200\"\n\"light\" \"300\"\n}\n"
                      "{\n\"classname\" \"func_wall\"\n%s";
    const char *keys[3] = {"", "\"_shadowself\" \"1\"\n", "\"_selfshadow\" \"1\"\n"};
    lit_t l[3];
    for (int k = 0; k < 3; k++) {
        mw_t w = {0};
        mw_printf(&w, fmt, keys[k]);
        mw_box(&w, vec3(-128, -64, 0), vec3(128, 64, 8), "test/plate");
        mw_box(&w, vec3(-32, -64, 64), vec3(32, 64, 72), "test/slab");
        mw_printf(&w, "}\n");
        char name[32];
        snprintf(name, sizeof name, "selfshadow%d", k);
        room_luxel(name, NULL, w.buf, NULL, 0, vec3(0, 0, 0), UP, -1, &l[k]);
        free(w.buf);
    }
    double open = luxel(&l[0], 1, vec3(0, 0, 8), UP, -1), self = luxel(&l[1], 1, vec3(0, 0, 8), UP, -1);
    if (open < 50 || self > 0.25 * open) fail_msg("_shadowself 1: plate under the slab %g, %g without", self, open);
    if (!same_lighting(&l[1], &l[2])) fail_msg("_selfshadow does not light as _shadowself");
    for (int k = 0; k < 3; k++) lit_free(&l[k]);
}

/* A func_wall pillar with _shadow 1 between a light and the floor point
 * (160, 0); the light's keys vary. */
static double pillar_shadow(const char *name, const char *lightkeys)
{
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 200\"\n\"light\" \"400\"\n%s}\n", lightkeys);
    mw_printf(&w, "{\n\"classname\" \"func_wall\"\n\"_shadow\" \"1\"\n");
    mw_box(&w, vec3(64, -32, 40), vec3(128, 32, 104), "test/pillar");
    mw_printf(&w, "}\n");
    double v = room_luxel(name, NULL, w.buf, NULL, 0, vec3(160, 0, 0), UP, -1, NULL);
    free(w.buf);
    return v;
}

static void test_shadow_channel_mask(void **state)
{
    (void)state;
    double mirror = room_luxel("chan_mirror", NULL, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 200\"\n\"light\" \"400\"\n}\n",
                               NULL, 0, vec3(160, 0, 0), UP, -1, NULL);
    double shadowed = pillar_shadow("chan_def", "");
    /* The light's shadows come from channel 2 only: the channel-1 pillar
     * lets it through. */
    double through = pillar_shadow("chan_2", "\"_shadow_channel_mask\" \"2\"\n");
    if (shadowed > 0.25 * mirror || fabs(through - mirror) > 1)
        fail_msg("_shadow_channel_mask 2: %g behind the pillar (default %g, no pillar %g)", through, shadowed, mirror);
}

/* Half of an octagonal prism (the sides facing x < cx, or x > cx) around
 * (cx, 0), inradius r: its cut face lies on x = cx. */
static void half_octagon(mw_t *w, double cx, double r, int side, const char *tex)
{
    mw_printf(w, "{\n");
    for (int k = 0; k < 8; k++) {
        double a = (k + 0.5) * M_PI / 4;
        vec3_t n = vec3(cos(a), sin(a), 0);
        if ((side < 0) != (n.x < 0)) continue;
        mw_plane(w, n, cx * n.x + r, tex, 0, 0);
    }
    mw_plane(w, vec3(side < 0 ? 1 : -1, 0, 0), side < 0 ? cx : -cx, tex, 0, 0);
    mw_plane(w, vec3(0, 0, -1), 0, tex, 0, 0);
    mw_plane(w, vec3(0, 0, 1), 64, tex, 0, 0);
    mw_printf(w, "}\n");
}

/* The jump between the luxels either side of the edge at the top (+y) of
 * an octagon split into two func_walls, lit from +y. Smoothing stops at 60
 * degrees, so the two inner cut faces (67.5 degrees from the sides there)
 * stay out of it. */
static double group_jump(const char *name, const char *keys)
{
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"-40 236 32\"\n\"light\" \"400\"\n}\n");
    mw_printf(&w, "{\n\"classname\" \"func_wall\"\n\"_phong_angle\" \"60\"\n%s", keys);
    half_octagon(&w, 0, 96, -1, "test/pillar");
    mw_printf(&w, "}\n{\n\"classname\" \"func_wall\"\n\"_phong_angle\" \"60\"\n%s", keys);
    half_octagon(&w, 0, 96, 1, "test/pillar");
    mw_printf(&w, "}\n");
    lit_t l;
    room_luxel(name, NULL, w.buf, NULL, 0, vec3(0, 0, 0), UP, -1, &l);
    free(w.buf);
    double R = 96 / cos(M_PI / 8);
    vec3_t corner = vec3(0, R, 32);
    vec3_t n0 = vec3(cos(5 * M_PI / 8), sin(5 * M_PI / 8), 0), n1 = vec3(cos(3 * M_PI / 8), sin(3 * M_PI / 8), 0);
    vec3_t t0 = vec_normalize(vec_cross(UP, n0), NULL), t1 = vec_normalize(vec_cross(UP, n1), NULL);
    vec3_t p0 = vec_sub(corner, vec_scale(t0, -4)), p1 = vec_sub(corner, vec_scale(t1, 4));
    /* p0 on model 1's face (normal n0, x < 0), p1 on model 2's. */
    if (find_face(&l.bsp, 1, p0, n0) < 0) p0 = vec_sub(corner, vec_scale(t0, 4));
    if (find_face(&l.bsp, 2, p1, n1) < 0) p1 = vec_sub(corner, vec_scale(t1, -4));
    double v0 = luxel(&l, 1, p0, n0, -1), v1 = luxel(&l, 2, p1, n1, -1);
    lit_free(&l);
    return fabs(v0 - v1);
}

static void test_phong_group(void **state)
{
    (void)state;
    double apart = group_jump("pgroup_off", ""), together = group_jump("pgroup_on", "\"_phong_group\" \"1\"\n");
    if (apart < 8 || together > 0.5 * apart) fail_msg("_phong_group 1: edge jump %g, %g apart", together, apart);
}

/* The world smoothed up to 100 degrees joins the room's floor and walls
 * (inside corners) and a box's edges (outside); _phong_angle_concave 1
 * keeps the inside corners sharp. */
static void concave_run(const char *name, const char *keys, double *corner, double *box)
{
    mw_t w = {0};
    mw_printf(&w, "%s", keys);
    mw_box(&w, vec3(100, 100, 0), vec3(164, 164, 64), "test/box");
    const char *light = "{\n\"classname\" \"light\"\n\"origin\" \"60 132 250\"\n\"light\" \"700\"\n}\n";
    lit_t l;
    room_luxel(name, w.buf, light, NULL, 0, vec3(0, 0, 0), UP, -1, &l);
    *corner = luxel(&l, 0, vec3(-256, -120, 4), vec3(1, 0, 0), -1);
    *box = luxel(&l, 0, vec3(100, 120, 60), vec3(-1, 0, 0), -1);
    lit_free(&l);
    free(w.buf);
}

static void test_phong_angle_concave(void **state)
{
    (void)state;
    double c0, b0, c1, b1, c2, b2;
    concave_run("concave_flat", "\"_phong\" \"0\"\n", &c0, &b0);
    concave_run("concave_all", "\"_phong\" \"1\"\n\"_phong_angle\" \"100\"\n", &c1, &b1);
    concave_run("concave_sharp", "\"_phong\" \"1\"\n\"_phong_angle\" \"100\"\n\"_phong_angle_concave\" \"1\"\n", &c2, &b2);
    if (fabs(c1 - c0) < 3 || fabs(b1 - b0) < 3)
        fail_msg("_phong_angle 100 changes nothing: corner %g/%g, box edge %g/%g", c1, c0, b1, b0);
    if (fabs(c2 - c0) > 1 || fabs(b2 - b1) > 1)
        fail_msg("_phong_angle_concave 1: inside corner %g (flat %g), box edge %g (smoothed %g)", c2, c0, b2, b1);
}

/* ------------------------------------------------------------ light grid hints */

static void test_lightgrid_hint(void **state)
{
    (void)state;
    const char *hints = "{\n\"classname\" \"info_null\"\n\"origin\" \"-64 -64 16\"\n\"_lightgrid_hint\" \"1\"\n}\n"
                        "{\n\"classname\" \"info_null\"\n\"origin\" \"64 64 128\"\n\"_lightgrid_hint\" \"1\"\n}\n"
                        "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n}\n";
    const char *plain = "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n}\n";
    int cells[2];
    float mins[2][3];
    for (int k = 0; k < 2; k++) {
        char *m = room_map("\"_lightgrid\" \"1\"\n", k ? hints : plain, NULL, 0, NULL, 0);
        qrad_opts_t o = opts0();
        lit_t l;
        compile_light(k ? "lghint" : "lgplain", m, &o, &l);
        bspx_t x;
        q2err_t err;
        assert_true(bspx_parse(&l.bsp, &x, NULL, &err));
        const bspx_lump_t *lump = bspx_find(&x, "LIGHTGRID_OCTREE");
        assert_non_null(lump);
        lightgrid_t g;
        assert_true(lightgrid_decode(lump->data, lump->size, &g, &err));
        cells[k] = g.size[0] * g.size[1] * g.size[2];
        memcpy(mins[k], g.mins, sizeof g.mins);
        lightgrid_free(&g);
        bspx_free(&x);
        lit_free(&l);
        free(m);
    }
    /* The hints' box (128 x 128 x 112) instead of the room's. */
    if (cells[1] >= cells[0] / 4 || mins[1][0] < -64 - 32 || mins[1][0] > -64 + 1)
        fail_msg("_lightgrid_hint: %d cells from x %g (without: %d from %g)", cells[1], mins[1][0], cells[0], mins[0][0]);
}

/* ------------------------------------------------------------ options */

static void test_qrad_options(void **state)
{
    (void)state;
    char *dark = room_map(NULL, NULL, NULL, 0, NULL, 0);
    char *lit = room_map(NULL, LIGHT65 "\"light\" \"300\"\n}\n", NULL, 0, NULL, 0);
    lit_t l;
    int lo, hi;
    /* -ambient 10: every luxel of a dark room. */
    qrad_opts_t o = opts0();
    o.ambient = 10;
    compile_light("opt_ambient", dark, &o, &l);
    luxel_range(&l, 0, 0, &lo, &hi);
    lit_free(&l);
    if (lo != 10 || hi != 10) fail_msg("-ambient 10: %d..%d", lo, hi);
    /* -maxlight 100: the brightest channel. */
    o = opts0();
    o.maxlight = 100;
    compile_light("opt_maxlight", lit, &o, &l);
    luxel_range(&l, 0, 0, &lo, &hi);
    lit_free(&l);
    if (hi != 100) fail_msg("-maxlight 100: brightest %d", hi);
    /* -bounce: a spot lights only the floor; the ceiling gets light only
     * from the bounces. */
    char *spot = room_map(NULL,
                          "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"400\"\n"
                          "\"mangle\" \"0 -90 0\"\n\"_cone\" \"30\"\n}\n",
                          NULL, 0, NULL, 0);
    o = opts0();
    compile_light("opt_bounce0", spot, &o, &l);
    double c0 = luxel(&l, 0, vec3(0, 0, 256), DOWN, -1);
    lit_free(&l);
    o.bounce = 2;
    o.bounce_set = true;
    compile_light("opt_bounce2", spot, &o, &l);
    double c2 = luxel(&l, 0, vec3(0, 0, 256), DOWN, -1);
    lit_free(&l);
    if (c0 != 0 || c2 < 5) fail_msg("-bounce 2: ceiling %g, %g with -bounce 0", c2, c0);
    /* -soft 2: a shadow edge widens, the open floor keeps its level. */
    mw_t w = {0};
    mw_box(&w, vec3(64, -256, 40), vec3(80, 256, 120), "test/pillar");
    char *sh = room_map(w.buf, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 160\"\n\"light\" \"600\"\n}\n", NULL, 0, NULL, 0);
    int n[2];
    double open[2];
    for (int k = 0; k < 2; k++) {
        o = opts0();
        o.soft = k ? 2 : 0;
        compile_light(k ? "opt_soft" : "opt_hard", sh, &o, &l);
        n[k] = 0;
        /* The hard edge is at x = 85; its mirror is lit. */
        for (int x = 48; x <= 144; x += 16) {
            double v = luxel(&l, 0, vec3(x, 0, 0), UP, -1), ref = luxel(&l, 0, vec3(-x, 0, 0), UP, -1);
            if (v > 0.1 * ref && v < 0.9 * ref) n[k]++;
        }
        open[k] = luxel(&l, 0, vec3(-40, 0, 0), UP, -1);
        lit_free(&l);
    }
    if (n[1] < n[0] + 2 || fabs(open[1] - open[0]) > 0.05 * open[0] + 1)
        fail_msg("-soft 2: %d penumbra luxels (%d without), open floor %g (%g)", n[1], n[0], open[1], open[0]);
    free(w.buf);
    free(sh);
    free(spot);
    free(dark);
    free(lit);
}

/* -scale, -entity and -extra (qrad3's). */
static void test_qrad_scale_options(void **state)
{
    (void)state;
    char *m = room_map(NULL, LIGHT65 "\"light\" \"200\"\n}\n", NULL, 0, NULL, 0);
    lit_t l;
    qrad_opts_t o = opts0();
    o.scale = 0.5;
    compile_light("opt_scale", m, &o, &l);
    double sc = luxel(&l, 0, vec3(0, 0, 0), UP, -1);
    lit_free(&l);
    /* -entity scales the light's intensity, so the linear light also
     * reaches less far: 0.5 * 200 - 64. */
    o = opts0();
    o.entity = 0.5;
    compile_light("opt_entity", m, &o, &l);
    double en = luxel(&l, 0, vec3(0, 0, 0), UP, -1);
    lit_free(&l);
    if (fabs(sc - 68) > 1.5 || fabs(en - 36) > 1.5) fail_msg("-scale 0.5: %g (68), -entity 0.5: %g (36)", sc, en);
    free(m);
    /* -extra: 2x2 samples per luxel blur a shadow's edge (here through
     * the luxel centre at x = 96), not the open floor. */
    mw_t w = {0};
    mw_box(&w, vec3(72, -256, 40), vec3(88, 256, 120), "test/pillar");
    char *sh = room_map(w.buf, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 160\"\n\"light\" \"400\"\n}\n", NULL, 0, NULL, 0);
    lit_t a, b;
    o = opts0();
    compile_light("opt_noextra", sh, &o, &a);
    o.extra = true;
    compile_light("opt_extra", sh, &o, &b);
    double open0 = luxel(&a, 0, vec3(-40, 0, 0), UP, -1), open1 = luxel(&b, 0, vec3(-40, 0, 0), UP, -1);
    int changed = 0;
    for (int x = 48; x <= 144; x += 16)
        if (fabs(luxel(&a, 0, vec3(x, 0, 0), UP, -1) - luxel(&b, 0, vec3(x, 0, 0), UP, -1)) > 3) changed++;
    if (changed < 1 || fabs(open1 - open0) > 0.05 * open0 + 1)
        fail_msg("-extra: %d edge luxels changed, open floor %g (%g without)", changed, open1, open0);
    lit_free(&a);
    lit_free(&b);
    free(sh);
    free(w.buf);
}

/* ------------------------------------------------------------ determinism */

static bool files_equal(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool eq = fa && fb;
    while (eq) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb) eq = false;
        if (ca == EOF || cb == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return eq;
}

/* Every key of this file in one map: qrad at -threads 1 and 2 (and with
 * -soft) writes byte-identical bsps. */
static void test_lights_determinism(void **state)
{
    (void)state;
    mw_t w = {0}, e = {0};
    mw_printf(&w, "\"_dirt\" \"1\"\n\"_dirtmode\" \"1\"\n\"_sunlight\" \"60\"\n\"_sun_vector\" \"0.3 0.2 -1\"\n"
                  "\"_sun_style\" \"3\"\n\"_sunlight2\" \"30\"\n\"_sunlight2_dirt\" \"-1\"\n\"_sunlight_dirt\" \"1\"\n"
                  "\"_dist\" \"1.5\"\n\"_range\" \"0.7\"\n\"_gamma\" \"1.4\"\n\"_spotlightautofalloff\" \"1\"\n"
                  "\"_minlight\" \"0.1\"\n\"_minlight_mottle\" \"1\"\n\"_phong\" \"1\"\n\"_phong_angle\" \"100\"\n"
                  "\"_phong_angle_concave\" \"30\"\n\"_maxlight\" \"1.5\"\n");
    mw_box(&w, vec3(-32, -32, 0), vec3(32, 32, 64), "test/box");
    mw_printf(&e, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 129\"\n\"light\" \"300\"\n\"target\" \"t\"\n"
                  "\"_cone\" \"40\"\n\"_softangle\" \"40\"\n\"_dirtscale\" \"0.5\"\n\"_dirtgain\" \"0.7\"\n}\n"
                  "{\n\"classname\" \"info_null\"\n\"origin\" \"100 0 0\"\n\"targetname\" \"t\"\n}\n"
                  "{\n\"classname\" \"light\"\n\"origin\" \"-100 80 100\"\n\"light\" \"200\"\n\"_fade\" \"0.7\"\n"
                  "\"_angfade\" \"1.2\"\n}\n{\n\"classname\" \"light\"\n\"origin\" \"100 -80 100\"\n\"light\" \"200\"\n"
                  "\"_distance\" \"200\"\n\"_nostaticlight\" \"0\"\n}\n"
                  "{\n\"classname\" \"light\"\n\"origin\" \"0 0 200\"\n\"_sun\" \"1\"\n\"light\" \"30\"\n"
                  "\"mangle\" \"30 -70 0\"\n\"_suntexture\" \"test/sky\"\n\"style\" \"2\"\n\"_dirt\" \"-1\"\n}\n"
                  "{\n\"classname\" \"func_wall\"\n\"_lightignore\" \"1\"\n\"_minlight\" \"0.3\"\n");
    mw_box(&e, vec3(120, 120, 0), vec3(160, 160, 40), "test/pillar");
    mw_printf(&e, "}\n{\n\"classname\" \"func_wall\"\n\"_maxlight\" \"0.4\"\n");
    mw_box(&e, vec3(-160, 120, 0), vec3(-120, 160, 40), "test/pillar");
    mw_printf(&e, "}\n");
    char *m = room_map(w.buf, e.buf, NULL, 0, "test/sky", SURF_SKY);
    char map[512], cmd[4096];
    snprintf(map, sizeof map, "%s/det.map", tmpdir);
    FILE *f = fopen(map, "w");
    assert_non_null(f);
    fputs(m, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s/qbsp' -quiet -threads 1 '%s' > /dev/null 2>&1", Q2MAP_BIN_DIR, map);
    assert_int_equal(system(cmd), 0);
    static const char *const runs[][2] = {{"t1", "-threads 1"}, {"t2", "-threads 2"}, {"s1", "-threads 1 -soft"},
                                          {"s2", "-threads 2 -soft"}};
    for (int k = 0; k < 4; k++) {
        snprintf(cmd, sizeof cmd,
                 "cp '%s/det.bsp' '%s/det_%s.bsp' && '%s/qrad' %s -bounce 1 '%s/det_%s.bsp' > '%s/det_%s.log' 2>&1",
                 tmpdir, tmpdir, runs[k][0], Q2MAP_BIN_DIR, runs[k][1], tmpdir, runs[k][0], tmpdir, runs[k][0]);
        if (system(cmd) != 0) fail_msg("qrad %s failed", runs[k][1]);
        /* Valid keys: no warning. */
        snprintf(cmd, sizeof cmd, "grep -qi warning '%s/det_%s.log'", tmpdir, runs[k][0]);
        if (system(cmd) == 0) fail_msg("qrad %s warns on valid keys", runs[k][1]);
    }
    char a[600], b[600];
    for (int k = 0; k < 4; k += 2) {
        snprintf(a, sizeof a, "%s/det_%s.bsp", tmpdir, runs[k][0]);
        snprintf(b, sizeof b, "%s/det_%s.bsp", tmpdir, runs[k + 1][0]);
        if (!files_equal(a, b)) fail_msg("%s and %s differ", runs[k][1], runs[k + 1][1]);
    }
    snprintf(a, sizeof a, "%s/det_t1.bsp", tmpdir);
    snprintf(b, sizeof b, "%s/det_s1.bsp", tmpdir);
    if (files_equal(a, b)) fail_msg("-soft changes nothing");
    free(m);
    free(w.buf);
    free(e.buf);
}

/* ------------------------------------------------------------ bad values */

static void test_light_key_bad_values(void **state)
{
    (void)state;
    /* Each bad value is a warning naming the entity, the key and its line,
     * and the default is used. */
    mw_t e = {0};
    mw_printf(&e, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"300\"\n\"mangle\" \"0 -90 0\"\n"
                  "\"_cone\" \"60\"\n\"_softangle\" \"wide\"\n\"_dirtscale\" \"-1\"\n\"_dirtgain\" \"nan\"\n"
                  "\"_nostaticlight\" \"0.5\"\n\"_fade\" \"-2\"\n\"_distance\" \"far\"\n\"_angwait\" \"5\"\n"
                  "\"_dirt\" \"1\"\n}\n");
    mw_printf(&e, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 200\"\n\"_sun\" \"1\"\n\"light\" \"20\"\n"
                  "\"style\" \"300\"\n}\n");
    mw_printf(&e, "{\n\"classname\" \"func_wall\"\n\"_maxlight\" \"-1\"\n\"_lightignore\" \"2\"\n"
                  "\"_minlight_mottle\" \"yes\"\n\"_phong_angle_concave\" \"400\"\n");
    mw_box(&e, vec3(96, -32, 0), vec3(160, 32, 64), "test/pillar");
    mw_printf(&e, "}\n");
    char *m = room_map("\"_dist\" \"0\"\n\"_range\" \"lots\"\n\"_gamma\" \"-1\"\n\"_spotlightautofalloff\" \"1.5\"\n"
                       "\"_sunlight_dirt\" \"2\"\n\"_sunlight2_dirt\" \"x\"\n\"_sun_vector\" \"0 0 0\"\n"
                       "\"_sun_style\" \"-3\"\n\"_sunlight\" \"50\"\n\"_sun2_light\" \"10\"\n\"_sun2_style\" \"1.5\"\n",
                       e.buf, NULL, 0, "test/sky", SURF_SKY);
    lit_t l;
    qrad_opts_t o = opts0();
    compile_light("badlights", m, &o, &l);
    static const char *const keys[] = {"_softangle", "_dirtscale", "_dirtgain", "_nostaticlight", "_fade", "_distance",
                                       "_angwait", "style", "_maxlight", "_lightignore", "_minlight_mottle",
                                       "_phong_angle_concave", "_dist", "_range", "_gamma", "_spotlightautofalloff",
                                       "_sunlight_dirt", "_sunlight2_dirt", "_sun_vector", "_sun_style", "_sun2_style"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        char want[96];
        snprintf(want, sizeof want, "\"%s\" \"", keys[k]);
        const char *p = strstr(l.log, want);
        if (!p) fail_msg("no warning for %s in:\n%s", keys[k], l.log);
        const char *bol = p;
        while (bol > l.log && bol[-1] != '\n') bol--;
        if (!strstr(bol, "entity ") || !strstr(bol, ", line ")) fail_msg("warning for %s lacks entity/line", keys[k]);
    }
    /* The defaults are in effect: the spot lights the floor, the sun is
     * straight down (style 0), nothing is NaN (bytes stay in range and
     * the lit floor is bright). */
    double v = luxel(&l, 0, vec3(0, 0, 0), UP, -1);
    if (v < 150) fail_msg("light with bad keys lights the floor %g", v);
    int f = find_face(&l.bsp, 0, vec3(200, 0, 0), UP);
    assert_true(f >= 0);
    if (l.bsp.faces[f].styles[1] != 255 && l.bsp.faces[f].styles[1] != 0)
        fail_msg("a bad _sun_style made style %d", l.bsp.faces[f].styles[1]);
    free(m);
    free(e.buf);
    lit_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dirt_world_keys),      cmocka_unit_test(test_dirt_light_keys),
        cmocka_unit_test(test_sun_dirt),             cmocka_unit_test(test_softangle),
        cmocka_unit_test(test_nostaticlight),        cmocka_unit_test(test_world_light_scales),
        cmocka_unit_test(test_maxlight),             cmocka_unit_test(test_spotlightautofalloff),
        cmocka_unit_test(test_suntexture),           cmocka_unit_test(test_arghrad_light_keys),
        cmocka_unit_test(test_light_keys),           cmocka_unit_test(test_sun_keys),
        cmocka_unit_test(test_sun_penumbra_and_diffwait), cmocka_unit_test(test_dome_colors),
        cmocka_unit_test(test_lightignore),          cmocka_unit_test(test_minlight_mottle),
        cmocka_unit_test(test_model_key_aliases),    cmocka_unit_test(test_shadow_channel_mask),
        cmocka_unit_test(test_phong_group),          cmocka_unit_test(test_phong_angle_concave),
        cmocka_unit_test(test_lightgrid_hint),       cmocka_unit_test(test_qrad_options),
        cmocka_unit_test(test_qrad_scale_options),   cmocka_unit_test(test_lights_determinism),
        cmocka_unit_test(test_light_key_bad_values),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
