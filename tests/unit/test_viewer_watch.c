/* The parts of qview's watch mode that need no compile: the 100 ms settle
 * of the file watcher (on the polling path, driven with made-up clock
 * values), what it says about a missing map, qbsp's -deps rule read back
 * with escaped names, and q2map's output read for warnings, errors, the
 * leak and the stage table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../viewer/compile_job.h"
#include "../../viewer/live.h"
#include "../../viewer/watch_files.h"

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_settles_before_it_fires(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_viewer_watch_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char map[256];
    snprintf(map, sizeof map, "%s/a.map", dir);
    write_file(map, "one");
    q2err_t err;
    watch_files_t *wf = watch_files_create(true, &err);
    assert_non_null(wf);
    assert_true(watch_files_polling(wf));
    const char *paths[1] = {map};
    assert_true(watch_files_set(wf, paths, 1, &err));
    double t = 1000.0;
    assert_int_equal(watch_files_poll(wf, t), WATCH_NONE);
    write_file(map, "two, longer");
    /* The first look after the change sees it... */
    assert_int_equal(watch_files_poll(wf, t += 1.0), WATCH_CHANGING);
    /* ... but it fires only once the file has been still long enough. */
    assert_int_equal(watch_files_poll(wf, t + WATCH_STABLE_S * 0.5), WATCH_NONE);
    /* Another write in the middle starts the wait again. */
    write_file(map, "three, longer still");
    assert_int_equal(watch_files_poll(wf, t += WATCH_STABLE_S * 0.6), WATCH_CHANGING);
    assert_int_equal(watch_files_poll(wf, t + WATCH_STABLE_S * 0.9), WATCH_NONE);
    assert_int_equal(watch_files_poll(wf, t + WATCH_STABLE_S * 1.01), WATCH_STABLE);
    /* Once: nothing more without another change. */
    assert_int_equal(watch_files_poll(wf, t + 10), WATCH_NONE);

    /* A map gone in the middle of a save does not fire until it is back. */
    unlink(map);
    t += 20;
    assert_int_equal(watch_files_poll(wf, t), WATCH_CHANGING);
    assert_int_equal(watch_files_poll(wf, t + 1), WATCH_NONE);
    write_file(map, "four");
    assert_int_equal(watch_files_poll(wf, t + 2), WATCH_CHANGING);
    assert_int_equal(watch_files_poll(wf, t + 3), WATCH_STABLE);
    watch_files_free(wf);
    unlink(map);
    rmdir(dir);
}

static void test_inotify_sees_a_rename(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_viewer_watch_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char map[256], tmp[256];
    snprintf(map, sizeof map, "%s/a.map", dir);
    snprintf(tmp, sizeof tmp, "%s/a.map.new", dir);
    write_file(map, "one");
    q2err_t err;
    watch_files_t *wf = watch_files_create(false, &err);
    if (!watch_files_has_notify(wf)) {
        watch_files_free(wf);
        skip(); /* no inotify here: the polling path is tested above */
    }
    const char *paths[1] = {map};
    assert_true(watch_files_set(wf, paths, 1, &err));
    assert_false(watch_files_polling(wf));
    double t = 1000.0;
    assert_int_equal(watch_files_poll(wf, t), WATCH_NONE);
    /* Same size, same second: the inode tells the new file apart. */
    write_file(tmp, "two");
    assert_int_equal(rename(tmp, map), 0);
    assert_int_equal(watch_files_poll(wf, t + 0.001), WATCH_CHANGING);
    assert_int_equal(watch_files_poll(wf, t + 0.001 + WATCH_STABLE_S * 1.01), WATCH_STABLE);
    watch_files_free(wf);
    unlink(map);
    rmdir(dir);
}

static void test_deps_rule(void **state)
{
    (void)state;
    char **v;
    int n = live_parse_deps("/tmp/x/1/room.bsp: room.map \\\n /g/textures/my\\ tex.wal \\\n /g/a\\#b$$c.pak\n",
                            "room.map", &v);
    assert_int_equal(n, 3);
    assert_string_equal(v[0], "room.map");
    assert_string_equal(v[1], "/g/textures/my tex.wal");
    assert_string_equal(v[2], "/g/a#b$c.pak");
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
    /* No rule (a failed compile): the map alone. */
    n = live_parse_deps(NULL, "room.map", &v);
    assert_int_equal(n, 1);
    assert_string_equal(v[0], "room.map");
    free(v[0]);
    free(v);
}

static void test_output(void **state)
{
    (void)state;
    compile_result_t r;
    memset(&r, 0, sizeof r);
    compile_parse_output("q2map 0.1.0: compiling room.map (fast preset), log x\n"
                         "warning: LEAK: entity 2 (light) at (0 0 200), line 53 can reach the void.\n"
                         "warning: q2map: qbsp wrote no new x.prt (the map leaks?): skipping qvis\n"
                         "stage   seconds  result\n"
                         "qbsp       0.02  ok\n"
                         "qvis          -  skipped\n"
                         "qrad       0.07  ok\n"
                         "total      0.09  /tmp/x.bsp\n",
                         &r);
    assert_true(r.leaked);
    assert_int_equal(r.numwarnings, 2);
    assert_int_equal(r.numerrors, 0);
    assert_string_equal(r.stage_note[JOB_QBSP], "ok");
    assert_string_equal(r.stage_note[JOB_QVIS], "skipped");
    assert_true(r.stage_s[JOB_QRAD] > 0.069 && r.stage_s[JOB_QRAD] < 0.071);
    assert_true(r.total_s > 0.089 && r.total_s < 0.091);
    char b[32];
    assert_string_equal(compile_stage_text(&r, JOB_QVIS, b, sizeof b), "skipped");
    assert_string_equal(compile_stage_text(&r, JOB_QRAD, b, sizeof b), "0.07");

    memset(&r, 0, sizeof r);
    compile_parse_output("error: room.map:10:1: expected y coordinate of point 2 but the file ended\n"
                         "error: q2map: qbsp failed (exit status 1)\n"
                         "qbsp       0.02  FAILED (1)",
                         &r);
    assert_false(r.leaked);
    assert_int_equal(r.numerrors, 2);
    assert_string_equal(r.errors[0], "room.map:10:1: expected y coordinate of point 2 but the file ended");
    assert_string_equal(r.stage_note[JOB_QBSP], "FAILED (1)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settles_before_it_fires),
        cmocka_unit_test(test_inotify_sees_a_rename),
        cmocka_unit_test(test_deps_rule),
        cmocka_unit_test(test_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
