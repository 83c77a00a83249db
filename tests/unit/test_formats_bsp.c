/* .bsp reader/writer and bsp_check on files written by other compilers, and
 * the malformed-input corpus in tests/data/bad/. */
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
#include "../../formats/bspcheck.h"
#include "../../formats/bspfile.h"
#include "../../formats/mapfile.h"
#include "../../formats/prt.h"
#include "../../formats/visrle.h"

#define BSPDIR Q2MAP_TEST_DATA "/bsp"
#define BADDIR Q2MAP_TEST_DATA "/bad"

typedef struct names_t {
    char names[64][256];
    int count;
} names_t;

static void list_dir(const char *dir, const char *ext, names_t *out)
{
    out->count = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)) && out->count < 64) {
        size_t len = strlen(de->d_name), el = strlen(ext);
        if (len > el && strcmp(de->d_name + len - el, ext) == 0)
            snprintf(out->names[out->count++], sizeof out->names[0], "%s", de->d_name);
    }
    closedir(d);
}

static void collect(void *ctx, const char *problem)
{
    char *first = ctx;
    if (!first[0]) snprintf(first, 512, "%s", problem);
}

typedef struct finder_t {
    const char *phrase;
    char first[512];
    bool found;
} finder_t;

static void find_phrase(void *ctx, const char *problem)
{
    finder_t *fd = ctx;
    if (!fd->first[0]) snprintf(fd->first, sizeof fd->first, "%s", problem);
    if (strstr(problem, fd->phrase)) fd->found = true;
}

/* Compares every lump of two decoded bsps. */
static void assert_same_lumps(const bsp_t *a, const bsp_t *b)
{
#define SAME(arr, n, elem)                                                              \
    do {                                                                                \
        assert_int_equal(a->n, b->n);                                                   \
        if (a->n) assert_memory_equal(a->arr, b->arr, (size_t)a->n * (elem));           \
    } while (0)
    SAME(entities, entities_size, 1);
    SAME(planes, numplanes, sizeof *a->planes);
    SAME(vertexes, numvertexes, sizeof *a->vertexes);
    SAME(visdata, visdatasize, 1);
    SAME(nodes, numnodes, sizeof *a->nodes);
    SAME(faces, numfaces, sizeof *a->faces);
    SAME(lightdata, lightdatasize, 1);
    SAME(leafs, numleafs, sizeof *a->leafs);
    SAME(leaffaces, numleaffaces, sizeof *a->leaffaces);
    SAME(leafbrushes, numleafbrushes, sizeof *a->leafbrushes);
    SAME(edges, numedges, sizeof *a->edges);
    SAME(surfedges, numsurfedges, sizeof *a->surfedges);
    SAME(models, nummodels, sizeof *a->models);
    SAME(brushes, numbrushes, sizeof *a->brushes);
    SAME(brushsides, numbrushsides, sizeof *a->brushsides);
    SAME(pop, popsize, 1);
    SAME(areas, numareas, sizeof *a->areas);
    SAME(areaportals, numareaportals, sizeof *a->areaportals);
#undef SAME
    /* texinfo holds a char[33] whose bytes after the NUL may differ; compare
     * field by field. */
    assert_int_equal(a->numtexinfo, b->numtexinfo);
    for (int i = 0; i < a->numtexinfo; i++) {
        assert_memory_equal(a->texinfo[i].vecs, b->texinfo[i].vecs, sizeof a->texinfo[i].vecs);
        assert_int_equal(a->texinfo[i].flags, b->texinfo[i].flags);
        assert_int_equal(a->texinfo[i].value, b->texinfo[i].value);
        assert_int_equal(a->texinfo[i].nexttexinfo, b->texinfo[i].nexttexinfo);
        assert_string_equal(a->texinfo[i].texture, b->texinfo[i].texture);
    }
    assert_int_equal(a->extrasize, b->extrasize);
    if (a->extrasize) assert_memory_equal(a->extra, b->extra, a->extrasize);
}

