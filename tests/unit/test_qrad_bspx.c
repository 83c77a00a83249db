/* qrad's BSPX lumps on a small room (tests/data/bspx/bspx_room.map: a lit
 * east part with a pillar, a divider, and a west end the light reaches
 * only round the divider's end):
 *  - light grid samples agree with the lightmaps: a sample over the lit
 *    floor is brighter than one in the dark west corner, and samples over
 *    the floor are within the factor their geometry allows of the luxel
 *    under them;
 *  - decoupled lightmaps at 8 units per luxel hold four times the luxels
 *    of the vanilla ones per unit of area, and agree with them;
 *  - face normals are the flat faces' normals with perpendicular unit
 *    tangents;
 *  - decoupled lightmaps with dirt's random turns (_dirtmode 1) are the same
 *    bytes run after run: the turns' seed is the face's number, not the
 *    decoupled face's address less the vanilla faces' (which changed with
 *    the heap and made them differ between runs and platforms);
 *  - the formats module: a hand-made octree with a cycle, a link past the
 *    nodes or leafs, and a count past the end is refused; encode and
 *    decode invert each other; the directory round-trips through the bsp
 *    writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspcheck.h"
#include "bspx.h"
#include "bytes.h"
#include "qrad.h"

#define ROOM Q2MAP_TEST_DATA "/bspx/bspx_room.bsp"

typedef struct lit_t {
    bsp_t bsp;
    lightgrid_t grid;
    facenormals_t normals;
    decoupled_lm_t *dlm;
} lit_t;

static void light_room(lit_t *l, double upl)
{
    q2err_t err;
    bsp_init(&l->bsp);
    assert_true(bsp_read_file(ROOM, &l->bsp, &err));
    qrad_opts_t o;
    qrad_opts_default(&o);
    o.threads = 2;
    o.lightgrid = true;
    o.wrnormals = true;
    o.world_units_per_luxel = upl;
    log_t log;
    log_init(&log, LOG_QUIET, stdout, stderr);
    if (!qrad_run(&l->bsp, &o, NULL, &log, NULL, NULL, &err)) fail_msg("qrad: %s", err.msg);
    assert_int_equal(bsp_check(&l->bsp, 0, NULL, NULL), 0);
    bspx_t x;
    assert_true(bspx_parse(&l->bsp, &x, NULL, &err));
    const bspx_lump_t *g = bspx_find(&x, "LIGHTGRID_OCTREE"), *n = bspx_find(&x, "FACENORMALS"),
                      *d = bspx_find(&x, "DECOUPLED_LM");
    assert_non_null(g);
    assert_non_null(n);
    assert_non_null(d);
    if (!lightgrid_decode(g->data, g->size, &l->grid, &err)) fail_msg("%s", err.msg);
    if (!facenormals_decode(&l->bsp, n->data, n->size, &l->normals, &err)) fail_msg("%s", err.msg);
    if (!decoupled_decode(&l->bsp, d->data, d->size, &l->dlm, &err)) fail_msg("%s", err.msg);
    bspx_free(&x);
}

static void lit_free(lit_t *l)
{
    lightgrid_free(&l->grid);
    facenormals_free(&l->normals);
    free(l->dlm);
    bsp_free(&l->bsp);
}

/* Style-0 brightness (mean of the channels) of the grid point nearest p. */
static double grid_at(const lightgrid_t *g, double x, double y, double z)
{
    int c[3];
    double p[3] = {x, y, z};
    for (int a = 0; a < 3; a++) c[a] = (int)floor((p[a] - g->mins[a]) / g->dist[a] + 0.5);
    const lg_sample_t *s = lightgrid_lookup(g, c[0], c[1], c[2]);
    if (!s) fail_msg("grid point %d %d %d (near %g %g %g) is occluded", c[0], c[1], c[2], x, y, z);
    for (int k = 0; k < s->count; k++)
        if (s->style[k] == 0) return (s->rgb[k][0] + s->rgb[k][1] + s->rgb[k][2]) / 3.0;
    return 0;
}

