/* Faces from visible portal sides; merging and lightmap subdivision. */
#include "faces.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../common/threads.h"
#include "../formats/lightmap.h"
#include "emit.h"
#include "groupkeys.h"

qbsp_emit_t *emit_get(qbsp_t *q)
{
    if (!q->emit) q->emit = q2_calloc(1, sizeof *q->emit);
    return q->emit;
}

/* Face records come from blocks, each freed once per model. Small
 * enough to come from the heap (below glibc's mmap threshold), where
 * freed blocks are reused rather than faulted in afresh. */
#define FACE_BLOCK_BYTES ((size_t)60 << 10)
#define FACES_PER_BLOCK (FACE_BLOCK_BYTES / sizeof(face_t))


face_t *face_alloc_new(face_alloc_t *fa)
{
    if (fa->numblocks == 0 || fa->used == FACES_PER_BLOCK) {
        ARRAY_PUSH(fa->blocks, fa->numblocks, fa->cap_blocks, q2_malloc(FACE_BLOCK_BYTES));
        fa->used = 0;
    }
    face_t *f = (face_t *)fa->blocks[fa->numblocks - 1] + fa->used++;
    memset(f, 0, sizeof *f);
    f->outputnumber = -1;
    ARRAY_PUSH(fa->faces, fa->numfaces, fa->cap_faces, f);
    return f;
}

void face_alloc_adopt(face_alloc_t *dst, face_alloc_t *src)
{
    dst->faces = q2_grow(dst->faces, sizeof *dst->faces, &dst->cap_faces, dst->numfaces + src->numfaces);
    if (src->numfaces > 0) memcpy(dst->faces + dst->numfaces, src->faces, sizeof *src->faces * (size_t)src->numfaces);
    dst->numfaces += src->numfaces;
    if (src->numblocks > 0) {
        /* src's blocks go before dst's last, which stays the one dst
         * carves from */
        void *last = dst->numblocks > 0 ? dst->blocks[--dst->numblocks] : NULL;
        for (int i = 0; i < src->numblocks; i++) ARRAY_PUSH(dst->blocks, dst->numblocks, dst->cap_blocks, src->blocks[i]);
        if (last) ARRAY_PUSH(dst->blocks, dst->numblocks, dst->cap_blocks, last);
        else dst->used = src->used;
    }
    free(src->faces);
    free(src->blocks);
    memset(src, 0, sizeof *src);
}

face_t *emit_new_face(qbsp_t *q) { return face_alloc_new(&emit_get(q)->fa); }

/* Vertex numbers per block: a face has at most MAX_FACE_POINTS * 4. */
#define VNUM_BLOCK_INTS ((size_t)15 << 10)

int *emit_vertexnums(qbsp_t *q, int n)
{
    qbsp_emit_t *em = emit_get(q);
    if (em->numvnum_blocks == 0 || em->vnum_block_used + (size_t)n > em->vnum_block_size) {
        size_t size = (size_t)n > VNUM_BLOCK_INTS ? (size_t)n : VNUM_BLOCK_INTS;
        ARRAY_PUSH(em->vnum_blocks, em->numvnum_blocks, em->cap_vnum_blocks, q2_malloc(sizeof(int) * size));
        em->vnum_block_size = size;
        em->vnum_block_used = 0;
    }
    int *v = em->vnum_blocks[em->numvnum_blocks - 1] + em->vnum_block_used;
    em->vnum_block_used += (size_t)n;
    return v;
}

static void clear_face_refs_r(node_t *node)
{
    if (!node) return;
    node->faces = NULL;
    if (node->planenum == PLANENUM_LEAF) {
        node->leaffaces = NULL;
        return;
    }
    clear_face_refs_r(node->children[0]);
    clear_face_refs_r(node->children[1]);
}

