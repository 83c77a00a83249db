/* qview and BSPX: decoupled lightmaps drawn in place of the vanilla ones,
 * and overlays of the light grid's samples and of the face normals. */
#include "bspx_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../formats/bspx.h"
#include "../formats/lightmap.h"

/* Larger lightmaps than this are refused (Q2PRO's largest, and what fits
 * the GL renderer's atlas page with room to spare). */
#define VIEW_MAX_DECOUPLED 512

static int face_vertex(const bsp_t *b, const dface_t *df, int k)
{
    int se = b->surfedges[df->firstedge + k];
    return se < 0 ? b->edges[-se].v[1] : b->edges[se].v[0];
}

/* The affine map from texture (s, t) to decoupled luxel coordinates over
 * the face's plane: (s, t, n.x) -> x by the inverse of [S; T; n], then the
 * lightmap's rows. False when the texture axes are degenerate. */
static bool lm_from_st(const bsp_t *b, const dface_t *df, const decoupled_lm_t *e, float out[2][3])
{
    const dtexinfo_t *ti = &b->texinfo[df->texinfo];
    const dplane_t *pl = &b->planes[df->planenum];
    double m[3][3], inv[3][3];
    for (int c = 0; c < 3; c++) {
        m[0][c] = ti->vecs[0][c];
        m[1][c] = ti->vecs[1][c];
        m[2][c] = pl->normal[c];
    }
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (fabs(det) < 1e-12) return false;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            /* cofactor transpose / det */
            int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
            inv[r][c] = (m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]) / det;
        }
    /* x = inv * (s - S3, t - T3, dist) */
    for (int row = 0; row < 2; row++) {
        double a[3] = {0, 0, 0};
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < 3; c++) a[k] += e->world_to_lm[row][c] * inv[c][k];
        out[row][0] = (float)a[0];
        out[row][1] = (float)a[1];
        out[row][2] = (float)(-a[0] * ti->vecs[0][3] - a[1] * ti->vecs[1][3] + a[2] * pl->dist + e->world_to_lm[row][3]);
    }
    return true;
}

void world_use_bspx(world_t *w, log_t *log)
{
    const bsp_t *b = &w->bsp;
    bspx_t x;
    q2err_t err;
    if (!bspx_parse(b, &x, NULL, &err)) {
        log_warn(log, "%s: BSPX ignored: %s", w->path, err.msg);
        return;
    }
    const bspx_lump_t *l = bspx_find(&x, "DECOUPLED_LM");
    decoupled_lm_t *d = NULL;
    if (l && !decoupled_decode(b, l->data, l->size, &d, &err)) {
        log_warn(log, "%s: %s; drawing the vanilla lightmaps", w->path, err.msg);
        d = NULL;
    }
    if (d) {
        int lcap = w->lightmaps_size, used = 0;
        for (int i = 0; i < w->numfaces; i++) {
            const dface_t *df = &b->faces[i];
            wface_t *f = &w->faces[i];
            const decoupled_lm_t *e = &d[i];
            int nstyles = 0;
            while (nstyles < MAXLIGHTMAPS && df->styles[nstyles] != 255) nstyles++;
            if ((f->flags & (SURF_SKY | SURF_WARP)) || e->offset < 0 || nstyles == 0) continue;
            if (e->width > VIEW_MAX_DECOUPLED || e->height > VIEW_MAX_DECOUPLED) {
                log_warn(log, "%s: face %d: decoupled lightmap %dx%d too large; drawn with the vanilla one", w->path,
                         i, e->width, e->height);
                continue;
            }
            float map[2][3];
            if (!lm_from_st(b, df, e, map)) continue;
            memcpy(f->lm_from_st, map, sizeof map);
            f->lm_decoupled = true;
            int n = e->width * e->height * 3;
            w->lightmaps = q2_grow(w->lightmaps, 1, &lcap, w->lightmaps_size + n);
            uint8_t *dst = w->lightmaps + w->lightmaps_size;
            for (int p = 0; p < n; p++) {
                int sum = 0;
                for (int s = 0; s < nstyles; s++) sum += b->lightdata[e->offset + s * n + p];
                dst[p] = (uint8_t)(sum > 255 ? 255 : sum);
            }
            if (f->lm_ofs < 0) w->numlitfaces++;
            f->lm_ofs = w->lightmaps_size;
            f->lm_w = e->width;
            f->lm_h = e->height;
            w->lightmaps_size += n;
            /* Lightmap coordinates from the bsp's own vertices (a bmodel's
             * frame), as engines compute them. */
            for (int k = 0; k < f->numverts && k < df->numedges; k++) {
                const float *v = b->vertexes[face_vertex(b, df, k)].point;
                wvert_t *wv = &w->verts[f->firstvert + k];
                for (int r = 0; r < 2; r++)
                    wv->lm[r] = e->world_to_lm[r][0] * v[0] + e->world_to_lm[r][1] * v[1] +
                                e->world_to_lm[r][2] * v[2] + e->world_to_lm[r][3];
            }
            used++;
        }
        log_verbose(log, "%s: %d faces drawn with their decoupled lightmaps", w->path, used);
        free(d);
    }
    bspx_free(&x);
}

