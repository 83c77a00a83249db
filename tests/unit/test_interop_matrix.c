/* The interop matrix: every stage of ours takes what the other toolchains'
 * stages write, and what ours write obeys the rules their readers enforce.
 *
 * Inputs (tests/data/interop, made once by scripts/make_interop_data):
 * qbsp3's, q2tools-220's and ericw-tools' own unlit qbsp output, two of
 * ericw-tools' and one of q2tools-220's lit bsps (stripped of vis or light
 * here), and our qbsp's output rewritten the way qbsp3 and q2tools-220
 * write theirs. For each, our qvis, qrad, bspinfo and qview run as
 * programs; every lump a stage does not own must come back byte for byte.
 *
 * The other direction (our qbsp and qvis, then a peer's vis or light) is
 * checked against rules read from the peers' loaders, with a parser of the
 * raw bytes that shares nothing with formats/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../common/fileio.h"
#include "../../formats/bspcheck.h"
#include "../../formats/bspfile.h"
#include "../../formats/prt.h"
#include "../../formats/visrle.h"
#include "test_util.h"

#define DATA Q2MAP_TEST_DATA "/interop"

TU_SCRATCH_DIR(g_tmp, "q2map_interop")

/* ---------------------------------------------------------------- helpers */

typedef struct rawbsp_t {
    uint8_t *data;
    size_t size;
} rawbsp_t;

static rawbsp_t raw_read(const char *path)
{
    rawbsp_t r;
    r.data = tu_read_file(path, (size_t)256 << 20, &r.size);
    return r;
}

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* The bytes of lump i as the header gives them; fails on a lump outside
 * the file. */
static const uint8_t *raw_lump(const rawbsp_t *r, int i, size_t *len)
{
    assert_true(r->size >= BSP_HEADER_SIZE);
    uint32_t ofs = le32(r->data + 8 + 8 * i), n = le32(r->data + 12 + 8 * i);
    if ((uint64_t)ofs + n > r->size) fail_msg("lump %d (%u bytes at %u) runs past the file", i, n, ofs);
    *len = n;
    return r->data + ofs;
}

static void copy_file(const char *from, const char *to)
{
    size_t n;
    uint8_t *d = tu_read_file(from, (size_t)256 << 20, &n);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    assert_true(fwrite(d, 1, n, f) == n);
    assert_int_equal(fclose(f), 0);
    free(d);
}

/* Runs a command line with its output in a log; returns the exit status. */
static int run(const char *log, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && n < (int)sizeof cmd - 64);
    snprintf(cmd + n, sizeof cmd - (size_t)n, " > '%s' 2>&1", log);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static bool log_has(const char *log, const char *phrase)
{
    size_t n;
    char *t = (char *)tu_read_file(log, 1 << 24, &n);
    char *z = realloc(t, n + 1);
    z[n] = 0;
    bool has = strstr(z, phrase) != NULL;
    free(z);
    return has;
}

static void must_run(const char *what, const char *log, int status)
{
    if (status == 0) return;
    size_t n;
    char *t = (char *)tu_read_file(log, 1 << 20, &n);
    fail_msg("%s: exit %d\n%.*s", what, status, (int)(n > 4000 ? 4000 : n), t);
}

static bool have_qview(void)
{
    return access(Q2MAP_BIN_DIR "/qview", X_OK) == 0;
}

/* Every lump but those in `owned` (a bit per lump) is byte-identical. For
 * FACES when owned by light: everything but each record's styles and
 * lightofs (bytes 12..19 of 20). */
static void same_lumps(const char *what, const rawbsp_t *a, const rawbsp_t *b, unsigned owned, bool faces_light)
{
    for (int i = 0; i < HEADER_LUMPS; i++) {
        if (owned >> i & 1) continue;
        size_t na, nb;
        const uint8_t *la = raw_lump(a, i, &na), *lb = raw_lump(b, i, &nb);
        if (i == LUMP_FACES && faces_light) {
            if (na != nb) fail_msg("%s: faces lump %zu -> %zu bytes", what, na, nb);
            for (size_t k = 0; k < na / 20; k++)
                if (memcmp(la + 20 * k, lb + 20 * k, 12) != 0)
                    fail_msg("%s: face %zu changed beyond its styles and lightofs", what, k);
            continue;
        }
        if (na != nb || memcmp(la, lb, na) != 0)
            fail_msg("%s: lump %s changed (%zu -> %zu bytes)", what, bsp_lump_names[i], na, nb);
    }
}

