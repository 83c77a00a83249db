/* Vertex welding and T-junction repair.
 *
 * A T-junction is a vertex of one face lying inside an edge of another:
 * after float rounding the two faces no longer meet exactly and the
 * renderer shows sparkles along the seam. Every face edge gets every model
 * vertex that lies on it inserted, so neighbouring faces share their
 * vertices exactly. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../common/threads.h"
#include "emit.h"
#include "faces.h"

static double snap_coord(double v)
{
    double r = floor(v + 0.5);
    return fabs(v - r) < WELD_EPSILON ? r : v;
}

static uint32_t hash_cell(int64_t x, int64_t y, int64_t z)
{
    uint64_t h = (uint64_t)x * 73856093u ^ (uint64_t)y * 19349663u ^ (uint64_t)z * 83492791u;
    h ^= h >> 29;
    return (uint32_t)h;
}

static void vhash_rebuild(qbsp_emit_t *em, int count)
{
    free(em->vhash_head);
    em->vhash_size = 1;
    while (em->vhash_size < count * 2) em->vhash_size <<= 1;
    if (em->vhash_size < 4096) em->vhash_size = 4096;
    em->vhash_head = q2_malloc(sizeof(int) * em->vhash_size);
    for (int i = 0; i < em->vhash_size; i++) em->vhash_head[i] = -1;
    for (int i = 0; i < count; i++) {
        vec3_t p = em->vpos[i];
        uint32_t h = hash_cell((int64_t)floor(p.x), (int64_t)floor(p.y), (int64_t)floor(p.z)) & (em->vhash_size - 1);
        em->vhash_next[i] = em->vhash_head[h];
        em->vhash_head[h] = i;
    }
}

int emit_vertex(qbsp_t *q, vec3_t p, bool noweld)
{
    qbsp_emit_t *em = emit_get(q);
    bsp_t *bsp = &q->bsp;
    p = vec3(snap_coord(p.x), snap_coord(p.y), snap_coord(p.z));
    if (!noweld && em->vhash_head) {
        /* Cells are one unit; a point within WELD_EPSILON of another is in
         * the same cell or a neighbour when it is near the cell's side. */
        int64_t c[3] = {(int64_t)floor(p.x), (int64_t)floor(p.y), (int64_t)floor(p.z)};
        int lo[3], hi[3];
        for (int a = 0; a < 3; a++) {
            double v = vec_comp(p, a), f = v - floor(v);
            lo[a] = f < WELD_EPSILON ? -1 : 0;
            hi[a] = f > 1.0 - WELD_EPSILON ? 1 : 0;
        }
        for (int dx = lo[0]; dx <= hi[0]; dx++)
            for (int dy = lo[1]; dy <= hi[1]; dy++)
                for (int dz = lo[2]; dz <= hi[2]; dz++) {
                    uint32_t h = hash_cell(c[0] + dx, c[1] + dy, c[2] + dz) & (em->vhash_size - 1);
                    for (int i = em->vhash_head[h]; i >= 0; i = em->vhash_next[i])
                        if ((i > 0 || !em->vertex0_reserved) && vec_equal_eps(em->vpos[i], p, WELD_EPSILON)) return i;
                }
    }
    int n = bsp->numvertexes;
    if (n + 1 > em->cap_vertexes) {
        int cap = em->cap_vertexes;
        em->vpos = q2_grow(em->vpos, sizeof *em->vpos, &cap, n + 1);
        cap = em->cap_vertexes;
        bsp->vertexes = q2_grow(bsp->vertexes, sizeof *bsp->vertexes, &cap, n + 1);
        cap = em->cap_vertexes;
        em->vhash_next = q2_grow(em->vhash_next, sizeof(int), &cap, n + 1);
        em->cap_vertexes = cap;
    }
    em->vpos[n] = p;
    bsp->vertexes[n].point[0] = float_for_file(p.x);
    bsp->vertexes[n].point[1] = float_for_file(p.y);
    bsp->vertexes[n].point[2] = float_for_file(p.z);
    bsp->numvertexes = n + 1;
    if (!em->vhash_head || n + 1 > em->vhash_size) {
        vhash_rebuild(em, n + 1);
    } else {
        uint32_t h = hash_cell((int64_t)floor(p.x), (int64_t)floor(p.y), (int64_t)floor(p.z)) & (em->vhash_size - 1);
        em->vhash_next[n] = em->vhash_head[h];
        em->vhash_head[h] = n;
    }
    return n;
}

