/* common/os.h on POSIX systems. */
#define _GNU_SOURCE
#include "os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sched.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#endif

#include "mem.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

extern char **environ;

bool os_is_sep(char c) { return c == '/'; }

bool os_path_is_absolute(const char *path) { return path[0] == '/'; }

bool os_absolute_path(const char *path, char *out, size_t size)
{
    if (os_path_is_absolute(path)) return (size_t)snprintf(out, size, "%s", path) < size;
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) return false;
    return (size_t)snprintf(out, size, "%s/%s", cwd, path) < size;
}

bool os_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool os_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool os_remove_file(const char *path) { return unlink(path) == 0 || errno == ENOENT; }

bool os_list_dir(const char *dir, char ***names, int *count, q2err_t *err)
{
    *names = NULL;
    *count = 0;
    struct stat st;
    if (stat(dir, &st) != 0) return q2err_set(err, dir, 0, 0, "directory not found: %s", strerror(errno));
    if (!S_ISDIR(st.st_mode)) return q2err_set(err, dir, 0, 0, "not a directory");
    DIR *d = opendir(dir);
    if (!d) return q2err_set(err, dir, 0, 0, "cannot list directory: %s", strerror(errno));
    int cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char *n = q2_strdup(de->d_name);
        ARRAY_PUSH(*names, *count, cap, n);
    }
    closedir(d);
    return true;
}

bool os_file_open_read(const char *path, os_file_t *f, q2err_t *err)
{
    f->handle = -1;
    f->size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return q2err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return q2err_set(err, path, 0, 0, "not a regular file");
    }
    f->handle = fd;
    f->size = (uint64_t)st.st_size;
    return true;
}

bool os_file_pread(const os_file_t *f, const char *name, uint64_t off, void *buf, size_t len, q2err_t *err)
{
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread((int)f->handle, (uint8_t *)buf + done, len - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            return q2err_set(err, name, 0, 0, "read error at offset %llu: %s", (unsigned long long)(off + done),
                             r < 0 ? strerror(errno) : "file shorter than when it was opened");
        done += (size_t)r;
    }
    return true;
}

void os_file_close(os_file_t *f)
{
    if (f->handle >= 0) close((int)f->handle);
    f->handle = -1;
}

bool os_is_console(FILE *f) { return f && isatty(fileno(f)); }

FILE *os_fopen(const char *path, const char *mode) { return fopen(path, mode); }

bool os_open_regular(const char *path, FILE **f, uint64_t *size, q2err_t *err)
{
    *f = NULL;
    *size = 0;
    /* O_NONBLOCK so that a FIFO or device given by mistake is refused below
     * instead of blocking the open forever. */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) return q2err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return q2err_set(err, path, 0, 0, "not a regular file");
    }
    *f = fdopen(fd, "rb");
    if (!*f) {
        close(fd);
        return q2err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    }
    *size = (uint64_t)st.st_size;
    return true;
}

const void *os_map_stream(FILE *f, size_t size)
{
    if (size == 0) return NULL;
    /* MAP_POPULATE maps the cached pages at once: no fault per page and no
     * copy, where a read into fresh memory zero-fills and faults every page
     * of it first. */
    void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fileno(f), 0);
    return p == MAP_FAILED ? NULL : p;
}

void os_unmap(const void *p, size_t size)
{
    if (p) munmap((void *)p, size);
}

bool os_replace_file(const char *from, const char *to, q2err_t *err)
{
    if (rename(from, to) == 0) return true;
    return q2err_set(err, to, 0, 0, "cannot replace: %s", strerror(errno));
}

bool os_dir_writable(const char *dir) { return access(dir, W_OK) == 0; }

bool os_make_dir(const char *path) { return mkdir(path, 0777) == 0 || (errno == EEXIST && os_is_dir(path)); }

static struct timespec clock_now(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts;
}