void emit_free_faces(qbsp_t *q, tree_t *tree)
{
    qbsp_emit_t *em = emit_get(q);
    if (tree) clear_face_refs_r(tree->headnode);
    for (int i = 0; i < em->fa.numfaces; i++) winding_free(em->fa.faces[i]->w);
    em->fa.numfaces = 0;
    for (int i = 0; i < em->fa.numblocks; i++) free(em->fa.blocks[i]);
    em->fa.numblocks = 0;
    em->fa.used = 0;
    for (int i = 0; i < em->numvnum_blocks; i++) free(em->vnum_blocks[i]);
    em->numvnum_blocks = 0;
}

/* ---------------------------------------------------------------- merge */

winding_t *faces_try_merge_windings(const winding_t *a, const winding_t *b, vec3_t normal)
{
    int na = a->numpoints, nb = b->numpoints;
    int i, j = 0;
    for (i = 0; i < na; i++) {
        vec3_t p1 = a->p[i], p2 = a->p[(i + 1) % na];
        for (j = 0; j < nb; j++) {
            vec3_t p3 = b->p[j], p4 = b->p[(j + 1) % nb];
            if (vec_equal_eps(p1, p4, WELD_EPSILON) && vec_equal_eps(p2, p3, WELD_EPSILON)) break;
        }
        if (j < nb) break;
    }
    if (i == na) return NULL;
    vec3_t p1 = a->p[i], p2 = a->p[(i + 1) % na];

    /* At p1 the merged outline comes from a's previous point and goes on to
     * b's point after p1; at p2 from b's previous point on to a's point
     * after p2. Neither corner may bend inward. Which side of an edge is
     * inside follows from the winding's direction around the normal (both
     * windings run the same way), not from neighbouring points, which may
     * be collinear. */
    vec3_t wn;
    double wd;
    winding_plane(a, &wn, &wd);
    double orient = vec_dot(wn, normal) >= 0 ? 1.0 : -1.0;
    vec3_t prev = a->p[(i + na - 1) % na];
    vec3_t next = b->p[(j + 2) % nb];
    vec3_t inward = vec_scale(vec_normalize(vec_cross(vec_sub(p1, prev), normal), NULL), orient);
    double d = vec_dot(vec_sub(next, p1), inward);
    if (d < -MERGE_EPSILON) return NULL;
    bool keep1 = d > MERGE_EPSILON;

    prev = b->p[(j + nb - 1) % nb];
    next = a->p[(i + 2) % na];
    inward = vec_scale(vec_normalize(vec_cross(vec_sub(p2, prev), normal), NULL), orient);
    d = vec_dot(vec_sub(next, p2), inward);
    if (d < -MERGE_EPSILON) return NULL;
    bool keep2 = d > MERGE_EPSILON;

    winding_t *w = winding_alloc(na + nb);
    w->numpoints = 0;
    /* a from p2 around to p1, then b's points strictly between p1 and p2. */
    for (int k = 0; k < na; k++) {
        int idx = (i + 1 + k) % na;
        if (k == 0 && !keep2) continue;      /* p2 */
        if (k == na - 1 && !keep1) continue; /* p1 */
        w->p[w->numpoints++] = a->p[idx];
    }
    for (int k = 2; k < nb; k++) w->p[w->numpoints++] = b->p[(j + k) % nb];
    if (w->numpoints < 3 || w->numpoints > MAX_FACE_POINTS) {
        winding_free(w);
        return NULL;
    }
    /* The junction tests decide; this catches inputs that were not
     * convex themselves (a concave face draws wrongly and leaves holes). */
    for (int k = 0; k < w->numpoints; k++) {
        vec3_t p0 = w->p[(k + w->numpoints - 1) % w->numpoints], pk = w->p[k], pn = w->p[(k + 1) % w->numpoints];
        vec3_t in = vec_scale(vec_normalize(vec_cross(vec_sub(pk, p0), normal), NULL), orient);
        if (vec_dot(vec_sub(pn, pk), in) < -MERGE_EPSILON) {
            winding_free(w);
            return NULL;
        }
    }
    return w;
}

