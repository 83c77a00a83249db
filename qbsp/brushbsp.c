#include "brushbsp.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../common/threads.h"
#include "../formats/q2defs.h"
#include "csg.h"
#include "portals.h"

/* Subtrees with at least this many brushes are built as separate tasks;
 * below it the task overhead outweighs the work. */
#define TASK_MIN_BRUSHES 24
/* Models with fewer brushes are built on one thread. */
#define PARALLEL_MIN_BRUSHES 64
/* Nodes with at least this many brushes weigh only axial split planes. */
#define BIG_NODE_BRUSHES 256
/* Nodes with at least this many brushes take their side boxes first. */
#define SIDEBOX_MIN_BRUSHES 8

aabb_t brushes_bounds(const bspbrush_t *list)
{
    aabb_t b = aabb_empty();
    for (; list; list = list->next) {
        aabb_add_point(&b, list->bounds.mins);
        aabb_add_point(&b, list->bounds.maxs);
    }
    return b;
}

static int box_on_plane_side(const aabb_t *box, const plane_t *p)
{
    double dmin, dmax;
    if (p->type < 3) {
        dmin = vec_comp(box->mins, p->type) - p->dist;
        dmax = vec_comp(box->maxs, p->type) - p->dist;
    } else {
        vec3_t lo, hi;
        for (int i = 0; i < 3; i++) {
            double n = vec_comp(p->normal, i);
            vec_set_comp(&lo, i, n >= 0 ? vec_comp(box->mins, i) : vec_comp(box->maxs, i));
            vec_set_comp(&hi, i, n >= 0 ? vec_comp(box->maxs, i) : vec_comp(box->mins, i));
        }
        dmin = plane_dist_to(p, lo);
        dmax = plane_dist_to(p, hi);
    }
    int s = 0;
    if (dmax > 0) s |= PSIDE_FRONT;
    if (dmin < 0) s |= PSIDE_BACK;
    if (!s) s = PSIDE_BACK; /* a flat box on the plane */
    return s;
}

/* The bounds of one side winding that can be split (drawn, visible, not on
 * a node), taken once per node: against an axial plane with a +1 normal
 * the farthest points' distances are the bounds' distances exactly
 * (subtracting dist is monotone), so the split count needs no pass over
 * the points for each candidate plane. */
typedef struct sidebox_t {
    aabb_t bounds;
    int surf;
} sidebox_t;

typedef struct node_ent_t {
    aabb_t bounds;
    bspbrush_t *b;
    const sidebox_t *boxes; /* NULL when the node has none */
    int numboxes;
    /* Bit (planenum / 2) % 64 set for each side's plane: a plane whose bit
     * is clear has no side of the brush on it (the FACING test). */
    uint64_t planemask;
    vec3_t center, half; /* the bounds as centre and half extents */
} node_ent_t;

/* Margin of the quick box test of non-axial planes (box_side_quick). The
 * rounding in either computation is below 1e-9 for any point inside the
 * world, so a box this far from the plane is on the side both give. */
#define BOX_QUICK_MARGIN 0.001

static inline bool plane_maybe_facing(const node_ent_t *e, int planenum)
{
    return (e->planemask >> ((unsigned)(planenum >> 1) & 63)) & 1;
}

/* box_on_plane_side for a box clearly off the plane, from its centre and
 * half extents (one dot product less and no branches); 0 when the box is
 * within BOX_QUICK_MARGIN of the plane and the exact test must decide. */
static inline int box_side_quick(const node_ent_t *e, const plane_t *p)
{
    double dc = vec_dot(p->normal, e->center) - p->dist;
    double r = fabs(p->normal.x) * e->half.x + fabs(p->normal.y) * e->half.y + fabs(p->normal.z) * e->half.z;
    if (dc - r > BOX_QUICK_MARGIN) return PSIDE_FRONT;
    if (dc + r < -BOX_QUICK_MARGIN) return PSIDE_BACK;
    return 0;
}

/* qbsp3's FACING test: PSIDE_BACK | PSIDE_FACING when a side of the brush
 * lies on the plane, PSIDE_FRONT | PSIDE_FACING when one lies on its
 * opposite, else 0. */
static int facing_side(const node_ent_t *e, int planenum)
{
    if (!plane_maybe_facing(e, planenum)) return 0;
    const bspbrush_t *b = e->b;
    for (int i = 0; i < b->numsides; i++) {
        int num = b->sides[i].planenum;
        if (num == planenum) return PSIDE_BACK | PSIDE_FACING;
        if (num == (planenum ^ 1)) return PSIDE_FRONT | PSIDE_FACING;
    }
    return 0;
}

static bool side_countable(const side_t *sd) { return sd->texinfo != TEXINFO_NODE && sd->visible && sd->winding; }

/* The visible faces of a brush straddling the plane that it would split
 * (added to *splits, *hintsplit set when one is a hint) and qbsp3's sliver
 * test (*epsilonbrush counted when the farthest point on either side is
 * under a unit away), from the side windings' points. */
static inline void count_side_splits(const bspbrush_t *b, const plane_t *plane, int *splits, bool *hintsplit,
                                     int *epsilonbrush)
{
    double d_front = 0, d_back = 0;
    for (int i = 0; i < b->numsides; i++) {
        const side_t *sd = &b->sides[i];
        if (!side_countable(sd)) continue;
        const winding_t *w = sd->winding;
        bool front = false, back = false;
        for (int j = 0; j < w->numpoints; j++) {
            double d = plane_point_dist(plane, w->p[j]);
            if (d > d_front) d_front = d;
            if (d < d_back) d_back = d;
            if (d > PLANESIDE_EPSILON) front = true;
            if (d < -PLANESIDE_EPSILON) back = true;
        }
        if (front && back && !(sd->surf & SURF_SKIP)) {
            (*splits)++;
            if (sd->surf & SURF_HINT) *hintsplit = true;
        }
    }
    if ((d_front > 0.0 && d_front < 1.0) || (d_back < 0.0 && d_back > -1.0)) (*epsilonbrush)++;
}

