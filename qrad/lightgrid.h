/* lightgrid.c: LIGHTGRID_OCTREE (ericw-tools' BSPX light grid), after
 * the lighting is written; and the removal of BSPX lumps a rerun would
 * leave stale.
 * Takes: the lights, the tracer, the written lighting. Gives: the lump. */
#ifndef Q2M_QRAD_LIGHTGRID_H
#define Q2M_QRAD_LIGHTGRID_H

#include "qrad.h"

bool qrad_lightgrid(qrad_t *q, q2err_t *err);
/* ericw-tools' FixLightOnFace for a point of its light grid: p if it is not
 * in the world's solid, else the first of its six moves of 2 units along
 * the axes that is; false (p unchanged) when none is. */
bool qrad_fix_point(const bsp_t *bsp, vec3_t *p);
/* Removes the BSPX lumps an earlier qrad run wrote that this run does not
 * write again: they describe lighting that is being replaced. */
bool qrad_drop_stale_lumps(qrad_t *q, q2err_t *err);

#endif
