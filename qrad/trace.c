/* Ray tracing for qrad: a bounding volume hierarchy over the triangles of
 * the world model's faces, and point queries through the bsp tree.
 *
 * Faces rather than the bsp tree are traced because the light stages need to
 * know WHAT a ray hit (a sky face lets the sun in; a bounce ray needs the
 * face and point it lands on), which the tree alone does not tell. Faces
 * that do not stop light in Quake 2 (translucent windows, liquid surfaces)
 * are left out. Bmodels cast no shadows, as in qrad3, unless their entity
 * asks (_shadow, _shadowself, _shadowworldonly): their faces, at the
 * entity's origin, go into a second hierarchy tested after the world's. */
#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "models.h"
#include "qrad.h"
#include "../common/cpu.h"
#include "../common/dist.h"
#include "../common/mem.h"
#include "../formats/visrle.h"

/* The hierarchies' tests on SSE2 vectors where x86-64 has them (and not
 * in the build that compares the plain forms). */
#if defined(__SSE2__) && !defined(Q2MAP_WIDE_PORTABLE)
#define WIDE_SSE 1
#include <emmintrin.h>
#endif
/* The hierarchy's walks for the sky's rays (trace_sky_dir) and closest
 * hits (trace_closest) also in AVX2 forms where the CPU has them
 * (common/cpu.h, tracer_t.wide_avx2): eight box lanes in one test, four
 * triangles in one. */
#if defined(WIDE_SSE) && defined(Q2_AVX2_FORMS)
#define TRACE_AVX2 1
#include <immintrin.h>
#endif

/* A dome ray's seen face is tried only with this many triangles or fewer
 * (seen_dists). */
#define SEEN_MAX 16

/* A triangle's corner v0 and edges e1, e2, coordinate by coordinate
 * (c[0..2] v0, c[3..5] e1, c[6..8] e2), each in lane 0 beside the same
 * coordinate of the next triangle of its array in lane 1 (its own again
 * for the last), so two triangles of a leaf are tested at once. */
struct rtri_t {
    double c[9][2];
    int face;
    int rank; /* its index in the world hierarchy's triangles: ties between equal distances go to the lower */
};

/* Corner (k 0), first edge (1) or second edge (2). */
static inline vec3_t tri_vec(const rtri_t *tr, int k)
{
    return vec3(tr->c[3 * k][0], tr->c[3 * k + 1][0], tr->c[3 * k + 2][0]);
}

static inline void tri_set(rtri_t *tr, int k, vec3_t v)
{
    for (int ax = 0; ax < 3; ax++) tr->c[3 * k + ax][0] = tr->c[3 * k + ax][1] = vec_comp(v, ax);
}

/* Lane 1 of each triangle, once the array's order is final. */
static void tri_lanes(rtri_t *tris, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 9; k++) tris[i].c[k][1] = tris[i + 1 < n ? i + 1 : i].c[k][0];
}

#define BVH_LEAF_MAX 4

/* The binary hierarchy the build makes. Boxes in single precision,
 * rounded outwards; triangle tests stay in double. */
typedef struct bin_node_t {
    float mins[3], maxs[3];
    int first; /* leaf: first triangle; inner: right child (left is next) */
    int count; /* leaf: triangles; inner: split axis */
} bin_node_t;

typedef struct build_item_t {
    vec3_t c;
    aabb_t b;
    int tri;
} build_item_t;

typedef struct builder_t {
    bin_node_t *nodes;
    int numnodes, cap;
} builder_t;

static inline void box_add(aabb_t *a, const aabb_t *b)
{
    a->mins = vec_min(a->mins, b->mins);
    a->maxs = vec_max(a->maxs, b->maxs);
}

static double aabb_area(const aabb_t *b)
{
    vec3_t d = vec_sub(b->maxs, b->mins);
    return d.x * d.y + d.y * d.z + d.z * d.x;
}

/* The hierarchy is the one a plain top-down build makes: at each node the
 * items sorted on the longest axis of their centroids' box (ties by
 * triangle index, so the order is unique), split where the surface area
 * heuristic over the prefix and suffix boxes is least, nodes numbered
 * depth first with the left child next to its parent. Instead of sorting at
 * every node, the items are sorted once on each axis and every split
 * partitions the three lists stably, which keeps each node's lists in the
 * order a sort would give; and the subtrees under the top levels are built
 * by the rank's threads, each into its own array, then laid out in the
 * depth-first order. Every node's box is computed over its items in the
 * order the plain build sees them (its parent's sort), so the tree, the
 * triangle order and every ray's answer are the plain build's. */
typedef struct presort_t {
    const build_item_t *items; /* by triangle, never moved */
    int *list[3];              /* per axis: each node's range sorted on that axis */
    int *tmp;                  /* scratch, at the same positions */
    uint8_t *left;             /* per triangle: goes to the left child of the node being split */
    int *order;                /* triangle at each final position */
} presort_t;

/* The items of [first, first + count) in the order the plain build holds
 * them on entering the node: its parent's sort (the input order at the root). */
static inline int node_item(const presort_t *ps, int paxis, int k) { return paxis < 0 ? k : ps->list[paxis][k]; }

/* Fills node `node` for the range; returns its split (0: a leaf) and the
 * axis its children's ranges are sorted on. */
static int split_node(presort_t *ps, bin_node_t *node, int first, int count, int paxis, int *axis_out)
{
    aabb_t box = aabb_empty(), cbox = aabb_empty();
    for (int k = first; k < first + count; k++) {
        const build_item_t *it = &ps->items[node_item(ps, paxis, k)];
        box_add(&box, &it->b);
        aabb_add_point(&cbox, it->c);
    }
    for (int ax = 0; ax < 3; ax++) {
        node->mins[ax] = nextafterf((float)vec_comp(box.mins, ax), -INFINITY);
        node->maxs[ax] = nextafterf((float)vec_comp(box.maxs, ax), INFINITY);
    }
    if (count <= BVH_LEAF_MAX) {
        node->first = first;
        node->count = count;
        for (int k = first; k < first + count; k++) ps->order[k] = node_item(ps, paxis, k);
        return 0;
    }
    vec3_t ext = vec_sub(cbox.maxs, cbox.mins);
    int axis = ext.x >= ext.y && ext.x >= ext.z ? 0 : ext.y >= ext.z ? 1 : 2;
    const int *la = ps->list[axis];
    /* SAH over prefix/suffix boxes. */
    double *right = q2_malloc(sizeof(double) * count);
    aabb_t acc = aabb_empty();
    for (int i = count - 1; i > 0; i--) {
        const build_item_t *it = &ps->items[la[first + i]];
        box_add(&acc, &it->b);
        right[i] = aabb_area(&acc) * (count - i);
    }
    acc = aabb_empty();
    double best = DBL_MAX;
    int split = count / 2;
    for (int i = 1; i < count; i++) {
        const build_item_t *it = &ps->items[la[first + i - 1]];
        box_add(&acc, &it->b);
        double cost = aabb_area(&acc) * i + right[i];
        if (cost < best) {
            best = cost;
            split = i;
        }
    }
    free(right);
    node->count = -1 - axis;
    for (int i = 0; i < count; i++) ps->left[la[first + i]] = i < split;
    for (int ax = 0; ax < 3; ax++) {
        if (ax == axis) continue;
        int *l = ps->list[ax], *t = ps->tmp, nl = first, nr = first + split;
        for (int k = first; k < first + count; k++) t[ps->left[l[k]] ? nl++ : nr++] = l[k];
        memcpy(l + first, t + first, sizeof(int) * (size_t)count);
    }
    *axis_out = axis;
    return split;
}

/* A node of at least this many triangles (the top few levels) is split by
 * all the rank's threads at once, in BVH_PAR_CHUNKS ranges: every pass of
 * split_node (the boxes, the SAH sums from both ends, the partitions) is a
 * min/max union, an argmin or a stable scatter, so by range gives exactly
 * what one thread gives, and the tree is the same. */
#define BVH_PAR_SPLIT 2048
#define BVH_PAR_CHUNKS 64

typedef struct par_split_t {
    int count;
    aabb_t box[BVH_PAR_CHUNKS], cbox[BVH_PAR_CHUNKS]; /* per range: its items' boxes, centroids */
    double best[BVH_PAR_CHUNKS];
    int besti[BVH_PAR_CHUNKS], nleft[BVH_PAR_CHUNKS];
} par_split_t;

static inline int chunk_lo(const par_split_t *x, int c) { return (int)((long)x->count * c / BVH_PAR_CHUNKS); }

static int split_node_par(presort_t *ps, bin_node_t *node, int first, int count, int paxis, int *axis_out, int threads,
                          dist_t *d)
{
    par_split_t *x = q2_calloc(1, sizeof *x);
    x->count = count;
    double *right = q2_malloc(sizeof(double) * (size_t)count);
    /* the boxes of each range, in the parent's order, then of the node */
    dist_local_t *lt = dist_local_begin(d, BVH_PAR_CHUNKS);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int c = 0; c < BVH_PAR_CHUNKS; c++) {
        double t0 = dist_local_start(lt);
        aabb_t b = aabb_empty(), cb = aabb_empty();
        for (int k = chunk_lo(x, c); k < chunk_lo(x, c + 1); k++) {
            const build_item_t *it = &ps->items[node_item(ps, paxis, first + k)];
            box_add(&b, &it->b);
            aabb_add_point(&cb, it->c);
        }
        x->box[c] = b;
        x->cbox[c] = cb;
        dist_local_done(lt, c, t0);
    }
    dist_local_end(lt);
    aabb_t box = aabb_empty(), cbox = aabb_empty();
    for (int c = 0; c < BVH_PAR_CHUNKS; c++) {
        box_add(&box, &x->box[c]);
        box_add(&cbox, &x->cbox[c]);
    }
    for (int ax = 0; ax < 3; ax++) {
        node->mins[ax] = nextafterf((float)vec_comp(box.mins, ax), -INFINITY);
        node->maxs[ax] = nextafterf((float)vec_comp(box.maxs, ax), INFINITY);
    }
    vec3_t ext = vec_sub(cbox.maxs, cbox.mins);
    int axis = ext.x >= ext.y && ext.x >= ext.z ? 0 : ext.y >= ext.z ? 1 : 2;
    const int *la = ps->list[axis];
    /* the ranges' boxes again, in the split axis's order */
    lt = dist_local_begin(d, BVH_PAR_CHUNKS);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int c = 0; c < BVH_PAR_CHUNKS; c++) {
        double t0 = dist_local_start(lt);
        aabb_t b = aabb_empty();
        for (int k = chunk_lo(x, c); k < chunk_lo(x, c + 1); k++) box_add(&b, &ps->items[la[first + k]].b);
        x->box[c] = b;
        dist_local_done(lt, c, t0);
    }
    dist_local_end(lt);
    /* SAH: right[i] over items [i, count), then the prefix from the left,
     * each range starting from the union of the ranges beyond it; the least
     * cost, the first position among equals */
    lt = dist_local_begin(d, BVH_PAR_CHUNKS);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int c = 0; c < BVH_PAR_CHUNKS; c++) {
        double t0 = dist_local_start(lt);
        int lo = chunk_lo(x, c), hi = chunk_lo(x, c + 1);
        aabb_t acc = aabb_empty();
        for (int k = c + 1; k < BVH_PAR_CHUNKS; k++) box_add(&acc, &x->box[k]);
        for (int i = hi - 1; i >= lo && i > 0; i--) {
            box_add(&acc, &ps->items[la[first + i]].b);
            right[i] = aabb_area(&acc) * (count - i);
        }
        dist_local_done(lt, c, t0);
    }
    dist_local_end(lt);
    lt = dist_local_begin(d, BVH_PAR_CHUNKS);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int c = 0; c < BVH_PAR_CHUNKS; c++) {
        double t0 = dist_local_start(lt);
        /* positions i in (lo, hi], each after item i - 1 of this range */
        int lo = chunk_lo(x, c), hi = chunk_lo(x, c + 1);
        aabb_t acc = aabb_empty();
        for (int k = 0; k < c; k++) box_add(&acc, &x->box[k]);
        x->best[c] = DBL_MAX;
        x->besti[c] = -1;
        for (int i = lo + 1; i <= hi && i < count; i++) {
            box_add(&acc, &ps->items[la[first + i - 1]].b);
            double cost = aabb_area(&acc) * i + right[i];
            if (cost < x->best[c]) {
                x->best[c] = cost;
                x->besti[c] = i;
            }
        }
        dist_local_done(lt, c, t0);
    }
    dist_local_end(lt);
    double best = DBL_MAX;
    int split = count / 2;
    for (int c = 0; c < BVH_PAR_CHUNKS; c++)
        if (x->besti[c] >= 0 && x->best[c] < best) {
            best = x->best[c];
            split = x->besti[c];
        }
    free(right);
    node->count = -1 - axis;
    /* the sides, then each other axis's list partitioned stably: each
     * range's left items after the left items of the ranges before it */
    lt = dist_local_begin(d, BVH_PAR_CHUNKS);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int c = 0; c < BVH_PAR_CHUNKS; c++) {
        double t0 = dist_local_start(lt);
        for (int i = chunk_lo(x, c); i < chunk_lo(x, c + 1); i++) ps->left[la[first + i]] = i < split;
        dist_local_done(lt, c, t0);
    }
    dist_local_end(lt);
    for (int ax = 0; ax < 3; ax++) {
        if (ax == axis) continue;
        int *l = ps->list[ax], *t = ps->tmp;
        for (int step = 0; step < 2; step++) {
            int base[BVH_PAR_CHUNKS];
            for (int c = 0, nl = 0; step == 1 && c < BVH_PAR_CHUNKS; c++) {
                base[c] = nl;
                nl += x->nleft[c];
            }
            lt = dist_local_begin(d, BVH_PAR_CHUNKS);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
            for (int c = 0; c < BVH_PAR_CHUNKS; c++) {
                double t0 = dist_local_start(lt);
                int lo = chunk_lo(x, c), hi = chunk_lo(x, c + 1);
                if (step == 0) {
                    int n = 0;
                    for (int k = lo; k < hi; k++) n += ps->left[l[first + k]];
                    x->nleft[c] = n;
                } else {
                    int nl = first + base[c], nr = first + split + (lo - base[c]);
                    for (int k = lo; k < hi; k++) {
                        int item = l[first + k];
                        t[ps->left[item] ? nl++ : nr++] = item;
                    }
                }
                dist_local_done(lt, c, t0);
            }
            dist_local_end(lt);
        }
        memcpy(l + first, t + first, sizeof(int) * (size_t)count);
    }
    free(x);
    *axis_out = axis;
    return split;
}

static int build_r(presort_t *ps, builder_t *bd, int first, int count, int paxis)
{
    int idx = bd->numnodes;
    bd->nodes = q2_grow(bd->nodes, sizeof *bd->nodes, &bd->cap, bd->numnodes + 1);
    bd->numnodes++;
    bin_node_t node;
    int axis = 0, split = split_node(ps, &node, first, count, paxis, &axis);
    bd->nodes[idx] = node;
    if (split == 0) return idx;
    build_r(ps, bd, first, split, axis);
    int r = build_r(ps, bd, first + split, count - split, axis);
    bd->nodes[idx].first = r;
    return idx;
}

/* The top levels, split level by level (the nodes of a level by the
 * rank's threads), before the threads take the subtrees under them: each
 * entry a node with two child entries, or a subtree of `count` items from
 * `first`. */
typedef struct top_entry_t {
    bool subtree;
    bin_node_t node;
    int child[2];
    int first, count, paxis;
    builder_t bd; /* the subtree's nodes, numbered from 0 */
    int base;     /* its first node's index in the whole tree */
} top_entry_t;

/* Depth-first numbering: a top node is one node, a subtree its own. */
static int number_r(top_entry_t *e, int i, int next)
{
    e[i].base = next;
    if (e[i].subtree) return next + e[i].bd.numnodes;
    next = number_r(e, e[i].child[0], next + 1);
    return number_r(e, e[i].child[1], next);
}

/* Sorted on one axis (three of these, one per axis, run at once): by the
 * centroid's coordinate, ties by triangle, as a least-significant-digit
 * radix sort of the coordinates' bit patterns made monotonic (negative
 * values flipped whole, the others' sign bit set; -0 counted as +0, which
 * compares equal), stable over the input's triangle order. */
static uint64_t order_key(double c)
{
    if (c == 0) c = 0; /* -0 == +0 */
    uint64_t u;
    memcpy(&u, &c, sizeof u);
    return u >> 63 ? ~u : u | (1ull << 63);
}

/* The three presorts at once, each pass of the radix sort over
 * PRESORT_CHUNKS ranges of each axis's list on the rank's threads: a
 * range's digit counts, then (in range order, so the sort stays stable)
 * where each range's items of each digit go, then the scatter. The same
 * order as one thread's least-significant-digit sort. */
#define PRESORT_CHUNKS 16

typedef struct presort_job_t {
    int n;
    uint64_t *key[3], *k2[3];
    int *out[3], *tmp[3];
    size_t (*count)[256]; /* [axis * PRESORT_CHUNKS + range][digit] */
} presort_job_t;

static inline int range_lo(int n, int c) { return (int)((long)n * c / PRESORT_CHUNKS); }