/* count_side_splits from the side boxes, for an axial plane with a +1
 * normal: there a winding's farthest points' distances are its box's
 * (subtracting dist is monotone). */
static inline void count_box_splits(const node_ent_t *e, int axis, double dist, int *splits, bool *hintsplit,
                                    int *epsilonbrush)
{
    double d_front = 0, d_back = 0;
    for (int i = 0; i < e->numboxes; i++) {
        const sidebox_t *sb = &e->boxes[i];
        double dmax = vec_comp(sb->bounds.maxs, axis) - dist;
        double dmin = vec_comp(sb->bounds.mins, axis) - dist;
        if (dmax > d_front) d_front = dmax;
        if (dmin < d_back) d_back = dmin;
        if (dmax > PLANESIDE_EPSILON && dmin < -PLANESIDE_EPSILON && !(sb->surf & SURF_SKIP)) {
            (*splits)++;
            if (sb->surf & SURF_HINT) *hintsplit = true;
        }
    }
    if ((d_front > 0.0 && d_front < 1.0) || (d_back < 0.0 && d_back > -1.0)) (*epsilonbrush)++;
}

/* qbsp3's TestBrushToPlanenum: the side of the plane the brush is on, the
 * number of visible faces it would split and whether a hint face is split. */
static int test_brush_to_plane(const qbsp_t *q, const node_ent_t *e, int planenum, int *numsplits, bool *hintsplit,
                               int *epsilonbrush)
{
    const bspbrush_t *b = e->b;
    *numsplits = 0;
    *hintsplit = false;
    const plane_t *plane = plane_table_get(&q->planes, planenum);
    int s;
    if (plane->type < 3) {
        /* The common case, without the general box test. */
        double lo = vec_comp(b->bounds.mins, plane->type) - plane->dist;
        double hi = vec_comp(b->bounds.maxs, plane->type) - plane->dist;
        if (lo > ON_EPSILON) return PSIDE_FRONT;
        if (hi < -ON_EPSILON) return PSIDE_BACK;
        s = 0;
        if (hi > 0) s |= PSIDE_FRONT;
        if (lo < 0) s |= PSIDE_BACK;
        if (!s) s = PSIDE_BACK;
        int f = facing_side(e, planenum);
        if (f) return f;
        if (s != PSIDE_BOTH) return s;
    } else {
        /* A box clearly on one side cannot have a side on the plane. */
        s = box_side_quick(e, plane);
        if (s) return s;
        s = box_on_plane_side(&b->bounds, plane);
        if (s != PSIDE_BOTH) return s;
        int f = facing_side(e, planenum);
        if (f) return f;
    }

    if (e->boxes && plane->type < 3 && vec_comp(plane->normal, plane->type) == 1.0)
        count_box_splits(e, plane->type, plane->dist, numsplits, hintsplit, epsilonbrush);
    else
        count_side_splits(b, plane, numsplits, hintsplit, epsilonbrush);
    return s;
}

/* True if the plane cuts the node's volume into two real pieces. */
static bool plane_cuts_volume(const qbsp_t *q, const node_t *node, int planenum)
{
    const plane_t *p = plane_table_get(&q->planes, planenum);
    if (p->type < 3) {
        double lo = vec_comp(node->bounds.mins, p->type), hi = vec_comp(node->bounds.maxs, p->type);
        if (p->dist - lo < PLANESIDE_EPSILON || hi - p->dist < PLANESIDE_EPSILON) return false;
    }
    const bspbrush_t *v = node->volume;
    if (p->type < 3 && vec_comp(p->normal, p->type) == 1.0) {
        /* A volume's bounds are its points' extremes exactly (brush_bound),
         * and on a +1 axial plane a point's distance is its coordinate less
         * dist, monotone in the coordinate even rounded: the loop below
         * would find these two. */
        double d_hi = vec_comp(v->bounds.maxs, p->type) - p->dist;
        double d_lo = vec_comp(v->bounds.mins, p->type) - p->dist;
        return d_hi >= PLANESIDE_EPSILON && d_lo <= -PLANESIDE_EPSILON;
    }
    double d_front, d_back;
    brush_plane_extremes(v, p, &d_front, &d_back);
    return d_front >= PLANESIDE_EPSILON && d_back <= -PLANESIDE_EPSILON;
}

/* qbsp3's passes. Hint sides are visible structural sides and compete
 * with the others in PASS_STRUCTURAL: any plane that would split a hint
 * face scores -9999999, so a hint plane wins exactly where it matters.
 * Weighing hints in a pass of their own before everything else would
 * split the whole world on each hint plane at the root (on base1 that
 * was 27 more clusters than qbsp3's rule gives). */
/* PASS_CLIP comes last: clip brush sides, which qbsp3 never split on, so
 * one leaf took a clip brush's contents also where the brush is not (a
 * lava pool half under a clip brush read as clip all over). ericw-tools
 * splits on them; weighed after everything else, they only cut leaves
 * that would otherwise end holding a clip brush they do not fill, and
 * being detail those cuts never make clusters. */
enum { PASS_STRUCTURAL, PASS_DETAIL, PASS_NONVIS_STRUCTURAL, PASS_NONVIS_DETAIL, PASS_CLIP, NUM_PASSES };

