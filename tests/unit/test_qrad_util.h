/* Hand-built bsps for qrad's analytic tests: axis-aligned quads with
 * texture axes of one texel per unit, an optional bsp tree for an
 * axis-aligned box room (a chain of six nodes with solid behind each wall),
 * and light entities. */
#ifndef Q2M_TEST_QRAD_UTIL_H
#define Q2M_TEST_QRAD_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspfile.h"
#include "lightmap.h"
#include "mathlib.h"

typedef struct tb_t {
    bsp_t bsp;
    int capp, capv, cape, caps, capf, capt;
} tb_t;

static inline void tb_init(tb_t *b)
{
    memset(b, 0, sizeof *b);
    bsp_init(&b->bsp);
    b->bsp.models = calloc(1, sizeof(dmodel_t));
    b->bsp.nummodels = 1;
    b->bsp.models[0].headnode = 0;
}

#define TB_PUSH(arr, n, cap)                                                   \
    do {                                                                       \
        if ((n) + 1 > (cap)) {                                                 \
            (cap) = (cap) ? (cap) * 2 : 16;                                    \
            (arr) = realloc((arr), sizeof *(arr) * (size_t)(cap));             \
        }                                                                      \
        memset(&(arr)[(n)], 0, sizeof *(arr));                                 \
        (n)++;                                                                 \
    } while (0)

static inline int tb_plane(tb_t *b, vec3_t n, double d)
{
    bsp_t *s = &b->bsp;
    for (int i = 0; i < s->numplanes; i++)
        if (s->planes[i].normal[0] == (float)n.x && s->planes[i].normal[1] == (float)n.y &&
            s->planes[i].normal[2] == (float)n.z && s->planes[i].dist == (float)d)
            return i;
    TB_PUSH(s->planes, s->numplanes, b->capp);
    dplane_t *p = &s->planes[s->numplanes - 1];
    p->normal[0] = (float)n.x;
    p->normal[1] = (float)n.y;
    p->normal[2] = (float)n.z;
    p->dist = (float)d;
    p->type = plane_type_for_normal(n);
    return s->numplanes - 1;
}

static inline int tb_vert(tb_t *b, vec3_t p)
{
    bsp_t *s = &b->bsp;
    /* Shared corners share a vertex, as qbsp writes them. */
    for (int i = 0; i < s->numvertexes; i++)
        if (s->vertexes[i].point[0] == (float)p.x && s->vertexes[i].point[1] == (float)p.y &&
            s->vertexes[i].point[2] == (float)p.z)
            return i;
    TB_PUSH(s->vertexes, s->numvertexes, b->capv);
    s->vertexes[s->numvertexes - 1].point[0] = (float)p.x;
    s->vertexes[s->numvertexes - 1].point[1] = (float)p.y;
    s->vertexes[s->numvertexes - 1].point[2] = (float)p.z;
    return s->numvertexes - 1;
}

/* A quad facing `normal` (axis-aligned) with the given corners. flags and
 * value go to its own texinfo. Returns the face index. */
static inline int tb_quad(tb_t *b, const vec3_t c[4], vec3_t normal, int flags, int value, const char *tex)
{
    bsp_t *s = &b->bsp;
    if (s->numedges == 0) TB_PUSH(s->edges, s->numedges, b->cape); /* edge 0 is unused */
    TB_PUSH(s->texinfo, s->numtexinfo, b->capt);
    dtexinfo_t *ti = &s->texinfo[s->numtexinfo - 1];
    double ax = fabs(normal.x), ay = fabs(normal.y), az = fabs(normal.z);
    memset(ti->vecs, 0, sizeof ti->vecs);
    if (az >= ax && az >= ay) {
        ti->vecs[0][0] = 1;
        ti->vecs[1][1] = 1;
    } else if (ax >= ay) {
        ti->vecs[0][1] = 1;
        ti->vecs[1][2] = 1;
    } else {
        ti->vecs[0][0] = 1;
        ti->vecs[1][2] = 1;
    }
    ti->flags = flags;
    ti->value = value;
    snprintf(ti->texture, sizeof ti->texture, "%s", tex ? tex : "test/wall");
    ti->nexttexinfo = -1;
    int v[4];
    for (int k = 0; k < 4; k++) v[k] = tb_vert(b, c[k]);
    TB_PUSH(s->faces, s->numfaces, b->capf);
    dface_t *f = &s->faces[s->numfaces - 1];
    f->planenum = (uint16_t)tb_plane(b, normal, vec_dot(normal, c[0]));
    f->side = 0;
    f->firstedge = s->numsurfedges;
    f->numedges = 4;
    f->texinfo = (int16_t)(s->numtexinfo - 1);
    memset(f->styles, 255, sizeof f->styles);
    f->lightofs = -1;
    for (int k = 0; k < 4; k++) {
        TB_PUSH(s->edges, s->numedges, b->cape);
        s->edges[s->numedges - 1].v[0] = (uint16_t)v[k];
        s->edges[s->numedges - 1].v[1] = (uint16_t)v[(k + 1) % 4];
        TB_PUSH(s->surfedges, s->numsurfedges, b->caps);
        s->surfedges[s->numsurfedges - 1] = s->numedges - 1;
    }
    s->models[0].numfaces = s->numfaces;
    return s->numfaces - 1;
}