static void test_reference_bsps(void **state)
{
    names_t n;
    list_dir(BSPDIR, ".bsp", &n);
    assert_true(n.count >= 10);
    for (int i = 0; i < n.count; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", BSPDIR, n.names[i]);
        bsp_t a, b, c;
        q2err_t err;
        if (!bsp_read_file(path, &a, &err)) fail_msg("%s", err.msg);
        char first[512] = "";
        int problems = bsp_check(&a, 0, collect, first);
        if (problems) fail_msg("%s: %d problems, first: %s", path, problems, first);

        /* read -> write -> read gives the same lumps, and writing again
         * gives the same bytes. */
        uint8_t *w1, *w2;
        size_t s1, s2;
        assert_true(bsp_write_memory(&a, &w1, &s1, &err));
        assert_true(bsp_read_memory(w1, s1, "w1", &b, &err));
        assert_same_lumps(&a, &b);
        assert_true(bsp_write_memory(&b, &w2, &s2, &err));
        assert_int_equal(s1, s2);
        assert_memory_equal(w1, w2, s1);
        assert_true(bsp_read_memory(w2, s2, "w2", &c, &err));
        assert_same_lumps(&a, &c);
        assert_int_equal(bsp_check(&c, 0, NULL, NULL), 0);

        /* The portal file beside it describes the same clusters. */
        char prtpath[512];
        assert_true(path_replace_ext(prtpath, sizeof prtpath, path, ".prt"));
        prt_t prt;
        if (!prt_read_file(prtpath, &prt, &err)) fail_msg("%s", err.msg);
        bsp_stats_t st;
        bsp_compute_stats(&a, &st);
        assert_true(st.have_vis);
        assert_int_equal(prt.numclusters, st.numclusters);
        assert_int_equal(bsp_num_clusters(&a), st.numclusters);
        int maxleafcluster = -1;
        for (int l = 0; l < a.numleafs; l++)
            if (a.leafs[l].cluster > maxleafcluster) maxleafcluster = a.leafs[l].cluster;
        assert_true(maxleafcluster < st.numclusters);
        prt_free(&prt);

        free(w1);
        free(w2);
        bsp_free(&a);
        bsp_free(&b);
        bsp_free(&c);
    }
}

/* avg_visible_faces the slow way: for each leaf, every leaf whose cluster
 * its cluster's row holds, their faces gathered in a set. */
static double slow_visible_faces(const bsp_t *b, int numclusters)
{
    int rowbytes = vis_row_bytes(numclusters);
    uint8_t *row = malloc((size_t)rowbytes + 1), *in = malloc((size_t)b->numfaces + 1);
    double total = 0;
    int leaves = 0;
    for (int i = 0; i < b->numleafs; i++) {
        int c = b->leafs[i].cluster;
        if (c < 0 || c >= numclusters) continue;
        leaves++;
        if (!vis_lump_row(b->visdata, b->visdatasize, c, 0, row)) continue;
        memset(in, 0, (size_t)b->numfaces);
        for (int j = 0; j < b->numleafs; j++) {
            int d = b->leafs[j].cluster;
            if (d < 0 || d >= numclusters || !(row[d >> 3] >> (d & 7) & 1)) continue;
            for (uint32_t k = 0; k < b->leafs[j].numleaffaces; k++) {
                uint32_t f = b->leaffaces[b->leafs[j].firstleafface + k];
                if (f < (uint32_t)b->numfaces && !in[f]) in[f] = 1, total++;
            }
        }
    }
    free(row);
    free(in);
    return leaves ? total / leaves : 0;
}

/* PVS statistics against the figures in STATS.tsv, which the program that
 * prepared the reference corpus measured. */
static void test_stats_match_reference(void **state)
{
    FILE *f = fopen(BSPDIR "/STATS.tsv", "r");
    assert_non_null(f);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char name[256];
        int clusters, maxv;
        double avg;
        if (sscanf(line, "%255[^\t]\t%d\t%lf\t%d", name, &clusters, &avg, &maxv) != 4) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", BSPDIR, name);
        bsp_t b;
        q2err_t err;
        if (!bsp_read_file(path, &b, &err)) fail_msg("%s", err.msg);
        bsp_stats_t st;
        bsp_compute_stats(&b, &st);
        assert_int_equal(st.numclusters, clusters);
        assert_int_equal(st.max_visible, maxv);
        if (fabs(st.avg_visible - avg) > 0.05 + 1e-9)
            fail_msg("%s: avg visible %.3f, reference %.1f", name, st.avg_visible, avg);
        /* Every cluster sees at least itself. */
        assert_true(st.avg_visible >= 1.0);
        double slow = slow_visible_faces(&b, st.numclusters);
        if (fabs(st.avg_visible_faces - slow) > 1e-6 || slow <= 0 || slow > b.numfaces)
            fail_msg("%s: avg visible faces %.3f, counted %.3f (faces %d)", name, st.avg_visible_faces, slow,
                     b.numfaces);
        assert_true(st.max_hearable >= st.max_visible);
        /* Histogram totals add up. */
        int total = st.hist_larger;
        for (int x = 0; x < BSP_STATS_MAX_DIM; x++)
            for (int y = 0; y < BSP_STATS_MAX_DIM; y++) total += st.hist[x][y];
        assert_int_equal(total, st.faces_with_lightmaps);
        assert_true(st.lightmap_bytes <= b.lightdatasize);
        bsp_free(&b);
        n++;
    }
    fclose(f);
    assert_true(n >= 10);
}

