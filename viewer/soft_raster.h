/* Helpers of the software renderer that the window and checks reuse. */
#ifndef QVIEW_SOFT_RASTER_H
#define QVIEW_SOFT_RASTER_H

#include <stdint.h>

#include "world.h"

/* Vertices of a face the software renderer handles (the faces compilers
 * write have at most 64; the bsp format allows more), and points after near
 * clipping (one more per crossing; a convex face crosses twice). */
#define SOFT_MAX_VERTS 256
#define SOFT_MAX_POINTS (SOFT_MAX_VERTS + 4)

/* Near-clips a polygon given in camera space (x right, y up, z forward) and
 * projects it to pixel coordinates; returns the number of points (< 3: not
 * visible). */
int soft_clip_project(const view_t *v, const double (*cam)[3], int n, double (*out)[2], int max);
/* Face fi of the world, transformed, clipped and projected. */
int soft_project_face(const world_t *w, const view_t *v, int fi, double (*out)[2], int max);
/* A one-pixel line on an RGBA image, clipped to it. */
void soft_line2d(uint8_t *rgba, int w, int h, double x0, double y0, double x1, double y1, const uint8_t rgb[3]);

#endif
