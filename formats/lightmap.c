#include "lightmap.h"

#include <math.h>

/* Luxel coordinates beyond this are clamped (2^20 luxels = 16M texels). */
#define LIGHTMAP_COORD_LIMIT 1048576.0

void lightmap_extents(const double (*points)[3], int n, const float vecs[2][4], face_extents_t *out)
{
    for (int i = 0; i < 2; i++) {
        out->mins[i] = INFINITY;
        out->maxs[i] = -INFINITY;
    }
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 2; i++) {
            double v = points[k][0] * (double)vecs[i][0] + points[k][1] * (double)vecs[i][1] +
                       points[k][2] * (double)vecs[i][2] + (double)vecs[i][3];
            if (v < out->mins[i]) out->mins[i] = v;
            if (v > out->maxs[i]) out->maxs[i] = v;
        }
    out->near_boundary = false;
    for (int i = 0; i < 2; i++) {
        double bmin = floor(out->mins[i] / LIGHTMAP_SCALE);
        double bmax = ceil(out->maxs[i] / LIGHTMAP_SCALE);
        /* Malformed files can put texture coordinates anywhere; clamp so the
         * integer arithmetic below stays defined. Such faces report sizes far
         * beyond 17 and fail every check that looks at them. */
        if (!(bmin >= -LIGHTMAP_COORD_LIMIT)) bmin = -LIGHTMAP_COORD_LIMIT;
        if (!(bmin <= LIGHTMAP_COORD_LIMIT)) bmin = LIGHTMAP_COORD_LIMIT;
        if (!(bmax <= LIGHTMAP_COORD_LIMIT)) bmax = LIGHTMAP_COORD_LIMIT;
        if (!(bmax >= -LIGHTMAP_COORD_LIMIT)) bmax = -LIGHTMAP_COORD_LIMIT;
        if (bmin > bmax) bmin = bmax;
        out->texturemins[i] = (int)bmin * LIGHTMAP_SCALE;
        out->extents[i] = (int)(bmax - bmin) * LIGHTMAP_SCALE;
        out->size[i] = out->extents[i] / LIGHTMAP_SCALE + 1;
        double fmin = out->mins[i] / LIGHTMAP_SCALE, fmax = out->maxs[i] / LIGHTMAP_SCALE;
        if (fabs(fmin - floor(fmin + 0.5)) * LIGHTMAP_SCALE < LIGHTMAP_ROUND_EPSILON ||
            fabs(fmax - floor(fmax + 0.5)) * LIGHTMAP_SCALE < LIGHTMAP_ROUND_EPSILON)
            out->near_boundary = true;
    }
}

bool bsp_face_extents(const bsp_t *bsp, int f, face_extents_t *out, q2err_t *err)
{
    if (f < 0 || f >= bsp->numfaces) return q2err_set(err, NULL, 0, 0, "face %d out of range", f);
    const dface_t *face = &bsp->faces[f];
    if (face->texinfo < 0 || face->texinfo >= bsp->numtexinfo)
        return q2err_set(err, NULL, 0, 0, "face %d: texinfo %d out of range", f, face->texinfo);
    if (face->numedges < 3 || face->numedges > 1024 || face->firstedge < 0 ||
        (int64_t)face->firstedge + face->numedges > bsp->numsurfedges)
        return q2err_set(err, NULL, 0, 0, "face %d: edges out of range", f);
    double pts[1024][3];
    for (int k = 0; k < face->numedges; k++) {
        int se = bsp->surfedges[face->firstedge + k];
        if (se == INT32_MIN) return q2err_set(err, NULL, 0, 0, "face %d: surfedge out of range", f);
        int e = se < 0 ? -se : se;
        if (e >= bsp->numedges) return q2err_set(err, NULL, 0, 0, "face %d: edge %d out of range", f, e);
        int v = se < 0 ? bsp->edges[e].v[1] : bsp->edges[e].v[0];
        if (v >= bsp->numvertexes) return q2err_set(err, NULL, 0, 0, "face %d: vertex %d out of range", f, v);
        for (int i = 0; i < 3; i++) pts[k][i] = bsp->vertexes[v].point[i];
    }
    lightmap_extents((const double(*)[3])pts, face->numedges, bsp->texinfo[face->texinfo].vecs, out);
    return true;
}

int lightmap_face_bytes(const face_extents_t *e, int numstyles) { return e->size[0] * e->size[1] * 3 * numstyles; }
