/* surflights.c: surface lights (SURF_LIGHT faces, "_surface" light
 * templates), added to q->lights after the entity lights (rad.c runs
 * qrad_surface_lights after qrad_lights_setup). Stands on lights.c. */
#ifndef Q2M_QRAD_SURFLIGHTS_H
#define Q2M_QRAD_SURFLIGHTS_H

#include "lights.h"
#include "qrad.h"

void qrad_surface_lights(qrad_t *q);
/* Form factor (times pi) of a rescaled surface-light piece (ericw's
 * _surflight_rescale) at a receiver dist away along -dir with cosine dot;
 * 0 when either side faces away. */
double qrad_surflight_rescaled(const light_t *l, double dist, double dot, vec3_t dir);
/* _surflight_minlight_scale floors on emitting faces (style 0), and under
 * -preset qrad3 a light face's own emission added, after the bounces; then qrad_surflights_free. */
void qrad_surflights_floor(qrad_t *q);
void qrad_surflights_floor_face(qrad_t *q, int fi);
void qrad_surflights_free(qrad_t *q);

#endif
