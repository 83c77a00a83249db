/* dirt.c: dirtmapping (ambient occlusion) factors per luxel.
 * Takes: worldspawn's and the lights' dirt keys, a face's samples and the
 * tracer. Gives: a lit face's dirt factors (f->dirtmap), before its
 * direct light. */
#ifndef Q2M_QRAD_DIRT_H
#define Q2M_QRAD_DIRT_H

#include "qrad.h"

void qrad_dirt_setup(struct qrad_t *q);
/* Per-luxel dirt factor in 0..1 (1 = open) for a lit face; NULL when off.
 * With dirt.custom, *raw gets the occlusion before scale and gain. */
float *qrad_dirt_face(const struct qrad_t *q, int fi, const rface_t *f, long *rays, float **raw);
/* The dirt factor of luxel idx for a light with these _dirtscale/_dirtgain
 * (< 0: worldspawn's, which is the precomputed f->dirtmap). */
double qrad_dirt_factor(const struct qrad_t *q, const rface_t *f, int idx, double scale, double gain);

#endif
