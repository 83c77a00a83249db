#include "qvis.h"

#include <stdlib.h>
#include <string.h>

#include "../common/dist.h"
#include "../common/mem.h"

int vbits_count(const uint64_t *v, int words)
{
    int n = 0;
    for (int i = 0; i < words; i++) n += __builtin_popcountll(v[i]);
    return n;
}

void vis_row_expand(const vis_t *vis, const uint64_t *row, int p, uint64_t *out)
{
    const vis_row_t *r = &vis->rows[p];
    memset(out, 0, (size_t)vis->portalwords * sizeof *out);
    memcpy(out + r->lo, row, (size_t)(r->hi - r->lo) * sizeof *out);
}

static void set_bounds(vis_portal_t *p)
{
    vec3_t c = vec3(0, 0, 0);
    for (int i = 0; i < p->w->n; i++) c = vec_add(c, p->w->p[i]);
    c = vec_scale(c, 1.0 / p->w->n);
    double r = 0;
    for (int i = 0; i < p->w->n; i++) {
        double d = vec_len(vec_sub(p->w->p[i], c));
        if (d > r) r = d;
    }
    p->origin = c;
    p->radius = r;
    vec3_t mn = p->w->p[0], mx = p->w->p[0];
    for (int i = 1; i < p->w->n; i++) {
        mn = vec_min(mn, p->w->p[i]);
        mx = vec_max(mx, p->w->p[i]);
    }
    p->bmid = vec_scale(vec_add(mn, mx), 0.5);
    p->bhalf = vec_scale(vec_sub(mx, mn), 0.5);
}

