/* lights.c: the entity lights, suns and sky settings, and what
 * surflights.c, above it, takes from it.
 * Takes: the entities (keys.c), the bsp tree (each light's cluster).
 * Gives: q->lights, q->sun and the sky settings. */
#ifndef Q2M_QRAD_LIGHTS_H
#define Q2M_QRAD_LIGHTS_H

#include "qrad.h"

bool qrad_lights_setup(qrad_t *q, q2err_t *err);
void qrad_lights_free(qrad_t *q);
/* Yaw/pitch (degrees) to a unit vector, as Quake's mangle. */
vec3_t qrad_angles_to_vec(double yaw, double pitch);

/* A light entity with "_surface": a template that surflights.c copies
 * onto faces; it does not light by itself. */
bool qrad_surface_template(const entity_t *e);
/* Parses one light entity into q->lights (as qrad_lights_setup's loop
 * does); for surface-light templates, after qrad_lights_setup has read the
 * worldspawn's light keys. */
bool qrad_light_from_entity(qrad_t *q, const entity_t *e, int index);

#endif
