/* qview and BSPX lumps (formats/bspx.h): DECOUPLED_LM lightmaps replace the
 * vanilla ones where present; LIGHTGRID_OCTREE samples and FACENORMALS
 * normals can be drawn as overlays (`--overlay lightgrid`, `--overlay
 * normals`). */
#ifndef QVIEW_BSPX_VIEW_H
#define QVIEW_BSPX_VIEW_H

#include "../common/log.h"
#include "overlays.h"
#include "world.h"

/* Called by world_from_bsp once the faces are built. A malformed lump is
 * warned about and ignored. */
void world_use_bspx(world_t *w, log_t *log);
/* Adds the named overlay's lines to ov->bspx. */
bool bspx_overlay_load(overlays_t *ov, const world_t *w, const char *name, q2err_t *err);

#endif