/* The floor face (normal +z, at z = 0) holding (x, y). */
static int floor_face(const bsp_t *b, double x, double y)
{
    for (int f = 0; f < b->models[0].numfaces; f++) {
        const dface_t *df = &b->faces[f];
        const dplane_t *pl = &b->planes[df->planenum];
        double nz = df->side ? -pl->normal[2] : pl->normal[2];
        if (nz < 0.99 || fabs(pl->dist) > 0.01) continue;
        double lo[2] = {1e30, 1e30}, hi[2] = {-1e30, -1e30};
        for (int k = 0; k < df->numedges; k++) {
            int se = b->surfedges[df->firstedge + k];
            const float *v = b->vertexes[se < 0 ? b->edges[-se].v[1] : b->edges[se].v[0]].point;
            for (int a = 0; a < 2; a++) {
                lo[a] = fmin(lo[a], v[a]);
                hi[a] = fmax(hi[a], v[a]);
            }
        }
        if (x >= lo[0] && x <= hi[0] && y >= lo[1] && y <= hi[1]) return f;
    }
    fail_msg("no floor face under %g %g", x, y);
    return -1;
}

/* Style-0 brightness of the vanilla luxel nearest (x, y, 0). */
static double floor_luxel(const bsp_t *b, double x, double y)
{
    int f = floor_face(b, x, y);
    const dface_t *df = &b->faces[f];
    const dtexinfo_t *ti = &b->texinfo[df->texinfo];
    face_extents_t e;
    assert_true(bsp_face_extents(b, f, &e, NULL));
    double s = x * ti->vecs[0][0] + y * ti->vecs[0][1] + ti->vecs[0][3];
    double t = x * ti->vecs[1][0] + y * ti->vecs[1][1] + ti->vecs[1][3];
    int i = (int)floor((s - e.texturemins[0]) / LIGHTMAP_SCALE + 0.5), j = (int)floor((t - e.texturemins[1]) / LIGHTMAP_SCALE + 0.5);
    assert_true(i >= 0 && i < e.size[0] && j >= 0 && j < e.size[1]);
    const uint8_t *p = b->lightdata + df->lightofs + ((size_t)j * e.size[0] + i) * 3;
    return (p[0] + p[1] + p[2]) / 3.0;
}

static void test_grid_agrees_with_lightmaps(void **state)
{
    (void)state;
    lit_t l;
    light_room(&l, 8);
    /* Bright: over the floor near the style-0 light (352 64 160). Dark: the
     * west corner behind the divider. */
    double bright = grid_at(&l.grid, 352, 64, 32), dark = grid_at(&l.grid, -480, -224, 32);
    printf("grid over the lit floor %.1f, in the dark corner %.1f\n", bright, dark);
    assert_true(bright > 2 * dark + 20);
    /* Over the floor, a sample sees the light (no falloff) without the
     * floor's cosine (these points see it within 25 degrees of straight up:
     * cos > 0.9) and about as much reflected light; so each is within 30%
     * of the luxel under it. */
    static const double pts[][2] = {{352, 64}, {320, 32}, {384, 96}, {288, 96}, {416, 32}};
    for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
        double g = grid_at(&l.grid, pts[k][0], pts[k][1], 32), lm = floor_luxel(&l.bsp, pts[k][0], pts[k][1]);
        printf("  at %g %g: grid %.1f, floor luxel %.1f\n", pts[k][0], pts[k][1], g, lm);
        assert_true(g > lm / 1.3 && g < lm * 1.3);
    }
    /* The dark corner's sample is within that factor of the lightmap there,
     * or both are near black. */
    double dlm = floor_luxel(&l.bsp, -480, -224);
    printf("  dark corner: grid %.1f, floor luxel %.1f\n", dark, dlm);
    assert_true(fabs(dark - dlm) < 8 || (dark > dlm / 1.3 && dark < dlm * 1.3));
    lit_free(&l);
}

