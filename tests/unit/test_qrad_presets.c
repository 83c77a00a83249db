/* What -preset qrad3 and -preset ericw read and how they light, against the
 * tools they stand for (docs/qrad.md, "What each preset reads"): each map
 * is written here, compiled by the qbsp program and lit by the qrad program
 * (Q2MAP_TEST_QRAD_BIN runs another build's qrad on the same bsps), and
 * every check compares with a run where the rule cannot act, so it fails
 * when the rule is off. The figures of ericw-tools' light were measured by
 * relighting the same bsps with it (2.0.0-alpha11). */
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

static const vec3_t DOWN = {0, 0, -1};

static bool same_light(const lit_t *a, const lit_t *b)
{
    return a->bsp.lightdatasize == b->bsp.lightdatasize &&
           !memcmp(a->bsp.lightdata, b->bsp.lightdata, (size_t)a->bsp.lightdatasize);
}

/* The 512 x 512 x 256 room with a sky ceiling and a light, its worldspawn
 * keys and the light's extra keys given. */
static char *sky_room(const char *world, const char *light_keys)
{
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"200\"\n%s}\n",
              light_keys ? light_keys : "");
    char *m = room_map(world, w.buf, NULL, 0, "test/sky", SURF_SKY);
    free(w.buf);
    return m;
}

/* qrad3 reads no worldspawn key (no sun, no dome, no _ambient) and of a
 * light only light, _light, style, _color, target, _cone and angle: under
 * its preset the map with arghrad's and ericw's keys lights as the one
 * without them, and each key is named once in a warning. */
static void test_preset_qrad3_keys(void **state)
{
    (void)state;
    const char *world = "\"_sunlight\" \"200\"\n\"_sun_mangle\" \"0 -90 0\"\n\"_ambient\" \"20\"\n\"_sunlight2\" \"100\"\n";
    char *keyed = sky_room(world, "\"wait\" \"2\"\n\"_anglescale\" \"0.5\"\n");
    char *plain = sky_room(NULL, NULL);
    lit_t a, b, c, d;
    light_prog("q3keys", keyed, "-preset qrad3 -bounce 0", &a);
    light_prog("q3plain", plain, "-preset qrad3 -bounce 0", &b);
    if (!same_light(&a, &b)) fail_msg("-preset qrad3 read keys qrad3 does not read:\n%s", a.log);
    static const char *const keys[] = {"_sunlight", "_sun_mangle", "_ambient", "_sunlight2", "wait", "_anglescale"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        char want[128];
        snprintf(want, sizeof want, "qrad3 does not read the %s key \"%s\"", k < 4 ? "worldspawn" : "light", keys[k]);
        if (!strstr(a.log, want)) fail_msg("no warning '%s' in:\n%s", want, a.log);
    }
    if (strstr(b.log, "does not read")) fail_msg("warnings on a map without such keys:\n%s", b.log);
    /* Without the preset the same keys light the floor. */
    light_prog("q3keys0", keyed, "-bounce 0", &c);
    light_prog("q3plain0", plain, "-bounce 0", &d);
    double on = luxel(&c, 0, vec3(100, 100, 0), UP, -1), off = luxel(&d, 0, vec3(100, 100, 0), UP, -1);
    if (on < off + 50) fail_msg("without a preset the keys should light the floor: %g vs %g", on, off);
    free(keyed);
    free(plain);
    lit_free(&a);
    lit_free(&b);
    lit_free(&c);
    lit_free(&d);
}

/* ericw-tools' light reads arghrad's _sun_light as its _sunlight, but no
 * _ambient: under its preset the arghrad spelling lights as ericw's own
 * key, and _ambient is named and left out. */
