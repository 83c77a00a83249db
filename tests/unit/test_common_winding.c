/* Winding properties on pseudo-random convex polygons and planes: splitting
 * conserves area, pieces lie on the right side and are valid windings, and
 * winding_check rejects what is not a convex planar polygon. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../common/winding.h"
#include "test_util.h"

/* A random convex polygon: a big square on a random plane through a point
 * near the origin, cut by a few random planes through nearby points. */
static winding_t *random_polygon(uint32_t *s)
{
    vec3_t n = tu_random_unit(s);
    if (tu_xorshift(s) % 4 == 0) n = vec3(0, 0, (tu_xorshift(s) & 1) ? 1 : -1); /* some axial ones */
    double d = tu_frand(s, -500, 500);
    winding_t *w = winding_for_plane(n, d, 2000);
    vec3_t c = vec_scale(n, d);
    for (int k = 0; k < 5 && w; k++) {
        vec3_t cn = tu_random_unit(s);
        vec3_t p = vec_add(c, vec3(tu_frand(s, -300, 300), tu_frand(s, -300, 300), tu_frand(s, -300, 300)));
        winding_t *clipped = winding_clip(winding_copy(w), cn, vec_dot(cn, p) - 400, ON_EPSILON, false);
        if (clipped && !winding_is_tiny(clipped)) {
            winding_free(w);
            w = clipped;
        } else if (clipped) {
            winding_free(clipped);
        }
    }
    return w;
}

static void test_for_plane_is_valid(void **state)
{
    uint32_t s = 99;
    for (int i = 0; i < 200; i++) {
        vec3_t n = tu_random_unit(&s);
        double d = tu_frand(&s, -4000, 4000);
        winding_t *w = winding_for_plane(n, d, 8192);
        q2err_t err;
        if (!winding_check(w, &err)) fail_msg("winding_for_plane %d: %s", i, err.msg);
        vec3_t wn;
        double wd;
        winding_plane(w, &wn, &wd);
        /* Clockwise from the front: the winding's own plane is the one asked for. */
        assert_true(vec_equal_eps(wn, n, 1e-9));
        assert_true(fabs(wd - d) < 1e-6);
        winding_t *r = winding_reverse(w);
        assert_true(winding_check(r, &err));
        winding_plane(r, &wn, &wd);
        assert_true(vec_equal_eps(wn, vec_neg(n), 1e-9));
        assert_true(fabs(winding_area(r) - winding_area(w)) < 1e-6 * winding_area(w));
        winding_free(r);
        winding_free(w);
    }
}

static void test_split_properties(void **state)
{
    uint32_t s = 12345;
    int splits = 0, crossing = 0;
    for (int i = 0; i < 300; i++) {
        winding_t *w = random_polygon(&s);
        q2err_t err;
        if (!winding_check(w, &err)) fail_msg("polygon %d: %s", i, err.msg);
        double area = winding_area(w);
        aabb_t bb = winding_bounds(w);
        vec3_t center = winding_center(w);
        assert_true(center.x >= bb.mins.x - 1e-9 && center.x <= bb.maxs.x + 1e-9);
        for (int j = 0; j < 20; j++) {
            vec3_t n = tu_random_unit(&s);
            if (j % 5 == 0) n = vec3(0, j % 2 ? 1 : -1, 0);
            /* Planes through a point of the polygon's box, so most cross it. */
            vec3_t p = vec_lerp(bb.mins, bb.maxs, tu_frand(&s, 0, 1));
            double dist = vec_dot(n, p);
            winding_t *f, *b;
            winding_split(w, n, dist, ON_EPSILON, &f, &b);
            splits++;
            double fa = f ? winding_area(f) : 0, ba = b ? winding_area(b) : 0;
            if (fabs(fa + ba - area) > 1e-6 * area + 1e-6)
                fail_msg("polygon %d plane %d: areas %g + %g != %g", i, j, fa, ba, area);
            if (f) {
                for (int k = 0; k < f->numpoints; k++)
                    assert_true(vec_dot(f->p[k], n) - dist >= -ON_EPSILON);
                if (!winding_is_tiny(f) && !winding_check(f, &err))
                    fail_msg("polygon %d plane %d front: %s", i, j, err.msg);
            }
            if (b) {
                for (int k = 0; k < b->numpoints; k++)
                    assert_true(vec_dot(b->p[k], n) - dist <= ON_EPSILON);
                if (!winding_is_tiny(b) && !winding_check(b, &err))
                    fail_msg("polygon %d plane %d back: %s", i, j, err.msg);
            }
            int side = winding_on_side(w, n, dist, ON_EPSILON);
            if (side == SIDE_CROSS) {
                crossing++;
                assert_non_null(f);
                assert_non_null(b);
            }
            if (side == SIDE_FRONT) assert_null(b);
            if (side == SIDE_BACK) assert_null(f);
            /* Clip keeps exactly the front piece. */
            winding_t *c = winding_clip(winding_copy(w), n, dist, ON_EPSILON, false);
            if (f && side != SIDE_ON) {
                assert_non_null(c);
                assert_true(fabs(winding_area(c) - fa) <= 1e-9 * area + 1e-9);
            }
            if (c) winding_free(c);
            if (f) winding_free(f);
            if (b) winding_free(b);
        }
        winding_free(w);
    }
    print_message("%d splits, %d crossing\n", splits, crossing);
    assert_true(crossing > splits / 4);
}

static void test_check_rejects(void **state)
{
    q2err_t err;
    /* A dart (non-convex quadrilateral) on z = 0, clockwise from above. */
    winding_t *w = winding_alloc(4);
    w->numpoints = 4;
    w->p[0] = vec3(0, 0, 0);
    w->p[1] = vec3(0, 100, 0);
    w->p[2] = vec3(100, 0, 0);
    w->p[3] = vec3(20, 20, 0);
    assert_false(winding_check(w, &err));
    /* A convex square passes; lifting one corner off the plane fails. */
    w->p[3] = vec3(100, 100, 0);
    w->p[2] = vec3(100, 0, 0);
    w->p[1] = vec3(100, 100, 0);
    w->p[1] = vec3(0, 100, 0);
    w->p[2] = vec3(100, 100, 0);
    w->p[3] = vec3(100, 0, 0);
    assert_true(winding_check(w, &err));
    w->p[2].z = 5;
    assert_false(winding_check(w, &err));
    w->p[2].z = NAN;
    assert_false(winding_check(w, &err));
    /* Two points: not a polygon. */
    w->p[2].z = 0;
    w->numpoints = 2;
    assert_false(winding_check(w, &err));
    winding_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_for_plane_is_valid),
        cmocka_unit_test(test_split_properties),
        cmocka_unit_test(test_check_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
