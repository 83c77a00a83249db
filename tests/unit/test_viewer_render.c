/* qview's headless rendering on small compiled maps: the world loads, the
 * software renderer shows geometry and is independent of the thread count,
 * the GL renderer agrees with it, and the crack check finds nothing in a
 * sealed map but does find a face that is left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../viewer/cameras.h"
#include "../../viewer/checks.h"
#include "../../viewer/refexport.h"

#define W 160
#define H 120
#define NVIEWS 4
/* Bound on the mean absolute soft/GL difference per view, 0..255 units. */
#define MAX_MAE 4.0

static const char *const maps[] = {"id_q2_light_sun.bsp", "q2tools_q2_areaportal.bsp", "ericw_q2_liquids.bsp",
                                   "q2map_q2_detail.bsp"};
#define NMAPS (int)(sizeof maps / sizeof maps[0])

static void load(world_t *w, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/viewer/%s", Q2MAP_TEST_DATA, name);
    q2err_t err;
    q2err_clear(&err);
    bool ok = world_load(w, path, NULL, NULL, &err);
    if (!ok) fprintf(stderr, "%s\n", err.msg);
    assert_true(ok);
}

static void test_world_loads(void **state)
{
    (void)state;
    for (int m = 0; m < NMAPS; m++) {
        world_t w;
        load(&w, maps[m]);
        assert_true(w.numfaces > 10);
        assert_true(w.numclusters > 0);
        assert_true(w.numlitfaces > 0);
        assert_int_equal(w.numverts, w.faces[w.numfaces - 1].firstvert + w.faces[w.numfaces - 1].numverts);
        /* Every lightmap coordinate lies on the face's lightmap. */
        for (int f = 0; f < w.numfaces; f++) {
            const wface_t *fc = &w.faces[f];
            if (fc->lm_ofs < 0) continue;
            for (int k = 0; k < fc->numverts; k++) {
                const wvert_t *v = &w.verts[fc->firstvert + k];
                assert_true(v->lm[0] >= -0.001f && v->lm[0] <= fc->lm_w - 1 + 0.001f);
                assert_true(v->lm[1] >= -0.001f && v->lm[1] <= fc->lm_h - 1 + 0.001f);
            }
        }
        camera_t cam;
        assert_true(camera_start(&w, &cam));
        int c = world_point_cluster(&w, cam.origin);
        assert_true(c >= 0);
        assert_true(world_cluster_visible(&w, c, c));
        world_free(&w);
    }
}

static void test_cameras_deterministic(void **state)
{
    (void)state;
    world_t w;
    load(&w, maps[1]);
    camera_t a[NVIEWS], b[NVIEWS];
    int na = cameras_generate(&w, NVIEWS, a), nb = cameras_generate(&w, NVIEWS, b);
    assert_true(na >= 2);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, sizeof(camera_t) * na);
    for (int i = 0; i < na; i++) assert_true(world_point_cluster(&w, a[i].origin) >= 0);
    /* The first camera is the player start at eye height. */
    const entity_t *start = NULL;
    for (int i = 0; i < w.ents.count && !start; i++)
        if (!strcmp(entity_classname(&w.ents.ents[i]), "info_player_start")) start = &w.ents.ents[i];
    if (start) {
        vec3_t o;
        assert_true(entity_get_vec3(start, "origin", &o));
        assert_true(fabs(a[0].origin[2] - (o.z + PLAYER_VIEW_HEIGHT)) < 1e-9);
    }
    world_free(&w);
}