static void presort_axes(const build_item_t *items, int n, int *lists[3], int threads, dist_t *d)
{
    presort_job_t j = {.n = n};
    j.count = q2_calloc(3 * PRESORT_CHUNKS, sizeof *j.count);
    for (int ax = 0; ax < 3; ax++) {
        j.key[ax] = q2_malloc(sizeof(uint64_t) * (size_t)n * 2 + 1);
        j.k2[ax] = j.key[ax] + n;
        j.out[ax] = lists[ax];
        j.tmp[ax] = q2_malloc(sizeof(int) * (size_t)n + 1);
    }
    const int nw = 3 * PRESORT_CHUNKS;
    dist_local_t *lt = dist_local_begin(d, nw);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int w = 0; w < nw; w++) {
        double t0 = dist_local_start(lt);
        int ax = w / PRESORT_CHUNKS, c = w % PRESORT_CHUNKS;
        for (int i = range_lo(n, c); i < range_lo(n, c + 1); i++) {
            j.key[ax][i] = order_key(vec_comp(items[i].c, ax));
            j.out[ax][i] = i;
        }
        dist_local_done(lt, w, t0);
    }
    dist_local_end(lt);
    for (int shift = 0; shift < 64; shift += 8) {
        lt = dist_local_begin(d, nw);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (int w = 0; w < nw; w++) {
            double t0 = dist_local_start(lt);
            int ax = w / PRESORT_CHUNKS, c = w % PRESORT_CHUNKS;
            size_t *cnt = j.count[w];
            memset(cnt, 0, sizeof j.count[w]);
            for (int i = range_lo(n, c); i < range_lo(n, c + 1); i++) cnt[(j.key[ax][i] >> shift) & 0xff]++;
            dist_local_done(lt, w, t0);
        }
        dist_local_end(lt);
        /* per axis: a digit's items from range c go after those of the
         * smaller digits and of the ranges before c; an axis whose keys all
         * share the digit keeps its order */
        bool skip[3];
        for (int ax = 0; ax < 3; ax++) {
            size_t at = 0;
            int used = 0;
            for (int dg = 0; dg < 256; dg++) {
                size_t tot = 0;
                for (int c = 0; c < PRESORT_CHUNKS; c++) {
                    size_t k = j.count[ax * PRESORT_CHUNKS + c][dg];
                    j.count[ax * PRESORT_CHUNKS + c][dg] = at;
                    at += k;
                    tot += k;
                }
                used += tot > 0;
            }
            skip[ax] = used <= 1;
        }
        lt = dist_local_begin(d, nw);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (int w = 0; w < nw; w++) {
            double t0 = dist_local_start(lt);
            int ax = w / PRESORT_CHUNKS, c = w % PRESORT_CHUNKS;
            if (!skip[ax]) {
                size_t *pos = j.count[w];
                for (int i = range_lo(n, c); i < range_lo(n, c + 1); i++) {
                    size_t at = pos[(j.key[ax][i] >> shift) & 0xff]++;
                    j.k2[ax][at] = j.key[ax][i];
                    j.tmp[ax][at] = j.out[ax][i];
                }
            }
            dist_local_done(lt, w, t0);
        }
        dist_local_end(lt);
        for (int ax = 0; ax < 3; ax++) {
            if (skip[ax]) continue;
            uint64_t *k = j.key[ax];
            j.key[ax] = j.k2[ax];
            j.k2[ax] = k;
            int *o = j.out[ax];
            j.out[ax] = j.tmp[ax];
            j.tmp[ax] = o;
        }
    }
    for (int ax = 0; ax < 3; ax++) {
        /* the sorted order ends in whichever buffer the last pass wrote */
        if (j.out[ax] != lists[ax]) {
            memcpy(lists[ax], j.out[ax], sizeof(int) * (size_t)n);
            j.tmp[ax] = j.out[ax];
        }
        free(j.key[ax] < j.k2[ax] ? j.key[ax] : j.k2[ax]);
        free(j.tmp[ax]);
    }
    free(j.count);
}

/* Subtrees of at most this many triangles (or 1/BVH_SUBTREE_SHARE of them
 * all) go to the threads: enough of them for every thread to find work. */
#define BVH_SUBTREE_MIN 64
#define BVH_SUBTREE_SHARE 256

static void build_tree(const qrad_t *q, build_item_t *items, int n, bin_node_t **nodes_out, int *numnodes_out,
                       int *order)
{
    dist_t *d = q->opts->dist;
    int threads = q->opts->threads > 0 ? q->opts->threads : 1;
    presort_t ps = {items, {NULL, NULL, NULL}, q2_malloc(sizeof(int) * (size_t)n), q2_calloc((size_t)n, 1), order};
    for (int ax = 0; ax < 3; ax++) ps.list[ax] = q2_malloc(sizeof(int) * (size_t)n);
    presort_axes(items, n, ps.list, threads, d);
    int subtree_max = n / BVH_SUBTREE_SHARE > BVH_SUBTREE_MIN ? n / BVH_SUBTREE_SHARE : BVH_SUBTREE_MIN;
    top_entry_t *e = NULL;
    int ne = 0, cap = 0;
    top_entry_t root = {.first = 0, .count = n, .paxis = -1};
    ARRAY_PUSH(e, ne, cap, root);
    /* One level at a time: entries [lo, hi) are split at once. */
    for (int lo = 0, hi = 1; lo < hi; lo = hi, hi = ne) {
        /* the level's big nodes one after the other, each by all threads */
        for (int i = lo; i < hi; i++) {
            top_entry_t *x = &e[i];
            x->subtree = x->count <= subtree_max;
            if (!x->subtree && x->count >= BVH_PAR_SPLIT)
                x->child[0] = split_node_par(&ps, &x->node, x->first, x->count, x->paxis, &x->child[1], threads, d);
        }
        dist_local_t *lt = dist_local_begin(d, hi - lo);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (int i = lo; i < hi; i++) {
            double t0 = dist_local_start(lt);
            top_entry_t *x = &e[i];
            if (!x->subtree && x->count < BVH_PAR_SPLIT)
                x->child[0] = split_node(&ps, &x->node, x->first, x->count, x->paxis, &x->child[1]);
            dist_local_done(lt, i - lo, t0);
        }
        dist_local_end(lt);
        for (int i = lo; i < hi; i++) {
            if (e[i].subtree) continue;
            /* split_node left the split and the children's axis there */
            int split = e[i].child[0], axis = e[i].child[1];
            top_entry_t l = {.first = e[i].first, .count = split, .paxis = axis};
            top_entry_t r = {.first = e[i].first + split, .count = e[i].count - split, .paxis = axis};
            e[i].child[0] = ne;
            ARRAY_PUSH(e, ne, cap, l);
            e[i].child[1] = ne;
            ARRAY_PUSH(e, ne, cap, r);
        }
    }
    int *sub = q2_malloc(sizeof(int) * (size_t)ne), nsub = 0;
    for (int i = 0; i < ne; i++)
        if (e[i].subtree) sub[nsub++] = i;
    dist_local_t *lt = dist_local_begin(d, nsub);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int k = 0; k < nsub; k++) {
        double t0 = dist_local_start(lt);
        top_entry_t *x = &e[sub[k]];
        build_r(&ps, &x->bd, x->first, x->count, x->paxis);
        dist_local_done(lt, k, t0);
    }
    dist_local_end(lt);
    int total = number_r(e, 0, 0);
    /* Each entry's nodes go to their own place in the fresh array: on the
     * threads, which take its page faults. */
    bin_node_t *nodes = q2_malloc(sizeof *nodes * (size_t)(total > 0 ? total : 1));
    lt = dist_local_begin(d, ne);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int i = 0; i < ne; i++) {
        double t0 = dist_local_start(lt);
        top_entry_t *x = &e[i];
        if (!x->subtree) {
            nodes[x->base] = x->node;
            nodes[x->base].first = e[x->child[1]].base;
        } else {
            for (int k = 0; k < x->bd.numnodes; k++) {
                bin_node_t nd = x->bd.nodes[k];
                if (nd.count < 0) nd.first += x->base;
                nodes[x->base + k] = nd;
            }
            free(x->bd.nodes);
        }
        dist_local_done(lt, i, t0);
    }
    dist_local_end(lt);
    free(e);
    free(sub);
    for (int ax = 0; ax < 3; ax++) free(ps.list[ax]);
    free(ps.tmp);
    free(ps.left);
    *nodes_out = nodes;
    *numnodes_out = total;
}

/* What rays traverse: the binary tree collapsed to nodes of up to eight
 * children, their boxes stored axis by axis so one ray meets all eight in
 * a few vector operations (two halves of four on SSE). A child is a wide
 * node (>= 0) or a leaf (WIDE_LEAF: its first triangle and count). Eight
 * rather than four: the dome's rays on spirit2dm4 with ericw-tools' sun
 * keys, replayed alone on one thread, take 5% less time; the answers
 * do not depend on the width (see any_hit_ray and nearest). */
#define WIDE 8
_Static_assert(WIDE % 4 == 0, "the SSE box test takes four lanes at a time");
#define WIDE_LEAF(first, count) (-1 - ((first) << 3 | (count)))
#define WIDE_LEAF_FIRST(c) ((-1 - (c)) >> 3)
#define WIDE_LEAF_COUNT(c) ((-1 - (c)) & 7)
_Static_assert(BVH_LEAF_MAX < 8, "a leaf's count takes three bits of WIDE_LEAF");

/* The wide boxes are the binary ones grown by this many units, which keeps
 * the single-precision slab test conservative (it never drops a box a ray
 * enters before its best hit so far). Coordinates are within WORLD_EXTENT
 * and distances within 2 * WORLD_EXTENT: the origin's rounding to float
 * moves the ray by at most 65536 * 2^-24 = 0.004 along each axis, and the
 * three roundings of a slab distance (the difference, the reciprocal, the
 * product) err by at most 3 * 2^-24 * 131072 = 0.023; a pad of 1/16 leaves
 * every entry and exit time at least 0.03 to the safe side of the hit. */
#define WIDE_BOX_PAD 0.0625

/* bmin then bmax, axis by axis: as one array, box side s (0 min, 1 max)
 * of axis ax is lanes [3 WIDE s + WIDE ax, + WIDE). Lanes past nchild hold
 * an empty box (mins FLT_MAX, maxs -FLT_MAX) that no ray enters. Padded
 * to four cache lines. */
struct bvh_node_t {
    float bmin[3][WIDE], bmax[3][WIDE];
    int child[WIDE];
    int nchild;
    int pad_[7];
};
_Static_assert(sizeof(struct bvh_node_t) == 256, "a wide node is four cache lines");

/* nextafterf(f, +-INFINITY) for any f but NaN and the infinity it goes
 * towards, on the bits. */
