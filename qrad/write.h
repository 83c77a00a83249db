/* write.c: the lighting lump, the faces' styles and offsets in face
 * order, on rank 0.
 * Takes: every face's finished light (after bounces and floors, on the
 * rank that lit it, or everywhere with q->full_exchange). Gives: the bsp's
 * lighting lump. */
#ifndef Q2M_QRAD_WRITE_H
#define Q2M_QRAD_WRITE_H

#include "qrad.h"

/* Without q->full_exchange, after the bounces: each face's bounced light,
 * minimum light and final touches and its lightmap bytes, on the rank that
 * lit it; the bytes go to rank 0, which alone goes on to write. */
bool qrad_finish(qrad_t *q, q2err_t *err);
bool qrad_write_lighting(qrad_t *q, q2err_t *err);

#endif