/* Candidate evaluations in one node above this much work (brushes times
 * candidates) are spread over the threads as a task loop. */
#define PARALLEL_EVAL_WORK 20000

/* What eval_plane counts over a node's brushes for one plane. */
typedef struct tally_t {
    int front, back, facing, splits, epsilonbrush;
    bool hintsplit; /* some hint face would be split */
} tally_t;

/* Counts one brush the node's bounds did not settle; returns its side. */
static int tally_brush(const qbsp_t *q, const node_ent_t *e, int pnum, tally_t *t)
{
    int bsplits;
    bool hintsplit;
    int s = test_brush_to_plane(q, e, pnum, &bsplits, &hintsplit, &t->epsilonbrush);
    t->splits += bsplits;
    if (hintsplit) t->hintsplit = true;
    if (s & PSIDE_FACING) t->facing++;
    if (s & PSIDE_FRONT) t->front++;
    if (s & PSIDE_BACK) t->back++;
    return s;
}

/* tally_brush for an axial plane whose normal is +1 on its axis (as every
 * even plane's is) and a brush with side boxes that the packed bounds did
 * not settle (fl(mins - dist) <= ON_EPSILON, fl(maxs - dist) >= -ON_EPSILON):
 * test_brush_to_plane's tests in its order, inlined into the loops that
 * weigh axial candidates, with the plane read once per candidate. */
static inline int tally_axial(const node_ent_t *e, int axis, double dist, int pnum, tally_t *t)
{
    double lo = vec_comp(e->bounds.mins, axis) - dist;
    double hi = vec_comp(e->bounds.maxs, axis) - dist;
    int s = 0;
    if (hi > 0) s |= PSIDE_FRONT;
    if (lo < 0) s |= PSIDE_BACK;
    if (!s) s = PSIDE_BACK;
    int f = facing_side(e, pnum);
    if (f) {
        s = f;
        t->facing++;
    } else if (s == PSIDE_BOTH) {
        count_box_splits(e, axis, dist, &t->splits, &t->hintsplit, &t->epsilonbrush);
    }
    if (s & PSIDE_FRONT) t->front++;
    if (s & PSIDE_BACK) t->back++;
    return s;
}

/* tally_brush for a plane that is not axial, inlined into eval_plane:
 * test_brush_to_plane's tests in its order, without its out-parameters. */
static inline int tally_nonaxial(const node_ent_t *e, const plane_t *plane, int pnum, tally_t *t)
{
    int s = box_side_quick(e, plane);
    if (!s) {
        const bspbrush_t *b = e->b;
        s = box_on_plane_side(&b->bounds, plane);
        if (s == PSIDE_BOTH) {
            int f = facing_side(e, pnum);
            if (f) {
                s = f;
                t->facing++;
            } else {
                count_side_splits(b, plane, &t->splits, &t->hintsplit, &t->epsilonbrush);
            }
        }
    }
    if (s & PSIDE_FRONT) t->front++;
    if (s & PSIDE_BACK) t->back++;
    return s;
}

/* eval_plane's value from its counts. */
static int plane_value(const tally_t *t, bool axial, const side_t *side)
{
    int value = 5 * t->facing - 5 * t->splits - abs(t->front - t->back);
    if (axial) value += 5;
    value -= t->epsilonbrush * 1000;
    if (t->hintsplit && !(side->surf & SURF_HINT)) value = -9999999;
    return value;
}

/* qbsp3's estimate of how good plane `pnum` (from `side`) is for splitting
 * the node's brushes: faces on the plane are good, split visible faces and
 * imbalance bad, axial planes better, slivers avoided, hint faces split
 * only by hints. Pure: safe to run for several planes at once. When
 * `testside` is given it receives each brush's side of the plane. */
static int eval_plane(const qbsp_t *q, const node_ent_t *ent, int n, int pnum, const side_t *side, int *testside)
{
    tally_t t = {0};
    const plane_t *pl = plane_table_get(&q->planes, pnum);
    int axis = pl->type < 3 ? pl->type : -1;
    bool unit = axis >= 0 && vec_comp(pl->normal, axis) == 1.0;
    for (int k = 0; k < n; k++) {
        if (axis >= 0) {
            /* Most brushes are clearly on one side: decided from the packed
             * bounds without touching the brush. */
            double lo = vec_comp(ent[k].bounds.mins, axis) - pl->dist;
            double hi = vec_comp(ent[k].bounds.maxs, axis) - pl->dist;
            if (lo > ON_EPSILON) {
                if (testside) testside[k] = PSIDE_FRONT;
                t.front++;
                continue;
            }
            if (hi < -ON_EPSILON) {
                if (testside) testside[k] = PSIDE_BACK;
                t.back++;
                continue;
            }
        }
        int s = axis < 0                 ? tally_nonaxial(&ent[k], pl, pnum, &t)
                : unit && ent[k].boxes ? tally_axial(&ent[k], axis, pl->dist, pnum, &t)
                                       : tally_brush(q, &ent[k], pnum, &t);
        if (testside) testside[k] = s;
    }
    return plane_value(&t, axis >= 0, side);
}

typedef struct cand_t {
    side_t *side;
    int pnum;
    int value;
} cand_t;

/* Axial candidates in nodes with at least this many brushes are weighed by
 * a sweep (below) instead of one pass over the brushes each. */
#define SWEEP_MIN_BRUSHES 64
/* Axial candidates per sweep task: each task first finds the brushes that
 * straddle its first plane with one pass over the brushes. */
#define SWEEP_CHUNK 32

