/* Analytic tests of qrad's lighting on hand-built bsps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounce.h"
#include "direct.h"
#include "qrad.h"
#include "test_qrad_util.h"
#include "trace.h"

static log_t quiet_log(void)
{
    log_t log;
    log_init(&log, LOG_QUIET, stdout, stderr);
    return log;
}

static qrad_opts_t test_opts(void)
{
    qrad_opts_t o;
    qrad_opts_default(&o);
    o.bounce = 0;
    o.maxlight = 255;
    return o;
}

static void run_ok(tb_t *b, const qrad_opts_t *o)
{
    log_t log = quiet_log();
    q2err_t err;
    bool ok = qrad_run(&b->bsp, o, NULL, &log, NULL, NULL, &err);
    if (!ok) fprintf(stderr, "qrad_run: %s\n", err.msg);
    assert_true(ok);
}

/* qrad3's point light: (intensity - distance) * cos(angle at the surface). */
static double expected_linear(double intensity, vec3_t light, vec3_t p, vec3_t n)
{
    double d;
    vec3_t dir = vec_normalize(vec_sub(light, p), &d);
    double v = (intensity - d) * vec_dot(dir, n);
    return v > 0 ? v : 0;
}

static void test_point_falloff(void **state)
{
    (void)state;
    tb_t b;
    tb_init(&b);
    int floor = tb_axial(&b, 2, 0, +1, vec3(-512, -512, 0), vec3(512, 512, 0), 0, 0, NULL);
    tb_entities(&b, "{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"light\"\n\"origin\" \"8 -24 80\"\n"
                    "\"light\" \"300\"\n}\n");
    qrad_opts_t o = test_opts();
    run_ok(&b, &o);
    face_extents_t e;
    assert_true(bsp_face_extents(&b.bsp, floor, &e, NULL));
    assert_int_equal(b.bsp.faces[floor].styles[0], 0);
    assert_int_equal(b.bsp.faces[floor].styles[1], 255);
    int checked = 0, lit = 0;
    for (int j = 0; j < e.size[1]; j++)
        for (int i = 0; i < e.size[0]; i++) {
            double x = e.texturemins[0] + i * 16.0, y = e.texturemins[1] + j * 16.0;
            if (fabs(x) > 480 || fabs(y) > 480) continue; /* away from the clamped border */
            double want = expected_linear(300, vec3(8, -24, 80), vec3(x, y, SAMPLE_NUDGE), vec3(0, 0, 1));
            const uint8_t *px = tb_luxel(&b.bsp, floor, 0, i, j);
            for (int c = 0; c < 3; c++) {
                if (fabs(px[c] - want) > 2.0)
                    fail_msg("luxel (%g,%g): %d, expected %.2f", x, y, px[c], want);
            }
            checked++;
            lit += want > 10;
        }
    assert_true(checked > 1000);
    assert_true(lit > 50);
    tb_free(&b);
}

/* Does the segment p-q pass through the box [lo, hi]? */
static bool seg_hits_box(vec3_t p, vec3_t q, vec3_t lo, vec3_t hi)
{
    double t0 = 0, t1 = 1;
    for (int ax = 0; ax < 3; ax++) {
        double a = vec_comp(p, ax), d = vec_comp(q, ax) - a;
        double l = vec_comp(lo, ax), h = vec_comp(hi, ax);
        if (fabs(d) < 1e-12) {
            if (a < l || a > h) return false;
            continue;
        }
        double ta = (l - a) / d, tb = (h - a) / d;
        if (ta > tb) {
            double t = ta;
            ta = tb;
            tb = t;
        }
        t0 = ta > t0 ? ta : t0;
        t1 = tb < t1 ? tb : t1;
        if (t0 > t1) return false;
    }
    return true;
}

static void add_box(tb_t *b, vec3_t lo, vec3_t hi)
{
    for (int ax = 0; ax < 3; ax++) {
        tb_axial(b, ax, vec_comp(lo, ax), -1, lo, hi, 0, 0, NULL);
        tb_axial(b, ax, vec_comp(hi, ax), +1, lo, hi, 0, 0, NULL);
    }
}

