/* Small maps for qrad's key tests: map text written by the test (rooms,
 * boxes, prisms), compiled with the qbsp program and lit with qrad_run in
 * memory, then luxels read back by world position, all in the scratch
 * directory `tmpdir` (tmpdir_setup, tmpdir_teardown). Shared by the qrad key
 * tests. */
#ifndef Q2M_TEST_QRAD_MAPS_H
#define Q2M_TEST_QRAD_MAPS_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qrad.h"
#include "test_util.h"

/* The scratch directory of the including file's tests (tmpdir_setup and
 * tmpdir_teardown are its group fixtures). */
TU_SCRATCH_DIR(tmpdir, "q2map_qrad_maps")

/* ------------------------------------------------------------ map text */

typedef struct mw_t {
    char *buf;
    size_t len, cap;
} mw_t;

static inline void mw_printf(mw_t *w, const char *fmt, ...)
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
static inline void mw_plane_c(mw_t *w, vec3_t n, double d, const char *tex, int contents, int flags, int value)
{
    vec3_t c = vec_scale(n, d);
    vec3_t up = fabs(n.z) < 0.9 ? vec3(0, 0, 1) : vec3(1, 0, 0);
    vec3_t u = vec_scale(vec_normalize(vec_cross(up, n), NULL), 64);
    vec3_t v = vec_cross(n, u);
    vec3_t p0 = vec_add(c, u), p1 = c, p2 = vec_add(c, v);
    mw_printf(w, "( %.6f %.6f %.6f ) ( %.6f %.6f %.6f ) ( %.6f %.6f %.6f ) %s 0 0 0 1 1 %d %d %d\n", p0.x, p0.y, p0.z,
              p1.x, p1.y, p1.z, p2.x, p2.y, p2.z, tex, contents, flags, value);
}

static inline void mw_plane(mw_t *w, vec3_t n, double d, const char *tex, int flags, int value)
{
    mw_plane_c(w, n, d, tex, 0, flags, value);
}

