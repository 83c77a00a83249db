/* surflights.c: surface lights, added to q->lights after the entity lights. */
#ifndef Q2M_QRAD_SURFLIGHTS_H
#define Q2M_QRAD_SURFLIGHTS_H

#include "qrad.h"

void qrad_surface_lights(qrad_t *q);

#endif