static inline float float_up(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u = f == 0 ? 1u : u >> 31 ? u - 1 : u + 1;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline float float_down(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u = f == 0 ? 0x80000001u : u >> 31 ? u + 1 : u - 1;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline float round_down(double x)
{
    float f = (float)x;
    return (double)f > x ? float_down(f) : f;
}

static inline float round_up(double x)
{
    float f = (float)x;
    return (double)f < x ? float_up(f) : f;
}

static double bin_area(const bin_node_t *n)
{
    double dx = n->maxs[0] - n->mins[0], dy = n->maxs[1] - n->mins[1], dz = n->maxs[2] - n->mins[2];
    return dx * dy + dy * dz + dz * dx;
}

/* Each wide node takes a binary node's two children, then opens the inner
 * child of largest area (the first of equals) until it has eight: the
 * usual collapse, which keeps the binary tree's boxes and leaves. Numbered
 * as found, depth first, so a node's children sit near it. */
static bvh_node_t *collapse_tree(const bin_node_t *bin, int numbin, int *numwide_out)
{
    int cap = numbin / 2 + 1, nw = 0;
    bvh_node_t *w = q2_malloc(sizeof *w * (size_t)cap);
    int *stack = q2_malloc(sizeof(int) * (size_t)(2 * numbin + 2)), sp = 0; /* pairs: wide, binary */
    memset(&w[0], 0, sizeof w[0]);
    nw = 1;
    stack[sp++] = 0;
    stack[sp++] = 0;
    while (sp) {
        int b = stack[--sp], wi = stack[--sp];
        int slot[WIDE], ns = 0;
        if (bin[b].count > 0) {
            slot[ns++] = b; /* a leaf at the root */
        } else {
            slot[ns++] = b + 1;
            slot[ns++] = bin[b].first;
            while (ns < WIDE) {
                int pick = -1;
                double best = -1;
                for (int k = 0; k < ns; k++)
                    if (bin[slot[k]].count <= 0 && bin_area(&bin[slot[k]]) > best) {
                        best = bin_area(&bin[slot[k]]);
                        pick = k;
                    }
                if (pick < 0) break;
                int open = slot[pick];
                slot[pick] = open + 1;
                slot[ns++] = bin[open].first;
            }
        }
        /* w may move while children are added: fill a copy */
        bvh_node_t nd;
        memset(&nd, 0, sizeof nd);
        nd.nchild = ns;
        for (int k = 0; k < WIDE; k++) {
            const bin_node_t *c = &bin[slot[k < ns ? k : 0]];
            for (int ax = 0; ax < 3; ax++) {
                nd.bmin[ax][k] = k < ns ? round_down(c->mins[ax] - WIDE_BOX_PAD) : FLT_MAX;
                nd.bmax[ax][k] = k < ns ? round_up(c->maxs[ax] + WIDE_BOX_PAD) : -FLT_MAX;
            }
        }
        for (int k = 0; k < ns; k++) {
            const bin_node_t *c = &bin[slot[k]];
            if (c->count > 0) {
                nd.child[k] = WIDE_LEAF(c->first, c->count);
            } else {
                w = q2_grow(w, sizeof *w, &cap, nw + 1);
                nd.child[k] = nw++;
                stack[sp++] = nd.child[k];
                stack[sp++] = slot[k];
            }
        }
        w[wi] = nd;
    }
    free(stack);
    *numwide_out = nw;
    /* on cache lines: a node is four */
    bvh_node_t *out = q2_aligned_alloc(64, sizeof *out * (size_t)(nw > 0 ? nw : 1));
    memcpy(out, w, sizeof *out * (size_t)nw);
    free(w);
    return out;
}

static bool face_blocks_light(const qrad_t *q, int f)
{
    const rface_t *rf = &q->faces[f];
    if (rf->model != 0 || rf->numpoints < 3) return false;
    if (rf->texflags & (SURF_TRANS33 | SURF_TRANS66)) return false;
    if ((rf->texflags & SURF_WARP) && !(rf->texflags & SURF_SKY)) return false;
    return true;
}

/* Faces of bmodels with _shadow or _shadowself, which block light as the
 * world's do (windows and liquids still let it through). */
static bool face_casts_model_shadow(const qrad_t *q, int f)
{
    const rface_t *rf = &q->faces[f];
    if (rf->model == 0 || rf->numpoints < 3 || !q->mkeys) return false;
    const model_keys_t *k = &q->mkeys[rf->model];
    if (!k->shadow && !k->shadowself) return false;
    if (rf->texflags & (SURF_TRANS33 | SURF_TRANS66)) return false;
    if ((rf->texflags & SURF_WARP) && !(rf->texflags & SURF_SKY)) return false;
    return true;
}

static bool build_over(tracer_t *t, const qrad_t *q, bool (*want)(const qrad_t *, int), q2err_t *err);
static void index_faces(tracer_t *t, int numfaces);

static void build_sky(tracer_t *t, const qrad_t *q);
static void link_nodes(tracer_t *t);
static void pair_faces(tracer_t *t);

bool tracer_build(tracer_t *t, const qrad_t *q, q2err_t *err)
{
    if (!build_over(t, q, face_blocks_light, err)) return false;
    build_sky(t, q);
    /* the dome's seen faces and nodes (trace_sky_dir) are the world's */
    if (t->numtris > 0) index_faces(t, q->bsp->numfaces);
    if (t->numskytris > 0) {
        link_nodes(t);
#ifdef WIDE_SSE
        if (t->numtris > 0) pair_faces(t);
#endif
    }
    return true;
}

bool tracer_build_shadows(tracer_t *t, const qrad_t *q, q2err_t *err)
{
    return build_over(t, q, face_casts_model_shadow, err);
}

bool qrad_face_liquid(const qrad_t *q, int f)
{
    const rface_t *rf = &q->faces[f];
    return rf->model == 0 && rf->numpoints >= 3 && (rf->texflags & SURF_WARP) && !(rf->texflags & SURF_SKY);
}

bool tracer_build_liquids(tracer_t *t, const qrad_t *q, q2err_t *err)
{
    return build_over(t, q, qrad_face_liquid, err);
}

bool qrad3_see_through(const qrad_t *q, int f)
{
    const rface_t *rf = &q->faces[f];
    if (rf->numpoints < 3 || (rf->texflags & SURF_SKY)) return false;
    if (rf->model != 0) return true;
    return (rf->texflags & (SURF_TRANS33 | SURF_TRANS66)) && !(rf->texflags & SURF_WARP);
}

bool tracer_build_see_through(tracer_t *t, const qrad_t *q, q2err_t *err)
{
    return build_over(t, q, qrad3_see_through, err);
}

/* Face f's fan triangle k (corners 0, k, k + 1); false when degenerate. */
static bool fan_tri(const rface_t *rf, int f, int k, rtri_t *tri)
{
    vec3_t e1 = vec_sub(rf->points[k], rf->points[0]), e2 = vec_sub(rf->points[k + 1], rf->points[0]);
    tri_set(tri, 0, rf->points[0]);
    tri_set(tri, 1, e1);
    tri_set(tri, 2, e2);
    tri->face = f;
    return vec_len(vec_cross(e1, e2)) >= DEGENERATE_EPSILON * DEGENERATE_EPSILON;
}

/* Triangles and hierarchy pieces are made by the rank's threads in
 * chunks of this many faces (or triangles). */
#define BUILD_CHUNK 256

/* tracer_t.facetri: a counting sort of the triangles by face, each face's
 * in the hierarchy's order. */
static void index_faces(tracer_t *t, int numfaces)
{
    t->numfacetri = numfaces;
    t->facetri_first = q2_calloc((size_t)numfaces + 1, sizeof(int));
    t->facetri = q2_malloc(sizeof(int) * (size_t)(t->numtris > 0 ? t->numtris : 1));
    for (int i = 0; i < t->numtris; i++) t->facetri_first[t->tris[i].face + 1]++;
    for (int f = 0; f < numfaces; f++) t->facetri_first[f + 1] += t->facetri_first[f];
    int *fill = q2_malloc(sizeof(int) * (size_t)(numfaces > 0 ? numfaces : 1));
    memcpy(fill, t->facetri_first, sizeof(int) * (size_t)numfaces);
    for (int i = 0; i < t->numtris; i++) t->facetri[fill[t->tris[i].face]++] = i;
    free(fill);
}

/* tracer_t.facepairs, for the dome's seen faces (a map with sky, on SSE2):
 * none for a face past SEEN_MAX triangles, which seen_dists never tries.
 * A pair's face and rank are not set: seen_dists reads the corners alone. */
static void pair_faces(tracer_t *t)
{
    const int numfaces = t->numfacetri;
    t->facepair_first = q2_malloc(sizeof(int) * ((size_t)numfaces + 1));
    int np = 0;
    for (int f = 0; f < numfaces; f++) {
        t->facepair_first[f] = np;
        int n = t->facetri_first[f + 1] - t->facetri_first[f];
        if (n <= SEEN_MAX) np += (n + 1) / 2;
    }
    t->facepair_first[numfaces] = np;
    t->facepairs = q2_malloc(sizeof(rtri_t) * (size_t)(np > 0 ? np : 1));
    for (int f = 0; f < numfaces; f++) {
        const int first = t->facetri_first[f], n = t->facetri_first[f + 1] - first;
        if (n > SEEN_MAX) continue;
        for (int j = 0; 2 * j < n; j++) {
            const rtri_t *a = &t->tris[t->facetri[first + 2 * j]];
            const rtri_t *b = 2 * j + 1 < n ? &t->tris[t->facetri[first + 2 * j + 1]] : a;
            rtri_t *pp = &t->facepairs[t->facepair_first[f] + j];
            memset(pp, 0, sizeof *pp);
            for (int k = 0; k < 9; k++) {
                pp->c[k][0] = a->c[k][0];
                pp->c[k][1] = b->c[k][0];
            }
        }
    }
}

static bool build_over(tracer_t *t, const qrad_t *q, bool (*want)(const qrad_t *, int), q2err_t *err)
{
    memset(t, 0, sizeof *t);
    t->wide_avx2 = cpu_has_avx2();
    dist_t *d = q->opts->dist;
    int threads = q->opts->threads > 0 ? q->opts->threads : 1;
    int nf = q->bsp->numfaces, nchunk = (nf + BUILD_CHUNK - 1) / BUILD_CHUNK;
    /* Each face's triangles, counted and then made at their place in face
     * order, the order a sequential pass would give them. */
    int *start = q2_calloc((size_t)nf + 1, sizeof(int));
    dist_local_t *lt = dist_local_begin(d, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int c = 0; c < nchunk; c++) {
        double t0 = dist_local_start(lt);
        for (int f = c * BUILD_CHUNK; f < nf && f < (c + 1) * BUILD_CHUNK; f++) {
            if (!want(q, f)) continue;
            rtri_t tri;
            for (int k = 1; k + 1 < q->faces[f].numpoints; k++) start[f + 1] += fan_tri(&q->faces[f], f, k, &tri);
        }
        dist_local_done(lt, c, t0);
    }
    dist_local_end(lt);
    for (int f = 0; f < nf; f++) start[f + 1] += start[f];
    t->numtris = start[nf];
    if (t->numtris == 0) {
        free(start);
        return true;
    }
    t->tris = q2_malloc(sizeof *t->tris * (size_t)t->numtris);
    build_item_t *items = q2_malloc(sizeof *items * (size_t)t->numtris);
    lt = dist_local_begin(d, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int c = 0; c < nchunk; c++) {
        double t0 = dist_local_start(lt);
        for (int f = c * BUILD_CHUNK; f < nf && f < (c + 1) * BUILD_CHUNK; f++) {
            if (start[f + 1] == start[f]) continue;
            int i = start[f];
            for (int k = 1; k + 1 < q->faces[f].numpoints; k++) {
                rtri_t tri;
                if (!fan_tri(&q->faces[f], f, k, &tri)) continue;
                const rtri_t *tr = &t->tris[i];
                t->tris[i] = tri;
                vec3_t a = tri_vec(tr, 0), b = vec_add(a, tri_vec(tr, 1)), cc = vec_add(a, tri_vec(tr, 2));
                items[i].b = aabb_empty();
                aabb_add_point(&items[i].b, a);
                aabb_add_point(&items[i].b, b);
                aabb_add_point(&items[i].b, cc);
                items[i].c = vec_scale(vec_add(vec_add(a, b), cc), 1.0 / 3.0);
                items[i].tri = i;
                i++;
            }
        }
        dist_local_done(lt, c, t0);
    }
    dist_local_end(lt);
    free(start);
    int *order = q2_malloc(sizeof(int) * (size_t)t->numtris);
    bin_node_t *bin;
    int numbin;
    build_tree(q, items, t->numtris, &bin, &numbin, order);
    free(items);
    t->nodes = collapse_tree(bin, numbin, &t->numnodes);
    free(bin);
    rtri_t *sorted = q2_malloc(sizeof *sorted * (size_t)t->numtris);
    int ntc = (t->numtris + BUILD_CHUNK - 1) / BUILD_CHUNK;
    lt = dist_local_begin(d, ntc);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int c = 0; c < ntc; c++) {
        double t0 = dist_local_start(lt);
        for (int i = c * BUILD_CHUNK; i < t->numtris && i < (c + 1) * BUILD_CHUNK; i++) sorted[i] = t->tris[order[i]];
        dist_local_done(lt, c, t0);
    }
    dist_local_end(lt);
    free(t->tris);
    t->tris = sorted;
    free(order);
    for (int i = 0; i < t->numtris; i++) t->tris[i].rank = i;
    tri_lanes(t->tris, t->numtris);
    (void)err;
    return true;
}

/* The sky faces' triangles in a hierarchy of their own (trace_sky), in the
 * world hierarchy's order before their own build sorts them. */
static void build_sky(tracer_t *t, const qrad_t *q)
{
    int n = 0;
    for (int i = 0; i < t->numtris; i++) n += q->faces[t->tris[i].face].sky;
    if (n == 0) return;
    rtri_t *tris = q2_malloc(sizeof *tris * (size_t)n);
    build_item_t *items = q2_malloc(sizeof *items * (size_t)n);
    n = 0;
    for (int i = 0; i < t->numtris; i++) {
        const rtri_t *tr = &t->tris[i];
        if (!q->faces[tr->face].sky) continue;
        vec3_t a = tri_vec(tr, 0), b = vec_add(a, tri_vec(tr, 1)), c = vec_add(a, tri_vec(tr, 2));
        tris[n] = *tr;
        items[n].b = aabb_empty();
        aabb_add_point(&items[n].b, a);
        aabb_add_point(&items[n].b, b);
        aabb_add_point(&items[n].b, c);
        items[n].c = vec_scale(vec_add(vec_add(a, b), c), 1.0 / 3.0);
        items[n].tri = n;
        n++;
    }
    int *order = q2_malloc(sizeof(int) * (size_t)n);
    bin_node_t *bin;
    int numbin;
    build_tree(q, items, n, &bin, &numbin, order);
    free(items);
    t->skynodes = collapse_tree(bin, numbin, &t->numskynodes);
    free(bin);
    t->skytris = q2_malloc(sizeof *t->skytris * (size_t)n);
    for (int i = 0; i < n; i++) t->skytris[i] = tris[order[i]];
    tri_lanes(t->skytris, n);
    t->numskytris = n;
    free(tris);
    free(order);
}

void tracer_free(tracer_t *t)
{
    q2_aligned_free(t->tnodes);
    free(t->tris);
    q2_aligned_free(t->nodes);
    free(t->skytris);
    q2_aligned_free(t->skynodes);
    free(t->facetri_first);
    free(t->facetri);
    free(t->facepair_first);
    free(t->facepairs);
    free(t->wparent);
    free(t->trinode);
    free(t->solidpath_first);
    free(t->solidpath);
    free(t->solidplanes);
    free(t->tdepth);
    free(t->wred_first);
    free(t->wredplanes);
    memset(t, 0, sizeof *t);
}

#ifdef WIDE_SSE
/* The ray as ray_tri2 takes it: o and d, each coordinate in both lanes. */
typedef struct pray_t {
    __m128d o[3], d[3];
} pray_t;

static inline pray_t pray(vec3_t o, vec3_t d)
{
    pray_t r;
    for (int ax = 0; ax < 3; ax++) {
        r.o[ax] = _mm_set1_pd(vec_comp(o, ax));
        r.d[ax] = _mm_set1_pd(vec_comp(d, ax));
    }
    return r;
}

#endif

/* A ray as the wide boxes meet it: the origin in float, the direction's
 * reciprocals kept finite (an axis the ray runs along gets +-1e30, which
 * the padded slabs it starts in still hold; infinities would meet zeros),
 * and per axis which side of a box the ray enters by (near: the min side
 * where the reciprocal is positive) as offsets into the node's boxes. */
typedef struct wray_t {
#ifdef WIDE_SSE
    __m128 vo[3], vinv[3]; /* o and inv in every lane */
    pray_t pr;             /* the same ray for ray_tri2 and ray_tri4, made once for both hierarchies of trace_sky */
#endif
    float o[3], inv[3];
    int nearoff[3], faroff[3];
} wray_t;

void trace_dir_init(trace_dir_t *td, vec3_t d)
{
    td->d = d;
    for (int ax = 0; ax < 3; ax++) {
        double c = vec_comp(d, ax), inv = c != 0 ? 1.0 / c : 1e30;
        td->inv[ax] = (float)(inv > 1e30 ? 1e30 : inv < -1e30 ? -1e30 : inv);
        td->nearoff[ax] = (td->inv[ax] > 0 ? 0 : 3 * WIDE) + ax * WIDE;
        td->faroff[ax] = (td->inv[ax] > 0 ? 3 * WIDE : 0) + ax * WIDE;
    }
}

static inline void wray_from(wray_t *r, vec3_t o, const trace_dir_t *td)
{
    for (int ax = 0; ax < 3; ax++) {
        r->o[ax] = (float)vec_comp(o, ax);
        r->inv[ax] = td->inv[ax];
        r->nearoff[ax] = td->nearoff[ax];
        r->faroff[ax] = td->faroff[ax];
#ifdef WIDE_SSE
        r->vo[ax] = _mm_set1_ps(r->o[ax]);
        r->vinv[ax] = _mm_set1_ps(r->inv[ax]);
#endif
    }
#ifdef WIDE_SSE
    r->pr = pray(o, td->d);
#endif
}

static inline void wray_init(wray_t *r, vec3_t o, vec3_t d)
{
    trace_dir_t td;
    trace_dir_init(&td, d);
    wray_from(r, o, &td);
}

/* The children of n that the ray enters within [0, tmax], as bits, with
 * the entry distances.
 *
 * Per axis the distances to a box's two sides, (side - o) inv, rounded
 * once each, are ordered as their sides are for inv > 0 and the other way
 * for inv < 0 (rounding is monotone; inv is never 0 and nothing is NaN),
 * so the near side's is the min of the two and the far side's the max,
 * as values (a min of +0 and -0 may pick either; every use of the entry
 * and exit distances is a comparison or another min or max, which do not
 * see that sign). The entry distance is the max of 0 and the three near
 * sides', the exit the min of tmax and the far sides'. An empty lane's
 * near side is beyond its far side and it is never entered.
 *
 * The SSE path and the portable one (every other machine: arm64) give the
 * same bits: the same single-precision subtractions and products in the
 * same order, and each min and max written as SSE's minps/maxps define it
 * (the first operand where the comparison holds, else the second), which
 * matters for equal values of opposite signs (+0 and -0). Q2MAP_WIDE_PORTABLE
 * builds the portable path on x86-64 too, to compare the two. */
#ifdef WIDE_SSE
static inline int wide_hits(const bvh_node_t *n, const wray_t *r, float tmax, float tnear[WIDE])
{
    int mask = 0;
    for (int half = 0; half < WIDE; half += 4) {
        const float *b = n->bmin[0] + half;
        __m128 lo = _mm_setzero_ps(), hi = _mm_set1_ps(tmax);
        for (int ax = 0; ax < 3; ax++) {
            __m128 o = r->vo[ax], inv = r->vinv[ax];
            __m128 t0 = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(b + r->nearoff[ax]), o), inv);
            __m128 t1 = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(b + r->faroff[ax]), o), inv);
            lo = _mm_max_ps(lo, t0);
            hi = _mm_min_ps(hi, t1);
        }
        _mm_storeu_ps(tnear + half, lo);
        mask |= _mm_movemask_ps(_mm_cmple_ps(lo, hi)) << half;
    }
    return mask;
}
#else
static inline float wide_min(float a, float b) { return a < b ? a : b; } /* minps */
static inline float wide_max(float a, float b) { return a > b ? a : b; } /* maxps */
static inline int wide_hits(const bvh_node_t *n, const wray_t *r, float tmax, float tnear[WIDE])
{
    /* All the lanes, as the SSE path: fixed-length loops the compiler
     * can turn into vector code. */
    const float *b = n->bmin[0];
    float lo[WIDE], hi[WIDE];
    for (int k = 0; k < WIDE; k++) {
        lo[k] = 0;
        hi[k] = tmax;
    }
    for (int ax = 0; ax < 3; ax++) {
        float o = r->o[ax], inv = r->inv[ax];
        const float *bn = b + r->nearoff[ax], *bf = b + r->faroff[ax];
        for (int k = 0; k < WIDE; k++) {
            float t0 = (bn[k] - o) * inv, t1 = (bf[k] - o) * inv;
            lo[k] = wide_max(lo[k], t0);
            hi[k] = wide_min(hi[k], t1);
        }
    }
    int mask = 0;
    for (int k = 0; k < WIDE; k++) {
        tnear[k] = lo[k];
        mask |= (lo[k] <= hi[k]) << k;
    }
    return mask;
}
#endif

#ifdef TRACE_AVX2
/* wide_hits with all eight lanes in one vector: the same operations lane
 * by lane (vmaxps and vminps pick as maxps and minps do), so the same
 * bits and entry distances. */
__attribute__((target("avx2"))) static inline int wide_hits_avx2(const bvh_node_t *n, const wray_t *r, float tmax,
                                                                 float tnear[WIDE])
{
    const float *b = n->bmin[0];
    __m256 lo = _mm256_setzero_ps(), hi = _mm256_set1_ps(tmax);
    for (int ax = 0; ax < 3; ax++) {
        __m256 o = _mm256_set1_ps(r->o[ax]), inv = _mm256_set1_ps(r->inv[ax]);
        __m256 t0 = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(b + r->nearoff[ax]), o), inv);
        __m256 t1 = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(b + r->faroff[ax]), o), inv);
        lo = _mm256_max_ps(lo, t0);
        hi = _mm256_min_ps(hi, t1);
    }
    _mm256_storeu_ps(tnear, lo);
    return _mm256_movemask_ps(_mm256_cmp_ps(lo, hi, _CMP_LE_OQ));
}
_Static_assert(WIDE == 8, "wide_hits_avx2 takes eight lanes");
#endif

/* The lowest set bit's index of a nonzero mask. */
#if defined(__GNUC__)
static inline int low_bit(int m) { return __builtin_ctz((unsigned)m); }
#else
static inline int low_bit(int m)
{
    int k = 0;
    while (!(m >> k & 1)) k++;
    return k;
}
#endif

/* Enough for any tree the build makes: each level adds at most seven
 * entries, and the binary tree's depth is far below this over triangles
 * of real maps; a deeper one is traversed partly rather than overrun. */
#define WIDE_STACK 768

/* Pushes the children of n in mask m, in lane order; the room for them is
 * checked once a node while there is room for all of them. */
static inline void push_children(int *stack, int *sp, const bvh_node_t *n, int m)
{
    int k = *sp;
    if (k <= WIDE_STACK - WIDE) {
        for (; m; m &= m - 1) stack[k++] = n->child[low_bit(m)];
    } else {
        for (; m && k < WIDE_STACK; m &= m - 1) stack[k++] = n->child[low_bit(m)];
    }
    *sp = k;
}

/* Moller-Trumbore, both sides. Returns the distance or -1. */
static inline double ray_tri(const rtri_t *tr, vec3_t o, vec3_t d)
{
    vec3_t e1 = tri_vec(tr, 1), e2 = tri_vec(tr, 2);
    vec3_t p = vec_cross(d, e2);
    double det = vec_dot(e1, p);
    if (fabs(det) < 1e-12) return -1;
    double inv = 1.0 / det;
    vec3_t s = vec_sub(o, tri_vec(tr, 0));
    double u = vec_dot(s, p) * inv;
    if (u < 0 || u > 1) return -1;
    vec3_t qv = vec_cross(s, e1);
    double v = vec_dot(d, qv) * inv;
    if (v < 0 || u + v > 1) return -1;
    return vec_dot(e2, qv) * inv;
}

#ifdef WIDE_SSE
/* ray_tri on triangles tr and tr + 1 at once, lane by lane: the same
 * double operations in the same order (SSE2's are IEEE's, lane by lane,
 * and nothing is contracted), so each lane's distance is ray_tri's bits.
 * Returns the lanes ray_tri would not reject (bit k: tr + k), their
 * distances in x. */