static void load_valid(const char *what, const char *path, bsp_t *bsp)
{
    q2err_t err;
    bsp_init(bsp);
    if (!bsp_read_file(path, bsp, &err)) fail_msg("%s: %s", what, err.msg);
    int problems = bsp_check(bsp, 0, NULL, NULL);
    if (problems) {
        q2err_t e;
        bsp_validate(bsp, path, &e);
        fail_msg("%s: %s", what, e.msg);
    }
}

/* ---------------------------------------------------------------- the matrix */

typedef enum { START_UNLIT, START_STRIP_VIS, START_STRIP_LIGHT } start_t;

typedef struct mcase_t {
    const char *dir, *name;
    const char *prt;   /* .prt file name when not NAME.prt */
    start_t start;
} mcase_t;

/* Writes the input as the stage before ours left it: a peer's unlit bsp as
 * it is, a peer's lit bsp without its visibility or lighting lump. */
static void prepare(const mcase_t *c, const char *bsp, const char *prt)
{
    char src[4096];
    snprintf(src, sizeof src, "%s/%s/%s.bsp", DATA, c->dir, c->name);
    if (c->start == START_UNLIT) {
        copy_file(src, bsp);
    } else {
        bsp_t b;
        q2err_t err;
        bsp_init(&b);
        assert_true(bsp_read_file(src, &b, &err));
        if (c->start == START_STRIP_VIS) {
            b.visdatasize = 0;
        } else {
            b.lightdatasize = 0; /* faces keep ericw-tools' offsets and styles */
        }
        if (!bsp_write_file(bsp, &b, &err)) fail_msg("%s", err.msg);
        bsp_free(&b);
    }
    snprintf(src, sizeof src, "%s/%s/%s", DATA, c->dir, c->prt ? c->prt : c->name);
    if (!c->prt) strcat(src, ".prt");
    copy_file(src, prt);
}

static void check_bspinfo(const char *what, const char *bsp, const char *dir)
{
    char log[4096];
    snprintf(log, sizeof log, "%s/bspinfo.log", dir);
    must_run(what, log, run(log, "'%s/bspinfo' --check '%s'", Q2MAP_BIN_DIR, bsp));
    if (!log_has(log, "valid")) fail_msg("%s: bspinfo --check said nothing of validity", what);
}

static void check_qview(const char *what, const char *bsp, const char *dir, const char *png_name, bool unlit)
{
    if (!have_qview()) return;
    char log[4096], png[4096];
    snprintf(log, sizeof log, "%s/qview_%s.log", dir, png_name);
    snprintf(png, sizeof png, "%s/%s.png", dir, png_name);
    must_run(what, log,
             run(log, "'%s/qview' --renderer soft --size 96x72 --threads 2 --render '%s' '%s'", Q2MAP_BIN_DIR, png,
                 bsp));
    struct stat st;
    if (stat(png, &st) != 0 || st.st_size < 100) fail_msg("%s: qview wrote no picture", what);
    /* An unlit map is drawn fullbright, and qview says so. */
    if (log_has(log, "drawn fullbright") != unlit)
        fail_msg("%s: qview %s an unlit-map note", what, unlit ? "did not print" : "printed");
}