static face_t *try_merge(const qbsp_t *q, face_alloc_t *fa, face_t *f1, face_t *f2, vec3_t normal)
{
    if (!f1->w || !f2->w) return NULL;
    /* Unlike qbsp3, the contents of the leaves the faces are seen from do
     * not keep them apart (ericw-tools merges them too): the floor under a
     * func_detail_fence or a mist volume stays one face with the floor
     * beside it, since engines draw a face alike from any leaf. */
    if (f1->texinfo != f2->texinfo || f1->planenum != f2->planenum) return NULL;
    /* Faces of entities with their own lighting keys stay apart. */
    if (q->ent_keyset && groupkeys_of_face(q, f1) != groupkeys_of_face(q, f2)) return NULL;
    winding_t *w = faces_try_merge_windings(f1->w, f2->w, normal);
    if (!w) return NULL;
    face_t *nf = face_alloc_new(fa);
    nf->texinfo = f1->texinfo;
    nf->planenum = f1->planenum;
    nf->contents = f1->contents;
    nf->brush = f1->brush;
    nf->w = w;
    f1->merged = nf;
    f2->merged = nf;
    return nf;
}

static void merge_node_faces(const qbsp_t *q, face_alloc_t *fa, node_t *node)
{
    for (face_t *f1 = node->faces; f1; f1 = f1->next) {
        if (!face_is_final(f1)) continue;
        vec3_t normal = plane_table_get(&q->planes, f1->planenum)->normal;
        for (face_t *f2 = node->faces; f2 != f1; f2 = f2->next) {
            if (!face_is_final(f2)) continue;
            face_t *m = try_merge(q, fa, f1, f2, normal);
            if (!m) continue;
            /* Appended, so it is tried against every face again. */
            face_t *end = node->faces;
            while (end->next) end = end->next;
            end->next = m;
            m->next = NULL;
            break;
        }
    }
}

/* ------------------------------------------------------------ subdivide */

/* Whether every way of evaluating dot(p, vecs) + offset in single
 * precision (any order, with or without extended precision or fused
 * multiply-adds) gives the exact value: the point and the vector are
 * floats already, each product is a float, and so is every partial sum.
 * Then an engine computes exactly what we compute and no margin is needed;
 * this is the common case of integer vertices and axial textures. */
static bool tex_coord_exact(vec3_t p, const float v[4])
{
    double c[3] = {p.x, p.y, p.z}, terms[4];
    for (int i = 0; i < 3; i++) {
        if ((double)(float)c[i] != c[i]) return false;
        terms[i] = c[i] * (double)v[i]; /* exact in double: 24-bit mantissas */
        if ((double)(float)terms[i] != terms[i]) return false;
    }
    terms[3] = v[3];
    /* Whole terms whose magnitudes add up to less than 2^24: every partial
     * sum is a whole number a float holds exactly (the usual case). */
    double total = 0;
    bool whole = true;
    for (int i = 0; i < 4 && whole; i++) {
        whole = fabs(terms[i]) < 16777216.0 && terms[i] == (double)(int32_t)terms[i];
        total += fabs(terms[i]);
    }
    if (whole && total < 16777216.0) return true;
    for (int mask = 3; mask < 16; mask++) {
        double sum = 0;
        for (int i = 0; i < 4; i++)
            if (mask & (1 << i)) sum += terms[i];
        if ((double)(float)sum != sum) return false;
    }
    return true;
}

/* floor and ceil without a library call (this build has no SSE4.1
 * rounding instruction), exact: truncation is exact below 2^62 and the
 * correction is by one; other values go to the library. */
static inline double fast_floor(double x)
{
    if (!(fabs(x) < 4.6e18)) return floor(x);
    double t = (double)(int64_t)x;
    return t > x ? t - 1.0 : t;
}

static inline double fast_ceil(double x)
{
    if (!(fabs(x) < 4.6e18)) return ceil(x);
    double t = (double)(int64_t)x;
    return t < x ? t + 1.0 : t;
}

