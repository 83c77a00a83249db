/* qvis: potentially visible sets by portal flow.
 *
 * Stages, each in its own file, each taking the vis_t context explicitly:
 *   vportals.c   directed portals and cluster portal lists from a .prt
 *   basevis.c    per portal, the portals it might see (front/back tests and
 *                a flood through the cluster graph)
 *   portalflow.c per portal, the portals it can see, by recursive flow with
 *                separating-plane clipping
 *   vislump.c    cluster PVS rows, PHS rows, the compressed visibility lump
 *   bsptrace.c   point-in-leaf and segment tracing through a bsp tree (used
 *                by the tests to check that no visible cluster is hidden)
 *
 * Determinism: every portal's flow reads only its own inputs and results of
 * earlier, completed waves (see portalflow.c), so the output does not depend
 * on the number of threads or on the order in which they finish. */
#ifndef Q2M_QVIS_H
#define Q2M_QVIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "../common/log.h"
#include "../common/mathlib.h"
#include "../formats/bspfile.h"
#include "../formats/prt.h"

/* VIS_EPSILON: a point closer than this to a clipping plane counts as on it
 * and is kept. Larger than ON_EPSILON on purpose: portal points come from a
 * text file rounded to 0.001 (or worse by other compilers), and during flow a
 * point wrongly dropped could hide a visible cluster, while one wrongly kept
 * only costs a little tightness. 0.1 is the tolerance id's qvis3 used. */
#define VIS_EPSILON 0.1

/* Most points a portal winding may have. Clipping a convex polygon adds at
 * most one point; a clip that would exceed this keeps the winding unclipped,
 * which is conservative. */
#define VIS_MAXW 64

#define VIS_LEVEL_MAX 4
#define VIS_LEVEL_DEFAULT 2

typedef struct vwind_t {
    int n;
    vec3_t p[VIS_MAXW];
} vwind_t;

/* Bytes a winding of n points takes in a packed store (vis_t.wstore), kept a
 * multiple of vwind_t's alignment so that the next one starts aligned. */
static inline size_t vwind_size(int n)
{
    size_t b = offsetof(vwind_t, p) + (size_t)n * sizeof(vec3_t);
    return (b + _Alignof(vwind_t) - 1) / _Alignof(vwind_t) * _Alignof(vwind_t);
}

typedef struct vis_portal_t {
    plane_t plane;    /* normal points into `leaf`, the cluster the portal leads to */
    int leaf;         /* destination cluster */
    int owner;        /* cluster the portal leads out of */
    vec3_t origin;    /* centre and radius of a sphere around the winding */
    double radius;
    vec3_t bmid, bhalf; /* centre and half-size of its bounding box */
    int nummight;     /* portals set in the base (might-see) vector */
    int numsee;       /* portals set in the flow result */
    vwind_t *w;
} vis_portal_t;

/* A portal's row in a packed store of bit vectors (vis_t.flood): the words
 * lo..hi-1 of a portalwords-long vector, every other word zero, kept from
 * word `at` of the store on. A portal's might-see set lies in one part of
 * the map, so most of its words are zero: on base1-test 46% of the words
 * lie between a row's first and last non-zero one. The flow result of a
 * portal lies within its might-see set, so its row in vis_t.see has the
 * same words lo..hi-1. */
typedef struct vis_row_t {
    size_t at;
    int lo, hi;
} vis_row_t;

