/* common/os.h: the operating-system layer the formats and stages stand on
 * (its POSIX implementation here; the same contracts bind the Windows one). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/fileio.h"
#include "../../common/os.h"
#include "../../common/threads.h"
#include "test_util.h"

#ifdef __linux__
#include <sched.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

TU_SCRATCH_DIR(g_tmp, "q2map_os")

static void kinds_and_remove(void **state)
{
    (void)state;
    const char *dir = g_tmp;
    tu_write_file(dir, "a.txt", "abc", 3);
    char path[Q2_PATH_MAX];
    assert_true(path_join(path, sizeof path, dir, "a.txt"));
    assert_true(os_is_file(path));
    assert_false(os_is_dir(path));
    assert_true(os_is_dir(dir));
    assert_false(os_is_file(dir));
    assert_true(os_remove_file(path));
    assert_false(os_is_file(path));
    /* Gone already: still true (callers remove stale outputs). */
    assert_true(os_remove_file(path));
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void list_dir(void **state)
{
    (void)state;
    char sub[Q2_PATH_MAX];
    assert_true(path_join(sub, sizeof sub, g_tmp, "list"));
    tu_write_file(g_tmp, "list/pak1.pak", "x", 1);
    tu_write_file(g_tmp, "list/pak0.pak", "x", 1);
    tu_write_file(g_tmp, "list/b.pk3", "x", 1);
    char **names;
    int n;
    q2err_t err;
    assert_true(os_list_dir(sub, &names, &n, &err));
    assert_int_equal(n, 3);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    assert_string_equal(names[0], "b.pk3");
    assert_string_equal(names[1], "pak0.pak");
    assert_string_equal(names[2], "pak1.pak");
    os_free_names(names, n);
    char missing[Q2_PATH_MAX];
    assert_true(path_join(missing, sizeof missing, g_tmp, "nothere"));
    assert_false(os_list_dir(missing, &names, &n, &err));
    assert_non_null(strstr(err.msg, "nothere"));
    char file[Q2_PATH_MAX];
    assert_true(path_join(file, sizeof file, sub, "b.pk3"));
    assert_false(os_list_dir(file, &names, &n, &err));
    assert_non_null(strstr(err.msg, "not a directory"));
}

static void positional_reads(void **state)
{
    (void)state;
    const char *dir = g_tmp;
    tu_write_file(dir, "r.bin", "0123456789", 10);
    char path[Q2_PATH_MAX];
    assert_true(path_join(path, sizeof path, dir, "r.bin"));
    os_file_t f;
    q2err_t err;
    assert_true(os_file_open_read(path, &f, &err));
    assert_int_equal(f.size, 10);
    char buf[8] = {0};
    assert_true(os_file_pread(&f, path, 3, buf, 4, &err));
    assert_memory_equal(buf, "3456", 4);
    /* Past the end: an error naming the file, not a short buffer. */
    assert_false(os_file_pread(&f, path, 8, buf, 4, &err));
    assert_non_null(strstr(err.msg, "r.bin"));
    os_file_close(&f);
    os_file_close(&f); /* twice is harmless */
    assert_false(os_file_open_read(dir, &f, &err));
    assert_non_null(strstr(err.msg, "not a regular file"));
    char missing[Q2_PATH_MAX];
    assert_true(path_join(missing, sizeof missing, dir, "nothere.bin"));
    assert_false(os_file_open_read(missing, &f, &err));
    assert_non_null(strstr(err.msg, "cannot open"));
}

/* os_make_dir: made once, accepted again, refused where a file stands or
 * the parent is missing. */
static void make_dir(void **state)
{
    (void)state;
    char path[Q2_PATH_MAX], file[Q2_PATH_MAX], deep[Q2_PATH_MAX];
    assert_true(path_join(path, sizeof path, g_tmp, "made"));
    os_remove_file(path);
    assert_false(os_is_dir(path));
    assert_true(os_make_dir(path));
    assert_true(os_is_dir(path));
    assert_true(os_make_dir(path));
    tu_write_file(g_tmp, "plain.txt", "x", 1);
    assert_true(path_join(file, sizeof file, g_tmp, "plain.txt"));
    assert_false(os_make_dir(file));
    assert_true(path_join(deep, sizeof deep, g_tmp, "no/such/parent"));
    assert_false(os_make_dir(deep));
}

/* The clocks go forward across a sleep by at least the time slept, and the
 * two monotonic forms agree; CPU time never goes back. */
