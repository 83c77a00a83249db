/* direct.c: direct light per luxel and style: point, spot, surface
 * lights, suns and the sky dome, with dirt.
 * Takes: the lights (lights.c, surflights.c), the faces' geometry, the
 * tracer. Gives: each face's light of every style, and with bounce patches
 * or decoupled lightmaps those too, in the face's own direct-pass item. */
#ifndef Q2M_QRAD_DIRECT_H
#define Q2M_QRAD_DIRECT_H

#include "qrad.h"

/* The direct pass over q->faces: each face's sample points (when it has
 * none yet), its light and, with bounce patches laid out
 * (qrad_bounce_layout), its patches' origins and direct light; with
 * decoupled lightmaps, the decoupled face's samples and direct light too. */
bool qrad_direct(qrad_t *q, q2err_t *err);
/* Irradiance factor of a uniformly emitting polygon at point p with normal
 * n: the form factor times pi (Lambert's contour integral), with the polygon
 * clipped to the receiver's hemisphere. */
double polygon_irradiance(const vec3_t *pts, int n, vec3_t p, vec3_t normal);
/* A point or spot light's value dist away (dir: unit, towards the light)
 * for a receiver whose cosine term (with _anglescale applied) is dot: its
 * falloff and cone, no shadow. */
double qrad_point_light_value(const light_t *l, double dist, double dot, vec3_t dir);
/* ericw-tools' sky dome (its SetupSkyDome) for -sunsamples `samples`: the
 * directions towards its suns, *count of them (malloc'd). */
vec3_t *qrad_dome_ring_dirs(int samples, int *count);

#endif