/* Five times LIGHTMAP_ROUND_EPSILON: a texture coordinate this far from
 * every multiple of LIGHTMAP_SCALE is far from a luxel boundary whichever
 * margin applies (see safe_luxel_bounds). */
#define LUXEL_MARGIN_FAR (5 * LIGHTMAP_ROUND_EPSILON)

/* Luxel interval bounds [lo, hi] (in units of LIGHTMAP_SCALE) that hold
 * however an engine rounds: a coordinate that is not exact in single
 * precision and lies within LIGHTMAP_ROUND_EPSILON of a luxel boundary may
 * land on either side of it. Also returns the exact texture-space range. */
static void safe_luxel_bounds(const winding_t *w, const dtexinfo_t *tex, int axis, double *mn, double *mx,
                              double *lo, double *hi)
{
    *mn = INFINITY;
    *mx = -INFINITY;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int k = 0; k < w->numpoints; k++) {
        vec3_t p = w->p[k];
        double v = p.x * (double)tex->vecs[axis][0] + p.y * (double)tex->vecs[axis][1] +
                   p.z * (double)tex->vecs[axis][2] + (double)tex->vecs[axis][3];
        /* The margin only matters near a luxel boundary: farther than
         * LUXEL_MARGIN_FAR (with room for rounding) both margins give the
         * same floor and ceil, and the exactness test is skipped. */
        double r = v - LIGHTMAP_SCALE * fast_floor(v / LIGHTMAP_SCALE);
        double m = 0.0;
        if (!(r > LUXEL_MARGIN_FAR && r < LIGHTMAP_SCALE - LUXEL_MARGIN_FAR))
            m = tex_coord_exact(p, tex->vecs[axis]) ? 0.0 : LIGHTMAP_ROUND_EPSILON;
        if (v < *mn) *mn = v;
        if (v > *mx) *mx = v;
        double l = fast_floor((v - m) / LIGHTMAP_SCALE), h = fast_ceil((v + m) / LIGHTMAP_SCALE);
        if (l < *lo) *lo = l;
        if (h > *hi) *hi = h;
    }
}

bool faces_needs_subdivide(const winding_t *w, const dtexinfo_t *tex, double chop, int *axis)
{
    for (int a = 0; a < 2; a++) {
        double len = sqrt((double)tex->vecs[a][0] * tex->vecs[a][0] + (double)tex->vecs[a][1] * tex->vecs[a][1] +
                          (double)tex->vecs[a][2] * tex->vecs[a][2]);
        if (len < NORMAL_EPSILON) continue;
        double mn, mx, lo, hi;
        safe_luxel_bounds(w, tex, a, &mn, &mx, &lo, &hi);
        if (mx - mn > chop || hi - lo > MAX_LIGHTMAP_DIM - 1) {
            if (axis) *axis = a;
            return true;
        }
    }
    return false;
}

/* Luxels per piece: the split goes on a luxel boundary, at most
 * MAX_LIGHTMAP_DIM - 2 whole luxels after the piece's first boundary, so
 * the piece spans at most MAX_LIGHTMAP_DIM - 1 intervals even when both of
 * its bounds round outward, and at most `chop` texels. */
static int luxels_per_piece(double chop)
{
    int n = (int)floor(chop / LIGHTMAP_SCALE) - 1;
    if (n > MAX_LIGHTMAP_DIM - 2) n = MAX_LIGHTMAP_DIM - 2;
    if (n < 1) n = 1;
    return n;
}

