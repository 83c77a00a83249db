/* qrad's entity keys (ericw-tools, arghrad), each on a small map the test
 * writes, compiles with the qbsp program and lights with qrad_run: the
 * luxels where the key should act are compared with the same map lit
 * without the key, so each check fails when the feature is off. */
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

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/q2map_qrad_keys_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return tu_rm_rf(tmpdir) ? 0 : -1;
}

/* ------------------------------------------------------------ map text */

typedef struct mw_t {
    char *buf;
    size_t len, cap;
} mw_t;

static void mw_printf(mw_t *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (w->len + n + 1 > w->cap) {
        w->cap = (w->len + n + 1) * 2;
        w->buf = realloc(w->buf, w->cap);
    }
    va_start(ap, fmt);
    vsnprintf(w->buf + w->len, n + 1, fmt, ap);
    va_end(ap);
    w->len += n;
}

/* One brush side: the plane n.x = d with its normal out of the brush,
 * written as three points wound so (p0 - p1) x (p2 - p1) is n. */
static void mw_plane_c(mw_t *w, vec3_t n, double d, const char *tex, int contents, int flags, int value)
{
    vec3_t c = vec_scale(n, d);
    vec3_t up = fabs(n.z) < 0.9 ? vec3(0, 0, 1) : vec3(1, 0, 0);
    vec3_t u = vec_scale(vec_normalize(vec_cross(up, n), NULL), 64);
    vec3_t v = vec_cross(n, u);
    vec3_t p0 = vec_add(c, u), p1 = c, p2 = vec_add(c, v);
    mw_printf(w, "( %.6f %.6f %.6f ) ( %.6f %.6f %.6f ) ( %.6f %.6f %.6f ) %s 0 0 0 1 1 %d %d %d\n", p0.x, p0.y, p0.z,
              p1.x, p1.y, p1.z, p2.x, p2.y, p2.z, tex, contents, flags, value);
}

static void mw_plane(mw_t *w, vec3_t n, double d, const char *tex, int flags, int value)
{
    mw_plane_c(w, n, d, tex, 0, flags, value);
}

/* A box of the given contents on every side (an origin brush). */
static void mw_box_contents(mw_t *w, vec3_t lo, vec3_t hi, const char *tex, int contents)
{
    mw_printf(w, "{\n");
    for (int ax = 0; ax < 3; ax++)
        for (int sg = 0; sg < 2; sg++) {
            vec3_t n = vec3(0, 0, 0);
            vec_set_comp(&n, ax, sg ? 1 : -1);
            mw_plane_c(w, n, sg ? vec_comp(hi, ax) : -vec_comp(lo, ax), tex, contents, 0, 0);
        }
    mw_printf(w, "}\n");
}

/* An axis-aligned box; faces[6] (may be NULL) overrides the texture of the
 * -x, +x, -y, +y, -z, +z sides. */
static void mw_box_tex(mw_t *w, vec3_t lo, vec3_t hi, const char *tex, int flags, int value, int face, const char *ftex,
                       int fflags, int fvalue)
{
    mw_printf(w, "{\n");
    for (int ax = 0; ax < 3; ax++)
        for (int sg = 0; sg < 2; sg++) {
            vec3_t n = vec3(0, 0, 0);
            vec_set_comp(&n, ax, sg ? 1 : -1);
            double d = sg ? vec_comp(hi, ax) : -vec_comp(lo, ax);
            int k = ax * 2 + sg;
            if (k == face) mw_plane(w, n, d, ftex, fflags, fvalue);
            else mw_plane(w, n, d, tex, flags, value);
        }
    mw_printf(w, "}\n");
}

static void mw_box(mw_t *w, vec3_t lo, vec3_t hi, const char *tex)
{
    mw_box_tex(w, lo, hi, tex, 0, 0, -1, NULL, 0, 0);
}

/* A vertical prism of `sides` faces around (cx, cy) with inradius r. */
static void mw_prism(mw_t *w, double cx, double cy, double r, double z0, double z1, int sides, const char *tex)
{
    mw_printf(w, "{\n");
    for (int k = 0; k < sides; k++) {
        double a = (k + 0.5) * 2 * M_PI / sides;
        vec3_t n = vec3(cos(a), sin(a), 0);
        mw_plane(w, n, cx * n.x + cy * n.y + r, tex, 0, 0);
    }
    mw_plane(w, vec3(0, 0, -1), -z0, tex, 0, 0);
    mw_plane(w, vec3(0, 0, 1), z1, tex, 0, 0);
    mw_printf(w, "}\n");
}

/* The six walls (16 thick) of the closed room [lo, hi]; floor_tex and
 * ceil_tex (NULL: the wall's) with their flags. */
static void mw_room(mw_t *w, vec3_t lo, vec3_t hi, const char *floor_tex, int floor_flags, const char *ceil_tex,
                    int ceil_flags)
{
    const double t = 16;
    for (int ax = 0; ax < 3; ax++)
        for (int sg = 0; sg < 2; sg++) {
            vec3_t a = vec_sub(lo, vec3(t, t, t)), b = vec_add(hi, vec3(t, t, t));
            if (sg) vec_set_comp(&a, ax, vec_comp(hi, ax));
            else vec_set_comp(&b, ax, vec_comp(lo, ax));
            const char *tex = "test/wall";
            int flags = 0;
            if (ax == 2 && !sg && floor_tex) tex = floor_tex, flags = floor_flags;
            if (ax == 2 && sg && ceil_tex) tex = ceil_tex, flags = ceil_flags;
            mw_box_tex(w, a, b, tex, flags, 0, -1, NULL, 0, 0);
        }
}

/* ------------------------------------------------------------ compile */

typedef struct lit_t {
    bsp_t bsp;
    char log[8192];
} lit_t;

static qrad_opts_t opts0(void)
{
    qrad_opts_t o;
    qrad_opts_default(&o);
    o.bounce = 0;
    o.maxlight = 255;
    o.threads = 2;
    return o;
}

