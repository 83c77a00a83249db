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

/* A portal tp can only be seen through p when part of it lies beyond p's
 * plane (in front) and part of p lies behind tp's plane (so the line of
 * sight enters tp from its own back side). The bounding spheres settle most
 * pairs without looking at the points. */
static void portal_front(const vis_t *vis, int pi, uint64_t *front)
{
    const vis_portal_t *p = &vis->portals[pi];
    memset(front, 0, (size_t)vis->portalwords * sizeof *front);
    for (int j = 0; j < vis->numportals; j++) {
        if (j == pi) continue;
        const vis_portal_t *tp = &vis->portals[j];
        double d = vec_dot(tp->origin, p->plane.normal) - p->plane.dist;
        if (d + tp->radius <= VIS_EPSILON) continue; /* wholly behind or on p */
        if (d - tp->radius <= VIS_EPSILON && !any_front(tp->w, &p->plane)) continue;
        d = vec_dot(p->origin, tp->plane.normal) - tp->plane.dist;
        if (d - p->radius >= -VIS_EPSILON) continue; /* p wholly in front of tp */
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
#pragma omp parallel num_threads(vis->threads)
    {
        uint64_t *front = q2_malloc((size_t)vis->portalwords * sizeof *front);
        /* each portal is pushed at most once per flood */
        int *stack = q2_malloc(((size_t)vis->numportals + 1) * sizeof *stack);
#pragma omp for schedule(dynamic, 16)
        for (int i = 0; i < vis->numportals; i++) {
            uint64_t *out = vis->flood + (size_t)i * vis->portalwords;
            portal_front(vis, i, front);
            flood(vis, i, front, out, stack);
            vis->portals[i].nummight = vbits_count(out, vis->portalwords);
            long d;
#pragma omp atomic capture
            d = ++done;
            progress_update(&prog, d);
        }
        free(front);
        free(stack);
    }
    progress_end(&prog);
}
