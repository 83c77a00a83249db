/* trace.c: the tracer. A BVH over the world's faces (occlusion, closest
 * and sky rays), the bmodels' shadow faces, the translucent and
 * alpha-tested faces' filter, and the bsp tree for segment and point
 * tests (contents, leaves, clusters) and the PVS.
 * Takes: the bsp, the faces' geometry (facegeom.c) and the models' keys
 * (models.c). Gives: answers about rays, segments and points; no light. */
#ifndef Q2M_QRAD_TRACE_H
#define Q2M_QRAD_TRACE_H

#include <limits.h>

#include "qrad.h"

bool tracer_build(tracer_t *t, const qrad_t *q, q2err_t *err);
bool tracer_build_tree(tracer_t *t, const bsp_t *bsp, q2err_t *err);
void tracer_free(tracer_t *t);
/* True if a face of the BVH blocks the segment a-b. */
bool trace_occluded_faces(const tracer_t *t, vec3_t a, vec3_t b);
/* True if the segment a-b crosses solid: through the bsp tree's solid leaves
 * (qrad3's semantics: windows and liquids let light through), or through the
 * BVH's faces when the bsp has no tree. */
bool trace_occluded(const struct qrad_t *q, vec3_t a, vec3_t b);
/* True if a shadow-casting bmodel face blocks a-b for a receiver of model
 * recv and a light of this shadow mask. */
bool trace_occluded_models(const struct qrad_t *q, vec3_t a, vec3_t b, int recv, int shadow_mask);
/* Builds q->shadows over the faces of casting bmodels (none: empty). */
bool tracer_build_shadows(tracer_t *t, const struct qrad_t *q, q2err_t *err);
/* The world's liquid surfaces (warp, not sky), which light passes through
 * (trace_occluded) but -preset qrad3's bounces stop at (bounce.c). */
bool qrad_face_liquid(const struct qrad_t *q, int f);
/* ericw-tools' filter faces (light/trace_embree.cc) in both models but
 * -preset qrad3's: the world's translucent (TRANS33/66) and alpha-tested
 * (SURF_ALPHATEST) faces in q->filter, and each face's twosided flag.
 * Shadows still come from the bsp tree; trace_filter then says what these
 * faces do to light that the tree let through. */
void qrad_filter_setup(struct qrad_t *q);
void qrad_filter_free(struct qrad_t *q);
/* Light from b to a: false when an opaque texel of an alpha-tested face
 * between them stops it; else *tint (per channel) is multiplied by each
 * translucent face's tint. Cheap when there are no filter faces. */
bool trace_filter(const struct qrad_t *q, vec3_t a, vec3_t b, vec3_t *tint);
bool tracer_build_liquids(tracer_t *t, const struct qrad_t *q, q2err_t *err);
/* -preset qrad3's transfers pass through what its TestLine does not stop
 * at (only the world's solid leaves do) yet light it: the world's
 * translucent faces (windows) and every brush model's face. */
bool qrad3_see_through(const struct qrad_t *q, int f);
bool tracer_build_see_through(tracer_t *t, const struct qrad_t *q, q2err_t *err);
/* The shadow-casting bmodels that have no faces (after tracer_build_tree):
 * ericw-tools shades with brushes, so a _shadow 1 func_wall of nodraw
 * brushes still casts its shadow. */
void qrad_brush_shadows_setup(struct qrad_t *q);
void qrad_brush_shadows_free(struct qrad_t *q);
/* Closest hit along origin + t*dir for t in (TRACE_EPSILON, maxdist);
 * returns the face index or -1, and the distance. */
int trace_closest(const tracer_t *t, vec3_t origin, vec3_t dir, double maxdist, double *hitdist);
/* The same over the faces whose _object_channel_mask shares a bit with
 * mask (their model's, or their func_group's). */
int trace_closest_channels(const struct qrad_t *q, const tracer_t *t, vec3_t origin, vec3_t dir, double maxdist,
                           int mask, double *hitdist);
/* The sky face trace_closest would find along origin + t*dir, or -1 where
 * the closest hit is none or not sky; faster where only that matters. */
int trace_sky(const tracer_t *t, vec3_t origin, vec3_t dir, double maxdist, double *hitdist);
/* A direction as the hierarchies take it, made once (trace_dir_init) for
 * the many rays that share it: its reciprocals and box sides cost as much
 * as a short walk. */
typedef struct trace_dir_t {
    vec3_t d;
    float inv[3];
    int nearoff[3], faroff[3];
} trace_dir_t;
void trace_dir_init(trace_dir_t *td, vec3_t dir);
/* The face whose triangle in the world's hierarchy blocked a ray (-1:
 * none yet): the rays of one direction from a face's luxels are mostly
 * blocked by the same face, and trying its triangles first spares their
 * walks. */
typedef struct trace_hit_t {
    int face; /* the face of the triangle met */
    int node; /* the world hierarchy's node above it that is searched first (-1: none) */
    long nearhits; /* rays the search under node found blocked (a count, for tests) */
} trace_hit_t;
/* trace_sky along a direction made by trace_dir_init: the same answer.
 * seen (or NULL): its face is tried first, then the part of the world's
 * hierarchy under its node; where a walk then finds what blocks this ray,
 * seen is left holding it. Start with face and node -1, nearhits 0. */