/* Compiles the map text with qbsp and lights it with these options; the
 * qrad log (warnings included) is kept in out->log. */
static void compile_light(const char *name, const char *text, const qrad_opts_t *o, lit_t *out)
{
    char map[512], bsp[512], cmd[2048];
    snprintf(map, sizeof map, "%s/%s.map", tmpdir, name);
    snprintf(bsp, sizeof bsp, "%s/%s.bsp", tmpdir, name);
    FILE *f = fopen(map, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s/qbsp' -quiet -threads 1 '%s' > '%s/%s.qbsp.log' 2>&1", Q2MAP_BIN_DIR, map, tmpdir,
             name);
    if (system(cmd) != 0) {
        snprintf(cmd, sizeof cmd, "cat '%s/%s.qbsp.log' >&2", tmpdir, name);
        (void)!system(cmd);
        fail_msg("qbsp failed on %s", name);
    }
    q2err_t err;
    bsp_init(&out->bsp);
    assert_true(bsp_read_file(bsp, &out->bsp, &err));
    FILE *lf = tmpfile();
    assert_non_null(lf);
    log_t log;
    log_init(&log, LOG_NORMAL, lf, lf);
    bool ok = qrad_run(&out->bsp, o, NULL, &log, NULL, NULL, &err);
    if (!ok) fail_msg("qrad_run %s: %s", name, err.msg);
    fflush(lf);
    rewind(lf);
    size_t n = fread(out->log, 1, sizeof out->log - 1, lf);
    out->log[n] = 0;
    fclose(lf);
    /* No luxel may come out of a NaN: every byte was written from a finite
     * value (the writer clamps), and the lump holds every face. */
    assert_true(out->bsp.lightdatasize > 0);
}

static void lit_free(lit_t *l) { bsp_free(&l->bsp); }

static int face_model(const bsp_t *bsp, int f)
{
    for (int m = 0; m < bsp->nummodels; m++)
        if (f >= bsp->models[m].firstface && f < bsp->models[m].firstface + bsp->models[m].numfaces) return m;
    return -1;
}

static vec3_t face_vert(const bsp_t *bsp, int f, int k)
{
    const dface_t *df = &bsp->faces[f];
    int se = bsp->surfedges[df->firstedge + k];
    int v = se < 0 ? bsp->edges[-se].v[1] : bsp->edges[se].v[0];
    return vec3(bsp->vertexes[v].point[0], bsp->vertexes[v].point[1], bsp->vertexes[v].point[2]);
}

/* The face of model m facing n that holds p (bsp coordinates, so a bmodel
 * without an origin), or -1. */
static int find_face(const bsp_t *bsp, int m, vec3_t p, vec3_t n)
{
    for (int f = 0; f < bsp->numfaces; f++) {
        if (face_model(bsp, f) != m) continue;
        const dface_t *df = &bsp->faces[f];
        const dplane_t *pl = &bsp->planes[df->planenum];
        vec3_t fn = vec3(pl->normal[0], pl->normal[1], pl->normal[2]);
        double d = pl->dist;
        if (df->side) fn = vec_neg(fn), d = -d;
        if (vec_dot(fn, n) < 0.999 || fabs(vec_dot(fn, p) - d) > 0.5) continue;
        bool inside = true;
        vec3_t c = vec3(0, 0, 0);
        for (int k = 0; k < df->numedges; k++) c = vec_add(c, face_vert(bsp, f, k));
        c = vec_scale(c, 1.0 / df->numedges);
        for (int k = 0; k < df->numedges && inside; k++) {
            vec3_t a = face_vert(bsp, f, k), b = face_vert(bsp, f, (k + 1) % df->numedges);
            vec3_t in = vec_normalize(vec_cross(fn, vec_sub(b, a)), NULL);
            if (vec_dot(in, vec_sub(c, a)) < 0) in = vec_neg(in);
            if (vec_dot(in, vec_sub(p, a)) < -0.01) inside = false;
        }
        if (inside) return f;
    }
    return -1;
}

/* Mean channel of the style-0 luxel nearest p on the face of model m
 * facing n. */
static double luxel(const lit_t *l, int m, vec3_t p, vec3_t n, int channel)
{
    const bsp_t *bsp = &l->bsp;
    int f = find_face(bsp, m, p, n);
    if (f < 0) {
        for (int g = 0; g < bsp->numfaces; g++) {
            if (face_model(bsp, g) != m) continue;
            const dplane_t *pl = &bsp->planes[bsp->faces[g].planenum];
            fprintf(stderr, "  face %d: plane (%g %g %g) %g side %d, %d edges, v0 (%g %g %g)\n", g, pl->normal[0],
                    pl->normal[1], pl->normal[2], pl->dist, bsp->faces[g].side, bsp->faces[g].numedges,
                    face_vert(bsp, g, 0).x, face_vert(bsp, g, 0).y, face_vert(bsp, g, 0).z);
        }
        fail_msg("no face of model %d at (%g %g %g)", m, p.x, p.y, p.z);
    }
    face_extents_t e;
    assert_true(bsp_face_extents(bsp, f, &e, NULL));
    const dtexinfo_t *ti = &bsp->texinfo[bsp->faces[f].texinfo];
    double s = p.x * ti->vecs[0][0] + p.y * ti->vecs[0][1] + p.z * ti->vecs[0][2] + ti->vecs[0][3];
    double t = p.x * ti->vecs[1][0] + p.y * ti->vecs[1][1] + p.z * ti->vecs[1][2] + ti->vecs[1][3];
    int i = (int)floor((s - e.texturemins[0]) / 16.0 + 0.5), j = (int)floor((t - e.texturemins[1]) / 16.0 + 0.5);
    i = i < 0 ? 0 : i >= e.size[0] ? e.size[0] - 1 : i;
    j = j < 0 ? 0 : j >= e.size[1] ? e.size[1] - 1 : j;
    const uint8_t *px = bsp->lightdata + bsp->faces[f].lightofs + ((size_t)j * e.size[0] + i) * 3;
    if (channel >= 0) return px[channel];
    return (px[0] + px[1] + px[2]) / 3.0;
}

