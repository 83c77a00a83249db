/* BSPX directory and the lumps q2map writes (see bspx.h and docs/formats.md). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspx.h"
#include "bytes.h"
#include "lightmap.h"
#include "../common/mem.h"

/* ---- directory ------------------------------------------------------ */

bool bspx_parse(const bsp_t *bsp, bspx_t *out, bool *had_bspx, q2err_t *err)
{
    memset(out, 0, sizeof *out);
    if (had_bspx) *had_bspx = false;
    const uint8_t *p = bsp->extra;
    size_t n = bsp->extrasize;
    if (n < 8 || memcmp(p, "BSPX", 4) != 0) return true;
    if (had_bspx) *had_bspx = true;
    uint32_t count = rd_u32(p + 4);
    if ((uint64_t)count * BSPX_DIR_ENTRY > n - 8)
        return q2err_set(err, NULL, 0, 0, "BSPX: directory of %u lumps needs %llu bytes, the file has %zu after it",
                         count, (unsigned long long)count * BSPX_DIR_ENTRY, n - 8);
    uint64_t base = bsp->extra_offset, end = base + n;
    out->lumps = q2_calloc(count > 0 ? count : 1, sizeof(bspx_lump_t));
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *e = p + 8 + (size_t)i * BSPX_DIR_ENTRY;
        if (!memchr(e, 0, BSPX_NAME_LEN)) {
            bspx_free(out);
            return q2err_set(err, NULL, 0, 0, "BSPX: lump %u: name is not NUL-terminated within %d bytes", i,
                             BSPX_NAME_LEN);
        }
        uint64_t ofs = rd_u32(e + 24), len = rd_u32(e + 28);
        if (ofs < base + 8 + (uint64_t)count * BSPX_DIR_ENTRY || ofs + len > end) {
            q2err_set(err, NULL, 0, 0,
                      "BSPX: lump %u \"%s\": bytes %llu..%llu are outside the BSPX data (%llu..%llu)", i,
                      (const char *)e, (unsigned long long)ofs, (unsigned long long)(ofs + len),
                      (unsigned long long)(base + 8 + (uint64_t)count * BSPX_DIR_ENTRY), (unsigned long long)end);
            bspx_free(out);
            return false;
        }
        if (bspx_find(out, (const char *)e)) {
            q2err_set(err, NULL, 0, 0, "BSPX: lump \"%s\" appears twice", (const char *)e);
            bspx_free(out);
            return false;
        }
        bspx_lump_t *l = &out->lumps[out->count++];
        memcpy(l->name, e, BSPX_NAME_LEN);
        l->name[BSPX_NAME_LEN] = 0;
        l->size = (size_t)len;
        l->data = q2_malloc(len > 0 ? (size_t)len : 1);
        memcpy(l->data, p + (ofs - base), (size_t)len);
    }
    return true;
}

void bspx_free(bspx_t *x)
{
    for (int i = 0; i < x->count; i++) free(x->lumps[i].data);
    free(x->lumps);
    memset(x, 0, sizeof *x);
}

const bspx_lump_t *bspx_find(const bspx_t *x, const char *name)
{
    for (int i = 0; i < x->count; i++)
        if (!strcmp(x->lumps[i].name, name)) return &x->lumps[i];
    return NULL;
}

void bspx_set(bspx_t *x, const char *name, const uint8_t *data, size_t size)
{
    bspx_lump_t *l = (bspx_lump_t *)bspx_find(x, name);
    if (!l) {
        x->lumps = q2_realloc(x->lumps, sizeof(bspx_lump_t) * (size_t)(x->count + 1));
        l = &x->lumps[x->count++];
        memset(l, 0, sizeof *l);
        snprintf(l->name, sizeof l->name, "%s", name);
    }
    free(l->data);
    l->data = q2_malloc(size > 0 ? size : 1);
    if (size) memcpy(l->data, data, size);
    l->size = size;
}

bool bspx_remove(bspx_t *x, const char *name)
{
    for (int i = 0; i < x->count; i++)
        if (!strcmp(x->lumps[i].name, name)) {
            free(x->lumps[i].data);
            memmove(&x->lumps[i], &x->lumps[i + 1], sizeof(bspx_lump_t) * (size_t)(x->count - i - 1));
            x->count--;
            return true;
        }
    return false;
}