int faces_subdivide_winding(const winding_t *w, const dtexinfo_t *tex, double chop, winding_t ***out)
{
    int n = 0, cap = 0, pend = 0, cap_pend = 0;
    winding_t **res = NULL, **stack = NULL;
    ARRAY_PUSH(stack, pend, cap_pend, winding_copy(w));
    int per = luxels_per_piece(chop);
    while (pend > 0) {
        winding_t *cur = stack[--pend];
        int axis;
        if (!faces_needs_subdivide(cur, tex, chop, &axis)) {
            ARRAY_PUSH(res, n, cap, cur);
            continue;
        }
        double mn, mx, lo, hi;
        safe_luxel_bounds(cur, tex, axis, &mn, &mx, &lo, &hi);
        double s = (lo + per) * LIGHTMAP_SCALE;
        vec3_t v = vec3(tex->vecs[axis][0], tex->vecs[axis][1], tex->vecs[axis][2]);
        double len;
        vec3_t nrm = vec_normalize(v, &len);
        double dist = (s - (double)tex->vecs[axis][3]) / len;
        winding_t *front = NULL, *back = NULL;
        winding_split(cur, nrm, dist, ON_EPSILON, &front, &back);
        if (!front || !back) {
            /* Cannot happen for s strictly inside the range; keep the piece
             * rather than loop forever. */
            winding_free(front);
            winding_free(back);
            ARRAY_PUSH(res, n, cap, cur);
            continue;
        }
        winding_free(cur);
        ARRAY_PUSH(stack, pend, cap_pend, front);
        ARRAY_PUSH(stack, pend, cap_pend, back);
    }
    free(stack);
    *out = res;
    return n;
}

static void subdivide_node_faces(const qbsp_t *q, face_alloc_t *fa, node_t *node)
{
    double chop = q->opt.subdivide > 0 ? q->opt.subdivide : 240.0;
    face_t *end = node->faces;
    while (end && end->next) end = end->next;
    for (face_t *f = node->faces; f; f = f->next) {
        if (!face_is_final(f) || !f->w || f->texinfo < 0 || f->texinfo >= q->numtexinfo) continue;
        const dtexinfo_t *tex = &q->texinfo[f->texinfo];
        if (tex->flags & (SURF_SKY | SURF_WARP)) continue;
        if (!faces_needs_subdivide(f->w, tex, chop, NULL)) continue;
        winding_t **pieces;
        int np = faces_subdivide_winding(f->w, tex, chop, &pieces);
        /* A binary split chain keeps the face_t shape (two children). */
        face_t *parent = f;
        for (int k = 0; k < np; k++) {
            face_t *nf = face_alloc_new(fa);
            nf->texinfo = f->texinfo;
            nf->planenum = f->planenum;
            nf->contents = f->contents;
            nf->brush = f->brush;
            nf->w = pieces[k];
            end->next = nf;
            end = nf;
            if (k < np - 2) {
                face_t *rest = face_alloc_new(fa);
                rest->texinfo = f->texinfo;
                rest->planenum = f->planenum;
                rest->contents = f->contents;
                rest->brush = f->brush;
                rest->w = NULL; /* interior node of the chain, never final */
                parent->split[0] = nf;
                parent->split[1] = rest;
                parent = rest;
            } else if (k == np - 2) {
                parent->split[0] = nf;
            } else {
                if (np == 1) parent->split[0] = nf;
                else parent->split[1] = nf;
            }
        }
        free(pieces);
    }
}

/* ------------------------------------------------------------ make faces */