/* Brushes of a node ordered by their bounds along one axis. */
typedef struct axis_order_t {
    int *by_min, *by_max; /* brush indices, ascending mins / maxs */
} axis_order_t;

typedef struct sortkey_t {
    double key;
    int idx;
} sortkey_t;

/* Sorts a[0..n) by key (stable), with tmp of n entries: runs of 8 by
 * insertion, then merged bottom-up. A library qsort with its callback per
 * comparison cost more than the sweep it serves. */
static void sort_keys(sortkey_t *a, sortkey_t *tmp, int n)
{
    enum { RUN = 8 };
    for (int lo = 0; lo < n; lo += RUN) {
        int hi = lo + RUN < n ? lo + RUN : n;
        for (int i = lo + 1; i < hi; i++) {
            sortkey_t v = a[i];
            int j = i;
            for (; j > lo && a[j - 1].key > v.key; j--) a[j] = a[j - 1];
            a[j] = v;
        }
    }
    sortkey_t *src = a, *dst = tmp;
    for (int width = RUN; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = src[j].key < src[i].key ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        sortkey_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, sizeof *a * (size_t)n);
}

/* eval_plane for the axial candidates ac[0..nac) of one axis, in ascending
 * dist, with the same result for each. eval_plane settles a brush from its
 * bounds alone when fl(mins - dist) > ON_EPSILON (front) or fl(maxs - dist)
 * < -ON_EPSILON (back); both tests are monotone in the bound and in dist
 * (rounding is monotone), so the brushes passing the first are a suffix of
 * by_min, those passing the second a prefix of by_max, and as dist grows
 * brushes only leave the first set and join the second. The sweep keeps
 * the rest (the brushes eval_plane tests one by one) as an active set, so
 * each candidate costs its straddling brushes rather than all of them. The
 * counts are sums, so the order the active brushes are visited in does not
 * change them. */
static void sweep_axis(const qbsp_t *q, const node_ent_t *ent, int n, int axis, const axis_order_t *ord,
                       const sortkey_t *ac, int nac, cand_t *cand)
{
    if (nac <= 0) return;
    int *act = q2_malloc(sizeof(int) * (size_t)n * 2);
    int *pos = act + n; /* index in act, -1 when not active */
    int nact = 0;
    for (int k = 0; k < n; k++) pos[k] = -1;
    double d0 = plane_table_get(&q->planes, cand[ac[0].idx].pnum)->dist;
    int entered = 0, left = 0;
    while (entered < n && !(vec_comp(ent[ord->by_min[entered]].bounds.mins, axis) - d0 > ON_EPSILON)) entered++;
    while (left < n && vec_comp(ent[ord->by_max[left]].bounds.maxs, axis) - d0 < -ON_EPSILON) left++;
    for (int i = 0; i < entered; i++) {
        int k = ord->by_min[i];
        if (vec_comp(ent[k].bounds.maxs, axis) - d0 < -ON_EPSILON) continue;
        pos[k] = nact;
        act[nact++] = k;
    }
    for (int a = 0; a < nac; a++) {
        cand_t *cd = &cand[ac[a].idx];
        double d = plane_table_get(&q->planes, cd->pnum)->dist;
        while (entered < n && !(vec_comp(ent[ord->by_min[entered]].bounds.mins, axis) - d > ON_EPSILON)) {
            int k = ord->by_min[entered++];
            pos[k] = nact;
            act[nact++] = k;
        }
        while (left < n && vec_comp(ent[ord->by_max[left]].bounds.maxs, axis) - d < -ON_EPSILON) {
            int k = ord->by_max[left++];
            int p = pos[k];
            if (p < 0) continue;
            int last = act[--nact];
            act[p] = last;
            pos[last] = p;
            pos[k] = -1;
        }
        tally_t t = {.front = n - entered, .back = left};
        if (vec_comp(plane_table_get(&q->planes, cd->pnum)->normal, axis) == 1.0) {
            for (int i = 0; i < nact; i++) {
                const node_ent_t *e = &ent[act[i]];
                if (e->boxes) tally_axial(e, axis, d, cd->pnum, &t);
                else tally_brush(q, e, cd->pnum, &t);
            }
        } else {
            for (int i = 0; i < nact; i++) tally_brush(q, &ent[act[i]], cd->pnum, &t);
        }
        cd->value = plane_value(&t, true, cd->side);
    }
    free(act);
}