static void test_occluder_shadow(void **state)
{
    (void)state;
    tb_t b;
    tb_init(&b);
    int floor = tb_axial(&b, 2, 0, +1, vec3(-384, -384, 0), vec3(384, 384, 0), 0, 0, NULL);
    vec3_t blo = vec3(-40, -24, 96), bhi = vec3(24, 40, 112);
    add_box(&b, blo, bhi);
    vec3_t light = vec3(0, 0, 200);
    tb_entities(&b, "{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"light\"\n\"origin\" \"0 0 200\"\n"
                    "\"light\" \"400\"\n}\n");
    qrad_opts_t o = test_opts();
    run_ok(&b, &o);
    face_extents_t e;
    assert_true(bsp_face_extents(&b.bsp, floor, &e, NULL));
    int shadowed = 0, lit = 0;
    for (int j = 0; j < e.size[1]; j++)
        for (int i = 0; i < e.size[0]; i++) {
            double x = e.texturemins[0] + i * 16.0, y = e.texturemins[1] + j * 16.0;
            if (fabs(x) > 360 || fabs(y) > 360) continue;
            vec3_t p = vec3(x, y, SAMPLE_NUDGE);
            const uint8_t *px = tb_luxel(&b.bsp, floor, 0, i, j);
            /* Skip the ambiguous rim: a unit either way of the box. */
            bool in = seg_hits_box(p, light, vec_add(blo, vec3(1, 1, 1)), vec_sub(bhi, vec3(1, 1, 1)));
            bool out = !seg_hits_box(p, light, vec_sub(blo, vec3(1, 1, 1)), vec_add(bhi, vec3(1, 1, 1)));
            if (in) {
                if (px[0] != 0) fail_msg("luxel (%g,%g) should be in shadow, has %d", x, y, px[0]);
                shadowed++;
            } else if (out) {
                double want = expected_linear(400, light, p, vec3(0, 0, 1));
                if (fabs(px[0] - want) > 2.0) fail_msg("luxel (%g,%g): %d, expected %.2f", x, y, px[0], want);
                lit += want > 1;
            }
        }
    assert_true(shadowed >= 16);
    assert_true(lit > 100);
    tb_free(&b);
}

/* A light on one side of a wall must not reach a floor on the other side,
 * even though that floor's lightmap grid starts under the wall. */
static void test_no_leak_through_wall(void **state)
{
    (void)state;
    tb_t b;
    tb_init(&b);
    tb_axial(&b, 2, 0, +1, vec3(-256, -128, 0), vec3(0, 128, 0), 0, 0, NULL);
    int floor_b = tb_axial(&b, 2, 0, +1, vec3(12, -128, 0), vec3(268, 128, 0), 0, 0, NULL);
    /* The wall x in [0, 12], z in [0, 256]. */
    tb_axial(&b, 0, 0, -1, vec3(0, -128, 0), vec3(0, 128, 256), 0, 0, NULL);
    tb_axial(&b, 0, 12, +1, vec3(12, -128, 0), vec3(12, 128, 256), 0, 0, NULL);
    tb_entities(&b, "{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"light\"\n\"origin\" \"-24 0 40\"\n"
                    "\"light\" \"300\"\n}\n");
    qrad_opts_t o = test_opts();
    run_ok(&b, &o);
    face_extents_t e;
    assert_true(bsp_face_extents(&b.bsp, floor_b, &e, NULL));
    assert_true(e.texturemins[0] < 12); /* the grid does start under the wall */
    for (int j = 0; j < e.size[1]; j++)
        for (int i = 0; i < e.size[0]; i++) {
            const uint8_t *px = tb_luxel(&b.bsp, floor_b, 0, i, j);
            if (px[0] != 0) fail_msg("light leaked through the wall into luxel %d,%d: %d", i, j, px[0]);
        }
    tb_free(&b);
}

static void test_sealed_room_ambient(void **state)
{
    (void)state;
    for (int pass = 0; pass < 2; pass++) {
        tb_t b;
        tb_init(&b);
        vec3_t lo = vec3(-128, -96, 0), hi = vec3(160, 96, 144);
        tb_room(&b, lo, hi, 0, 0);
        tb_room_tree(&b, lo, hi);
        tb_entities(&b, "{\n\"classname\" \"worldspawn\"\n}\n");
        qrad_opts_t o = test_opts();
        o.bounce = 4;
        o.ambient = pass ? 37 : 0;
        run_ok(&b, &o);
        assert_true(b.bsp.lightdatasize > 0);
        for (int f = 0; f < b.bsp.numfaces; f++) {
            face_extents_t e;
            assert_true(bsp_face_extents(&b.bsp, f, &e, NULL));
            assert_true(b.bsp.faces[f].lightofs >= 0);
            for (int k = 0; k < e.size[0] * e.size[1] * 3; k++)
                assert_int_equal(b.bsp.lightdata[b.bsp.faces[f].lightofs + k], pass ? 37 : 0);
        }
        tb_free(&b);
    }
}

