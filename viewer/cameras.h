/* Deterministic viewpoints for headless renders and checks: the player
 * starts first (at eye height, facing their angle), then points spread
 * evenly over the map's empty clusters. The same map always gives the same
 * cameras. */
#ifndef QVIEW_CAMERAS_H
#define QVIEW_CAMERAS_H

#include "world.h"

/* Eye height above a player start's origin (Quake 2's viewheight). */
#define PLAYER_VIEW_HEIGHT 22.0

/* Fills up to n cameras; returns how many (fewer when the map has fewer
 * usable places). */
int cameras_generate(const world_t *w, int n, camera_t *out);
/* The first player start (info_player_start, then deathmatch/coop) or, when
 * there is none, the first generated camera. False for a map with no empty
 * leaf at all. */
bool camera_start(const world_t *w, camera_t *out);

#endif
