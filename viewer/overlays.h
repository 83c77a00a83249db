/* Overlay lines: a leak path from a .pts/.lin pointfile (red) and the
 * portals of a .prt file (yellow outlines). */
#ifndef QVIEW_OVERLAYS_H
#define QVIEW_OVERLAYS_H

#include "refexport.h"

typedef struct overlays_t {
    overlay_line_t *leak;
    int numleak, capleak;
    overlay_line_t *portals;
    int numportals, capportals;
    overlay_line_t *bspx; /* --overlay lightgrid|normals (bspx_view.c) */
    int numbspx, capbspx;
} overlays_t;

bool overlays_load_pointfile(overlays_t *ov, const char *path, q2err_t *err);
bool overlays_load_prt(overlays_t *ov, const char *path, q2err_t *err);
void overlays_free(overlays_t *ov);

/* Where a leak is looked at from: just behind and above the start of the
 * path (the entity that leaks), facing along it, so the line runs away from
 * the eye into the hole. False without a leak line. */
#define LEAK_CAMERA_BACK 48.0 /* units behind the start, against the path */
#define LEAK_CAMERA_UP 16.0   /* units above it */
#define LEAK_CAMERA_AIM 128.0 /* aim at the path point this far along it */
bool overlays_leak_camera(const overlays_t *ov, camera_t *out);

#endif