static void run_case(const mcase_t *c)
{
    char dir[4096], bsp[4096], prt[4096], log[4096], what[512], before[4096];
    snprintf(what, sizeof what, "%s/%s%s%s", c->dir, c->name, c->prt ? " with " : "", c->prt ? c->prt : "");
    snprintf(dir, sizeof dir, "%s/%s_%s_%s", g_tmp, c->dir, c->name, c->prt ? c->prt : "prt");
    if (c->start != START_UNLIT) strcat(dir, c->start == START_STRIP_VIS ? "_sv" : "_sl");
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(bsp, sizeof bsp, "%s/%s.bsp", dir, c->name);
    snprintf(prt, sizeof prt, "%s/%s.prt", dir, c->name);
    snprintf(before, sizeof before, "%s/before.bsp", dir);
    prepare(c, bsp, prt);
    copy_file(bsp, before);
    print_message("%s\n", what);

    /* The input itself: valid, and drawn (fullbright when unlit). */
    check_bspinfo(what, bsp, dir);
    check_qview(what, bsp, dir, "input", c->start != START_STRIP_VIS);

    rawbsp_t in = raw_read(before);
    if (c->start != START_STRIP_LIGHT) {
        snprintf(log, sizeof log, "%s/qvis.log", dir);
        must_run(what, log, run(log, "'%s/qvis' -threads 2 '%s'", Q2MAP_BIN_DIR, bsp));
        rawbsp_t out = raw_read(bsp);
        same_lumps(what, &in, &out, 1u << LUMP_VISIBILITY, false);
        bsp_t b;
        load_valid(what, bsp, &b);
        prt_t p;
        q2err_t err;
        if (!prt_read_file(prt, &p, &err)) fail_msg("%s", err.msg);
        if (b.visdatasize <= 0 || bsp_num_clusters(&b) != p.numclusters)
            fail_msg("%s: qvis wrote %d bytes for %d clusters (the .prt has %d)", what, b.visdatasize,
                     bsp_num_clusters(&b), p.numclusters);
        prt_free(&p);
        bsp_free(&b);
        free(in.data);
        in = out;
        copy_file(bsp, before);
    }
    if (c->start != START_STRIP_VIS) {
        snprintf(log, sizeof log, "%s/qrad.log", dir);
        must_run(what, log, run(log, "'%s/qrad' -threads 2 -bounce 1 '%s'", Q2MAP_BIN_DIR, bsp));
        rawbsp_t out = raw_read(bsp);
        same_lumps(what, &in, &out, 1u << LUMP_LIGHTING | 1u << LUMP_FACES, true);
        bsp_t b;
        load_valid(what, bsp, &b);
        if (bsp_is_unlit(&b)) fail_msg("%s: qrad left the bsp unlit", what);
        /* Laid out by qrad whatever the input said: style 0 first, unused
         * slots 255, every face with an offset inside the lump. */
        for (int f = 0; f < b.numfaces; f++) {
            const dface_t *df = &b.faces[f];
            if (df->styles[0] != 0 || df->lightofs < 0 || df->lightofs >= b.lightdatasize)
                fail_msg("%s: face %d: styles %d.., lightofs %d of %d", what, f, df->styles[0], df->lightofs,
                         b.lightdatasize);
        }
        bsp_free(&b);
        free(out.data);
    }
    free(in.data);
    check_bspinfo(what, bsp, dir);
    check_qview(what, bsp, dir, "output", false);
}

static const mcase_t cases[] = {
    {"qbsp3", "spirit2dm4", NULL, START_UNLIT},
    {"q2tools-220", "q2_detail", NULL, START_UNLIT},
    {"q2tools-220", "q2_areaportal", NULL, START_UNLIT},
    {"q2tools-220", "q2_liquids", NULL, START_UNLIT},
    {"q2tools-220", "q2_detail", "q2_detail.prt2.prt", START_UNLIT},
    {"q2tools-220", "q2_detail", "q2_detail.prt1am.prt", START_UNLIT},
    {"ericw-unlit", "q2_detail", NULL, START_UNLIT},
    {"ericw-unlit", "q2_areaportal", NULL, START_UNLIT},
    {"ericw-unlit", "q2_liquids", NULL, START_UNLIT},
    {"ericw-lit", "q2_detail", NULL, START_STRIP_VIS},
    {"ericw-lit", "q2_liquids", NULL, START_STRIP_VIS},
    {"ericw-lit", "q2_detail", NULL, START_STRIP_LIGHT},
    {"ericw-lit", "q2_liquids", NULL, START_STRIP_LIGHT},
    {"q2tools-220-lit", "q2_light_sun", NULL, START_STRIP_LIGHT},
    {"ours-as-qbsp3", "q2_detail", NULL, START_UNLIT},
    {"ours-as-qbsp3", "q2_areaportal", NULL, START_UNLIT},
    {"ours-as-q2tools-220", "q2_detail", NULL, START_UNLIT},
    {"ours-as-q2tools-220", "q2_areaportal", NULL, START_UNLIT},
};

static void test_matrix(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
}

/* ------------------------------------------ our output against peers' readers */

/* From id's qfiles.h, the sizes of the static arrays qbsp3's and
 * q2tools-220's LoadBSPFile copy each lump into (CopyLump checks only that
 * the length is a multiple of the record size, then memcpy's). */