static inline int ray_tri2(const rtri_t *tr, const pray_t *r, double x[2])
{
    const double(*c)[2] = tr->c;
#define LD(k) _mm_loadu_pd(c[k])
    __m128d e2x = LD(6), e2y = LD(7), e2z = LD(8);
    /* p = d x e2 */
    __m128d px = _mm_sub_pd(_mm_mul_pd(r->d[1], e2z), _mm_mul_pd(r->d[2], e2y));
    __m128d py = _mm_sub_pd(_mm_mul_pd(r->d[2], e2x), _mm_mul_pd(r->d[0], e2z));
    __m128d pz = _mm_sub_pd(_mm_mul_pd(r->d[0], e2y), _mm_mul_pd(r->d[1], e2x));
    __m128d e1x = LD(3), e1y = LD(4), e1z = LD(5);
    __m128d det = _mm_add_pd(_mm_add_pd(_mm_mul_pd(e1x, px), _mm_mul_pd(e1y, py)), _mm_mul_pd(e1z, pz));
    __m128d absdet = _mm_andnot_pd(_mm_set1_pd(-0.0), det);
    __m128d ok = _mm_cmpnlt_pd(absdet, _mm_set1_pd(1e-12));
    if (!_mm_movemask_pd(ok)) return 0;
    __m128d inv = _mm_div_pd(_mm_set1_pd(1.0), det);
    __m128d sx = _mm_sub_pd(r->o[0], LD(0)), sy = _mm_sub_pd(r->o[1], LD(1)), sz = _mm_sub_pd(r->o[2], LD(2));
    __m128d u = _mm_mul_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(sx, px), _mm_mul_pd(sy, py)), _mm_mul_pd(sz, pz)), inv);
    ok = _mm_and_pd(ok, _mm_and_pd(_mm_cmpnlt_pd(u, _mm_setzero_pd()), _mm_cmpngt_pd(u, _mm_set1_pd(1.0))));
    if (!_mm_movemask_pd(ok)) return 0;
    /* qv = s x e1 */
    __m128d qx = _mm_sub_pd(_mm_mul_pd(sy, e1z), _mm_mul_pd(sz, e1y));
    __m128d qy = _mm_sub_pd(_mm_mul_pd(sz, e1x), _mm_mul_pd(sx, e1z));
    __m128d qz = _mm_sub_pd(_mm_mul_pd(sx, e1y), _mm_mul_pd(sy, e1x));
    __m128d v =
        _mm_mul_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(r->d[0], qx), _mm_mul_pd(r->d[1], qy)), _mm_mul_pd(r->d[2], qz)), inv);
    ok = _mm_and_pd(ok, _mm_and_pd(_mm_cmpnlt_pd(v, _mm_setzero_pd()), _mm_cmpngt_pd(_mm_add_pd(u, v), _mm_set1_pd(1.0))));
    int m = _mm_movemask_pd(ok);
    if (!m) return 0;
    __m128d t = _mm_mul_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(e2x, qx), _mm_mul_pd(e2y, qy)), _mm_mul_pd(e2z, qz)), inv);
#undef LD
    _mm_storeu_pd(x, t);
    return m;
}
#endif

#ifdef TRACE_AVX2
/* ray_tri2 on two records at once: lanes 0 and 1 are lo's pair, 2 and 3
 * hi's, the same double operations lane by lane, so each lane's distance
 * is ray_tri's bits. Returns the lanes below count (1 to 4) that ray_tri
 * would not reject, their distances in x. */
__attribute__((target("avx2"))) static inline int ray_tri4(const rtri_t *lo, const rtri_t *hi, int count,
                                                           const pray_t *r, double x[4])
{
    const double(*c)[2] = lo->c, (*c2)[2] = hi->c;
#define LD(k) _mm256_loadu2_m128d(c2[k], c[k])
#define BC(v) _mm256_broadcastsd_pd(v)
    const __m256d dx = BC(r->d[0]), dy = BC(r->d[1]), dz = BC(r->d[2]);
    __m256d e2x = LD(6), e2y = LD(7), e2z = LD(8);
    /* p = d x e2 */
    __m256d px = _mm256_sub_pd(_mm256_mul_pd(dy, e2z), _mm256_mul_pd(dz, e2y));
    __m256d py = _mm256_sub_pd(_mm256_mul_pd(dz, e2x), _mm256_mul_pd(dx, e2z));
    __m256d pz = _mm256_sub_pd(_mm256_mul_pd(dx, e2y), _mm256_mul_pd(dy, e2x));
    __m256d e1x = LD(3), e1y = LD(4), e1z = LD(5);
    __m256d det = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(e1x, px), _mm256_mul_pd(e1y, py)), _mm256_mul_pd(e1z, pz));
    __m256d absdet = _mm256_andnot_pd(_mm256_set1_pd(-0.0), det);
    __m256d ok = _mm256_cmp_pd(absdet, _mm256_set1_pd(1e-12), _CMP_NLT_UQ);
    if (!_mm256_movemask_pd(ok)) return 0;
    __m256d inv = _mm256_div_pd(_mm256_set1_pd(1.0), det);
    __m256d sx = _mm256_sub_pd(BC(r->o[0]), LD(0)), sy = _mm256_sub_pd(BC(r->o[1]), LD(1)),
            sz = _mm256_sub_pd(BC(r->o[2]), LD(2));
    __m256d u = _mm256_mul_pd(
        _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(sx, px), _mm256_mul_pd(sy, py)), _mm256_mul_pd(sz, pz)), inv);
    ok = _mm256_and_pd(ok, _mm256_and_pd(_mm256_cmp_pd(u, _mm256_setzero_pd(), _CMP_NLT_UQ),
                                         _mm256_cmp_pd(u, _mm256_set1_pd(1.0), _CMP_NGT_UQ)));
    if (!_mm256_movemask_pd(ok)) return 0;
    /* qv = s x e1 */
    __m256d qx = _mm256_sub_pd(_mm256_mul_pd(sy, e1z), _mm256_mul_pd(sz, e1y));
    __m256d qy = _mm256_sub_pd(_mm256_mul_pd(sz, e1x), _mm256_mul_pd(sx, e1z));
    __m256d qz = _mm256_sub_pd(_mm256_mul_pd(sx, e1y), _mm256_mul_pd(sy, e1x));
    __m256d v = _mm256_mul_pd(
        _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, qx), _mm256_mul_pd(dy, qy)), _mm256_mul_pd(dz, qz)), inv);
    ok = _mm256_and_pd(ok, _mm256_and_pd(_mm256_cmp_pd(v, _mm256_setzero_pd(), _CMP_NLT_UQ),
                                         _mm256_cmp_pd(_mm256_add_pd(u, v), _mm256_set1_pd(1.0), _CMP_NGT_UQ)));
    int m = _mm256_movemask_pd(ok) & ((1 << count) - 1);
    if (!m) return 0;
    __m256d t = _mm256_mul_pd(
        _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(e2x, qx), _mm256_mul_pd(e2y, qy)), _mm256_mul_pd(e2z, qz)), inv);
#undef LD
#undef BC
    _mm256_storeu_pd(x, t);
    return m;
}
_Static_assert(BVH_LEAF_MAX <= 4, "ray_tri4 takes a whole leaf");
#endif

/* Which triangles an occlusion test counts. */
typedef enum { HIT_ALL, HIT_CHANNELS, HIT_MODELS } hit_filter_t;

typedef struct hit_test_t {
    const qrad_t *q;
    hit_filter_t filter;
    int mask; /* HIT_CHANNELS: faces whose _object_channel_mask shares a bit; HIT_MODELS: the shadow mask */
    int recv; /* HIT_MODELS: the receiving face's model */
} hit_test_t;

static inline bool hit_counts(const hit_test_t *h, const tracer_t *t, int i)
{
    switch (h->filter) {
    case HIT_CHANNELS: return (h->q->mkeys[h->q->faces[t->tris[i].face].keys].object_mask & h->mask) != 0;
    case HIT_MODELS: return qrad_model_blocks(h->q, h->q->faces[t->tris[i].face].model, h->recv, h->mask);
    default: return true;
    }
}

static void link_nodes(tracer_t *t)
{
    t->wparent = q2_malloc(sizeof(int) * (size_t)t->numnodes);
    t->trinode = q2_malloc(sizeof(int) * (size_t)t->numtris);
    t->wparent[0] = -1;
    for (int w = 0; w < t->numnodes; w++)
        for (int k = 0; k < t->nodes[w].nchild; k++) {
            int c = t->nodes[w].child[k];
            if (c >= 0) {
                t->wparent[c] = w;
                continue;
            }
            for (int i = WIDE_LEAF_FIRST(c); i < WIDE_LEAF_FIRST(c) + WIDE_LEAF_COUNT(c); i++) t->trinode[i] = w;
        }
}

/* Where the next ray of a blocked ray's direction starts looking: this
 * many wide nodes above the one whose child the blocking triangle's leaf
 * is (the part under it is usually a few hundred triangles, a few
 * thousand where the leaf hangs high in the tree). The blockers of
 * neighbouring luxels' rays are mostly near each other, not on one face
 * (what seen's face alone catches). With eight-wide nodes one level is
 * best on spirit2dm4 with ericw-tools' sun keys: qrad's CPU 0.954 of the
 * four-wide build's, against 0.966 with none and 0.967 with two. */
#define SEEN_NODE_UP 1

static inline int seen_node(const tracer_t *t, int tri)
{
    if (!t->trinode) return -1;
    int w = t->trinode[tri];
    for (int k = 0; k < SEEN_NODE_UP && w > 0; k++) w = t->wparent[w];
    return w;
}

/* Whether a hit at x on triangle tr ends an occlusion test up to tmax:
 * past TRACE_EPSILON and before tmax, or at tmax with a rank below
 * tie_rank (the sky triangle's, whose tie the lower rank wins). */
static inline bool hit_before(const rtri_t *tr, double x, double tmax, int tie_rank)
{
    return x > TRACE_EPSILON && (x < tmax || (x == tmax && tr->rank < tie_rank));
}

/* The first triangle of leaf c that h counts along o + x d for x in
 * (TRACE_EPSILON, tmax), or at tmax with a rank below tie_rank: its index,
 * or -1. */
static inline int leaf_any_hit(const tracer_t *t, const hit_test_t *h, const wray_t *r, vec3_t o, vec3_t d, int c,
                               double tmax, int tie_rank)
{
    const bool all = h->filter == HIT_ALL;
    int first = WIDE_LEAF_FIRST(c), count = WIDE_LEAF_COUNT(c);
#ifdef WIDE_SSE
    (void)o, (void)d;
    for (int i = first; i < first + count; i += 2) {
        double xs[2];
        int m = ray_tri2(&t->tris[i], &r->pr, xs) & (i + 1 < first + count ? 3 : 1);
        for (; m; m &= m - 1) {
            int k = low_bit(m);
            if (!all && !hit_counts(h, t, i + k)) continue;
            if (hit_before(&t->tris[i + k], xs[k], tmax, tie_rank)) return i + k;
        }
    }
#else
    (void)r;
    for (int i = first; i < first + count; i++) {
        if (!all && !hit_counts(h, t, i)) continue;
        if (hit_before(&t->tris[i], ray_tri(&t->tris[i], o, d), tmax, tie_rank)) return i;
    }
#endif
    return -1;
}

#ifdef TRACE_AVX2
/* leaf_any_hit by ray_tri4: the same triangle. */
__attribute__((target("avx2"))) static inline int leaf_any_hit_avx2(const tracer_t *t, const hit_test_t *h,
                                                                    const wray_t *r, int c, double tmax, int tie_rank)
{
    const bool all = h->filter == HIT_ALL;
    int first = WIDE_LEAF_FIRST(c), count = WIDE_LEAF_COUNT(c);
    double xs[4];
    const rtri_t *tr = &t->tris[first];
    for (int m = ray_tri4(tr, count > 2 ? tr + 2 : tr, count, &r->pr, xs); m; m &= m - 1) {
        int k = low_bit(m);
        if (!all && !hit_counts(h, t, first + k)) continue;
        if (hit_before(&t->tris[first + k], xs[k], tmax, tie_rank)) return first + k;
    }
    return -1;
}
#endif

/* The box test and a leaf's triangles in the SSE2 and portable forms, or
 * (avx) the AVX2 ones; the walks below are written once over them and
 * compiled for each (the AVX2 forms under target("avx2") wrappers). */
static inline __attribute__((always_inline)) int wide_hits_as(const bvh_node_t *n, const wray_t *r, float tmax,
                                                              float tnear[WIDE], bool avx)
{
#ifdef TRACE_AVX2
    if (avx) return wide_hits_avx2(n, r, tmax, tnear);
#else
    (void)avx;
#endif
    return wide_hits(n, r, tmax, tnear);
}

static inline __attribute__((always_inline)) int leaf_any_hit_as(const tracer_t *t, const hit_test_t *h,
                                                                 const wray_t *r, vec3_t o, vec3_t d, int c,
                                                                 double tmax, int tie_rank, bool avx)
{
#ifdef TRACE_AVX2
    if (avx) return leaf_any_hit_avx2(t, h, r, c, tmax, tie_rank);
#else
    (void)avx;
#endif
    return leaf_any_hit(t, h, r, o, d, c, tmax, tie_rank);
}

/* Whether a triangle that h counts lies along o + x d for x in
 * (TRACE_EPSILON, tmax), or at tmax with a rank below tie_rank: any one
 * will do, so the first found ends the walk. The walk covers the part of
 * the hierarchy under start (0: all of it) without the node skip (-1:
 * none; its parent's lane for it is dropped), and found, where given,
 * gets the face and the node to search first next time. */
static inline __attribute__((always_inline)) bool any_hit_walk(const tracer_t *t, const hit_test_t *h,
                                                               const wray_t *r, vec3_t o, vec3_t d, double tmax,
                                                               int tie_rank, trace_hit_t *found, int start, int skip,
                                                               bool avx)
{
    const int skip_parent = skip > 0 ? t->wparent[skip] : -1;
    float tmaxf = round_up(tmax), tnear[WIDE];
    int stack[WIDE_STACK], sp = 0;
    stack[sp++] = start;
    while (sp) {
        int c = stack[--sp];
        if (c < 0) {
            int i = leaf_any_hit_as(t, h, r, o, d, c, tmax, tie_rank, avx);
            if (i < 0) continue;
            if (found) {
                found->face = t->tris[i].face;
                found->node = seen_node(t, i);
            }
            return true;
        }
        const bvh_node_t *n = &t->nodes[c];
        int m = wide_hits_as(n, r, tmaxf, tnear, avx);
        if (c == skip_parent)
            for (int k = 0; k < n->nchild; k++)
                if (n->child[k] == skip) m &= ~(1 << k);
        push_children(stack, &sp, n, m);
    }
    return false;
}

static bool any_hit_ray(const tracer_t *t, const hit_test_t *h, const wray_t *r, vec3_t o, vec3_t d, double tmax,
                        int tie_rank, trace_hit_t *found, int start, int skip)
{
    return any_hit_walk(t, h, r, o, d, tmax, tie_rank, found, start, skip, false);
}

/* Whether a triangle that h counts lies between a and b (TRACE_EPSILON
 * off both ends). */
static bool any_hit(const tracer_t *t, const hit_test_t *h, vec3_t a, vec3_t b)
{
    if (t->numnodes == 0) return false;
    double len;
    vec3_t d = vec_normalize(vec_sub(b, a), &len);
    if (len <= 2 * TRACE_EPSILON) return false;
    wray_t r;
    wray_init(&r, a, d);
    return any_hit_ray(t, h, &r, a, d, len - TRACE_EPSILON, -1, NULL, 0, -1);
}

bool trace_occluded_faces(const tracer_t *t, vec3_t a, vec3_t b)
{
    hit_test_t h = {.filter = HIT_ALL};
    return any_hit(t, &h, a, b);
}

static bool line_solid_r(const tnode_t *nodes, int node, const double *p1in, const double *p2, int depth);

void qrad_brush_shadows_setup(qrad_t *q)
{
    const bsp_t *bsp = q->bsp;
    q->numbrushshadows = 0;
    q->brushshadow_model = NULL;
    q->brushshadow_offset = NULL;
    if (!q->tracer.tnodes || !q->mkeys) return;
    for (int m = 1; m < bsp->nummodels; m++) {
        const model_keys_t *k = &q->mkeys[m];
        const dmodel_t *dm = &bsp->models[m];
        if (!(k->shadow || k->shadowself) || dm->numfaces > 0 || dm->headnode < 0 || dm->headnode >= bsp->numnodes)
            continue;
        q->brushshadow_model = q2_realloc(q->brushshadow_model, sizeof(int) * (size_t)(q->numbrushshadows + 1));
        q->brushshadow_offset = q2_realloc(q->brushshadow_offset, sizeof(vec3_t) * (size_t)(q->numbrushshadows + 1));
        q->brushshadow_model[q->numbrushshadows] = m;
        /* Brushes built around an origin brush are stored around 0,0,0;
         * the entity's origin puts them back. */
        vec3_t o = vec3(0, 0, 0);
        char name[16];
        snprintf(name, sizeof name, "*%d", m);
        for (int e = 0; e < q->ents.count; e++) {
            const char *model = entity_get(&q->ents.ents[e], "model");
            if (model && !strcmp(model, name)) {
                entity_get_vec3(&q->ents.ents[e], "origin", &o);
                break;
            }
        }
        q->brushshadow_offset[q->numbrushshadows++] = o;
    }
}

void qrad_brush_shadows_free(qrad_t *q)
{
    free(q->brushshadow_model);
    free(q->brushshadow_offset);
    q->brushshadow_model = NULL;
    q->brushshadow_offset = NULL;
    q->numbrushshadows = 0;
}

/* The world's faces between a and b on the channels of shadow_mask. */
static bool faces_on_channels(const qrad_t *q, vec3_t a, vec3_t b, int shadow_mask)
{
    hit_test_t h = {.q = q, .filter = HIT_CHANNELS, .mask = shadow_mask};
    return any_hit(&q->tracer, &h, a, b);
}

bool trace_occluded_channels(const qrad_t *q, vec3_t a, vec3_t b, int shadow_mask)
{
    /* Without func_groups on channels of their own the world is channel 1
     * throughout, and its tree decides. With them, what the tree blocks
     * is confirmed by a face on the light's channels (a world brush
     * without faces, nodraw, then lets such a light through). */
    if (!q->world_channels) return (shadow_mask & 1) && trace_occluded(q, a, b);
    return trace_occluded(q, a, b) && faces_on_channels(q, a, b, shadow_mask);
}

bool trace_occluded_models(const qrad_t *q, vec3_t a, vec3_t b, int recv, int shadow_mask)
{
    for (int k = 0; k < q->numbrushshadows; k++) {
        int m = q->brushshadow_model[k];
        if (!qrad_model_blocks(q, m, recv, shadow_mask)) continue;
        vec3_t o = q->brushshadow_offset[k];
        double p1[3] = {a.x - o.x, a.y - o.y, a.z - o.z}, p2[3] = {b.x - o.x, b.y - o.y, b.z - o.z};
        if (line_solid_r(q->tracer.tnodes, q->bsp->models[m].headnode, p1, p2, 0)) return true;
    }
    hit_test_t h = {.q = q, .filter = HIT_MODELS, .mask = shadow_mask, .recv = recv};
    return any_hit(&q->shadows, &h, a, b);
}