static void test_preset_ericw_arghrad_keys(void **state)
{
    (void)state;
    char *argh = sky_room("\"_sun_light\" \"150\"\n\"_sun_mangle\" \"0 -90 0\"\n\"_ambient\" \"20\"\n", "\"_fade\" \"2\"\n");
    char *own = sky_room("\"_sunlight\" \"150\"\n\"_sun_mangle\" \"0 -90 0\"\n", NULL);
    lit_t a, b, c;
    light_prog("ewargh", argh, "-preset ericw -bounce 0", &a);
    light_prog("ewown", own, "-preset ericw -bounce 0", &b);
    if (!same_light(&a, &b)) fail_msg("-preset ericw: arghrad's keys light otherwise than ericw's:\n%s", a.log);
    if (!strstr(a.log, "ericw-tools' light does not read the worldspawn key \"_ambient\""))
        fail_msg("no warning for _ambient:\n%s", a.log);
    if (!strstr(a.log, "ericw-tools' light does not read the light key \"_fade\""))
        fail_msg("no warning for the light's _fade (arghrad's, read only with -arghradcompat):\n%s", a.log);
    if (strstr(a.log, "\"_sun_light\"")) fail_msg("_sun_light is ericw's too, yet named:\n%s", a.log);
    /* the sun is lit (the floor sees the sky) */
    double sun = luxel(&b, 0, vec3(100, 100, 0), UP, -1);
    if (sun < 100) fail_msg("the sun of 150 gives the open floor %g", sun);
    /* without a preset _ambient is read: 20 more where the point light
     * does not reach (its linear falloff ends 200 units away) */
    lit_t d;
    light_prog("ewargh0", argh, "-bounce 0", &c);
    light_prog("ewown0", own, "-bounce 0", &d);
    double amb = luxel(&c, 0, vec3(200, 200, 0), UP, -1) - luxel(&d, 0, vec3(200, 200, 0), UP, -1);
    if (fabs(amb - 20) > 1) fail_msg("without a preset _ambient 20 should add 20 to the floor: +%g", amb);
    lit_free(&d);
    free(argh);
    free(own);
    lit_free(&a);
    lit_free(&b);
    lit_free(&c);
}

/* A sun aimed but given no intensity: q2tools and arghrad light 250,
 * ericw-tools' _sunlight is 0 unless set. */
static void test_preset_ericw_sun_needs_light(void **state)
{
    (void)state;
    char *m = room_map("\"_sun_mangle\" \"0 -90 0\"\n", NULL, NULL, 0, "test/sky", SURF_SKY);
    lit_t a, b;
    light_prog("ewsun", m, "-preset ericw -bounce 0", &a);
    light_prog("ewsun0", m, "-bounce 0", &b);
    double ew = luxel(&a, 0, vec3(100, 100, 0), UP, -1), q = luxel(&b, 0, vec3(100, 100, 0), UP, -1);
    if (ew != 0) fail_msg("-preset ericw: an aimed sun without _sunlight lights the floor: %g", ew);
    if (q < 100) fail_msg("no preset: the 250 sun gives the floor %g", q);
    free(m);
    lit_free(&a);
    lit_free(&b);
}

/* ericw-tools' sky dome: 65 suns (4 rings of 16 and the zenith), each
 * 1/65 of _sunlight2 dimmed by half its angle of incidence. On a floor 64
 * units under a 2048-wide sky its light gave 78 at the brightest luxel
 * (the same bsp relit by ericw-tools' light; the means of all luxels were
 * 67.5 there and 68.5 here, correlation 0.995); qrad's own cosine-weighted
 * dome gives the open floor all of _sunlight2. */