/* Fills cand[].value for every candidate, as eval_plane would. */
static void eval_candidates(const qbsp_t *q, const node_ent_t *ent, int n, cand_t *cand, int ncand)
{
    bool parallel = (long)n * ncand >= PARALLEL_EVAL_WORK;
    if (n < SWEEP_MIN_BRUSHES) {
        for (int c = 0; c < ncand; c++) cand[c].value = eval_plane(q, ent, n, cand[c].pnum, cand[c].side, NULL);
        return;
    }
    /* Candidates grouped by axis (3 = not axial), axial ones by dist. */
    /* ac, the sort keys and the axis orders in one block, ints last. */
    int tmpn = n > ncand ? n : ncand;
    char *scratch = q2_malloc(sizeof(sortkey_t) * ((size_t)ncand + 2 * (size_t)tmpn) + sizeof(int) * (size_t)n * 6);
    sortkey_t *ac = (sortkey_t *)scratch;
    int count[4] = {0, 0, 0, 0}, start[4];
    for (int c = 0; c < ncand; c++) {
        int t = plane_table_get(&q->planes, cand[c].pnum)->type;
        count[t < 3 ? t : 3]++;
    }
    start[0] = 0;
    for (int i = 1; i < 4; i++) start[i] = start[i - 1] + count[i - 1];
    {
        int fill[4] = {start[0], start[1], start[2], start[3]};
        for (int c = 0; c < ncand; c++) {
            const plane_t *pl = plane_table_get(&q->planes, cand[c].pnum);
            int t = pl->type < 3 ? pl->type : 3;
            ac[fill[t]].key = pl->dist;
            ac[fill[t]++].idx = c;
        }
    }
    axis_order_t ord[3];
    sortkey_t *keys = ac + ncand, *tmp = keys + tmpn;
    int *orderbuf = (int *)(tmp + tmpn);
    for (int axis = 0; axis < 3; axis++) {
        ord[axis].by_min = orderbuf + (size_t)n * (2 * axis);
        ord[axis].by_max = orderbuf + (size_t)n * (2 * axis + 1);
        if (!count[axis]) continue;
        sort_keys(&ac[start[axis]], tmp, count[axis]);
        for (int pass = 0; pass < 2; pass++) {
            for (int k = 0; k < n; k++) {
                keys[k].key = pass ? vec_comp(ent[k].bounds.maxs, axis) : vec_comp(ent[k].bounds.mins, axis);
                keys[k].idx = k;
            }
            sort_keys(keys, tmp, n);
            int *dst = pass ? ord[axis].by_max : ord[axis].by_min;
            for (int k = 0; k < n; k++) dst[k] = keys[k].idx;
        }
    }
    /* Work items: chunks of each axis's sorted candidates, then the
     * non-axial candidates one by one. */
    int nchunks[3], nitems = 0;
    for (int axis = 0; axis < 3; axis++) {
        nchunks[axis] = (count[axis] + SWEEP_CHUNK - 1) / SWEEP_CHUNK;
        nitems += nchunks[axis];
    }
    int nax = nitems;
    nitems += count[3];
    const int *chunks = nchunks;
    const axis_order_t *ords = ord;
    const sortkey_t *acs = ac;
    const int *starts = start, *counts = count;
    /* Sharing this frame's locals is safe: a taskloop waits for its tasks
     * (an implicit taskgroup) before this function goes on. (An unsigned
     * counter: clang 14 warns about its own code for a signed one.) */
    const unsigned nall = (unsigned)nitems;
#pragma omp taskloop grainsize(1) default(none) shared(q, ent, n, cand, chunks, ords, acs, starts, counts, nax) \
    firstprivate(nall) if (parallel)
    for (unsigned u = 0; u < nall; u++) {
        const int it = (int)u;
        if (it < nax) {
            int axis = 0, chunk = it;
            while (chunk >= chunks[axis]) chunk -= chunks[axis++];
            int first = chunk * SWEEP_CHUNK;
            int m = counts[axis] - first < SWEEP_CHUNK ? counts[axis] - first : SWEEP_CHUNK;
            sweep_axis(q, ent, n, axis, &ords[axis], &acs[starts[axis] + first], m, cand);
        } else {
            cand_t *cd = &cand[acs[starts[3] + it - nax].idx];
            cd->value = eval_plane(q, ent, n, cd->pnum, cd->side, NULL);
        }
    }
    free(scratch);
}

/* A small set of plane numbers (open addressing), to weigh each distinct
 * plane once per node as qbsp3's "tested" flags do. */
typedef struct planeset_t {
    int *slot;
    unsigned mask;
} planeset_t;

static bool planeset_add(planeset_t *ps, int pnum)
{
    unsigned h = ((unsigned)pnum * 2654435761u) & ps->mask;
    while (ps->slot[h] >= 0) {
        if (ps->slot[h] == pnum) return false;
        h = (h + 1) & ps->mask;
    }
    ps->slot[h] = pnum;
    return true;
}

