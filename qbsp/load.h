/* Load: a parsed .map -> map brushes with planes, texinfo, contents and
 * windings (qbsp3's map.c rules).
 *
 * Brushes are stored entity by entity in q->mapbrushes; func_group and
 * func_areaportal brushes join the world (entity 0) and keep their own
 * entity index in mapbrush_t.entitynum. Origin brushes are removed after
 * setting their entity's "origin" key, and the entity's other brushes are
 * re-based around that origin. */
#ifndef Q2M_QBSP_LOAD_H
#define Q2M_QBSP_LOAD_H

#include <stdbool.h>

#include "qbsp.h"

/* Reads and parses `path` into q->map, then load_brushes. */
bool load_map(qbsp_t *q, const char *path, q2err_t *err);

/* Builds q->mapbrushes and the per-entity tables from q->map (already
 * parsed). Degenerate or duplicate planes, brushes with no volume and open
 * brushes are warned about (entity, brush, line) and dropped; a brush or an
 * entity beyond the world (+-MAX_WORLD_COORD) is an error. */
bool load_brushes(qbsp_t *q, q2err_t *err);

/* Clips each side's plane by every other side and sets the side windings
 * and brush bounds. Returns false if the brush encloses no volume. */
bool load_make_brush_windings(const qbsp_t *q, mapbrush_t *b);

/* Frees what load allocated (map brushes, sides, windings, tables). */
void load_free(qbsp_t *q);

#endif