/* A box of the given contents on every side (an origin brush). */
static inline void mw_box_contents(mw_t *w, vec3_t lo, vec3_t hi, const char *tex, int contents)
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
static inline void mw_box_tex(mw_t *w, vec3_t lo, vec3_t hi, const char *tex, int flags, int value, int face, const char *ftex,
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

static inline void mw_box(mw_t *w, vec3_t lo, vec3_t hi, const char *tex)
{
    mw_box_tex(w, lo, hi, tex, 0, 0, -1, NULL, 0, 0);
}

/* A vertical prism of `sides` faces around (cx, cy) with inradius r. */
static inline void mw_prism(mw_t *w, double cx, double cy, double r, double z0, double z1, int sides, const char *tex)
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
static inline void mw_room(mw_t *w, vec3_t lo, vec3_t hi, const char *floor_tex, int floor_flags, const char *ceil_tex,
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
    char log[32768];
} lit_t;

static inline qrad_opts_t opts0(void)
{
    qrad_opts_t o;
    qrad_opts_default(&o);
    o.bounce = 0;
    o.maxlight = 255;
    o.threads = 2;
    return o;
}

/* Compiles the map text with qbsp and lights it with these options and
 * textures (texdb may be NULL: none); the qrad log (warnings included) is
 * kept in out->log. */
/* Writes the map text as tmpdir/NAME.map and compiles it with the qbsp
 * program into tmpdir/NAME.bsp (bsp, of size n, gets that path). */
static inline void compile_map(const char *name, const char *text, char *bsp, size_t n)
{
    char map[512], cmd[2048];
    snprintf(map, sizeof map, "%s/%s.map", tmpdir, name);
    snprintf(bsp, n, "%s/%s.bsp", tmpdir, name);
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
}

static inline void compile_light_tex(const char *name, const char *text, const qrad_opts_t *o, texdb_t *texdb,
                                     lit_t *out)
{
    char bsp[512];
    compile_map(name, text, bsp, sizeof bsp);
    q2err_t err;
    bsp_init(&out->bsp);
    assert_true(bsp_read_file(bsp, &out->bsp, &err));
    FILE *lf = tmpfile();
    assert_non_null(lf);
    log_t log;
    log_init(&log, LOG_NORMAL, lf, lf);
    bool ok = qrad_run(&out->bsp, o, texdb, &log, NULL, NULL, &err);
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

/* Compiles the map text with qbsp (and, with vis, qvis) and lights it with
 * the qrad program (not qrad_run: the program's option parsing, presets
 * included, is what is tested) and these options; its log is kept in
 * out->log.
 * Q2MAP_TEST_QRAD_BIN runs another build's qrad on the same bsps, to see a
 * test fail on a build without the rule it checks. */
static inline void light_prog_vis(const char *name, const char *text, const char *args, bool vis, lit_t *out)
{
    char bsp[512], logp[512], cmd[4096];
    compile_map(name, text, bsp, sizeof bsp);
    if (vis) {
        /* the qvis program, for the PVS (qrad3 culls its lights by it) */
        snprintf(cmd, sizeof cmd, "'%s/qvis' -threads 2 '%s' > '%s/%s.qvis.log' 2>&1", Q2MAP_BIN_DIR, bsp, tmpdir, name);
        if (system(cmd) != 0) fail_msg("qvis failed on %s", name);
    }
    snprintf(logp, sizeof logp, "%s/%s.qrad.log", tmpdir, name);
    const char *qrad = getenv("Q2MAP_TEST_QRAD_BIN");
    char def[512];
    snprintf(def, sizeof def, "%s/qrad", Q2MAP_BIN_DIR);
    snprintf(cmd, sizeof cmd, "'%s' -threads 2 %s '%s' > '%s' 2>&1", qrad && *qrad ? qrad : def, args, bsp, logp);
    if (system(cmd) != 0) fail_msg("qrad %s failed on %s", args, name);
    q2err_t err;
    bsp_init(&out->bsp);
    assert_true(bsp_read_file(bsp, &out->bsp, &err));
    FILE *f = fopen(logp, "r");
    assert_non_null(f);
    size_t n = fread(out->log, 1, sizeof out->log - 1, f);
    out->log[n] = 0;
    fclose(f);
    assert_true(out->bsp.lightdatasize > 0);
}

static inline void light_prog(const char *name, const char *text, const char *args, lit_t *out)
{
    light_prog_vis(name, text, args, false, out);
}

static inline void compile_light(const char *name, const char *text, const qrad_opts_t *o, lit_t *out)
{
    compile_light_tex(name, text, o, NULL, out);
}

static inline void lit_free(lit_t *l) { bsp_free(&l->bsp); }

static inline int face_model(const bsp_t *bsp, int f)
{
    for (int m = 0; m < bsp->nummodels; m++)
        if (f >= bsp->models[m].firstface && f < bsp->models[m].firstface + bsp->models[m].numfaces) return m;
    return -1;
}

static inline vec3_t face_vert(const bsp_t *bsp, int f, int k)
{
    const dface_t *df = &bsp->faces[f];
    int se = bsp->surfedges[df->firstedge + k];
    int v = se < 0 ? bsp->edges[-se].v[1] : bsp->edges[se].v[0];
    return vec3(bsp->vertexes[v].point[0], bsp->vertexes[v].point[1], bsp->vertexes[v].point[2]);
}

/* The face of model m facing n that holds p (bsp coordinates, so a bmodel
 * without an origin), or -1. */
static inline int find_face(const bsp_t *bsp, int m, vec3_t p, vec3_t n)
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

/* The RGB of face f's luxel nearest p in its lightmap of slot `slot` (the
 * slot-th of its styles). */
static inline const uint8_t *luxel_rgb(const bsp_t *bsp, int f, vec3_t p, int slot)
{
    face_extents_t e;
    assert_true(bsp_face_extents(bsp, f, &e, NULL));
    const dtexinfo_t *ti = &bsp->texinfo[bsp->faces[f].texinfo];
    double s = p.x * ti->vecs[0][0] + p.y * ti->vecs[0][1] + p.z * ti->vecs[0][2] + ti->vecs[0][3];
    double t = p.x * ti->vecs[1][0] + p.y * ti->vecs[1][1] + p.z * ti->vecs[1][2] + ti->vecs[1][3];
    int i = (int)floor((s - e.texturemins[0]) / 16.0 + 0.5), j = (int)floor((t - e.texturemins[1]) / 16.0 + 0.5);
    i = i < 0 ? 0 : i >= e.size[0] ? e.size[0] - 1 : i;
    j = j < 0 ? 0 : j >= e.size[1] ? e.size[1] - 1 : j;
    size_t n3 = (size_t)e.size[0] * e.size[1] * 3;
    return bsp->lightdata + bsp->faces[f].lightofs + (size_t)slot * n3 + ((size_t)j * e.size[0] + i) * 3;
}

/* Mean channel of the style-0 luxel nearest p on the face of model m
 * facing n. */
static inline double luxel(const lit_t *l, int m, vec3_t p, vec3_t n, int channel)
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
    const uint8_t *px = luxel_rgb(bsp, f, p, 0);
    if (channel >= 0) return px[channel];
    return (px[0] + px[1] + px[2]) / 3.0;
}

/* Min and max channel over every style-0 luxel of model m's lit faces. */
static inline void luxel_range(const lit_t *l, int m, int channel, int *lo, int *hi)
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
static inline char *room_map(const char *world, const char *extra, const char *floor_tex, int floor_flags,
                      const char *ceil_tex, int ceil_flags)
{
    mw_t w = {0};
    mw_printf(&w, "{\n\"classname\" \"worldspawn\"\n%s", world ? world : "");
    mw_room(&w, vec3(-256, -256, 0), vec3(256, 256, 256), floor_tex, floor_flags, ceil_tex, ceil_flags);
    mw_printf(&w, "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 32\"\n}\n%s", extra ? extra : "");
    return w.buf;
}

#endif