/* Axis-aligned quad on the plane axis=value spanning [lo,hi] on the other
 * two axes; `facing` is +1 or -1 along the axis. */
static inline int tb_axial(tb_t *b, int axis, double value, int facing, vec3_t lo, vec3_t hi, int flags, int value_,
                           const char *tex)
{
    vec3_t c[4];
    int u = (axis + 1) % 3, w = (axis + 2) % 3;
    double uu[4] = {vec_comp(lo, u), vec_comp(hi, u), vec_comp(hi, u), vec_comp(lo, u)};
    double ww[4] = {vec_comp(lo, w), vec_comp(lo, w), vec_comp(hi, w), vec_comp(hi, w)};
    for (int k = 0; k < 4; k++) {
        c[k] = vec3(0, 0, 0);
        vec_set_comp(&c[k], axis, value);
        vec_set_comp(&c[k], u, uu[k]);
        vec_set_comp(&c[k], w, ww[k]);
    }
    vec3_t n = vec3(0, 0, 0);
    vec_set_comp(&n, axis, facing);
    return tb_quad(b, c, n, flags, value_, tex);
}

/* Six inward-facing walls of the box [lo, hi]. */
static inline void tb_room(tb_t *b, vec3_t lo, vec3_t hi, int flags, int value)
{
    for (int ax = 0; ax < 3; ax++) {
        tb_axial(b, ax, vec_comp(lo, ax), +1, lo, hi, flags, value, NULL);
        tb_axial(b, ax, vec_comp(hi, ax), -1, lo, hi, flags, value, NULL);
    }
}

/* A bsp tree for the open box [lo, hi]: leaf 0 solid, leaf 1 the room
 * (cluster 0). */
static inline void tb_room_tree(tb_t *b, vec3_t lo, vec3_t hi)
{
    bsp_t *s = &b->bsp;
    s->numnodes = 6;
    s->nodes = calloc(6, sizeof(dnode_t));
    s->numleafs = 2;
    s->leafs = calloc(2, sizeof(dleaf_t));
    s->leafs[0].contents = CONTENTS_SOLID;
    s->leafs[0].cluster = -1;
    s->leafs[1].contents = 0;
    s->leafs[1].cluster = 0;
    int k = 0;
    for (int ax = 0; ax < 3; ax++)
        for (int sgn = 0; sgn < 2; sgn++, k++) {
            vec3_t n = vec3(0, 0, 0);
            /* front = inside the room */
            vec_set_comp(&n, ax, sgn ? -1 : 1);
            double d = sgn ? -vec_comp(hi, ax) : vec_comp(lo, ax);
            s->nodes[k].planenum = tb_plane(b, n, d);
            s->nodes[k].children[0] = k < 5 ? k + 1 : -(1 + 1);
            s->nodes[k].children[1] = -(0 + 1);
        }
    s->models[0].headnode = 0;
}

static inline void tb_entities(tb_t *b, const char *text) { bsp_set_entities(&b->bsp, text); }

static inline void tb_free(tb_t *b) { bsp_free(&b->bsp); }

/* The byte triple of luxel (i, j), style slot s, of face f. */
static inline const uint8_t *tb_luxel(const bsp_t *bsp, int f, int s, int i, int j)
{
    face_extents_t e;
    if (!bsp_face_extents(bsp, f, &e, NULL)) return NULL;
    int n = e.size[0] * e.size[1];
    return bsp->lightdata + bsp->faces[f].lightofs + ((size_t)s * n + (size_t)j * e.size[0] + i) * 3;
}

#endif
