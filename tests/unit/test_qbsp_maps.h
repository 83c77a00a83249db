/* Small maps for qbsp's key tests: map text written by the test (boxes,
 * planes, prisms, a sealed room), compiled with the qbsp program in the
 * scratch directory `tmpdir` (tmpdir_setup, tmpdir_teardown), and the bsp
 * queried by world position. Shared by test_qbsp_keys.c and
 * test_qbsp_keys2.c. */
#ifndef Q2M_TEST_QBSP_MAPS_H
#define Q2M_TEST_QBSP_MAPS_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/fileio.h"
#include "../../formats/bspfile.h"
#include "test_util.h"

/* The scratch directory of the including file's tests (tmpdir_setup and
 * tmpdir_teardown are its group fixtures). */
TU_SCRATCH_DIR(tmpdir, "q2map_qbsp_maps")

/* ------------------------------------------------------------ map text */

typedef struct mt_t {
    char *s;
    size_t n, cap;
} mt_t;

static inline void mt_printf(mt_t *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[4096];
    int k = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    assert_true(k >= 0 && k < (int)sizeof buf);
    if (m->n + (size_t)k + 1 > m->cap) {
        m->cap = (m->n + (size_t)k + 1) * 2;
        m->s = realloc(m->s, m->cap);
        assert_non_null(m->s);
    }
    memcpy(m->s + m->n, buf, (size_t)k + 1);
    m->n += (size_t)k;
}

/* An axial box; `tex` on every face, `surf` appended to each face line. */
static inline void mt_box(mt_t *m, double x0, double y0, double z0, double x1, double y1, double z1, const char *tex,
                   const char *surf)
{
    mt_printf(m, "{\n");
    mt_printf(m, "( %g 0 0 ) ( %g 1 0 ) ( %g 0 1 ) %s 0 0 0 1 1%s\n", x0, x0, x0, tex, surf);
    mt_printf(m, "( %g 0 0 ) ( %g 0 1 ) ( %g 1 0 ) %s 0 0 0 1 1%s\n", x1, x1, x1, tex, surf);
    mt_printf(m, "( 0 %g 0 ) ( 0 %g 1 ) ( 1 %g 0 ) %s 0 0 0 1 1%s\n", y0, y0, y0, tex, surf);
    mt_printf(m, "( 0 %g 0 ) ( 1 %g 0 ) ( 0 %g 1 ) %s 0 0 0 1 1%s\n", y1, y1, y1, tex, surf);
    mt_printf(m, "( 0 0 %g ) ( 1 0 %g ) ( 0 1 %g ) %s 0 0 0 1 1%s\n", z0, z0, z0, tex, surf);
    mt_printf(m, "( 0 0 %g ) ( 0 1 %g ) ( 1 0 %g ) %s 0 0 0 1 1%s\n", z1, z1, z1, tex, surf);
    mt_printf(m, "}\n");
}

/* A plane n.x = d as a face line (three points on it, wound so that the
 * normal points out of the brush). */
static inline void mt_plane(mt_t *m, vec3_t n, double d, const char *tex)
{
    vec3_t a = fabs(n.z) < 0.9 ? vec3(0, 0, 1) : vec3(1, 0, 0);
    vec3_t u = vec_normalize(vec_cross(n, a), NULL), v = vec_cross(n, u);
    vec3_t p0 = vec_scale(n, d), p1 = vec_add(p0, vec_scale(v, 64)), p2 = vec_add(p0, vec_scale(u, 64));
    mt_printf(m, "( %.6f %.6f %.6f ) ( %.6f %.6f %.6f ) ( %.6f %.6f %.6f ) %s 0 0 0 1 1\n", p0.x, p0.y, p0.z, p1.x, p1.y,
              p1.z, p2.x, p2.y, p2.z, tex);
}

