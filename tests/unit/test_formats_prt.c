/* Portal files (.prt) and leak pointfiles (.pts/.lin): round trips, the
 * reference portal files other compilers wrote, and malformed input. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../common/fileio.h"
#include "../../formats/pointfile.h"
#include "../../formats/prt.h"
#include "test_util.h"

static char g_tmpdir[256];

static int setup(void **state)
{
    snprintf(g_tmpdir, sizeof g_tmpdir, "/tmp/q2map_test_prt_XXXXXX");
    return mkdtemp(g_tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    return tu_rm_rf(g_tmpdir) ? 0 : -1;
}

static char *slurp(const char *path, size_t *size) { return (char *)tu_read_file(path, 1u << 30, size); }

static void test_prt_round_trip(void **state)
{
    uint32_t seed = 0x1234567u;
    prt_t prt = {0};
    prt.numclusters = 50;
    prt.numportals = 200;
    prt.portals = calloc((size_t)prt.numportals, sizeof *prt.portals);
    for (int i = 0; i < prt.numportals; i++) {
        int np = 3 + (int)(tu_xorshift(&seed) % 6);
        winding_t *w = winding_alloc(np);
        w->numpoints = np;
        for (int j = 0; j < np; j++) {
            double c[3];
            for (int k = 0; k < 3; k++) {
                int r = (int)(tu_xorshift(&seed) % 8192) - 4096;
                /* half of the portals on the integer grid, half off it */
                c[k] = (i & 1) ? r : r + (double)(tu_xorshift(&seed) % 1000000) / 1000000.0;
            }
            w->p[j] = vec3(c[0], c[1], c[2]);
        }
        prt.portals[i].winding = w;
        prt.portals[i].cluster[0] = (int)(tu_xorshift(&seed) % 50);
        prt.portals[i].cluster[1] = (int)(tu_xorshift(&seed) % 50);
    }
    char p1[512], p2[512];
    snprintf(p1, sizeof p1, "%s/a.prt", g_tmpdir);
    snprintf(p2, sizeof p2, "%s/b.prt", g_tmpdir);
    q2err_t err;
    assert_true(prt_write_file(p1, &prt, &err));
    prt_t back;
    if (!prt_read_file(p1, &back, &err)) fail_msg("%s", err.msg);
    assert_int_equal(back.numclusters, prt.numclusters);
    assert_int_equal(back.numportals, prt.numportals);
    for (int i = 0; i < prt.numportals; i++) {
        assert_int_equal(back.portals[i].cluster[0], prt.portals[i].cluster[0]);
        assert_int_equal(back.portals[i].cluster[1], prt.portals[i].cluster[1]);
        const winding_t *a = prt.portals[i].winding, *b = back.portals[i].winding;
        assert_int_equal(a->numpoints, b->numpoints);
        for (int j = 0; j < a->numpoints; j++) {
            /* integers exactly; others within the 0.001 snap to integers */
            double tol = (i & 1) ? 0 : 1e-3;
            assert_true(fabs(a->p[j].x - b->p[j].x) <= tol);
            assert_true(fabs(a->p[j].y - b->p[j].y) <= tol);
            assert_true(fabs(a->p[j].z - b->p[j].z) <= tol);
        }
    }
    /* Writing what was read gives the same text. */
    assert_true(prt_write_file(p2, &back, &err));
    size_t s1, s2;
    char *t1 = slurp(p1, &s1), *t2 = slurp(p2, &s2);
    assert_int_equal(s1, s2);
    assert_memory_equal(t1, t2, s1);
    /* Integer coordinates are written without decimals, as qbsp3 does. */
    assert_non_null(strstr(t1, "PRT1\n50\n200\n"));
    free(t1);
    free(t2);
    prt_free(&back);
    prt_free(&prt);
}

/* The .prt files other compilers wrote next to the reference bsps. */
static void test_prt_reference_files(void **state)
{
    const char *dir = Q2MAP_TEST_DATA "/bsp";
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".prt") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        prt_t prt;
        q2err_t err;
        if (!prt_read_file(path, &prt, &err)) fail_msg("%s", err.msg);
        /* Independent count: one line per portal after the 3 header lines. */
        size_t size;
        char *text = slurp(path, &size);
        int lines = 0;
        for (size_t i = 0; i < size; i++) lines += text[i] == '\n';
        assert_int_equal(prt.numportals, lines - 3);
        for (int i = 0; i < prt.numportals; i++) {
            q2err_t werr;
            assert_true(prt.portals[i].winding->numpoints >= 3);
            /* Portals from real compilers are valid convex polygons. */
            if (!winding_check(prt.portals[i].winding, &werr)) fail_msg("%s portal %d: %s", path, i, werr.msg);
        }
        free(text);
        prt_free(&prt);
        n++;
    }
    closedir(d);
    assert_true(n >= 10);
}

