/* qbsp's allocation-free clipping helpers against the library routines
 * they stand in for: qbsp_chain_clip must give exactly winding_clip's
 * points (bit for bit: the .bsp depends on them) and qbsp_winding_tiny
 * exactly winding_is_tiny's answer, on polygons with points on, near and
 * across the planes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "../../common/winding.h"
#include "../../qbsp/csg.h"

/* A fixed xorshift sequence: the same cases on every run. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double rng_unit(uint64_t *s) { return (double)(rng_next(s) >> 11) / 9007199254740992.0; }

static int rng_int(uint64_t *s, int lo, int hi) { return lo + (int)(rng_next(s) % (uint64_t)(hi - lo + 1)); }

/* Axial planes at whole units half of the time (points land exactly on
 * them), otherwise a slanted plane through a whole-unit point. */
static void random_plane(uint64_t *s, vec3_t *n, double *d)
{
    if (rng_next(s) & 1) {
        int axis = rng_int(s, 0, 2);
        *n = vec3(0, 0, 0);
        vec_set_comp(n, axis, (rng_next(s) & 1) ? 1.0 : -1.0);
        *d = rng_int(s, -64, 64) * vec_comp(*n, axis);
        return;
    }
    vec3_t v = vec3(rng_unit(s) * 2 - 1, rng_unit(s) * 2 - 1, rng_unit(s) * 2 - 1);
    if (vec_len(v) < 0.1) v = vec3(1, 2, 3);
    *n = vec_normalize(v, NULL);
    vec3_t through = vec3(rng_int(s, -64, 64), rng_int(s, -64, 64), rng_int(s, -64, 64));
    *d = vec_dot(*n, through);
}

/* A convex polygon: a plane's square cut by a few planes. */
static winding_t *random_polygon(uint64_t *s)
{
    for (;;) {
        vec3_t n;
        double d;
        random_plane(s, &n, &d);
        winding_t *w = winding_for_plane(n, d, 256);
        int cuts = rng_int(s, 0, 6);
        for (int i = 0; i < cuts && w; i++) {
            vec3_t cn;
            double cd;
            random_plane(s, &cn, &cd);
            w = winding_clip(w, cn, cd, 0, false);
        }
        if (w && w->numpoints >= 3) return w;
        winding_free(w);
    }
}

static bool same_winding(const winding_t *a, const winding_t *b)
{
    if (!a || !b) return a == b;
    return a->numpoints == b->numpoints && memcmp(a->p, b->p, sizeof(vec3_t) * (size_t)a->numpoints) == 0;
}

static void test_chain_clip_matches_winding_clip(void **state)
{
    (void)state;
    static const double eps[] = {0, 0.001, 0.01, 0.1};
    uint64_t s = 0x9e3779b97f4a7c15ull;
    int cut = 0, kept = 0, dropped = 0;
    for (int iter = 0; iter < 4000; iter++) {
        winding_t *w = random_polygon(&s);
        vec3_t n;
        double d;
        if (iter % 10 == 0) {
            /* The polygon's own plane, either way: the keep_on case. */
            winding_plane(w, &n, &d);
            if (iter % 20 == 0) {
                n = vec_neg(n);
                d = -d;
            }
        } else {
            random_plane(&s, &n, &d);
        }
        double e = eps[rng_int(&s, 0, 3)];
        bool keep_on = rng_next(&s) & 1;
        winding_t *ref = winding_clip(winding_copy(w), n, d, e, keep_on);
        winding_t *got = qbsp_chain_clip(qbsp_chain_copy(w), n, d, e, keep_on);
        assert_true(same_winding(ref, got));
        if (!ref)
            dropped++;
        else if (ref->numpoints != w->numpoints || memcmp(ref->p, w->p, sizeof(vec3_t) * (size_t)w->numpoints))
            cut++;
        else
            kept++;
        /* Fitting keeps the points and drops the spare room. */
        winding_t *fit = qbsp_chain_fit(got);
        assert_true(same_winding(ref, fit));
        if (fit) assert_int_equal(fit->maxpoints, fit->numpoints);
        winding_free(ref);
        winding_free(fit);
        winding_free(w);
    }
    /* The cases cover all three outcomes. */
    assert_true(cut > 100);
    assert_true(kept > 100);
    assert_true(dropped > 100);
}

static void test_chain_clip_sequence(void **state)
{
    (void)state;
    /* A brush-side style chain: one square cut by many planes in turn,
     * growing past the initial room. */
    uint64_t s = 12345;
    for (int iter = 0; iter < 500; iter++) {
        vec3_t n;
        double d;
        random_plane(&s, &n, &d);
        winding_t *ref = winding_for_plane(n, d, 4096);
        winding_t *got = qbsp_chain_start(winding_for_plane(n, d, 4096));
        /* Planes tangent to a circle around the square's centre: each cut
         * adds a corner, so the polygon outgrows the chain's spare room. */
        vec3_t c = vec_scale(n, d);
        vec3_t u = vec_normalize(vec_cross(n, fabs(n.z) < 0.9 ? vec3(0, 0, 1) : vec3(1, 0, 0)), NULL);
        vec3_t v = vec_cross(n, u);
        int cuts = rng_int(&s, 8, 40);
        for (int i = 0; i < cuts && ref; i++) {
            double a = 2 * M_PI * i / cuts;
            vec3_t out = vec_add(vec_scale(u, cos(a)), vec_scale(v, sin(a)));
            vec3_t cn = vec_neg(out);
            double cd = vec_dot(cn, vec_ma(c, 200.0, out));
            ref = winding_clip(ref, cn, cd, ON_EPSILON, false);
            got = qbsp_chain_clip(got, cn, cd, ON_EPSILON, false);
            assert_true(same_winding(ref, got));
        }
        winding_free(ref);
        winding_free(got);
    }
}

static void test_tiny_matches(void **state)
{
    (void)state;
    uint64_t s = 777;
    int tiny = 0, big = 0;
    for (int iter = 0; iter < 3000; iter++) {
        winding_t *w = random_polygon(&s);
        /* Shrink towards the first point by up to 1e-6 so both answers
         * occur, with slivers near the threshold. */
        double k = iter % 3 == 0 ? pow(10.0, -rng_unit(&s) * 7) : 1.0;
        for (int i = 1; i < w->numpoints; i++) w->p[i] = vec_ma(w->p[0], k, vec_sub(w->p[i], w->p[0]));
        if (iter % 7 == 0 && w->numpoints > 3) w->p[2] = vec_lerp(w->p[1], w->p[3], 0.5); /* a collinear point */
        bool ref = winding_is_tiny(w);
        assert_int_equal(qbsp_winding_tiny(w), ref);
        if (ref)
            tiny++;
        else
            big++;
        winding_free(w);
    }
    assert_true(tiny > 50);
    assert_true(big > 50);
    winding_t *two = winding_alloc(2);
    two->numpoints = 2;
    two->p[0] = vec3(0, 0, 0);
    two->p[1] = vec3(1, 0, 0);
    assert_true(qbsp_winding_tiny(two));
    winding_free(two);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_clip_matches_winding_clip),
        cmocka_unit_test(test_chain_clip_sequence),
        cmocka_unit_test(test_tiny_matches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
