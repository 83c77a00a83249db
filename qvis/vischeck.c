/* A line-of-sight check of a visibility lump: points sampled inside the
 * empty leafs of every cluster, and for each pair of clusters the PVS keeps
 * apart, segments between their points traced through the bsp tree. A
 * segment that touches no solid leaf is a line of sight the PVS hides. */
#include "qvis.h"

#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../formats/q2defs.h"
#include "../formats/visrle.h"

/* A fixed integer hash (splitmix64) for reproducible sample positions. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static double unit(uint64_t *state)
{
    *state = mix64(*state);
    return (double)(*state >> 11) / 9007199254740992.0;
}

bool vis_check_sampled(const bsp_t *bsp, int per_cluster, int threads, vis_check_t *out, q2err_t *err)
{
    memset(out, 0, sizeof *out);
    int nc = bsp_num_clusters(bsp);
    if (nc <= 0) return q2err_set(err, NULL, 0, 0, "bsp has no visibility data");
    if (!vis_lump_check(bsp->visdata, bsp->visdatasize, err)) return false;
    int rb = vis_row_bytes(nc);
    uint8_t *pvs = q2_calloc((size_t)nc * rb + 1, 1);
    for (int c = 0; c < nc; c++)
        if (!vis_lump_row(bsp->visdata, bsp->visdatasize, c, DVIS_PVS, pvs + (size_t)c * rb)) {
            free(pvs);
            return q2err_set(err, NULL, 0, 0, "malformed PVS row %d", c);
        }

    /* leafs of each cluster */
    int *count = q2_calloc((size_t)nc + 1, sizeof(int));
    for (int i = 0; i < bsp->numleafs; i++) {
        int c = bsp->leafs[i].cluster;
        if (c >= 0 && c < nc && !(bsp->leafs[i].contents & CONTENTS_SOLID)) count[c]++;
    }
    vec3_t *pts = q2_calloc((size_t)nc * per_cluster + 1, sizeof(vec3_t));
    int *npts = q2_calloc((size_t)nc + 1, sizeof(int));
    for (int i = 0; i < bsp->numleafs; i++) {
        const dleaf_t *l = &bsp->leafs[i];
        int c = l->cluster;
        if (c < 0 || c >= nc || (l->contents & CONTENTS_SOLID)) continue;
        /* share the cluster's samples among its leafs */
        int want = (per_cluster + count[c] - 1) / count[c];
        uint64_t state = mix64((uint64_t)i * 7919u + 1);
        for (int tries = 0; tries < want * 16 && want > 0 && npts[c] < per_cluster; tries++) {
            vec3_t p;
            p.x = l->mins[0] + (l->maxs[0] - l->mins[0]) * unit(&state);
            p.y = l->mins[1] + (l->maxs[1] - l->mins[1]) * unit(&state);
            p.z = l->mins[2] + (l->maxs[2] - l->mins[2]) * unit(&state);
            if (bsp_point_leaf(bsp, p) != i) continue;
            pts[(size_t)c * per_cluster + npts[c]++] = p;
            want--;
        }
    }
    for (int c = 0; c < nc; c++) out->samples += npts[c];

    long misses = 0, traces = 0, asym = 0;
    int first_a = -1, first_b = -1;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4) reduction(+ : misses, traces, asym)
    for (int c = 0; c < nc; c++) {
        const uint8_t *row = pvs + (size_t)c * rb;
        for (int e = c + 1; e < nc; e++) {
            bool ce = (row[e >> 3] >> (e & 7)) & 1;
            bool ec = (pvs[(size_t)e * rb + (c >> 3)] >> (c & 7)) & 1;
            if (ce != ec) asym++;
            if (ce && ec) continue;
            bool miss = false;
            vec3_t sa = {0}, sb = {0};
            for (int a = 0; a < npts[c] && !miss; a++)
                for (int b = 0; b < npts[e] && !miss; b++) {
                    traces++;
                    sa = pts[(size_t)c * per_cluster + a];
                    sb = pts[(size_t)e * per_cluster + b];
                    if (bsp_segment_clear(bsp, sa, sb)) miss = true;
                }
            if (miss) {
                misses++;
#pragma omp critical(vischeck_first)
                if (first_a < 0 || c < first_a || (c == first_a && e < first_b)) {
                    first_a = c;
                    first_b = e;
                    out->first_seg[0] = sa;
                    out->first_seg[1] = sb;
                }
            }
        }
    }
    out->misses = misses;
    out->traces = traces;
    out->asymmetric = asym;
    out->first_miss[0] = first_a;
    out->first_miss[1] = first_b;
    free(pvs);
    free(count);
    free(pts);
    free(npts);
    return true;
}
