/* The software renderer: faces from the shared cull (PVS, frustum, BSP
 * front to back) are near-clipped and projected once per frame, then
 * horizontal bands of the image are rasterized in parallel. Each pixel is
 * covered when its centre lies inside the polygon with half-open edges, and
 * every edge is evaluated from its endpoints in a fixed order, so two faces
 * that share an edge cover each pixel along it exactly once: any background
 * pixel left inside a sealed map is a real gap in the geometry. Texture and
 * lightmap coordinates are derived per pixel from the face plane
 * (perspective-correct by construction); lightmaps are filtered bilinearly
 * between luxel centres exactly as GL_LINEAR does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../common/timer.h"
#include "refexport.h"
#include "soft_raster.h"

#define BAND_ROWS 8

typedef struct sedge_t {
    double ya, yb, xa, dxdy; /* ya < yb */
} sedge_t;

typedef struct sface_t {
    int fi;
    int kind; /* 0 textured, 1 sky, 2 translucent */
    int y0, y1; /* rows [y0, y1) */
    int firstedge, numedges;
    /* per pixel centre (px, py): q = a*px + b*py + c */
    double iz[3], sz[3], tz[3];
    float alpha;
} sface_t;

typedef struct soft_t {
    const world_t *w;
    int width, height, threads;
    uint8_t *color;
    float *depth;
    render_opts_t opts;
    cull_t cull;
    view_t view;
    sface_t *faces;
    int numfaces, capfaces;
    sedge_t *edges;
    int numedges, capedges;
} soft_t;

static bool soft_init(void **state, const world_t *w, int width, int height, int threads, q2err_t *err)
{
    if (width < 1 || height < 1 || width > 8192 || height > 8192)
        return q2err_set(err, NULL, 0, 0, "image size %dx%d out of range", width, height);
    soft_t *s = q2_calloc(1, sizeof *s);
    s->w = w;
    s->width = width;
    s->height = height;
    s->threads = threads > 0 ? threads : 1;
    s->color = q2_malloc((size_t)width * height * 4);
    s->depth = q2_malloc((size_t)width * height * sizeof(float));
    render_opts_default(&s->opts);
    cull_init(&s->cull, w);
    *state = s;
    return true;
}

static void soft_shutdown(void *state)
{
    soft_t *s = state;
    if (!s) return;
    free(s->color);
    free(s->depth);
    free(s->faces);
    free(s->edges);
    cull_free(&s->cull);
    free(s);
}

static void soft_begin(void *state, const render_opts_t *o)
{
    soft_t *s = state;
    /* The image is cleared band by band in draw_world, by the thread that
     * draws the band. */
    s->opts = *o;
}

static void clear_rows(soft_t *s, int ya, int yb)
{
    const uint8_t px[4] = {s->opts.background[0], s->opts.background[1], s->opts.background[2], 255};
    uint8_t *c = s->color + (size_t)ya * s->width * 4;
    size_t n = (size_t)(yb - ya) * s->width;
    for (size_t i = 0; i < n; i++) memcpy(c + i * 4, px, 4);
    memset(s->depth + (size_t)ya * s->width, 0, n * sizeof(float));
}