static side_t *select_split_side(const qbsp_t *q, bspbrush_t *brushes, node_t *node)
{
    int n = 0, nsides = 0;
    for (const bspbrush_t *b = brushes; b; b = b->next) {
        n++;
        nsides += b->numsides;
    }
    bool big = n >= BIG_NODE_BRUSHES;
    /* The node's scratch arrays in one block (one malloc a node, not five):
     * the 8-byte aligned ones first, the ints last. */
    unsigned size = 16;
    while (size < (unsigned)nsides * 2) size <<= 1;
    size_t nent = (size_t)(n > 0 ? n : 1), nside1 = (size_t)(nsides > 0 ? nsides : 1);
    size_t nbox = n >= SIDEBOX_MIN_BRUSHES ? nside1 : 0;
    char *scratch = q2_malloc(sizeof(node_ent_t) * nent + sizeof(sidebox_t) * nbox + sizeof(cand_t) * nside1 +
                              sizeof(int) * ((size_t)size + nent));
    node_ent_t *ent = (node_ent_t *)scratch;
    sidebox_t *boxes = nbox ? (sidebox_t *)(scratch + sizeof(node_ent_t) * nent) : NULL;
    cand_t *cand = (cand_t *)(scratch + sizeof(node_ent_t) * nent + sizeof(sidebox_t) * nbox);
    int *slots = (int *)((char *)cand + sizeof(cand_t) * nside1);
    int *testside = slots + size;
    {
        int k = 0;
        for (bspbrush_t *b = brushes; b; b = b->next, k++) {
            ent[k].bounds = b->bounds;
            ent[k].b = b;
            ent[k].boxes = NULL;
            ent[k].numboxes = 0;
            ent[k].center = vec_scale(vec_add(b->bounds.mins, b->bounds.maxs), 0.5);
            ent[k].half = vec_scale(vec_sub(b->bounds.maxs, b->bounds.mins), 0.5);
            uint64_t mask = 0;
            for (int i = 0; i < b->numsides; i++) mask |= (uint64_t)1 << ((unsigned)(b->sides[i].planenum >> 1) & 63);
            ent[k].planemask = mask;
        }
    }
    /* Side boxes pay where candidates are weighed against many brushes. */
    if (boxes) {
        int nb = 0;
        for (int k = 0; k < n; k++) {
            const bspbrush_t *b = ent[k].b;
            ent[k].boxes = &boxes[nb];
            for (int i = 0; i < b->numsides; i++) {
                const side_t *sd = &b->sides[i];
                if (!side_countable(sd)) continue;
                sidebox_t *sb = &boxes[nb++];
                sb->bounds = aabb_empty();
                sb->surf = sd->surf;
                const winding_t *w = sd->winding;
                for (int j = 0; j < w->numpoints; j++) {
                    const vec3_t p = w->p[j];
                    if (p.x < sb->bounds.mins.x) sb->bounds.mins.x = p.x;
                    if (p.x > sb->bounds.maxs.x) sb->bounds.maxs.x = p.x;
                    if (p.y < sb->bounds.mins.y) sb->bounds.mins.y = p.y;
                    if (p.y > sb->bounds.maxs.y) sb->bounds.maxs.y = p.y;
                    if (p.z < sb->bounds.mins.z) sb->bounds.mins.z = p.z;
                    if (p.z > sb->bounds.maxs.z) sb->bounds.maxs.z = p.z;
                }
            }
            ent[k].numboxes = (int)(&boxes[nb] - ent[k].boxes);
        }
    }
    planeset_t ps;
    ps.slot = slots;
    ps.mask = size - 1;

    side_t *bestside = NULL;
    int bestpass = 0;
    for (int pass = 0; pass < NUM_PASSES && !bestside; pass++) {
        bool want_detail = pass == PASS_DETAIL || pass == PASS_NONVIS_DETAIL;
        bool want_visible = pass <= PASS_DETAIL;
        for (unsigned i = 0; i < size; i++) ps.slot[i] = -1;
        int ncand = 0;
        for (int k = 0; k < n; k++) {
            bspbrush_t *brush = ent[k].b;
            bool is_detail = (brush->original->contents & CONTENTS_DETAIL) != 0;
            if (pass != PASS_CLIP && is_detail != want_detail) continue;
            for (int i = 0; i < brush->numsides; i++) {
                side_t *side = &brush->sides[i];
                if (pass == PASS_CLIP) {
                    if (!side->clip || !side->winding) continue;
                } else {
                    if (side->bevel || !side->winding || side->texinfo == TEXINFO_NODE) continue;
                    if (side->surf & SURF_SKIP) continue;
                    if (side->visible != want_visible) continue;
                }
                int pnum = side->planenum & ~1;
                /* In big nodes only axial planes are weighed: they win
                 * there anyway (balance and the axial bonus), and the
                 * search is quadratic in the node's brushes. */
                if (big && plane_table_get(&q->planes, pnum)->type >= 3) continue;
                if (!planeset_add(&ps, pnum)) continue;
                if (!plane_cuts_volume(q, node, pnum)) continue;
                cand[ncand].side = side;
                cand[ncand].pnum = pnum;
                ncand++;
            }
        }
        if (ncand == 0) continue;
        eval_candidates(q, ent, n, cand, ncand);
        int best = 0;
        for (int c = 1; c < ncand; c++)
            if (cand[c].value > cand[best].value) best = c;
        bestside = cand[best].side;
        bestpass = pass;
        eval_plane(q, ent, n, cand[best].pnum, bestside, testside);
        for (int k = 0; k < n; k++) ent[k].b->side = testside[k];
    }
    if (bestside && bestpass != PASS_STRUCTURAL) node->detail_seperator = true;
    free(scratch);
    return bestside;
}

static bool fills_leaf(const bspbrush_t *b);

static void leaf_node(node_t *node, bspbrush_t *brushes)
{
    node->planenum = PLANENUM_LEAF;
    node->contents = 0;
    for (bspbrush_t *b = brushes; b; b = b->next) {
        /* A solid brush whose every side is on a node fills the leaf. */
        if (b->original->contents & CONTENTS_SOLID) {
            int i;
            for (i = 0; i < b->numsides; i++)
                if (b->sides[i].texinfo != TEXINFO_NODE) break;
            if (i == b->numsides) {
                node->contents = CONTENTS_SOLID;
                break;
            }
        }
        node->contents |= b->original->contents;
    }
    node->brushlist = brushes;
    node->detail_fill = (node->contents & CONTENTS_SOLID) != 0;
    for (bspbrush_t *b = brushes; b && node->detail_fill; b = b->next)
        if ((b->original->contents & CONTENTS_SOLID) && !(b->original->contents & CONTENTS_DETAIL) && fills_leaf(b))
            node->detail_fill = false;
}

/* A brush fragment bounded by node planes on every side fills its leaf. */
static bool fills_leaf(const bspbrush_t *b)
{
    for (int i = 0; i < b->numsides; i++)
        if (b->sides[i].texinfo != TEXINFO_NODE) return false;
    return true;
}

int brushbsp_written_contents(const node_t *leaf)
{
    if (!(leaf->contents & CONTENTS_SOLID)) return leaf->contents;
    /* The tree's stages see a solid leaf as plain SOLID. The file keeps the
     * other bits of the solid brushes that fill it (DETAIL, LADDER, a mod's
     * unknown bits), as ericw-tools' qbsp writes them, since games read
     * them through CM_PointContents; a structural filler outweighs
     * detail ones, so a detail brush inside a wall leaves it structural. */
    int structural = 0, detail = 0;
    for (const bspbrush_t *b = leaf->brushlist; b; b = b->next) {
        if (!b->original || !(b->original->contents & CONTENTS_SOLID) || !fills_leaf(b)) continue;
        if (b->original->contents & CONTENTS_DETAIL) detail |= b->original->contents;
        else structural |= b->original->contents;
    }
    return CONTENTS_SOLID | (structural ? structural : detail);
}