static int cmp_lump(const void *a, const void *b)
{
    return strcmp(((const bspx_lump_t *)a)->name, ((const bspx_lump_t *)b)->name);
}

void bspx_store(const bspx_t *x, bsp_t *bsp)
{
    free(bsp->extra);
    bsp->extra = NULL;
    bsp->extrasize = 0;
    bsp->extra_offset = 0;
    if (x->count == 0) return;
    bspx_lump_t *sorted = q2_malloc(sizeof(bspx_lump_t) * (size_t)x->count);
    memcpy(sorted, x->lumps, sizeof(bspx_lump_t) * (size_t)x->count);
    qsort(sorted, (size_t)x->count, sizeof *sorted, cmp_lump);
    size_t total = 8 + (size_t)x->count * BSPX_DIR_ENTRY;
    for (int i = 0; i < x->count; i++) total += (sorted[i].size + 3) & ~(size_t)3;
    uint8_t *p = q2_calloc(total, 1);
    memcpy(p, "BSPX", 4);
    wr_u32(p + 4, (uint32_t)x->count);
    /* Offsets are stored relative to the block (extra_offset 0); the bsp
     * writer moves them to where the block lands in the file. */
    size_t at = 8 + (size_t)x->count * BSPX_DIR_ENTRY;
    for (int i = 0; i < x->count; i++) {
        uint8_t *e = p + 8 + (size_t)i * BSPX_DIR_ENTRY;
        memcpy(e, sorted[i].name, strlen(sorted[i].name));
        wr_u32(e + 24, (uint32_t)at);
        wr_u32(e + 28, (uint32_t)sorted[i].size);
        if (sorted[i].size) memcpy(p + at, sorted[i].data, sorted[i].size);
        at += (sorted[i].size + 3) & ~(size_t)3;
    }
    free(sorted);
    bsp->extra = p;
    bsp->extrasize = total;
}

bool bspx_put_lump(bsp_t *bsp, const char *name, const uint8_t *data, size_t size, q2err_t *err)
{
    bspx_t x;
    bool had;
    if (!bspx_parse(bsp, &x, &had, err)) return false;
    if (!had && bsp->extrasize > 0 && !data) return true; /* foreign bytes, nothing to remove */
    if (data) bspx_set(&x, name, data, size);
    else bspx_remove(&x, name);
    bspx_store(&x, bsp);
    bspx_free(&x);
    return true;
}

bool bspx_has_lump(const bsp_t *bsp, const char *name)
{
    bspx_t x;
    if (!bspx_parse(bsp, &x, NULL, NULL)) return false;
    bool has = bspx_find(&x, name) != NULL;
    bspx_free(&x);
    return has;
}

/* ---- LIGHTGRID_OCTREE ---------------------------------------------- */

#define LG_HEADER 41 /* dist, size, mins (3 x 12) + num_styles (1) + root (4) */
#define LG_NODE 44   /* division (12) + 8 children (32) */
#define LG_LEAF_HEAD 24

/* Recursion depth allowed while checking links: ericw-tools' octree is at
 * most 5 deep; anything past this is a cycle or garbage. */
#define LG_MAX_WALK_DEPTH 64

typedef struct lg_walk_t {
    const lightgrid_t *g;
    uint8_t *state; /* per node: 0 unseen, 1 on the current path, 2 done */
    q2err_t *err;
} lg_walk_t;