static void push(overlays_t *ov, const float a[3], const float bb[3], const uint8_t rgb[3])
{
    overlay_line_t l;
    memcpy(l.a, a, sizeof l.a);
    memcpy(l.b, bb, sizeof l.b);
    memcpy(l.rgb, rgb, 3);
    ARRAY_PUSH(ov->bspx, ov->numbspx, ov->capbspx, l);
}

/* Each open sample as a small cross in its style-0 colour (lifted so a
 * black sample still shows against a dark wall). */
static bool overlay_lightgrid(overlays_t *ov, const bsp_t *b, const bspx_t *x, q2err_t *err)
{
    const bspx_lump_t *l = bspx_find(x, "LIGHTGRID_OCTREE");
    if (!l) return q2err_set(err, NULL, 0, 0, "--overlay lightgrid: the bsp has no LIGHTGRID_OCTREE lump");
    lightgrid_t g;
    if (!lightgrid_decode(l->data, l->size, &g, err)) return false;
    (void)b;
    float arm = 0.2f * (g.dist[0] < g.dist[2] ? g.dist[0] : g.dist[2]);
    for (int z = 0; z < g.size[2]; z++)
        for (int y = 0; y < g.size[1]; y++)
            for (int xx = 0; xx < g.size[0]; xx++) {
                const lg_sample_t *s = lightgrid_lookup(&g, xx, y, z);
                if (!s) continue;
                uint8_t c[3] = {0, 0, 0};
                for (int k = 0; k < s->count; k++)
                    if (s->style[k] == 0) memcpy(c, s->rgb[k], 3);
                for (int ch = 0; ch < 3; ch++) c[ch] = (uint8_t)(24 + c[ch] * (255 - 24) / 255);
                float p[3] = {g.mins[0] + xx * g.dist[0], g.mins[1] + y * g.dist[1], g.mins[2] + z * g.dist[2]};
                for (int a = 0; a < 3; a++) {
                    float p0[3] = {p[0], p[1], p[2]}, p1[3] = {p[0], p[1], p[2]};
                    p0[a] -= arm;
                    p1[a] += arm;
                    push(ov, p0, p1, c);
                }
            }
    lightgrid_free(&g);
    return true;
}

/* Each face vertex's normal as an 8-unit line, coloured by direction. */
static bool overlay_normals(overlays_t *ov, const world_t *w, const bspx_t *x, q2err_t *err)
{
    const bsp_t *b = &w->bsp;
    const bspx_lump_t *l = bspx_find(x, "FACENORMALS");
    if (!l) return q2err_set(err, NULL, 0, 0, "--overlay normals: the bsp has no FACENORMALS lump");
    facenormals_t n;
    if (!facenormals_decode(b, l->data, l->size, &n, err)) return false;
    for (int i = 0; i < w->numfaces; i++) {
        const wface_t *f = &w->faces[i];
        for (int k = 0; k < f->numverts && k < b->faces[i].numedges; k++) {
            const float *v = w->verts[f->firstvert + k].xyz;
            const float *nv = n.vecs[n.index[n.firstvert[i] + k][0]];
            float e[3];
            uint8_t c[3];
            for (int a = 0; a < 3; a++) {
                e[a] = v[a] + 8 * nv[a];
                c[a] = (uint8_t)(127.5f + 127.5f * nv[a]);
            }
            push(ov, v, e, c);
        }
    }
    facenormals_free(&n);
    return true;
}

bool bspx_overlay_load(overlays_t *ov, const world_t *w, const char *name, q2err_t *err)
{
    bspx_t x;
    if (!bspx_parse(&w->bsp, &x, NULL, err)) return false;
    bool ok;
    if (!strcmp(name, "lightgrid")) ok = overlay_lightgrid(ov, &w->bsp, &x, err);
    else if (!strcmp(name, "normals")) ok = overlay_normals(ov, w, &x, err);
    else ok = q2err_set(err, NULL, 0, 0, "--overlay %s: unknown overlay (lightgrid, normals)", name);
    bspx_free(&x);
    return ok;
}