static const struct {
    int lump, record;
    long max;
} peer_lumps[] = {
    {LUMP_ENTITIES, 1, 0x40000},   {LUMP_PLANES, 20, 65536},      {LUMP_VERTEXES, 12, 65536},
    {LUMP_VISIBILITY, 1, 0x100000}, {LUMP_NODES, 28, 65536},       {LUMP_TEXINFO, 76, 8192},
    {LUMP_FACES, 20, 65536},       {LUMP_LIGHTING, 1, 0x200000},  {LUMP_LEAFS, 28, 65536},
    {LUMP_LEAFFACES, 2, 65536},    {LUMP_LEAFBRUSHES, 2, 65536},  {LUMP_EDGES, 4, 128000},
    {LUMP_SURFEDGES, 4, 256000},   {LUMP_MODELS, 48, 1024},       {LUMP_BRUSHES, 12, 8192},
    {LUMP_BRUSHSIDES, 4, 65536},   {LUMP_POP, 1, 256},            {LUMP_AREAS, 8, 256},
    {LUMP_AREAPORTALS, 8, 1024},
};

/* qvis3 and q2tools-220's 4vis LoadPortals: fscanf "%79s\n%i\n%i\n", then
 * per portal "%i %i %i " and numpoints times "(%lf %lf %lf ) ";
 * numpoints <= MAX_POINTS_ON_WINDING (64), clusters <= portalclusters, at
 * most MAX_PORTALS_ON_LEAF (128) portals on a cluster, and qvis3's
 * pstack mightsee[MAX_PORTALS/8] bytes hold 2 * numportals bits
 * (MAX_PORTALS 32768). */
static void check_prt_rules(const char *what, const char *path, int bsp_clusters)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char magic[80];
    int numclusters, numportals;
    if (fscanf(f, "%79s\n%i\n%i\n", magic, &numclusters, &numportals) != 3 || strcmp(magic, "PRT1") != 0)
        fail_msg("%s: .prt header is not PRT1 / clusters / portals", what);
    if (numclusters != bsp_clusters) fail_msg("%s: .prt has %d clusters, the leafs %d", what, numclusters, bsp_clusters);
    if (2 * numportals > 32768) fail_msg("%s: %d portals overflow qvis3's 32768-bit portal sets", what, numportals);
    int *per = calloc((size_t)numclusters + 1, sizeof *per);
    for (int i = 0; i < numportals; i++) {
        int np, a, b;
        if (fscanf(f, "%i %i %i ", &np, &a, &b) != 3) fail_msg("%s: portal %d: bad counts", what, i);
        if (np > 64) fail_msg("%s: portal %d has %d points (> MAX_POINTS_ON_WINDING 64)", what, i, np);
        if (a < 0 || b < 0 || a >= numclusters || b >= numclusters) fail_msg("%s: portal %d: clusters %d %d", what, i, a, b);
        if (++per[a] > 128 || ++per[b] > 128)
            fail_msg("%s: a cluster has more than MAX_PORTALS_ON_LEAF (128) portals", what);
        for (int k = 0; k < np; k++) {
            double v[3];
            if (fscanf(f, "(%lf %lf %lf ) ", &v[0], &v[1], &v[2]) != 3)
                fail_msg("%s: portal %d point %d does not scan as qvis3 reads it", what, i, k);
        }
        if (fscanf(f, "\n") != 0) fail_msg("%s: portal %d: bad line end", what, i);
    }
    free(per);
    assert_int_equal(fclose(f), 0);
}

