/* The extended QBSP format (reader, writer, limits of each format) and the
 * engine-limit checks of formats/enginelimits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../common/mem.h"
#include "../../formats/bspcheck.h"
#include "../../formats/bspfile.h"
#include "../../formats/bytes.h"
#include "../../formats/enginelimits.h"

#define BSPDIR Q2MAP_TEST_DATA "/bsp"

static const char *const REFS[] = {"ericw_q2_door.bsp", "ericw_q2_areaportal.bsp", "ericw_q2_light_sun.bsp"};

static void load(const char *name, bsp_t *b)
{
    char path[512];
    q2err_t err;
    snprintf(path, sizeof path, "%s/%s", BSPDIR, name);
    if (!bsp_read_file(path, b, &err)) fail_msg("%s", err.msg);
    assert_int_equal(b->format, BSP_FORMAT_IBSP);
}

static void assert_same(const bsp_t *a, const bsp_t *b)
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
    SAME(areas, numareas, sizeof *a->areas);
    SAME(areaportals, numareaportals, sizeof *a->areaportals);
#undef SAME
    assert_int_equal(a->numtexinfo, b->numtexinfo);
}

/* An IBSP file rewritten as QBSP reads back to the same records, with the
 * QBSP ident and record sizes, and written as IBSP again gives the
 * original bytes. */
static void test_qbsp_round_trip(void **state)
{
    (void)state;
    for (size_t r = 0; r < sizeof REFS / sizeof REFS[0]; r++) {
        bsp_t a, b;
        q2err_t err;
        load(REFS[r], &a);
        uint8_t *ib, *qb, *ib2;
        size_t is, qs, is2;
        assert_true(bsp_write_memory(&a, &ib, &is, &err));
        a.format = BSP_FORMAT_QBSP;
        assert_true(bsp_write_memory(&a, &qb, &qs, &err));
        assert_memory_equal(qb, "QBSP", 4);
        assert_int_equal(rd_i32(qb + 4), 38);
        /* nodes 44, faces 28, leafs 52 bytes, as q2tools-220 and ericw-tools */
        assert_int_equal(rd_i32(qb + 8 + 8 * LUMP_NODES + 4), 44 * a.numnodes);
        assert_int_equal(rd_i32(qb + 8 + 8 * LUMP_FACES + 4), 28 * a.numfaces);
        assert_int_equal(rd_i32(qb + 8 + 8 * LUMP_LEAFS + 4), 52 * a.numleafs);
        assert_int_equal(rd_i32(qb + 8 + 8 * LUMP_EDGES + 4), 8 * a.numedges);
        assert_int_equal(rd_i32(qb + 8 + 8 * LUMP_LEAFFACES + 4), 4 * a.numleaffaces);
        assert_int_equal(rd_i32(qb + 8 + 8 * LUMP_BRUSHSIDES + 4), 8 * a.numbrushsides);
        assert_true(qs > is);
        if (!bsp_read_memory(qb, qs, "qbsp", &b, &err)) fail_msg("%s", err.msg);
        assert_int_equal(b.format, BSP_FORMAT_QBSP);
        assert_same(&a, &b);
        assert_int_equal(bsp_check(&b, 0, NULL, NULL), 0);
        b.format = BSP_FORMAT_IBSP;
        assert_true(bsp_write_memory(&b, &ib2, &is2, &err));
        assert_int_equal(is, is2);
        assert_memory_equal(ib, ib2, is);
        free(ib);
        free(qb);
        free(ib2);
        bsp_free(&a);
        bsp_free(&b);
    }
}

/* A vised, lit QBSP file as q2map writes it: read, valid, the same lumps
 * once rewritten, and valid as IBSP too (the map is small). */
static void test_qbsp_file(void **state)
{
    (void)state;
    bsp_t a, b;
    q2err_t err;
    if (!bsp_read_file(Q2MAP_TEST_DATA "/qbspformat/q2_light_group_qbism.bsp", &a, &err)) fail_msg("%s", err.msg);
    assert_int_equal(a.format, BSP_FORMAT_QBSP);
    assert_int_equal(bsp_check(&a, 0, NULL, NULL), 0);
    assert_true(a.visdatasize > 0 && a.lightdatasize > 0 && a.nummodels > 1);
    uint8_t *d;
    size_t n;
    assert_true(bsp_write_memory(&a, &d, &n, &err));
    assert_true(bsp_read_memory(d, n, "again", &b, &err));
    assert_same(&a, &b);
    free(d);
    bsp_free(&b);
    a.format = BSP_FORMAT_IBSP;
    assert_true(bsp_check_limits(&a, &err));
    assert_true(bsp_write_memory(&a, &d, &n, &err));
    assert_true(bsp_read_memory(d, n, "ibsp", &b, &err));
    assert_int_equal(b.format, BSP_FORMAT_IBSP);
    assert_int_equal(bsp_check(&b, 0, NULL, NULL), 0);
    assert_same(&a, &b);
    free(d);
    bsp_free(&b);
    bsp_free(&a);
}

