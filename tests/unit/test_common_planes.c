/* The plane table: deduplication within NORMAL_EPSILON/DIST_EPSILON, pairs
 * stored as i and i^1 with opposite orientation, the even plane facing
 * positive, and axial snapping. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../common/planes.h"
#include "test_util.h"

static int dominant_axis(vec3_t n)
{
    double ax = fabs(n.x), ay = fabs(n.y), az = fabs(n.z);
    return ax >= ay && ax >= az ? 0 : ay >= az ? 1 : 2;
}

static void test_pairs_and_dedup(void **state)
{
    plane_table_t t;
    plane_table_init(&t);
    uint32_t s = 4242;
    enum { N = 3000 };
    static int idx[N];
    static vec3_t normals[N];
    static double dists[N];
    for (int i = 0; i < N; i++) {
        vec3_t n = tu_random_unit(&s);
        if (i % 10 == 0) n = vec3(0, 0, i % 20 ? 1 : -1);
        double d = (i % 3 == 0) ? floor(tu_frand(&s, -4000, 4000)) : tu_frand(&s, -4000, 4000);
        /* Distances snap to integers within DIST_EPSILON, so a plane just
         * outside that band and one nudged into it are rightly different;
         * keep the random ones clear of the band's edge. */
        if (d != floor(d) && fabs(d - floor(d + 0.5)) < 3 * DIST_EPSILON) d += 5 * DIST_EPSILON;
        normals[i] = n;
        dists[i] = d;
        idx[i] = plane_table_find(&t, n, d);
        assert_true(idx[i] >= 0 && idx[i] < t.count);
        const plane_t *p = plane_table_get(&t, idx[i]);
        assert_true(vec_equal_eps(p->normal, n, NORMAL_EPSILON));
        assert_true(fabs(p->dist - d) <= DIST_EPSILON);
    }
    assert_int_equal(t.count % 2, 0);
    for (int i = 0; i < t.count; i += 2) {
        const plane_t *a = plane_table_get(&t, i), *b = plane_table_get(&t, i + 1);
        /* i^1 is the opposite plane */
        assert_true(vec_equal_eps(a->normal, vec_neg(b->normal), 0));
        assert_true(a->dist == -b->dist);
        /* the even plane faces positive along its dominant axis */
        assert_true(vec_comp(a->normal, dominant_axis(a->normal)) > 0);
        assert_int_equal(a->type, plane_type_for_normal(a->normal));
        assert_int_equal(a->type, b->type);
    }
    for (int i = 0; i < N; i++) {
        /* The same plane again, nudged well inside the epsilons, and its
         * opposite. */
        vec3_t n = vec_add(normals[i], vec3(NORMAL_EPSILON * 0.1, -NORMAL_EPSILON * 0.1, 0));
        n = vec_normalize(n, NULL);
        int again = plane_table_find(&t, n, dists[i] + DIST_EPSILON * 0.1);
        if (again != idx[i]) fail_msg("plane %d (%.17g %.17g %.17g, %.17g) found again as %d, first %d", i, normals[i].x, normals[i].y, normals[i].z, dists[i], again, idx[i]);
        assert_int_equal(plane_table_find(&t, vec_neg(normals[i]), -dists[i]), idx[i] ^ 1);
    }
    int before = t.count;
    /* Clearly different distances make new planes. */
    for (int i = 0; i < 100; i++) {
        int k = plane_table_find(&t, normals[i], dists[i] + 10 * DIST_EPSILON + 0.5);
        assert_true(k != idx[i] && k != (idx[i] ^ 1));
    }
    assert_true(t.count > before);
    /* Bad normals are refused. */
    assert_int_equal(plane_table_find(&t, vec3(0, 0, 2), 0), -1);
    assert_int_equal(plane_table_find(&t, vec3(NAN, 0, 1), 0), -1);
    assert_int_equal(plane_table_find(&t, vec3(0, 0, 1), INFINITY), -1);
    /* Finite but absurd distances are stored and found again, without
     * overflowing the hash. */
    int far = plane_table_find(&t, vec3(0, 0, 1), 1e300);
    assert_true(far >= 0);
    assert_int_equal(plane_table_find(&t, vec3(0, 0, -1), -1e300), far ^ 1);
    plane_table_free(&t);
}

static void test_snapping(void **state)
{
    plane_table_t t;
    plane_table_init(&t);
    /* Nearly axial normals and nearly integer distances snap, so planes made
     * from the same integer points meet exactly. */
    vec3_t n = vec_normalize(vec3(NORMAL_EPSILON * 0.01, 0, 1), NULL);
    int a = plane_table_find(&t, n, 64.001);
    const plane_t *p = plane_table_get(&t, a);
    assert_true(p->normal.x == 0 && p->normal.y == 0 && p->normal.z == 1);
    assert_true(p->dist == 64);
    assert_int_equal(p->type, PLANE_Z);
    assert_int_equal(a % 2, 0);
    int b = plane_table_find(&t, vec3(0, 0, -1), -64);
    assert_int_equal(b, a ^ 1);
    /* -X: the even plane of its pair is +X. */
    int c = plane_table_find(&t, vec3(-1, 0, 0), 32);
    assert_int_equal(c % 2, 1);
    assert_true(plane_table_get(&t, c ^ 1)->normal.x == 1 && plane_table_get(&t, c ^ 1)->dist == -32);
    plane_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_and_dedup),
        cmocka_unit_test(test_snapping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
