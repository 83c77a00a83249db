#include "watch_files.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/inotify.h>
#endif

#include "../common/fileio.h"
#include "../common/mem.h"

typedef struct stamp_t {
    bool exists;
    long long mtime_ns, size;
    unsigned long long ino, dev;
} stamp_t;

typedef struct wfile_t {
    char *path;
    stamp_t seen;
    bool polled; /* its directory has no inotify watch */
} wfile_t;

struct watch_files_t {
    int fd; /* inotify, -1 when polling */
    wfile_t *files;
    int numfiles;
    int *wds;
    int numwds;
    bool dirty;         /* a stamp changed since the last STABLE */
    double last_change; /* when a stamp last changed */
    double last_poll;
    bool recheck;       /* an inotify event came: stat everything now */
};

static stamp_t stamp_of(const char *path)
{
    stamp_t s;
    memset(&s, 0, sizeof s);
    struct stat sb;
    if (stat(path, &sb) != 0) return s;
    s.exists = true;
    s.mtime_ns = (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
    s.size = (long long)sb.st_size;
    s.ino = (unsigned long long)sb.st_ino;
    s.dev = (unsigned long long)sb.st_dev;
    return s;
}

static bool stamp_eq(const stamp_t *a, const stamp_t *b)
{
    return a->exists == b->exists && a->mtime_ns == b->mtime_ns && a->size == b->size && a->ino == b->ino &&
           a->dev == b->dev;
}

watch_files_t *watch_files_create(bool force_poll, q2err_t *err)
{
    (void)err;
    watch_files_t *wf = q2_calloc(1, sizeof *wf);
    wf->fd = -1;
#ifdef __linux__
    if (!force_poll) wf->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
#else
    (void)force_poll;
#endif
    return wf;
}

static void clear_files(watch_files_t *wf)
{
#ifdef __linux__
    for (int i = 0; i < wf->numwds; i++) inotify_rm_watch(wf->fd, wf->wds[i]);
#endif
    free(wf->wds);
    wf->wds = NULL;
    wf->numwds = 0;
    for (int i = 0; i < wf->numfiles; i++) free(wf->files[i].path);
    free(wf->files);
    wf->files = NULL;
    wf->numfiles = 0;
}

void watch_files_free(watch_files_t *wf)
{
    if (!wf) return;
    clear_files(wf);
    if (wf->fd >= 0) close(wf->fd);
    free(wf);
}

bool watch_files_set(watch_files_t *wf, const char *const *paths, int n, q2err_t *err)
{
    (void)err;
    clear_files(wf);
    wf->files = q2_calloc(n > 0 ? n : 1, sizeof *wf->files);
    wf->wds = q2_calloc(n > 0 ? n : 1, sizeof *wf->wds);
    for (int i = 0; i < n; i++) {
        wfile_t *f = &wf->files[wf->numfiles++];
        f->path = q2_strdup(paths[i]);
        f->seen = stamp_of(paths[i]);
        f->polled = true;
#ifdef __linux__
        if (wf->fd >= 0) {
            char dir[PATH_MAX];
            path_dirname(dir, sizeof dir, paths[i]);
            /* The same directory twice gives the same descriptor back. */
            int wd = inotify_add_watch(wf->fd, dir,
                                       IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE |
                                           IN_DELETE | IN_ATTRIB);
            if (wd >= 0) {
                f->polled = false;
                int k;
                for (k = 0; k < wf->numwds; k++)
                    if (wf->wds[k] == wd) break;
                if (k == wf->numwds) wf->wds[wf->numwds++] = wd;
            }
        }
#endif
    }
    wf->dirty = false;
    return true;
}

int watch_files_fd(const watch_files_t *wf) { return wf->fd; }

bool watch_files_polling(const watch_files_t *wf)
{
    if (wf->fd < 0) return true;
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
#ifdef __linux__
    if (wf->fd >= 0) {
        /* Which file an event names does not matter: any event in a watched
         * directory makes us stat the watched files. */
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        for (;;) {
            ssize_t r = read(wf->fd, buf, sizeof buf);
            if (r > 0) {
                wf->recheck = true;
                continue;
            }
            if (r < 0 && errno == EINTR) continue;
            break;
        }
    }
#endif
    bool all = wf->recheck || wf->dirty;
    bool due = now - wf->last_poll >= WATCH_POLL_S;
    bool moved = false;
    if (all || due) {
        /* While a change settles every file is stat()ed on each call, so
         * stability is judged on stamps, not on the absence of events. */
        moved = restat(wf, all || wf->fd < 0);
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
