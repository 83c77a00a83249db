/* FACENORMALS: per face, per vertex, the normal the lighting used (the phong
 * vertex normal where facegeom.c smoothed the face, else the face's facing
 * normal) with a tangent and bitangent, as indices into a table of unique
 * vectors (ericw-tools' layout, docs/formats.md "BSPX"). Engines that read
 * it (the re-release) shade dynamic lights with the same smooth edges as
 * the baked light.
 *
 * Tangent and bitangent follow the texture's s and t axes, made
 * perpendicular to the normal, so normal maps line up with the texture. The
 * table holds vectors in the order they first appear; equal floats share an
 * entry. */
#include <stdlib.h>
#include <string.h>

#include "facenormals.h"
#include "qrad.h"
#include "../common/mem.h"
#include "../formats/bspx.h"
#include "../formats/bytes.h"

typedef struct vec_table_t {
    int count, cap;
    float (*v)[3];
    int *slot;    /* hash table of indices into v, -1 empty */
    int slotcap;  /* power of two */
} vec_table_t;

static uint32_t hash_vec(const float v[3])
{
    uint32_t h = 2166136261u, u;
    for (int a = 0; a < 3; a++) {
        float f = v[a] == 0 ? 0.0f : v[a]; /* -0 and 0 are one vector */
        memcpy(&u, &f, 4);
        h = (h ^ u) * 16777619u;
    }
    return h ^ (h >> 15);
}

static void table_grow(vec_table_t *t)
{
    int nc = t->slotcap ? t->slotcap * 2 : 1024;
    int *ns = q2_malloc(sizeof(int) * (size_t)nc);
    for (int i = 0; i < nc; i++) ns[i] = -1;
    for (int i = 0; i < t->count; i++) {
        uint32_t h = hash_vec(t->v[i]) & (uint32_t)(nc - 1);
        while (ns[h] >= 0) h = (h + 1) & (uint32_t)(nc - 1);
        ns[h] = i;
    }
    free(t->slot);
    t->slot = ns;
    t->slotcap = nc;
}

static uint32_t table_add(vec_table_t *t, vec3_t d)
{
    float v[3] = {(float)d.x, (float)d.y, (float)d.z};
    for (int a = 0; a < 3; a++)
        if (v[a] == 0) v[a] = 0.0f;
    if ((t->count + 1) * 2 > t->slotcap) table_grow(t);
    uint32_t h = hash_vec(v) & (uint32_t)(t->slotcap - 1);
    while (t->slot[h] >= 0) {
        const float *w = t->v[t->slot[h]];
        if (w[0] == v[0] && w[1] == v[1] && w[2] == v[2]) return (uint32_t)t->slot[h];
        h = (h + 1) & (uint32_t)(t->slotcap - 1);
    }
    if (t->count == t->cap) {
        t->cap = t->cap * 2 + 256;
        t->v = q2_realloc(t->v, sizeof(float[3]) * (size_t)t->cap);
    }
    memcpy(t->v[t->count], v, sizeof v);
    t->slot[h] = t->count;
    return (uint32_t)t->count++;
}

/* A unit vector along `axis` made perpendicular to n; `fallback` when the
 * axis is (nearly) parallel to n. */
static vec3_t perpendicular(vec3_t n, vec3_t axis, vec3_t fallback)
{
    double len;
    vec3_t t = vec_normalize(vec_sub(axis, vec_scale(n, vec_dot(n, axis))), &len);
    return len > 1e-6 ? t : fallback;
}

bool qrad_facenormals(qrad_t *q, q2err_t *err)
{
    if (!q->opts->wrnormals) return true;
    const bsp_t *bsp = q->bsp;
    vec_table_t tab = {0};
    long nverts = 0;
    for (int fi = 0; fi < bsp->numfaces; fi++) nverts += bsp->faces[fi].numedges;
    uint32_t *idx = q2_malloc(sizeof(uint32_t) * 3 * (size_t)(nverts > 0 ? nverts : 1));
    long k = 0;
    for (int fi = 0; fi < bsp->numfaces; fi++) {
        const rface_t *f = &q->faces[fi];
        const dtexinfo_t *ti = &bsp->texinfo[bsp->faces[fi].texinfo];
        vec3_t sa = vec3(ti->vecs[0][0], ti->vecs[0][1], ti->vecs[0][2]);
        vec3_t ta = vec3(ti->vecs[1][0], ti->vecs[1][1], ti->vecs[1][2]);
        for (int v = 0; v < bsp->faces[fi].numedges; v++, k++) {
            vec3_t n = f->vnormals && v < f->numpoints ? f->vnormals[v] : f->normal;
            /* Fallback axes: any two perpendicular to n. */
            vec3_t any = fabs(n.z) < 0.9 ? vec3(0, 0, 1) : vec3(1, 0, 0);
            vec3_t fb = vec_normalize(vec_cross(any, n), NULL);
            vec3_t t = perpendicular(n, sa, fb);
            vec3_t b = vec_cross(n, t);
            if (vec_dot(b, ta) < 0) b = vec_neg(b);
            idx[3 * k] = table_add(&tab, n);
            idx[3 * k + 1] = table_add(&tab, t);
            idx[3 * k + 2] = table_add(&tab, b);
        }
    }
    size_t size = 4 + (size_t)tab.count * 12 + (size_t)nverts * 12;
    uint8_t *data = q2_malloc(size);
    wr_u32(data, (uint32_t)tab.count);
    uint8_t *p = data + 4;
    for (int i = 0; i < tab.count; i++, p += 12)
        for (int a = 0; a < 3; a++) wr_f32(p + 4 * a, tab.v[i][a]);
    for (long i = 0; i < nverts * 3; i++, p += 4) wr_u32(p, idx[i]);
    log_verbose(q->log, "face normals: %d unique vectors for %ld face vertices", tab.count, nverts);
    bool ok = bspx_put_lump(q->bsp, "FACENORMALS", data, size, err);
    free(data);
    free(idx);
    free(tab.v);
    free(tab.slot);
    return ok;
}