/* A triangle nearest meets at distance h (ray_tri's answer). Equal
 * distances (a shared edge) go to the lower rank so the answer never
 * depends on traversal order. */
static inline void nearest_take(const qrad_t *q, const rtri_t *tr, double h, int mask, double *best, float *bestf,
                                int *bestface, int *bestrank)
{
    if (mask && !(q->mkeys[q->faces[tr->face].keys].object_mask & mask)) return;
    if (h > TRACE_EPSILON && (h < *best || (h == *best && tr->rank < *bestrank))) {
        *best = h;
        *bestf = round_up(h);
        *bestface = tr->face;
        *bestrank = tr->rank;
    }
}

/* nearest_take over the triangles of leaf c (two at a time on SSE2). */
static inline void nearest_leaf(const qrad_t *q, const rtri_t *tris, int c, const wray_t *r, vec3_t o, vec3_t d,
                                int mask, double *best, float *bestf, int *bestface, int *bestrank)
{
    int first = WIDE_LEAF_FIRST(c), count = WIDE_LEAF_COUNT(c);
#ifdef WIDE_SSE
    (void)o, (void)d;
    for (int i = first; i < first + count; i += 2) {
        double xs[2];
        for (int m = ray_tri2(&tris[i], &r->pr, xs) & (i + 1 < first + count ? 3 : 1); m; m &= m - 1)
            nearest_take(q, &tris[i + low_bit(m)], xs[low_bit(m)], mask, best, bestf, bestface, bestrank);
    }
#else
    (void)r;
    for (int i = first; i < first + count; i++)
        nearest_take(q, &tris[i], ray_tri(&tris[i], o, d), mask, best, bestf, bestface, bestrank);
#endif
}

#ifdef TRACE_AVX2
/* nearest_leaf by ray_tri4: the same takes. */
__attribute__((target("avx2"))) static inline void nearest_leaf_avx2(const qrad_t *q, const rtri_t *tris, int c,
                                                                     const wray_t *r, int mask, double *best,
                                                                     float *bestf, int *bestface, int *bestrank)
{
    int first = WIDE_LEAF_FIRST(c), count = WIDE_LEAF_COUNT(c);
    double xs[4];
    const rtri_t *tr = &tris[first];
    for (int m = ray_tri4(tr, count > 2 ? tr + 2 : tr, count, &r->pr, xs); m; m &= m - 1)
        nearest_take(q, &tris[first + low_bit(m)], xs[low_bit(m)], mask, best, bestf, bestface, bestrank);
}
#endif

static inline __attribute__((always_inline)) void nearest_leaf_as(const qrad_t *q, const rtri_t *tris, int c,
                                                                  const wray_t *r, vec3_t o, vec3_t d, int mask,
                                                                  double *best, float *bestf, int *bestface,
                                                                  int *bestrank, bool avx)
{
#ifdef TRACE_AVX2
    if (avx) {
        nearest_leaf_avx2(q, tris, c, r, mask, best, bestf, bestface, bestrank);
        return;
    }
#else
    (void)avx;
#endif
    nearest_leaf(q, tris, c, r, o, d, mask, best, bestf, bestface, bestrank);
}

/* The nearest triangle of one hierarchy along o + x d, x in
 * (TRACE_EPSILON, maxdist): its face, or -1; *dist and *rank get its
 * distance (maxdist if none) and rank. mask 0: every triangle; else only
 * faces whose keys' _object_channel_mask shares a bit with it. */
static inline __attribute__((always_inline)) int nearest(const qrad_t *q, const bvh_node_t *nodes,
                                                         const rtri_t *tris, const wray_t *r, vec3_t o, vec3_t d,
                                                         double maxdist, int mask, double *dist, int *rank, bool avx)
{
    double best = maxdist;
    float bestf = round_up(best);
    int bestface = -1, bestrank = -1;
    /* Entries with the distance at which the ray enters them: an entry
     * beyond the best hit found since it was pushed is skipped. */
    int stack[WIDE_STACK], sp = 0;
    float snear[WIDE_STACK], tnear[WIDE];
    stack[sp] = 0;
    snear[sp++] = 0;
    while (sp) {
        --sp;
        if (snear[sp] > bestf) continue;
        int c = stack[sp];
        if (c < 0) {
            nearest_leaf_as(q, tris, c, r, o, d, mask, &best, &bestf, &bestface, &bestrank, avx);
            continue;
        }
        const bvh_node_t *n = &nodes[c];
        /* The children entered, nearest last on the stack so it is taken
         * first (equals in lane order). */
        int ord[WIDE], no = 0;
        for (int m = wide_hits_as(n, r, bestf, tnear, avx); m; m &= m - 1) {
            int k = low_bit(m), j = no++;
            while (j > 0 && tnear[ord[j - 1]] < tnear[k]) {
                ord[j] = ord[j - 1];
                j--;
            }
            ord[j] = k;
        }
        for (int j = 0; j < no && sp < WIDE_STACK; j++) {
            stack[sp] = n->child[ord[j]];
            snear[sp++] = tnear[ord[j]];
        }
    }
    *dist = best;
    *rank = bestrank;
    return bestface;
}

/* nearest over the sky's hierarchy, the children taken in lane order: that
 * hierarchy is small and a ray mostly meets one of its triangles, so
 * sorting the children costs more than it prunes. The same answer as
 * nearest (see nearest_take), the same pruning by the best so far. */
static inline __attribute__((always_inline)) int nearest_sky_walk(const tracer_t *t, const wray_t *r, vec3_t o,
                                                                  vec3_t d, double maxdist, double *dist, int *rank,
                                                                  bool avx)
{
    const bvh_node_t *nodes = t->skynodes;
    const rtri_t *tris = t->skytris;
    double best = maxdist;
    float bestf = round_up(best);
    int bestface = -1, bestrank = -1;
    int stack[WIDE_STACK], sp = 0;
    float tnear[WIDE];
    stack[sp++] = 0;
    while (sp) {
        int c = stack[--sp];
        if (c < 0) {
            nearest_leaf_as(NULL, tris, c, r, o, d, 0, &best, &bestf, &bestface, &bestrank, avx);
            continue;
        }
        const bvh_node_t *n = &nodes[c];
        push_children(stack, &sp, n, wide_hits_as(n, r, bestf, tnear, avx));
    }
    *dist = best;
    *rank = bestrank;
    return bestface;
}

static inline __attribute__((always_inline)) int closest_as(const qrad_t *q, const tracer_t *t, vec3_t o, vec3_t d,
                                                            double maxdist, int mask, double *hitdist, bool avx)
{
    if (hitdist) *hitdist = maxdist;
    if (t->numnodes == 0) return -1;
    double dist;
    wray_t r;
    wray_init(&r, o, d);
    int rank, face = nearest(q, t->nodes, t->tris, &r, o, d, maxdist, mask, &dist, &rank, avx);
    if (hitdist) *hitdist = dist;
    return face;
}

#ifdef TRACE_AVX2
__attribute__((target("avx2"))) static int closest_avx2(const qrad_t *q, const tracer_t *t, vec3_t o, vec3_t d,
                                                        double maxdist, int mask, double *hitdist)
{
    return closest_as(q, t, o, d, maxdist, mask, hitdist, true);
}
#endif

static int closest(const qrad_t *q, const tracer_t *t, vec3_t o, vec3_t d, double maxdist, int mask, double *hitdist)
{
#ifdef TRACE_AVX2
    if (t->wide_avx2) return closest_avx2(q, t, o, d, maxdist, mask, hitdist);
#endif
    return closest_as(q, t, o, d, maxdist, mask, hitdist, false);
}

int trace_closest(const tracer_t *t, vec3_t o, vec3_t d, double maxdist, double *hitdist)
{
    return closest(NULL, t, o, d, maxdist, 0, hitdist);
}

int trace_closest_channels(const qrad_t *q, const tracer_t *t, vec3_t o, vec3_t d, double maxdist, int mask,
                           double *hitdist)
{
    return closest(q, t, o, d, maxdist, mask, hitdist);
}

/* The triangles of the face a ray of the same direction met last (seen)
 * along this one, by the test any_hit_ray makes of each (ray_tri2's and
 * ray_tri4's lanes are independent, so the lane does not matter), into x (-1 where one
 * misses); returns how many, 0 when the face has none or too many. If one
 * counts (past TRACE_EPSILON, before the sky), any_hit_ray would find a
 * hit too, since the boxes never drop a triangle a ray meets
 * (WIDE_BOX_PAD): the same answer without the walk. */
#ifdef TRACE_AVX2
/* seen_dists' tests four at a time, by ray_tri4 over facepairs. */
__attribute__((target("avx2"))) static inline void seen_dists_avx2(const rtri_t *pp, int n, const wray_t *r,
                                                                   double x[SEEN_MAX])
{
    for (int k = 0; k < n; k += 4) {
        double xs[4];
        int left = n - k < 4 ? n - k : 4;
        int m = ray_tri4(&pp[k / 2], left > 2 ? &pp[k / 2 + 1] : &pp[k / 2], left, &r->pr, xs);
        for (int l = 0; l < left; l++) x[k + l] = m >> l & 1 ? xs[l] : -1;
    }
}
#endif

static inline __attribute__((always_inline)) int seen_dists(const tracer_t *t, const trace_hit_t *seen,
                                                            const wray_t *r, vec3_t o, vec3_t d, double x[SEEN_MAX],
                                                            bool avx)
{
    if (seen->face < 0 || seen->face >= t->numfacetri) return 0;
    int first = t->facetri_first[seen->face], n = t->facetri_first[seen->face + 1] - first;
    if (n > SEEN_MAX) return 0;
#ifdef TRACE_AVX2
    if (avx) {
        seen_dists_avx2(t->facepairs + t->facepair_first[seen->face], n, r, x);
        return n;
    }
#else
    (void)avx;
#endif
#ifdef WIDE_SSE
    (void)o, (void)d;
    /* two of the face's triangles a test (facepairs) */
    const rtri_t *pp = t->facepairs + t->facepair_first[seen->face];
    for (int k = 0; k < n; k += 2) {
        double xs[2];
        int m = ray_tri2(&pp[k / 2], &r->pr, xs);
        x[k] = m & 1 ? xs[0] : -1;
        if (k + 1 < n) x[k + 1] = m & 2 ? xs[1] : -1;
    }
#else
    (void)r;
    for (int k = 0; k < n; k++) x[k] = ray_tri(&t->tris[t->facetri[first + k]], o, d);
#endif
    return n;
}

/* The nearest sky triangle first (its hierarchy is small), then whether any
 * triangle of the world's comes before it, where any one will do: the
 * answer trace_closest would give, the same tie rule included, without
 * finding the nearest of all. With seen, the face that blocked the last
 * ray of this direction is tried first, then the hierarchy's part around
 * it, and seen keeps what blocks this ray. */
static inline __attribute__((always_inline)) int sky_dir_walk(const tracer_t *t, vec3_t o, const trace_dir_t *td,
                                                              double maxdist, double *hitdist, trace_hit_t *seen,
                                                              bool avx)
{
    if (hitdist) *hitdist = maxdist;
    if (t->numskynodes == 0) return -1;
    double dist;
    wray_t r; /* the same ray in both hierarchies */
    wray_from(&r, o, td);
    /* The seen face met at x (its nearest triangle): unless a sky triangle
     * lies at x or nearer, the ray is blocked (or meets no sky), and
     * nearest_sky need only look that far; if one does, it is the nearest
     * of all. */
    double xs[SEEN_MAX];
    int ns = seen ? seen_dists(t, seen, &r, o, td->d, xs, avx) : 0;
    double x = INFINITY;
    for (int k = 0; k < ns; k++)
        if (xs[k] > TRACE_EPSILON && xs[k] < x) x = xs[k];
    double reach = x < maxdist ? nextafter(x, INFINITY) : maxdist;
    int rank, face = nearest_sky_walk(t, &r, o, td->d, reach, &dist, &rank, avx);
    if (face < 0) return -1;
    for (int k = 0; k < ns; k++)
        if (xs[k] > TRACE_EPSILON &&
            (xs[k] < dist ||
             (xs[k] == dist && t->tris[t->facetri[t->facetri_first[seen->face] + k]].rank < rank)))
            return -1;
    /* then the part of the hierarchy around the last blocker, then the
     * rest: a hit in either is one the whole walk would find */
    hit_test_t h = {.filter = HIT_ALL};
    int near = seen ? seen->node : -1;
    if (near > 0 && any_hit_walk(t, &h, &r, o, td->d, dist, rank, seen, near, -1, avx)) {
        seen->nearhits++;
        return -1;
    }
    if (any_hit_walk(t, &h, &r, o, td->d, dist, rank, seen, 0, near > 0 ? near : -1, avx)) return -1;
    if (hitdist) *hitdist = dist;
    return face;
}

#ifdef TRACE_AVX2
__attribute__((target("avx2"))) static int sky_dir_avx2(const tracer_t *t, vec3_t o, const trace_dir_t *td,
                                                        double maxdist, double *hitdist, trace_hit_t *seen)
{
    return sky_dir_walk(t, o, td, maxdist, hitdist, seen, true);
}
#endif

int trace_sky_dir(const tracer_t *t, vec3_t o, const trace_dir_t *td, double maxdist, double *hitdist,
                  trace_hit_t *seen)
{
#ifdef TRACE_AVX2
    if (t->wide_avx2) return sky_dir_avx2(t, o, td, maxdist, hitdist, seen);
#endif
    return sky_dir_walk(t, o, td, maxdist, hitdist, seen, false);
}

int trace_sky(const tracer_t *t, vec3_t o, vec3_t d, double maxdist, double *hitdist)
{
    trace_dir_t td;
    trace_dir_init(&td, d);
    return trace_sky_dir(t, o, &td, maxdist, hitdist, NULL);
}

int qrad_point_leaf_side(const bsp_t *bsp, vec3_t p, bool on_plane_back)
{
    if (bsp->numnodes == 0 || bsp->nummodels == 0) return bsp->numleafs > 0 ? 0 : -1;
    int n = bsp->models[0].headnode;
    int guard = 0;
    while (n >= 0) {
        if (n >= bsp->numnodes || ++guard > 100000) return -1;
        const dnode_t *node = &bsp->nodes[n];
        if (node->planenum < 0 || node->planenum >= bsp->numplanes) return -1;
        const dplane_t *pl = &bsp->planes[node->planenum];
        double d = p.x * pl->normal[0] + p.y * pl->normal[1] + p.z * pl->normal[2] - pl->dist;
        bool front = on_plane_back ? d > 0 : d >= 0;
        n = node->children[front ? 0 : 1];
    }
    int leaf = -1 - n;
    return leaf < bsp->numleafs ? leaf : -1;
}

int qrad_point_leaf(const bsp_t *bsp, vec3_t p) { return qrad_point_leaf_side(bsp, p, false); }

bool qrad_point_solid(const bsp_t *bsp, vec3_t p)
{
    return qrad_leaf_solid(bsp, qrad_point_leaf(bsp, p));
}

int qrad_point_cluster(const bsp_t *bsp, vec3_t p)
{
    return qrad_leaf_cluster(bsp, qrad_point_leaf(bsp, p));
}

/* Two leaf boxes within this many units of each other are taken to touch
 * (the bsp rounds leaf bounds out to whole units). */
#define LEAF_TOUCH_EPSILON 1.0

/* Opaque liquids block vis (qbsp writes no portal between a liquid and the
 * air beside it) but cast no shadow, so the PVS alone would cull light that
 * crosses their surface. Where a liquid leaf touches a leaf of another
 * cluster that the PVS says it cannot see, the two clusters are across a
 * liquid surface; then a cluster sees, besides its own row, what the
 * clusters across a surface from the clusters it sees see (one crossing).
 * A map without such a pair keeps its PVS as it is. */
static void pvs_through_liquids(qrad_t *q)
{
    const bsp_t *bsp = q->bsp;
    int n = q->numclusters, rb = q->pvs_rowbytes;
    /* across[c]: the clusters across a liquid surface from c */
    int *cnt = q2_calloc((size_t)n, sizeof(int));
    int npairs = 0, cap = 0;
    int(*pairs)[2] = NULL;
    for (int i = 0; i < bsp->numleafs; i++) {
        const dleaf_t *a = &bsp->leafs[i];
        if (a->cluster < 0 || a->cluster >= n || !(a->contents & MASK_LIQUID)) continue;
        for (int j = 0; j < bsp->numleafs; j++) {
            const dleaf_t *b = &bsp->leafs[j];
            if (b->cluster < 0 || b->cluster >= n || b->cluster == a->cluster) continue;
            if (!((a->contents ^ b->contents) & MASK_LIQUID)) continue;
            if (qrad_cluster_visible(q, a->cluster, b->cluster)) continue;
            bool touch = true;
            for (int ax = 0; ax < 3 && touch; ax++)
                touch = a->mins[ax] <= b->maxs[ax] + LEAF_TOUCH_EPSILON && b->mins[ax] <= a->maxs[ax] + LEAF_TOUCH_EPSILON;
            if (!touch) continue;
            if (npairs + 2 > cap) {
                cap = cap ? cap * 2 : 64;
                pairs = q2_realloc(pairs, sizeof *pairs * (size_t)cap);
            }
            pairs[npairs][0] = a->cluster, pairs[npairs++][1] = b->cluster;
            pairs[npairs][0] = b->cluster, pairs[npairs++][1] = a->cluster;
            cnt[a->cluster]++, cnt[b->cluster]++;
        }
    }
    if (npairs == 0) {
        free(cnt);
        return;
    }
    int *first = q2_malloc(sizeof(int) * ((size_t)n + 1)), *across = q2_malloc(sizeof(int) * (size_t)npairs);
    first[0] = 0;
    for (int c = 0; c < n; c++) first[c + 1] = first[c] + cnt[c];
    memset(cnt, 0, sizeof(int) * (size_t)n);
    for (int k = 0; k < npairs; k++) across[first[pairs[k][0]] + cnt[pairs[k][0]]++] = pairs[k][1];
    free(pairs);
    free(cnt);
    uint8_t *out = q2_malloc((size_t)n * rb);
#pragma omp parallel for schedule(dynamic, 16) num_threads(q->opts->threads)
    for (int c = 0; c < n; c++) {
        const uint8_t *row = q->pvs + (size_t)c * rb;
        uint8_t *o = out + (size_t)c * rb;
        memcpy(o, row, (size_t)rb);
        for (int x = 0; x < n; x++) {
            if (!((row[x >> 3] >> (x & 7)) & 1)) continue;
            for (int k = first[x]; k < first[x + 1]; k++) {
                const uint8_t *yr = q->pvs + (size_t)across[k] * rb;
                for (int b = 0; b < rb; b++) o[b] |= yr[b];
            }
        }
    }
    free(first);
    free(across);
    free(q->pvs);
    q->pvs = out;
}