typedef struct bad_prt_t {
    const char *text;
    const char *phrase;
    int line;
} bad_prt_t;

static void test_prt_malformed(void **state)
{
    static const bad_prt_t cases[] = {
        {"", "empty", 1},
        {"PRT9\n1\n0\n", "bad header", 1},
        {"PRT2\n1\n2\n0\n", "truncated", 5},
        /* PRT2 cluster maps: a leaf out of range, a leaf in two clusters */
        {"PRT2\n2\n2\n0\n0 -1\n2 -1\n", "out of range", 6},
        {"PRT2\n2\n2\n0\n0 -1\n0 -1\n", "already in cluster 0", 6},
        /* PRT1-AM: a cluster out of range, a map cut short */
        {"PRT1-AM\n2\n0\n2\n0 2\n", "out of range", 5},
        {"PRT1-AM\n2\n0\n3\n0 1\n", "truncated", 6},
        {"PRT1\nx\n0\n", "number of clusters", 2},
        {"PRT1\n-1\n0\n", "negative", 2},
        {"PRT1\n2\n", "truncated", 3},
        /* fewer portals than the header says */
        {"PRT1\n2\n2\n3 0 1 (0 0 0) (0 1 0) (0 1 1)\n", "truncated", 5},
        /* more */
        {"PRT1\n2\n1\n3 0 1 (0 0 0) (0 1 0) (0 1 1)\n3 0 1 (0 0 0) (0 1 0) (0 1 1)\n", "counts do not match", 5},
        {"PRT1\n2\n1\n3 0 2 (0 0 0) (0 1 0) (0 1 1)\n", "out of range", 4},
        {"PRT1\n2\n1\n3 -1 1 (0 0 0) (0 1 0) (0 1 1)\n", "out of range", 4},
        {"PRT1\n2\n1\n2 0 1 (0 0 0) (0 1 0)\n", "at least 3", 4},
        {"PRT1\n2\n1\n99999999 0 1 (0 0 0) (0 1 0)\n", "more than", 4},
        {"PRT1\n2\n1\n3 0 1 (0 0 0) (0 nan 0) (0 1 1)\n", "not a finite", 4},
        {"PRT1\n2\n1\n3 0 1 (0 0 0) (0 1 0) (0 1\n", "truncated", 5},
        {"PRT1\n2\n1\n3 0 1 (0 0 0) (0 1 0) 0 1 1)\n", "expected '('", 4},
        {"PRT1\n2\n1\n3 0 1 (0 0 0) (0 1 0) (0 1 1 1)\n", "expected ')'", 4},
        {"PRT1\n2\n100000000\n", "claims", 3},
        {"PRT1\n2\n1\n3 0 1 (0 0 0) (0 1 0) (0 1 \"1\")\n", "a number", 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        prt_t prt;
        q2err_t err;
        memset(&err, 0, sizeof err);
        if (prt_read_memory(cases[i].text, strlen(cases[i].text), "bad.prt", &prt, &err))
            fail_msg("case %zu was accepted", i);
        char where[32];
        snprintf(where, sizeof where, "bad.prt:%d:", cases[i].line);
        if (strncmp(err.msg, where, strlen(where)) != 0 || !strstr(err.msg, cases[i].phrase))
            fail_msg("case %zu: '%s' (expected %s ... %s)", i, err.msg, where, cases[i].phrase);
        assert_null(prt.portals);
    }
}

/* ericw-tools' Quake 1 detail variants: the same portals between clusters
 * as PRT1, with the leaf count in another place and a cluster map after. */
static void test_prt_variants(void **state)
{
    (void)state;
    static const char portal[] = "3 0 1 (0 0 0) (0 1 0) (0 1 1)\n";
    char prt2[256], am[256];
    snprintf(prt2, sizeof prt2, "PRT2\n3\n2\n1\n%s2 0 -1\n1 -1\n", portal);
    snprintf(am, sizeof am, "PRT1-AM\n2\n1\n3\n%s0 1 0\n", portal);
    const char *texts[2] = {prt2, am};
    const prt_format_t formats[2] = {PRT_FORMAT_PRT2, PRT_FORMAT_PRT1_AM};
    const int want[2][3] = {{0, 1, 0}, {0, 1, 0}};
    for (int k = 0; k < 2; k++) {
        prt_t prt;
        q2err_t err;
        if (!prt_read_memory(texts[k], strlen(texts[k]), "v.prt", &prt, &err)) fail_msg("%s", err.msg);
        assert_int_equal(prt.format, formats[k]);
        assert_int_equal(prt.numclusters, 2);
        assert_int_equal(prt.numportals, 1);
        assert_int_equal(prt.numleafs, 3);
        assert_int_equal(prt.portals[0].cluster[1], 1);
        assert_int_equal(prt.portals[0].winding->numpoints, 3);
        for (int i = 0; i < 3; i++) assert_int_equal(prt.leaf_cluster[i], want[k][i]);
        prt_free(&prt);
    }
}

static void test_pointfiles(void **state)
{
    vec3_t path[4] = {vec3(0, 0, 0), vec3(10, 0, 0), vec3(10, 7, 0), vec3(10, 7, -3.5)};
    char pts[512], lin[512];
    snprintf(pts, sizeof pts, "%s/leak.pts", g_tmpdir);
    snprintf(lin, sizeof lin, "%s/leak.lin", g_tmpdir);
    q2err_t err;
    assert_true(pointfile_write_lin(lin, path, 4, &err));
    vec3_t *back;
    int n;
    assert_true(pointfile_read(lin, &back, &n, &err));
    assert_int_equal(n, 4);
    for (int i = 0; i < 4; i++) assert_true(vec_equal_eps(back[i], path[i], 1e-6));
    free(back);

    assert_true(pointfile_write_pts(pts, path, 4, 2.0, &err));
    assert_true(pointfile_read(pts, &back, &n, &err));
    /* Every sample lies on the path, consecutive samples at most `spacing`
     * apart, and every vertex is present in order. */
    assert_true(n >= 4 + 4 + 2);
    int next_vertex = 0;
    for (int i = 0; i < n; i++) {
        if (next_vertex < 4 && vec_equal_eps(back[i], path[next_vertex], 1e-6)) next_vertex++;
        if (i > 0) assert_true(vec_len(vec_sub(back[i], back[i - 1])) <= 2.0 + 1e-6);
    }
    assert_int_equal(next_vertex, 4);
    free(back);

    /* A zero is written unsigned whatever its sign (issue 37): -0.0 and a
     * negative that prints as zero give the bytes +0.0 gives. */
    vec3_t zeros[1] = {vec3(-0.0, -1e-9, 0.0)};
    assert_true(pointfile_write_lin(lin, zeros, 1, &err));
    size_t zsize;
    uint8_t *ztext = tu_read_file(lin, 1024, &zsize);
    const char *want = "0.000000 0.000000 0.000000\n";
    assert_int_equal(zsize, strlen(want));
    assert_memory_equal(ztext, want, zsize);
    free(ztext);

    /* Non-finite points are refused and nothing is written. */
    vec3_t badpts[2] = {vec3(0, 0, 0), vec3(NAN, 0, 0)};
    char bad[512];
    snprintf(bad, sizeof bad, "%s/bad.lin", g_tmpdir);
    assert_false(pointfile_write_lin(bad, badpts, 2, &err));
    assert_false(file_exists(bad));

    /* Malformed pointfiles name the line. */
    const char *texts[] = {"0 0 0\n1 2\n", "0 0 0\n1 2 3 4\n", "0 0 0\n\n1 inf 3\n"};
    const char *where[] = {":2:", ":2:", ":3:"};
    for (int i = 0; i < 3; i++) {
        assert_true(file_write_atomic(bad, texts[i], strlen(texts[i]), &err));
        assert_false(pointfile_read(bad, &back, &n, &err));
        if (!strstr(err.msg, where[i])) fail_msg("case %d: %s", i, err.msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prt_round_trip),
        cmocka_unit_test(test_prt_reference_files),
        cmocka_unit_test(test_prt_malformed),
        cmocka_unit_test(test_prt_variants),
        cmocka_unit_test(test_pointfiles),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
