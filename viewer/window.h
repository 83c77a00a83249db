/* The interactive viewer: an SDL2 window showing either renderer, with
 * free flight and on-screen figures. */
#ifndef QVIEW_WINDOW_H
#define QVIEW_WINDOW_H

#include "live.h"
#include "overlays.h"
#include "refexport.h"

typedef struct window_opts_t {
    int width, height;
    int threads;
    const char *renderer; /* "soft" or "gl" at start */
    const char *shot_dir; /* where screenshots go */
    render_opts_t render;
    const camera_t *start; /* NULL: the player start */
    const overlays_t *overlays;
    log_t *log;
    /* Watch mode: worlds come from here as compiles end (w may then be
     * NULL at the start: the window waits for the first one); F5 compiles
     * again, F6 switches -fast and -final. */
    live_t *live;
    const char *title; /* window title (default "qview") */
} window_opts_t;

/* Runs until the window is closed or Escape is pressed. */
bool window_run(const world_t *w, const window_opts_t *o, q2err_t *err);

#endif
