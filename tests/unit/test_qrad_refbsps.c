/* qrad on bsps from other compilers (tests/data/qrad): lights without error,
 * the result passes bsp_check, every face has an in-range lightmap of the
 * size lightmap.h gives with style 0 first, and the file round-trips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspcheck.h"
#include "qrad.h"

static void report(void *ctx, const char *problem)
{
    fprintf(stderr, "  %s: %s\n", (const char *)ctx, problem);
}

static void check_one(const char *path)
{
    bsp_t bsp;
    bsp_init(&bsp);
    q2err_t err;
    assert_true(bsp_read_file(path, &bsp, &err));
    qrad_opts_t o;
    qrad_opts_default(&o);
    o.bounce = 2;
    o.threads = 2;
    log_t log;
    log_init(&log, LOG_QUIET, stdout, stderr);
    qrad_t stats;
    if (!qrad_run(&bsp, &o, NULL, &log, NULL, &stats, &err)) fail_msg("%s: %s", path, err.msg);
    assert_true(stats.luxels > 0);
    int problems = bsp_check(&bsp, 20, report, (void *)path);
    if (problems) fail_msg("%s: %d problems after lighting", path, problems);
    for (int f = 0; f < bsp.numfaces; f++) {
        const dface_t *df = &bsp.faces[f];
        face_extents_t e;
        assert_true(bsp_face_extents(&bsp, f, &e, NULL));
        if (df->lightofs < 0) fail_msg("%s: face %d has no lightmap", path, f);
        assert_int_equal(df->styles[0], 0);
        int ns = 0;
        while (ns < MAXLIGHTMAPS && df->styles[ns] != 255) ns++;
        for (int k = ns; k < MAXLIGHTMAPS; k++) assert_int_equal(df->styles[k], 255);
        if ((long)df->lightofs + lightmap_face_bytes(&e, ns) > bsp.lightdatasize)
            fail_msg("%s: face %d lightmap past the lump", path, f);
    }
    uint8_t *data;
    size_t size;
    assert_true(bsp_write_memory(&bsp, &data, &size, &err));
    bsp_t back;
    bsp_init(&back);
    assert_true(bsp_read_memory(data, size, path, &back, &err));
    assert_int_equal(back.lightdatasize, bsp.lightdatasize);
    assert_memory_equal(back.lightdata, bsp.lightdata, (size_t)bsp.lightdatasize);
    bsp_free(&back);
    free(data);
    bsp_free(&bsp);
}

static void test_reference_bsps(void **state)
{
    (void)state;
    const char *dir = Q2MAP_TEST_DATA "/qrad";
    DIR *d = opendir(dir);
    assert_non_null(d);
    char *names[64];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 64) {
        size_t l = strlen(de->d_name);
        if (l > 4 && !strcmp(de->d_name + l - 4, ".bsp")) names[n++] = strdup(de->d_name);
    }
    closedir(d);
    assert_true(n >= 5);
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        check_one(path);
        free(names[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_reference_bsps)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