static bool lg_check_link(lg_walk_t *w, uint32_t link, int depth, const char *from)
{
    const lightgrid_t *g = w->g;
    if (link & LGNODE_OCCLUDED) {
        if (link != LGNODE_OCCLUDED)
            return q2err_set(w->err, NULL, 0, 0, "LIGHTGRID_OCTREE: %s: occluded link 0x%08x has other bits set", from,
                             link);
        return true;
    }
    if (link & LGNODE_LEAF) {
        uint32_t l = link & ~LGNODE_LEAF;
        if (l >= (uint32_t)g->numleafs)
            return q2err_set(w->err, NULL, 0, 0, "LIGHTGRID_OCTREE: %s: leaf %u out of range (%d leafs)", from, l,
                             g->numleafs);
        return true;
    }
    if (link >= (uint32_t)g->numnodes)
        return q2err_set(w->err, NULL, 0, 0, "LIGHTGRID_OCTREE: %s: node %u out of range (%d nodes)", from, link,
                         g->numnodes);
    if (w->state[link] == 1)
        return q2err_set(w->err, NULL, 0, 0, "LIGHTGRID_OCTREE: %s: node %u links back to itself (a cycle)", from, link);
    if (w->state[link] == 2)
        return q2err_set(w->err, NULL, 0, 0, "LIGHTGRID_OCTREE: %s: node %u is reached twice", from, link);
    if (depth > LG_MAX_WALK_DEPTH)
        return q2err_set(w->err, NULL, 0, 0, "LIGHTGRID_OCTREE: deeper than %d nodes", LG_MAX_WALK_DEPTH);
    w->state[link] = 1;
    const lg_node_t *nd = &g->nodes[link];
    for (int a = 0; a < 3; a++)
        if (nd->division[a] < 0 || nd->division[a] > g->size[a])
            return q2err_set(w->err, NULL, 0, 0, "LIGHTGRID_OCTREE: node %u: division %d outside the grid (0..%d)",
                             link, nd->division[a], g->size[a]);
    char name[48];
    snprintf(name, sizeof name, "node %u", link);
    for (int c = 0; c < 8; c++)
        if (!lg_check_link(w, nd->children[c], depth + 1, name)) return false;
    w->state[link] = 2;
    return true;
}

bool lightgrid_decode(const uint8_t *data, size_t size, lightgrid_t *out, q2err_t *err)
{
    memset(out, 0, sizeof *out);
    if (size < LG_HEADER + 4)
        return q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: %zu bytes, shorter than its %d-byte header", size,
                         LG_HEADER + 4);
    const uint8_t *p = data, *end = data + size;
    for (int a = 0; a < 3; a++) {
        out->dist[a] = rd_f32(p + 4 * a);
        out->size[a] = rd_i32(p + 12 + 4 * a);
        out->mins[a] = rd_f32(p + 24 + 4 * a);
    }
    out->numstyles = p[36];
    out->root = rd_u32(p + 37);
    p += LG_HEADER;
    for (int a = 0; a < 3; a++) {
        if (!isfinite(out->dist[a]) || out->dist[a] <= 0 || !isfinite(out->mins[a]))
            return q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: bad grid spacing or origin on axis %d", a);
        if (out->size[a] <= 0 || out->size[a] > (1 << 20))
            return q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: bad grid size %d on axis %d", out->size[a], a);
    }
    if (out->numstyles > LG_MAX_STYLES)
        return q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: %d styles, more than %d", out->numstyles, LG_MAX_STYLES);
    uint32_t nn = rd_u32(p);
    p += 4;
    if ((uint64_t)nn * LG_NODE > (uint64_t)(end - p))
        return q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: %u nodes need %llu bytes, %td are left", nn,
                         (unsigned long long)nn * LG_NODE, end - p);
    out->numnodes = (int)nn;
    out->nodes = q2_malloc(sizeof(lg_node_t) * (nn > 0 ? nn : 1));
    for (uint32_t i = 0; i < nn; i++, p += LG_NODE) {
        for (int a = 0; a < 3; a++) out->nodes[i].division[a] = rd_i32(p + 4 * a);
        for (int c = 0; c < 8; c++) out->nodes[i].children[c] = rd_u32(p + 12 + 4 * c);
    }
    if (end - p < 4) {
        lightgrid_free(out);
        return q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: ends before its leaf count");
    }
    uint32_t nl = rd_u32(p);
    p += 4;
    if ((uint64_t)nl * LG_LEAF_HEAD > (uint64_t)(end - p)) {
        lightgrid_free(out);
        return q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: %u leafs cannot fit in the %td bytes left", nl, end - p);
    }
    out->numleafs = (int)nl;
    out->leafs = q2_calloc(nl > 0 ? nl : 1, sizeof(lg_leaf_t));
    size_t cap = 0;
    for (uint32_t i = 0; i < nl; i++) {
        lg_leaf_t *l = &out->leafs[i];
        if (end - p < LG_LEAF_HEAD) {
            lightgrid_free(out);
            return q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: leaf %u: header past the end of the lump", i);
        }
        uint64_t count = 1;
        for (int a = 0; a < 3; a++) {
            l->mins[a] = rd_i32(p + 4 * a);
            l->size[a] = rd_i32(p + 12 + 4 * a);
            if (l->mins[a] < 0 || l->size[a] <= 0 || (int64_t)l->mins[a] + l->size[a] > out->size[a]) {
                q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: leaf %u: box %d+%d on axis %d outside the grid (%d)", i,
                          l->mins[a], l->size[a], a, out->size[a]);
                lightgrid_free(out);
                return false;
            }
            count *= (uint64_t)l->size[a];
        }
        p += LG_LEAF_HEAD;
        /* Each sample is at least one byte. */
        if (count > (uint64_t)(end - p)) {
            lightgrid_free(out);
            return q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: leaf %u: %llu samples cannot fit in %td bytes", i,
                             (unsigned long long)count, end - p);
        }
        l->firstsample = out->numsamples;
        if (out->numsamples + count > cap) {
            cap = (out->numsamples + (size_t)count) * 2;
            out->samples = q2_realloc(out->samples, sizeof(lg_sample_t) * cap);
        }
        for (uint64_t k = 0; k < count; k++) {
            lg_sample_t *s = &out->samples[out->numsamples++];
            memset(s, 0, sizeof *s);
            if (p >= end) {
                lightgrid_free(out);
                return q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: leaf %u: samples run past the end", i);
            }
            s->count = *p++;
            if (s->count == LG_OCCLUDED_MARK) continue;
            if (s->count > LG_MAX_STYLES) {
                q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: leaf %u sample %llu: %d styles, more than %d", i,
                          (unsigned long long)k, s->count, LG_MAX_STYLES);
                lightgrid_free(out);
                return false;
            }
            if ((size_t)(end - p) < (size_t)s->count * 4) {
                lightgrid_free(out);
                return q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: leaf %u: samples run past the end", i);
            }
            for (int st = 0; st < s->count; st++) {
                s->style[st] = p[0];
                memcpy(s->rgb[st], p + 1, 3);
                p += 4;
            }
        }
    }
    if (p != end) {
        lightgrid_free(out);
        return q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: %td bytes after the last leaf", end - p);
    }
    lg_walk_t w = {out, q2_calloc(nn > 0 ? nn : 1, 1), err};
    bool ok = lg_check_link(&w, out->root, 0, "root");
    free(w.state);
    if (!ok) lightgrid_free(out);
    return ok;
}