/* Min and max channel over every style-0 luxel of model m's lit faces. */
static void luxel_range(const lit_t *l, int m, int channel, int *lo, int *hi)
{
    const bsp_t *bsp = &l->bsp;
    *lo = 256, *hi = -1;
    for (int f = 0; f < bsp->numfaces; f++) {
        if (face_model(bsp, f) != m) continue;
        if (bsp->texinfo[bsp->faces[f].texinfo].flags & (SURF_SKY | SURF_WARP)) continue;
        face_extents_t e;
        assert_true(bsp_face_extents(bsp, f, &e, NULL));
        int n = e.size[0] * e.size[1];
        for (int k = 0; k < n; k++) {
            int v = bsp->lightdata[bsp->faces[f].lightofs + k * 3 + channel];
            *lo = v < *lo ? v : *lo;
            *hi = v > *hi ? v : *hi;
        }
    }
}

static const vec3_t UP = {0, 0, 1};

/* A 512x512x256 room; `world` is worldspawn's extra key text, `extra`
 * more entities (brushes and lights) in map text. */
static char *room_map(const char *world, const char *extra, const char *floor_tex, int floor_flags,
                      const char *ceil_tex, int ceil_flags)
{
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"worldspawn\"\n%s", world ? world : "");
    mw_room(&w, vec3(-256, -256, 0), vec3(256, 256, 256), floor_tex, floor_flags, ceil_tex, ceil_flags);
    mw_printf(&w, "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 32\"\n}\n%s", extra ? extra : "");
    return w.buf;
}

/* ------------------------------------------------------------ minlight */

static void test_minlight(void **state)
{
    (void)state;
    qrad_opts_t o = opts0();
    lit_t a, b, c, d;
    /* A dark room: no light entity at all. */
    char *m0 = room_map(NULL, NULL, NULL, 0, NULL, 0);
    compile_light("min_off", m0, &o, &a);
    int lo, hi;
    luxel_range(&a, 0, 0, &lo, &hi);
    assert_int_equal(hi, 0);
    /* ericw-tools' Quake 2 scale: 0.2 is 0.2 * 128 = 25.6. */
    char *m1 = room_map("\"_minlight\" \"0.2\"\n", NULL, NULL, 0, NULL, 0);
    compile_light("min_on", m1, &o, &b);
    luxel_range(&b, 0, 0, &lo, &hi);
    if (lo < 25 || hi > 26) fail_msg("_minlight 0.2: luxels %d..%d, expected 25..26", lo, hi);
    /* -minlight overrides worldspawn; _minlight_color tints it. */
    qrad_opts_t o2 = opts0();
    o2.minlight = 0.5;
    char *m2 = room_map("\"_minlight\" \"0.2\"\n\"_minlight_color\" \"255 0 0\"\n", NULL, NULL, 0, NULL, 0);
    compile_light("min_opt", m2, &o2, &c);
    luxel_range(&c, 0, 0, &lo, &hi);
    if (lo < 63 || hi > 65) fail_msg("-minlight 0.5: red %d..%d, expected 64", lo, hi);
    luxel_range(&c, 0, 1, &lo, &hi);
    assert_int_equal(hi, 0);
    /* A bmodel takes worldspawn's unless it has its own, and
     * _minlight_exclude leaves its texture out. */
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"func_wall\"\n\"_minlight\" \"0.5\"\n");
    mw_box(&w, vec3(-96, -32, 0), vec3(-32, 32, 64), "test/pillar");
    mw_printf(&w, "}\n{\n\"classname\" \"func_wall\"\n\"_minlight_exclude\" \"test/dark\"\n");
    mw_box(&w, vec3(32, -32, 0), vec3(96, 32, 64), "test/dark");
    mw_printf(&w, "}\n");
    char *m3 = room_map("\"_minlight\" \"0.2\"\n", w.buf, NULL, 0, NULL, 0);
    compile_light("min_models", m3, &o, &d);
    luxel_range(&d, 1, 0, &lo, &hi);
    if (lo < 63 || hi > 65) fail_msg("func_wall _minlight 0.5: %d..%d, expected 64", lo, hi);
    luxel_range(&d, 2, 0, &lo, &hi);
    if (hi != 0) fail_msg("_minlight_exclude: excluded faces reach %d", hi);
    luxel_range(&d, 0, 0, &lo, &hi);
    if (lo < 25 || hi > 26) fail_msg("world with bmodels: %d..%d, expected 25..26", lo, hi);
    free(w.buf);
    free(m0);
    free(m1);
    free(m2);
    free(m3);
    lit_free(&a);
    lit_free(&b);
    lit_free(&c);
    lit_free(&d);
}

/* arghrad's worldspawn _ambient: added to every luxel, one level or r g b. */
static void test_arghrad_ambient(void **state)
{
    (void)state;
    qrad_opts_t o = opts0();
    lit_t a, b;
    char *m1 = room_map("\"_ambient\" \"10\"\n", NULL, NULL, 0, NULL, 0);
    compile_light("amb1", m1, &o, &a);
    int lo, hi;
    luxel_range(&a, 0, 1, &lo, &hi);
    if (lo != 10 || hi != 10) fail_msg("_ambient 10: %d..%d", lo, hi);
    char *m2 = room_map("\"_ambient\" \"20 5 0\"\n", NULL, NULL, 0, NULL, 0);
    compile_light("amb2", m2, &o, &b);
    luxel_range(&b, 0, 0, &lo, &hi);
    assert_true(lo == 20 && hi == 20);
    luxel_range(&b, 0, 2, &lo, &hi);
    assert_true(hi == 0);
    free(m1);
    free(m2);
    lit_free(&a);
    lit_free(&b);
}

/* ------------------------------------------------------------ shadows */