bool qrad_pvs_setup(qrad_t *q, q2err_t *err)
{
    q->numclusters = bsp_num_clusters(q->bsp);
    q->pvs = NULL;
    if (q->numclusters <= 0 || q->opts->nopvs) return true;
    const uint8_t *vis = q->bsp->visdata;
    int vissize = q->bsp->visdatasize, n = q->numclusters;
    q2err_t verr;
    /* vis_lump_check and the rows' decompression, cluster by cluster on
     * the rank's threads; the first failing cluster in order is checked
     * again for its message, as vis_lump_check would give it. */
    bool ok = vis_lump_check_header(vis, vissize, &verr);
    int badcheck = n, badrow = n;
    if (ok) {
        q->pvs_rowbytes = vis_row_bytes(n);
        q->pvs = q2_malloc((size_t)n * q->pvs_rowbytes);
        int nchunk = (n + QRAD_LOCAL_CHUNK - 1) / QRAD_LOCAL_CHUNK;
        dist_local_t *lt = dist_local_begin(q->opts->dist, nchunk);
#pragma omp parallel for schedule(dynamic, 1) num_threads(q->opts->threads) reduction(min : badcheck, badrow)
        for (int ch = 0; ch < nchunk; ch++) {
            double t0 = dist_local_start(lt);
            for (int c = ch * QRAD_LOCAL_CHUNK; c < n && c < (ch + 1) * QRAD_LOCAL_CHUNK; c++) {
                q2err_t e;
                if (!vis_lump_check_cluster(vis, vissize, c, &e)) badcheck = c < badcheck ? c : badcheck;
                else if (!vis_lump_row(vis, vissize, c, DVIS_PVS, q->pvs + (size_t)c * q->pvs_rowbytes))
                    badrow = c < badrow ? c : badrow;
            }
            dist_local_done(lt, ch, t0);
        }
        dist_local_end(lt);
        if (badcheck < n) ok = vis_lump_check_cluster(vis, vissize, badcheck, &verr);
    }
    if (!ok) {
        free(q->pvs);
        q->pvs = NULL;
        log_warn(q->log, "visibility lump is malformed (%s); lighting without PVS culling", verr.msg);
        q->numclusters = 0;
        return true;
    }
    if (badrow < n) {
        free(q->pvs);
        q->pvs = NULL;
        return q2err_set(err, NULL, 0, 0, "visibility row %d is malformed", badrow);
    }
    /* qrad3 culls by the PVS as it is (its PvsForOrigin): light does not
     * cross a liquid surface that blocks vis. */
    if (!q->opts->qrad3_pvs) pvs_through_liquids(q);
    return true;
}

/* The world's tree flattened for line tests: the plane inline in double,
 * children as node indices or ~leaf with the leaf's solidity in bit 30, so
 * a test touches one small record per node. */
struct tnode_t {
    double n[3], d;
    int type;
    int child[2]; /* >= 0 node; -1 an empty leaf; -2 - leaf a solid leaf */
    int leaf[2];  /* a leaf child's leaf (-1 past the leafs), for trace_point_leaf */
    int pad_[3];  /* to 64 bytes: with the array on a line's start, a node is one cache line */
};
_Static_assert(sizeof(tnode_t) == 64, "a tree node fills one cache line");

/* A solid leaf's way down from the world's head node, as node * 2 +
 * child, for trace_witness_blocks. Made only where the tree is a tree no
 * deeper than line_solid_r's guard (every leaf and node reached once from
 * the head, depth at most SOLID_PATH_MAX): otherwise there are none and
 * no witness is ever taken. */
#define SOLID_PATH_MAX 1000
/* At most this many planes over all solid leaves' ways (36 bytes each):
 * past it a map gets no witnesses, which only makes it slower. */
#define SOLID_PATH_PLANES (4 << 20)
/* Planes after each leaf's that every point is inside, so the tests may
 * take planes two or four at a time past the leaf's last. */
#define WITNESS_PAD 3

/* How far inside each plane of a witness's way a point of the segment
 * must lie: twice ON_EPSILON, so that after any rounding of the sums here
 * (1e-9 at most for map coordinates) the point is more than ON_EPSILON
 * from every plane, on the witness's side. */
#define WITNESS_MARGIN (2 * ON_EPSILON)

/* The witness test's planes cut down to those near the leaf
 * (witness_reduce), for trace_witness_blocks.
 *
 * Let B be the box of the leaf's way: the box of WITNESS_BOX cut by every
 * axial plane on the way, which holds the leaf's region. A plane of the
 * way that every point of B lies WITNESS_KEEP or more inside is dropped;
 * the rest are kept, among them every plane a face of B lies on (the
 * axial ones that cut it, at 0 from it) and those of WITNESS_BOX's faces
 * that B reaches. A point x inside every kept plane by WITNESS_MARGIN is
 * then inside B (inside each plane of its faces), so inside every dropped
 * plane by WITNESS_KEEP: inside every plane of the way by the margin, all
 * that the proof at trace_witness_blocks (below) asks. WITNESS_KEEP's 0.05
 * over the margin covers the rounding of the corners' distances. */
#define WITNESS_KEEP (WITNESS_MARGIN + 0.05)
#define WITNESS_BOX 262144.0

/* Leaf l's kept planes into keep4 (x, y, z, dist each); returns how many,
 * or -1 where they would be as many as its way's (a leaf without a way,
 * never a witness, or one near the world's edge, whose box keeps the box's
 * planes too): its way serves then. */
static int reduce_leaf(const tracer_t *t, int l, double *keep4)
{
    const int first = t->solidpath_first[l], nw = t->solidpath_first[l + 1] - first;
    if (nw == 0) return -1;
    const int nb = nw + WITNESS_PAD;
    const double *px = t->solidplanes + 4 * (size_t)(first + WITNESS_PAD * l), *py = px + nb, *pz = py + nb,
                 *pd = pz + nb;
    double lo[3] = {-WITNESS_BOX, -WITNESS_BOX, -WITNESS_BOX}, hi[3] = {WITNESS_BOX, WITNESS_BOX, WITNESS_BOX};
    for (int k = 0; k < nw; k++) {
        const double a[3] = {px[k], py[k], pz[k]};
        for (int c = 0; c < 3; c++) {
            /* an axial plane (solid_paths stores it as +-1 on one axis) */
            if (a[(c + 1) % 3] != 0 || a[(c + 2) % 3] != 0) continue;
            if (a[c] == 1.0 && pd[k] > lo[c]) lo[c] = pd[k];
            if (a[c] == -1.0 && -pd[k] < hi[c]) hi[c] = -pd[k];
        }
    }
    int m = 0;
    for (int k = 0; k < nw + 6; k++) {
        double a[3] = {0, 0, 0}, dd;
        if (k < nw) {
            a[0] = px[k];
            a[1] = py[k];
            a[2] = pz[k];
            dd = pd[k];
        } else {
            a[(k - nw) / 2] = (k - nw) & 1 ? -1.0 : 1.0;
            dd = -WITNESS_BOX;
        }
        /* the plane's least distance over B, at B's nearest corner (an
         * empty B, lo above hi on some axis, keeps the two planes that
         * cross there: no point is inside both) */
        double low = -dd;
        for (int c = 0; c < 3; c++) low += a[c] * (a[c] >= 0 ? lo[c] : hi[c]);
        if (low >= WITNESS_KEEP) continue;
        keep4[4 * m] = a[0];
        keep4[4 * m + 1] = a[1];
        keep4[4 * m + 2] = a[2];
        keep4[4 * m + 3] = dd;
        m++;
    }
    return m < nw ? m : -1;
}

/* tracer_t.wred_first and wredplanes: each leaf's kept planes, padded as
 * solidplanes are, or an empty block where its way serves. spirit2dm1's
 * 1340 solid leaves keep 6.6 of their ways' 15.9 planes on average,
 * spirit2dm4's 932 keep 7.6 of 16.5. */
static void witness_reduce(tracer_t *t)
{
    t->wred_first = NULL;
    t->wredplanes = NULL;
    const int nl = t->numsolidpathleafs;
    if (!t->solidpath_first || nl <= 0) return;
    int *rfirst = q2_malloc(sizeof(int) * ((size_t)nl + 1));
    /* (a leaf keeps fewer planes than its way holds, or none) */
    size_t total = 0;
    for (int l = 0; l < nl; l++) total += (size_t)(t->solidpath_first[l + 1] - t->solidpath_first[l] + WITNESS_PAD);
    double *planes = q2_malloc(sizeof(double) * 4 * (total > 0 ? total : 1)), *buf = NULL;
    int bufcap = 0;
    size_t at = 0;
    for (int l = 0; l < nl; l++) {
        const int nw = t->solidpath_first[l + 1] - t->solidpath_first[l];
        buf = q2_grow(buf, sizeof(double) * 4, &bufcap, nw + 6);
        const int m = reduce_leaf(t, l, buf), nb = m >= 0 ? m + WITNESS_PAD : 0;
        rfirst[l] = (int)at;
        double *px = planes + 4 * at, *py = px + nb, *pz = py + nb, *pd = pz + nb;
        for (int k = 0; k < nb; k++) {
            bool real = k < m;
            px[k] = real ? buf[4 * k] : 0;
            py[k] = real ? buf[4 * k + 1] : 0;
            pz[k] = real ? buf[4 * k + 2] : 0;
            pd[k] = real ? buf[4 * k + 3] : -1e30;
        }
        at += (size_t)nb;
    }
    rfirst[nl] = (int)at;
    free(buf);
    t->wred_first = rfirst;
    t->wredplanes = planes;
}

static void solid_paths(tracer_t *t, int numleafs)
{
    t->solidpath_first = NULL;
    t->solidpath = NULL;
    t->solidplanes = NULL;
    t->tdepth = NULL;
    t->avx2 = false;
    if (numleafs <= 0) return;
    int *first = q2_calloc((size_t)numleafs + 1, sizeof(int)), *len = q2_calloc((size_t)numleafs, sizeof(int));
    uint8_t *seen = q2_calloc((size_t)t->numtnodes, 1), *leafseen = q2_calloc((size_t)numleafs, 1);
    int *stack = q2_malloc(sizeof(int) * (SOLID_PATH_MAX + 1) * 2), *way = q2_malloc(sizeof(int) * (SOLID_PATH_MAX + 1));
    int *path = NULL;
    bool ok = true;
    /* two walks: the first measures each solid leaf's way, the second writes it */
    for (int pass = 0; pass < 2 && ok; pass++) {
        memset(seen, 0, (size_t)t->numtnodes);
        memset(leafseen, 0, (size_t)numleafs);
        /* (node, next child to take) per level */
        int sp = 0;
        stack[0] = t->headnode;
        stack[1] = 0;
        seen[t->headnode] = 1;
        while (sp >= 0 && ok) {
            int node = stack[2 * sp], c = stack[2 * sp + 1];
            if (c == 2) {
                sp--;
                continue;
            }
            stack[2 * sp + 1] = c + 1;
            way[sp] = node * 2 + c;
            int ch = t->tnodes[node].child[c];
            if (ch >= 0) {
                if (seen[ch] || sp + 1 > SOLID_PATH_MAX) {
                    ok = false;
                    break;
                }
                seen[ch] = 1;
                sp++;
                stack[2 * sp] = ch;
                stack[2 * sp + 1] = 0;
            } else if (ch <= -2) {
                int leaf = -2 - ch;
                if (leafseen[leaf]) {
                    ok = false;
                    break;
                }
                leafseen[leaf] = 1;
                if (pass == 0)
                    len[leaf] = sp + 1;
                else
                    memcpy(path + first[leaf], way, sizeof(int) * (size_t)(sp + 1));
            }
        }
        if (pass == 0 && ok) {
            long long sum = 0;
            for (int l = 0; l < numleafs; l++) sum += len[l];
            if (sum + (long long)WITNESS_PAD * numleafs > SOLID_PATH_PLANES) {
                ok = false;
                break;
            }
            for (int l = 0; l < numleafs; l++) first[l + 1] = first[l] + len[l];
            path = q2_malloc(sizeof(int) * (size_t)(first[numleafs] > 0 ? first[numleafs] : 1));
        }
    }
    free(len);
    free(seen);
    free(leafseen);
    free(stack);
    free(way);
    if (!ok) {
        free(first);
        free(path);
        return;
    }
    /* the planes, turned so that a leaf's side is d > 0, component by
     * component per leaf; each node's depth below the head */
    int total = first[numleafs] + WITNESS_PAD * numleafs;
    double *planes = q2_malloc(sizeof(double) * 4 * (size_t)total);
    int *depth = q2_malloc(sizeof(int) * (size_t)t->numtnodes);
    for (int i = 0; i < t->numtnodes; i++) depth[i] = -1;
    for (int l = 0; l < numleafs; l++) {
        int nw = first[l + 1] - first[l];
        const int nb = nw + WITNESS_PAD;
        double *px = planes + 4 * (size_t)(first[l] + WITNESS_PAD * l), *py = px + nb, *pz = py + nb, *pd = pz + nb;
        for (int k = 0; k < nw; k++) {
            int node = path[first[l] + k] >> 1;
            const tnode_t *n = &t->tnodes[node];
            double sg = path[first[l] + k] & 1 ? -1.0 : 1.0;
            /* the plane the walk tests: an axial one by its coordinate
             * alone, whatever small parts its stored normal has */
            for (int c = 0; c < 3; c++) {
                double nc = n->type < 3 ? (c == n->type ? 1.0 : 0.0) : n->n[c];
                (c == 0 ? px : c == 1 ? py : pz)[k] = sg * nc;
            }
            pd[k] = sg * n->d;
            depth[node] = k;
        }
        /* every point is inside this one */
        for (int k = nw; k < nb; k++) {
            px[k] = py[k] = pz[k] = 0;
            pd[k] = -1e30;
        }
    }
    t->numsolidpathleafs = numleafs;
    t->solidpath_first = first;
    t->solidpath = path;
    t->solidplanes = planes;
    t->tdepth = depth;
    t->avx2 = cpu_has_avx2();
    witness_reduce(t);
}

bool tracer_build_tree(tracer_t *t, const bsp_t *bsp, q2err_t *err)
{
    t->tnodes = NULL;
    t->numtnodes = 0;
    if (bsp->numnodes == 0 || bsp->nummodels == 0 || bsp->models[0].headnode < 0) return true;
    t->tnodes = q2_aligned_alloc(64, sizeof(tnode_t) * (size_t)bsp->numnodes);
    for (int i = 0; i < bsp->numnodes; i++) {
        const dnode_t *dn = &bsp->nodes[i];
        if (dn->planenum < 0 || dn->planenum >= bsp->numplanes) {
            q2_aligned_free(t->tnodes);
            t->tnodes = NULL;
            return q2err_set(err, NULL, 0, 0, "node %d: plane %d out of range", i, dn->planenum);
        }
        const dplane_t *pl = &bsp->planes[dn->planenum];
        tnode_t *tn = &t->tnodes[i];
        for (int k = 0; k < 3; k++) tn->n[k] = pl->normal[k];
        tn->d = pl->dist;
        tn->type = pl->type < 3 && pl->normal[pl->type] == 1.0f ? pl->type : 3;
        for (int c = 0; c < 2; c++) {
            int ch = dn->children[c];
            if (ch >= 0) {
                if (ch >= bsp->numnodes) {
                    q2_aligned_free(t->tnodes);
                    t->tnodes = NULL;
                    return q2err_set(err, NULL, 0, 0, "node %d: child %d out of range", i, ch);
                }
                tn->child[c] = ch;
            } else {
                int leaf = -1 - ch;
                bool solid = leaf < bsp->numleafs && (bsp->leafs[leaf].contents & CONTENTS_SOLID);
                tn->child[c] = solid ? -2 - leaf : -1;
                tn->leaf[c] = leaf < bsp->numleafs ? leaf : -1;
            }
        }
    }
    t->numtnodes = bsp->numnodes;
    t->headnode = bsp->models[0].headnode < bsp->numnodes ? bsp->models[0].headnode : 0;
    solid_paths(t, bsp->numleafs);
    return true;
}

/* How far a box's extreme corner must lie from a plane for every point
 * of the box to take that side in trace_point_leaf: far above the
 * rounding of its sum over map coordinates (~1e-10). */
#define POINT_START_MARGIN 1e-6

int trace_point_start(const qrad_t *q, aabb_t box)
{
    const bsp_t *bsp = q->bsp;
    const tnode_t *nodes = q->tracer.tnodes;
    if (!nodes || bsp->nummodels == 0 || bsp->models[0].headnode != q->tracer.headnode || aabb_is_empty(&box))
        return -1;
    const double lo[3] = {box.mins.x, box.mins.y, box.mins.z}, hi[3] = {box.maxs.x, box.maxs.y, box.maxs.z};
    int n = q->tracer.headnode;
    for (int guard = 0; guard < 100000; guard++) {
        const tnode_t *tn = &nodes[n];
        double dmin = -tn->d, dmax = -tn->d;
        for (int k = 0; k < 3; k++) {
            dmin += tn->n[k] * (tn->n[k] >= 0 ? lo[k] : hi[k]);
            dmax += tn->n[k] * (tn->n[k] >= 0 ? hi[k] : lo[k]);
        }
        int c;
        if (dmin >= POINT_START_MARGIN) c = 0;
        else if (dmax <= -POINT_START_MARGIN) c = 1;
        else return n;
        /* a leaf below: the walk from here is one step */
        if (tn->child[c] < 0) return n;
        n = tn->child[c];
    }
    return -1;
}