static inline double dot3d(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

int soft_project_face(const world_t *w, const view_t *v, int fi, double (*out)[2], int max)
{
    const wface_t *f = &w->faces[fi];
    double cam[SOFT_MAX_VERTS][3];
    int n = f->numverts < SOFT_MAX_VERTS ? f->numverts : SOFT_MAX_VERTS;
    for (int k = 0; k < n; k++) {
        const float *p = w->verts[f->firstvert + k].xyz;
        double d[3] = {p[0] - v->org[0], p[1] - v->org[1], p[2] - v->org[2]};
        cam[k][0] = dot3d(d, v->right);
        cam[k][1] = dot3d(d, v->up);
        cam[k][2] = dot3d(d, v->fwd);
    }
    return soft_clip_project(v, (const double(*)[3])cam, n, out, max);
}

int soft_clip_project(const view_t *v, const double (*cam)[3], int n, double (*out)[2], int max)
{
    int m = 0;
    for (int k = 0; k < n && m < max - 1; k++) {
        const double *a = cam[k], *b = cam[(k + 1) % n];
        bool ain = a[2] >= VIEW_NEAR, bin = b[2] >= VIEW_NEAR;
        if (ain) {
            out[m][0] = v->cx + a[0] / a[2] * v->scale;
            out[m][1] = v->cy - a[1] / a[2] * v->scale;
            m++;
        }
        if (ain != bin) {
            /* Interpolate from the inside endpoint so that the two faces
             * sharing this edge compute the same point bit for bit. */
            const double *i = ain ? a : b, *o = ain ? b : a;
            double t = (i[2] - VIEW_NEAR) / (i[2] - o[2]);
            double x = i[0] + t * (o[0] - i[0]), y = i[1] + t * (o[1] - i[1]);
            out[m][0] = v->cx + x / VIEW_NEAR * v->scale;
            out[m][1] = v->cy - y / VIEW_NEAR * v->scale;
            m++;
        }
    }
    return m;
}

static void setup_face(soft_t *s, int fi, int kind)
{
    const world_t *w = s->w;
    const wface_t *f = &w->faces[fi];
    const view_t *v = &s->view;
    double pts[SOFT_MAX_POINTS][2];
    int n = soft_project_face(w, v, fi, pts, SOFT_MAX_POINTS);
    if (n < 3) return;
    double ymin = 1e300, ymax = -1e300;
    for (int k = 0; k < n; k++) {
        if (pts[k][1] < ymin) ymin = pts[k][1];
        if (pts[k][1] > ymax) ymax = pts[k][1];
    }
    double fy0 = ceil(ymin - 0.5), fy1 = ceil(ymax - 0.5);
    if (fy1 <= 0 || fy0 >= s->height || fy0 >= fy1) return;
    sface_t sf;
    sf.fi = fi;
    sf.kind = kind;
    sf.y0 = fy0 < 0 ? 0 : (int)fy0;
    sf.y1 = fy1 > s->height ? s->height : (int)fy1;
    sf.firstedge = s->numedges;
    sf.numedges = 0;
    for (int k = 0; k < n; k++) {
        const double *a = pts[k], *b = pts[(k + 1) % n];
        if (a[1] == b[1]) continue;
        if (a[1] > b[1]) {
            const double *t = a;
            a = b;
            b = t;
        }
        sedge_t e = {a[1], b[1], a[0], (b[0] - a[0]) / (b[1] - a[1])};
        ARRAY_PUSH(s->edges, s->numedges, s->capedges, e);
        sf.numedges++;
    }
    /* Plane in camera space: nc . p = dc, with p = z (X, Y, 1). */
    double n3[3] = {f->normal[0], f->normal[1], f->normal[2]};
    double nc[3] = {dot3d(n3, v->right), dot3d(n3, v->up), dot3d(n3, v->fwd)};
    double dc = f->dist - dot3d(n3, v->org);
    if (fabs(dc) < 1e-9) return;
    /* X = (px - cx)/scale, Y = (cy - py)/scale */
    double ax = 1.0 / v->scale, cxo = -v->cx / v->scale, by = -1.0 / v->scale, cyo = v->cy / v->scale;
    sf.iz[0] = nc[0] * ax / dc;
    sf.iz[1] = nc[1] * by / dc;
    sf.iz[2] = (nc[0] * cxo + nc[1] * cyo + nc[2]) / dc;
    const float *vecs[2] = {f->svec, f->tvec};
    double *outq[2] = {sf.sz, sf.tz};
    for (int i = 0; i < 2; i++) {
        double S[3] = {vecs[i][0], vecs[i][1], vecs[i][2]};
        double s0 = vecs[i][3] + dot3d(S, v->org);
        double sr = dot3d(S, v->right), su = dot3d(S, v->up), sfw = dot3d(S, v->fwd);
        outq[i][0] = s0 * sf.iz[0] + sr * ax;
        outq[i][1] = s0 * sf.iz[1] + su * by;
        outq[i][2] = s0 * sf.iz[2] + sr * cxo + su * cyo + sfw;
    }
    sf.alpha = (f->flags & SURF_TRANS33) ? 0.33f : (f->flags & SURF_TRANS66) ? 0.66f : 1.0f;
    ARRAY_PUSH(s->faces, s->numfaces, s->capfaces, sf);
}

static inline int ifloor(float x)
{
    int i = (int)x;
    return i - (x < (float)i);
}

static void raster_face(soft_t *s, const sface_t *sf, int ya, int yb)
{
    const world_t *w = s->w;
    const wface_t *f = &w->faces[sf->fi];
    const wtexture_t *tex = &w->textures[f->tex];
    const int mode = s->opts.mode;
    const int tw = tex->width, th = tex->height;
    const bool pow2 = (tw & (tw - 1)) == 0 && (th & (th - 1)) == 0;
    const uint8_t *lm = f->lm_ofs >= 0 ? w->lightmaps + f->lm_ofs : NULL;
    const int lw = f->lm_w, lh = f->lm_h;
    const float lmin0 = (float)f->texturemins[0], lmin1 = (float)f->texturemins[1];
    const uint8_t *base = mode == RMODE_FLAT ? f->flat : mode == RMODE_CLUSTERS ? f->clustercol : NULL;
    const bool sky = sf->kind == 1, trans = sf->kind == 2;
    const float alpha = sf->alpha;
    const sedge_t *edges = s->edges + sf->firstedge;
    int y0 = sf->y0 > ya ? sf->y0 : ya, y1 = sf->y1 < yb ? sf->y1 : yb;
    const float iza = (float)sf->iz[0], sza = (float)sf->sz[0], tza = (float)sf->tz[0];
    for (int y = y0; y < y1; y++) {
        double yc = y + 0.5;
        double xl = 1e300, xr = -1e300;
        for (int e = 0; e < sf->numedges; e++) {
            const sedge_t *ed = &edges[e];
            if (yc < ed->ya || yc >= ed->yb) continue;
            double x = ed->xa + (yc - ed->ya) * ed->dxdy;
            if (x < xl) xl = x;
            if (x > xr) xr = x;
        }
        if (xl >= xr) continue;
        double fx0 = ceil(xl - 0.5), fx1 = ceil(xr - 0.5);
        int x0 = fx0 < 0 ? 0 : fx0 > s->width ? s->width : (int)fx0;
        int x1 = fx1 < 0 ? 0 : fx1 > s->width ? s->width : (int)fx1;
        if (x0 >= x1) continue;
        const float izr = (float)(sf->iz[1] * yc + sf->iz[2]);
        const float szr = (float)(sf->sz[1] * yc + sf->sz[2]);
        const float tzr = (float)(sf->tz[1] * yc + sf->tz[2]);
        float *zb = s->depth + (size_t)y * s->width;
        uint8_t *cb = s->color + (size_t)y * s->width * 4;
        for (int x = x0; x < x1; x++) {
            float px = x + 0.5f;
            float iz = iza * px + izr;
            if (!(iz > zb[x])) continue;
            uint8_t *c = cb + x * 4;
            if (sky) {
                zb[x] = iz;
                c[0] = SKY_R;
                c[1] = SKY_G;
                c[2] = SKY_B;
                continue;
            }
            float z = 1.0f / iz;
            float st = (sza * px + szr) * z, tt = (tza * px + tzr) * z;
            float r, g, b;
            if (base) {
                r = base[0];
                g = base[1];
                b = base[2];
            } else if (mode == RMODE_LIGHTMAP) {
                r = g = b = 255.0f;
            } else {
                int si = ifloor(st), ti = ifloor(tt);
                if (pow2) {
                    si &= tw - 1;
                    ti &= th - 1;
                } else {
                    si %= tw;
                    if (si < 0) si += tw;
                    ti %= th;
                    if (ti < 0) ti += th;
                }
                const uint8_t *t = tex->rgba + ((size_t)ti * tw + si) * 4;
                r = t[0];
                g = t[1];
                b = t[2];
            }
            if (lm) {
                float lu = (st - lmin0) * (1.0f / LIGHTMAP_SCALE), lv = (tt - lmin1) * (1.0f / LIGHTMAP_SCALE);
                if (f->lm_decoupled) {
                    lu = f->lm_from_st[0][0] * st + f->lm_from_st[0][1] * tt + f->lm_from_st[0][2];
                    lv = f->lm_from_st[1][0] * st + f->lm_from_st[1][1] * tt + f->lm_from_st[1][2];
                }
                lu = lu < 0 ? 0 : lu > lw - 1 ? lw - 1 : lu;
                lv = lv < 0 ? 0 : lv > lh - 1 ? lh - 1 : lv;
                int u0 = (int)lu, v0 = (int)lv;
                float fu = lu - u0, fv = lv - v0;
                int u1 = u0 + 1 < lw ? u0 + 1 : u0, v1 = v0 + 1 < lh ? v0 + 1 : v0;
                const uint8_t *p00 = lm + (v0 * lw + u0) * 3, *p01 = lm + (v0 * lw + u1) * 3;
                const uint8_t *p10 = lm + (v1 * lw + u0) * 3, *p11 = lm + (v1 * lw + u1) * 3;
                float w00 = (1 - fu) * (1 - fv), w01 = fu * (1 - fv), w10 = (1 - fu) * fv, w11 = fu * fv;
                const float k = 1.0f / 255.0f;
                r *= (p00[0] * w00 + p01[0] * w01 + p10[0] * w10 + p11[0] * w11) * k;
                g *= (p00[1] * w00 + p01[1] * w01 + p10[1] * w10 + p11[1] * w11) * k;
                b *= (p00[2] * w00 + p01[2] * w01 + p10[2] * w10 + p11[2] * w11) * k;
            }
            if (trans) {
                r = r * alpha + c[0] * (1 - alpha);
                g = g * alpha + c[1] * (1 - alpha);
                b = b * alpha + c[2] * (1 - alpha);
            } else {
                zb[x] = iz;
            }
            c[0] = (uint8_t)(r + 0.5f);
            c[1] = (uint8_t)(g + 0.5f);
            c[2] = (uint8_t)(b + 0.5f);
        }
    }
}

static void soft_draw_world(void *state, const camera_t *cam, render_stats_t *stats)
{
    soft_t *s = state;
    double t0 = time_now();
    view_setup(&s->view, cam, s->width, s->height);
    cull_world(s->w, &s->cull, &s->view, &s->opts);
    s->numfaces = s->numedges = 0;
    for (int i = 0; i < s->cull.numopaque; i++) {
        int fi = s->cull.opaque[i];
        setup_face(s, fi, (s->w->faces[fi].flags & SURF_SKY) ? 1 : 0);
    }
    int numopaque = s->numfaces;
    for (int i = 0; i < s->cull.numtrans; i++) setup_face(s, s->cull.trans[i], 2);
    int nbands = (s->height + BAND_ROWS - 1) / BAND_ROWS;
    /* Bands are independent, so the image does not depend on which thread
     * draws which band. */
#pragma omp parallel for schedule(dynamic, 1) num_threads(s->threads)
    for (int band = 0; band < nbands; band++) {
        int ya = band * BAND_ROWS, yb = ya + BAND_ROWS < s->height ? ya + BAND_ROWS : s->height;
        clear_rows(s, ya, yb);
        for (int i = 0; i < s->numfaces; i++) {
            const sface_t *sf = &s->faces[i];
            if (sf->y1 <= ya || sf->y0 >= yb) continue;
            raster_face(s, sf, ya, yb);
        }
    }
    (void)numopaque;
    if (s->opts.wireframe) {
        for (int i = 0; i < s->numfaces; i++) {
            double pts[SOFT_MAX_POINTS][2];
            int n = soft_project_face(s->w, &s->view, s->faces[i].fi, pts, SOFT_MAX_POINTS);
            for (int k = 0; k < n; k++)
                soft_line2d(s->color, s->width, s->height, pts[k][0], pts[k][1], pts[(k + 1) % n][0],
                            pts[(k + 1) % n][1], (const uint8_t[3]){255, 255, 255});
        }
    }
    if (stats) {
        stats->faces_drawn = s->numfaces;
        stats->clusters_visible = s->cull.clusters_visible;
        stats->view_cluster = s->cull.view_cluster;
        stats->ms = (time_now() - t0) * 1000.0;
    }
}

static void soft_draw_lines(void *state, const camera_t *cam, const overlay_line_t *lines, int n)
{
    soft_t *s = state;
    view_t v;
    view_setup(&v, cam, s->width, s->height);
    for (int i = 0; i < n; i++) {
        double cam3[2][3];
        const float *p[2] = {lines[i].a, lines[i].b};
        for (int k = 0; k < 2; k++) {
            double d[3] = {p[k][0] - v.org[0], p[k][1] - v.org[1], p[k][2] - v.org[2]};
            cam3[k][0] = dot3d(d, v.right);
            cam3[k][1] = dot3d(d, v.up);
            cam3[k][2] = dot3d(d, v.fwd);
        }
        double out[4][2];
        int m = soft_clip_project(&v, (const double(*)[3])cam3, 2, out, 4);
        if (m == 2) soft_line2d(s->color, s->width, s->height, out[0][0], out[0][1], out[1][0], out[1][1], lines[i].rgb);
    }
}

void soft_line2d(uint8_t *rgba, int w, int h, double x0, double y0, double x1, double y1, const uint8_t rgb[3])
{
    /* Clip to a margin around the image first so that points far off screen
     * do not make the step count explode. */
    const double lim = 1e5;
    if (fabs(x0) > lim || fabs(y0) > lim || fabs(x1) > lim || fabs(y1) > lim) {
        double dx = x1 - x0, dy = y1 - y0;
        double t0 = 0, t1 = 1;
        double p[4] = {-dx, dx, -dy, dy}, q[4] = {x0 + 10, w + 10 - x0, y0 + 10, h + 10 - y0};
        for (int i = 0; i < 4; i++) {
            if (p[i] == 0) {
                if (q[i] < 0) return;
                continue;
            }
            double r = q[i] / p[i];
            if (p[i] < 0) {
                if (r > t1) return;
                if (r > t0) t0 = r;
            } else {
                if (r < t0) return;
                if (r < t1) t1 = r;
            }
        }
        double nx0 = x0 + t0 * dx, ny0 = y0 + t0 * dy;
        x1 = x0 + t1 * dx;
        y1 = y0 + t1 * dy;
        x0 = nx0;
        y0 = ny0;
    }
    double dx = x1 - x0, dy = y1 - y0;
    int steps = (int)ceil(fmax(fabs(dx), fabs(dy)));
    if (steps < 1) steps = 1;
    for (int i = 0; i <= steps; i++) {
        int x = (int)floor(x0 + dx * i / steps), y = (int)floor(y0 + dy * i / steps);
        if (x < 0 || y < 0 || x >= w || y >= h) continue;
        uint8_t *c = rgba + ((size_t)y * w + x) * 4;
        c[0] = rgb[0];
        c[1] = rgb[1];
        c[2] = rgb[2];
    }
}

static void soft_end(void *state) { (void)state; }

static void soft_read(void *state, uint8_t *rgba)
{
    soft_t *s = state;
    memcpy(rgba, s->color, (size_t)s->width * s->height * 4);
}

const refexport_t ref_soft = {
    "soft", soft_init, soft_begin, soft_draw_world, soft_draw_lines, soft_end, soft_read, soft_shutdown,
};

const refexport_t *ref_by_name(const char *name)
{
    if (!name || !strcmp(name, "soft")) return &ref_soft;
    if (!strcmp(name, "gl")) return &ref_gl;
    return NULL;
}
