/* autominlight.c: ericw-tools' "autominlight" for brush models (its
 * light/ltface.cc, LightFace_AutoMin), on under -preset ericw
 * (qrad_opts_t.autominlight).
 *
 * Takes: the lights, surface lights and suns (after qrad_lights_setup and
 * qrad_surface_lights), the entities' _autominlight and
 * _autominlight_target keys, the bsp tree and the tracer.
 * Gives: q->automin, each bmodel's light at the centre of its bounds (or at
 * its _autominlight_target's origin) as ericw's light grid computes a point;
 * qrad_autominlight_face raises a bmodel face's luxels to it, after the
 * floors and before the negative lights (minlight.c calls it), so both the
 * per-rank finish and the full-exchange path apply it at the same point. */
#ifndef Q2M_QRAD_AUTOMINLIGHT_H
#define Q2M_QRAD_AUTOMINLIGHT_H

#include "qrad.h"

/* Every rank computes every bmodel's sample (deterministic, each model on
 * its own slot); q->automin stays NULL when the option is off or no bmodel
 * takes it. */
void qrad_autominlight_setup(qrad_t *q);
/* Face fi of a bmodel: each luxel in the world's solid (or, with
 * "_autominlight" "1", every luxel) becomes at least its model's sample,
 * channel by channel, in each style the sample holds. */
void qrad_autominlight_face(const qrad_t *q, rface_t *f);
void qrad_autominlight_free(qrad_t *q);

#endif