/* Every wall emits E and reflects r: the light arriving anywhere converges
 * to E / (1 - r). */
static void test_closed_box_converges(void **state)
{
    (void)state;
    tb_t b;
    tb_init(&b);
    vec3_t lo = vec3(0, 0, 0), hi = vec3(256, 256, 256);
    const int value = 200;
    tb_room(&b, lo, hi, SURF_LIGHT, value);
    tb_room_tree(&b, lo, hi);
    tb_entities(&b, "{\n\"classname\" \"worldspawn\"\n}\n");
    qrad_opts_t o = test_opts();
    o.chop = 32;
    o.bounce_rays = 256;
    const double r = 0.5;
    log_t log = quiet_log();
    q2err_t err;
    qrad_t q;
    assert_true(qrad_begin(&q, &b.bsp, &o, NULL, &log, &err));
    for (int f = 0; f < b.bsp.numfaces; f++) q.faces[f].reflect = vec3(r, r, r);
    assert_true(qrad_direct(&q, &err));
    const double E = value * 0.5 * o.direct * M_PI; /* 0.5: qrad3's reflectivity of a missing texture */
    /* Direct light alone: the five other walls fill the hemisphere. */
    for (int f = 0; f < b.bsp.numfaces; f++) {
        const rface_t *rf = &q.faces[f];
        for (int k = 0; k < rf->w * rf->h; k++)
            if (fabs(rf->light[k * 3] - E) > 0.03 * E) fail_msg("direct %g, expected %g", rf->light[k * 3], E);
    }
    assert_true(qrad_bounce_setup(&q, &err));
    qrad_bounce_solve(&q, 40);
    qrad_bounce_apply(&q);
    const double want = E / (1 - r);
    double worst = 0;
    for (int f = 0; f < b.bsp.numfaces; f++) {
        const rface_t *rf = &q.faces[f];
        for (int k = 0; k < rf->w * rf->h; k++) {
            double rel = fabs(rf->light[k * 3] - want) / want;
            if (rel > worst) worst = rel;
        }
    }
    if (worst > 0.03) fail_msg("worst relative error %.4f (want %.3f)", worst, want);
    /* Too few bounces must fall measurably short: the test can fail. */
    qrad_bounce_solve(&q, 1);
    double sum = 0;
    for (int pi = 0; pi < q.numpatches; pi++) sum += q.patches[pi].incident.x;
    assert_true(sum / q.numpatches + E < 0.9 * want);
    qrad_end(&q);
    tb_free(&b);
}

static void build_scene(tb_t *b)
{
    tb_init(b);
    vec3_t lo = vec3(-256, -256, 0), hi = vec3(256, 256, 256);
    tb_room(b, lo, hi, 0, 0);
    tb_room_tree(b, lo, hi);
    add_box(b, vec3(-32, -32, 64), vec3(32, 32, 96));
    tb_axial(b, 2, 255, -1, vec3(-64, -64, 255), vec3(64, 64, 255), SURF_LIGHT, 200, "test/lamp");
    tb_entities(b, "{\n\"classname\" \"worldspawn\"\n\"_sunlight2\" \"0\"\n}\n"
                   "{\n\"classname\" \"light\"\n\"origin\" \"100 -60 180\"\n\"light\" \"250\"\n\"_color\" \"255 128 64\"\n}\n"
                   "{\n\"classname\" \"light\"\n\"origin\" \"-120 90 40\"\n\"light\" \"200\"\n\"style\" \"32\"\n}\n");
}