void lightgrid_free(lightgrid_t *g)
{
    free(g->nodes);
    free(g->leafs);
    free(g->samples);
    memset(g, 0, sizeof *g);
}

typedef struct bytebuf_t {
    uint8_t *p;
    size_t n, cap;
} bytebuf_t;

static uint8_t *bb_grow(bytebuf_t *b, size_t k)
{
    if (b->n + k > b->cap) {
        b->cap = (b->n + k) * 2 + 64;
        b->p = q2_realloc(b->p, b->cap);
    }
    uint8_t *r = b->p + b->n;
    b->n += k;
    return r;
}

bool lightgrid_encode(const lightgrid_t *g, uint8_t **data, size_t *size, q2err_t *err)
{
    bytebuf_t b = {0};
    uint8_t *h = bb_grow(&b, LG_HEADER);
    for (int a = 0; a < 3; a++) {
        wr_f32(h + 4 * a, g->dist[a]);
        wr_i32(h + 12 + 4 * a, g->size[a]);
        wr_f32(h + 24 + 4 * a, g->mins[a]);
    }
    h[36] = (uint8_t)g->numstyles;
    wr_u32(h + 37, g->root);
    wr_u32(bb_grow(&b, 4), (uint32_t)g->numnodes);
    for (int i = 0; i < g->numnodes; i++) {
        uint8_t *p = bb_grow(&b, LG_NODE);
        for (int a = 0; a < 3; a++) wr_i32(p + 4 * a, g->nodes[i].division[a]);
        for (int c = 0; c < 8; c++) wr_u32(p + 12 + 4 * c, g->nodes[i].children[c]);
    }
    wr_u32(bb_grow(&b, 4), (uint32_t)g->numleafs);
    for (int i = 0; i < g->numleafs; i++) {
        const lg_leaf_t *l = &g->leafs[i];
        uint8_t *p = bb_grow(&b, LG_LEAF_HEAD);
        for (int a = 0; a < 3; a++) {
            wr_i32(p + 4 * a, l->mins[a]);
            wr_i32(p + 12 + 4 * a, l->size[a]);
        }
        size_t count = (size_t)l->size[0] * l->size[1] * l->size[2];
        if (l->firstsample + count > g->numsamples) {
            free(b.p);
            return q2err_set(err, NULL, 0, 0, "LIGHTGRID_OCTREE: leaf %d: samples out of range", i);
        }
        for (size_t k = 0; k < count; k++) {
            const lg_sample_t *s = &g->samples[l->firstsample + k];
            if (s->count == LG_OCCLUDED_MARK) {
                *bb_grow(&b, 1) = LG_OCCLUDED_MARK;
                continue;
            }
            uint8_t *q = bb_grow(&b, 1 + 4 * (size_t)s->count);
            q[0] = s->count;
            for (int st = 0; st < s->count; st++) {
                q[1 + 4 * st] = s->style[st];
                memcpy(q + 2 + 4 * st, s->rgb[st], 3);
            }
        }
    }
    *data = b.p;
    *size = b.n;
    return true;
}