bool brushbsp_solid_subtree(const node_t *node, int *contents)
{
    if (node->planenum == PLANENUM_LEAF) {
        if (!(node->contents & CONTENTS_SOLID)) return false;
        *contents = brushbsp_written_contents(node);
        return true;
    }
    /* Faces on a node between solids (func_detail_wall's overdraw) are
     * drawn: the node stays. */
    if (node->faces) return false;
    int c0, c1;
    if (!brushbsp_solid_subtree(node->children[0], &c0) || !brushbsp_solid_subtree(node->children[1], &c1)) return false;
    if (c0 != c1) return false;
    *contents = c0;
    return true;
}

static void split_brush_list(const qbsp_t *q, blockcache_t *bc, bspbrush_t *brushes, node_t *node,
                             bspbrush_t **front, bspbrush_t **back)
{
    *front = *back = NULL;
    bspbrush_t **ft = front, **bt = back;
    for (bspbrush_t *b = brushes, *next; b; b = next) {
        next = b->next;
        b->next = NULL;
        int s = b->side;
        if (s == PSIDE_BOTH) {
            bspbrush_t *f, *k;
            brush_split_consume(q, bc, b, node->planenum, &f, &k);
            if (f) {
                *ft = f;
                ft = &f->next;
            }
            if (k) {
                *bt = k;
                bt = &k->next;
            }
            continue;
        }
        if (s & PSIDE_FACING)
            for (int i = 0; i < b->numsides; i++)
                if ((b->sides[i].planenum & ~1) == node->planenum) {
                    b->sides[i].texinfo = TEXINFO_NODE;
                    b->sides[i].clip = false;
                }
        if (s & PSIDE_FRONT) {
            *ft = b;
            ft = &b->next;
        } else {
            *bt = b;
            bt = &b->next;
        }
    }
}

static node_t *alloc_node(void)
{
    node_t *n = q2_calloc(1, sizeof *n);
    n->cluster = -1;
    n->outputnumber = -1;
    return n;
}

/* Once a leaf is made, its brush fragments are read only for their map
 * brushes and bounds (contents, visible sides, leaf brushes), and its volume
 * not at all: their windings go back to the thread's cache at once, which
 * the build's later splits reuse (base1-test's peak fell from 53.1 to 44.4
 * MiB when this replaced a walk after the build), and the work is done by
 * the thread that made the leaf. */
static void strip_leaf(blockcache_t *bc, node_t *n)
{
    for (bspbrush_t *b = n->brushlist; b; b = b->next)
        for (int i = 0; i < b->numsides; i++) {
            bc_winding_free(bc, b->sides[i].winding);
            b->sides[i].winding = NULL;
        }
    bc_brush_free(bc, n->volume);
    n->volume = NULL;
}

/* caches: one per thread of the tree build's team. A task runs on one
 * thread (tasks are tied), and a task another one waits in runs to its end
 * before the waiting one goes on, so a thread's cache is never in two uses
 * at once. */
static void build_tree_r(const qbsp_t *q, blockcache_t *caches, node_t *node, bspbrush_t *brushes)
{
    blockcache_t *bc = &caches[threads_current()];
    side_t *best = select_split_side(q, brushes, node);
    if (!best) {
        leaf_node(node, brushes);
        /* (a lone head leaf keeps them for force_split) */
        if (node->parent) strip_leaf(bc, node);
        return;
    }
    node->side = best->original ? best->original : NULL;
    node->planenum = best->planenum & ~1;

    bspbrush_t *lists[2];
    split_brush_list(q, bc, brushes, node, &lists[0], &lists[1]);

    /* The node's volume is not needed once its children have theirs:
     * split in place, its whole sides handed on rather than copied. */
    bspbrush_t *vol[2];
    brush_split_consume(q, bc, node->volume, node->planenum, &vol[0], &vol[1]);
    node->volume = NULL;
    /* The split added a side on the node's plane to each half: the plane
     * clipped to the node's region, which is where its portal starts. */
    for (int i = 0; i < 2 && !node->portal_base; i++) {
        if (!vol[i]) continue;
        const side_t *last = &vol[i]->sides[vol[i]->numsides - 1];
        if ((last->planenum & ~1) != node->planenum || !last->winding) continue;
        node->portal_base = last->planenum == node->planenum ? winding_copy(last->winding)
                                                             : winding_reverse(last->winding);
    }
    for (int i = 0; i < 2; i++) {
        node_t *c = alloc_node();
        c->parent = node;
        c->volume = vol[i];
        if (vol[i]) c->bounds = vol[i]->bounds;
        else c->bounds = node->bounds;
        node->children[i] = c;
    }

    for (int i = 0; i < 2; i++) {
        node_t *c = node->children[i];
        bspbrush_t *l = lists[i];
        if (!c->volume) {
            /* Cannot happen when volume_split_ok accepted the plane; keep
             * the tree valid anyway. */
            leaf_node(c, l);
            strip_leaf(bc, c);
            continue;
        }
        if (brush_list_count(l) >= TASK_MIN_BRUSHES) {
            /* q is copied, not shared: this call returns without waiting
             * for its tasks (the parallel region's barrier does), so a
             * shared q would be read from a frame already gone. */
#pragma omp task firstprivate(c, l, q, caches) default(none)
            build_tree_r(q, caches, c, l);
        } else {
            build_tree_r(q, caches, c, l);
        }
    }
}