/* A light at (0 0 200); a 64-unit pillar brush entity at x 64..128 stands
 * between it and the floor point (160, 0): its mirror (-160, 0) is open. */
static void shadow_pair(const char *name, const char *cls, const char *keys, bool origin_brush, double *shadowed,
                        double *mirror)
{
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 200\"\n\"light\" \"400\"\n}\n");
    mw_printf(&w, "{\n\"classname\" \"%s\"\n%s", cls, keys);
    mw_box(&w, vec3(64, -32, 40), vec3(128, 32, 104), "test/pillar");
    if (origin_brush) mw_box_contents(&w, vec3(88, -8, 64), vec3(104, 8, 80), "test/origin", CONTENTS_ORIGIN);
    mw_printf(&w, "}\n");
    char *m = room_map(NULL, w.buf, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    lit_t l;
    compile_light(name, m, &o, &l);
    *shadowed = luxel(&l, 0, vec3(160, 0, 0), UP, -1);
    *mirror = luxel(&l, 0, vec3(-160, 0, 0), UP, -1);
    free(m);
    free(w.buf);
    lit_free(&l);
}

static void test_bmodel_shadow(void **state)
{
    (void)state;
    double s, m;
    shadow_pair("shadow_off", "func_wall", "", false, &s, &m);
    if (m < 20 || s < 0.75 * m) fail_msg("func_wall without _shadow: %g under it, %g at the mirror", s, m);
    shadow_pair("shadow_on", "func_wall", "\"_shadow\" \"1\"\n", false, &s, &m);
    if (m < 20 || s > 0.25 * m) fail_msg("func_wall _shadow 1: %g under it, %g at the mirror", s, m);
    /* A rotating bmodel is stored around its origin brush and traced at
     * the entity's origin. */
    shadow_pair("shadow_rot", "func_rotating", "\"_shadow\" \"1\"\n", true, &s, &m);
    if (m < 20 || s > 0.25 * m) fail_msg("func_rotating _shadow 1: %g under it, %g at the mirror", s, m);
    /* _shadowself alone does not shadow the world. */
    shadow_pair("shadow_self", "func_wall", "\"_shadowself\" \"1\"\n", false, &s, &m);
    if (s < 0.75 * m) fail_msg("func_wall _shadowself 1 shadows the world: %g vs %g", s, m);
    /* A light whose shadow channel the bmodel is not on goes through it. */
    shadow_pair("shadow_chan", "func_wall", "\"_shadow\" \"1\"\n\"_object_channel_mask\" \"3\"\n", false, &s, &m);
    if (s > 0.25 * m) fail_msg("channel 3 caster, channel 1 light: %g vs %g", s, m);
}

/* A caster with these keys between the light and a bmodel plate lying on
 * the floor: the plate's top under the shadow against its mirror. */
static void plate_shadow(const char *name, const char *keys, double *shadowed, double *mirror)
{
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 200\"\n\"light\" \"400\"\n}\n");
    mw_printf(&w, "{\n\"classname\" \"func_wall\"\n%s", keys);
    mw_box(&w, vec3(64, -32, 40), vec3(128, 32, 104), "test/pillar");
    mw_printf(&w, "}\n{\n\"classname\" \"func_wall\"\n");
    mw_box(&w, vec3(-224, -64, 0), vec3(224, 64, 8), "test/plate");
    mw_printf(&w, "}\n");
    char *m = room_map(NULL, w.buf, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    lit_t l;
    compile_light(name, m, &o, &l);
    *shadowed = luxel(&l, 2, vec3(160, 0, 8), UP, -1);
    *mirror = luxel(&l, 2, vec3(-160, 0, 8), UP, -1);
    free(m);
    free(w.buf);
    lit_free(&l);
}

static void test_shadow_worldonly(void **state)
{
    (void)state;
    double s, m;
    plate_shadow("plate_all", "\"_shadow\" \"1\"\n", &s, &m);
    if (m < 20 || s > 0.25 * m) fail_msg("_shadow 1 on a bmodel plate: %g under it, %g at the mirror", s, m);
    plate_shadow("plate_world", "\"_shadowworldonly\" \"1\"\n", &s, &m);
    if (s < 0.75 * m) fail_msg("_shadowworldonly shadows a bmodel: %g under it, %g at the mirror", s, m);
    /* ... and still the world. */
    shadow_pair("worldonly", "func_wall", "\"_shadowworldonly\" \"1\"\n", false, &s, &m);
    if (s > 0.25 * m) fail_msg("_shadowworldonly: world floor %g under it, %g at the mirror", s, m);
}

/* ------------------------------------------------------------ channels */

static void test_light_channels(void **state)
{
    (void)state;
    /* Two pillars; the only light is on channel 2. The one on channel 2
     * receives it, the one on the default channel 1 and the world do not. */
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"400\"\n"
                  "\"_light_channel_mask\" \"2\"\n}\n");
    mw_printf(&w, "{\n\"classname\" \"func_wall\"\n\"_object_channel_mask\" \"2\"\n");
    mw_box(&w, vec3(-160, -32, 0), vec3(-96, 32, 64), "test/pillar");
    mw_printf(&w, "}\n{\n\"classname\" \"func_wall\"\n");
    mw_box(&w, vec3(96, -32, 0), vec3(160, 32, 64), "test/pillar");
    mw_printf(&w, "}\n");
    char *m = room_map(NULL, w.buf, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    lit_t l;
    compile_light("channels", m, &o, &l);
    double on = luxel(&l, 1, vec3(-128, 0, 64), UP, -1), off = luxel(&l, 2, vec3(128, 0, 64), UP, -1);
    double floor = luxel(&l, 0, vec3(0, 0, 0), UP, -1);
    if (on < 50) fail_msg("channel-2 model gets %g from the channel-2 light", on);
    if (off != 0) fail_msg("channel-1 model gets %g from a channel-2 light", off);
    if (floor != 0) fail_msg("world (channel 1) gets %g from a channel-2 light", floor);
    free(m);
    free(w.buf);
    lit_free(&l);
}

