#include "watch_files.h"

#include <stdlib.h>
#include <string.h>

#include "../common/fileio.h"
#include "../common/mem.h"
#include "../common/os.h"

typedef struct stamp_t {
    bool exists;
    os_stamp_t st;
} stamp_t;

typedef struct wfile_t {
    char *path;
    stamp_t seen;
    bool polled; /* its directory has no change notification */
} wfile_t;

struct watch_files_t {
    os_dirwatch_t *dw; /* NULL when polling */
    wfile_t *files;
    int numfiles;
    bool dirty;         /* a stamp changed since the last STABLE */
    double last_change; /* when a stamp last changed */
    double last_poll;
    bool recheck;       /* a notification came: stat everything now */
};

static stamp_t stamp_of(const char *path)
{
    stamp_t s;
    memset(&s, 0, sizeof s);
    s.exists = os_file_stamp(path, &s.st);
    return s;
}

static bool stamp_eq(const stamp_t *a, const stamp_t *b)
{
    return a->exists == b->exists && (!a->exists || os_stamp_equal(&a->st, &b->st));
}

watch_files_t *watch_files_create(bool force_poll, q2err_t *err)
{
    (void)err;
    watch_files_t *wf = q2_calloc(1, sizeof *wf);
    if (!force_poll) wf->dw = os_dirwatch_create();
    return wf;
}

static void clear_files(watch_files_t *wf)
{
    if (wf->dw) os_dirwatch_clear(wf->dw);
    for (int i = 0; i < wf->numfiles; i++) free(wf->files[i].path);
    free(wf->files);
    wf->files = NULL;
    wf->numfiles = 0;
}

void watch_files_free(watch_files_t *wf)
{
    if (!wf) return;
    clear_files(wf);
    os_dirwatch_free(wf->dw);
    free(wf);
}

bool watch_files_set(watch_files_t *wf, const char *const *paths, int n, q2err_t *err)
{
    (void)err;
    clear_files(wf);
    wf->files = q2_calloc(n > 0 ? n : 1, sizeof *wf->files);
    for (int i = 0; i < n; i++) {
        wfile_t *f = &wf->files[wf->numfiles++];
        f->path = q2_strdup(paths[i]);
        f->seen = stamp_of(paths[i]);
        char dir[Q2_PATH_MAX];
        path_dirname(dir, sizeof dir, paths[i]);
        f->polled = !(wf->dw && os_dirwatch_add(wf->dw, dir));
    }
    wf->dirty = false;
    return true;
}

bool watch_files_has_notify(const watch_files_t *wf) { return wf->dw != NULL; }

void watch_files_wait(watch_files_t *wf, int timeout_ms)
{
    if (wf->dw) {
        if (os_dirwatch_wait(wf->dw, timeout_ms)) wf->recheck = true;
    } else if (timeout_ms > 0) {
        os_sleep_ns((long)timeout_ms * 1000000L);
    }
}

bool watch_files_polling(const watch_files_t *wf)
{
    if (!wf->dw) return true;
    for (int i = 0; i < wf->numfiles; i++)
        if (wf->files[i].polled) return true;
    return false;
}

/* Stats the files (all, or only those without a directory watch); true when
 * a stamp moved. */
static bool restat(watch_files_t *wf, bool all)
{
    bool moved = false;
    for (int i = 0; i < wf->numfiles; i++) {
        wfile_t *f = &wf->files[i];
        if (!all && !f->polled) continue;
        stamp_t s = stamp_of(f->path);
        if (!stamp_eq(&s, &f->seen)) {
            f->seen = s;
            moved = true;
        }
    }
    return moved;
}

watch_event_t watch_files_poll(watch_files_t *wf, double now)
{
    watch_files_wait(wf, 0);
    bool all = wf->recheck || wf->dirty;
    bool due = now - wf->last_poll >= WATCH_POLL_S;
    bool moved = false;
    if (all || due) {
        /* While a change settles every file is stat()ed on each call, so
         * stability is judged on stamps, not on the absence of events. */
        moved = restat(wf, all || !wf->dw);
        wf->recheck = false;
        if (due) wf->last_poll = now;
    }
    if (moved) {
        wf->dirty = true;
        wf->last_change = now;
        return WATCH_CHANGING;
    }
    if (wf->dirty && now - wf->last_change >= WATCH_STABLE_S) {
        /* A missing map is mid-save (deleted before the rename): wait. */
        if (wf->numfiles > 0 && !wf->files[0].seen.exists) return WATCH_NONE;
        wf->dirty = false;
        return WATCH_STABLE;
    }
    return WATCH_NONE;
}