static void test_preset_ericw_dome(void **state)
{
    (void)state;
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"worldspawn\"\n\"_sunlight2\" \"100\"\n");
    mw_room(&w, vec3(-1024, -1024, 0), vec3(1024, 1024, 64), NULL, 0, "test/sky", SURF_SKY);
    mw_printf(&w, "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 32\"\n}\n");
    lit_t a, b;
    light_prog("ewdome", w.buf, "-preset ericw", &a);
    light_prog("ewdome0", w.buf, "-preset ericw -bounce 0", &b);
    int lo, hi;
    luxel_range(&a, 0, 0, &lo, &hi);
    if (abs(hi - 78) > 1) fail_msg("-preset ericw: brightest luxel under the dome %d, ericw-tools' light 78", hi);
    /* the floor's middle: ericw's (16 (4 x 0.5 + 0.5 sum sin e) + 1) / 65 of
     * the dome where no wall hides a sun (elevations 9, 27, 45, 63 and 90),
     * 0.78 of it; walls hide the low rings within 64 / tan(9) units of them */
    double mid = luxel(&b, 0, vec3(0, 0, 0), UP, -1);
    double want = 0;
    for (int i = 0; i < 4; i++) want += 16 * (0.5 + 0.5 * sin((9 + 18 * i) * M_PI / 180));
    want = 100 * (want + 1) / 65;
    if (fabs(mid - want) > 1.5) fail_msg("-preset ericw -bounce 0: the open floor %g, ericw's rule %g", mid, want);
    free(w.buf);
    lit_free(&a);
    lit_free(&b);
}

/* qrad3 adds a light face's own emission (value times its texture's
 * reflectivity: 0.5 without the texture) to its lightmap, "full bright";
 * without the preset a light face gets only the light that reaches it. */
static void test_preset_qrad3_light_face(void **state)
{
    (void)state;
    /* a 64 x 64 light of value 100 set into the middle of the ceiling */
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"worldspawn\"\n");
    mw_room(&w, vec3(-256, -256, 0), vec3(256, 256, 256), NULL, 0, NULL, 0);
    mw_box_tex(&w, vec3(-32, -32, 240), vec3(32, 32, 256), "test/light", SURF_LIGHT, 100, -1, NULL, 0, 0);
    mw_printf(&w, "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 32\"\n}\n");
    lit_t a, b;
    light_prog("q3self", w.buf, "-preset qrad3 -bounce 0", &a);
    light_prog("q3self0", w.buf, "-bounce 0", &b);
    double on = luxel(&a, 0, vec3(0, 0, 240), DOWN, -1), off = luxel(&b, 0, vec3(0, 0, 240), DOWN, -1);
    /* 100 x 0.5 added */
    if (fabs(on - off - 50) > 1.5) fail_msg("light face: %g under -preset qrad3, %g without (want +50)", on, off);
    /* the floor under it is lit alike (its own emission is no light source) */
    double fa = luxel(&a, 0, vec3(0, 0, 0), UP, -1), fb = luxel(&b, 0, vec3(0, 0, 0), UP, -1);
    if (fabs(fa - fb) > 1) fail_msg("the floor moved with the light face's own light: %g vs %g", fa, fb);
    free(w.buf);
    lit_free(&a);
    lit_free(&b);
}

/* The style slot of face f that holds style st, or -1. */
static int style_slot(const bsp_t *bsp, int f, int st)
{
    for (int k = 0; k < MAXLIGHTMAPS; k++)
        if (bsp->faces[f].styles[k] == st) return k;
    return -1;
}

/* Mean channel over all the luxels of face f's lightmap in slot `slot`. */
static double slot_mean(const bsp_t *bsp, int f, int slot)
{
    face_extents_t e;
    assert_true(bsp_face_extents(bsp, f, &e, NULL));
    size_t n = (size_t)e.size[0] * e.size[1] * 3;
    const uint8_t *p = bsp->lightdata + bsp->faces[f].lightofs + (size_t)slot * n;
    double sum = 0;
    for (size_t k = 0; k < n; k++) sum += p[k];
    return sum / (double)n;
}

/* ericw-tools writes a face's lightmaps brightest first (its
 * CalculateLightmapStyles sorts them by mean brightness), so a switchable
 * light brighter than the face's style-0 light takes the first slot; qrad
 * writes style 0 first. A floor under a light of 60 (style 0) and one of
 * 300 (style 5), then the same with the two swapped over. */