static void check_bsp_rules(const char *what, const char *path, int *numclusters_out)
{
    rawbsp_t r = raw_read(path);
    if (r.size < BSP_HEADER_SIZE || memcmp(r.data, "IBSP", 4) != 0 || le32(r.data + 4) != 38)
        fail_msg("%s: not IBSP version 38", what);
    for (size_t k = 0; k < sizeof peer_lumps / sizeof peer_lumps[0]; k++) {
        size_t n;
        raw_lump(&r, peer_lumps[k].lump, &n);
        if (n % (size_t)peer_lumps[k].record)
            fail_msg("%s: lump %s: %zu bytes, not a multiple of %d (\"odd lump size\")", what,
                     bsp_lump_names[peer_lumps[k].lump], n, peer_lumps[k].record);
        if ((long)(n / (size_t)peer_lumps[k].record) > peer_lumps[k].max)
            fail_msg("%s: lump %s: %zu records overflow the peers' %ld", what, bsp_lump_names[peer_lumps[k].lump],
                     n / (size_t)peer_lumps[k].record, peer_lumps[k].max);
    }
    /* ParseEntities reads a C string. */
    size_t ne;
    const uint8_t *ents = raw_lump(&r, LUMP_ENTITIES, &ne);
    if (ne == 0 || memchr(ents, 0, ne) == NULL) fail_msg("%s: entity lump not NUL-terminated", what);
    /* Texture names are char[32], opened by name. */
    size_t nt;
    const uint8_t *ti = raw_lump(&r, LUMP_TEXINFO, &nt);
    for (size_t k = 0; k < nt / 76; k++)
        if (memchr(ti + 76 * k + 40, 0, 32) == NULL) fail_msg("%s: texinfo %zu: name not terminated", what, k);
    /* qrad3's windings hold MAX_POINTS_ON_WINDING (64) points. */
    size_t nf;
    const uint8_t *faces = raw_lump(&r, LUMP_FACES, &nf);
    for (size_t k = 0; k < nf / 20; k++) {
        int numedges = (int16_t)(faces[20 * k + 8] | faces[20 * k + 9] << 8);
        if (numedges < 3 || numedges > 64) fail_msg("%s: face %zu has %d edges", what, k, numedges);
    }
    /* DecompressVis errors on a zero run ("0 repeat"); every row must
     * decompress to (numclusters + 7) / 8 bytes. */
    size_t nv;
    const uint8_t *vis = raw_lump(&r, LUMP_VISIBILITY, &nv);
    int numclusters = nv >= 4 ? (int)le32(vis) : 0;
    int rowbytes = (numclusters + 7) / 8;
    for (int c = 0; c < numclusters; c++)
        for (int w = 0; w < 2; w++) {
            size_t ofs = le32(vis + 4 + 8 * (size_t)c + 4 * (size_t)w);
            int got = 0;
            while (got < rowbytes) {
                if (ofs >= nv) fail_msg("%s: vis row %d runs past the lump", what, c);
                if (vis[ofs]) {
                    got++;
                    ofs++;
                    continue;
                }
                if (ofs + 1 >= nv || vis[ofs + 1] == 0) fail_msg("%s: vis row %d has a zero repeat", what, c);
                got += vis[ofs + 1];
                ofs += 2;
            }
        }
    /* Leaf clusters must be inside the vis rows. */
    size_t nl;
    const uint8_t *leafs = raw_lump(&r, LUMP_LEAFS, &nl);
    for (size_t k = 0; k < nl / 28; k++) {
        int cl = (int16_t)(leafs[28 * k + 4] | leafs[28 * k + 5] << 8);
        if (cl >= numclusters) fail_msg("%s: leaf %zu cluster %d past the %d vis clusters", what, k, cl, numclusters);
    }
    *numclusters_out = numclusters;
    free(r.data);
}

static void test_our_output_for_peers(void **state)
{
    (void)state;
    static const char *maps[] = {"q2_detail", "q2_areaportal", "q2_liquids", "q2_door", "q2_tjunc_matrix",
                                 "q2_playerclip"};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        char src[4096], map[4096], bsp[4096], prt[4096], log[4096];
        snprintf(src, sizeof src, "%s/map/%s.map", Q2MAP_TEST_DATA, maps[i]);
        snprintf(map, sizeof map, "%s/%s.map", g_tmp, maps[i]);
        snprintf(bsp, sizeof bsp, "%s/%s.bsp", g_tmp, maps[i]);
        snprintf(prt, sizeof prt, "%s/%s.prt", g_tmp, maps[i]);
        snprintf(log, sizeof log, "%s/%s.log", g_tmp, maps[i]);
        copy_file(src, map);
        must_run(maps[i], log, run(log, "'%s/qbsp' -threads 2 '%s'", Q2MAP_BIN_DIR, map));
        must_run(maps[i], log, run(log, "'%s/qvis' -threads 2 '%s'", Q2MAP_BIN_DIR, bsp));
        int numclusters;
        check_bsp_rules(maps[i], bsp, &numclusters);
        check_prt_rules(maps[i], prt, numclusters);
    }
}

/* ----------------------------------------------- broken input stays refused */