static void test_threads_identical(void **state)
{
    (void)state;
    tb_t a, b;
    build_scene(&a);
    build_scene(&b);
    qrad_opts_t o = test_opts();
    o.bounce = 3;
    o.extra = true;
    o.threads = 1;
    run_ok(&a, &o);
    o.threads = 2;
    run_ok(&b, &o);
    assert_int_equal(a.bsp.lightdatasize, b.bsp.lightdatasize);
    assert_memory_equal(a.bsp.lightdata, b.bsp.lightdata, (size_t)a.bsp.lightdatasize);
    for (int f = 0; f < a.bsp.numfaces; f++) {
        assert_int_equal(a.bsp.faces[f].lightofs, b.bsp.faces[f].lightofs);
        assert_memory_equal(a.bsp.faces[f].styles, b.bsp.faces[f].styles, 4);
    }
    /* The styled light gives the floor a second style after style 0, and
     * offsets are allocated in face order. */
    assert_int_equal(a.bsp.faces[0].styles[0], 0);
    assert_int_equal(a.bsp.faces[0].styles[1], 32);
    int prev = -1;
    for (int f = 0; f < a.bsp.numfaces; f++) {
        assert_true(a.bsp.faces[f].lightofs > prev);
        prev = a.bsp.faces[f].lightofs;
    }
    tb_free(&a);
    tb_free(&b);
}

/* A face that runs into solid (a floor extending under the walls) gets
 * every sample moved into the open. */
static void test_samples_leave_solid(void **state)
{
    (void)state;
    tb_t b;
    tb_init(&b);
    vec3_t lo = vec3(0, 0, 0), hi = vec3(200, 200, 128);
    tb_room_tree(&b, lo, hi);
    int floor = tb_axial(&b, 2, 0, +1, vec3(-64, -64, 0), vec3(264, 264, 0), 0, 0, NULL);
    tb_entities(&b, "{\n\"classname\" \"worldspawn\"\n}\n");
    qrad_opts_t o = test_opts();
    log_t log = quiet_log();
    q2err_t err;
    qrad_t q;
    assert_true(qrad_begin(&q, &b.bsp, &o, NULL, &log, &err));
    /* the direct pass makes each face's samples on the rank that lights it */
    assert_null(q.faces[floor].samples);
    assert_true(qrad_direct(&q, &err));
    const rface_t *f = &q.faces[floor];
    int moved = 0;
    for (int k = 0; k < f->w * f->h; k++) {
        assert_false(qrad_point_solid(&b.bsp, f->samples[k]));
        double s = f->ext.texturemins[0] + (k % f->w) * 16.0, t = f->ext.texturemins[1] + (k / f->w) * 16.0;
        if (qrad_point_solid(&b.bsp, vec3(s, t, SAMPLE_NUDGE))) moved++;
    }
    assert_true(moved > 10); /* the unmoved grid really was in solid */
    qrad_end(&q);
    tb_free(&b);
}

/* The room [-256,256] x [-256,256] x [0,256] with a sky ceiling, and its
 * tree; returns the floor's face. */
static int sky_room(tb_t *b)
{
    tb_init(b);
    vec3_t lo = vec3(-256, -256, 0), hi = vec3(256, 256, 256);
    int floor = tb_axial(b, 2, 0, +1, lo, hi, 0, 0, NULL);
    tb_axial(b, 2, 256, -1, lo, hi, SURF_SKY, 0, "test/sky");
    for (int ax = 0; ax < 2; ax++) {
        tb_axial(b, ax, vec_comp(lo, ax), +1, lo, hi, 0, 0, NULL);
        tb_axial(b, ax, vec_comp(hi, ax), -1, lo, hi, 0, 0, NULL);
    }
    tb_room_tree(b, lo, hi);
    return floor;
}

/* A sun straight down through a sky ceiling: the floor gets intensity *
 * cos(0) except where a box shadows it; a spot light lights only its cone. */
