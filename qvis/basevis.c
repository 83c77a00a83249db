#include "qvis.h"

#include <stdlib.h>
#include <string.h>

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
 * pass over all portals runs as straight vector code: it is np^2 tests. */
typedef struct base_soa_t {
    double *ox, *oy, *oz, *r, *nx, *ny, *nz, *dist;
} base_soa_t;

/* A portal tp can only be seen through p when part of it lies beyond p's
 * plane (in front) and part of p lies behind tp's plane (so the line of
 * sight enters tp from its own back side). The bounding spheres settle most
 * pairs without looking at the points. */
static void portal_front(const vis_t *vis, const base_soa_t *a, int pi, double *maybe, uint64_t *front)
{
    const vis_portal_t *p = &vis->portals[pi];
    const int np = vis->numportals;
    memset(front, 0, (size_t)vis->portalwords * sizeof *front);
    const double pnx = p->plane.normal.x, pny = p->plane.normal.y, pnz = p->plane.normal.z, pd = p->plane.dist;
    const double pox = p->origin.x, poy = p->origin.y, poz = p->origin.z, pr = p->radius;
    const double *restrict ox = a->ox, *restrict oy = a->oy, *restrict oz = a->oz, *restrict rr = a->r;
    const double *restrict nx = a->nx, *restrict ny = a->ny, *restrict nz = a->nz, *restrict nd = a->dist;
    double *restrict mb = maybe;
    for (int j = 0; j < np; j++) {
        double d1 = ox[j] * pnx + oy[j] * pny + oz[j] * pnz - pd;
        double d2 = pox * nx[j] + poy * ny[j] + poz * nz[j] - nd[j];
        /* > 0 when both spheres allow it: tp reaches more than VIS_EPSILON
         * in front of p, and p more than VIS_EPSILON behind tp (written as
         * a minimum so that it compiles to vector code) */
        double a1 = d1 + rr[j] - VIS_EPSILON, a2 = pr - d2 - VIS_EPSILON;
        mb[j] = a1 < a2 ? a1 : a2;
    }
    maybe[pi] = 0;
    for (int j = 0; j < np; j++) {
        if (!(maybe[j] > 0)) continue;
        const vis_portal_t *tp = &vis->portals[j];
        double d = vec_dot(tp->origin, p->plane.normal) - p->plane.dist;
        if (d - tp->radius <= VIS_EPSILON && !any_front(tp->w, &p->plane)) continue;
        d = vec_dot(p->origin, tp->plane.normal) - tp->plane.dist;
        if (d + p->radius >= -VIS_EPSILON && !any_back(p->w, &tp->plane)) continue;
        vbit_set(front, j);
    }
}

/* The clusters reachable from p's destination through portals that pass the
 * front test: an explicit stack instead of recursion, since chains can be as
 * long as the map has clusters. */
static void flood(const vis_t *vis, int pi, const uint64_t *front, uint64_t *out, int *stack)
{
    int sp = 0;
    stack[sp++] = vis->portals[pi].leaf;
    while (sp > 0) {
        int leaf = stack[--sp];
        for (int k = vis->cluster_first[leaf]; k < vis->cluster_first[leaf + 1]; k++) {
            int j = vis->cluster_list[k];
            if (!vbit_get(front, j) || vbit_get(out, j)) continue;
            vbit_set(out, j);
            stack[sp++] = vis->portals[j].leaf;
        }
    }
}

void vis_base(vis_t *vis, log_t *log)
{
    progress_t prog;
    progress_begin(&prog, log, "base vis", vis->numportals);
    long done = 0;
    const int np = vis->numportals;
    base_soa_t a;
    double *store = q2_malloc(((size_t)np + 1) * 8 * sizeof *store);
    double **cols[8] = {&a.ox, &a.oy, &a.oz, &a.r, &a.nx, &a.ny, &a.nz, &a.dist};
    for (int c = 0; c < 8; c++) *cols[c] = store + (size_t)c * ((size_t)np + 1);
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
    }
#pragma omp parallel num_threads(vis->threads)
    {
        uint64_t *front = q2_malloc((size_t)vis->portalwords * sizeof *front);
        double *maybe = q2_malloc(((size_t)np + 1) * sizeof *maybe);
        /* each portal is pushed at most once per flood */
        int *stack = q2_malloc(((size_t)vis->numportals + 1) * sizeof *stack);
#pragma omp for schedule(dynamic, 16)
        for (int i = 0; i < vis->numportals; i++) {
            uint64_t *out = vis->flood + (size_t)i * vis->portalwords;
            portal_front(vis, &a, i, maybe, front);
            flood(vis, i, front, out, stack);
            vis->portals[i].nummight = vbits_count(out, vis->portalwords);
            long d;
#pragma omp atomic capture
            d = ++done;
            progress_update(&prog, d);
        }
        free(front);
        free(maybe);
        free(stack);
    }
    free(store);
    progress_end(&prog);
}