/* ------------------------------------------------------------ dirt */

static void dirt_run(const char *name, const char *world, const char *lightkeys, int optdirt, double *near,
                     double *far)
{
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 224\"\n\"light\" \"400\"\n%s}\n", lightkeys);
    char *m;
    /* A box on the floor, in the world. */
    mw_t wb = {0};
    mw_printf(&wb, "%s", world);
    wb.len = strlen(wb.buf ? wb.buf : "");
    mw_t brush = {0};
    mw_box(&brush, vec3(-32, -32, 0), vec3(32, 32, 64), "test/box");
    mw_printf(&wb, "%s", brush.buf);
    m = room_map(wb.buf, w.buf, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    o.dirt = optdirt;
    lit_t l;
    compile_light(name, m, &o, &l);
    *near = luxel(&l, 0, vec3(40, 0, 0), UP, -1);
    *far = luxel(&l, 0, vec3(0, 180, 0), UP, -1);
    free(m);
    free(w.buf);
    free(wb.buf);
    free(brush.buf);
    lit_free(&l);
}

static void test_dirt(void **state)
{
    (void)state;
    double n0, f0, n1, f1, n2, f2, n3, f3;
    dirt_run("dirt_off", "", "", 0, &n0, &f0);
    dirt_run("dirt_on", "\"_dirt\" \"1\"\n", "", 0, &n1, &f1);
    if (n0 < 40 || n1 > 0.85 * n0) fail_msg("_dirt 1: floor by the box %g, without %g", n1, n0);
    /* The open floor far from everything keeps most of its light. */
    if (f1 < 0.9 * f0) fail_msg("_dirt 1 darkens the open floor: %g vs %g", f1, f0);
    dirt_run("dirt_opt", "", "", 1, &n2, &f2);
    if (n2 > 0.85 * n0) fail_msg("-dirt: %g vs %g", n2, n0);
    /* A light with _dirt -1 lights the dirt away. */
    dirt_run("dirt_light_off", "\"_dirt\" \"1\"\n", "\"_dirt\" \"-1\"\n", 0, &n3, &f3);
    if (fabs(n3 - n0) > 1) fail_msg("light _dirt -1: %g, expected %g", n3, n0);
    (void)f2;
    (void)f3;
}

