#include "qvis.h"

#include <stdlib.h>
#include <string.h>

#include "../common/dist.h"
#include "../common/mem.h"

/* True when some point of w lies in front of the plane by more than eps. */
static bool any_front(const vwind_t *w, const plane_t *pl)
{
    for (int k = 0; k < w->n; k++)
        if (vec_dot(w->p[k], pl->normal) - pl->dist > VIS_EPSILON) return true;
    return false;
}

static bool any_back(const vwind_t *w, const plane_t *pl)
{
    for (int k = 0; k < w->n; k++)
        if (vec_dot(w->p[k], pl->normal) - pl->dist < -VIS_EPSILON) return true;
    return false;
}

/* Portal spheres and planes as separate arrays, so the first, sphere-only
 * pass over all portals runs as straight vector code: it is np^2 tests.
 * The double columns serve maps beyond VIS_FLOAT_RANGE; the float ones,
 * padded to whole groups of four with portals nothing passes, the rest. */
typedef struct base_soa_t {
    double *ox, *oy, *oz, *r, *nx, *ny, *nz, *dist;
    v4f *fox, *foy, *foz, *fr, *fnx, *fny, *fnz, *fdist;
    int groups;
    bool use_float;
} base_soa_t;

/* How far the float pretest may err in a plane distance, and more: it only
 * needs to pass every pair the exact test might (see VIS_FLOAT_RANGE). */
#define BASE_FLOAT_MARGIN 0.25f

/* The exact test of a pair the sphere pretest let through. */
static bool front_exact(const vis_portal_t *p, const vis_portal_t *tp)
{
    double d = vec_dot(tp->origin, p->plane.normal) - p->plane.dist;
    if (d - tp->radius <= VIS_EPSILON && !any_front(tp->w, &p->plane)) return false;
    d = vec_dot(p->origin, tp->plane.normal) - tp->plane.dist;
    if (d + p->radius >= -VIS_EPSILON && !any_back(p->w, &tp->plane)) return false;
    return true;
}

/* A portal tp can only be seen through p when part of it lies beyond p's
 * plane (in front) and part of p lies behind tp's plane (so the line of
 * sight enters tp from its own back side). The bounding spheres settle most
 * pairs without looking at the points: the pretest marks in `front` every
 * pair the spheres allow, and the exact test then clears those it rejects. */
static void portal_front(const vis_t *vis, const base_soa_t *a, int pi, double *maybe, uint64_t *front, uint64_t *sure)
{
    const vis_portal_t *p = &vis->portals[pi];
    const int np = vis->numportals;
    const size_t words = (size_t)vis->portalwords;
    if (a->use_float) {
        const v4f vnx = v4_splat(p->plane.normal.x), vny = v4_splat(p->plane.normal.y);
        const v4f vnz = v4_splat(p->plane.normal.z), vd = v4_splat(p->plane.dist);
        const v4f vox = v4_splat(p->origin.x), voy = v4_splat(p->origin.y), voz = v4_splat(p->origin.z);
        const float e = -(float)VIS_EPSILON + BASE_FLOAT_MARGIN, se = (float)VIS_EPSILON + BASE_FLOAT_MARGIN;
        const v4f vr = v4_splat((float)p->radius - (float)VIS_EPSILON + BASE_FLOAT_MARGIN);
        const v4f vspr = v4_splat((float)p->radius + se);
        const v4f ve = v4_splat(e), vse = v4_splat(se), zero = {0, 0, 0, 0};
        /* one word of `front` holds sixteen groups; `sure` marks the pairs
         * whose spheres lie wholly on the right sides, which need no exact
         * test */
        for (size_t w = 0; w < words; w++) {
            uint64_t bits = 0, sbits = 0;
            int g0 = (int)w * 16, g1 = g0 + 16 < a->groups ? g0 + 16 : a->groups;
            for (int g = g0; g < g1; g++) {
                v4f d1 = a->fox[g] * vnx + a->foy[g] * vny + a->foz[g] * vnz - vd;
                v4f d2 = vox * a->fnx[g] + voy * a->fny[g] + voz * a->fnz[g] - a->fdist[g];
                v4i ok = (d1 + a->fr[g] + ve > zero) & (vr - d2 > zero);
                v4i sure = (d1 - a->fr[g] - vse > zero) & (d2 + vspr < zero);
                bits |= (uint64_t)v4_mask(ok) << ((g - g0) * 4);
                sbits |= (uint64_t)v4_mask(sure) << ((g - g0) * 4);
            }
            front[w] = bits;
            sure[w] = sbits;
        }
    } else {
        const double pnx = p->plane.normal.x, pny = p->plane.normal.y, pnz = p->plane.normal.z, pd = p->plane.dist;
        const double pox = p->origin.x, poy = p->origin.y, poz = p->origin.z, pr = p->radius;
        const double *restrict ox = a->ox, *restrict oy = a->oy, *restrict oz = a->oz, *restrict rr = a->r;
        const double *restrict nx = a->nx, *restrict ny = a->ny, *restrict nz = a->nz, *restrict nd = a->dist;
        double *restrict mb = maybe;
        for (int j = 0; j < np; j++) {
            double d1 = ox[j] * pnx + oy[j] * pny + oz[j] * pnz - pd;
            double d2 = pox * nx[j] + poy * ny[j] + poz * nz[j] - nd[j];
            /* > 0 when both spheres allow it: tp reaches more than
             * VIS_EPSILON in front of p, and p more than VIS_EPSILON behind
             * tp (written as a minimum so that it compiles to vector code) */
            double a1 = d1 + rr[j] - VIS_EPSILON, a2 = pr - d2 - VIS_EPSILON;
            mb[j] = a1 < a2 ? a1 : a2;
        }
        memset(front, 0, words * sizeof *front);
        memset(sure, 0, words * sizeof *sure);
        for (int j = 0; j < np; j++)
            if (maybe[j] > 0) vbit_set(front, j);
    }
    front[pi >> 6] &= ~((uint64_t)1 << (pi & 63));
    for (size_t w = 0; w < words; w++) {
        uint64_t bits = front[w] & ~sure[w];
        while (bits) {
            int j = (int)(w * 64) + __builtin_ctzll(bits);
            bits &= bits - 1;
            if (!front_exact(p, &vis->portals[j])) front[w] &= ~((uint64_t)1 << (j & 63));
        }
    }
}