bool vis_init(vis_t *vis, const prt_t *prt, int threads, int level, struct dist_t *dist, log_t *log, q2err_t *err)
{
    memset(vis, 0, sizeof *vis);
    vis->dist = dist;
    vis->threads = threads < 1 ? 1 : threads;
    vis->level = level < 0 ? 0 : level > VIS_LEVEL_MAX ? VIS_LEVEL_MAX : level;
    vis->numclusters = prt->numclusters;
    if (prt->numclusters < 0 || prt->numportals < 0)
        return q2err_set(err, NULL, 0, 0, "portal file has negative counts");

    /* Degenerate portals (no area) let no line of sight through; their
     * plane would be undefined, so they are left out. */
    const int npp = prt->numportals;
    unsigned char *keep = q2_calloc((size_t)npp + 1, 1);
    for (int i = 0; i < npp; i++) {
        const prt_portal_t *pp = &prt->portals[i];
        for (int s = 0; s < 2; s++)
            if (pp->cluster[s] < 0 || pp->cluster[s] >= prt->numclusters) {
                free(keep);
                return q2err_set(err, NULL, 0, 0, "portal %d: cluster %d out of range 0..%d", i, pp->cluster[s],
                                 prt->numclusters - 1);
            }
        if (!pp->winding) {
            free(keep);
            return q2err_set(err, NULL, 0, 0, "portal %d has no winding", i);
        }
        if (pp->winding->numpoints > VIS_MAXW) {
            free(keep);
            return q2err_set(err, NULL, 0, 0, "portal %d has %d points, more than the %d qvis handles", i,
                             pp->winding->numpoints, VIS_MAXW);
        }
    }
    /* the geometry of each portal on its own, on the threads, in pieces
     * (traced for scripts/bench_mpi: every rank does this before the first
     * loop) */
    enum { INIT_PIECE = 64 };
    const int npieces = (npp + INIT_PIECE - 1) / INIT_PIECE;
    dist_local_t *lt = dist_local_begin(dist, npieces);
#pragma omp parallel for num_threads(vis->threads) schedule(dynamic)
    for (int piece = 0; piece < npieces; piece++) {
        double t0 = dist_local_start(lt);
        for (int i = piece * INIT_PIECE; i < npp && i < (piece + 1) * INIT_PIECE; i++) {
            const prt_portal_t *pp = &prt->portals[i];
            keep[i] = !winding_is_tiny(pp->winding) && pp->cluster[0] != pp->cluster[1];
        }
        dist_local_done(lt, piece, t0);
    }
    dist_local_end(lt);
    int *slot = q2_malloc(((size_t)npp + 1) * sizeof *slot); /* first directed portal of each kept one */
    /* Each directed portal's winding takes only its own points in one packed
     * store (a winding is only ever read through its count, never copied
     * whole), not VIS_MAXW of them: on base1-test 0.5 MB instead of 12.5. */
    size_t *woff = q2_malloc(((size_t)npp + 1) * sizeof *woff); /* byte offset of each kept one's pair */
    size_t wbytes = 0;
    int kept = 0;
    for (int i = 0; i < npp; i++) {
        slot[i] = 2 * kept;
        woff[i] = wbytes;
        if (keep[i]) {
            kept++;
            wbytes += 2 * vwind_size(prt->portals[i].winding->numpoints);
        } else {
            vis->skipped++;
        }
    }

    vis->numportals = kept * 2;
    vis->portals = q2_calloc((size_t)vis->numportals + 1, sizeof *vis->portals);
    unsigned char *wbuf = vis->wstore = q2_malloc(wbytes + 1);
    lt = dist_local_begin(dist, npieces);
#pragma omp parallel for num_threads(vis->threads) schedule(dynamic)
    for (int piece = 0; piece < npieces; piece++) {
        double t0 = dist_local_start(lt);
        for (int i = piece * INIT_PIECE; i < npp && i < (piece + 1) * INIT_PIECE; i++) {
            if (!keep[i]) continue;
            const prt_portal_t *pp = &prt->portals[i];
            vec3_t wn;
            double wd;
            winding_plane(pp->winding, &wn, &wd);
            /* qbsp3 writes the winding so that its plane faces cluster[0]; the
             * portal leading out of cluster[0] faces the other way. */
            for (int s = 0; s < 2; s++) {
                const int n = slot[i] + s;
                vis_portal_t *p = &vis->portals[n];
                const winding_t *w = pp->winding;
                p->w = (vwind_t *)(wbuf + woff[i] + (size_t)s * vwind_size(w->numpoints));
                p->w->n = w->numpoints;
                for (int k = 0; k < w->numpoints; k++) p->w->p[k] = w->p[s == 0 ? k : w->numpoints - 1 - k];
                if (s == 0) {
                    p->plane.normal = vec_neg(wn);
                    p->plane.dist = -wd;
                    p->owner = pp->cluster[0];
                    p->leaf = pp->cluster[1];
                } else {
                    p->plane.normal = wn;
                    p->plane.dist = wd;
                    p->owner = pp->cluster[1];
                    p->leaf = pp->cluster[0];
                }
                p->plane.type = plane_type_for_normal(p->plane.normal);
                set_bounds(p);
            }
        }
        dist_local_done(lt, piece, t0);
    }
    dist_local_end(lt);
    free(keep);
    free(slot);
    free(woff);

    int nc = vis->numclusters;
    vis->cluster_first = q2_calloc((size_t)nc + 1, sizeof(int));
    vis->cluster_list = q2_calloc((size_t)vis->numportals + 1, sizeof(int));
    for (int i = 0; i < vis->numportals; i++) vis->cluster_first[vis->portals[i].owner + 1]++;
    for (int c = 0; c < nc; c++) vis->cluster_first[c + 1] += vis->cluster_first[c];
    int *fill = q2_calloc((size_t)nc + 1, sizeof(int));
    for (int i = 0; i < vis->numportals; i++) {
        int c = vis->portals[i].owner;
        vis->cluster_list[vis->cluster_first[c] + fill[c]++] = i;
    }
    free(fill);
    /* Walks try the widest openings of a cluster first: what they reveal
     * early makes the narrower ones find nothing new sooner. */
    for (int c = 0; c < nc; c++) {
        int *l = vis->cluster_list + vis->cluster_first[c];
        int n = vis->cluster_first[c + 1] - vis->cluster_first[c];
        for (int i = 1; i < n; i++) {
            int v = l[i], j = i;
            while (j > 0 && (vis->portals[l[j - 1]].radius < vis->portals[v].radius ||
                             (vis->portals[l[j - 1]].radius == vis->portals[v].radius && l[j - 1] > v))) {
                l[j] = l[j - 1];
                j--;
            }
            l[j] = v;
        }
    }

    vis->portalwords = (vis->numportals + 63) / 64;
    if (vis->portalwords < 1) vis->portalwords = 1;
    vis->clusterwords = (nc + 63) / 64;
    if (vis->clusterwords < 1) vis->clusterwords = 1;
    if (vis->skipped) log_verbose(log, "%d degenerate portals left out", vis->skipped);
    return true;
}

void vis_free(vis_t *vis)
{
    free(vis->wstore);
    free(vis->portals);
    free(vis->cluster_first);
    free(vis->cluster_list);
    free(vis->rows);
    free(vis->flood);
    free(vis->see);
    free(vis->see_at);
    free(vis->reach);
    memset(vis, 0, sizeof *vis);
}