/* _minlight_dirt: the floor by a box gets less of the minlight. */
static void test_minlight_dirt(void **state)
{
    (void)state;
    mw_t w = {0};
    mw_printf(&w, "\"_minlight\" \"0.5\"\n\"_minlight_dirt\" \"1\"\n\"_dirtdepth\" \"64\"\n");
    mw_box(&w, vec3(-32, -32, 0), vec3(32, 32, 64), "test/box");
    char *m = room_map(w.buf, NULL, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    lit_t l;
    compile_light("mindirt", m, &o, &l);
    double near = luxel(&l, 0, vec3(40, 0, 0), UP, -1), open = luxel(&l, 0, vec3(0, 180, 0), UP, -1);
    if (fabs(open - 64) > 1 || near > 0.9 * open) fail_msg("_minlight_dirt: %g by the box, %g in the open", near, open);
    free(m);
    free(w.buf);
    lit_free(&l);
}

/* ------------------------------------------------------------ phong */

/* The largest jump between the luxels either side of an edge of an
 * octagonal pillar, lit from one side. */
static double edge_jump(const lit_t *l, int m, double cx)
{
    double worst = 0;
    for (int k = 0; k < 8; k++) {
        double a0 = (k + 0.5) * M_PI / 4, a1 = (k + 1.5) * M_PI / 4, ae = (k + 1) * M_PI / 4;
        double R = 96 / cos(M_PI / 8); /* corner radius */
        vec3_t corner = vec3(cx + R * cos(ae), R * sin(ae), 32);
        vec3_t n0 = vec3(cos(a0), sin(a0), 0), n1 = vec3(cos(a1), sin(a1), 0);
        /* 4 units either side of the corner, on each face. */
        vec3_t t0 = vec_normalize(vec_cross(UP, n0), NULL), t1 = vec_normalize(vec_cross(UP, n1), NULL);
        vec3_t p0 = vec_ma(corner, -4, t0), p1 = vec_ma(corner, 4, t1);
        if (find_face(&l->bsp, m, p0, n0) < 0 || find_face(&l->bsp, m, p1, n1) < 0) continue;
        double v0 = luxel(l, m, p0, n0, -1), v1 = luxel(l, m, p1, n1, -1);
        if (v0 < 5 || v1 < 5) continue; /* a face turned away from the light */
        worst = fmax(worst, fabs(v0 - v1));
    }
    return worst;
}

static void test_phong(void **state)
{
    (void)state;
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 -236 64\"\n\"light\" \"400\"\n}\n");
    mw_printf(&w, "{\n\"classname\" \"func_wall\"\n\"_phong\" \"1\"\n");
    mw_prism(&w, -128, 0, 96, 0, 64, 8, "test/pillar");
    mw_printf(&w, "}\n{\n\"classname\" \"func_wall\"\n");
    mw_prism(&w, 128, 0, 96, 0, 64, 8, "test/pillar");
    mw_printf(&w, "}\n");
    char *m = room_map(NULL, w.buf, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    lit_t l;
    compile_light("phong", m, &o, &l);
    double smooth = edge_jump(&l, 1, -128), flat = edge_jump(&l, 2, 128);
    if (flat < 10) fail_msg("flat pillar: edges jump only %g", flat);
    if (smooth > 0.5 * flat) fail_msg("_phong 1 pillar: edges jump %g, flat one %g", smooth, flat);
    lit_free(&l);
    /* -nosmooth overrides the key. */
    o.smooth = 0;
    o.smooth_set = true;
    compile_light("phong_off", m, &o, &l);
    double forced = edge_jump(&l, 1, -128);
    if (forced < 0.8 * flat) fail_msg("-nosmooth: _phong pillar still smooth (%g vs %g)", forced, flat);
    lit_free(&l);
    free(m);
    free(w.buf);
}

/* ------------------------------------------------------------ sky */

static void test_sunlight3(void **state)
{
    (void)state;
    /* The room's floor is sky; a slab floats in the middle. Its underside
     * sees only the lower sky. */
    mw_t w = {0};
    mw_box(&w, vec3(-64, -64, 96), vec3(64, 64, 112), "test/slab");
    lit_t a, b;
    qrad_opts_t o = opts0();
    char *m0 = room_map(w.buf, NULL, "test/sky", SURF_SKY, NULL, 0);
    compile_light("sun3_off", m0, &o, &a);
    mw_t w2 = {0};
    mw_printf(&w2, "\"_sunlight3\" \"100\"\n%s", w.buf);
    char *m1 = room_map(w2.buf, NULL, "test/sky", SURF_SKY, NULL, 0);
    compile_light("sun3_on", m1, &o, &b);
    vec3_t down = vec3(0, 0, -1);
    double off = luxel(&a, 0, vec3(0, 0, 96), down, -1), on = luxel(&b, 0, vec3(0, 0, 96), down, -1);
    double top = luxel(&b, 0, vec3(0, 0, 112), UP, -1);
    if (off != 0) fail_msg("slab underside without _sunlight3: %g", off);
    if (on < 30) fail_msg("_sunlight3 100: slab underside %g", on);
    if (top > 0.2 * on) fail_msg("_sunlight3 lights the slab's top (%g vs %g under)", top, on);
    free(m0);
    free(m1);
    free(w.buf);
    free(w2.buf);
    lit_free(&a);
    lit_free(&b);
}

static void test_several_suns(void **state)
{
    (void)state;
    /* A sky ceiling; suns straight down. Worldspawn's sun, then one more
     * from a "_sun" "1" light: the floor gets both. */
    lit_t a, b;
    qrad_opts_t o = opts0();
    char *m0 = room_map("\"_sunlight\" \"60\"\n\"_sun_mangle\" \"0 -90 0\"\n", NULL, NULL, 0, "test/sky", SURF_SKY);
    compile_light("suns1", m0, &o, &a);
    char *m1 = room_map("\"_sunlight\" \"60\"\n\"_sun_mangle\" \"0 -90 0\"\n",
                        "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"_sun\" \"1\"\n\"light\" \"40\"\n"
                        "\"mangle\" \"0 -90 0\"\n}\n",
                        NULL, 0, "test/sky", SURF_SKY);
    compile_light("suns2", m1, &o, &b);
    double one = luxel(&a, 0, vec3(0, 0, 0), UP, -1), two = luxel(&b, 0, vec3(0, 0, 0), UP, -1);
    if (fabs(one - 60) > 1.5 || fabs(two - 100) > 1.5) fail_msg("suns: %g with one (60), %g with two (100)", one, two);
    free(m0);
    free(m1);
    lit_free(&a);
    lit_free(&b);
    /* arghrad: _sun_angle aims the first sun, _sun2_light/_sun2_angle add
     * a second; a sun aimed at the wall (pitch 0) leaves the floor dark. */
    char *m2 = room_map("\"_sunlight\" \"60\"\n\"_sun_angle\" \"0 -90\"\n\"_sun2_light\" \"30\"\n"
                        "\"_sun2_angle\" \"45 -90\"\n\"_sun3_light\" \"50\"\n\"_sun3_angle\" \"0 0\"\n",
                        NULL, NULL, 0, "test/sky", SURF_SKY);
    compile_light("suns3", m2, &o, &a);
    double three = luxel(&a, 0, vec3(0, 0, 0), UP, -1);
    if (fabs(three - 90) > 1.5) fail_msg("_sun_angle + _sun2 + a level _sun3: floor %g, expected 90", three);
    free(m2);
    lit_free(&a);
}

static void test_sun_diffuse(void **state)
{
    (void)state;
    /* Sun straight down through a sky ceiling; a roof (world brush) hides
     * the floor's x > 0 half. arghrad's _sun_diffuse glows into the shadow
     * near its edge and fades within about 64 units. */
    mw_t w = {0};
    mw_box(&w, vec3(0, -256, 200), vec3(256, 256, 216), "test/roof");
    mw_t k1 = {0}, k2 = {0};
    mw_printf(&k1, "\"_sunlight\" \"100\"\n\"_sun_mangle\" \"0 -90 0\"\n%s", w.buf);
    mw_printf(&k2, "\"_sunlight\" \"100\"\n\"_sun_mangle\" \"0 -90 0\"\n\"_sun_diffuse\" \"80\"\n"
                   "\"_sun_diffwait\" \"1\"\n%s",
              w.buf);
    char *m0 = room_map(k1.buf, NULL, NULL, 0, "test/sky", SURF_SKY);
    char *m1 = room_map(k2.buf, NULL, NULL, 0, "test/sky", SURF_SKY);
    lit_t a, b;
    qrad_opts_t o = opts0();
    compile_light("diff_off", m0, &o, &a);
    compile_light("diff_on", m1, &o, &b);
    double edge0 = luxel(&a, 0, vec3(24, 0, 0), UP, -1), edge1 = luxel(&b, 0, vec3(24, 0, 0), UP, -1);
    double deep1 = luxel(&b, 0, vec3(200, 0, 0), UP, -1);
    if (edge0 > 2) fail_msg("shadow edge without _sun_diffuse: %g", edge0);
    if (edge1 < 5) fail_msg("_sun_diffuse 80: shadow edge %g", edge1);
    if (deep1 > 2) fail_msg("_sun_diffuse reaches deep into the shadow: %g", deep1);
    free(m0);
    free(m1);
    free(w.buf);
    free(k1.buf);
    free(k2.buf);
    lit_free(&a);
    lit_free(&b);
}

/* ------------------------------------------------------------ falloff */

static void test_falloff_delay(void **state)
{
    (void)state;
    lit_t l;
    qrad_opts_t o = opts0();
    /* delay 2 (1/x^2) and 5 (1/(1+x/128)^2) at 128 units straight below,
     * in two rooms' worth of floor: lights far apart, walls between. */
    char *m2 = room_map(NULL, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 129\"\n\"light\" \"200\"\n\"delay\" \"5\"\n}\n",
                        NULL, 0, NULL, 0);
    compile_light("delay5", m2, &o, &l);
    double v5 = luxel(&l, 0, vec3(0, 0, 0), UP, -1);
    /* 200 * (128 / (128 + 128))^2 = 50 */
    if (fabs(v5 - 50) > 2) fail_msg("delay 5 at 128 units: %g, expected 50", v5);
    lit_free(&l);
    /* ericw's _falloff: a linear light that reaches 0 at that distance. */
    char *mf = room_map(NULL, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 65\"\n\"light\" \"200\"\n\"_falloff\" \"128\"\n}\n",
                        NULL, 0, NULL, 0);
    compile_light("falloff", mf, &o, &l);
    double vf = luxel(&l, 0, vec3(0, 0, 0), UP, -1), vfar = luxel(&l, 0, vec3(160, 0, 0), UP, -1);
    if (fabs(vf - 100) > 2) fail_msg("_falloff 128 at 64 units: %g, expected 100", vf);
    if (vfar != 0) fail_msg("_falloff 128: %g beyond 128 units", vfar);
    lit_free(&l);
    /* ericw's _anglescale: (1 - a) + a cos instead of the cosine. At
     * (64, 0) under a light 64 up, d = 90.5 and cos = 0.707. */
    char *ma = room_map("\"_anglescale\" \"0.5\"\n",
                        "{\n\"classname\" \"light\"\n\"origin\" \"0 0 65\"\n\"light\" \"200\"\n}\n", NULL, 0, NULL, 0);
    compile_light("anglescale", ma, &o, &l);
    double va = luxel(&l, 0, vec3(64, 0, 0), UP, -1);
    double want = (200 - sqrt(64.0 * 64 + 64 * 64)) * (0.5 + 0.5 * 64 / sqrt(64.0 * 64 + 64 * 64));
    if (fabs(va - want) > 2.5) fail_msg("worldspawn _anglescale 0.5: %g, expected %.1f", va, want);
    lit_free(&l);
    free(ma);
    /* delay 4, local minlight: a floor at its level where it is seen,
     * never more. With another light it lifts only the darker luxels. */
    char *m4 = room_map(NULL,
                        "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"40\"\n\"delay\" \"4\"\n}\n"
                        "{\n\"classname\" \"light\"\n\"origin\" \"-200 0 64\"\n\"light\" \"200\"\n}\n",
                        NULL, 0, NULL, 0);
    compile_light("delay4", m4, &o, &l);
    double far4 = luxel(&l, 0, vec3(200, 0, 0), UP, -1), near4 = luxel(&l, 0, vec3(-200, 0, 0), UP, -1);
    if (fabs(far4 - 40) > 1) fail_msg("delay 4: dark floor %g, expected 40", far4);
    if (near4 < 100) fail_msg("delay 4 lowered a bright luxel to %g", near4);
    lit_free(&l);
    free(m2);
    free(mf);
    free(m4);
}

/* ------------------------------------------------------------ soft shadows */

/* Luxels of the floor row y = 0 between shadow and light (10%..90% of the
 * lit level) beside a pillar. */
static int penumbra_luxels(const lit_t *l)
{
    double lit = luxel(l, 0, vec3(-160, 0, 0), UP, -1);
    int n = 0;
    for (int x = 120; x <= 250; x += 16) {
        double v = luxel(l, 0, vec3(x, 0, 0), UP, -1), ref = luxel(l, 0, vec3(-x, 0, 0), UP, -1);
        (void)lit;
        if (v > 0.1 * ref && v < 0.9 * ref) n++;
    }
    return n;
}

static void test_deviance(void **state)
{
    (void)state;
    mw_t wb = {0};
    mw_box(&wb, vec3(64, -256, 40), vec3(80, 256, 120), "test/pillar");
    lit_t a, b;
    qrad_opts_t o = opts0();
    char *m0 = room_map(wb.buf, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 160\"\n\"light\" \"600\"\n}\n", NULL, 0,
                        NULL, 0);
    char *m1 = room_map(wb.buf,
                        "{\n\"classname\" \"light\"\n\"origin\" \"0 0 160\"\n\"light\" \"600\"\n"
                        "\"_deviance\" \"40\"\n\"_samples\" \"24\"\n}\n",
                        NULL, 0, NULL, 0);
    compile_light("dev_off", m0, &o, &a);
    compile_light("dev_on", m1, &o, &b);
    int hard = penumbra_luxels(&a), soft = penumbra_luxels(&b);
    if (soft < hard + 2) fail_msg("_deviance 40: %d penumbra luxels, %d without", soft, hard);
    /* Brightness is kept: the open floor below agrees within 5%. */
    double v0 = luxel(&a, 0, vec3(-100, 0, 0), UP, -1), v1 = luxel(&b, 0, vec3(-100, 0, 0), UP, -1);
    if (fabs(v1 - v0) > 0.05 * v0 + 1) fail_msg("_deviance changed brightness: %g vs %g", v1, v0);
    free(m0);
    free(m1);
    free(wb.buf);
    lit_free(&a);
    lit_free(&b);
}

/* ------------------------------------------------------------ surface lights */

static void test_surflightscale(void **state)
{
    (void)state;
    mw_t w = {0};
    mw_box_tex(&w, vec3(-32, -32, 224), vec3(32, 32, 256), "test/wall", 0, 0, 4, "test/light", SURF_LIGHT, 800);
    mw_t w2 = {0};
    mw_printf(&w2, "\"_surflightscale\" \"2\"\n%s", w.buf);
    char *m0 = room_map(w.buf, NULL, NULL, 0, NULL, 0), *m1 = room_map(w2.buf, NULL, NULL, 0, NULL, 0);
    lit_t a, b;
    qrad_opts_t o = opts0();
    compile_light("surf1", m0, &o, &a);
    compile_light("surf2", m1, &o, &b);
    double v0 = luxel(&a, 0, vec3(0, 0, 0), UP, -1), v1 = luxel(&b, 0, vec3(0, 0, 0), UP, -1);
    if (v0 < 10 || fabs(v1 - 2 * v0) > 2) fail_msg("_surflightscale 2: %g, %g without", v1, v0);
    free(m0);
    free(m1);
    free(w.buf);
    free(w2.buf);
    lit_free(&a);
    lit_free(&b);
}

/* ------------------------------------------------------------ bounce */

/* A spotlight straight down lights only the floor; the ceiling above gets
 * nothing but bounced light. */
static double ceiling_bounce(const char *name, const char *world, const char *lightkeys)
{
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"400\"\n"
                  "\"mangle\" \"0 -90 0\"\n\"_cone\" \"30\"\n%s}\n",
              lightkeys);
    char *m = room_map(world, w.buf, NULL, 0, NULL, 0);
    qrad_opts_t o = opts0();
    o.bounce = 2;
    lit_t l;
    compile_light(name, m, &o, &l);
    double v = luxel(&l, 0, vec3(0, 0, 256), vec3(0, 0, -1), -1);
    free(m);
    free(w.buf);
    lit_free(&l);
    return v;
}