static void clocks_and_sleep(void **state)
{
    (void)state;
    long long n0 = os_monotonic_ns();
    double s0 = os_monotonic_s(), c0 = os_cpu_process_s(), t0 = os_cpu_thread_s();
    os_sleep_ns(20 * 1000000L);
    long long n1 = os_monotonic_ns();
    double s1 = os_monotonic_s();
    assert_true(n1 - n0 >= 20 * 1000000LL);
    assert_true(s1 - s0 >= 0.019);
    assert_true(s1 - s0 < 5.0);
    assert_true(fabs((double)(n1 - n0) * 1e-9 - (s1 - s0)) < 0.01);
    /* CPU time to measure: volatile, so the loop is not folded away. */
    volatile double x = 0;
    for (int i = 0; i < 2000000; i++) x += i * 0.5;
    (void)x;
    assert_true(os_cpu_process_s() >= c0);
    assert_true(os_cpu_thread_s() > t0);
}

#ifdef __linux__
/* The calling thread's allowed processors. */
static cpu_set_t affinity_now(void)
{
    cpu_set_t set;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    return set;
}
#endif

/* After threads_start: a parallel region still gets the threads it asks for. */
static void team_of_three(void)
{
#ifdef _OPENMP
    int team = 0;
#pragma omp parallel num_threads(3)
    {
#pragma omp single
        team = omp_get_num_threads();
    }
    assert_int_equal(team, 3);
#endif
}

/* os_move_off_cpu moves the thread and never leaves it pinned; threads_start
 * (which may call it) leaves the affinity as it found it and the team ready. */
static void move_off_cpu(void **state)
{
    (void)state;
#ifdef __linux__
    cpu_set_t before = affinity_now(), after;
    int cpu = os_current_cpu();
    assert_true(cpu >= 0 && CPU_ISSET(cpu, &before));
    assert_int_equal(os_move_off_cpu(), CPU_COUNT(&before) > 1);
    after = affinity_now();
    assert_true(CPU_EQUAL(&before, &after));
    /* one allowed processor: nowhere to go, and the mask stays */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(os_current_cpu(), &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    assert_false(os_move_off_cpu());
    after = affinity_now();
    assert_true(CPU_EQUAL(&one, &after));
    assert_int_equal(sched_setaffinity(0, sizeof before, &before), 0);
    threads_start(2);
    threads_start(4);
    after = affinity_now();
    assert_true(CPU_EQUAL(&before, &after));
#else
    assert_int_equal(os_current_cpu(), -1);
    assert_false(os_move_off_cpu());
    threads_start(2);
#endif
    team_of_three();
}

#ifdef __linux__
/* The process's threads, from /proc/self/status. */
static int threads_now(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    assert_non_null(f);
    char line[256];
    int n = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1) break;
    fclose(f);
    return n;
}
#endif

/* os_start_passing_thread starts a thread (POSIX) that ends by itself,
 * without being waited for; Windows starts none. */
static void passing_thread(void **state)
{
    (void)state;
#ifdef _WIN32
    assert_false(os_start_passing_thread());
#else
    assert_true(os_start_passing_thread());
#ifdef __linux__
    int before = threads_now();
    assert_true(before >= 1);
    assert_true(os_start_passing_thread());
    /* gone again within a second (it may or may not have run yet) */
    int now = threads_now();
    for (int k = 0; k < 1000 && now > before; k++) {
        os_sleep_ns(1000000);
        now = threads_now();
    }
    assert_true(now <= before);
#endif
#endif
}

/* threads_start_during: fn runs once, on the calling thread, inside the
 * new team (the workers wait for it); the affinity is as it was after. */
typedef struct during_t {
    int calls, team, thread;
    const int *where;
} during_t;

static _Thread_local int g_during_marker;

static void during_fn(void *arg)
{
    during_t *d = arg;
    d->calls++;
    d->where = &g_during_marker;
#ifdef _OPENMP
    d->team = omp_get_num_threads();
    d->thread = omp_get_thread_num();
#endif
}

static void start_during(void **state)
{
    (void)state;
#ifdef __linux__
    cpu_set_t before = affinity_now();
#endif
    for (int n = 1; n <= 3; n += 2) {
        during_t d = {0, 1, -1, NULL};
        threads_start_during(n, during_fn, &d);
        assert_int_equal(d.calls, 1);
        assert_ptr_equal(d.where, &g_during_marker);
#ifdef _OPENMP
        assert_int_equal(d.team, n);
        assert_int_equal(d.thread, 0);
#endif
    }
#ifdef __linux__
    cpu_set_t after = affinity_now();
    assert_true(CPU_EQUAL(&before, &after));
#endif
    team_of_three();
    double t = os_monotonic_s();
    os_nap();
    assert_true(os_monotonic_s() - t < 0.5);
}

static void console(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_false(os_is_console(f));
    fclose(f);
    assert_false(os_is_console(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kinds_and_remove),
        cmocka_unit_test(list_dir),
        cmocka_unit_test(positional_reads),
        cmocka_unit_test(make_dir),
        cmocka_unit_test(clocks_and_sleep),
        cmocka_unit_test(console),
        cmocka_unit_test(move_off_cpu),
        cmocka_unit_test(passing_thread),
        cmocka_unit_test(start_during),
    };
    return cmocka_run_group_tests(tests, g_tmp_setup, g_tmp_teardown);
}
