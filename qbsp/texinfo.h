/* The texinfo table: one dtexinfo_t per distinct (texture vectors, flags,
 * value, texture name), shared by every side that projects the same way,
 * with animation chains (.wal "animname") linked through nexttexinfo. */
#ifndef Q2M_QBSP_TEXINFO_H
#define Q2M_QBSP_TEXINFO_H

#include <stdbool.h>

#include "qbsp.h"

/* Index of the texinfo for a map side on a plane with `normal`, for a brush
 * entity with `origin` ((0,0,0) for the world), with the given surface
 * flags and value. Adds it (and its animation frames) when new. Fails when
 * the texture name does not fit Quake 2's 32-byte field. `flags`/`value`
 * are the side's resolved surface flags and value. */
int texinfo_for_side(qbsp_t *q, const map_side_t *side, vec3_t normal, vec3_t origin, int flags, int value,
                     q2err_t *err);

/* Index of the texinfo with exactly these fields (nexttexinfo aside), adding
 * it when new; follows the texture's animation chain when q->texdb knows it. */
int texinfo_find(qbsp_t *q, const dtexinfo_t *tx);

/* After every model's faces were emitted (q->bsp.faces) and before
 * writebsp_finish: drops texinfo no face uses. Brush sides that draw no
 * face only need their surface (name, flags, value) for collision, so they
 * are pointed at a texinfo with the same surface. Remaps q->bsp.faces,
 * every map brush side and the animation links; returns how many were
 * dropped. Keeps maps with many projections under MAX_MAP_TEXINFO. */
int texinfo_compact(qbsp_t *q);

void texinfo_free(qbsp_t *q);

#endif
