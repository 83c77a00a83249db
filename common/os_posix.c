/* common/os.h on POSIX systems. */
#define _GNU_SOURCE
#include "os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mem.h"

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