static face_t *face_from_portal(const qbsp_t *q, face_alloc_t *fa, portal_t *p, int pside)
{
    side_t *noclip = portal_noclip_side(p, pside);
    bool junction = noclip != NULL;
    side_t *side = junction ? noclip : p->side;
    if (!side || side->texinfo < 0 || side->texinfo >= q->numtexinfo) return NULL;
    /* Never drawn, so never written (as id's, ericw's and q2tools' qbsp do;
     * -includeskip writes them, as ericw-tools' does for Q2RTX);
     * sky faces are kept even when flagged NODRAW, since engines draw the
     * sky box where they are. */
    int flags = q->texinfo[side->texinfo].flags;
    if ((flags & SURF_NODRAW) && !(flags & SURF_SKY) && !q->opt.includeskip) return NULL;
    node_t *leaf = p->nodes[pside], *other = p->nodes[!pside];
    /* The inside of a window is not drawn from another window (between
     * _noclipfaces brushes each one's outside is drawn instead). */
    if (!junction && (leaf->contents & CONTENTS_WINDOW) && (other->contents & CONTENTS_WINDOW)) return NULL;
    /* _mirrorinside 0: nothing is drawn for a view from inside the brush. */
    if (!junction && p->sidebrush && p->sidebrush->mirror_off && p->inside == pside) return NULL;
    if (!p->winding) return NULL;
    face_t *f = face_alloc_new(fa);
    f->texinfo = side->texinfo;
    /* The portal's plane, not the side's: a side found for the portal may
     * lie on a nearly coplanar plane, and the face must lie on its node. */
    f->planenum = (p->onnode ? (p->onnode->planenum & ~1) : (side->planenum & ~1)) | pside;
    f->brush = portal_noclip_brush(p, pside);
    if (!f->brush) f->brush = p->sidebrush;
    f->contents = leaf->contents;
    f->w = pside ? winding_reverse(p->winding) : winding_copy(p->winding);
    return f;
}

/* A solid leaf made of func_detail_wall brushes only. */
static bool detail_wall_leaf(const node_t *n)
{
    if (!(n->contents & CONTENTS_SOLID) || !n->brushlist) return false;
    for (const bspbrush_t *b = n->brushlist; b; b = b->next)
        if (!b->original || !b->original->detail_wall) return false;
    return true;
}

/* ericw-tools' func_detail_wall does not cut the world faces it stands on:
 * where a wall leaf meets another solid, the drawn side of that solid's
 * brush on the portal is drawn into the wall too (overdraw), as if the wall
 * were not there, so it merges with the rest of the face. */
static void wall_covered_faces(const qbsp_t *q, face_alloc_t *fa, node_t *leaf, face_t ***pending)
{
    for (portal_t *p = leaf->portals; p;) {
        int s = p->nodes[1] == leaf;
        portal_t *nextp = p->next[s];
        node_t *other = p->nodes[!s];
        if (!p->onnode || !p->winding || !(other->contents & CONTENTS_SOLID) || detail_wall_leaf(other)) {
            p = nextp;
            continue;
        }
        int want = (p->onnode->planenum & ~1) | s; /* a side facing into the wall leaf */
        const side_t *side = NULL;
        for (const bspbrush_t *b = other->brushlist; b && !side; b = b->next) {
            const mapbrush_t *mb = b->original;
            if (!mb || mb->detail_wall || !(mb->contents & CONTENTS_SOLID)) continue;
            for (int i = 0; i < mb->numsides && !side; i++) {
                const side_t *sd = &mb->original_sides[i];
                if (sd->bevel || sd->planenum != want || !sd->visible || sd->texinfo < 0 || sd->texinfo >= q->numtexinfo)
                    continue;
                int flags = q->texinfo[sd->texinfo].flags;
                if ((flags & SURF_NODRAW) && !(flags & SURF_SKY) && !q->opt.includeskip) continue;
                side = sd;
            }
        }
        if (side) {
            face_t *f = face_alloc_new(fa);
            f->texinfo = side->texinfo;
            f->planenum = want;
            f->brush = NULL;
            /* The contents of the open side of such faces, so it merges. */
            f->contents = 0;
            f->w = s ? winding_reverse(p->winding) : winding_copy(p->winding);
            f->onnode = p->onnode;
            **pending = f;
            *pending = &f->next;
        }
        p = nextp;
    }
}

/* The faces a leaf's portals give it (qbsp3's MakeFaces_r at a leaf):
 * those seen from it in node_t.leaffaces, in its portals' order, and
 * every face for a node's list chained through `next` in leaf->faces
 * (which a leaf does not use otherwise), in the order made, each with the
 * node it joins. */