/* The leaf of p below node n of the tracer's tree. */
static int point_leaf_below(const tnode_t *nodes, int n, vec3_t p)
{
    for (int guard = 0; guard < 100000; guard++) {
        const tnode_t *tn = &nodes[n];
        /* the same sum as qrad_point_leaf_side's, on the same values */
        double d = p.x * tn->n[0] + p.y * tn->n[1] + p.z * tn->n[2] - tn->d;
        int c = d >= 0 ? 0 : 1;
        if (tn->child[c] < 0) return tn->leaf[c];
        n = tn->child[c];
    }
    return -1;
}

int trace_point_leaf_from(const qrad_t *q, int start, vec3_t p)
{
    return start < 0 ? trace_point_leaf(q, p) : point_leaf_below(q->tracer.tnodes, start, p);
}

int trace_point_leaf(const qrad_t *q, vec3_t p)
{
    const bsp_t *bsp = q->bsp;
    const tnode_t *nodes = q->tracer.tnodes;
    /* the tracer's tree has the bsp's checks done; without it, or with a
     * head node it had to replace, the bsp's own walk */
    if (!nodes || bsp->nummodels == 0 || bsp->models[0].headnode != q->tracer.headnode)
        return qrad_point_leaf(bsp, p);
    return point_leaf_below(nodes, q->tracer.headnode, p);
}

/* The child a piece of a segment with plane distances d1 and d2 (at its
 * ends) goes to whole: 0 the front, where both ends are within ON_EPSILON
 * of it or beyond (so a piece along a plane stays on its front, as
 * qrad3's TestLine has it), 1 the back, -1 where the piece crosses the
 * plane and is cut. NaN fails both. */
static inline int piece_side(double d1, double d2)
{
    if (d1 >= -ON_EPSILON && d2 >= -ON_EPSILON) return 0;
    if (d1 < ON_EPSILON && d2 < ON_EPSILON) return 1;
    return -1;
}

/* Does the segment p1-p2 touch a solid leaf below node? Points within
 * ON_EPSILON of a plane count as on its front, as qrad3's TestLine does, so
 * a segment running along a wall's surface is not blocked by that wall.
 * Returns the first solid leaf it meets (near p1 first), or -1. */
static int line_solid_leaf_r(const tnode_t *nodes, int node, const double *p1in, const double *p2, int depth)
{
    double p1[3] = {p1in[0], p1in[1], p1in[2]};
    while (node >= 0) {
        if (depth > 1024) return -1;
        const tnode_t *n = &nodes[node];
        double d1, d2;
        if (n->type < 3) {
            d1 = p1[n->type] - n->d;
            d2 = p2[n->type] - n->d;
        } else {
            d1 = p1[0] * n->n[0] + p1[1] * n->n[1] + p1[2] * n->n[2] - n->d;
            d2 = p2[0] * n->n[0] + p2[1] * n->n[1] + p2[2] * n->n[2] - n->d;
        }
        const int whole = piece_side(d1, d2);
        if (whole >= 0) {
            node = n->child[whole];
            continue;
        }
        int side = d1 < 0;
        double frac = d1 / (d1 - d2);
        double mid[3] = {p1[0] + frac * (p2[0] - p1[0]), p1[1] + frac * (p2[1] - p1[1]), p1[2] + frac * (p2[2] - p1[2])};
        int hit = line_solid_leaf_r(nodes, n->child[side], p1, mid, depth + 1);
        if (hit >= 0) return hit;
        node = n->child[!side];
        p1[0] = mid[0];
        p1[1] = mid[1];
        p1[2] = mid[2];
        depth++;
    }
    return node <= -2 ? -2 - node : -1;
}

static bool line_solid_r(const tnode_t *nodes, int node, const double *p1in, const double *p2, int depth)
{
    return line_solid_leaf_r(nodes, node, p1in, p2, depth) >= 0;
}

/* The far pieces line_solid_flat keeps at most; past them it gives up. */
#define FLAT_STACK 64
#define FLAT_TOO_DEEP (-3)

/* line_solid_leaf_r without the recursion: the same pieces in the same
 * order (near piece first, its far piece waiting on a stack), so the same
 * first solid leaf, with the coordinates in variables rather than arrays
 * indexed by the plane's type (0.79-0.88 of the recursion's time over
 * spirit2dm1's 3.4 million bounce walks, replayed, the same leaf for
 * every one). No depth guard: only for a tree solid_paths found within
 * SOLID_PATH_MAX, where the recursion's never bites (each split of a
 * piece's line is at a node further down one way). FLAT_TOO_DEEP when
 * more than FLAT_STACK pieces would wait. */
static int line_solid_flat(const tnode_t *nodes, int node, const double *p1, const double *p2)
{
    struct {
        double a[3], b[3];
        int node;
    } wait[FLAT_STACK];
    int sp = 0;
    double a0 = p1[0], a1 = p1[1], a2 = p1[2], b0 = p2[0], b1 = p2[1], b2 = p2[2];
    for (;;) {
        while (node >= 0) {
            const tnode_t *n = &nodes[node];
            double d1, d2;
            if (n->type == 0) {
                d1 = a0 - n->d;
                d2 = b0 - n->d;
            } else if (n->type == 1) {
                d1 = a1 - n->d;
                d2 = b1 - n->d;
            } else if (n->type == 2) {
                d1 = a2 - n->d;
                d2 = b2 - n->d;
            } else {
                d1 = a0 * n->n[0] + a1 * n->n[1] + a2 * n->n[2] - n->d;
                d2 = b0 * n->n[0] + b1 * n->n[1] + b2 * n->n[2] - n->d;
            }
            const int whole = piece_side(d1, d2);
            if (whole >= 0) {
                node = n->child[whole];
                continue;
            }
            if (sp == FLAT_STACK) return FLAT_TOO_DEEP;
            int side = d1 < 0;
            double frac = d1 / (d1 - d2);
            double m0 = a0 + frac * (b0 - a0), m1 = a1 + frac * (b1 - a1), m2 = a2 + frac * (b2 - a2);
            wait[sp].a[0] = m0;
            wait[sp].a[1] = m1;
            wait[sp].a[2] = m2;
            wait[sp].b[0] = b0;
            wait[sp].b[1] = b1;
            wait[sp].b[2] = b2;
            wait[sp].node = n->child[!side];
            sp++;
            b0 = m0;
            b1 = m1;
            b2 = m2;
            node = n->child[side];
        }
        if (node <= -2) return -2 - node;
        if (sp == 0) return -1;
        sp--;
        a0 = wait[sp].a[0];
        a1 = wait[sp].a[1];
        a2 = wait[sp].a[2];
        b0 = wait[sp].b[0];
        b1 = wait[sp].b[1];
        b2 = wait[sp].b[2];
        node = wait[sp].node;
    }
}

/* The world tree's walk from node: line_solid_flat where it may (a tree
 * solid_paths found within its depth), else, and past its stack, the
 * recursion; the same answer and leaf either way. */
static int world_solid_leaf(const tracer_t *t, int node, const double *p1, const double *p2)
{
    if (t->solidpath_first) {
        int r = line_solid_flat(t->tnodes, node, p1, p2);
        if (r != FLAT_TOO_DEEP) return r;
    }
    return line_solid_leaf_r(t->tnodes, node, p1, p2, 0);
}

/* Why a witness's answer is line_solid_r's: let x be a point of a-b more
 * than ON_EPSILON inside every plane on the way to solid leaf w. Start
 * line_solid_r at any node on that way (the head, or a start node above
 * w). At each node the piece of the segment that holds x goes to x's
 * child: a piece sent whole to one child has both ends within ON_EPSILON
 * of that side, and so has x, which lies between them; a piece that is
 * cut has x in the part of the end on x's side (the cut is on the plane,
 * x is not near it). So the piece holding x reaches w, which is solid,
 * unless the walk met another solid leaf first: either way it answers
 * blocked (its depth guard never bites, the way being shorter than it).
 * The cut points are rounded, so the pieces lie off the line a-b by a few
 * ulps of the map's coordinates times the depth (about 1e-9): the margin's
 * second ON_EPSILON covers that, and the rounding of the test itself. */
#ifdef WIDE_SSE
/* The test W planes at a time on x86's vectors, written once over the
 * operations P##add_pd and so on of SSE2 (P _mm_, W 2) and AVX2 (P
 * _mm256_, W 4). The part of the segment, a + s (b - a) for s in (s0, s1),
 * inside every plane by the margin: a plane both ends are outside of ends
 * it; where exactly one end is inside, the segment crosses (da - db is
 * not 0 there), elsewhere the quotient is by 1 and changes nothing. */
#define WITNESS_SEL(P, mask, x, y) P##or_pd(P##and_pd(mask, x), P##andnot_pd(mask, y))
#define WITNESS_BODY(V, P, GT, W)                                                                                      \
    const V ax = P##set1_pd(a.x), ay = P##set1_pd(a.y), az = P##set1_pd(a.z);                                          \
    const V bx = P##set1_pd(b.x), by = P##set1_pd(b.y), bz = P##set1_pd(b.z);                                          \
    const V m = P##set1_pd(WITNESS_MARGIN), zero = P##setzero_pd(), one = P##set1_pd(1.0);                             \
    V s0 = zero, s1 = one;                                                                                             \
    for (int k = from; k < nw; k += W) {                                                                               \
        V nx = P##loadu_pd(px + k), ny = P##loadu_pd(py + k), nz = P##loadu_pd(pz + k),                                \
          dd = P##add_pd(P##loadu_pd(pd + k), m);                                                                      \
        V da = P##sub_pd(P##add_pd(P##add_pd(P##mul_pd(ax, nx), P##mul_pd(ay, ny)), P##mul_pd(az, nz)), dd);           \
        V db = P##sub_pd(P##add_pd(P##add_pd(P##mul_pd(bx, nx), P##mul_pd(by, ny)), P##mul_pd(bz, nz)), dd);           \
        V ina = GT(da, zero), inb = GT(db, zero);                                                                      \
        if (P##movemask_pd(P##or_pd(ina, inb)) != (1 << W) - 1) return false;                                          \
        V cross = P##xor_pd(ina, inb);                                                                                 \
        V c = P##div_pd(da, WITNESS_SEL(P, cross, P##sub_pd(da, db), one));                                           \
        V leaves = P##andnot_pd(inb, ina), enters = P##andnot_pd(ina, inb);                                            \
        s1 = P##min_pd(s1, WITNESS_SEL(P, leaves, c, one));                                                            \
        s0 = P##max_pd(s0, P##and_pd(enters, c));                                                                      \
    }                                                                                                                  \
    double lo[W], hi[W];                                                                                               \
    P##storeu_pd(lo, s0);                                                                                              \
    P##storeu_pd(hi, s1);                                                                                              \
    for (int j = 1; j < W; j++) {                                                                                      \
        lo[0] = lo[j] > lo[0] ? lo[j] : lo[0];                                                                         \
        hi[0] = hi[j] < hi[0] ? hi[j] : hi[0];                                                                         \
    }                                                                                                                  \
    return lo[0] < hi[0];

#define WITNESS_GT2(x, y) _mm_cmpgt_pd(x, y)
static inline bool witness_2(const double *px, const double *py, const double *pz, const double *pd, int from, int nw,
                             vec3_t a, vec3_t b)
{
    WITNESS_BODY(__m128d, _mm_, WITNESS_GT2, 2)
}

/* Four at a time where the CPU has AVX2 (common/cpu.h). Only speed
 * depends on which runs: each says blocked only where the proof above
 * holds. */
#ifdef Q2_AVX2_FORMS
#define WITNESS_AVX2 1
#define WITNESS_GT4(x, y) _mm256_cmp_pd(x, y, _CMP_GT_OQ)
__attribute__((target("avx2"))) static bool witness_4(const double *px, const double *py, const double *pz,
                                                      const double *pd, int from, int nw, vec3_t a, vec3_t b)
{
    WITNESS_BODY(__m256d, _mm256_, WITNESS_GT4, 4)
}
#endif
#endif

bool trace_witness_blocks(const qrad_t *q, int start, int leaf, vec3_t a, vec3_t b)
{
    const tracer_t *t = &q->tracer;
    if (!t->solidpath_first || leaf < 0 || leaf >= t->numsolidpathleafs || start < 0 || start >= t->numtnodes)
        return false;
    const int first = t->solidpath_first[leaf], nw = t->solidpath_first[leaf + 1] - first, from = t->tdepth[start];
    /* start must be on the way: the walk begins there */
    if (from < 0 || from >= nw || t->solidpath[first + from] >> 1 != start) return false;
    /* the leaf's kept planes (witness_reduce), or else its way below start
     * (a walk from start never meets the planes above it) */
    const double *px;
    int lo, hi, nb;
    if (t->wred_first && t->wred_first[leaf + 1] > t->wred_first[leaf]) {
        nb = t->wred_first[leaf + 1] - t->wred_first[leaf];
        px = t->wredplanes + 4 * (size_t)t->wred_first[leaf];
        lo = 0;
        hi = nb - WITNESS_PAD;
    } else {
        nb = nw + WITNESS_PAD;
        px = t->solidplanes + 4 * (size_t)(first + WITNESS_PAD * leaf);
        lo = from;
        hi = nw;
    }
    const double *py = px + nb, *pz = py + nb, *pd = pz + nb;
#ifdef WITNESS_AVX2
    if (t->avx2) return witness_4(px, py, pz, pd, lo, hi, a, b);
#endif
#ifdef WIDE_SSE
    return witness_2(px, py, pz, pd, lo, hi, a, b);
#else
    double s0 = 0, s1 = 1;
    for (int k = lo; k < hi; k++) {
        double da = a.x * px[k] + a.y * py[k] + a.z * pz[k] - (pd[k] + WITNESS_MARGIN);
        double db = b.x * px[k] + b.y * py[k] + b.z * pz[k] - (pd[k] + WITNESS_MARGIN);
        /* (a NaN is outside, as on SSE2) */
        if (!(da > 0) && !(db > 0)) return false;
        if (da > 0 && db > 0) continue;
        double c = da / (da - db);
        if (da > 0) {
            if (c < s1) s1 = c;
        } else if (c > s0) {
            s0 = c;
        }
    }
    return s0 < s1;
#endif
}

int trace_blocking_leaf_from(const qrad_t *q, int start, vec3_t a, vec3_t b)
{
    /* (as trace_occluded_from without a tree; the leaf is unknown) */
    if (start == INT_MIN) return trace_occluded(q, a, b) ? INT_MAX : -1;
    double p1[3] = {a.x, a.y, a.z}, p2[3] = {b.x, b.y, b.z};
    return world_solid_leaf(&q->tracer, start, p1, p2);
}

#ifdef TRACE_AVX2
/* A piece of each lane's segment waiting for its node: the far pieces of
 * line_solid_leaf_r's splits, which it walks after the near ones. */
typedef struct packet_piece_t {
    __m256d a[3], b[3];
    int node;
    unsigned lanes;
} packet_piece_t;

/* The pieces a packet's walk keeps at most: one per split node on its way
 * down, so the tree's depth bounds it; past this the open lanes are walked
 * one by one (the same answers). */
#define PACKET_STACK 64

static const double packet_axis[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

/* All-ones in the lanes of a 4-bit mask, for the blends. */
static const int64_t packet_lane_bits[16][4] = {
    {0, 0, 0, 0},    {-1, 0, 0, 0},   {0, -1, 0, 0},   {-1, -1, 0, 0},  {0, 0, -1, 0},   {-1, 0, -1, 0},
    {0, -1, -1, 0},  {-1, -1, -1, 0}, {0, 0, 0, -1},   {-1, 0, 0, -1},  {0, -1, 0, -1},  {-1, -1, 0, -1},
    {0, 0, -1, -1},  {-1, 0, -1, -1}, {0, -1, -1, -1}, {-1, -1, -1, -1}};

/* line_solid_leaf_r for up to four segments a[l]-b at once, one lane of a
 * vector each: a node is visited once for all the lanes whose pieces
 * reach it, and where they all take one side (mostly: the segments of a
 * face's luxels to one light run side by side) one branch decides for the
 * four. Each lane's pieces are the walk's own: the same plane distances
 * (see below for the axial planes), the same tests, and at a split the
 * same quotient and cut point, its near piece to the side of a[l] and its
 * far piece to the other, so the same pieces reach the same leaves. Only
 * the order differs: where the lanes part, the packet goes first to the
 * side its first open lane takes (that lane's near side where it splits),
 * and a lane stops at the first solid leaf it reaches, which need not be
 * the walk's first. Whether a lane is blocked does not depend on the
 * order (it is whether any of its pieces reaches a solid leaf); the leaf
 * only decides which walks a witness spares. The walk's depth guard never
 * bites here: the caller takes this form only for trees whose depth
 * solid_paths found within SOLID_PATH_MAX. */
__attribute__((target("avx2"))) static void packet_walk_avx2(const tnode_t *nodes, int start, vec3_t b, int n,
                                                             const vec3_t *a, int *leaf)
{
    packet_piece_t stack[PACKET_STACK];
    int sp = 0;
    double la[3][4] = {{0}}, lb[3][4];
    for (int l = 0; l < 4; l++) {
        /* (lanes past n repeat the last segment, so they hold numbers) */
        vec3_t p = a[l < n ? l : n - 1];
        la[0][l] = p.x;
        la[1][l] = p.y;
        la[2][l] = p.z;
        lb[0][l] = b.x;
        lb[1][l] = b.y;
        lb[2][l] = b.z;
    }
    for (int l = 0; l < n; l++) leaf[l] = -1;
    __m256d pa[3], pb[3];
    for (int k = 0; k < 3; k++) {
        pa[k] = _mm256_loadu_pd(la[k]);
        pb[k] = _mm256_loadu_pd(lb[k]);
    }
    const __m256d front = _mm256_set1_pd(-ON_EPSILON), back = _mm256_set1_pd(ON_EPSILON);
    int node = start;
    unsigned lanes = (1u << n) - 1, done = 0;
    for (;;) {
        while (node >= 0) {
            const tnode_t *nd = &nodes[node];
            /* the plane's distance as one sum for every node: an axial
             * plane's normal taken as exactly its axis, so that the sum is
             * the coordinate alone, the walk's value (1 x + 0 y + 0 z adds
             * only zeros to x; at most the sign of a zero differs, and no
             * test below tells zeros apart, nor splits a piece with an end
             * on the plane) */
            const double *wn = nd->type < 3 ? packet_axis[nd->type] : nd->n;
            const __m256d dist = _mm256_set1_pd(nd->d), n0 = _mm256_set1_pd(wn[0]), n1 = _mm256_set1_pd(wn[1]),
                          n2 = _mm256_set1_pd(wn[2]);
            const __m256d d1 = _mm256_sub_pd(
                _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(pa[0], n0), _mm256_mul_pd(pa[1], n1)), _mm256_mul_pd(pa[2], n2)),
                dist);
            const __m256d d2 = _mm256_sub_pd(
                _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(pb[0], n0), _mm256_mul_pd(pb[1], n1)), _mm256_mul_pd(pb[2], n2)),
                dist);
            /* the walk's front test, then its back test (ordered compares:
             * a NaN fails both, as there) */
            unsigned fr = (unsigned)_mm256_movemask_pd(
                              _mm256_and_pd(_mm256_cmp_pd(d1, front, _CMP_GE_OQ), _mm256_cmp_pd(d2, front, _CMP_GE_OQ))) &
                          lanes;
            if (fr == lanes) {
                node = nd->child[0];
                continue;
            }
            unsigned bk = (unsigned)_mm256_movemask_pd(
                              _mm256_and_pd(_mm256_cmp_pd(d1, back, _CMP_LT_OQ), _mm256_cmp_pd(d2, back, _CMP_LT_OQ))) &
                          lanes & ~fr;
            if (bk == lanes) {
                node = nd->child[1];
                continue;
            }
            if (sp == PACKET_STACK) {
                for (int l = 0; l < n; l++)
                    if (!(done >> l & 1)) {
                        double p1[3] = {a[l].x, a[l].y, a[l].z}, p2[3] = {b.x, b.y, b.z};
                        leaf[l] = line_solid_leaf_r(nodes, start, p1, p2, 0);
                    }
                return;
            }
            const unsigned split = lanes & ~fr & ~bk;
            const unsigned behind = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(d1, _mm256_setzero_pd(), _CMP_LT_OQ));
            /* the side the packet takes first: the first open lane's (its
             * near side where it splits: its a on the back is side 1, as
             * the walk's); lanes may also part without any split */
            const int l0 = __builtin_ctz(lanes);
            const int go = (split >> l0 & 1) ? (int)(behind >> l0 & 1) : (int)(bk >> l0 & 1);
            /* splitting lanes whose near piece (a, cut) goes the packet's
             * way now, their far piece (cut, b) waiting; the others the
             * other way round */
            const unsigned near_now = split & (go ? behind : ~behind), near_later = split & ~near_now;
            const __m256d mnow = _mm256_castsi256_pd(_mm256_loadu_si256((const __m256i *)packet_lane_bits[near_now]));
            const __m256d mlater = _mm256_castsi256_pd(_mm256_loadu_si256((const __m256i *)packet_lane_bits[near_later]));
            /* (lanes that do not split may divide by 0 here; their
             * results are blended away) */
            const __m256d frac = _mm256_div_pd(d1, _mm256_sub_pd(d1, d2));
            packet_piece_t *w = &stack[sp++];
            for (int k = 0; k < 3; k++) {
                __m256d cut = _mm256_add_pd(pa[k], _mm256_mul_pd(frac, _mm256_sub_pd(pb[k], pa[k])));
                w->a[k] = _mm256_blendv_pd(pa[k], cut, mnow);
                w->b[k] = _mm256_blendv_pd(pb[k], cut, mlater);
                pb[k] = _mm256_blendv_pd(pb[k], cut, mnow);
                pa[k] = _mm256_blendv_pd(pa[k], cut, mlater);
            }
            const unsigned to0 = fr | split, to1 = bk | split;
            w->node = nd->child[!go];
            w->lanes = go ? to0 : to1;
            lanes = go ? to1 : to0;
            node = nd->child[go];
        }
        if (node <= -2) {
            for (unsigned s = lanes; s; s &= s - 1) leaf[__builtin_ctz(s)] = -2 - node;
            done |= lanes;
        }
        /* the next waiting piece of a lane still open */
        do {
            if (sp == 0) return;
            sp--;
            lanes = stack[sp].lanes & ~done;
        } while (!lanes);
        node = stack[sp].node;
        for (int k = 0; k < 3; k++) {
            pa[k] = stack[sp].a[k];
            pb[k] = stack[sp].b[k];
        }
    }
}
#endif

