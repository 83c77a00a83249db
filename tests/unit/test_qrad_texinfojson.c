/* qrad lighting a bsp of ericw-tools' qbsp with the func_group keys of its
 * MAP.texinfo.json (tests/data/texinfojson/, see its README): the qrad
 * program runs on a copy in a scratch directory and the bsp is read back.
 *
 * q2_light_low_luxel_res has no light entity: only its func_group of two
 * small cubes has keys, _minlight 2 and _minlight_color 1 0.8 0, which
 * ericw-tools' qbsp wrote as "minlight" 2.0 and "minlight_color"
 * [255, 204, 0] for the cubes' texinfos. Lit with them, the cubes' +y faces
 * are bright yellow (minlight 2 is 256 in luxel units); without them they
 * stay black. Q2MAP_TEST_QRAD_BIN runs another build's qrad (say
 * main's before this reading, where the first case fails). */
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

#define MAPNAME "q2_light_low_luxel_res"

/* The +y faces of the two cubes, as ericw-tools' own test of this map
 * reads them. */
static const vec3_t CUBES[2] = {{2138, 712, -968}, {2164, 712, -968}};

/* Copies the bsp, and the .texinfo.json when `json`, into dir/ (made anew). */
static void copy_in(const char *dir, bool json)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && cp '%s/texinfojson/%s.bsp' '%s/'", dir, dir,
             Q2MAP_TEST_DATA, MAPNAME, dir);
    assert_int_equal(system(cmd), 0);
    if (!json) return;
    snprintf(cmd, sizeof cmd, "cp '%s/texinfojson/%s.texinfo.json' '%s/'", Q2MAP_TEST_DATA, MAPNAME, dir);
    assert_int_equal(system(cmd), 0);
}

/* Runs qrad with `args` on dir/'s bsp; its exit status, its output in
 * dir/qrad.log. */
static int run_qrad(const char *dir, const char *args)
{
    char cmd[4096];
    const char *qrad = getenv("Q2MAP_TEST_QRAD_BIN") ? getenv("Q2MAP_TEST_QRAD_BIN") : Q2MAP_BIN_DIR "/qrad";
    snprintf(cmd, sizeof cmd, "'%s' -threads 2 %s '%s/%s.bsp' > '%s/qrad.log' 2>&1", qrad, args ? args : "", dir,
             MAPNAME, dir);
    return system(cmd);
}

static int light(const char *dir, bool json, const char *args)
{
    copy_in(dir, json);
    return run_qrad(dir, args);
}

static void read_lit(const char *dir, bsp_t *bsp)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.bsp", dir, MAPNAME);
    q2err_t err;
    bsp_init(bsp);
    if (!bsp_read_file(path, bsp, &err)) fail_msg("%s: %s", path, err.msg);
}

static bool log_has(const char *dir, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/qrad.log", dir);
    size_t n;
    uint8_t *log = tu_read_file(path, 1 << 20, &n);
    bool has = strstr((const char *)log, text) != NULL;
    if (!has) print_message("%s has no \"%s\":\n%s\n", path, text, (const char *)log);
    free(log);
    return has;
}

/* The RGB of the cube face's luxel at p; black for a face without a
 * lightmap. */
static void cube_rgb(const bsp_t *bsp, vec3_t p, int rgb[3])
{
    int f = find_face(bsp, 0, p, vec3(0, 1, 0));
    if (f < 0) fail_msg("no world face at (%g %g %g) facing +y", p.x, p.y, p.z);
    rgb[0] = rgb[1] = rgb[2] = 0;
    if (bsp->faces[f].lightofs < 0 || bsp->faces[f].styles[0] == 255) return;
    const uint8_t *px = luxel_rgb(bsp, f, p, 0);
    for (int c = 0; c < 3; c++) rgb[c] = px[c];
}

