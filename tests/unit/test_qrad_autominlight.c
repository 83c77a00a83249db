/* ericw-tools' autominlight under -preset ericw (qrad/autominlight.c,
 * docs/qrad.md "What each preset reads"): a func_wall box sunk 12 units
 * into the floor of a room, a light of 300 (linear) straight above the
 * middle of the box's bounds. The box's bottom face lies in the floor's
 * solid, where no light reaches; ericw-tools gives such luxels the light
 * at the model's centre, here the light's full value along the axis
 * (300 - 160 = 140). Each map is compiled by the qbsp program and lit by
 * the qrad program (Q2MAP_TEST_QRAD_BIN runs another build's qrad). */
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
static const vec3_t EAST = {1, 0, 0};

/* The centre of the box's bounds, (0 0 20), is 160 below the light. */
#define CENTRE_LIGHT 140.0

/* The room with the sunk box (a func_wall with these extra keys). */
static char *sunk_box(const char *keys)
{
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 180\"\n\"light\" \"300\"\n}\n");
    mw_printf(&w, "{\n\"classname\" \"func_wall\"\n%s", keys ? keys : "");
    mw_box(&w, vec3(-32, -32, -12), vec3(32, 32, 52), "test/wall");
    mw_printf(&w, "}\n");
    char *m = room_map(NULL, w.buf, NULL, 0, NULL, 0);
    free(w.buf);
    return m;
}

/* Default (no key): only the luxels in solid take the centre's light. */
static void test_autominlight_occluded(void **state)
{
    (void)state;
    char *m = sunk_box(NULL);
    lit_t a, b;
    light_prog("amdef", m, "-preset ericw -bounce 0", &a);
    light_prog("amdef0", m, "-bounce 0", &b);
    double sunk = luxel(&a, 1, vec3(0, 0, -12), DOWN, -1);
    if (fabs(sunk - CENTRE_LIGHT) > 2)
        fail_msg("-preset ericw: the sunk bottom face got %g, the light at the model's centre is %g", sunk,
                 CENTRE_LIGHT);
    /* the side faces' luxels under the floor too, not those above it
     * (the light is behind their planes) */
    double side_sunk = luxel(&a, 1, vec3(32, 0, -12), EAST, -1), side_open = luxel(&a, 1, vec3(32, 0, 36), EAST, -1);
    if (fabs(side_sunk - CENTRE_LIGHT) > 2) fail_msg("a side face's luxel in the floor got %g", side_sunk);
    if (side_open > 2)
        fail_msg("a side face's luxel in the open got %g; the default raises only luxels in solid", side_open);
    double plain = luxel(&b, 1, vec3(0, 0, -12), DOWN, -1);
    if (plain > 2) fail_msg("without a preset the sunk face should stay dark: %g", plain);
    free(m);
    lit_free(&a);
    lit_free(&b);
}

/* "_autominlight" "1": every luxel of the model; "-1" and "0": none. */
static void test_autominlight_keys(void **state)
{
    (void)state;
    char *all = sunk_box("\"_autominlight\" \"1\"\n");
    char *off = sunk_box("\"_autominlight\" \"-1\"\n");
    char *zero = sunk_box("\"_autominlight\" \"0\"\n");
    lit_t a, b, c;
    light_prog("amall", all, "-preset ericw -bounce 0", &a);
    light_prog("amoff", off, "-preset ericw -bounce 0", &b);
    light_prog("amzero", zero, "-preset ericw -bounce 0", &c);
    double open = luxel(&a, 1, vec3(32, 0, 36), EAST, -1);
    if (fabs(open - CENTRE_LIGHT) > 2)
        fail_msg("_autominlight 1: an open side luxel got %g, want %g", open, CENTRE_LIGHT);
    double s1 = luxel(&b, 1, vec3(0, 0, -12), DOWN, -1), s2 = luxel(&c, 1, vec3(0, 0, -12), DOWN, -1);
    if (s1 > 2 || s2 > 2) fail_msg("_autominlight -1 / 0 should keep the sunk face dark: %g / %g", s1, s2);
    free(all);
    free(off);
    free(zero);
    lit_free(&a);
    lit_free(&b);
    lit_free(&c);
}

/* "_autominlight_target": the sample is taken at that entity's origin
 * instead (100 below the light: 200). */
static void test_autominlight_target(void **state)
{
    (void)state;
    mw_t w = {0};
    mw_printf(&w, "\"_autominlight_target\" \"here\"\n");
    char *m = sunk_box(w.buf);
    free(w.buf);
    mw_t t = {0};
    mw_printf(&t, "%s{\n\"classname\" \"info_null\"\n\"targetname\" \"here\"\n\"origin\" \"0 0 80\"\n}\n", m);
    lit_t a;
    light_prog("amtarget", t.buf, "-preset ericw -bounce 0", &a);
    double sunk = luxel(&a, 1, vec3(0, 0, -12), DOWN, -1);
    if (fabs(sunk - 200) > 2)
        fail_msg("_autominlight_target: the sunk face got %g, the light at the target is 200", sunk);
    free(m);
    free(t.buf);
    lit_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_autominlight_occluded),
        cmocka_unit_test(test_autominlight_keys),
        cmocka_unit_test(test_autominlight_target),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