/* Every file in the bad corpus fails with the phrase EXPECTED.tsv names. */
static void test_bad_corpus(void **state)
{
    FILE *f = fopen(BADDIR "/EXPECTED.tsv", "r");
    assert_non_null(f);
    char line[1024];
    int n = 0, nbsp = 0, nmap = 0, nprt = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        char name[256], kind[16], phrase[512];
        if (sscanf(line, "%255[^\t]\t%15[^\t]\t%511[^\n]", name, kind, phrase) != 3) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", BADDIR, name);
        q2err_t err;
        memset(&err, 0, sizeof err);
        char msg[1024] = "";
        if (!strcmp(kind, "bsp")) {
            bsp_t b;
            if (bsp_read_file(path, &b, &err)) {
                /* The expected problem need not be the first one reported. */
                finder_t fd = {phrase, "", false};
                int problems = bsp_check(&b, 0, find_phrase, &fd);
                bsp_free(&b);
                if (problems == 0) fail_msg("%s: accepted", name);
                snprintf(msg, sizeof msg, "%s", fd.found ? phrase : fd.first);
            } else {
                snprintf(msg, sizeof msg, "%s", err.msg);
            }
            nbsp++;
        } else if (!strcmp(kind, "map")) {
            map_t m;
            if (map_read_file(path, &m, &err)) fail_msg("%s: accepted", name);
            snprintf(msg, sizeof msg, "%s", err.msg);
            nmap++;
        } else if (!strcmp(kind, "prt")) {
            prt_t p;
            if (prt_read_file(path, &p, &err)) fail_msg("%s: accepted", name);
            snprintf(msg, sizeof msg, "%s", err.msg);
            nprt++;
        } else {
            fail_msg("unknown kind '%s'", kind);
        }
        if (!strstr(msg, phrase)) fail_msg("%s: message '%s' lacks '%s'", name, msg, phrase);
        n++;
    }
    fclose(f);
    print_message("%d malformed inputs: %d bsp, %d map, %d prt\n", n, nbsp, nmap, nprt);
    assert_true(n >= 30);
    assert_true(nbsp >= 20 && nmap >= 5 && nprt >= 5);
}

/* Every prefix of a valid bsp is refused cleanly by the reader, and any
 * single corrupted 32-bit word in the header or lumps is either refused by
 * the reader or fully walked by bsp_check and the statistics without a
 * crash (the sanitizer build turns any out-of-bounds access into a
 * failure). */

/* Overwrites a word chosen by the xorshift state *x with one of a few
 * boundary values; the old bytes go to saved. Returns its offset. */
static size_t corrupt_word(uint32_t *x, uint8_t *data, size_t size, uint8_t saved[4])
{
    static const uint32_t values[] = {0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u, 0xffffu, 0x8000u, 12345};
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    size_t pos = (*x % (size / 4)) * 4;
    uint32_t v = values[(*x >> 24) % 8];
    memcpy(saved, data + pos, 4);
    memcpy(data + pos, &v, 4);
    return pos;
}

static void test_mutations_do_not_crash(void **state)
{
    uint8_t *data;
    size_t size;
    q2err_t err;
    assert_true(file_read_all(BSPDIR "/q2tools-220_q2_door.bsp", 1 << 24, &data, &size, &err));
    for (size_t len = 0; len < size; len += 97) {
        bsp_t b;
        bool ok = bsp_read_memory(data, len, "prefix", &b, &err);
        if (ok) bsp_free(&b);
        assert_false(ok);
    }
    uint32_t x = 0x9e3779b9u;
    int rejected = 0, checked_bad = 0;
    for (int it = 0; it < 400; it++) {
        uint8_t saved[4];
        size_t pos = corrupt_word(&x, data, size, saved);
        bsp_t b;
        if (bsp_read_memory(data, size, "mut", &b, &err)) {
            bsp_stats_t st;
            bsp_compute_stats(&b, &st);
            checked_bad += bsp_check(&b, 0, NULL, NULL) > 0;
            bsp_free(&b);
        } else {
            rejected++;
        }
        memcpy(data + pos, saved, 4);
    }
    print_message("mutations: %d rejected by the reader, %d flagged by bsp_check of 400\n", rejected, checked_bad);
    assert_true(rejected + checked_bad > 100);
    free(data);
}

