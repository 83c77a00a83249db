/* common/os.h on POSIX systems. */
#define _GNU_SOURCE
#include "os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

#include "mem.h"

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