/* The minlight colour 1 0.8 0, bright: qrad's default scale makes 256
 * about 196 157 0 (the same as it gives the .map compiled by q2map's qbsp,
 * whose MAP.groupkeys carries the keys). */
static bool yellow(const int c[3])
{
    return c[0] >= 150 && fabs((double)c[1] / c[0] - 0.8) < 0.03 && c[2] == 0;
}

static void test_minlight_from_json(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/json", tmpdir);
    assert_int_equal(light(dir, true, "-v"), 0);
    bsp_t bsp;
    read_lit(dir, &bsp);
    for (int k = 0; k < 2; k++) {
        int c[3];
        cube_rgb(&bsp, CUBES[k], c);
        if (!yellow(c))
            fail_msg("cube %d: the func_group's yellow minlight from the .texinfo.json, got %d %d %d", k, c[0], c[1],
                     c[2]);
    }
    bsp_free(&bsp);
    assert_true(log_has(dir, "1 keysets for the world's faces from"));
}

static void test_black_without_json(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/nojson", tmpdir);
    assert_int_equal(light(dir, false, NULL), 0);
    bsp_t bsp;
    read_lit(dir, &bsp);
    for (int k = 0; k < 2; k++) {
        int c[3];
        cube_rgb(&bsp, CUBES[k], c);
        if (c[0] || c[1] || c[2]) fail_msg("cube %d: no light without the .texinfo.json, got %d %d %d", k, c[0], c[1], c[2]);
    }
    bsp_free(&bsp);
}

/* qrad3 reads no func_group keys: the file is said to be ignored. */
static void test_qrad3_ignores_json(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/qrad3", tmpdir);
    assert_int_equal(light(dir, true, "-preset qrad3"), 0);
    assert_true(log_has(dir, "qrad3 does not read the func_group keys of"));
    bsp_t bsp;
    read_lit(dir, &bsp);
    int c[3];
    cube_rgb(&bsp, CUBES[0], c);
    if (yellow(c)) fail_msg("-preset qrad3: the func_group's minlight was read");
    bsp_free(&bsp);
}

/* A file of another compile (a texinfo the bsp lacks) stops qrad with the
 * file and the line. */
static void test_other_compile_is_error(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/stale", tmpdir);
    copy_in(dir, false);
    const char *text = "{\n\t\"0\" : {},\n\t\"12\" : { \"minlight\" : 1.0 }\n}\n";
    tu_write_file(dir, MAPNAME ".texinfo.json", text, strlen(text));
    assert_int_not_equal(run_qrad(dir, NULL), 0);
    assert_true(log_has(dir, MAPNAME ".texinfo.json:3:"));
    assert_true(log_has(dir, "not a texinfo number of the bsp"));
}

/* A MAP.groupkeys of another compile (q2map's qbsp ran on the map before
 * ericw-tools' did) gives way to the .texinfo.json, with a warning. */
static void test_stale_groupkeys_gives_way(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/groupkeys", tmpdir);
    copy_in(dir, true);
    const uint8_t stale[20] = {'Q', '2', 'M', 'A', 'P', 'G', 'K', '1', 1, 2, 3, 4};
    tu_write_file(dir, MAPNAME ".groupkeys", stale, sizeof stale);
    assert_int_equal(run_qrad(dir, NULL), 0);
    assert_true(log_has(dir, "it belongs to another compile of the map"));
    bsp_t bsp;
    read_lit(dir, &bsp);
    int c[3];
    cube_rgb(&bsp, CUBES[0], c);
    if (!yellow(c)) fail_msg("the func_group's minlight from the .texinfo.json, got %d %d %d", c[0], c[1], c[2]);
    bsp_free(&bsp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minlight_from_json),
        cmocka_unit_test(test_black_without_json),
        cmocka_unit_test(test_qrad3_ignores_json),
        cmocka_unit_test(test_other_compile_is_error),
        cmocka_unit_test(test_stale_groupkeys_gives_way),
    };
    return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