typedef struct vis_t {
    int numclusters;
    int numportals;  /* directed: twice the portals of the .prt */
    int skipped;     /* degenerate .prt portals left out */
    vis_portal_t *portals;
    void *wstore; /* the portals' windings, packed (vwind_size each) */
    int *cluster_first; /* portals leading out of cluster c: cluster_list[first[c] .. first[c+1]) */
    int *cluster_list;
    int portalwords; /* 64-bit words in a portal bit vector */
    int clusterwords;
    vis_row_t *rows; /* per portal, its row in flood (set by vis_base) */
    size_t rowwords; /* words in flood */
    uint64_t *flood; /* packed rows: might-see portals (vis_flow narrows them) */
    /* During the flow (portalflow.c), the flow rows of the wave in flight:
     * portal p's words lo..hi-1 at see + see_at[p]. A finished wave's rows
     * go into `reach` and make room for the next wave's. */
    uint64_t *see;
    size_t *see_at;
    /* vis_flow's result: numclusters rows of vis_row_bytes(numclusters)
     * bytes; cluster c's holds the clusters behind its portals and every
     * cluster behind a portal they see */
    uint8_t *reach;
    /* when set, called with each portal's flow row (its words lo..hi-1,
     * the might-see row with `fast`) as soon as it is final, in a fixed
     * order: the tests compare them */
    void (*row_hook)(void *ctx, const struct vis_t *vis, int portal, const uint64_t *row);
    void *row_hook_ctx;
    int threads;
    struct dist_t *dist; /* ranks sharing the flow (common/dist.h); NULL: this process alone */
    int level;       /* 0..4: separator clips applied during flow */
    int waves;       /* flow waves (portalflow.c) */
    long chains;     /* recursion steps during flow, for the report */
    long handovers;  /* walk branches handed to other threads (timing-dependent; for the report) */
    long spills;     /* walk branches handed to other ranks (MPI; timing-dependent, for the report) */
    long split_chains; /* a walk hands branches over after this many steps (0: portalflow.c's default) */
    bool reverse;      /* walks take each cluster's portals last to first: the result must not change (tests) */
    bool split_force;  /* hand branches over even when no thread is idle: they wait for one (tests) */
} vis_t;

/* Four floats, and four lanes of comparison results (all ones or zeros),
 * for the loops that test many portals against a few planes. */
typedef float v4f __attribute__((vector_size(16)));
typedef int v4i __attribute__((vector_size(16)));
_Static_assert(_Alignof(v4f) <= _Alignof(max_align_t), "arrays of v4f live in malloc'ed memory");

/* x rounded to a float, in all four lanes. */
static inline v4f v4_splat(double x)
{
    float f = (float)x;
    return (v4f){f, f, f, f};
}

/* One bit per lane set in m. */
static inline int v4_mask(v4i m)
{
#if defined(__SSE2__)
    return __builtin_ia32_movmskps((v4f)m);
#else
    return (m[0] & 1) | (m[1] & 2) | (m[2] & 4) | (m[3] & 8);
#endif
}

/* Single-precision pretests are used only when every portal lies within
 * this many units of the origin along the axes together (extent included).
 * There every input and every product or sum of the pretests is below 2^16
 * in magnitude and rounds by at most 2^16 * 2^-25 = 0.002; the dozen or so
 * roundings in one plane distance (with the extent or radius added) stay
 * below 0.02, which the pretests' margins (at least 0.05) cover; a stress
 * test at the edge of the range measured at most 0.003. Beyond it they stay
 * in double precision. Quake maps reach +-4096 (Quake 2's limit is 4096 per
 * axis). */
#define VIS_FLOAT_RANGE 16384.0

static inline bool vbit_get(const uint64_t *v, int i) { return (v[i >> 6] >> (i & 63)) & 1; }
static inline void vbit_set(uint64_t *v, int i) { v[i >> 6] |= (uint64_t)1 << (i & 63); }
int vbits_count(const uint64_t *v, int words);

/* Portal p's might-see row in vis_t.flood. */
static inline const uint64_t *vis_row(const vis_t *vis, const uint64_t *store, int p)
{
    return store + vis->rows[p].at;
}
/* Bit i and word w of a row of portal p (its words lo..hi-1 at `row`). */
static inline bool vis_row_bit(const vis_t *vis, const uint64_t *row, int p, int i)
{
    const vis_row_t *r = &vis->rows[p];
    const int w = i >> 6;
    return w >= r->lo && w < r->hi && ((row[w - r->lo] >> (i & 63)) & 1);
}
static inline uint64_t vis_row_word(const vis_t *vis, const uint64_t *row, int p, int w)
{
    const vis_row_t *r = &vis->rows[p];
    return w >= r->lo && w < r->hi ? row[w - r->lo] : 0;
}
/* A row of portal p as a whole vector of portalwords words. */
void vis_row_expand(const vis_t *vis, const uint64_t *row, int p, uint64_t *out);

/* vportals.c: builds the directed portals. Every .prt portal gives two: the
 * one leading from cluster[0] into cluster[1] and its reverse. Checks
 * cluster numbers and winding sizes. `dist`: the ranks sharing the flow
 * (common/dist.h), NULL for this process alone. */