/* The clusters reachable from p's destination through portals that pass the
 * front test: an explicit stack instead of recursion, since chains can be as
 * long as the map has clusters. What a cluster adds does not depend on the
 * portal it was reached by, so each is scanned once. */
static void flood(const vis_t *vis, int pi, const uint64_t *front, uint64_t *out, int *stack, uint64_t *reached)
{
    memset(reached, 0, (size_t)vis->clusterwords * sizeof *reached);
    int sp = 0;
    stack[sp++] = vis->portals[pi].leaf;
    vbit_set(reached, vis->portals[pi].leaf);
    while (sp > 0) {
        int leaf = stack[--sp];
        for (int k = vis->cluster_first[leaf]; k < vis->cluster_first[leaf + 1]; k++) {
            int j = vis->cluster_list[k];
            if (!vbit_get(front, j)) continue;
            vbit_set(out, j);
            int to = vis->portals[j].leaf;
            if (vbit_get(reached, to)) continue;
            vbit_set(reached, to);
            stack[sp++] = to;
        }
    }
}

/* The rows as vis_base finds them, one allocation each (their lengths are
 * known only as they are found, here or on another rank), packed into one
 * store once all are known. */
typedef struct base_rows_t {
    vis_t *vis;
    uint64_t **row; /* per portal, its words rows[i].lo .. rows[i].hi-1 */
} base_rows_t;

/* Keeps the non-zero range of a whole might-see vector as portal i's row. */
static void keep_row(base_rows_t *br, int i, const uint64_t *v)
{
    vis_t *vis = br->vis;
    int lo = 0, hi = vis->portalwords;
    while (lo < hi && !v[lo]) lo++;
    while (hi > lo && !v[hi - 1]) hi--;
    if (lo == hi) lo = hi = 0;
    vis->rows[i].lo = lo;
    vis->rows[i].hi = hi;
    br->row[i] = q2_malloc((size_t)(hi - lo) * sizeof(uint64_t) + 1);
    memcpy(br->row[i], v + lo, (size_t)(hi - lo) * sizeof(uint64_t));
    vis->portals[i].nummight = vbits_count(br->row[i], hi - lo);
}

/* A portal's might-see row as it travels between ranks (common/dist.h):
 * lo, hi, then its words lo..hi-1. */
static size_t flood_row_size(void *ctx, long i)
{
    const vis_row_t *r = &((base_rows_t *)ctx)->vis->rows[i];
    return 2 * sizeof(int32_t) + (size_t)(r->hi - r->lo) * sizeof(uint64_t);
}

static void flood_row_pack(void *ctx, long i, uint8_t *out)
{
    const base_rows_t *br = ctx;
    const vis_row_t *r = &br->vis->rows[i];
    int32_t lh[2] = {r->lo, r->hi};
    memcpy(out, lh, sizeof lh);
    memcpy(out + sizeof lh, br->row[i], (size_t)(r->hi - r->lo) * sizeof(uint64_t));
}

/* A row that does not decode is a bug, not bad input: every rank runs the
 * same program. */
static void flood_row_unpack(void *ctx, long i, const uint8_t *in, size_t size)
{
    base_rows_t *br = ctx;
    vis_t *vis = br->vis;
    int32_t lh[2];
    if (size < sizeof lh) abort();
    memcpy(lh, in, sizeof lh);
    if (lh[0] < 0 || lh[1] < lh[0] || lh[1] > vis->portalwords ||
        size != sizeof lh + (size_t)(lh[1] - lh[0]) * sizeof(uint64_t))
        abort();
    vis->rows[i].lo = lh[0];
    vis->rows[i].hi = lh[1];
    free(br->row[i]);
    br->row[i] = q2_malloc((size_t)(lh[1] - lh[0]) * sizeof(uint64_t) + 1);
    memcpy(br->row[i], in + sizeof lh, (size_t)(lh[1] - lh[0]) * sizeof(uint64_t));
    vis->portals[i].nummight = vbits_count(br->row[i], lh[1] - lh[0]);
}