/* A vertical prism of `sides` faces around (cx, cy) with inradius r. */
static inline void mt_prism(mt_t *m, double cx, double cy, double r, double z0, double z1, int sides, const char *tex)
{
    mt_printf(m, "{\n");
    for (int k = 0; k < sides; k++) {
        double a = (k + 0.5) * 2 * M_PI / sides;
        vec3_t n = vec3(cos(a), sin(a), 0);
        mt_plane(m, n, cx * n.x + cy * n.y + r, tex);
    }
    mt_plane(m, vec3(0, 0, -1), -z0, tex);
    mt_plane(m, vec3(0, 0, 1), z1, tex);
    mt_printf(m, "}\n");
}

/* worldspawn (with extra key lines) and a sealed 512x512x256 room; closed
 * by mt_end_world with a player start. */
static inline void mt_room(mt_t *m, const char *worldkeys)
{
    mt_printf(m, "{\n\"classname\" \"worldspawn\"\n%s", worldkeys);
    mt_box(m, -16, -16, -16, 528, 528, 0, "e1u1/floor", "");
    mt_box(m, -16, -16, 256, 528, 528, 272, "e1u1/ceil", "");
    mt_box(m, -16, -16, 0, 0, 528, 256, "e1u1/wall", "");
    mt_box(m, 512, -16, 0, 528, 528, 256, "e1u1/wall", "");
    mt_box(m, 0, -16, 0, 512, 0, 256, "e1u1/wall", "");
    mt_box(m, 0, 512, 0, 512, 528, 256, "e1u1/wall", "");
}

static inline void mt_end_world(mt_t *m) { mt_printf(m, "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"32 32 40\"\n}\n"); }

/* ------------------------------------------------------------ compiling */

typedef struct result_t {
    int status;
    bsp_t bsp;
    bool have_bsp;
    char *log;
} result_t;

