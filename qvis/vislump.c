#include "qvis.h"

#include <stdlib.h>
#include <string.h>

#include "../common/dist.h"
#include "../common/mem.h"
#include "../formats/bytes.h"
#include "../formats/visrle.h"

int vis_bsp_leaf_clusters(const bsp_t *bsp)
{
    int maxc = -1;
    for (int i = 0; i < bsp->numleafs; i++)
        if (bsp->leafs[i].cluster > maxc) maxc = bsp->leafs[i].cluster;
    return maxc + 1;
}

static inline bool rbit(const uint8_t *row, int i) { return (row[i >> 3] >> (i & 7)) & 1; }

static void row_stats(const uint8_t *rows, int n, int rowbytes, double *avg, int *max)
{
    long total = 0;
    int mx = 0;
    for (int c = 0; c < n; c++) {
        int cnt = 0;
        for (int b = 0; b < rowbytes; b++) cnt += __builtin_popcount(rows[(size_t)c * rowbytes + b]);
        total += cnt;
        if (cnt > mx) mx = cnt;
    }
    *avg = n ? (double)total / n : 0;
    *max = mx;
}

void vis_cluster_rows(const vis_t *vis, vis_result_t *res)
{
    memset(res, 0, sizeof *res);
    int nc = vis->numclusters;
    res->numclusters = nc;
    res->rowbytes = vis_row_bytes(nc);
    res->pvs = q2_calloc((size_t)nc * res->rowbytes + 1, 1);
    /* every cluster's row on its own: itself and what its portals see, as
     * clusters (vis_flow gathered those) */
    uint8_t *raw = q2_malloc((size_t)nc * res->rowbytes + 1);
    memcpy(raw, vis->reach, (size_t)nc * res->rowbytes);
    for (int c = 0; c < nc; c++) raw[(size_t)c * res->rowbytes + (c >> 3)] |= (uint8_t)(1u << (c & 7));
    /* then only what both clusters of a pair see of each other */
    long asym = 0;
    dist_local_t *lt = dist_local_begin(vis->dist, nc);
#pragma omp parallel for num_threads(vis->threads) schedule(dynamic, 8) reduction(+ : asym)
    for (int c = 0; c < nc; c++) {
        double t0 = dist_local_start(lt);
        const uint8_t *row = raw + (size_t)c * res->rowbytes;
        uint8_t *out = res->pvs + (size_t)c * res->rowbytes;
        for (int e = 0; e < nc; e++) {
            if (!rbit(row, e)) continue;
            if (rbit(raw + (size_t)e * res->rowbytes, c))
                out[e >> 3] |= (uint8_t)(1u << (e & 7));
            else
                asym++;
        }
        dist_local_done(lt, c, t0);
    }
    dist_local_end(lt);
    res->asym_removed = asym;
    row_stats(res->pvs, nc, res->rowbytes, &res->avg_visible, &res->max_visible);
    free(raw);
}

void vis_hearable(vis_result_t *res, int threads, dist_t *dist)
{
    int nc = res->numclusters, rb = res->rowbytes;
    res->phs = q2_calloc((size_t)nc * rb + 1, 1);
    dist_local_t *lt = dist_local_begin(dist, nc);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 8)
    for (int c = 0; c < nc; c++) {
        double t0 = dist_local_start(lt);
        const uint8_t *row = res->pvs + (size_t)c * rb;
        uint8_t *out = res->phs + (size_t)c * rb;
        for (int e = 0; e < nc; e++) {
            if (!rbit(row, e)) continue;
            const uint8_t *src = res->pvs + (size_t)e * rb;
            for (int b = 0; b < rb; b++) out[b] |= src[b];
        }
        dist_local_done(lt, c, t0);
    }
    dist_local_end(lt);
    int mx;
    row_stats(res->phs, nc, rb, &res->avg_hearable, &mx);
}

bool vis_build_lump(vis_result_t *res, q2err_t *err)
{
    int nc = res->numclusters, rb = res->rowbytes;
    size_t header = 4 + (size_t)nc * 8;
    size_t cap = header + 2 * (size_t)nc * ((size_t)rb * 3 / 2 + 2) + 4;
    uint8_t *lump = q2_calloc(cap, 1);
    wr_u32(lump, (uint32_t)nc);
    size_t pos = header;
    for (int which = 0; which < 2; which++) {
        const uint8_t *rows = which == DVIS_PVS ? res->pvs : res->phs;
        for (int c = 0; c < nc; c++) {
            wr_u32(lump + 4 + (size_t)c * 8 + (size_t)which * 4, (uint32_t)pos);
            pos += vis_compress_row(rows + (size_t)c * rb, rb, lump + pos);
        }
    }
    if (pos > (size_t)MAX_MAP_VISIBILITY) {
        free(lump);
        return q2err_set(err, NULL, 0, 0, "visibility lump of %zu bytes exceeds MAX_MAP_VISIBILITY (%d)", pos,
                         MAX_MAP_VISIBILITY);
    }
    res->lump = lump;
    res->lumpsize = (int)pos;
    return true;
}

void vis_result_free(vis_result_t *res)
{
    free(res->pvs);
    free(res->phs);
    free(res->lump);
    memset(res, 0, sizeof *res);
}
