/* common/dist.h in a single rank (no launcher): a loop on an earlier loop's
 * items (dist_loop_items, dist_loop_begin_same) visits each item exactly
 * once, on every thread count, and finds what the first loop left; the
 * trace names such a loop by the loop whose items it reuses, and a gather
 * to rank 0, the way scripts/lib/mpisim.py reads them ("same K", "root"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../common/dist.h"
#include "test_util.h"

#define N 1000

typedef struct work_t {
    long first[N]; /* written by the first loop */
    int seen[N];   /* visits in the second loop */
    int unpacked;  /* unpack calls (none in one rank) */
} work_t;

static size_t w_size(void *ctx, long i)
{
    (void)ctx;
    return (size_t)(i % 3);
}
static void w_pack(void *ctx, long i, uint8_t *out)
{
    (void)ctx;
    memset(out, (int)(i & 0xff), (size_t)(i % 3));
}
static void w_unpack(void *ctx, long i, const uint8_t *in, size_t size)
{
    (void)i;
    (void)in;
    (void)size;
    ((work_t *)ctx)->unpacked++;
}

/* The two loops; returns the items dist_loop_items listed. */
static long run_loops(dist_t *d, work_t *w, int threads)
{
    static const dist_codec_t codec = {w_size, w_pack, w_unpack, false};
    memset(w, 0, sizeof *w);
    dist_loop_t *l = dist_loop_begin(d, N, &codec, w);
#pragma omp parallel num_threads(threads)
    for (long i; dist_loop_next(l, &i); dist_loop_finished(l, i)) w->first[i] = i * 7 + 1;
    dist_items_t *it = dist_loop_items(l);
    dist_loop_end(l);
    l = dist_loop_begin_same(d, it, &codec, w, true);
#pragma omp parallel num_threads(threads)
    for (long i; dist_loop_next(l, &i); dist_loop_finished(l, i)) {
        /* the first loop's result for this item is here */
        if (w->first[i] == i * 7 + 1) {
#pragma omp atomic
            w->seen[i]++;
        }
    }
    dist_loop_end(l);
    dist_items_free(it);
    long visited = 0;
    for (long i = 0; i < N; i++) visited += w->seen[i] == 1;
    return visited;
}

static void test_same_items_once(void **state)
{
    (void)state;
    static work_t w;
    for (int threads = 1; threads <= 4; threads++) {
        /* a NULL job is one rank, as a started one without a launcher */
        assert_int_equal(run_loops(NULL, &w, threads), N);
        assert_int_equal(w.unpacked, 0);
        dist_t *d;
        q2err_t err;
        assert_true(dist_start(&d, "test", &err));
        dist_set_threads(d, threads);
        assert_int_equal(run_loops(d, &w, threads), N);
        assert_int_equal(w.unpacked, 0);
        dist_stop(d);
    }
}

static void test_trace_names_same_loop(void **state)
{
    (void)state;
    char path[] = "/tmp/q2map_dist_traceXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    setenv("Q2MAP_DIST_TRACE", path, 1);
    dist_t *d;
    q2err_t err;
    assert_true(dist_start(&d, "test", &err));
    unsetenv("Q2MAP_DIST_TRACE");
    dist_set_threads(d, 2);
    static work_t w;
    assert_int_equal(run_loops(d, &w, 2), N);
    dist_stop(d);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[65536];
    int loops = 0;
    bool plain = false, same = false;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "loop ", 5)) continue;
        long n = 0;
        double s = 0;
        unsigned long long bytes = 0;
        char rest[256] = "";
        int got = sscanf(line, "loop %ld %lf %llu %255[^\n]", &n, &s, &bytes, rest);
        assert_true(got >= 3);
        assert_int_equal(n, N);
        /* the results as packed: a size word per item, then 0, 1 or 2 bytes */
        unsigned long long want = 8 * (unsigned long long)N;
        for (long i = 0; i < N; i++) want += (unsigned long long)w_size(NULL, i);
        const char *raw = strstr(rest, "raw=");
        assert_non_null(raw);
        assert_int_equal(strtoull(raw + 4, NULL, 10), want);
        if (loops == 0) plain = !strstr(rest, "same") && !strstr(rest, "root");
        else same = !strncmp(rest, "same 0 root ", 12);
        loops++;
    }
    fclose(f);
    unlink(path);
    assert_int_equal(loops, 2);
    assert_true(plain);
    assert_true(same);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_items_once),
        cmocka_unit_test(test_trace_names_same_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
