/* BrushBSP: recursive partition of brush fragments into a tree whose
 * leaves are convex and homogeneous (qbsp3's BrushBSP).
 *
 * Split planes come from brush sides: hint sides first, then structural
 * sides, then detail sides (a node split by a detail side is a
 * detail_seperator: everything below it is one cluster); within a pass the
 * plane that splits fewest visible faces and balances the brushes best
 * wins, axial planes preferred. Node planes are always even (planes.h).
 *
 * Independent subtrees are built as OpenMP tasks; the tree is a pure
 * function of the input, whatever the thread count or schedule. */
#ifndef Q2M_QBSP_BRUSHBSP_H
#define Q2M_QBSP_BRUSHBSP_H

#include "qbsp.h"

/* Padding around the brushes' bounds for the tree's outer volume, so no
 * leaf has zero volume (qbsp3's SIDESPACE). */
#define SIDESPACE 8.0

typedef struct brushbsp_stats_t {
    int brushes;      /* input fragments */
    int nodes, leafs; /* in the finished tree */
    int solid_leafs, detail_seperators;
} brushbsp_stats_t;

/* Builds the tree. Consumes `brushes`; leaf brushlists keep the pieces.
 * `bounds` is the region of the model (its brushes' bounds); empty models
 * get a single empty leaf. Adds the outer box's planes to q->planes. */
tree_t *brushbsp_build(qbsp_t *q, bspbrush_t *brushes, aabb_t bounds, brushbsp_stats_t *stats);

/* Frees nodes, volumes, brush lists and portals. */
void tree_free(tree_t *tree);

/* The contents a leaf is written with: its own, and for a solid leaf
 * SOLID with the other bits of the solid brushes filling it. */
int brushbsp_written_contents(const node_t *leaf);

/* Whether everything below NODE is solid leaves of one written contents
 * (*contents) with no face between them, so that the subtree is written as
 * one leaf listing all their brushes (qbsp3's PruneNodes; ericw-tools'
 * leaf merging). Leaves of different contents (a detail or ladder solid
 * against a structural wall) stay apart, so CM_PointContents keeps their
 * bits. */
bool brushbsp_solid_subtree(const node_t *node, int *contents);

/* The leaf that contains point p (points on a plane go to the front). */
node_t *tree_point_leaf(const qbsp_t *q, node_t *node, vec3_t p);

/* Bounds of a set of fragments. */
aabb_t brushes_bounds(const bspbrush_t *list);

#endif