static inline void write_file(const char *name, const char *text)
{
    char path[2 * Q2_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static inline char *read_text(const char *path)
{
    uint8_t *data = NULL;
    size_t size = 0;
    q2err_t err;
    if (!file_read_all(path, 64 << 20, &data, &size, &err)) return NULL;
    char *s = realloc(data, size + 1);
    s[size] = 0;
    return s;
}

/* Compiles tmpdir/name.map (already written) with qbsp and the options. */
static inline void compile_file(const char *name, const char *opts, result_t *r)
{
    char map[2 * Q2_PATH_MAX], bsp[2 * Q2_PATH_MAX], logp[2 * Q2_PATH_MAX], cmd[8 * Q2_PATH_MAX];
    snprintf(map, sizeof map, "%s/%s.map", tmpdir, name);
    snprintf(bsp, sizeof bsp, "%s/%s.bsp", tmpdir, name);
    snprintf(logp, sizeof logp, "%s/%s.log", tmpdir, name);
    if (!opts || !strstr(opts, "-onlyents")) unlink(bsp);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s/qbsp' %s '%s' > '%s' 2>&1", tmpdir, Q2MAP_BIN_DIR,
             opts ? opts : "-threads 2", map, logp);
    memset(r, 0, sizeof *r);
    r->status = system(cmd);
    r->log = read_text(logp);
    assert_non_null(r->log);
    bsp_init(&r->bsp);
    q2err_t err;
    if (file_exists(bsp)) r->have_bsp = bsp_read_file(bsp, &r->bsp, &err);
}

static inline void compile_mt(const char *name, mt_t *m, const char *opts, result_t *r)
{
    char file[Q2_PATH_MAX + 8];
    snprintf(file, sizeof file, "%s.map", name);
    write_file(file, m->s);
    free(m->s);
    memset(m, 0, sizeof *m);
    compile_file(name, opts, r);
}

static inline void result_free(result_t *r)
{
    if (r->have_bsp) bsp_free(&r->bsp);
    free(r->log);
}

static inline void need_bsp(const result_t *r)
{
    if (r->status != 0 || !r->have_bsp) fprintf(stderr, "qbsp log:\n%s\n", r->log);
    assert_int_equal(r->status, 0);
    assert_true(r->have_bsp);
}

/* ------------------------------------------------------------ bsp queries */

static inline vec3_t vert(const bsp_t *bsp, const dface_t *f, int k)
{
    int se = bsp->surfedges[f->firstedge + k];
    int v = se < 0 ? bsp->edges[-se].v[1] : bsp->edges[se].v[0];
    return vec3(bsp->vertexes[v].point[0], bsp->vertexes[v].point[1], bsp->vertexes[v].point[2]);
}

static inline int face_model(const bsp_t *bsp, int f)
{
    for (int m = 0; m < bsp->nummodels; m++)
        if (f >= bsp->models[m].firstface && f < bsp->models[m].firstface + bsp->models[m].numfaces) return m;
    return -1;
}

/* The first face (of any model when m < 0) holding p and facing n (any way
 * when n is zero), or -1; *count gets how many there are. */
static inline int face_at(const bsp_t *bsp, int m, vec3_t p, vec3_t normal, int *count)
{
    int first = -1, n = 0;
    for (int i = 0; i < bsp->numfaces; i++) {
        if (m >= 0 && face_model(bsp, i) != m) continue;
        const dface_t *f = &bsp->faces[i];
        const dplane_t *pl = &bsp->planes[f->planenum];
        vec3_t fn = vec3(pl->normal[0], pl->normal[1], pl->normal[2]);
        double dist = pl->dist;
        if (f->side) fn = vec_neg(fn), dist = -dist;
        if (fabs(vec_dot(fn, p) - dist) > 0.1) continue;
        if (vec_len(normal) > 0 && vec_dot(fn, normal) < 0.99) continue;
        bool inside = true;
        for (int k = 0; k < f->numedges && inside; k++) {
            vec3_t a = vert(bsp, f, k), b = vert(bsp, f, (k + 1) % f->numedges);
            vec3_t e = vec_sub(b, a);
            double len = vec_len(e);
            if (len < 0.5) continue;
            vec3_t inward = vec_scale(vec_cross(e, fn), 1.0 / len);
            if (vec_dot(vec_sub(p, a), inward) < -0.1) inside = false;
        }
        if (!inside) continue;
        if (first < 0) first = i;
        n++;
    }
    if (count) *count = n;
    return first;
}

static inline int faces_at(const bsp_t *bsp, vec3_t p, vec3_t normal)
{
    int n;
    face_at(bsp, -1, p, normal, &n);
    return n;
}

static inline const char *texture_at(const bsp_t *bsp, vec3_t p, vec3_t normal)
{
    int f = face_at(bsp, -1, p, normal, NULL);
    return f < 0 ? "" : bsp->texinfo[bsp->faces[f].texinfo].texture;
}

static inline int count_lines_with(const char *log, const char *a, const char *b)
{
    int n = 0;
    for (const char *s = log; *s;) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line - 1 ? len : sizeof line - 1), s);
        if (strstr(line, a) && (!b || strstr(line, b))) n++;
        s += len + (e ? 1 : 0);
    }
    return n;
}

static inline bool files_equal(const char *a, const char *b)
{
    char *x = NULL, *y = NULL;
    uint8_t *dx = NULL, *dy = NULL;
    size_t nx, ny;
    q2err_t err;
    bool ok = file_read_all(a, 256 << 20, &dx, &nx, &err) && file_read_all(b, 256 << 20, &dy, &ny, &err);
    x = (char *)dx, y = (char *)dy;
    bool same = ok && nx == ny && memcmp(dx, dy, nx) == 0;
    if (ok) {
        free(x);
        free(y);
    }
    return same;
}

/* Writes tmpdir/name.map and compiles it with qbsp at -threads 2 and the
 * options. */
static inline void compile_text(const char *name, const char *text, const char *opts, result_t *r)
{
    char file[Q2_PATH_MAX + 8], all[1024];
    snprintf(file, sizeof file, "%s.map", name);
    write_file(file, text);
    snprintf(all, sizeof all, "-threads 2 %s", opts ? opts : "");
    compile_file(name, all, r);
}

#endif