/* ------------------------------------------------------------ gathering */

typedef struct facelist_t {
    face_t **f;
    node_t **node;
    int n, cap, cap2;
} facelist_t;

static void gather_r(node_t *node, facelist_t *fl)
{
    if (!node || node->planenum == PLANENUM_LEAF) return;
    for (face_t *f = node->faces; f; f = f->next) {
        if (!face_is_final(f) || !f->w || f->w->numpoints < 3) continue;
        int n2 = fl->n;
        ARRAY_PUSH(fl->f, fl->n, fl->cap, f);
        ARRAY_PUSH(fl->node, n2, fl->cap2, node);
    }
    gather_r(node->children[0], fl);
    gather_r(node->children[1], fl);
}

/* A uniform grid over the model's vertices for the on-edge search. */
#define TJ_CELL 64.0

/* A grid entry: the vertex, its position and its cell (the same floor of
 * position / TJ_CELL that placed it), so the search compares integers
 * instead of dividing, and reads one record instead of em->vpos. */
typedef struct vgrid_ent_t {
    double x, y, z;
    int64_t cx, cy, cz;
    int v;
} vgrid_ent_t;

typedef struct vgrid_t {
    /* the entries whose cell hashes to h: ent[start[h]] up to ent[start[h + 1]],
     * in the order of verts, one after another in memory */
    int *start, size;
    vgrid_ent_t *ent;
    int *verts, nverts; /* distinct vertex numbers of the model */
} vgrid_t;

static uint32_t cell_of(const vgrid_t *g, int64_t x, int64_t y, int64_t z)
{
    return hash_cell(x, y, z) & (g->size - 1);
}