static void test_soft_shows_geometry(void **state)
{
    (void)state;
    int rich_views = 0;
    for (int m = 0; m < NMAPS; m++) {
        world_t w;
        load(&w, maps[m]);
        camera_t cams[NVIEWS];
        int n = cameras_generate(&w, NVIEWS, cams);
        void *st;
        q2err_t err;
        assert_true(ref_soft.init(&st, &w, W, H, 2, &err));
        render_opts_t o;
        render_opts_default(&o);
        o.background[0] = KEY_R;
        o.background[1] = KEY_G;
        o.background[2] = KEY_B;
        o.mode = RMODE_CLUSTERS;
        uint8_t *img = malloc(W * H * 4);
        for (int i = 0; i < n; i++) {
            render_stats_t stats;
            render_view(&ref_soft, st, &cams[i], &o, &stats, img);
            double covered;
            int colors;
            image_stats(img, W, H, o.background, &covered, &colors);
            assert_true(stats.faces_drawn > 0);
            assert_true(covered > 0.9);
            if (colors >= 20) rich_views++;
        }
        free(img);
        ref_soft.shutdown(st);
        world_free(&w);
    }
    assert_true(rich_views >= 3);
}

static void test_soft_threads_identical(void **state)
{
    (void)state;
    world_t w;
    load(&w, maps[1]);
    camera_t cams[NVIEWS];
    int n = cameras_generate(&w, NVIEWS, cams);
    void *s1, *s2;
    q2err_t err;
    assert_true(ref_soft.init(&s1, &w, W, H, 1, &err));
    assert_true(ref_soft.init(&s2, &w, W, H, 2, &err));
    render_opts_t o;
    render_opts_default(&o);
    o.wireframe = true;
    uint8_t *a = malloc(W * H * 4), *b = malloc(W * H * 4);
    for (int i = 0; i < n; i++) {
        render_view(&ref_soft, s1, &cams[i], &o, NULL, a);
        render_view(&ref_soft, s2, &cams[i], &o, NULL, b);
        assert_memory_equal(a, b, W * H * 4);
    }
    free(a);
    free(b);
    ref_soft.shutdown(s1);
    ref_soft.shutdown(s2);
    world_free(&w);
}

static void test_gl_matches_soft(void **state)
{
    (void)state;
    for (int m = 0; m < NMAPS; m++) {
        world_t w;
        load(&w, maps[m]);
        camera_t cams[NVIEWS];
        int n = cameras_generate(&w, NVIEWS, cams);
        double mae[NVIEWS];
        q2err_t err;
        q2err_clear(&err);
        if (!compare_renderers(&w, cams, n, W, H, 2, mae, &err)) {
            printf("SKIP: GL renderer unavailable (EGL surfaceless): %s\n", err.msg);
            world_free(&w);
            skip();
        }
        for (int i = 0; i < n; i++) {
            printf("%s view %d: soft/gl mean absolute error %.3f/255\n", maps[m], i, mae[i]);
            assert_true(mae[i] < MAX_MAE);
        }
        world_free(&w);
    }
}

static void test_gl_differs_when_it_should(void **state)
{
    (void)state;
    /* The comparison can fail: a GL image of another view is far from the
     * soft image of this one. */
    world_t w;
    load(&w, maps[1]);
    camera_t cams[NVIEWS];
    int n = cameras_generate(&w, NVIEWS, cams);
    assert_true(n >= 2);
    void *ss, *gs;
    q2err_t err;
    assert_true(ref_soft.init(&ss, &w, W, H, 2, &err));
    if (!ref_gl.init(&gs, &w, W, H, 2, &err)) {
        printf("SKIP: GL renderer unavailable (EGL surfaceless): %s\n", err.msg);
        ref_soft.shutdown(ss);
        world_free(&w);
        skip();
    }
    render_opts_t o;
    render_opts_default(&o);
    o.mode = RMODE_CLUSTERS;
    uint8_t *a = malloc(W * H * 4), *b = malloc(W * H * 4);
    render_view(&ref_soft, ss, &cams[0], &o, NULL, a);
    render_view(&ref_gl, gs, &cams[1], &o, NULL, b);
    assert_true(image_mae(a, b, W, H) >= MAX_MAE);
    free(a);
    free(b);
    ref_soft.shutdown(ss);
    ref_gl.shutdown(gs);
    world_free(&w);
}