const lg_sample_t *lightgrid_lookup(const lightgrid_t *g, int x, int y, int z)
{
    if (x < 0 || y < 0 || z < 0 || x >= g->size[0] || y >= g->size[1] || z >= g->size[2]) return NULL;
    uint32_t link = g->root;
    int pt[3] = {x, y, z};
    /* decode checked the links, so this walk ends; the bound is defence. */
    for (int depth = 0; depth <= LG_MAX_WALK_DEPTH; depth++) {
        if (link & LGNODE_OCCLUDED) return NULL;
        if (link & LGNODE_LEAF) {
            const lg_leaf_t *l = &g->leafs[link & ~LGNODE_LEAF];
            int lx = x - l->mins[0], ly = y - l->mins[1], lz = z - l->mins[2];
            if (lx < 0 || ly < 0 || lz < 0 || lx >= l->size[0] || ly >= l->size[1] || lz >= l->size[2]) return NULL;
            const lg_sample_t *s = &g->samples[l->firstsample + ((size_t)lz * l->size[1] + ly) * l->size[0] + lx];
            return s->count == LG_OCCLUDED_MARK ? NULL : s;
        }
        const lg_node_t *n = &g->nodes[link];
        int c = 4 * (pt[0] >= n->division[0]) + 2 * (pt[1] >= n->division[1]) + (pt[2] >= n->division[2]);
        link = n->children[c];
    }
    return NULL;
}

/* ---- FACENORMALS ---------------------------------------------------- */

bool facenormals_decode(const bsp_t *bsp, const uint8_t *data, size_t size, facenormals_t *out, q2err_t *err)
{
    memset(out, 0, sizeof *out);
    if (size < 4) return q2err_set(err, NULL, 0, 0, "FACENORMALS: %zu bytes, shorter than its count", size);
    uint32_t nv = rd_u32(data);
    uint64_t verts = 0;
    for (int f = 0; f < bsp->numfaces; f++) verts += bsp->faces[f].numedges > 0 ? (uint64_t)bsp->faces[f].numedges : 0;
    uint64_t need = 4 + (uint64_t)nv * 12 + verts * 12;
    if (need != size)
        return q2err_set(err, NULL, 0, 0,
                         "FACENORMALS: %zu bytes, but %u vectors and %llu face vertices (%d faces) make %llu", size, nv,
                         (unsigned long long)verts, bsp->numfaces, (unsigned long long)need);
    out->numvecs = (int)nv;
    out->vecs = q2_malloc(sizeof(float[3]) * (nv > 0 ? nv : 1));
    const uint8_t *p = data + 4;
    for (uint32_t i = 0; i < nv; i++, p += 12)
        for (int a = 0; a < 3; a++) {
            out->vecs[i][a] = rd_f32(p + 4 * a);
            if (!isfinite(out->vecs[i][a])) {
                facenormals_free(out);
                return q2err_set(err, NULL, 0, 0, "FACENORMALS: vector %u is not finite", i);
            }
        }
    out->numverts = (int)verts;
    out->index = q2_malloc(sizeof(uint32_t[3]) * (verts > 0 ? verts : 1));
    out->firstvert = q2_malloc(sizeof(int) * (bsp->numfaces > 0 ? bsp->numfaces : 1));
    int k = 0;
    for (int f = 0; f < bsp->numfaces; f++) {
        out->firstvert[f] = k;
        for (int v = 0; v < bsp->faces[f].numedges; v++, k++, p += 12)
            for (int c = 0; c < 3; c++) {
                uint32_t ix = rd_u32(p + 4 * c);
                if (ix >= nv) {
                    facenormals_free(out);
                    return q2err_set(err, NULL, 0, 0, "FACENORMALS: face %d vertex %d: %s index %u out of range (%u)",
                                     f, v, c == 0 ? "normal" : c == 1 ? "tangent" : "bitangent", ix, nv);
                }
                out->index[k][c] = ix;
            }
    }
    return true;
}