bool vis_init(vis_t *vis, const prt_t *prt, int threads, int level, struct dist_t *dist, log_t *log,
              q2err_t *err);
void vis_free(vis_t *vis);

/* basevis.c: sets vis->rows, fills vis->flood and each portal's nummight. */
void vis_base(vis_t *vis, log_t *log);

/* portalflow.c: fills vis->reach from the full flow, or from the might-see
 * rows when `fast`. The full flow narrows vis->flood in place: after it a
 * portal's row there holds what a walk through it may still reach (for a
 * portal that ran, within what it sees), no longer its might-see set. */
void vis_flow(vis_t *vis, bool fast, log_t *log);

/* vislump.c */
typedef struct vis_result_t {
    int numclusters;
    int rowbytes;
    uint8_t *pvs;      /* numclusters * rowbytes, uncompressed */
    uint8_t *phs;
    long asym_removed; /* cluster pairs seen from one side only, cleared */
    double avg_visible;
    int max_visible;
    double avg_hearable;
    uint8_t *lump;     /* the compressed visibility lump */
    int lumpsize;
} vis_result_t;

/* Cluster rows from portal results: a cluster sees itself, its neighbours
 * through its portals and every cluster a portal of it sees. Visibility is
 * symmetric, and each direction's row is a conservative superset of it, so a
 * pair is kept only when both clusters' flows agree. */
void vis_cluster_rows(const vis_t *vis, vis_result_t *res);
/* PHS = union of the PVS rows of the clusters a cluster sees. `dist` only
 * traces the loop for scripts/bench_mpi (common/dist.h); it may be NULL. */
void vis_hearable(vis_result_t *res, int threads, struct dist_t *dist);
/* Compresses the rows: numclusters, bitofs[c][PVS], bitofs[c][PHS], rows. */
bool vis_build_lump(vis_result_t *res, q2err_t *err);
void vis_result_free(vis_result_t *res);

/* Number of clusters of a bsp as its leafs use them: the largest leaf
 * cluster + 1 (0 when no leaf has a cluster). */
int vis_bsp_leaf_clusters(const bsp_t *bsp);

/* bsptrace.c: point location and segment tests in the world model's tree. */
int bsp_point_leaf(const bsp_t *bsp, vec3_t p);
/* True when no point of the segment lies in a solid leaf (or one without a
 * cluster) and it crosses no boundary between different visible contents
 * (see bsptrace.c). */
/* VIS_CHECK_CLEARANCE: how far a line of sight must stay from any leaf that
 * blocks it. qbsp3 and the compilers derived from it drop portals whose
 * windings have fewer than three edges longer than 0.2 units (this
 * project's qbsp keeps them), so in their .prt a sliver of empty space that
 * thin between two brushes can be sealed off; the checker reads any
 * compiler's bsp, and a segment that only gets through by grazing an edge
 * or threading such a sliver is not a line of sight their portal files
 * promise to carry. */
#define VIS_CHECK_CLEARANCE 0.25

/* Whether segment a-b is a line of sight: every leaf within
 * VIS_CHECK_CLEARANCE of it (taken plane by plane, so a little more near
 * corners) is non-solid, in a cluster, and of the same visible contents. */
bool bsp_segment_clear(const bsp_t *bsp, vec3_t a, vec3_t b);
/* The leafs the segment a-b passes through, in order from a, as
 * bsp_segment_clear walks them (stopping at the first blocking one); the
 * count, which may exceed max (only max are stored). */
int bsp_segment_leafs(const bsp_t *bsp, vec3_t a, vec3_t b, int *leafs, int max);

/* vischeck.c: samples up to `per_cluster` points in the empty leafs of each
 * cluster and traces segments between the points of every cluster pair the
 * PVS keeps apart (in either direction). */
typedef struct vis_check_t {
    long samples;
    long traces;
    long misses;     /* cluster pairs with a clear segment but not in the PVS */
    long asymmetric; /* pairs set in one direction only */
    int first_miss[2];
    vec3_t first_seg[2]; /* the clear segment found for first_miss */
} vis_check_t;
bool vis_check_sampled(const bsp_t *bsp, int per_cluster, int threads, vis_check_t *out, q2err_t *err);

#endif