static int cmp_double_idx(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* Which faces' vertices a face takes into its edges, as in ericw-tools:
 * opaque faces weld with opaque ones, translucent faces (TRANS33/TRANS66
 * or a translucent brush: water, windows) with translucent ones, and
 * func_detail_wall faces only with each other. A seam between groups is
 * left as it is: a translucent face drawn over an opaque one does not
 * show the sparkle, and a face gains no vertices from a neighbour of
 * another kind (ericw-tools' tjuncMatrix: a solid floor takes none from
 * the water or window standing on it, nor from a detail wall). */
enum { WELD_OPAQUE, WELD_TRANSLUCENT, WELD_DETAIL_WALL, NUM_WELD_GROUPS };

static int weld_group(const qbsp_t *q, const face_t *f)
{
    const mapbrush_t *b = f->brush;
    if (b && b->detail_wall) return WELD_DETAIL_WALL;
    int flags = (f->texinfo >= 0 && f->texinfo < q->numtexinfo) ? q->texinfo[f->texinfo].flags : 0;
    if ((b && (b->contents & CONTENTS_TRANSLUCENT)) || (flags & (SURF_TRANS33 | SURF_TRANS66))) return WELD_TRANSLUCENT;
    return WELD_OPAQUE;
}

/* Fills out[] with the face's vertices plus every vertex of its weld
 * group's grid lying inside one of its edges, in order; returns the count
 * (capped at maxout). */
#define TJ_MAX_HITS 256
static int fix_face(const qbsp_emit_t *em, const vgrid_t *g, const face_t *f, int *out, int maxout)
{
    int n = 0;
    double hits[TJ_MAX_HITS][2];
    for (int k = 0; k < f->numpoints; k++) {
        int va = f->vertexnums[k], vb = f->vertexnums[(k + 1) % f->numpoints];
        if (n < maxout) out[n++] = va;
        vec3_t a = em->vpos[va], b = em->vpos[vb];
        double len;
        vec3_t dir = vec_normalize(vec_sub(b, a), &len);
        if (len < 2 * TJUNC_EPSILON) continue;
        vec3_t mn = vec_min(a, b), mx = vec_max(a, b);
        int64_t c0[3], c1[3];
        for (int ax = 0; ax < 3; ax++) {
            c0[ax] = (int64_t)floor((vec_comp(mn, ax) - TJUNC_EPSILON) / TJ_CELL);
            c1[ax] = (int64_t)floor((vec_comp(mx, ax) + TJUNC_EPSILON) / TJ_CELL);
        }
        int nh = 0;
        for (int64_t x = c0[0]; x <= c1[0]; x++)
            for (int64_t y = c0[1]; y <= c1[1]; y++)
                for (int64_t z = c0[2]; z <= c1[2]; z++) {
                    const uint32_t h = cell_of(g, x, y, z);
                    for (int i = g->start[h]; i < g->start[h + 1]; i++) {
                        const vgrid_ent_t *e = &g->ent[i];
                        int v = e->v;
                        if (v == va || v == vb) continue;
                        vec3_t p = vec3(e->x, e->y, e->z);
                        if (p.x < mn.x - TJUNC_EPSILON || p.y < mn.y - TJUNC_EPSILON || p.z < mn.z - TJUNC_EPSILON ||
                            p.x > mx.x + TJUNC_EPSILON || p.y > mx.y + TJUNC_EPSILON || p.z > mx.z + TJUNC_EPSILON)
                            continue;
                        /* Hash collisions bring vertices of other cells. */
                        if (e->cx != x || e->cy != y || e->cz != z) continue;
                        vec3_t d = vec_sub(p, a);
                        double t = vec_dot(d, dir);
                        if (t <= TJUNC_EPSILON || t >= len - TJUNC_EPSILON) continue;
                        vec3_t off = vec_ma(d, -t, dir);
                        if (vec_dot(off, off) > TJUNC_EPSILON * TJUNC_EPSILON) continue;
                        bool dup = false;
                        for (int h = 0; h < nh; h++)
                            if ((int)hits[h][1] == v) dup = true;
                        if (dup || nh == TJ_MAX_HITS) continue;
                        hits[nh][0] = t;
                        hits[nh][1] = v;
                        nh++;
                    }
                }
        if (nh > 1) qsort(hits, nh, sizeof *hits, cmp_double_idx);
        /* Unwelded vertices (-noweld) can repeat a position; one will do. */
        double last_t = 0;
        for (int h = 0; h < nh && n < maxout; h++) {
            if (h > 0 && hits[h][0] - last_t < TJUNC_EPSILON) continue;
            last_t = hits[h][0];
            out[n++] = (int)hits[h][1];
        }
    }
    return n;
}

/* fix_face's points in a block of their own: *n of them at *v. */
static void fix_face_into(const qbsp_emit_t *em, const vgrid_t *g, const face_t *f, int *n, int **v)
{
    int buf[MAX_FACE_POINTS * 4];
    *n = fix_face(em, g, f, buf, MAX_FACE_POINTS * 4);
    *v = q2_malloc(sizeof(int) * (size_t)*n);
    memcpy(*v, buf, sizeof(int) * (size_t)*n);
}

static bool colinear_at(const qbsp_emit_t *em, const int *v, int n, int i)
{
    vec3_t a = em->vpos[v[(i + n - 1) % n]], b = em->vpos[v[i]], c = em->vpos[v[(i + 1) % n]];
    double len;
    vec3_t dir = vec_normalize(vec_sub(c, a), &len);
    vec3_t d = vec_sub(b, a);
    vec3_t off = vec_ma(d, -vec_dot(d, dir), dir);
    return vec_dot(off, off) < TJUNC_EPSILON * TJUNC_EPSILON;
}

/* Splits a face whose outline grew past MAX_FACE_POINTS into a chain of
 * pieces cut along chords between its vertices, starting at a true corner
 * so that no chord runs along an edge. */
static void split_oversize(qbsp_t *q, node_t *node, face_t *f, const int *verts, int n)
{
    qbsp_emit_t *em = emit_get(q);
    int start = 0;
    for (int i = 0; i < n; i++)
        if (!colinear_at(em, verts, n, i)) {
            start = i;
            break;
        }
    int *ring = q2_malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) ring[i] = verts[(start + i) % n];
    /* Remaining polygon: ring[0], ring[base .. n-1]. */
    int base = 1;
    face_t *parent = f;
    int remaining = n;
    while (remaining > MAX_FACE_POINTS) {
        face_t *piece = emit_new_face(q);
        face_t *rest = emit_new_face(q);
        *piece = *f;
        piece->merged = NULL;
        piece->split[0] = piece->split[1] = NULL;
        piece->w = NULL;
        piece->outputnumber = -1;
        *rest = *piece;
        piece->numpoints = MAX_FACE_POINTS;
        piece->vertexnums = emit_vertexnums(q, MAX_FACE_POINTS);
        piece->vertexnums[0] = ring[0];
        for (int i = 1; i < MAX_FACE_POINTS; i++) piece->vertexnums[i] = ring[base + i - 1];
        /* The piece ends at ring[base + MAX-2]; the rest keeps ring[0] and
         * continues from there. */
        base += MAX_FACE_POINTS - 2;
        remaining -= MAX_FACE_POINTS - 2;
        parent->split[0] = piece;
        parent->split[1] = rest;
        piece->next = node->faces;
        node->faces = piece;
        parent = rest;
    }
    parent->numpoints = remaining;
    parent->vertexnums = emit_vertexnums(q, remaining);
    parent->vertexnums[0] = ring[0];
    for (int i = 1; i < remaining; i++) parent->vertexnums[i] = ring[base + i - 1];
    if (parent != f) {
        parent->next = node->faces;
        node->faces = parent;
    }
    free(ring);
}

