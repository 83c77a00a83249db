/* qview on bsps without usable light: a bsp with an empty lighting lump
 * (qbsp's output before qrad) loads, says it is unlit and draws every face
 * fullbright; faces whose lightmap offset runs past a short lighting lump
 * are drawn fullbright too, without marking the whole world unlit. The
 * check that tells fullbright from lit is that the lit map in lightmap
 * mode does show shades other than white. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../viewer/cameras.h"
#include "../../viewer/checks.h"
#include "../../viewer/refexport.h"

#define W 160
#define H 120
#define MAP "id_q2_light_sun.bsp"

/* Loads the test bsp with its lighting lump cut to keep bytes (-1: as it is). */
static void load_cut(world_t *w, int keep)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/viewer/%s", Q2MAP_TEST_DATA, MAP);
    bsp_t bsp;
    bsp_init(&bsp);
    q2err_t err;
    q2err_clear(&err);
    assert_true(bsp_read_file(path, &bsp, &err));
    assert_true(bsp.lightdatasize > 0);
    if (keep >= 0) bsp.lightdatasize = keep;
    if (keep == 0) {
        free(bsp.lightdata);
        bsp.lightdata = NULL;
    }
    bool ok = world_from_bsp(w, &bsp, path, NULL, NULL, &err);
    if (!ok) fprintf(stderr, "%s\n", err.msg);
    assert_true(ok);
}

/* Pixels of the player-start view in lightmap mode that are neither
 * white nor sky nor the background: lit shades. */
static long shaded_pixels(const world_t *w)
{
    camera_t cam;
    assert_true(camera_start(w, &cam));
    void *st;
    q2err_t err;
    assert_true(ref_soft.init(&st, w, W, H, 2, &err));
    render_opts_t o;
    render_opts_default(&o);
    o.mode = RMODE_LIGHTMAP;
    o.background[0] = KEY_R;
    o.background[1] = KEY_G;
    o.background[2] = KEY_B;
    uint8_t *img = malloc(W * H * 4);
    render_stats_t stats;
    render_view(&ref_soft, st, &cam, &o, &stats, img);
    assert_true(stats.faces_drawn > 0);
    long shaded = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = img + (size_t)i * 4;
        bool white = p[0] == 255 && p[1] == 255 && p[2] == 255;
        bool sky = p[0] == SKY_R && p[1] == SKY_G && p[2] == SKY_B;
        bool bg = p[0] == KEY_R && p[1] == KEY_G && p[2] == KEY_B;
        if (!white && !sky && !bg) shaded++;
    }
    free(img);
    ref_soft.shutdown(st);
    return shaded;
}

static void test_lit_map_is_shaded(void **state)
{
    (void)state;
    world_t w;
    load_cut(&w, -1);
    assert_false(w.unlit);
    assert_int_equal(w.numunlitfaces, 0);
    assert_true(w.numlitfaces > 0);
    assert_true(shaded_pixels(&w) > W * H / 4);
    world_free(&w);
}

static void test_empty_lighting_is_fullbright(void **state)
{
    (void)state;
    world_t w;
    load_cut(&w, 0);
    assert_true(w.unlit);
    assert_true(w.numunlitfaces > 0);
    assert_int_equal(w.numlitfaces, 0);
    for (int i = 0; i < w.numfaces; i++) assert_true(w.faces[i].lm_ofs < 0);
    assert_int_equal(shaded_pixels(&w), 0);
    world_free(&w);
}

static void test_offsets_past_the_lump_are_fullbright(void **state)
{
    (void)state;
    world_t w;
    /* Three bytes: one luxel, so every face with a lightmap runs past. */
    load_cut(&w, 3);
    assert_false(w.unlit);
    assert_true(w.numunlitfaces > 0);
    assert_int_equal(w.numlitfaces, 0);
    assert_int_equal(shaded_pixels(&w), 0);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lit_map_is_shaded),
        cmocka_unit_test(test_empty_lighting_is_fullbright),
        cmocka_unit_test(test_offsets_past_the_lump_are_fullbright),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