static void test_bounce_keys(void **state)
{
    (void)state;
    double base = ceiling_bounce("b_base", NULL, "");
    if (base < 6) fail_msg("ceiling gets %g from bounces", base);
    double off = ceiling_bounce("b_world0", "\"_bounce\" \"0\"\n", "");
    if (off != 0) fail_msg("worldspawn _bounce 0: ceiling %g", off);
    double none = ceiling_bounce("b_light0", NULL, "\"_bouncescale\" \"0\"\n");
    if (none > 1) fail_msg("light _bouncescale 0: ceiling %g", none);
    double half = ceiling_bounce("b_half", NULL, "\"_bouncescale\" \"0.5\"\n");
    if (fabs(half - base / 2) > 1.5) fail_msg("light _bouncescale 0.5: ceiling %g, all of it %g", half, base);
    double ws = ceiling_bounce("b_wscale", "\"_bouncescale\" \"0.5\"\n", "");
    if (ws > 0.75 * base) fail_msg("worldspawn _bouncescale 0.5: ceiling %g, at 1 %g", ws, base);
}

/* ------------------------------------------------------------ bad values */

static void test_bad_values(void **state)
{
    (void)state;
    /* Words for numbers, negative scales, angles out of range, masks that
     * are not integers: each is a warning naming the entity, the key and
     * its line, and the default is used. */
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"light\"\n\"origin\" \"0 0 128\"\n\"light\" \"300\"\n"
                  "\"_light_channel_mask\" \"1.5\"\n\"_deviance\" \"-4\"\n\"_samples\" \"many\"\n"
                  "\"_bouncescale\" \"-1\"\n}\n");
    mw_printf(&w, "{\n\"classname\" \"func_wall\"\n\"_phong_angle\" \"400\"\n\"_minlight\" \"dark\"\n"
                  "\"_object_channel_mask\" \"x\"\n\"_minlight_color\" \"red\"\n");
    mw_box(&w, vec3(96, -32, 0), vec3(160, 32, 64), "test/pillar");
    mw_printf(&w, "}\n");
    char *m = room_map("\"_dirtscale\" \"-2\"\n\"_dirtangle\" \"200\"\n\"_sunlight3\" \"lots\"\n"
                       "\"_sun_angle\" \"45 -120\"\n\"_ambient\" \"-5\"\n\"_dirt\" \"1\"\n",
                       w.buf, NULL, 0, NULL, 0);
    lit_t l;
    qrad_opts_t o = opts0();
    compile_light("bad", m, &o, &l);
    static const char *const keys[] = {"_light_channel_mask", "_deviance", "_samples", "_bouncescale", "_phong_angle",
                                       "_minlight", "_object_channel_mask", "_minlight_color", "_dirtscale",
                                       "_dirtangle", "_sunlight3", "_sun_angle", "_ambient"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        char want[96];
        snprintf(want, sizeof want, "\"%s\" \"", keys[k]);
        const char *p = strstr(l.log, want);
        if (!p) fail_msg("no warning for %s in:\n%s", keys[k], l.log);
        /* The warning names the entity and a line. */
        const char *bol = p;
        while (bol > l.log && bol[-1] != '\n') bol--;
        if (!strstr(bol, "entity ") || !strstr(bol, ", line ")) fail_msg("warning for %s lacks entity/line", keys[k]);
    }
    /* The light kept its defaults: the floor under it is lit as usual. */
    double v = luxel(&l, 0, vec3(0, 0, 0), UP, -1);
    if (v < 100) fail_msg("light with bad keys lights the floor %g", v);
    free(m);
    free(w.buf);
    lit_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minlight),       cmocka_unit_test(test_arghrad_ambient),
        cmocka_unit_test(test_bmodel_shadow),  cmocka_unit_test(test_light_channels),
        cmocka_unit_test(test_dirt),           cmocka_unit_test(test_phong),
        cmocka_unit_test(test_sunlight3),      cmocka_unit_test(test_several_suns),
        cmocka_unit_test(test_sun_diffuse),    cmocka_unit_test(test_falloff_delay),
        cmocka_unit_test(test_deviance),       cmocka_unit_test(test_surflightscale),
        cmocka_unit_test(test_shadow_worldonly), cmocka_unit_test(test_minlight_dirt),
        cmocka_unit_test(test_bounce_keys),    cmocka_unit_test(test_bad_values),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
