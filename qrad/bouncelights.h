/* bouncelights.c: ericw-tools' bounce (its light/bounce.cc and
 * IndirectLightFace in light/ltface.cc, 2.0.0-alpha11), on under
 * -preset ericw (qrad_opts_t.ericw_bounce) in place of bounce.c's patch
 * radiosity.
 *
 * Takes: every face's samples, phong normals, clusters, dirt factors and
 * direct light of every style, on every rank (q->full_exchange, which the
 * driver turns on for it), the tracer, the PVS, the models' keys and the
 * texture colours (rface_t.reflect).
 * Gives: each lit face's light of every style with the bounced light added
 * (a style slot added where a styled bounce brings a visible level), on
 * every rank, before the floors (minlight.c). */
#ifndef Q2M_QRAD_BOUNCELIGHTS_H
#define Q2M_QRAD_BOUNCELIGHTS_H

#include "qrad.h"

/* q->bounces passes; each makes one point light per emitting face and
 * style from the light the face got in the pass before (the direct pass
 * for the first), and every lit face gathers them. */
bool qrad_bouncelights(qrad_t *q, q2err_t *err);

#endif
