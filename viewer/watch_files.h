/* Notices when watched files (a map and the textures it used) change and
 * have then stayed unchanged for a while: editors write a file in several
 * steps (truncate, write, rename over), so a compile started on the first
 * event would read half a map. Change notification on the files' folders
 * wakes us (os_dirwatch: inotify, or FindFirstChangeNotification on Windows;
 * a rename over the file replaces it, so the file itself is not watched);
 * where there is none, or when asked to, every file is stat()ed at a fixed
 * interval instead. Either way the decision is made on file stamps (mtime,
 * size, inode or file index), so both paths behave alike. */
#ifndef QVIEW_WATCH_FILES_H
#define QVIEW_WATCH_FILES_H

#include <stdbool.h>

#include "../common/error.h"

/* How long the files must stay unchanged before a change counts: longer
 * than the gaps between an editor's write steps, short enough to feel
 * instant. */
#define WATCH_STABLE_S 0.100
/* stat() interval of the polling fallback. */
#define WATCH_POLL_S 0.050

typedef struct watch_files_t watch_files_t;

/* force_poll: use polling even where change notification works (tests). */
watch_files_t *watch_files_create(bool force_poll, q2err_t *err);
void watch_files_free(watch_files_t *wf);
/* Replaces the watched set with these paths (the first is the map); their
 * stamps now count as seen. Directories that cannot be watched fall back to
 * polling for that file. */
bool watch_files_set(watch_files_t *wf, const char *const *paths, int n, q2err_t *err);
/* True when the system tells us of changes (common/os.h os_dirwatch);
 * false when every file is polled. */
bool watch_files_has_notify(const watch_files_t *wf);
/* Sleeps until a change notification or timeout_ms, whichever is first
 * (below one second). */
void watch_files_wait(watch_files_t *wf, int timeout_ms);
bool watch_files_polling(const watch_files_t *wf);

typedef enum watch_event_t {
    WATCH_NONE = 0,
    WATCH_CHANGING, /* a file just changed: a running compile is stale */
    WATCH_STABLE,   /* changed files have been still for WATCH_STABLE_S */
} watch_event_t;

/* Reads pending notifications and stamps; call often (each frame or every
 * few ms). now is time_now(). */
watch_event_t watch_files_poll(watch_files_t *wf, double now);

#endif