static bool has_excess(const bsp_t *b, bsp_format_t f, const char *name)
{
    bsp_excess_t ex[64];
    int n = bsp_format_excesses(b, f, ex, 64);
    for (int i = 0; i < n && i < 64; i++)
        if (strcmp(ex[i].name, name) == 0) return true;
    return false;
}

/* Values past IBSP's 16-bit fields survive QBSP and are reported for
 * IBSP, where the writer would have to truncate them. */
static void test_wide_values(void **state)
{
    (void)state;
    bsp_t a, b;
    q2err_t err;
    load(REFS[0], &a);
    assert_int_equal(bsp_format_excesses(&a, BSP_FORMAT_IBSP, NULL, 0), 0);
    assert_true(bsp_check_limits(&a, &err));
    a.leafs[1].cluster = 40000;
    a.leafs[1].firstleafbrush = 70000;
    a.nodes[0].mins[0] = -40000.5f;
    a.faces[0].numedges = 33000;
    a.edges[1].v[0] = 70001;
    a.leaffaces[0] = 70002;
    a.brushsides[0].planenum = 70003;
    a.brushsides[0].texinfo = 40004;
    assert_true(has_excess(&a, BSP_FORMAT_IBSP, "16-bit leaf cluster"));
    assert_true(has_excess(&a, BSP_FORMAT_IBSP, "16-bit leaf list index"));
    assert_true(has_excess(&a, BSP_FORMAT_IBSP, "16-bit node/leaf bounds"));
    assert_true(has_excess(&a, BSP_FORMAT_IBSP, "16-bit face numedges"));
    assert_int_equal(bsp_format_excesses(&a, BSP_FORMAT_QBSP, NULL, 0), 0);
    assert_false(bsp_check_limits(&a, &err));
    assert_non_null(strstr(err.msg, "16-bit"));

    a.format = BSP_FORMAT_QBSP;
    assert_true(bsp_check_limits(&a, &err));
    uint8_t *qb;
    size_t qs;
    assert_true(bsp_write_memory(&a, &qb, &qs, &err));
    assert_true(bsp_read_memory(qb, qs, "qbsp", &b, &err));
    assert_int_equal(b.leafs[1].cluster, 40000);
    assert_int_equal(b.leafs[1].firstleafbrush, 70000);
    assert_true(b.nodes[0].mins[0] == -40000.5f);
    assert_int_equal(b.faces[0].numedges, 33000);
    assert_int_equal(b.edges[1].v[0], 70001);
    assert_int_equal(b.leaffaces[0], 70002);
    assert_int_equal(b.brushsides[0].planenum, 70003);
    assert_int_equal(b.brushsides[0].texinfo, 40004);
    free(qb);
    bsp_free(&b);

    /* A count past IBSP's MAX_MAP_* but within QBSP's. */
    a.format = BSP_FORMAT_IBSP;
    a.leafs[1] = a.leafs[2];
    a.nodes[0].mins[0] = 0;
    a.faces[0].numedges = a.faces[1].numedges;
    a.numtexinfo = MAX_MAP_TEXINFO + 5; /* the count is all the check reads */
    bsp_excess_t ex[4];
    int n = bsp_format_excesses(&a, BSP_FORMAT_IBSP, ex, 4);
    assert_int_equal(n, 1);
    assert_string_equal(ex[0].name, "MAX_MAP_TEXINFO");
    assert_int_equal(ex[0].count, MAX_MAP_TEXINFO + 5);
    assert_int_equal(ex[0].limit, MAX_MAP_TEXINFO);
    assert_false(has_excess(&a, BSP_FORMAT_QBSP, "MAX_MAP_TEXINFO"));
    /* areas are not raised by QBSP */
    int na = a.numareas;
    a.numareas = MAX_MAP_AREAS + 1;
    assert_true(has_excess(&a, BSP_FORMAT_QBSP, "MAX_MAP_AREAS"));
    a.numareas = na;
    a.numtexinfo = 1;
    bsp_free(&a);
}

static const englimit_t *finding(const englimit_list_t *l, const char *limit)
{
    for (int i = 0; i < l->count; i++)
        if (strcmp(l->items[i].limit, limit) == 0) return &l->items[i];
    return NULL;
}