typedef void (*breaker_fn)(uint8_t *data, size_t *size);

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void br_truncate(uint8_t *d, size_t *n)
{
    (void)d;
    *n /= 2;
}
static void br_ident(uint8_t *d, size_t *n)
{
    (void)n;
    memcpy(d, "QBSX", 4);
}
static void br_version(uint8_t *d, size_t *n)
{
    (void)n;
    put32(d + 4, 46);
}
static void br_lump_past_end(uint8_t *d, size_t *n)
{
    put32(d + 8 + 8 * LUMP_EDGES, (uint32_t)*n - 8);
    put32(d + 12 + 8 * LUMP_EDGES, 400);
}
static void br_odd_lump(uint8_t *d, size_t *n)
{
    (void)n;
    put32(d + 12 + 8 * LUMP_FACES, le32(d + 12 + 8 * LUMP_FACES) - 3);
}
/* face 0's first surfedge points at an edge that does not exist */
static void br_surfedge(uint8_t *d, size_t *n)
{
    (void)n;
    uint32_t fo = le32(d + 8 + 8 * LUMP_FACES), so = le32(d + 8 + 8 * LUMP_SURFEDGES);
    uint32_t first = le32(d + fo + 4);
    put32(d + so + 4 * first, 0x7ffffff0u);
}
/* a lit bsp whose face 0 lightmap lies past its (present) lighting lump */
static void br_lightofs(uint8_t *d, size_t *n)
{
    (void)n;
    uint32_t fo = le32(d + 8 + 8 * LUMP_FACES), ll = le32(d + 12 + 8 * LUMP_LIGHTING);
    for (uint32_t k = 0; k < le32(d + 12 + 8 * LUMP_FACES) / 20; k++) put32(d + fo + 20 * k + 16, ll - 1);
}

static void test_broken_refused(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        const char *src; /* under DATA */
        breaker_fn fn;
        const char *phrase;
    } kinds[] = {
        {"truncated", "q2tools-220/q2_detail.bsp", br_truncate, "lies outside"},
        {"ident", "q2tools-220/q2_detail.bsp", br_ident, "ident is not IBSP"},
        {"version", "q2tools-220/q2_detail.bsp", br_version, "version 46"},
        {"lump_past_end", "qbsp3/spirit2dm4.bsp", br_lump_past_end, "lump edges"},
        {"odd_lump", "q2tools-220/q2_detail.bsp", br_odd_lump, "not a multiple"},
        {"surfedge", "q2tools-220/q2_detail.bsp", br_surfedge, "surfedge"},
        {"lightofs", "ericw-lit/q2_detail.bsp", br_lightofs, "runs past the"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char src[4096], bsp[4096], prt[4096], log[4096];
        snprintf(src, sizeof src, "%s/%s", DATA, kinds[i].src);
        size_t n;
        uint8_t *d = tu_read_file(src, (size_t)64 << 20, &n);
        kinds[i].fn(d, &n);
        char rel[256];
        snprintf(rel, sizeof rel, "broken/%s.bsp", kinds[i].name);
        tu_write_file(g_tmp, rel, d, n);
        snprintf(bsp, sizeof bsp, "%s/%s", g_tmp, rel);
        snprintf(prt, sizeof prt, "%s/broken/%s.prt", g_tmp, kinds[i].name);
        char srcprt[4096];
        snprintf(srcprt, sizeof srcprt, "%s", src);
        strcpy(srcprt + strlen(srcprt) - 4, ".prt");
        copy_file(srcprt, prt);
        const char *progs[4] = {"qvis", "qrad", "bspinfo", "qview"};
        const char *args[4] = {"-threads 2", "-threads 2", "--check", "--renderer soft --size 32x24 --render x.png"};
        for (int p = 0; p < 4; p++) {
            if (p == 3 && !have_qview()) continue;
            snprintf(log, sizeof log, "%s/broken/%s_%d.log", g_tmp, kinds[i].name, p);
            int st = run(log, "cd '%s/broken' && '%s/%s' %s '%s'", g_tmp, Q2MAP_BIN_DIR, progs[p], args[p], bsp);
            if (st != 1) fail_msg("%s: %s exited %d, not 1", kinds[i].name, progs[p], st);
            /* The message names the file (bspinfo --check lists problems
             * under its path) and says what is wrong. */
            if (!log_has(log, kinds[i].name) || !log_has(log, kinds[i].phrase))
                fail_msg("%s: %s did not name the file and '%s'", kinds[i].name, progs[p], kinds[i].phrase);
            size_t n2;
            uint8_t *after = tu_read_file(bsp, (size_t)64 << 20, &n2);
            if (n2 != n || memcmp(after, d, n) != 0) fail_msg("%s: %s changed the file", kinds[i].name, progs[p]);
            free(after);
        }
        free(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix),
        cmocka_unit_test(test_our_output_for_peers),
        cmocka_unit_test(test_broken_refused),
    };
    return cmocka_run_group_tests(tests, g_tmp_setup, g_tmp_teardown);
}
