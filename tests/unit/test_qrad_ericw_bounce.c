/* -preset ericw's bounce against ericw-tools' light (2.0.0-alpha11): a
 * closed room lit by one light in a corner, whose far corner only the
 * bounce reaches. The map is written here, compiled by the qbsp program and
 * lit by the qrad program (Q2MAP_TEST_QRAD_BIN runs another build's qrad on
 * the same bsp); the figures of ericw-tools' light were measured once by
 * relighting this bsp with it (no textures, as here). */
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

static const char CORNER_LIGHT[] = "{\n\"classname\" \"light\"\n\"origin\" \"-200 -200 64\"\n\"light\" \"500\"\n}\n";

/* The far corner of the floor is 570 units from the light, beyond its
 * linear falloff: all its light is bounced. ericw-tools' light gave it 8
 * and the room's centre 164 (with -bounce 0: 0 and 127); qrad's own
 * radiosity at the preset's scale of 0.425 gave 5 and 150, one bounce
 * light per face (bouncelights.c) 8 and 165. */
static void test_ericw_bounce_far_corner(void **state)
{
    (void)state;
    char *m = room_map(NULL, CORNER_LIGHT, NULL, 0, NULL, 0);
    lit_t a, b;
    light_prog("ewbounce", m, "-preset ericw", &a);
    light_prog("ewbounce0", m, "-preset ericw -bounce 0", &b);
    double far = luxel(&a, 0, vec3(200, 200, 0), UP, -1), far0 = luxel(&b, 0, vec3(200, 200, 0), UP, -1);
    double mid = luxel(&a, 0, vec3(0, 0, 0), UP, -1), mid0 = luxel(&b, 0, vec3(0, 0, 0), UP, -1);
    /* ericw-tools' light: far 8, centre 164 (127 without the bounce) */
    if (far0 != 0) fail_msg("the far corner gets direct light: %g", far0);
    if (fabs(far - 8) > 1.5) fail_msg("the far corner's bounced light is %g, ericw-tools' light gives 8", far);
    if (fabs((mid - mid0) - 37) > 3)
        fail_msg("the centre's bounced light is %g (%g - %g), ericw-tools' light gives 37 (164 - 127)", mid - mid0, mid, mid0);
    free(m);
    lit_free(&a);
    lit_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ericw_bounce_far_corner),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