static void test_decoupled_density(void **state)
{
    (void)state;
    lit_t l;
    light_room(&l, 8);
    long long van = 0, dec = 0, van_raw = 0, dec_raw = 0;
    for (int f = 0; f < l.bsp.numfaces; f++) {
        const dface_t *df = &l.bsp.faces[f];
        if (l.bsp.texinfo[df->texinfo].flags & (SURF_SKY | SURF_WARP)) continue;
        face_extents_t e;
        assert_true(bsp_face_extents(&l.bsp, f, &e, NULL));
        assert_true(l.dlm[f].offset >= 0);
        /* Luxels per area: the grid's cells, (w-1)(h-1), not its points. */
        van += (long long)(e.size[0] - 1) * (e.size[1] - 1);
        dec += (long long)(l.dlm[f].width - 1) * (l.dlm[f].height - 1);
        van_raw += (long long)e.size[0] * e.size[1];
        dec_raw += (long long)l.dlm[f].width * l.dlm[f].height;
    }
    printf("luxel cells: vanilla %lld, decoupled %lld (%.2fx); luxels %lld, %lld (%.2fx)\n", van, dec,
           (double)dec / van, van_raw, dec_raw, (double)dec_raw / van_raw);
    assert_true(dec >= 3.9 * van && dec <= 4.1 * van);
    /* Decoupled luxels agree with the vanilla ones at the same place: the
     * lit floor near the light, where both are smooth. */
    int f = floor_face(&l.bsp, 352, 64);
    const decoupled_lm_t *d = &l.dlm[f];
    double s = d->world_to_lm[0][0] * 352 + d->world_to_lm[0][1] * 64 + d->world_to_lm[0][3];
    double t = d->world_to_lm[1][0] * 352 + d->world_to_lm[1][1] * 64 + d->world_to_lm[1][3];
    int i = (int)floor(s + 0.5), j = (int)floor(t + 0.5);
    assert_true(i >= 0 && i < d->width && j >= 0 && j < d->height);
    const uint8_t *p = l.bsp.lightdata + d->offset + ((size_t)j * d->width + i) * 3;
    double dv = (p[0] + p[1] + p[2]) / 3.0, vv = floor_luxel(&l.bsp, 352, 64);
    printf("at 352 64: decoupled %.1f, vanilla %.1f\n", dv, vv);
    assert_true(fabs(dv - vv) <= 0.1 * vv + 3);
    lit_free(&l);
}

/* Inserts keys (lines of "key" "value") into b's worldspawn. */
static void add_worldspawn_keys(bsp_t *b, const char *keys)
{
    const char *key = "\"classname\" \"worldspawn\"";
    char *at = strstr(b->entities, key);
    assert_non_null(at);
    size_t pre = (size_t)(at - b->entities) + strlen(key);
    char *text = malloc(strlen(b->entities) + strlen(keys) + 1);
    memcpy(text, b->entities, pre);
    strcpy(text + pre, keys);
    strcat(text, b->entities + pre);
    bsp_set_entities(b, text);
    free(text);
}

/* worldspawn's _world_units_per_luxel 16 overrides -world_units_per_luxel 8
 * for the world's faces: their decoupled lightmaps have the vanilla density. */
static void test_entity_key(void **state)
{
    (void)state;
    bsp_t b;
    q2err_t err;
    bsp_init(&b);
    assert_true(bsp_read_file(ROOM, &b, &err));
    add_worldspawn_keys(&b, "\n\"_world_units_per_luxel\" \"16\"");
    qrad_opts_t o;
    qrad_opts_default(&o);
    o.bounce = 0;
    o.world_units_per_luxel = 8;
    log_t log;
    log_init(&log, LOG_QUIET, stdout, stderr);
    assert_true(qrad_run(&b, &o, NULL, &log, NULL, NULL, &err));
    bspx_t x;
    assert_true(bspx_parse(&b, &x, NULL, &err));
    const bspx_lump_t *l = bspx_find(&x, "DECOUPLED_LM");
    assert_non_null(l);
    decoupled_lm_t *d;
    assert_true(decoupled_decode(&b, l->data, l->size, &d, &err));
    long long van = 0, dec = 0;
    for (int f = 0; f < b.numfaces; f++) {
        face_extents_t e;
        assert_true(bsp_face_extents(&b, f, &e, NULL));
        van += (long long)(e.size[0] - 1) * (e.size[1] - 1);
        dec += (long long)(d[f].width - 1) * (d[f].height - 1);
    }
    printf("with worldspawn at 16: vanilla cells %lld, decoupled %lld\n", van, dec);
    assert_true(dec >= 0.9 * van && dec <= 1.1 * van);
    free(d);
    bspx_free(&x);
    bsp_free(&b);
}

/* The room with worldspawn's _dirt 1 and _dirtmode 1, lit at 8 units per
 * luxel; returns the lighting lump (malloc'ed), *size its bytes. */