static void test_cracks_none_in_sealed_maps(void **state)
{
    (void)state;
    for (int m = 0; m < NMAPS; m++) {
        world_t w;
        load(&w, maps[m]);
        camera_t cams[NVIEWS];
        int n = cameras_generate(&w, NVIEWS, cams);
        long counts[NVIEWS];
        q2err_t err;
        assert_true(check_cracks(&w, &ref_soft, cams, n, W, H, 2, -1, counts, &err));
        for (int i = 0; i < n; i++) assert_int_equal(counts[i], 0);
        world_free(&w);
    }
}

static void test_cracks_found_without_a_face(void **state)
{
    (void)state;
    for (int m = 0; m < NMAPS; m++) {
        world_t w;
        load(&w, maps[m]);
        camera_t cams[NVIEWS];
        int n = cameras_generate(&w, NVIEWS, cams);
        assert_true(n >= 1);
        int f = face_at_pixel(&w, &cams[0], W, H, W / 2, H / 2);
        assert_true(f >= 0);
        long counts[NVIEWS];
        q2err_t err;
        assert_true(check_cracks(&w, &ref_soft, cams, 1, W, H, 2, f, counts, &err));
        printf("%s: without face %d, view 0 shows %ld key pixels\n", maps[m], f, counts[0]);
        assert_true(counts[0] > 0);
        /* The located key pixels are the same number, and each lies where
         * the left-out face would have been drawn. */
        key_pixel_t px[4];
        int npx = -1;
        long counts2[NVIEWS];
        assert_true(check_cracks_locate(&w, &ref_soft, cams, 1, W, H, 2, f, counts2, px, 4, &npx, &err));
        assert_int_equal(counts2[0], counts[0]);
        assert_int_equal(npx, counts[0] < 4 ? counts[0] : 4);
        for (int k = 0; k < npx; k++) {
            assert_int_equal(px[k].view, 0);
            assert_int_equal(face_at_pixel(&w, &cams[0], W, H, px[k].x, px[k].y), f);
        }
        world_free(&w);
    }
}

static void test_pvs_culls(void **state)
{
    (void)state;
    /* With the PVS no more faces are drawn than without it, and some are. */
    world_t w;
    load(&w, maps[1]);
    camera_t cams[NVIEWS];
    int n = cameras_generate(&w, NVIEWS, cams);
    view_t v;
    cull_t c;
    cull_init(&c, &w);
    render_opts_t o;
    render_opts_default(&o);
    for (int i = 0; i < n; i++) {
        view_setup(&v, &cams[i], W, H);
        cull_world(&w, &c, &v, &o);
        int with = c.numopaque + c.numtrans;
        o.no_pvs = true;
        cull_world(&w, &c, &v, &o);
        int without = c.numopaque + c.numtrans;
        o.no_pvs = false;
        assert_true(with <= without);
        assert_true(with > 0);
    }
    cull_free(&c);
    world_free(&w);
}

static void test_bad_input(void **state)
{
    (void)state;
    world_t w;
    q2err_t err;
    q2err_clear(&err);
    assert_false(world_load(&w, Q2MAP_TEST_DATA "/viewer/does_not_exist.bsp", NULL, NULL, &err));
    assert_non_null(strstr(err.msg, "does_not_exist.bsp"));
    q2err_clear(&err);
    assert_false(world_load(&w, Q2MAP_TEST_DATA "/viewer/README.md", NULL, NULL, &err));
    assert_true(err.msg[0] != 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_world_loads),
        cmocka_unit_test(test_cameras_deterministic),
        cmocka_unit_test(test_soft_shows_geometry),
        cmocka_unit_test(test_soft_threads_identical),
        cmocka_unit_test(test_gl_matches_soft),
        cmocka_unit_test(test_gl_differs_when_it_should),
        cmocka_unit_test(test_cracks_none_in_sealed_maps),
        cmocka_unit_test(test_cracks_found_without_a_face),
        cmocka_unit_test(test_pvs_culls),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