void facenormals_free(facenormals_t *n)
{
    free(n->vecs);
    free(n->index);
    free(n->firstvert);
    memset(n, 0, sizeof *n);
}

/* ---- DECOUPLED_LM --------------------------------------------------- */

bool decoupled_decode(const bsp_t *bsp, const uint8_t *data, size_t size, decoupled_lm_t **out, q2err_t *err)
{
    *out = NULL;
    if (size != (size_t)bsp->numfaces * DECOUPLED_LM_ENTRY)
        return q2err_set(err, NULL, 0, 0, "DECOUPLED_LM: %zu bytes, expected %d faces x %d = %zu", size, bsp->numfaces,
                         DECOUPLED_LM_ENTRY, (size_t)bsp->numfaces * DECOUPLED_LM_ENTRY);
    decoupled_lm_t *d = q2_calloc(bsp->numfaces > 0 ? (size_t)bsp->numfaces : 1, sizeof *d);
    for (int f = 0; f < bsp->numfaces; f++) {
        const uint8_t *p = data + (size_t)f * DECOUPLED_LM_ENTRY;
        decoupled_lm_t *e = &d[f];
        e->width = rd_u16(p);
        e->height = rd_u16(p + 2);
        e->offset = rd_i32(p + 4);
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 4; c++) {
                e->world_to_lm[r][c] = rd_f32(p + 8 + 16 * r + 4 * c);
                if (!isfinite(e->world_to_lm[r][c])) {
                    free(d);
                    return q2err_set(err, NULL, 0, 0, "DECOUPLED_LM: face %d: projection is not finite", f);
                }
            }
        if (e->offset == -1) continue;
        int numstyles = 0;
        while (numstyles < MAXLIGHTMAPS && bsp->faces[f].styles[numstyles] != 255) numstyles++;
        if (e->offset < 0 || e->width == 0 || e->height == 0) {
            q2err_set(err, NULL, 0, 0, "DECOUPLED_LM: face %d: offset %d with a %dx%d lightmap", f, e->offset, e->width,
                      e->height);
            free(d);
            return false;
        }
        long long need = (long long)numstyles * e->width * e->height * 3;
        if ((long long)e->offset + need > bsp->lightdatasize) {
            q2err_set(err, NULL, 0, 0,
                      "DECOUPLED_LM: face %d: %dx%d lightmap of %d styles at offset %d runs past the lighting lump (%d "
                      "bytes)",
                      f, e->width, e->height, numstyles, e->offset, bsp->lightdatasize);
            free(d);
            return false;
        }
    }
    *out = d;
    return true;
}

/* ---- checks and summaries ------------------------------------------ */

