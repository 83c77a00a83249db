/* models.c: per-model settings from brush entities and worldspawn
 * (phong, minlight, shadows, object and shadow channels).
 * Takes: the entities and the bsp's models (keys.c). Gives: q->mkeys, and
 * which casters shade which receivers (qrad_model_blocks). */
#ifndef Q2M_QRAD_MODELS_H
#define Q2M_QRAD_MODELS_H

#include "qrad.h"

bool qrad_models_setup(struct qrad_t *q, q2err_t *err);
void qrad_models_free(struct qrad_t *q);
/* Does a caster model block light travelling to a face of model recv, for
 * a light of this shadow mask? */
bool qrad_model_blocks(const struct qrad_t *q, int caster, int recv, int shadow_mask);

#endif