static void leaf_faces(const qbsp_t *q, face_alloc_t *fa, node_t *leaf)
{
    face_t **pending = &leaf->faces;
    if (leaf->contents & CONTENTS_SOLID) {
        if (q->any_detail_wall && detail_wall_leaf(leaf)) wall_covered_faces(q, fa, leaf, &pending);
        *pending = NULL;
        return;
    }
    face_t **tail = &leaf->leaffaces;
    for (portal_t *p = leaf->portals; p;) {
        int s = p->nodes[1] == leaf;
        portal_t *nextp = p->next[s];
        face_t *f = face_from_portal(q, fa, p, s);
        if (f && p->onnode) {
            f->onnode = p->onnode;
            *pending = f;
            pending = &f->next;
            *tail = f;
            tail = &f->leafnext;
        }
        p = nextp;
    }
    *pending = NULL;
}

static void collect_nodes_r(node_t *node, node_t ***leafs, int *nl, int *capl, node_t ***nodes, int *nn, int *capn)
{
    if (node->planenum == PLANENUM_LEAF) {
        ARRAY_PUSH(*leafs, *nl, *capl, node);
        return;
    }
    ARRAY_PUSH(*nodes, *nn, *capn, node);
    collect_nodes_r(node->children[0], leafs, nl, capl, nodes, nn, capn);
    collect_nodes_r(node->children[1], leafs, nl, capl, nodes, nn, capn);
}

/* Leafs and nodes per task of the parallel loops below. */
#define FACES_LEAF_CHUNK 32
#define FACES_NODE_CHUNK 8
/* Trees with fewer leafs are done on one thread. */
#define FACES_PARALLEL_MIN_LEAFS 256

void faces_make(qbsp_t *q, tree_t *tree)
{
    if (!tree || !tree->headnode) return;
    /* qbsp3 makes a leaf's faces and pushes each onto its node's list as
     * it walks the leafs, and merges and subdivides a node's faces once
     * both its subtrees are done. A node's list then holds faces of the
     * leafs below it only, pushed in walk order, and merging and
     * subdividing read and extend that list alone. So the same lists come
     * from three steps: every leaf's faces made on the threads, pushed
     * onto the nodes' lists in walk order on one, and every node's list
     * merged and subdivided on the threads. The face records of each
     * thread go to the model's allocator after: their order only decides
     * the order they are freed in. */
    node_t **leafs = NULL, **nodes = NULL;
    int nl = 0, capl = 0, nn = 0, capn = 0;
    collect_nodes_r(tree->headnode, &leafs, &nl, &capl, &nodes, &nn, &capn);
    int nt = q->opt.threads > 0 ? q->opt.threads : 1;
    bool par = nt > 1 && nl >= FACES_PARALLEL_MIN_LEAFS;
    face_alloc_t *fa = q2_calloc((size_t)nt, sizeof *fa);
#pragma omp parallel for schedule(dynamic, FACES_LEAF_CHUNK) num_threads(nt) if (par) default(none) \
    shared(q, fa, leafs, nl)
    for (int i = 0; i < nl; i++) leaf_faces(q, &fa[threads_current()], leafs[i]);
    for (int i = 0; i < nl; i++) {
        face_t *next;
        for (face_t *f = leafs[i]->faces; f; f = next) {
            next = f->next;
            f->next = f->onnode->faces;
            f->onnode->faces = f;
        }
        leafs[i]->faces = NULL;
    }
#pragma omp parallel for schedule(dynamic, FACES_NODE_CHUNK) num_threads(nt) if (par) default(none) \
    shared(q, fa, nodes, nn)
    for (int i = 0; i < nn; i++) {
        face_alloc_t *tfa = &fa[threads_current()];
        if (!q->opt.nomerge) merge_node_faces(q, tfa, nodes[i]);
        if (!q->opt.nosubdiv) subdivide_node_faces(q, tfa, nodes[i]);
    }
    qbsp_emit_t *em = emit_get(q);
    for (int t = 0; t < nt; t++) face_alloc_adopt(&em->fa, &fa[t]);
    free(fa);
    free(leafs);
    free(nodes);
}
