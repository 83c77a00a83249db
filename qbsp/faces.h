/* Faces: drawable polygons from the portals' visible sides, merged,
 * subdivided for lightmaps, welded and free of T-junctions.
 *
 * Order per model (after MarkVisibleSides, and after areas_flood for the
 * world): faces_make, faces_fix_tjunctions, (optional node pruning), then
 * writebsp_model. faces_fix_tjunctions must always be called: it also gives
 * every face its vertex numbers in q->bsp.vertexes (welded unless -noweld),
 * which writebsp needs; -notjunc only skips the T-junction repair. */
#ifndef Q2M_QBSP_FACES_H
#define Q2M_QBSP_FACES_H

#include "qbsp.h"

/* Builds face_t lists on every node (node->faces, linked through ->next)
 * from the portals whose side was found visible, one face per non-solid
 * leaf side, also listed on that leaf in its portals' order
 * (node->leaffaces, linked through ->leafnext); merges coplanar faces with
 * the same texinfo and contents (unless -nomerge) and subdivides faces so
 * that every lightmap is at most 17x17 luxels as engines compute it
 * (unless -nosubdiv; SKY and WARP faces are never subdivided). Faces
 * replaced by a merge or a split keep their place in the list with
 * ->merged or ->split[] set; only faces with neither are final. The
 * emission reads the faces through the leaves' lists, not through the
 * portals. */
void faces_make(qbsp_t *q, tree_t *tree);

/* Assigns vertexnums (welding equal points unless -noweld), inserts every
 * vertex that lies on a face edge into that face (unless -notjunc), and
 * splits faces that grow past MAX_FACE_POINTS points. */
void faces_fix_tjunctions(qbsp_t *q, tree_t *tree);

/* --- Building blocks, exposed for unit tests. --- */

/* Merges two convex coplanar windings that share an edge (in opposite
 * directions) when the result is convex; NULL otherwise. `normal` is the
 * plane normal the windings face. Inputs are not modified. */
winding_t *faces_try_merge_windings(const winding_t *a, const winding_t *b, vec3_t normal);

/* True when a face with this winding and texinfo must be split so that its
 * lightmap fits (see lightmap.h): texture-space extent over `chop`, or more
 * than MAX_LIGHTMAP_DIM luxels on an axis counting one luxel extra at every
 * bound within LIGHTMAP_ROUND_EPSILON of a luxel boundary. *axis receives the
 * first axis that needs a split. */
bool faces_needs_subdivide(const winding_t *w, const dtexinfo_t *tex, double chop, int *axis);

/* Splits `w` into pieces that each satisfy !faces_needs_subdivide; returns
 * the count and stores malloc'ed windings in *out (caller frees each and the
 * array). A winding that needs no split comes back as a single copy. */
int faces_subdivide_winding(const winding_t *w, const dtexinfo_t *tex, double chop, winding_t ***out);

#endif
