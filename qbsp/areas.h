/* Areas: the world's empty leafs flooded into regions separated by
 * func_areaportal brushes, as engines use them to cut off sound and
 * visibility behind closed doors.
 *
 * Call for the world model only, after FloodEntities / FillOutside (leafs
 * reachable from entities have node->occupied set) and before faces_make.
 * Relies on each func_areaportal brush keeping its own entity index in
 * mapbrush_t.entitynum after it joined the world, and on areaportal leafs
 * having CONTENTS_AREAPORTAL with the brush in node->brushlist. */
#ifndef Q2M_QBSP_AREAS_H
#define Q2M_QBSP_AREAS_H

#include <stdbool.h>

#include "qbsp.h"

/* Numbers func_areaportal entities 1.. in entity order (setting each one's
 * "style" key to its number, as qbsp3 does), assigns node->area to every
 * reachable leaf (areas numbered from 1; areaportal leafs get the area of
 * their first side) and sets q->numareas. Fails, naming the entity (index,
 * line, origin), when a func_areaportal does not separate exactly two
 * areas. The areas and areaportals lumps are written by writebsp_finish. */
bool areas_flood(qbsp_t *q, tree_t *tree, q2err_t *err);

#endif
