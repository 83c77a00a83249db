/* Leaks: the shortest portal path from the entity whose flood reached the
 * void to the outside, written as MAP.pts (sampled every 2 units, as
 * TrenchBroom and ericw-tools read it) and MAP.lin (Radiant's). */
#ifndef Q2M_QBSP_LEAK_H
#define Q2M_QBSP_LEAK_H

#include <stdbool.h>

#include "qbsp.h"

/* Spacing of the .pts samples. */
#define LEAK_PTS_SPACING 2.0

/* The path after portals_flood_entities found a leak: the entity's origin,
 * then the centre of every portal crossed, ending on the tree's outer
 * boundary. *pts is malloc'ed; *entity receives the leaking entity. */
bool leak_path(const qbsp_t *q, const tree_t *tree, vec3_t **pts, int *n, int *entity);

/* Writes both pointfiles and describes the leak ("entity 3 (light) at
 * 0 0 0, line 12") in desc. */
bool leak_write(const qbsp_t *q, const tree_t *tree, const char *pts_path, const char *lin_path, char *desc,
                size_t descsz, q2err_t *err);

#endif
