/* The renderer interface, after Quake 2's refexport_t: a table of functions
 * that a renderer fills in, chosen at run time and switchable while the
 * window is open. Every renderer draws into its own RGBA8 image of the size
 * given to init; read_pixels copies it out, rows top to bottom. */
#ifndef QVIEW_REFEXPORT_H
#define QVIEW_REFEXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/error.h"
#include "world.h"

/* A world-space line for overlays (leak path, portals), drawn on top. */
typedef struct overlay_line_t {
    float a[3], b[3];
    uint8_t rgb[3];
} overlay_line_t;

typedef struct refexport_t {
    const char *name;
    /* Creates the renderer's state for this world and image size. */
    bool (*init)(void **state, const world_t *world, int width, int height, int threads, q2err_t *err);
    void (*begin_frame)(void *state, const render_opts_t *opts);
    void (*draw_world)(void *state, const camera_t *cam, render_stats_t *stats);
    /* Lines drawn over the world in the current frame (may be 0). */
    void (*draw_lines)(void *state, const camera_t *cam, const overlay_line_t *lines, int n);
    void (*end_frame)(void *state);
    void (*read_pixels)(void *state, uint8_t *rgba);
    void (*shutdown)(void *state);
} refexport_t;

extern const refexport_t ref_soft;
/* NULL-safe: gl init fails with an error when EGL or GL 3.3 is unavailable. */
extern const refexport_t ref_gl;
/* False in a build without GL (Windows: Q2MAP_NO_GL), where ref_gl's init
 * always fails. */
bool ref_gl_built(void);

/* The renderer with this name ("soft" or "gl"), or NULL. */
const refexport_t *ref_by_name(const char *name);

#endif
