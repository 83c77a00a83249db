/* Lightmap geometry shared by qbsp (subdivision), qrad (sampling), qview
 * (drawing) and bspinfo (checks): one luxel per LIGHTMAP_SCALE (16)
 * texture units, sized exactly as engines compute it:
 *   val = dot(vertex, vecs[i].xyz) + vecs[i][3]   over the face's vertices
 *   texturemins[i] = floor(min/16) * 16
 *   extents[i]     = (ceil(max/16) - floor(min/16)) * 16
 *   size[i]        = extents[i] / 16 + 1           (luxels)
 * Engines evaluate `val` in single precision, so a vertex lying exactly on a
 * multiple of 16 can round either way; face_extents reports whether any
 * vertex is within LIGHTMAP_ROUND_EPSILON of a luxel boundary so qbsp can keep
 * a margin and never produce a face that one engine sizes 18 luxels. */
#ifndef Q2M_LIGHTMAP_H
#define Q2M_LIGHTMAP_H

#include <stdbool.h>

#include "../common/error.h"
#include "bspfile.h"

/* Texture-space distance from a luxel boundary below which float and double
 * evaluation may disagree about which luxel a vertex falls in. */
#define LIGHTMAP_ROUND_EPSILON 0.01

typedef struct face_extents_t {
    int texturemins[2];
    int extents[2];
    int size[2];          /* luxels: extents/16 + 1 */
    double mins[2], maxs[2]; /* exact texture-space bounds */
    bool near_boundary;   /* a bound is within LIGHTMAP_ROUND_EPSILON of a multiple of 16 */
} face_extents_t;

/* Extents of a polygon with `n` points given the texinfo vectors. */
void lightmap_extents(const double (*points)[3], int n, const float vecs[2][4], face_extents_t *out);

/* Extents of face `f` of a bsp (vertices through surfedges and edges).
 * Returns false if the face's indices are out of range. */
bool bsp_face_extents(const bsp_t *bsp, int f, face_extents_t *out, q2err_t *err);

/* Bytes of lightmap data a face needs: size[0]*size[1]*3 per style. */
int lightmap_face_bytes(const face_extents_t *e, int numstyles);

#endif