double os_monotonic_s(void)
{
    struct timespec ts = clock_now(CLOCK_MONOTONIC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

long long os_monotonic_ns(void)
{
    struct timespec ts = clock_now(CLOCK_MONOTONIC);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

double os_cpu_thread_s(void)
{
    struct timespec ts = clock_now(CLOCK_THREAD_CPUTIME_ID);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double os_cpu_process_s(void)
{
    struct timespec ts = clock_now(CLOCK_PROCESS_CPUTIME_ID);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void os_sleep_ns(long ns)
{
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}

void os_nap(void) { os_sleep_ns(100000); }

_Noreturn void os_kill_self(void)
{
    raise(SIGKILL);
    _exit(137);
}

long os_process_id(void) { return (long)getpid(); }

void os_host_name(char *out, size_t size)
{
    if (size == 0) return;
    if (gethostname(out, size - 1) != 0) snprintf(out, size, "?");
    out[size - 1] = 0;
}

void os_main_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}

const char *os_exe_suffix(void) { return ""; }

bool os_self_dir(char *out, size_t size)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return false;
    self[len] = 0;
    char *slash = strrchr(self, '/');
    if (!slash) return false;
    *slash = 0;
    return (size_t)snprintf(out, size, "%s", slash == self ? "/" : self) < size;
}

bool os_is_executable(const char *path) { return os_is_file(path) && access(path, X_OK) == 0; }

bool os_file_stamp(const char *path, os_stamp_t *st)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return false;
    st->mtime_ns = (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
    st->id = (unsigned long long)sb.st_ino;
    st->size = (unsigned long long)sb.st_size;
    return true;
}

void os_ignore_broken_pipe(void) { signal(SIGPIPE, SIG_IGN); }

int os_run_piped(const char *const *argv, os_output_fn sink, void *ctx, q2err_t *err)
{
    int outp[2], errp[2];
    if (pipe(outp) != 0) return q2err_set(err, argv[0], 0, 0, "cannot run: %s", strerror(errno)), -1;
    if (pipe(errp) != 0) {
        int e = errno;
        close(outp[0]);
        close(outp[1]);
        return q2err_set(err, argv[0], 0, 0, "cannot run: %s", strerror(e)), -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, outp[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, errp[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&fa, outp[0]);
    posix_spawn_file_actions_addclose(&fa, errp[0]);
    posix_spawn_file_actions_addclose(&fa, outp[1]);
    posix_spawn_file_actions_addclose(&fa, errp[1]);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(outp[1]);
    close(errp[1]);
    if (rc != 0) {
        close(outp[0]);
        close(errp[0]);
        return q2err_set(err, argv[0], 0, 0, "cannot run: %s", strerror(rc)), -1;
    }

    struct pollfd fds[2] = {{.fd = outp[0], .events = POLLIN}, {.fd = errp[0], .events = POLLIN}};
    int open_fds = 2;
    char buf[8192];
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                sink(ctx, i + 1, buf, (size_t)n);
            } else if (n == 0 || errno != EINTR) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0) close(fds[i].fd);

    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return q2err_set(err, argv[0], 0, 0, "lost the child: %s", strerror(errno)), -1;
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return q2err_set(err, argv[0], 0, 0, "ended in an unknown way"), -1;
}

void os_status_text(int status, char *out, size_t size)
{
    if (status > 128 && status < 128 + 65) snprintf(out, size, "killed by signal %d", status - 128);
    else snprintf(out, size, "exit status %d", status);
}

bool os_job_start(os_job_t *j, const char *const *argv, const char *out_path, q2err_t *err)
{
    memset(j, 0, sizeof *j);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
#ifdef __linux__
    /* Orphans of a killed group come to us, to be reaped (reap_group). */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#endif
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0) return q2err_set(err, argv[0], 0, 0, "cannot run: %s", strerror(rc));
    j->pid = pid;
    return true;
}

/* After the leader is reaped: reaps what is left of its group. A program it
 * ran was orphaned by the kill and, with us as subreaper, is our child now;
 * waiting for it means that nothing of the group runs any more. Where
 * subreapers do not exist this finds no child and returns at once. */
static void reap_group(pid_t pgid)
{
    int status;
    for (;;) {
        pid_t p = waitpid(-pgid, &status, 0);
        if (p > 0 || (p < 0 && errno == EINTR)) continue;
        break;
    }
}

static int decode_status(int status)
{
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

bool os_job_poll(os_job_t *j, int *status)
{
    if (j->pid <= 0) return false;
    pid_t pid = (pid_t)j->pid;
    /* Looked at without reaping: while the leader is a zombie its pid (the
     * group's id) cannot be reused, so the kill below reaches only what it
     * may have left in its group (nothing, normally). */
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0) {
        if (errno == EINTR) return false;
    } else if (si.si_pid == 0) {
        return false;
    }
    kill(-pid, SIGKILL);
    int st = 1 << 8; /* lost: counts as a failure */
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    reap_group(pid);
    j->pid = 0;
    *status = decode_status(st);
    return true;
}

void os_job_kill(os_job_t *j)
{
    if (j->pid <= 0) return;
    pid_t pid = (pid_t)j->pid;
    kill(-pid, SIGKILL);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    reap_group(pid);
    j->pid = 0;
}

bool os_make_temp_dir(const char *prefix, char *out, size_t size, q2err_t *err)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    if ((size_t)snprintf(out, size, "%s/%s-XXXXXX", tmp, prefix) >= size)
        return q2err_set(err, tmp, 0, 0, "temporary folder path too long");
    if (!mkdtemp(out)) return q2err_set(err, out, 0, 0, "cannot create: %s", strerror(errno));
    return true;
}

char os_path_sep(void) { return '/'; }

bool os_remove_empty_dir(const char *dir) { return rmdir(dir) == 0; }

const char *os_dirwatch_name(void) { return "inotify"; }

#ifdef __linux__
struct os_dirwatch_t {
    int fd;
    int *wds;
    int numwds, maxwds;
};

os_dirwatch_t *os_dirwatch_create(void)
{
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) return NULL;
    os_dirwatch_t *w = q2_calloc(1, sizeof *w);
    w->fd = fd;
    return w;
}

void os_dirwatch_clear(os_dirwatch_t *w)
{
    for (int i = 0; i < w->numwds; i++) inotify_rm_watch(w->fd, w->wds[i]);
    w->numwds = 0;
}