int trace_sky_dir(const tracer_t *t, vec3_t origin, const trace_dir_t *dir, double maxdist, double *hitdist,
                  trace_hit_t *seen);
int qrad_point_leaf(const bsp_t *bsp, vec3_t p);
/* The same with the side of a point on a node's plane chosen: the back
 * child when on_plane_back (qrad3's PointInLeafnum), else the front. */
int qrad_point_leaf_side(const bsp_t *bsp, vec3_t p, bool on_plane_back);
/* qrad_point_leaf over the tracer's copy of the tree (once built): the
 * same leaf, in a walk that touches one small record per node. */
int trace_point_leaf(const qrad_t *q, vec3_t p);
/* The deepest node of the tracer's tree that trace_point_leaf's walk of
 * every point of box passes through (found going down while a node's plane
 * has the whole box on one side by a margin; -1 without the tree or where
 * the bsp's own walk would be taken), and trace_point_leaf's walk from
 * there: the same leaf for a point of the box, without the nodes they all
 * pass alike. */
int trace_point_start(const qrad_t *q, aabb_t box);
int trace_point_leaf_from(const qrad_t *q, int start, vec3_t p);
bool qrad_point_solid(const bsp_t *bsp, vec3_t p);
int qrad_point_cluster(const bsp_t *bsp, vec3_t p);
/* What the point functions say of a leaf they found (-1: none): solid, its
 * cluster (-1 without one). */
static inline bool qrad_leaf_solid(const bsp_t *bsp, int leaf)
{
    return leaf >= 0 && (bsp->leafs[leaf].contents & CONTENTS_SOLID);
}
static inline int qrad_leaf_cluster(const bsp_t *bsp, int leaf) { return leaf >= 0 ? bsp->leafs[leaf].cluster : -1; }
bool qrad_pvs_setup(qrad_t *q, q2err_t *err);
/* Whether the world shades a light of this _shadow_channel_mask between a
 * and b: the world is on channel 1, and a func_group's faces on the
 * channels of its _object_channel_mask (ericw-tools). */
bool trace_occluded_channels(const qrad_t *q, vec3_t a, vec3_t b, int shadow_mask);
/* The world tree's node from which every segment from a point of box to b
 * runs as from the top (INT_MIN without a tree), and the tests that start
 * there: the same answers as trace_occluded and trace_occluded_channels
 * for such segments, without the nodes they all pass alike.
 * trace_head_node: the node every segment starts from (INT_MIN without a
 * tree). */
int trace_start_node(const qrad_t *q, aabb_t box, vec3_t b);
static inline int trace_head_node(const qrad_t *q) { return q->tracer.tnodes ? q->tracer.headnode : INT_MIN; }
bool trace_occluded_from(const qrad_t *q, int start, vec3_t a, vec3_t b);
/* wit (NULL for none): the solid leaf that blocked an earlier segment of
 * the caller's (-1 none yet), tried first where the world's tree alone
 * decides, and replaced by the leaf that blocks a-b; the same answers. */
bool trace_occluded_channels_from(const qrad_t *q, int start, vec3_t a, vec3_t b, int shadow_mask, int *wit);
/* Whether the world's tree alone decides the segments from start (no
 * _object_channel_mask channels in the world, and a tree): where the
 * witnesses (trace_witness_blocks) and the packets
 * (trace_blocking_leaves_from) give the answers, for a light whose shadow
 * mask holds channel 1. */
static inline bool trace_tree_alone(const qrad_t *q, int start) { return !q->world_channels && start != INT_MIN; }
/* trace_occluded_from's walk, giving the solid leaf that blocked a-b (the
 * first it met; INT_MAX without a tree) or -1 for a clear line. Such a
 * leaf is a witness for the segments of other points:
 * trace_witness_blocks says whether one of them surely runs through it
 * (then trace_occluded_from answers blocked; false says nothing). For the
 * world's tree alone, without channels. */
int trace_blocking_leaf_from(const qrad_t *q, int start, vec3_t a, vec3_t b);
/* trace_blocking_leaf_from for n (at most TRACE_PACKET) segments a[l]-b
 * from one start node: leaf[l] >= 0 exactly where that walk finds one (a
 * solid leaf segment l meets, not always the walk's first), else -1. Where
 * the CPU has AVX2 the segments walk the tree together (trace.c,
 * packet_walk_avx2); elsewhere one by one. */
#define TRACE_PACKET 4
void trace_blocking_leaves_from(const qrad_t *q, int start, vec3_t b, int n, const vec3_t *a, int *leaf);
bool trace_witness_blocks(const qrad_t *q, int start, int leaf, vec3_t a, vec3_t b);
static inline bool qrad_cluster_visible(const qrad_t *q, int from, int to)
{
    if (!q->pvs || from < 0 || to < 0) return true;
    return (q->pvs[(size_t)from * q->pvs_rowbytes + (to >> 3)] >> (to & 7)) & 1;
}

#endif
