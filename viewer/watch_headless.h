/* qview --watch MAP --render-on-change DIR: no window; after every compile
 * that ends, a line on `out`, and after each that gives a world a picture
 * DIR/compile_NNN.png (NNN counting ended compiles) and DIR/latest.png.
 * A failed compile writes no picture: latest.png stays the last good one.
 * For tests, benchmarks and editors that embed a picture. */
#ifndef QVIEW_WATCH_HEADLESS_H
#define QVIEW_WATCH_HEADLESS_H

#include <signal.h>
#include <stdio.h>

#include "live.h"
#include "refexport.h"

typedef struct watch_headless_opts_t {
    const char *out_dir;
    int max_compiles; /* stop after this many ended compiles (0: never) */
    int width, height, threads;
    const refexport_t *ref;
    render_opts_t render;
    const camera_t *camera; /* NULL: the first world's player start, kept after */
    volatile sig_atomic_t *stop; /* set by a signal handler: end now */
    FILE *out;
} watch_headless_opts_t;

/* Runs until max_compiles compiles ended or *stop; 0 when the last one
 * gave a world, 1 otherwise. */
int watch_headless_run(live_t *l, const watch_headless_opts_t *o, log_t *log);

#endif