void os_dirwatch_free(os_dirwatch_t *w)
{
    if (!w) return;
    os_dirwatch_clear(w);
    close(w->fd);
    free(w->wds);
    free(w);
}

bool os_dirwatch_add(os_dirwatch_t *w, const char *dir)
{
    /* The same folder twice gives the same descriptor back. */
    int wd = inotify_add_watch(w->fd, dir,
                               IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE |
                                   IN_ATTRIB);
    if (wd < 0) return false;
    for (int k = 0; k < w->numwds; k++)
        if (w->wds[k] == wd) return true;
    if (w->numwds == w->maxwds) {
        w->maxwds = w->maxwds ? 2 * w->maxwds : 16;
        w->wds = q2_realloc(w->wds, sizeof *w->wds * (size_t)w->maxwds);
    }
    w->wds[w->numwds++] = wd;
    return true;
}

bool os_dirwatch_wait(os_dirwatch_t *w, int timeout_ms)
{
    if (timeout_ms > 0) {
        struct pollfd p = {.fd = w->fd, .events = POLLIN};
        poll(&p, 1, timeout_ms);
    }
    /* Which file an event names does not matter to the callers. */
    bool any = false;
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t r = read(w->fd, buf, sizeof buf);
        if (r > 0) {
            any = true;
            continue;
        }
        if (r < 0 && errno == EINTR) continue;
        break;
    }
    return any;
}
#else
os_dirwatch_t *os_dirwatch_create(void) { return NULL; }
void os_dirwatch_free(os_dirwatch_t *w) { (void)w; }
bool os_dirwatch_add(os_dirwatch_t *w, const char *dir) { return (void)w, (void)dir, false; }
void os_dirwatch_clear(os_dirwatch_t *w) { (void)w; }
bool os_dirwatch_wait(os_dirwatch_t *w, int timeout_ms) { return (void)w, (void)timeout_ms, false; }
#endif

static volatile sig_atomic_t *stop_flag;

static void on_stop_signal(int sig)
{
    (void)sig;
    if (stop_flag) *stop_flag = 1;
}

void os_on_stop_request(volatile sig_atomic_t *flag)
{
    stop_flag = flag;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

bool os_hard_link(const char *existing, const char *newpath) { return link(existing, newpath) == 0; }

/* Only the 2 MiB-aligned interior of a block can use huge pages; the hint
 * changes no contents and is ignored where the kernel does not support it. */
#define HUGE_PAGE ((uintptr_t)2 << 20)

int os_current_cpu(void)
{
#ifdef __linux__
    return sched_getcpu();
#else
    return -1;
#endif
}

bool os_move_off_cpu(void)
{
#ifdef __linux__
    cpu_set_t all, other;
    if (sched_getaffinity(0, sizeof all, &all) != 0) return false;
    int me = sched_getcpu();
    CPU_ZERO(&other);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all) && c != me) {
            CPU_SET(c, &other);
            break;
        }
    if (CPU_COUNT(&other) == 0 || sched_setaffinity(0, sizeof other, &other) != 0) return false;
    (void)sched_setaffinity(0, sizeof all, &all);
    return true;
#else
    return false;
#endif
}

static void *passing_thread(void *arg) { return arg; }

bool os_start_passing_thread(void)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return false;
    pthread_t t;
    bool ok = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
              pthread_create(&t, &attr, passing_thread, NULL) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}

void os_hint_huge_pages(void *p, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + size) & ~(HUGE_PAGE - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)size;
#endif
}

/* Room reserved at the top of the heap, and the most the compile keeps
 * there instead of handing it back (see mem_heap_setup). */
#define HEAP_RESERVE ((size_t)64 << 20)

/* The tools make and free many small objects (qbsp: hundreds of thousands
 * of windings, brushes and portals), and on e1m1 a fifth of qbsp's time
 * went to the kernel faulting in fresh 4 KiB heap pages one by one (about
 * 7000 faults). With glibc the heap is grown once by HEAP_RESERVE and that
 * range is offered to transparent huge pages (a hint: the kernel may ignore
 * it), so it faults in 2 MiB at a time; freed memory stays in the heap for
 * reuse instead of being trimmed and faulted in again. Pages are only counted once touched,
 * so the reserve costs no resident memory. Elsewhere this does nothing. */
void os_heap_setup(void)
{
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
    mallopt(M_TOP_PAD, (int)HEAP_RESERVE);
    mallopt(M_TRIM_THRESHOLD, (int)(2 * HEAP_RESERVE));
    uintptr_t before = (uintptr_t)sbrk(0);
    /* Blocks below the mmap threshold until the heap grows (by the pad);
     * volatile so that the compiler keeps them. */
    void *volatile grow[64];
    int n = 0;
    while (n < 64 && (uintptr_t)sbrk(0) == before) grow[n++] = malloc(64 << 10);
    while (n > 0) free(grow[--n]);
    uintptr_t after = (uintptr_t)sbrk(0);
    uintptr_t start = (before + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    if (before != (uintptr_t)-1 && after > start) madvise((void *)start, after - start, MADV_HUGEPAGE);
#endif
}