static uint8_t *light_dirty_room(size_t *size, int threads)
{
    bsp_t b;
    q2err_t err;
    bsp_init(&b);
    assert_true(bsp_read_file(ROOM, &b, &err));
    add_worldspawn_keys(&b, "\n\"_dirt\" \"1\"\n\"_dirtmode\" \"1\"");
    qrad_opts_t o;
    qrad_opts_default(&o);
    o.bounce = 0;
    o.threads = threads;
    o.world_units_per_luxel = 8;
    log_t log;
    log_init(&log, LOG_QUIET, stdout, stderr);
    assert_true(qrad_run(&b, &o, NULL, &log, NULL, NULL, &err));
    uint8_t *out = malloc(b.lightdatasize > 0 ? (size_t)b.lightdatasize : 1);
    memcpy(out, b.lightdata, (size_t)b.lightdatasize);
    *size = (size_t)b.lightdatasize;
    bsp_free(&b);
    return out;
}

static void test_decoupled_dirt_repeatable(void **state)
{
    (void)state;
    size_t n0, n;
    uint8_t *first = light_dirty_room(&n0, 2);
    /* Runs with other heaps behind them (blocks kept between them move
     * the next run's allocations) and other thread counts. */
    void *keep[4];
    for (int k = 0; k < 4; k++) {
        keep[k] = malloc((size_t)(k + 1) * 40000);
        uint8_t *again = light_dirty_room(&n, k % 2 ? 1 : 2);
        assert_int_equal(n, n0);
        if (memcmp(again, first, n) != 0) fail_msg("run %d: the lighting differs from the first run's", k + 1);
        free(again);
    }
    for (int k = 0; k < 4; k++) free(keep[k]);
    free(first);
}

/* worldspawn "_lightgrid" "1" and "_lightgrid_dist" turn the grid on
 * without the option, at that spacing; -lightgrid_dist wins over the key. */
static void test_lightgrid_keys(void **state)
{
    (void)state;
    for (int opt = 0; opt < 2; opt++) {
        bsp_t b;
        q2err_t err;
        bsp_init(&b);
        assert_true(bsp_read_file(ROOM, &b, &err));
        add_worldspawn_keys(&b, "\n\"_lightgrid\" \"1\"\n\"_lightgrid_dist\" \"64 64 48\"");
        qrad_opts_t o;
        qrad_opts_default(&o);
        o.bounce = 0;
        if (opt) {
            o.lightgrid_dist_set = true;
            o.lightgrid_dist[0] = o.lightgrid_dist[1] = o.lightgrid_dist[2] = 128;
        }
        log_t log;
        log_init(&log, LOG_QUIET, stdout, stderr);
        assert_true(qrad_run(&b, &o, NULL, &log, NULL, NULL, &err));
        bspx_t x;
        assert_true(bspx_parse(&b, &x, NULL, &err));
        const bspx_lump_t *l = bspx_find(&x, "LIGHTGRID_OCTREE");
        assert_non_null(l);
        lightgrid_t g;
        assert_true(lightgrid_decode(l->data, l->size, &g, &err));
        assert_true(g.dist[0] == (opt ? 128 : 64) && g.dist[2] == (opt ? 128 : 48));
        lightgrid_free(&g);
        bspx_free(&x);
        bsp_free(&b);
    }
}

static void test_face_normals(void **state)
{
    (void)state;
    lit_t l;
    light_room(&l, 8);
    const bsp_t *b = &l.bsp;
    int k = 0;
    for (int f = 0; f < b->numfaces; f++) {
        const dface_t *df = &b->faces[f];
        const dplane_t *pl = &b->planes[df->planenum];
        double sg = df->side ? -1 : 1;
        for (int v = 0; v < df->numedges; v++, k++) {
            const float *n = l.normals.vecs[l.normals.index[k][0]];
            const float *t = l.normals.vecs[l.normals.index[k][1]];
            const float *bt = l.normals.vecs[l.normals.index[k][2]];
            /* every corner of this room is 90 degrees, over -smooth's 44 */
            for (int a = 0; a < 3; a++) assert_true(fabs(n[a] - sg * pl->normal[a]) < 1e-6);
            double nt = n[0] * t[0] + n[1] * t[1] + n[2] * t[2], nb = n[0] * bt[0] + n[1] * bt[1] + n[2] * bt[2];
            double tl = t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
            assert_true(fabs(nt) < 1e-6 && fabs(nb) < 1e-6 && fabs(tl - 1) < 1e-5);
        }
    }
    assert_int_equal(k, l.normals.numverts);
    /* Six axis normals and their tangents: the table is small. */
    assert_true(l.normals.numvecs <= 18);
    lit_free(&l);
}

