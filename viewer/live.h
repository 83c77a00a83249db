/* Watch mode: the session between a .map and the picture of it. It runs
 * the first compile, watches the map and the textures the last compile
 * read, starts a compile when they have settled after a save, cancels one
 * that a newer save made stale, and hands over each new world once its
 * compile has ended well and the bsp has loaded; a failed compile leaves
 * the last good world where it is. Used by the window and by the headless
 * --render-on-change loop alike. */
#ifndef QVIEW_LIVE_H
#define QVIEW_LIVE_H

#include "compile_job.h"
#include "overlays.h"
#include "watch_files.h"
#include "world.h"

typedef struct live_opts_t {
    const char *map;
    const char *const *compile_opts; /* passed to q2map compile as they are */
    int ncompile_opts;
    bool final;      /* start with the -final preset instead of -fast */
    bool force_poll; /* stat() polling instead of change notification */
    texdb_t *db;     /* textures for the worlds (may be NULL) */
    log_t *log;
} live_opts_t;

typedef struct live_t {
    live_opts_t o;
    char q2map[Q2_PATH_MAX];
    char root[Q2_PATH_MAX]; /* private directory holding the jobs */
    watch_files_t *wf;
    compile_job_t job;
    bool final;
    bool due;          /* a compile should start (first one, F5, a settled save) */
    int started;       /* compiles started, the running and cancelled ones included (names their directories) */
    int finished;      /* compiles ended (well or not); cancelled ones do not count */
    int cancelled;
    double job_t0;     /* when the running compile started */
    double change_t;   /* when the save that the running compile follows was first seen */
    compile_result_t last; /* the last ended compile */
    bool have_last, last_ok;
    char last_error[Q2ERR_MSG_MAX]; /* why the last compile gave no world */
    int last_serial;   /* its number: compiles are numbered as they end, from 1 */
} live_t;

/* What one live_poll call brought. */
typedef struct live_update_t {
    bool ended;        /* a compile ended; result is live.last */
    bool ok;           /* ... with a world */
    world_t *world;    /* the new world (heap; the caller owns it) */
    overlays_t leak;   /* its leak line (caller frees), empty when sealed */
    bool cancelled;    /* a running compile was cancelled by a newer save */
    bool started;      /* a compile started */
    int serial;        /* the compile that ended or was cancelled: ended compiles count from 1, and a
                        * cancelled one has the number its restart will end with */
    double save_to_ready_s; /* first sight of the save to world loaded; 0 for F5 or the first */
    double settle_s;        /* ... of which waiting for the files to settle */
    double job_s;           /* the compile's wall time, q2map's start to its end */
    double load_s;          /* loading the new bsp */
} live_update_t;

bool live_start(live_t *l, const live_opts_t *o, q2err_t *err);
/* Cancels a running compile and removes the private directory. */
void live_stop(live_t *l);
/* One step; never blocks for long (the world load of an ended compile is
 * the longest part). */
void live_poll(live_t *l, double now, live_update_t *u);
/* Sleeps until a watched file may have changed or timeout_ms passed. */
void live_wait(live_t *l, int timeout_ms);
/* F5: compile now (a running compile is cancelled and started again). */
void live_request(live_t *l);
/* Switches between -fast and -final and compiles again. */
void live_toggle_preset(live_t *l);
bool live_compiling(const live_t *l);
const char *live_preset_name(const live_t *l);

/* The files in qbsp's -deps rule (a Makefile rule, its lines continued
 * with a backslash; spaces and '#' in names escaped with a backslash, '$'
 * doubled), the map first in place of the rule's own first name; *out and
 * its strings are the caller's to free. */
int live_parse_deps(const char *text, const char *map, char ***out);

/* Lines for the on-screen figures: what is running or what the last
 * compile did, its stage times, warnings, errors with file:line. */
#define LIVE_HUD_LINES 8
typedef struct live_hud_t {
    int n;
    char text[LIVE_HUD_LINES][JOB_LINE_MAX];
    uint8_t rgb[LIVE_HUD_LINES][3];
} live_hud_t;
void live_hud(const live_t *l, double now, live_hud_t *h);

#endif
