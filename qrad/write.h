/* write.c: each face finished and turned into bytes, then the lighting
 * lump with the faces' styles and offsets in face order.
 * Takes: every face's light after the bounces (qrad_finish, on the rank
 * that lit the face, gathers the patch bounces and applies the floors
 * there; with q->full_exchange the driver has done both). Gives: the
 * bytes, gathered on rank 0, which alone writes the lump. */
#ifndef Q2M_QRAD_WRITE_H
#define Q2M_QRAD_WRITE_H

#include "qrad.h"

/* Without q->full_exchange, after the bounces: each face's bounced light,
 * minimum light and final touches and its lightmap bytes, on the rank that
 * lit it; the bytes go to rank 0, which alone goes on to write. */
bool qrad_finish(qrad_t *q, q2err_t *err);
bool qrad_write_lighting(qrad_t *q, q2err_t *err);

#endif