void trace_blocking_leaves_from(const qrad_t *q, int start, vec3_t b, int n, const vec3_t *a, int *leaf)
{
#ifdef TRACE_AVX2
    /* (avx2 is set only where solid_paths found the tree within its depth) */
    if (n >= 2 && n <= TRACE_PACKET && start != INT_MIN && q->tracer.avx2) {
        packet_walk_avx2(q->tracer.tnodes, start, b, n, a, leaf);
        return;
    }
#endif
    for (int l = 0; l < n; l++) leaf[l] = trace_blocking_leaf_from(q, start, a[l], b);
}

/* The node below which every segment from a point in box to b runs
 * without being split: line_solid_r would pass the nodes above it without
 * a split for each such segment, taking the same child (depth counts only
 * splits), so starting there gives its answer. An axial plane's
 * distance is monotone in the coordinate, so the box's extremes decide
 * exactly; for any other plane the box's nearest corner must clear the
 * test by a margin far above the rounding of a dot product of map-sized
 * coordinates (1e-6 against ~1e-10), or the search stops there. */
int trace_start_node(const qrad_t *q, aabb_t box, vec3_t b)
{
    if (!q->tracer.tnodes) return INT_MIN;
    const tnode_t *nodes = q->tracer.tnodes;
    const double margin = 1e-6, p2[3] = {b.x, b.y, b.z};
    const double lo[3] = {box.mins.x, box.mins.y, box.mins.z}, hi[3] = {box.maxs.x, box.maxs.y, box.maxs.z};
    int node = q->tracer.headnode;
    while (node >= 0) {
        const tnode_t *n = &nodes[node];
        double d2, dmin, dmax;
        if (n->type < 3) {
            d2 = p2[n->type] - n->d;
            dmin = lo[n->type] - n->d;
            dmax = hi[n->type] - n->d;
        } else {
            d2 = p2[0] * n->n[0] + p2[1] * n->n[1] + p2[2] * n->n[2] - n->d;
            dmin = -n->d - margin;
            dmax = -n->d + margin;
            for (int k = 0; k < 3; k++) {
                dmin += n->n[k] * (n->n[k] >= 0 ? lo[k] : hi[k]);
                dmax += n->n[k] * (n->n[k] >= 0 ? hi[k] : lo[k]);
            }
        }
        /* the front test of line_solid_r holds for every segment, or
         * fails for every one while its back test holds for every one */
        if (dmin >= -ON_EPSILON && d2 >= -ON_EPSILON)
            node = n->child[0];
        else if (d2 < -ON_EPSILON ? dmax < ON_EPSILON : dmax < -ON_EPSILON && d2 < ON_EPSILON)
            node = n->child[1];
        else
            break;
    }
    return node;
}

bool trace_occluded_from(const qrad_t *q, int start, vec3_t a, vec3_t b)
{
    if (start == INT_MIN) return trace_occluded(q, a, b);
    double p1[3] = {a.x, a.y, a.z}, p2[3] = {b.x, b.y, b.z};
    return world_solid_leaf(&q->tracer, start, p1, p2) >= 0;
}

bool trace_occluded_channels_from(const qrad_t *q, int start, vec3_t a, vec3_t b, int shadow_mask, int *wit)
{
    /* as trace_occluded_channels; where the world's tree alone decides (no
     * channels), the witness first, and the leaf that blocks kept there */
    if (wit && trace_tree_alone(q, start)) {
        if (!(shadow_mask & 1)) return false;
        if (*wit >= 0 && trace_witness_blocks(q, start, *wit, a, b)) return true;
        int hit = trace_blocking_leaf_from(q, start, a, b);
        if (hit >= 0) *wit = hit;
        return hit >= 0;
    }
    if (!q->world_channels) return (shadow_mask & 1) && trace_occluded_from(q, start, a, b);
    return trace_occluded_from(q, start, a, b) && faces_on_channels(q, a, b, shadow_mask);
}

bool trace_occluded(const qrad_t *q, vec3_t a, vec3_t b)
{
    /* Without a usable tree (hand-built bsps in tests), the faces decide. */
    if (!q->tracer.tnodes) return trace_occluded_faces(&q->tracer, a, b);
    double p1[3] = {a.x, a.y, a.z}, p2[3] = {b.x, b.y, b.z};
    return world_solid_leaf(&q->tracer, q->tracer.headnode, p1, p2) >= 0;
}

/* ------------------------------------------------ translucent faces
 *
 * ericw-tools' light (light/trace_embree.cc: Embree_TraceInit puts these
 * faces in its "filter" geometry, Embree_FilterFuncN tests each hit;
 * Face_Alpha gives the opacity; light/trace.cc SampleTexture the texel).
 * Its rules, in both of qrad's models (not under -preset qrad3, whose
 * qrad3 has none of them):
 *
 * - an alpha-tested face (the re-release's SURF_ALPHATEST) stops light
 *   where the texel the ray crosses is opaque (alpha 255; a .wal's index
 *   255 is its hole) and lets it pass elsewhere;
 * - a translucent face (TRANS33/66, not alpha-tested) lets light through
 *   tinted: each channel times (1 - a) + a c, c the texel's colour, a the
 *   face's _light_alpha if set, else 0.33 (TRANS33) or 0.66 (TRANS66),
 *   replaced by the texel's alpha where that is below 255. A face tints
 *   only the light that enters it from its front (ericw-tools: "only pick
 *   up the color of the glass on the exiting side", the ray running from
 *   the luxel to the light): a brush, or a liquid with its mirrored inside
 *   faces, tints once per crossing;
 * - without a texture image neither happens (its sample is all zero).
 *
 * What differs: ericw-tools keeps one glass colour per ray (the last its
 * traversal met); here each crossing multiplies, in the hierarchy's fixed
 * order, and a crossing is counted once per oriented plane (a ray through
 * the edge between two triangles or faces of one surface tints once).
 * Only the world's faces filter (bmodels keep their own shadow rules). */

typedef struct filterface_t {
    const image_t *img; /* NULL: no image (nothing stops, nothing tints) */
    float opacity;      /* glass: the share of the light tinted */
    bool fence;         /* alpha-tested: opaque texels stop light */
} filterface_t;

static bool face_filters_light(const qrad_t *q, int f)
{
    return q->filterfaces && q->filterfaces[f].opacity >= 0;
}

void qrad_filter_setup(qrad_t *q)
{
    memset(&q->filter, 0, sizeof q->filter);
    q->filterfaces = NULL;
    if (q->opts->qrad3_shadows) return;
    const bsp_t *bsp = q->bsp;
    int n = 0;
    for (int f = 0; f < bsp->numfaces; f++) {
        rface_t *rf = &q->faces[f];
        const model_keys_t *k = q->mkeys ? &q->mkeys[rf->keys] : NULL;
        /* ericw-tools' light/ltface.cc (Lightsurf_Init): a face
         * common/bsputils.cc's Face_IsTranslucent calls translucent (in
         * Quake 2 TRANS33, TRANS66 or WARP: liquids, opaque ones too) is
         * lit from both sides; _light_twosided overrides. */
        bool two = (rf->texflags & (SURF_TRANS33 | SURF_TRANS66 | SURF_WARP)) && !(rf->texflags & SURF_SKY);
        if (k && k->light_twosided >= 0) two = k->light_twosided == 1;
        rf->twosided = two;
        if (rf->model != 0 || rf->numpoints < 3 || (rf->texflags & SURF_SKY)) continue;
        if (rf->texflags & SURF_NODRAW) continue;
        n += (rf->texflags & (SURF_ALPHATEST | SURF_TRANS33 | SURF_TRANS66)) != 0;
    }
    if (n == 0) return;
    q->filterfaces = q2_malloc(sizeof *q->filterfaces * (size_t)bsp->numfaces);
    int used = 0;
    for (int f = 0; f < bsp->numfaces; f++) {
        const rface_t *rf = &q->faces[f];
        filterface_t *ff = &q->filterfaces[f];
        ff->img = NULL;
        ff->fence = false;
        ff->opacity = -1; /* not a filter face */
        if (rf->model != 0 || rf->numpoints < 3 || (rf->texflags & (SURF_SKY | SURF_NODRAW))) continue;
        if (!(rf->texflags & (SURF_ALPHATEST | SURF_TRANS33 | SURF_TRANS66))) continue;
        ff->fence = (rf->texflags & SURF_ALPHATEST) != 0;
        /* in single precision, as ericw-tools: 150 under TRANS33 glass of
         * a colour without red is 150 (1 - 0.33f) = 100.49..., not 100.5 */
        const model_keys_t *k = q->mkeys ? &q->mkeys[rf->keys] : NULL;
        ff->opacity = k && k->light_alpha >= 0 ? (float)k->light_alpha
                      : (rf->texflags & SURF_TRANS33) ? 0.33f
                      : (rf->texflags & SURF_TRANS66) ? 0.66f
                                                       : 1.0f;
        int ti = bsp->faces[f].texinfo;
        if (q->texdb && ti >= 0 && ti < bsp->numtexinfo) ff->img = texdb_image(q->texdb, bsp->texinfo[ti].texture);
        /* without an image the face does nothing: leave it out, so that a
         * bsp lit without game data traces no filter at all */
        if (!ff->img) ff->opacity = -1;
        else used++;
    }
    if (used == 0) {
        free(q->filterfaces);
        q->filterfaces = NULL;
        return;
    }
    q2err_t err;
    build_over(&q->filter, q, face_filters_light, &err);
    log_verbose(q->log, "%6d translucent or alpha-tested faces filter light", used);
}

void qrad_filter_free(qrad_t *q)
{
    tracer_free(&q->filter);
    free(q->filterfaces);
    q->filterfaces = NULL;
}

/* The texel of face f's texture at world point p (nearest, repeating, as
 * ericw-tools' SampleTexture); NULL without an image. */
static const uint8_t *face_texel(const qrad_t *q, int f, vec3_t p)
{
    const image_t *img = q->filterfaces[f].img;
    if (!img || img->width <= 0 || img->height <= 0) return NULL;
    const float(*v)[4] = q->bsp->texinfo[q->bsp->faces[f].texinfo].vecs;
    double s = p.x * v[0][0] + p.y * v[0][1] + p.z * v[0][2] + v[0][3];
    double t = p.x * v[1][0] + p.y * v[1][1] + p.z * v[1][2] + v[1][3];
    double fs = floor(s), ft = floor(t);
    long x = (long)fmod(fs, img->width), y = (long)fmod(ft, img->height);
    if (x < 0) x += img->width;
    if (y < 0) y += img->height;
    return img->rgba + ((size_t)y * (size_t)img->width + (size_t)x) * 4;
}

/* Crossings of one oriented plane already counted along a ray. */
#define FILTER_CROSSINGS 32

bool trace_filter(const qrad_t *q, vec3_t a, vec3_t b, vec3_t *tint)
{
    const tracer_t *t = &q->filter;
    if (t->numnodes == 0) return true;
    double len;
    vec3_t d = vec_normalize(vec_sub(b, a), &len);
    if (len <= 2 * TRACE_EPSILON) return true;
    double tmax = len - TRACE_EPSILON;
    wray_t r;
    wray_init(&r, a, d);
    float tmaxf = round_up(tmax), tnear[WIDE];
    int stack[WIDE_STACK], sp = 0;
    int seen[FILTER_CROSSINGS], nseen = 0;
    stack[sp++] = 0;
    while (sp) {
        int c = stack[--sp];
        if (c < 0) {
            int first = WIDE_LEAF_FIRST(c), count = WIDE_LEAF_COUNT(c);
            for (int i = first; i < first + count; i++) {
                const rtri_t *tr = &t->tris[i];
                double x = ray_tri(tr, a, d);
                if (!(x > TRACE_EPSILON && x < tmax)) continue;
                const filterface_t *ff = &q->filterfaces[tr->face];
                const uint8_t *tx = face_texel(q, tr->face, vec_ma(a, x, d));
                if (ff->fence) {
                    if (tx && tx[3] == 255) return false;
                    continue;
                }
                /* glass: only light entering its front */
                const rface_t *rf = &q->faces[tr->face];
                if (!tx || vec_dot(d, rf->normal) <= 0) continue;
                const dface_t *df = &q->bsp->faces[tr->face];
                int plane = df->planenum * 2 + (df->side != 0), k = 0;
                while (k < nseen && seen[k] != plane) k++;
                if (k < nseen) continue;
                if (nseen < FILTER_CROSSINGS) seen[nseen++] = plane;
                float op = tx[3] < 255 ? tx[3] / 255.0f : ff->opacity;
                op = op < 0 ? 0 : op > 1 ? 1 : op;
                tint->x *= (1 - op) + op * (tx[0] / 255.0f);
                tint->y *= (1 - op) + op * (tx[1] / 255.0f);
                tint->z *= (1 - op) + op * (tx[2] / 255.0f);
            }
            continue;
        }
        const bvh_node_t *n = &t->nodes[c];
        push_children(stack, &sp, n, wide_hits(n, &r, tmaxf, tnear));
    }
    return true;
}