static void test_preset_ericw_style_order(void **state)
{
    (void)state;
    char *bright5 = room_map(NULL,
                             "{\n\"classname\" \"light\"\n\"origin\" \"-64 0 32\"\n\"light\" \"60\"\n}\n"
                             "{\n\"classname\" \"light\"\n\"origin\" \"64 0 32\"\n\"light\" \"300\"\n\"style\" \"5\"\n}\n",
                             NULL, 0, NULL, 0);
    char *bright0 = room_map(NULL,
                             "{\n\"classname\" \"light\"\n\"origin\" \"-64 0 32\"\n\"light\" \"300\"\n}\n"
                             "{\n\"classname\" \"light\"\n\"origin\" \"64 0 32\"\n\"light\" \"60\"\n\"style\" \"5\"\n}\n",
                             NULL, 0, NULL, 0);
    lit_t a, b, c;
    light_prog("ewstyle5", bright5, "-preset ericw -bounce 0", &a);
    light_prog("ewstyle0", bright0, "-preset ericw -bounce 0", &b);
    light_prog("ewstyle5q", bright5, "-bounce 0", &c);
    int fa = find_face(&a.bsp, 0, vec3(0, 0, 0), UP), fb = find_face(&b.bsp, 0, vec3(0, 0, 0), UP),
        fc = find_face(&c.bsp, 0, vec3(0, 0, 0), UP);
    assert_true(fa >= 0 && fb >= 0 && fc >= 0);
    const uint8_t *sa = a.bsp.faces[fa].styles, *sb = b.bsp.faces[fb].styles, *sc = c.bsp.faces[fc].styles;
    if (sa[0] != 5 || sa[1] != 0)
        fail_msg("-preset ericw: the floor's styles %d %d %d %d, want 5 0 (the brighter first)", sa[0], sa[1], sa[2],
                 sa[3]);
    if (slot_mean(&a.bsp, fa, 0) < slot_mean(&a.bsp, fa, 1))
        fail_msg("-preset ericw: the first lightmap (%g) is darker than the second (%g)", slot_mean(&a.bsp, fa, 0),
                 slot_mean(&a.bsp, fa, 1));
    if (sb[0] != 0 || sb[1] != 5) fail_msg("-preset ericw: the floor's styles %d %d, want 0 5", sb[0], sb[1]);
    /* without the preset style 0 comes first whatever its light */
    if (sc[0] != 0 || sc[1] != 5) fail_msg("no preset: the floor's styles %d %d, want 0 5", sc[0], sc[1]);
    /* the order moves the lightmaps, not their light: the style-5 light is
     * the same block in both maps' bytes */
    int k5 = style_slot(&a.bsp, fa, 5), k5b = style_slot(&b.bsp, fb, 5);
    assert_true(k5 >= 0 && k5b >= 0);
    if (slot_mean(&a.bsp, fa, k5) < 4 * slot_mean(&b.bsp, fb, k5b))
        fail_msg("the style-5 lightmap of the 300 light (%g) is not the bright one (the 60's: %g)",
                 slot_mean(&a.bsp, fa, k5), slot_mean(&b.bsp, fb, k5b));
    free(bright5);
    free(bright0);
    lit_free(&a);
    lit_free(&b);
    lit_free(&c);
}

/* ericw-tools' suns light a face they stand level with (LightFace_Sky
 * skips only a face whose plane faces away), at the (1 - anglescale) share
 * of _sunlight: under a straight-down _sunlight 200 through a sky ceiling
 * ericw-tools' light gives a wall of this room WALL (its _anglescale 0.5:
 * half of 200); qrad's own suns light no luxel they reach at cos 0. */