static void test_off_by_default(void **state)
{
    (void)state;
    bsp_t b;
    q2err_t err;
    bsp_init(&b);
    assert_true(bsp_read_file(ROOM, &b, &err));
    qrad_opts_t o;
    qrad_opts_default(&o);
    log_t log;
    log_init(&log, LOG_QUIET, stdout, stderr);
    assert_true(qrad_run(&b, &o, NULL, &log, NULL, NULL, &err));
    assert_int_equal(b.extrasize, 0);
    bsp_free(&b);
}

/* A hand-made octree: 4x4x4 points, one node at (2,2,2) whose octants are
 * leafs 0..7 of 2x2x2 samples each. */
static void make_grid(lightgrid_t *g)
{
    memset(g, 0, sizeof *g);
    for (int a = 0; a < 3; a++) {
        g->dist[a] = 32;
        g->size[a] = 4;
        g->mins[a] = -64;
    }
    g->numstyles = 1;
    g->numnodes = 1;
    g->nodes = calloc(1, sizeof(lg_node_t));
    for (int a = 0; a < 3; a++) g->nodes[0].division[a] = 2;
    g->numleafs = 8;
    g->leafs = calloc(8, sizeof(lg_leaf_t));
    g->numsamples = 64;
    g->samples = calloc(64, sizeof(lg_sample_t));
    for (int i = 0; i < 8; i++) {
        g->nodes[0].children[i] = LGNODE_LEAF | (uint32_t)i;
        lg_leaf_t *l = &g->leafs[i];
        l->mins[0] = i & 4 ? 2 : 0;
        l->mins[1] = i & 2 ? 2 : 0;
        l->mins[2] = i & 1 ? 2 : 0;
        l->size[0] = l->size[1] = l->size[2] = 2;
        l->firstsample = (size_t)i * 8;
        for (int k = 0; k < 8; k++) {
            lg_sample_t *s = &g->samples[i * 8 + k];
            s->count = 1;
            s->rgb[0][0] = (uint8_t)(i * 8 + k);
        }
    }
    g->samples[5].count = LG_OCCLUDED_MARK;
    g->root = 0;
}

static void test_grid_format(void **state)
{
    (void)state;
    lightgrid_t g, back;
    q2err_t err;
    make_grid(&g);
    uint8_t *data;
    size_t size;
    assert_true(lightgrid_encode(&g, &data, &size, &err));
    assert_true(lightgrid_decode(data, size, &back, &err));
    assert_int_equal(back.numleafs, 8);
    /* point (3, 1, 2): octant 4*1 + 2*0 + 1 = 5, local (1, 1, 0) -> 5*8 + 2*1 + 1 */
    const lg_sample_t *s = lightgrid_lookup(&back, 3, 1, 2);
    assert_non_null(s);
    assert_int_equal(s->rgb[0][0], 5 * 8 + 3);
    assert_null(lightgrid_lookup(&back, 1, 0, 1)); /* leaf 0's sample 5 (x1 y0 z1) is occluded */
    assert_null(lightgrid_lookup(&back, 4, 0, 0)); /* outside */
    uint8_t *again;
    size_t size2;
    assert_true(lightgrid_encode(&back, &again, &size2, &err));
    assert_int_equal(size, size2);
    assert_memory_equal(data, again, size);
    free(again);
    lightgrid_free(&back);
    struct {
        const char *what, *expect;
        size_t at; /* byte to change: node 0's child 3 is at 45 + 12 + 12 */
        uint32_t value;
    } cases[] = {
        {"a cycle", "cycle", 45 + 12 + 12, 0},
        {"a node past the nodes", "out of range", 45 + 12 + 12, 7},
        {"a leaf past the leafs", "out of range", 45 + 12 + 12, LGNODE_LEAF | 99},
        {"an occluded link with more bits", "other bits", 45 + 12 + 12, LGNODE_OCCLUDED | 1},
        {"a leaf count past the end", "cannot fit", 45 + 44, 1u << 24},
        {"a root past the nodes", "out of range", 37, 5},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t *bad = malloc(size);
        memcpy(bad, data, size);
        wr_u32(bad + cases[c].at, cases[c].value);
        lightgrid_t out;
        if (lightgrid_decode(bad, size, &out, &err)) fail_msg("%s: accepted", cases[c].what);
        if (!strstr(err.msg, cases[c].expect)) fail_msg("%s: '%s' lacks '%s'", cases[c].what, err.msg, cases[c].expect);
        free(bad);
    }
    /* Every truncation is refused, none read past the end (ASan). */
    for (size_t n = 0; n < size; n++) {
        lightgrid_t out;
        assert_false(lightgrid_decode(data, n, &out, &err));
    }
    free(data);
    lightgrid_free(&g);
}