void faces_fix_tjunctions(qbsp_t *q, tree_t *tree)
{
    if (!tree || !tree->headnode) return;
    qbsp_emit_t *em = emit_get(q);
    facelist_t fl = {0};
    gather_r(tree->headnode, &fl);

    /* Weld, in tree order so numbering is deterministic. */
    int firstvert = q->bsp.numvertexes;
    for (int i = 0; i < fl.n; i++) {
        face_t *f = fl.f[i];
        int n = 0;
        int np = f->w->numpoints;
        if (np > MAX_FACE_POINTS * 4) {
            log_warn(q->log, "face with %d points on plane %d cut to %d points", np, f->planenum, MAX_FACE_POINTS * 4);
            np = MAX_FACE_POINTS * 4;
        }
        f->vertexnums = emit_vertexnums(q, np);
        for (int k = 0; k < np; k++) {
            int v = emit_vertex(q, f->w->p[k], q->opt.noweld);
            /* Welding can fold neighbouring points together. */
            if (n > 0 && f->vertexnums[n - 1] == v) continue;
            f->vertexnums[n++] = v;
        }
        while (n > 1 && f->vertexnums[n - 1] == f->vertexnums[0]) n--;
        f->numpoints = n;
    }
    (void)firstvert;

    if (!q->opt.notjunc && fl.n > 0) {
        int *group = q2_malloc(sizeof(int) * (size_t)fl.n);
        for (int i = 0; i < fl.n; i++) group[i] = weld_group(q, fl.f[i]);
        vgrid_t grids[NUM_WELD_GROUPS];
        memset(grids, 0, sizeof grids);
        char *seen = q2_malloc(q->bsp.numvertexes > 0 ? (size_t)q->bsp.numvertexes : 1);
        for (int gi = 0; gi < NUM_WELD_GROUPS; gi++) {
            vgrid_t *g = &grids[gi];
            /* Distinct vertices used by this model's faces of the group. */
            memset(seen, 0, q->bsp.numvertexes > 0 ? (size_t)q->bsp.numvertexes : 1);
            int capv = 0;
            for (int i = 0; i < fl.n; i++) {
                if (group[i] != gi) continue;
                for (int k = 0; k < fl.f[i]->numpoints; k++) {
                    int v = fl.f[i]->vertexnums[k];
                    if (seen[v]) continue;
                    seen[v] = 1;
                    ARRAY_PUSH(g->verts, g->nverts, capv, v);
                }
            }
            g->size = 1024;
            while (g->size < g->nverts) g->size <<= 1;
            /* a counting sort of the entries by hashed cell, keeping their order */
            g->start = q2_calloc((size_t)g->size + 1, sizeof(int));
            g->ent = q2_malloc(sizeof *g->ent * (size_t)(g->nverts > 0 ? g->nverts : 1));
            uint32_t *hv = q2_malloc(sizeof *hv * (size_t)(g->nverts > 0 ? g->nverts : 1));
            for (int i = 0; i < g->nverts; i++) {
                vec3_t p = em->vpos[g->verts[i]];
                vgrid_ent_t e = {p.x, p.y, p.z, (int64_t)floor(p.x / TJ_CELL), (int64_t)floor(p.y / TJ_CELL),
                                 (int64_t)floor(p.z / TJ_CELL), g->verts[i]};
                hv[i] = cell_of(g, e.cx, e.cy, e.cz);
                g->start[hv[i] + 1]++;
                g->ent[i] = e;
            }
            for (int h = 0; h < g->size; h++) g->start[h + 1] += g->start[h];
            vgrid_ent_t *sorted = q2_malloc(sizeof *sorted * (size_t)(g->nverts > 0 ? g->nverts : 1));
            int *fill = q2_malloc(sizeof(int) * (size_t)g->size);
            memcpy(fill, g->start, sizeof(int) * (size_t)g->size);
            for (int i = 0; i < g->nverts; i++) sorted[fill[hv[i]]++] = g->ent[i];
            free(fill);
            free(hv);
            free(g->ent);
            g->ent = sorted;
        }
        free(seen);

        int **newv = q2_malloc(sizeof *newv * fl.n);
        int *newn = q2_malloc(sizeof(int) * fl.n);
        int nfaces = fl.n;
        const vgrid_t *cgrids = grids;
        const int *cgroup = group;
        face_t *const *faces = fl.f;
        if (threads_in_team()) {
            /* Called from a task of a running team (the world's emission
             * beside its .prt): tasks, which a thread done with its own
             * part takes up. */
            /* (an unsigned counter: clang 14 warns about its own code for
             * a signed one) */
            const unsigned nf = (unsigned)nfaces;
#pragma omp taskloop grainsize(64) default(none) shared(em, cgrids, cgroup, faces, newn, newv) firstprivate(nf) \
    if (nf > 2048)
            for (unsigned i = 0; i < nf; i++) fix_face_into(em, &cgrids[cgroup[i]], faces[i], &newn[i], &newv[i]);
        } else {
#pragma omp parallel for schedule(dynamic, 64) num_threads(q->opt.threads > 0 ? q->opt.threads : 1) \
    if (nfaces > 2048) default(none) shared(em, cgrids, cgroup, faces, newn, newv, nfaces)
            for (int i = 0; i < nfaces; i++) fix_face_into(em, &cgrids[cgroup[i]], faces[i], &newn[i], &newv[i]);
        }

        int added = 0, splits = 0;
        for (int i = 0; i < fl.n; i++) {
            face_t *f = fl.f[i];
            added += newn[i] - f->numpoints;
            if (newn[i] > MAX_FACE_POINTS) {
                split_oversize(q, fl.node[i], f, newv[i], newn[i]);
                splits++;
            } else {
                if (newn[i] > f->numpoints) f->vertexnums = emit_vertexnums(q, newn[i]);
                memcpy(f->vertexnums, newv[i], sizeof(int) * newn[i]);
                f->numpoints = newn[i];
            }
        }
        log_verbose(q->log, "%6d T-junction vertices inserted, %d faces split for size", added, splits);
        for (int i = 0; i < fl.n; i++) free(newv[i]);
        free(newv);
        free(newn);
        for (int gi = 0; gi < NUM_WELD_GROUPS; gi++) {
            free(grids[gi].start);
            free(grids[gi].ent);
            free(grids[gi].verts);
        }
        free(group);
    }
    free(fl.f);
    free(fl.node);
}