static void test_sun_and_spot(void **state)
{
    (void)state;
    tb_t b;
    int floor = sky_room(&b);
    vec3_t blo = vec3(64, 64, 100), bhi = vec3(128, 128, 140);
    add_box(&b, blo, bhi);
    tb_entities(&b, "{\n\"classname\" \"worldspawn\"\n\"_sunlight\" \"150\"\n\"_sun_mangle\" \"0 -90 0\"\n}\n"
                    "{\n\"classname\" \"light_spot\"\n\"origin\" \"-128 -128 200\"\n\"light\" \"300\"\n"
                    "\"angle\" \"-2\"\n\"_cone\" \"20\"\n\"style\" \"5\"\n}\n");
    qrad_opts_t o = test_opts();
    run_ok(&b, &o);
    face_extents_t e;
    assert_true(bsp_face_extents(&b.bsp, floor, &e, NULL));
    assert_int_equal(b.bsp.faces[floor].styles[0], 0);
    assert_int_equal(b.bsp.faces[floor].styles[1], 5);
    int sunlit = 0, shadow = 0, cone_in = 0, cone_out = 0;
    double cosc = cos(20 * M_PI / 180);
    for (int j = 0; j < e.size[1]; j++)
        for (int i = 0; i < e.size[0]; i++) {
            double x = e.texturemins[0] + i * 16.0, y = e.texturemins[1] + j * 16.0;
            if (fabs(x) > 240 || fabs(y) > 240) continue;
            const uint8_t *px = tb_luxel(&b.bsp, floor, 0, i, j);
            if (x > 66 && x < 126 && y > 66 && y < 126) {
                assert_int_equal(px[0], 0);
                shadow++;
            } else if (x < 62 || x > 130 || y < 62 || y > 130) {
                if (abs(px[0] - 150) > 1) fail_msg("sunlit luxel (%g,%g): %d", x, y, px[0]);
                sunlit++;
            }
            const uint8_t *sp = tb_luxel(&b.bsp, floor, 1, i, j);
            vec3_t p = vec3(x, y, SAMPLE_NUDGE), l = vec3(-128, -128, 200);
            vec3_t d = vec_normalize(vec_sub(p, l), NULL);
            if (d.z < -cosc - 0.01) {
                double want = expected_linear(300, l, p, vec3(0, 0, 1));
                if (fabs(sp[0] - want) > 2) fail_msg("spot luxel (%g,%g): %d, expected %.2f", x, y, sp[0], want);
                cone_in++;
            } else if (d.z > -cosc + 0.01) {
                assert_int_equal(sp[0], 0);
                cone_out++;
            }
        }
    assert_true(sunlit > 500 && shadow >= 9 && cone_in >= 9 && cone_out > 500);
    tb_free(&b);
}

/* _sunlight2 through a sky ceiling: the floor's centre receives the dome
 * times the ceiling's form factor (a fixed 48-direction estimate, so 10%). */
static void test_sky_dome(void **state)
{
    (void)state;
    tb_t b;
    int floor = sky_room(&b);
    tb_entities(&b, "{\n\"classname\" \"worldspawn\"\n\"_sunlight2\" \"200\"\n}\n");
    qrad_opts_t o = test_opts();
    run_ok(&b, &o);
    face_extents_t e;
    assert_true(bsp_face_extents(&b.bsp, floor, &e, NULL));
    /* Point below the corner of an X by Y rectangle at height c, four times. */
    double c = 256 - SAMPLE_NUDGE, X = 256 / c, Y = X;
    double corner = (X / sqrt(1 + X * X) * atan(Y / sqrt(1 + X * X)) + Y / sqrt(1 + Y * Y) * atan(X / sqrt(1 + Y * Y))) /
                    (2 * M_PI);
    double want = 200 * 4 * corner;
    int ci = (0 - e.texturemins[0]) / 16, cj = (0 - e.texturemins[1]) / 16;
    const uint8_t *px = tb_luxel(&b.bsp, floor, 0, ci, cj);
    if (fabs(px[0] - want) > 0.1 * want) fail_msg("dome at the centre: %d, expected %.1f", px[0], want);
    /* Towards a wall the sky is smaller. */
    const uint8_t *edge = tb_luxel(&b.bsp, floor, 0, 1, cj);
    assert_true(edge[0] < px[0]);
    tb_free(&b);
}

/* A bsp without visibility data is lit anyway, and the log says so. */
static void test_no_vis_says_so(void **state)
{
    (void)state;
    tb_t b;
    tb_init(&b);
    tb_axial(&b, 2, 0, +1, vec3(-64, -64, 0), vec3(64, 64, 0), 0, 0, NULL);
    tb_entities(&b, "{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"light\"\n\"origin\" \"0 0 64\"\n}\n");
    char buf[4096] = {0};
    FILE *out = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(out);
    log_t log;
    log_init(&log, LOG_NORMAL, out, out);
    qrad_opts_t o = test_opts();
    q2err_t err;
    assert_true(qrad_run(&b.bsp, &o, NULL, &log, NULL, NULL, &err));
    fclose(out);
    assert_non_null(strstr(buf, "no visibility data"));
    assert_true(b.bsp.lightdatasize > 0);
    assert_true(tb_luxel(&b.bsp, 0, 0, 4, 4)[0] > 100);
    tb_free(&b);
}