static void test_directory_round_trip(void **state)
{
    (void)state;
    bsp_t b;
    q2err_t err;
    bsp_init(&b);
    assert_true(bsp_read_file(ROOM, &b, &err));
    uint8_t one[5] = {1, 2, 3, 4, 5}, two[8] = {9, 8, 7, 6, 5, 4, 3, 2};
    assert_true(bspx_put_lump(&b, "ZED", one, sizeof one, &err));
    assert_true(bspx_put_lump(&b, "ALPHA", two, sizeof two, &err));
    assert_true(bspx_put_lump(&b, "ZED", two, 3, &err)); /* replace */
    uint8_t *data;
    size_t size;
    assert_true(bsp_write_memory(&b, &data, &size, &err));
    bsp_t back;
    bsp_init(&back);
    assert_true(bsp_read_memory(data, size, "round trip", &back, &err));
    bspx_t x;
    bool had;
    assert_true(bspx_parse(&back, &x, &had, &err));
    assert_true(had);
    assert_int_equal(x.count, 2);
    assert_string_equal(x.lumps[0].name, "ALPHA"); /* sorted by name */
    assert_int_equal(x.lumps[1].size, 3);
    assert_memory_equal(x.lumps[1].data, two, 3);
    assert_memory_equal(x.lumps[0].data, two, 8);
    /* absolute, 4-aligned offsets in the file */
    size_t p = back.extra_offset;
    assert_memory_equal(data + p, "BSPX", 4);
    for (int i = 0; i < 2; i++) {
        uint32_t ofs = rd_u32(data + p + 8 + 32 * i + 24);
        assert_int_equal(ofs % 4, 0);
        assert_memory_equal(data + ofs, x.lumps[i].data, x.lumps[i].size);
    }
    bspx_free(&x);
    assert_true(bspx_put_lump(&back, "ALPHA", NULL, 0, &err));
    assert_true(bspx_put_lump(&back, "ZED", NULL, 0, &err));
    assert_int_equal(back.extrasize, 0);
    /* An offset past the file, and a count larger than the block. */
    back.extra = malloc(40);
    back.extrasize = 40;
    back.extra_offset = 1000;
    memset(back.extra, 0, 40);
    memcpy(back.extra, "BSPX", 4);
    wr_u32(back.extra + 4, 1);
    memcpy(back.extra + 8, "LUMP", 4);
    wr_u32(back.extra + 32, 1040);
    wr_u32(back.extra + 36, 1);
    assert_false(bspx_parse(&back, &x, NULL, &err));
    assert_non_null(strstr(err.msg, "outside"));
    wr_u32(back.extra + 4, 2);
    assert_false(bspx_parse(&back, &x, NULL, &err));
    assert_non_null(strstr(err.msg, "directory"));
    assert_true(bsp_check(&back, 0, NULL, NULL) > 0);
    bsp_free(&back);
    free(data);
    bsp_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_agrees_with_lightmaps), cmocka_unit_test(test_decoupled_density),
        cmocka_unit_test(test_face_normals),               cmocka_unit_test(test_off_by_default),
        cmocka_unit_test(test_entity_key),                 cmocka_unit_test(test_lightgrid_keys),
        cmocka_unit_test(test_grid_format),                cmocka_unit_test(test_directory_round_trip),
        cmocka_unit_test(test_decoupled_dirt_repeatable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
