/* Headless validation: the crack check (background set to a key colour,
 * PVS culling on, sky drawn as sky; any key pixel seen from inside a sealed
 * map is a gap in the compiled geometry or a cluster the PVS wrongly hides)
 * and the soft-versus-GL comparison (mean absolute difference per view). */
#ifndef QVIEW_CHECKS_H
#define QVIEW_CHECKS_H

#include <stdint.h>

#include "refexport.h"

/* Magenta: no lit texture, flat colour or the sky colour produces it. */
#define KEY_R 255
#define KEY_G 0
#define KEY_B 255

long count_key_pixels(const uint8_t *rgba, int w, int h);
/* Mean absolute difference over the r, g, b channels, in 0..255 units. */
double image_mae(const uint8_t *a, const uint8_t *b, int w, int h);
/* Share of pixels that differ from `bg`, and the number of distinct colours. */
void image_stats(const uint8_t *rgba, int w, int h, const uint8_t bg[3], double *covered, int *colors);

/* Renders one view with a renderer already initialised; rgba holds w*h*4. */
void render_view(const refexport_t *ref, void *state, const camera_t *cam, const render_opts_t *o,
                 render_stats_t *stats, uint8_t *rgba);

/* Key pixels of each view (counts[n]); skip_face (-1 none) leaves one face
 * out to show the check can fail. */
bool check_cracks(const world_t *w, const refexport_t *ref, const camera_t *cams, int n, int width, int height,
                  int threads, int skip_face, long *counts, q2err_t *err);
/* As check_cracks, and also the first key pixels found (view, x, y), up to
 * maxpx of them in view then row order, in px[*npx]: where to look. */
typedef struct {
    int view, x, y;
} key_pixel_t;
bool check_cracks_locate(const world_t *w, const refexport_t *ref, const camera_t *cams, int n, int width,
                         int height, int threads, int skip_face, long *counts, key_pixel_t *px, int maxpx, int *npx,
                         q2err_t *err);
/* Mean absolute error between soft and gl per view (mae[n]). */
bool compare_renderers(const world_t *w, const camera_t *cams, int n, int width, int height, int threads,
                       double *mae, q2err_t *err);
/* The face that the pixel (px, py) shows in this view (first face in
 * front-to-back order whose projection covers it), -1 when none. */
int face_at_pixel(const world_t *w, const camera_t *cam, int width, int height, int px, int py);

#endif