/* Phong: a floor bending up by 20 degrees is lit continuously across the
 * bend with smoothing, and visibly not without it. */
static void test_phong_smooths_bend(void **state)
{
    (void)state;
    int diff[2];
    for (int pass = 0; pass < 2; pass++) {
        tb_t b;
        tb_init(&b);
        double a = 20 * M_PI / 180;
        vec3_t ca[4] = {vec3(-128, -64, 0), vec3(0, -64, 0), vec3(0, 64, 0), vec3(-128, 64, 0)};
        int fa = tb_quad(&b, ca, vec3(0, 0, 1), 0, 0, NULL);
        vec3_t far0 = vec3(128 * cos(a), -64, 128 * sin(a)), far1 = vec3(128 * cos(a), 64, 128 * sin(a));
        vec3_t cb[4] = {vec3(0, -64, 0), far0, far1, vec3(0, 64, 0)};
        int fb = tb_quad(&b, cb, vec3(-sin(a), 0, cos(a)), 0, 0, NULL);
        tb_entities(&b, "{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"light\"\n\"origin\" \"0 0 300\"\n"
                        "\"light\" \"500\"\n}\n");
        qrad_opts_t o = test_opts();
        o.smooth = pass ? 0 : 44;
        run_ok(&b, &o);
        face_extents_t ea;
        assert_true(bsp_face_extents(&b.bsp, fa, &ea, NULL));
        int ja = (0 - ea.texturemins[1]) / 16, ia = ea.size[0] - 1;
        face_extents_t eb;
        assert_true(bsp_face_extents(&b.bsp, fb, &eb, NULL));
        int jb = (0 - eb.texturemins[1]) / 16;
        diff[pass] = abs(tb_luxel(&b.bsp, fa, 0, ia, ja)[0] - tb_luxel(&b.bsp, fb, 0, 0, jb)[0]);
        tb_free(&b);
    }
    if (diff[0] > 2) fail_msg("smoothed bend differs by %d across the edge", diff[0]);
    /* (500 - 299) * (1 - cos 20) = 12 */
    if (diff[1] < 8) fail_msg("unsmoothed bend differs by only %d", diff[1]);
}

static void test_polygon_irradiance(void **state)
{
    (void)state;
    /* A huge square just above a point fills its hemisphere. */
    vec3_t big[4] = {vec3(-1e4, -1e4, 1), vec3(1e4, -1e4, 1), vec3(1e4, 1e4, 1), vec3(-1e4, 1e4, 1)};
    assert_true(fabs(polygon_irradiance(big, 4, vec3(0, 0, 0), vec3(0, 0, 1)) - 1.0) < 1e-3);
    /* A small far square: A cos cos / (pi d^2). */
    vec3_t sm[4] = {vec3(-1, -1, 100), vec3(1, -1, 100), vec3(1, 1, 100), vec3(-1, 1, 100)};
    double ff = polygon_irradiance(sm, 4, vec3(0, 0, 0), vec3(0, 0, 1));
    assert_true(fabs(ff - 4.0 / (M_PI * 1e4)) < 1e-6);
    /* Behind the receiver: nothing. */
    assert_true(polygon_irradiance(sm, 4, vec3(0, 0, 0), vec3(0, 0, -1)) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_point_falloff),      cmocka_unit_test(test_occluder_shadow),
        cmocka_unit_test(test_no_leak_through_wall), cmocka_unit_test(test_sealed_room_ambient),
        cmocka_unit_test(test_closed_box_converges), cmocka_unit_test(test_threads_identical),
        cmocka_unit_test(test_samples_leave_solid), cmocka_unit_test(test_polygon_irradiance),
        cmocka_unit_test(test_sun_and_spot),      cmocka_unit_test(test_sky_dome),
        cmocka_unit_test(test_no_vis_says_so),     cmocka_unit_test(test_phong_smooths_bend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
