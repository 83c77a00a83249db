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
} overlays_t;

bool overlays_load_pointfile(overlays_t *ov, const char *path, q2err_t *err);
bool overlays_load_prt(overlays_t *ov, const char *path, q2err_t *err);
void overlays_free(overlays_t *ov);

#endif