#define WALL_UNDER_SUN 100
static void test_preset_ericw_sun_grazing(void **state)
{
    (void)state;
    char *m = sky_room("\"_sunlight\" \"200\"\n\"_sun_mangle\" \"0 -90 0\"\n", NULL);
    /* no point light: the sun alone */
    char *cut = strstr(m, "{\n\"classname\" \"light\"");
    assert_non_null(cut);
    *cut = 0;
    lit_t a, b;
    light_prog("ewgraze", m, "-preset ericw -bounce 0", &a);
    light_prog("ewgraze0", m, "-bounce 0", &b);
    static const vec3_t WEST = {1, 0, 0};
    double ew = luxel(&a, 0, vec3(-256, 0, 128), WEST, -1), q = luxel(&b, 0, vec3(-256, 0, 128), WEST, -1);
    if (fabs(ew - WALL_UNDER_SUN) > 1.5)
        fail_msg("-preset ericw: the wall under a straight-down sun %g, ericw-tools' light %d", ew, WALL_UNDER_SUN);
    if (q > 1) fail_msg("no preset: the wall edge-on to the sun got %g", q);
    /* the floor facing it is lit as before: 200 */
    double fl = luxel(&a, 0, vec3(0, 0, 0), UP, -1);
    if (fabs(fl - 200) > 2) fail_msg("-preset ericw: the floor under the sun %g, want 200", fl);
    free(m);
    lit_free(&a);
    lit_free(&b);
}

/* qrad3's surface light (lightmap.c emit_surface, patches.c DicePatch): a
 * light face cut on the 64-unit grid, each piece a point a unit in front of
 * its centre giving value x 0.5 (reflectivity without the texture) x 0.4
 * (-direct) x area x cos x cos / d^2. A 64 x 64 light centred on the origin
 * is cut into four 32 x 32 pieces; 46 units under it the floor gets
 * 4 x 80 x 1024 x (46 / sqrt(2628))^2 / 2628 = 100.4, a byte of 100, as the
 * qrad3 binary writes on this map; the exact polygon (qrad's own) gives 92. */
static void test_preset_qrad3_surface_points(void **state)
{
    (void)state;
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"worldspawn\"\n");
    mw_room(&w, vec3(-256, -256, 0), vec3(256, 256, 64), NULL, 0, NULL, 0);
    mw_box_tex(&w, vec3(-32, -32, 48), vec3(32, 32, 64), "test/light", SURF_LIGHT, 400, -1, NULL, 0, 0);
    mw_printf(&w, "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"100 100 32\"\n}\n");
    lit_t a;
    light_prog("q3points", w.buf, "-preset qrad3 -bounce 0", &a);
    double d2 = 2 * 16 * 16 + 46 * 46, want = floor(4 * 400 * 0.5 * 0.4 * 1024 * (46 * 46 / d2) / d2);
    double got = luxel(&a, 0, vec3(0, 0, 0), UP, 0);
    if (fabs(got - want) > 1) fail_msg("-preset qrad3: the floor under a light face %g, qrad3's point pieces %g", got, want);
    free(w.buf);
    lit_free(&a);
}

/* qrad3 writes every channel at least 1 and cuts its floats to bytes: a
 * room without light is 1 everywhere (0 without the preset). */
static void test_preset_qrad3_bytes(void **state)
{
    (void)state;
    char *m = room_map(NULL, NULL, NULL, 0, NULL, 0);
    lit_t a, b;
    light_prog("q3dark", m, "-preset qrad3 -bounce 0", &a);
    light_prog("q3dark0", m, "-bounce 0", &b);
    int lo, hi;
    luxel_range(&a, 0, 1, &lo, &hi);
    if (lo != 1 || hi != 1) fail_msg("-preset qrad3: a dark room's luxels %d..%d, qrad3 writes 1", lo, hi);
    luxel_range(&b, 0, 1, &lo, &hi);
    if (lo != 0 || hi != 0) fail_msg("no preset: a dark room's luxels %d..%d, want 0", lo, hi);
    free(m);
    lit_free(&a);
    lit_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_preset_qrad3_keys),
        cmocka_unit_test(test_preset_ericw_arghrad_keys),
        cmocka_unit_test(test_preset_ericw_sun_needs_light),
        cmocka_unit_test(test_preset_ericw_dome),
        cmocka_unit_test(test_preset_qrad3_light_face),
        cmocka_unit_test(test_preset_ericw_style_order),
        cmocka_unit_test(test_preset_ericw_sun_grazing),
        cmocka_unit_test(test_preset_qrad3_surface_points),
        cmocka_unit_test(test_preset_qrad3_bytes),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