int bspx_check(const bsp_t *bsp, bspx_report_fn report, void *ctx)
{
    bspx_t x;
    q2err_t err;
    int problems = 0;
    if (!bspx_parse(bsp, &x, NULL, &err)) {
        if (report) report(ctx, err.msg);
        return 1;
    }
    for (int i = 0; i < x.count; i++) {
        const bspx_lump_t *l = &x.lumps[i];
        bool ok = true;
        if (!strcmp(l->name, "LIGHTGRID_OCTREE")) {
            lightgrid_t g;
            ok = lightgrid_decode(l->data, l->size, &g, &err);
            if (ok) lightgrid_free(&g);
        } else if (!strcmp(l->name, "FACENORMALS")) {
            facenormals_t n;
            ok = facenormals_decode(bsp, l->data, l->size, &n, &err);
            if (ok) facenormals_free(&n);
        } else if (!strcmp(l->name, "DECOUPLED_LM")) {
            decoupled_lm_t *d;
            ok = decoupled_decode(bsp, l->data, l->size, &d, &err);
            free(d);
        }
        if (!ok) {
            problems++;
            if (report) report(ctx, err.msg);
        }
    }
    bspx_free(&x);
    return problems;
}

void bspx_print_summary(const bsp_t *bsp, FILE *f)
{
    bspx_t x;
    bool had;
    q2err_t err;
    if (!bspx_parse(bsp, &x, &had, &err)) {
        fprintf(f, "BSPX: unreadable: %s\n", err.msg);
        return;
    }
    if (!had) {
        if (bsp->extrasize) fprintf(f, "%zu bytes after the last lump (not BSPX)\n", bsp->extrasize);
        return;
    }
    fprintf(f, "BSPX: %d lumps\n", x.count);
    for (int i = 0; i < x.count; i++) {
        const bspx_lump_t *l = &x.lumps[i];
        fprintf(f, "  %-24s %10zu", l->name, l->size);
        if (!strcmp(l->name, "LIGHTGRID_OCTREE")) {
            lightgrid_t g;
            if (lightgrid_decode(l->data, l->size, &g, &err)) {
                size_t occ = 0;
                for (size_t k = 0; k < g.numsamples; k++) occ += g.samples[k].count == LG_OCCLUDED_MARK;
                fprintf(f, "  grid %d x %d x %d points, %g %g %g apart, from (%g %g %g); %d styles, %d nodes, %d leafs, "
                           "%zu samples (%zu occluded)",
                        g.size[0], g.size[1], g.size[2], g.dist[0], g.dist[1], g.dist[2], g.mins[0], g.mins[1],
                        g.mins[2], g.numstyles, g.numnodes, g.numleafs, g.numsamples - occ, occ);
                lightgrid_free(&g);
            } else {
                fprintf(f, "  bad: %s", err.msg);
            }
        } else if (!strcmp(l->name, "FACENORMALS")) {
            facenormals_t n;
            if (facenormals_decode(bsp, l->data, l->size, &n, &err)) {
                fprintf(f, "  %d unique vectors, %d face vertices", n.numvecs, n.numverts);
                facenormals_free(&n);
            } else {
                fprintf(f, "  bad: %s", err.msg);
            }
        } else if (!strcmp(l->name, "DECOUPLED_LM")) {
            decoupled_lm_t *d;
            if (decoupled_decode(bsp, l->data, l->size, &d, &err)) {
                long long luxels = 0, vluxels = 0, cells = 0, vcells = 0;
                int lit = 0, maxw = 0, maxh = 0;
                for (int fi = 0; fi < bsp->numfaces; fi++) {
                    if (d[fi].offset < 0) continue;
                    lit++;
                    luxels += (long long)d[fi].width * d[fi].height;
                    if (d[fi].width > maxw) maxw = d[fi].width;
                    if (d[fi].height > maxh) maxh = d[fi].height;
                    face_extents_t ext;
                    if (bsp_face_extents(bsp, fi, &ext, NULL)) {
                        vluxels += (long long)ext.size[0] * ext.size[1];
                        /* Cells between luxel centres measure density per
                         * area; the extra row and column of each face do not. */
                        vcells += (long long)(ext.size[0] - 1) * (ext.size[1] - 1);
                        cells += (long long)(d[fi].width - 1) * (d[fi].height - 1);
                    }
                }
                fprintf(f, "  %d faces, %lld luxels (vanilla-sized lightmaps of those faces: %lld); %.2fx the luxel cells; "
                           "largest %d x %d",
                        lit, luxels, vluxels, vcells > 0 ? (double)cells / vcells : 0.0, maxw, maxh);
                free(d);
            } else {
                fprintf(f, "  bad: %s", err.msg);
            }
        }
        fputc('\n', f);
    }
    bspx_free(&x);
}