static char *entity_text(int nents, const char *cls, int nbrush)
{
    size_t cap = 256 + (size_t)(nents + nbrush) * 96;
    char *t = q2_malloc(cap), *p = t;
    p += sprintf(p, "{\n\"classname\" \"worldspawn\"\n}\n");
    for (int i = 0; i < nents; i++) p += sprintf(p, "{\n\"classname\" \"%s\"\n\"origin\" \"%d 0 0\"\n}\n", cls, i);
    for (int i = 0; i < nbrush; i++) p += sprintf(p, "{\n\"classname\" \"func_door\"\n\"model\" \"*%d\"\n}\n", i + 1);
    return t;
}

static void test_engine_limits(void **state)
{
    (void)state;
    bsp_t a;
    q2err_t err;
    for (size_t r = 0; r < sizeof REFS / sizeof REFS[0]; r++) {
        englimit_list_t l = {0};
        load(REFS[r], &a);
        assert_true(englimits_check(&a, &l, &err));
        if (l.count) {
            char line[1024];
            englimit_describe(&l.items[0], line, sizeof line);
            fail_msg("%s: %s", REFS[r], line);
        }
        englimits_free(&l);
        bsp_free(&a);
    }

    load(REFS[0], &a);
    englimit_list_t l = {0};
    /* MAX_MODELS: 237 brush models + 19 the game registers = 256 > 255 */
    a.nummodels = 237;
    char *t = entity_text(0, "info_null", 236);
    bsp_set_entities(&a, t);
    free(t);
    assert_true(englimits_check(&a, &l, &err));
    const englimit_t *f = finding(&l, "MAX_MODELS");
    assert_non_null(f);
    assert_int_equal(f->figure, 237 + ENGINE_WORLDSPAWN_MODELS);
    assert_int_equal(f->max, 255);
    assert_non_null(strstr(f->detail, "func_door 236"));
    assert_non_null(strstr(f->engines, "Q2PRO"));
    englimits_free(&l);
    a.nummodels = 236; /* one fewer: within the limit */
    assert_true(englimits_check(&a, &l, &err));
    assert_null(finding(&l, "MAX_MODELS"));
    englimits_free(&l);

    /* MAX_EDICTS: 1023 entities + world + client */
    t = entity_text(1023, "info_notnull", 0);
    bsp_set_entities(&a, t);
    free(t);
    assert_true(englimits_check(&a, &l, &err));
    f = finding(&l, "MAX_EDICTS");
    assert_non_null(f);
    assert_int_equal(f->figure, 1023 + ENGINE_RESERVED_EDICTS);
    assert_non_null(strstr(f->detail, "info_notnull 1023"));
    englimits_free(&l);
    t = entity_text(1022, "info_notnull", 0);
    bsp_set_entities(&a, t);
    free(t);
    assert_true(englimits_check(&a, &l, &err));
    assert_null(finding(&l, "MAX_EDICTS"));
    englimits_free(&l);

    /* Areaportal records past id's MAX_MAP_AREAS check, a portal number
     * past MAX_MAP_AREAPORTALS, and the QBSP ident. */
    a.areaportals = q2_realloc(a.areaportals, sizeof *a.areaportals * 300);
    for (int i = a.numareaportals; i < 300; i++) a.areaportals[i] = (dareaportal_t){i == 299 ? 1500 : 1, 1};
    a.numareaportals = 300;
    a.format = BSP_FORMAT_QBSP;
    assert_true(englimits_check(&a, &l, &err));
    assert_non_null(finding(&l, "MAX_MAP_AREAS (areaportal records)"));
    f = finding(&l, "MAX_MAP_AREAPORTALS");
    assert_non_null(f);
    assert_int_equal(f->figure, 1501);
    assert_non_null(finding(&l, "QBSP format"));
    englimits_free(&l);
    bsp_free(&a);

    /* Lightmaps past 17 luxels: texture vectors 8 times finer. */
    load(REFS[0], &a);
    for (int i = 0; i < a.numtexinfo; i++)
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < 3; k++) a.texinfo[i].vecs[s][k] *= 8;
    assert_true(englimits_check(&a, &l, &err));
    f = finding(&l, "surface extents");
    assert_non_null(f);
    assert_true(f->figure > ENGINE_MAX_SURFACE_EXTENT);
    assert_non_null(strstr(f->detail, "face "));
    englimits_free(&l);
    bsp_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qbsp_round_trip),
        cmocka_unit_test(test_qbsp_file),
        cmocka_unit_test(test_wide_values),
        cmocka_unit_test(test_engine_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