static void count_tree(const node_t *n, brushbsp_stats_t *st)
{
    if (n->planenum == PLANENUM_LEAF) {
        st->leafs++;
        if (n->contents & CONTENTS_SOLID) st->solid_leafs++;
        return;
    }
    st->nodes++;
    if (n->detail_seperator) st->detail_seperators++;
    count_tree(n->children[0], st);
    count_tree(n->children[1], st);
}

/* A model whose brushes offer no split plane (all clip or skip sides)
 * would be a lone leaf, and engines index the model's head node as a node.
 * Split it once through the middle so every model has a node. */
static void force_split(qbsp_t *q, node_t *head)
{
    double mid = floor((head->volume->bounds.mins.x + head->volume->bounds.maxs.x) * 0.5);
    int pn = plane_table_find(&q->planes, vec3(1, 0, 0), mid);
    if (pn < 0) return;
    pn &= ~1;
    bspbrush_t *brushes = head->brushlist;
    head->brushlist = NULL;
    head->contents = 0;
    const plane_t *p = plane_table_get(&q->planes, pn);
    for (bspbrush_t *b = brushes; b; b = b->next) {
        int s = box_on_plane_side(&b->bounds, p);
        for (int i = 0; i < b->numsides; i++)
            if ((b->sides[i].planenum & ~1) == pn) s = (b->sides[i].planenum == pn ? PSIDE_BACK : PSIDE_FRONT) | PSIDE_FACING;
        b->side = s;
    }
    head->planenum = pn;
    head->side = NULL;
    bspbrush_t *lists[2], *vol[2];
    split_brush_list(q, NULL, brushes, head, &lists[0], &lists[1]);
    brush_split(q, NULL, head->volume, pn, &vol[0], &vol[1]);
    for (int i = 0; i < 2; i++) {
        node_t *c = alloc_node();
        c->parent = head;
        c->volume = vol[i];
        c->bounds = vol[i] ? vol[i]->bounds : head->bounds;
        head->children[i] = c;
        leaf_node(c, lists[i]);
    }
    brush_free(head->volume);
    head->volume = NULL;
}

/* strip_leaf over a tree the build left whole: a lone head leaf and what
 * force_split made of it. */
static void strip_leaves_r(node_t *n)
{
    if (n->planenum != PLANENUM_LEAF) {
        strip_leaves_r(n->children[0]);
        strip_leaves_r(n->children[1]);
        return;
    }
    strip_leaf(NULL, n);
}

tree_t *brushbsp_build(qbsp_t *q, bspbrush_t *brushes, aabb_t bounds, brushbsp_stats_t *stats)
{
    tree_t *tree = q2_calloc(1, sizeof *tree);
    tree->outside_node.planenum = PLANENUM_LEAF;
    tree->outside_node.cluster = -1;
    tree->outside_node.outputnumber = -1;
    node_t *head = alloc_node();
    tree->headnode = head;
    brushbsp_stats_t st;
    memset(&st, 0, sizeof st);
    st.brushes = brush_list_count(brushes);

    if (!brushes || aabb_is_empty(&bounds)) {
        tree->bounds.mins = tree->bounds.maxs = vec3(0, 0, 0);
        head->planenum = PLANENUM_LEAF;
        head->bounds = tree->bounds;
        leaf_node(head, brushes);
    } else {
        tree->bounds = bounds;
        vec3_t pad = vec3(SIDESPACE, SIDESPACE, SIDESPACE);
        head->volume = brush_from_bounds(q, vec_sub(bounds.mins, pad), vec_add(bounds.maxs, pad));
        head->bounds = head->volume->bounds;
        int threads = q->opt.threads > 0 ? q->opt.threads : 1;
        const qbsp_t *cq = q;
        /* Small models are not worth waking the other threads for. */
        bool par = threads > 1 && st.brushes >= PARALLEL_MIN_BRUSHES;
        int nthreads = par ? threads : 1;
        blockcache_t *caches = q2_calloc((size_t)nthreads, sizeof *caches);
#pragma omp parallel num_threads(nthreads) if (par) default(none) shared(cq, head, brushes, caches)
        {
#pragma omp single
            build_tree_r(cq, caches, head, brushes);
        }
        for (int i = 0; i < nthreads; i++) bc_release(&caches[i]);
        free(caches);
    }
    /* The build strips every leaf below the head as it makes it. */
    if (head->planenum == PLANENUM_LEAF) {
        if (head->brushlist && head->volume) force_split(q, head);
        strip_leaves_r(head);
    }
    count_tree(head, &st);
    if (stats) *stats = st;
    return tree;
}

static void free_node_r(node_t *n)
{
    if (!n) return;
    if (n->planenum != PLANENUM_LEAF) {
        free_node_r(n->children[0]);
        free_node_r(n->children[1]);
    }
    brush_free(n->volume);
    winding_free(n->portal_base);
    brush_list_free(n->brushlist);
    free(n);
}

void tree_free(tree_t *tree)
{
    if (!tree) return;
    portals_release(tree);
    free_node_r(tree->headnode);
    free(tree);
}

node_t *tree_point_leaf(const qbsp_t *q, node_t *node, vec3_t p)
{
    while (node->planenum != PLANENUM_LEAF) {
        const plane_t *pl = plane_table_get(&q->planes, node->planenum);
        node = plane_dist_to(pl, p) >= 0 ? node->children[0] : node->children[1];
    }
    return node;
}