void vis_base(vis_t *vis, log_t *log)
{
    progress_t prog;
    progress_begin(&prog, log, "base vis", vis->numportals);
    const int np = vis->numportals;
    base_soa_t a = {0};
    double *store = q2_malloc(((size_t)np + 1) * 8 * sizeof *store);
    double **cols[8] = {&a.ox, &a.oy, &a.oz, &a.r, &a.nx, &a.ny, &a.nz, &a.dist};
    for (int c = 0; c < 8; c++) *cols[c] = store + (size_t)c * ((size_t)np + 1);
    a.use_float = true;
    for (int i = 0; i < np; i++) {
        const vis_portal_t *p = &vis->portals[i];
        a.ox[i] = p->origin.x;
        a.oy[i] = p->origin.y;
        a.oz[i] = p->origin.z;
        a.r[i] = p->radius;
        a.nx[i] = p->plane.normal.x;
        a.ny[i] = p->plane.normal.y;
        a.nz[i] = p->plane.normal.z;
        a.dist[i] = p->plane.dist;
        if (fabs(p->origin.x) + fabs(p->origin.y) + fabs(p->origin.z) + p->radius > VIS_FLOAT_RANGE) a.use_float = false;
    }
    a.groups = (np + 3) / 4;
    v4f *fstore = q2_calloc((size_t)a.groups * 8 + 1, sizeof *fstore);
    v4f **fcols[8] = {&a.fox, &a.foy, &a.foz, &a.fr, &a.fnx, &a.fny, &a.fnz, &a.fdist};
    for (int c = 0; c < 8; c++) *fcols[c] = fstore + (size_t)c * (size_t)a.groups;
    for (int i = 0; i < 4 * a.groups; i++) {
        int g = i >> 2, l = i & 3;
        if (i < np) {
            a.fox[g][l] = (float)a.ox[i];
            a.foy[g][l] = (float)a.oy[i];
            a.foz[g][l] = (float)a.oz[i];
            a.fr[g][l] = (float)a.r[i];
            a.fnx[g][l] = (float)a.nx[i];
            a.fny[g][l] = (float)a.ny[i];
            a.fnz[g][l] = (float)a.nz[i];
            a.fdist[g][l] = (float)a.dist[i];
        } else {
            a.fr[g][l] = -1e30f; /* padding: far behind every plane */
        }
    }
    static const dist_codec_t codec = {flood_row_size, flood_row_pack, flood_row_unpack, false};
    free(vis->rows);
    vis->rows = q2_calloc((size_t)np + 1, sizeof *vis->rows);
    base_rows_t br = {vis, q2_calloc((size_t)np + 1, sizeof *br.row)};
    dist_loop_t *dl = dist_loop_begin(vis->dist, np, &codec, &br);
#pragma omp parallel num_threads(vis->threads)
    {
        uint64_t *front = q2_malloc((size_t)vis->portalwords * sizeof *front);
        uint64_t *sure = q2_malloc((size_t)vis->portalwords * sizeof *sure);
        double *maybe = q2_malloc(((size_t)np + 1) * sizeof *maybe);
        /* each cluster is pushed at most once per flood */
        int *stack = q2_malloc(((size_t)vis->numclusters + 1) * sizeof *stack);
        uint64_t *reached = q2_malloc(((size_t)vis->clusterwords + 1) * sizeof *reached);
        uint64_t *out = q2_malloc((size_t)vis->portalwords * sizeof *out);
        long item;
        while (dist_loop_next(dl, &item)) {
            int i = (int)item;
            memset(out, 0, (size_t)vis->portalwords * sizeof *out);
            portal_front(vis, &a, i, maybe, front, sure);
            flood(vis, i, front, out, stack, reached);
            keep_row(&br, i, out);
            progress_update(&prog, dist_loop_finished(dl, item));
        }
        free(out);
        free(front);
        free(sure);
        free(maybe);
        free(stack);
        free(reached);
    }
    dist_loop_end(dl);
    size_t at = 0;
    for (int i = 0; i < np; i++) {
        vis->rows[i].at = at;
        at += (size_t)(vis->rows[i].hi - vis->rows[i].lo);
    }
    vis->rowwords = at;
    free(vis->flood);
    vis->flood = q2_malloc((at + 1) * sizeof *vis->flood);
    for (int i = 0; i < np; i++) {
        memcpy(vis->flood + vis->rows[i].at, br.row[i], (size_t)(vis->rows[i].hi - vis->rows[i].lo) * sizeof(uint64_t));
        free(br.row[i]);
    }
    free(br.row);
    free(store);
    free(fstore);
    progress_end(&prog);
}
