/* lights.c: the entity lights, suns and sky settings (qrad_lights_setup,
 * declared in qrad.h), and what surflights.c, above it, takes from it. */
#ifndef Q2M_QRAD_LIGHTS_H
#define Q2M_QRAD_LIGHTS_H

#include "qrad.h"

/* A light entity with "_surface": a template that surflights.c copies
 * onto faces; it does not light by itself. */
bool qrad_surface_template(const entity_t *e);
/* Parses one light entity into q->lights (as qrad_lights_setup's loop
 * does); for surface-light templates, after qrad_lights_setup has read the
 * worldspawn's light keys. */
bool qrad_light_from_entity(qrad_t *q, const entity_t *e, int index);

#endif
