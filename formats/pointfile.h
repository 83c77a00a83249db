/* Leak pointfiles: `.pts` (one "x y z" per line, points along the leak path,
 * the format TrenchBroom and ericw-tools read) and `.lin` (the same points,
 * Radiant's line file). Written atomically. */
#ifndef Q2M_POINTFILE_H
#define Q2M_POINTFILE_H

#include <stdbool.h>

#include "../common/error.h"
#include "../common/mathlib.h"

/* `.pts`: the path sampled every `spacing` units (ericw-tools uses 2), so an
 * editor draws a dotted line. */
bool pointfile_write_pts(const char *path, const vec3_t *pts, int n, double spacing, q2err_t *err);
/* `.lin`: the path's vertices only. */
bool pointfile_write_lin(const char *path, const vec3_t *pts, int n, q2err_t *err);
/* Reads either format (one point per line); *pts is malloc'ed. */
bool pointfile_read(const char *path, vec3_t **pts, int *n, q2err_t *err);

#endif
