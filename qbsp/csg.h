/* Brush fragments (bspbrush_t) and CSG.
 *
 * A bspbrush_t is a convex piece of a map brush with a winding per side;
 * BrushBSP splits them and CSG subtracts them from each other. Sides whose
 * texinfo is TEXINFO_NODE lie on a node plane already (or are never drawn,
 * like clip brush sides) and are never chosen as splitters. */
#ifndef Q2M_QBSP_CSG_H
#define Q2M_QBSP_CSG_H

#include <stdbool.h>

#include "qbsp.h"

#define TEXINFO_NODE -1

/* Which side of a plane a brush is on (bit set). */
#define PSIDE_FRONT 1
#define PSIDE_BACK 2
#define PSIDE_BOTH (PSIDE_FRONT | PSIDE_BACK)
#define PSIDE_FACING 4 /* the brush has a side on the plane */

/* A point further than this from a plane is clearly on one side when
 * deciding whether a brush is split (qbsp3's PLANESIDE_EPSILON). */
#define PLANESIDE_EPSILON 0.1
/* Fragments smaller than this (cubic units) are slivers from numerical
 * noise and are discarded after a split. */
#define MIN_FRAGMENT_VOLUME 1.0

/* plane_dist_to with the dot product skipped for axial planes, whose
 * normals are exact unit axes (plane_snap): the same value up to the sign
 * of a zero, so every comparison comes out the same. */
static inline double plane_point_dist(const plane_t *p, vec3_t pt)
{
    switch (p->type) {
    case PLANE_X: return pt.x * p->normal.x - p->dist;
    case PLANE_Y: return pt.y * p->normal.y - p->dist;
    case PLANE_Z: return pt.z * p->normal.z - p->dist;
    default: return plane_dist_to(p, pt);
    }
}

/* Clipping chains (a plane's huge square cut down by many planes) without
 * an allocation per cut. qbsp_chain_start gives w (consumed) room to grow,
 * qbsp_chain_copy makes a copy with room to grow; qbsp_chain_clip is winding_clip with the same arithmetic in the
 * same order (so the same points), writing the kept part into w's own
 * buffer when it fits and reallocating with room to spare when it does
 * not; it consumes w as winding_clip does. qbsp_chain_fit hands back a
 * winding of exactly its points (consuming w) for keeping. */
winding_t *qbsp_chain_start(winding_t *w);
/* qbsp_chain_start(winding_for_plane(normal, dist, WORLD_EXTENT)) in one
 * allocation. */
winding_t *qbsp_chain_for_plane(vec3_t normal, double dist);
winding_t *qbsp_chain_copy(const winding_t *w);
winding_t *qbsp_chain_clip(winding_t *w, vec3_t normal, double dist, double eps, bool keep_on);
winding_t *qbsp_chain_fit(winding_t *w);

/* Freed windings and brush fragments kept by size for reuse, so that the
 * tree build's and CSG's splits (over a million windings and fragments on
 * base1-test) do not each go through malloc and free. One per thread (no
 * locking), owned by the stage that runs the threads and released when it
 * ends. Blocks are plain malloc blocks: anything taken from a cache may be
 * freed with free() or brush_free, and any winding or brush may be given to
 * one. A NULL cache means plain malloc and free. */
#define BC_MAX_POINTS 24
#define BC_MAX_SIDES 24
typedef struct blockcache_t {
    void *windings[BC_MAX_POINTS + 1]; /* by maxpoints, linked through their first word */
    void *brushes[BC_MAX_SIDES + 1];   /* by maxsides */
    int nwindings[BC_MAX_POINTS + 1], nbrushes[BC_MAX_SIDES + 1];
} blockcache_t;
/* winding_alloc from the cache. */
winding_t *bc_winding_alloc(blockcache_t *bc, int maxpoints);
void bc_winding_free(blockcache_t *bc, winding_t *w);
/* brush_alloc (zeroed) and brush_free (with its windings) through the cache. */
bspbrush_t *bc_brush_alloc(blockcache_t *bc, int numsides);
void bc_brush_free(blockcache_t *bc, bspbrush_t *b);
/* Frees everything the cache holds; it is then empty and reusable. */
void bc_release(blockcache_t *bc);
/* winding_copy through the cache. */
winding_t *bc_winding_copy(blockcache_t *bc, const winding_t *w);
/* qbsp_chain_copy and qbsp_chain_fit through the cache. */
winding_t *qbsp_chain_copy_bc(blockcache_t *bc, const winding_t *w);
winding_t *qbsp_chain_fit_bc(blockcache_t *bc, winding_t *w);

bspbrush_t *brush_alloc(int numsides);
void brush_free(bspbrush_t *b);
void brush_list_free(bspbrush_t *list);
bspbrush_t *brush_copy(const bspbrush_t *b);
int brush_list_count(const bspbrush_t *list);
/* Bounds from the side windings. */
void brush_bound(bspbrush_t *b);
/* The farthest distances of the brush's winding points in front of the
 * plane and behind it: *front >= 0 >= *back (0 where none lies on a side). */
void brush_plane_extremes(const bspbrush_t *b, const plane_t *p, double *front, double *back);
double brush_volume(const qbsp_t *q, const bspbrush_t *b);
/* Splits by plane `planenum` (front = in front of the plane). Either
 * result may be NULL; the input is not modified. Thread-safe (reads the
 * plane table only). */
void brush_split(const qbsp_t *q, blockcache_t *bc, const bspbrush_t *b, int planenum, bspbrush_t **front,
                 bspbrush_t **back);
/* brush_split that consumes b: a brush on one side is handed on itself
 * rather than copied (its next pointer cleared). */
void brush_split_consume(const qbsp_t *q, blockcache_t *bc, bspbrush_t *b, int planenum, bspbrush_t **front,
                         bspbrush_t **back);
/* An axial box brush (adds its planes to the table: not thread-safe). */
bspbrush_t *brush_from_bounds(qbsp_t *q, vec3_t mins, vec3_t maxs);
/* True when a point is inside the brush (all sides' planes in front). */
bool brush_contains_point(const qbsp_t *q, const bspbrush_t *b, vec3_t p, double eps);

/* Fragments for map brushes first..first+count-1 (brushes with no sides
 * skipped; bevel sides left out). Side `visible` starts true for drawable
 * sides, and always for hint sides. */
bspbrush_t *csg_make_brushes(const qbsp_t *q, int first, int count);

/* Copies a list (in order). */
bspbrush_t *brush_list_copy(const bspbrush_t *list);

/* Sets each side's `visible` from its map brush side as csg_make_brushes
 * does, for fragments made before portals_mark_visible_sides ran. */
void csg_refresh_visible(bspbrush_t *list);

/* qbsp3's ChopBrushes: clips overlapping brushes so that no volume is
 * claimed twice. A solid brush bites the brushes it overlaps (the weaker
 * contents lose the overlap); a detail brush never bites a structural one;
 * non-solid contents overlap freely and combine in the leafs. Consumes the
 * list and returns the new one. The result does not depend on threads. */
bspbrush_t *csg_chop_brushes(const qbsp_t *q, bspbrush_t *list, int *numfragments);

/* a - b: the pieces of a outside b; returns `a` itself when they do not
 * intersect and NULL when b swallows a. */
bspbrush_t *csg_subtract_brush(const qbsp_t *q, blockcache_t *bc, bspbrush_t *a, const bspbrush_t *b);

#endif