/* The threaded reader and validator (bsp_read_memory_threads,
 * bsp_validate_threads) against the one-thread ones: the same lumps, the
 * same verdicts and the same messages, on the reference bsps, on every
 * malformed bsp of the corpus and on corrupted words of a valid bsp (which
 * the validator mostly refuses, with problems of every kind); and the
 * threaded writer's file against bsp_write_memory's bytes. */
static void assert_same_read(const uint8_t *data, size_t size, const char *name, int *refused, int *invalid,
                             int *written)
{
    bsp_t a, b;
    q2err_t ea, eb;
    memset(&ea, 0, sizeof ea);
    memset(&eb, 0, sizeof eb);
    bool oa = bsp_read_memory(data, size, name, &a, &ea);
    bool ob = bsp_read_memory_threads(data, size, name, &b, NULL, 3, &eb);
    assert_int_equal(oa, ob);
    if (!oa) {
        assert_string_equal(ea.msg, eb.msg);
        (*refused)++;
        return;
    }
    assert_same_lumps(&a, &b);
    /* the threaded writer's file holds bsp_write_memory's bytes */
    uint8_t *mem, *file;
    size_t memsize, filesize;
    char dir[] = "/tmp/q2map_bspthreadsXXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/w.bsp", dir);
    assert_true(bsp_write_memory(&a, &mem, &memsize, &ea));
    bool wa = bsp_write_file_threads(path, &a, NULL, 3, &eb);
    if (wa) {
        (*written)++;
        assert_true(file_read_all(path, 1 << 26, &file, &filesize, &eb));
        assert_int_equal(memsize, filesize);
        assert_memory_equal(mem, file, memsize);
        free(file);
        remove(path);
    }
    rmdir(dir);
    free(mem);
    bool va = bsp_validate(&a, name, &ea), vb = bsp_validate_threads(&a, name, NULL, 3, &eb);
    assert_int_equal(va, vb);
    if (!va) {
        assert_string_equal(ea.msg, eb.msg);
        (*invalid)++;
    }
    bsp_free(&a);
    bsp_free(&b);
}

static void test_threads_same_result(void **state)
{
    int refused = 0, invalid = 0, files = 0, written = 0;
    const char *dirs[] = {BSPDIR, BADDIR};
    for (int d = 0; d < 2; d++) {
        names_t n;
        list_dir(dirs[d], ".bsp", &n);
        for (int i = 0; i < n.count; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirs[d], n.names[i]);
            uint8_t *data;
            size_t size;
            q2err_t err;
            if (!file_read_all(path, 1 << 26, &data, &size, &err)) fail_msg("%s", err.msg);
            assert_same_read(data, size, n.names[i], &refused, &invalid, &written);
            files++;
            free(data);
        }
    }
    uint8_t *data;
    size_t size;
    q2err_t err;
    assert_true(file_read_all(BSPDIR "/q2tools-220_q2_door.bsp", 1 << 24, &data, &size, &err));
    uint32_t x = 0x2545f491u;
    for (int it = 0; it < 300; it++) {
        uint8_t saved[4];
        size_t pos = corrupt_word(&x, data, size, saved);
        assert_same_read(data, size, "mut", &refused, &invalid, &written);
        memcpy(data + pos, saved, 4);
    }
    free(data);
    print_message("%d files and 300 mutations: %d refused by the reader, %d by the validator, %d written\n", files,
                  refused, invalid, written);
    assert_true(files >= 30);
    assert_true(written > 200);
    assert_true(refused > 10 && invalid > 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_bsps),
        cmocka_unit_test(test_stats_match_reference),
        cmocka_unit_test(test_bad_corpus),
        cmocka_unit_test(test_mutations_do_not_crash),
        cmocka_unit_test(test_threads_same_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
